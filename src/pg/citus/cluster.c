/*
 * citus/cluster.c - mrfdp on a Citus cluster.
 *
 * Budgets, grants and the ledger live in the coordinator's catalog, and the
 * coordinator's statement range table names the logical relations (Citus
 * keeps the original range table in its plans), so a release is charged
 * correctly only where the coordinator runs the learner's final function.
 * Two rules keep it so:
 *
 * - On the coordinator, the planner hook (hooks.c) keeps learners from being pushed to
 *   a worker: plain columns in the GROUP BY and window PARTITION BY of every
 *   query level that calls a learner are wrapped in mrf_citus_group_key(),
 *   an identity, so Citus does not see its distribution column there and
 *   does not push the grouping (and the learner) down; and when the planned
 *   query itself (or the SELECT of an INSERT ... SELECT) calls a learner on
 *   a Citus table of its own FROM, the router planners are switched off
 *   while it is planned (a single-shard WHERE id = 17 or a reference table
 *   would otherwise run the whole query, learner included, on a worker).
 *   Not for learners nested deeper (a subquery in FROM): switching the
 *   router off there breaks Citus's planning of the outer level, so such a
 *   query that Citus routes whole to one worker is refused there (below).
 *   In a query level that reads a Citus table, learner aggregates become
 *   their siblings with a state Citus can combine (citus/state.c): workers
 *   pack rows, the coordinator combines the packed states, learns and
 *   charges as on one node.  Other samples (enum arrays, rows) keep the
 *   internal-state aggregate, whose rows Citus gathers to the coordinator.
 * - Anywhere else (a worker, or a backend serving another Citus node) a
 *   release is refused before anything is charged or returned.  A worker's
 *   own catalog knows no budget of the coordinator's relations (its shards
 *   look unprotected there), and asking the coordinator for a charge from
 *   inside a task would need a connection back with the releasing role's
 *   rights, and would let a query sent to a worker directly spend budget
 *   outside the coordinator's statement tracking.  Refusing is fail closed.
 *
 * Before this, the planner hook checks on every server that every learner
 * call's options are constants or parameters, before the planner folds
 * constants (sqlapi/options_check.c).
 *
 * mrfdp does not link against Citus: it reads Citus's catalog tables
 * (pg_dist_local_group, pg_dist_shard) and its settings by name.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parse_func.h"
#include "rewrite/rewriteManip.h"
#include "parser/parsetree.h"
#include "storage/proc.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg/ledger/budget.h"
#include "pg/ledger/guard.h"
#include "pg/citus/cluster.h"
#include "pg/driver/learners.h"
#include "pg/driver/plan.h"
#include "pg/ledger/ledger.h"
#include "pg/ledger/catalog.h"


/* Application name prefixes of the connections Citus opens between nodes. */
static const char *const CitusInternalPrefixes[] = {
	"citus_internal gpid=",
	"citus_rebalancer gpid=",
	"citus_run_command gpid=",
};

/* Whether the citus extension is installed in this database. */
static bool
CitusInstalled(void)
{
	return OidIsValid(get_extension_oid("citus", true));
}

/*
 * This node's Citus group (0 on the coordinator), read from
 * pg_catalog.pg_dist_local_group without SPI; 0 when the table is missing.
 */
static int
LocalGroupId(void)
{
	Oid			relid = get_relname_relid("pg_dist_local_group", PG_CATALOG_NAMESPACE);
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	int			group = 0;

	if (!OidIsValid(relid))
		return 0;
	rel = table_open(relid, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, 1, RelationGetDescr(rel), &isnull);

		if (!isnull)
			group = DatumGetInt32(d);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return group;
}

/* Whether this backend serves a connection Citus opened from another node. */
static bool
CitusInternalBackend(void)
{
	if (application_name == NULL)
		return false;
	for (int i = 0; i < lengthof(CitusInternalPrefixes); i++)
		if (strncmp(application_name, CitusInternalPrefixes[i],
					strlen(CitusInternalPrefixes[i])) == 0)
			return true;
	return false;
}

/* See citus/cluster.h. */
void
MrfCitusRefuseOffCoordinator(const char *learner)
{
	int			group;

	if (!IsTransactionState() || !CitusInstalled())
		return;
	group = LocalGroupId();
	if (group != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot release a model on a Citus worker", learner),
				 errdetail("This node is Citus group %d, not the coordinator, where privacy budgets are kept and charged; nothing was released or charged.",
						   group),
				 errhint("Run the query on the coordinator.")));
	if (CitusInternalBackend())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot release a model in a task Citus sent from another node", learner),
				 errdetail("Only the coordinator's own statement can charge the logical relation's budget; nothing was released or charged."),
				 errhint("Run the learner in a query on the coordinator, which keeps learners there; avoid calling it through run_command_on_workers() or a distributed function.")));
}

/* See citus/cluster.h. */
List *
MrfCitusLogicalRelations(const Oid *relids, int n)
{
	Oid			types[1] = {OIDARRAYOID};
	Datum	   *elems;
	Datum		values[1];
	uint64		found;
	Oid		   *logical;
	List	   *result = NIL;

	if (n == 0 || !CitusInstalled() ||
		!OidIsValid(get_relname_relid("pg_dist_shard", PG_CATALOG_NAMESPACE)))
		return NIL;
	elems = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
		elems[i] = ObjectIdGetDatum(relids[i]);
	values[0] = PointerGetDatum(construct_array(elems, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	SPI_connect();

	/*
	 * shard_name() names a shard as Citus does (long names are shortened
	 * with a hash), so the match is exact; a shard is another relation in
	 * the logical table's schema.  shard_name() leaves names in public
	 * unqualified, which to_regclass() under the catalog query's fixed
	 * search_path would not find, so the name is qualified with the logical
	 * table's schema here.  (pg_class itself cannot be joined: Citus hides
	 * shards from queries on it.)
	 */
	found = MrfCatalogQuery("SELECT DISTINCT s.logicalrelid::oid"
							" FROM pg_dist_shard s, pg_class l, pg_namespace n"
							" WHERE l.oid = s.logicalrelid AND n.oid = l.relnamespace"
							" AND to_regclass(format('%I.%I', n.nspname,"
							" (SELECT x[array_upper(x, 1)]"
							" FROM parse_ident(shard_name(s.logicalrelid, s.shardid)) x)))::oid = ANY ($1)",
							1, types, values, NULL, true);
	logical = SPI_palloc(sizeof(Oid) * Max(found, 1));
	for (uint64 i = 0; i < found; i++)
	{
		bool		isnull;

		logical[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
													1, &isnull));
	}
	SPI_finish();
	for (uint64 i = 0; i < found; i++)
		result = lappend_oid(result, logical[i]);
	return result;
}

/* See citus/cluster.h: pg_dist_shard and pg_dist_placement (Citus's public metadata). */
void
MrfCitusShardLayout(Oid relid, int *shards, int *nodes)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	int64		counts[2] = {0, 0};

	SPI_connect();
	if (MrfCatalogQuery("SELECT count(DISTINCT s.shardid), count(DISTINCT p.groupid)"
						" FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)"
						" WHERE s.logicalrelid = $1",
						1, types, values, NULL, true) == 1)
		for (int i = 0; i < 2; i++)
		{
			bool		isnull;
			Datum		v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, i + 1, &isnull);

			counts[i] = isnull ? 0 : DatumGetInt64(v);
		}
	SPI_finish();
	*shards = (int) Min(counts[0], INT_MAX);
	*nodes = (int) Min(counts[1], INT_MAX);
}

/* Whether the plan tree holds one of Citus's custom scans. */
static bool
HasCitusScan(Plan *plan)
{
	if (plan == NULL)
		return false;
	if (IsA(plan, CustomScan) && ((CustomScan *) plan)->methods != NULL &&
		strncmp(((CustomScan *) plan)->methods->CustomName, "Citus", 5) == 0)
		return true;
	return HasCitusScan(plan->lefttree) || HasCitusScan(plan->righttree);
}

/*
 * See citus/cluster.h.  A router plan's entry is an RTE_VALUES named remote_scan
 * (RemoteScanRangeTableEntry); a combine plan's is an RTE_FUNCTION named so
 * (citus_extradata_container(), whose call set_plan_references drops from
 * the final range table).  Either only in a plan that has Citus's scan.
 */
bool
MrfCitusRemoteScan(const PlannedStmt *stmt, const RangeTblEntry *rte)
{
	if (rte->eref == NULL || strcmp(rte->eref->aliasname, "remote_scan") != 0 ||
		(rte->rtekind != RTE_FUNCTION && rte->rtekind != RTE_VALUES))
		return false;
	return HasCitusScan(stmt->planTree) && CitusInstalled();
}

/* Planner walk: the mrfdp extension's OID and whether a learner was found. */
typedef struct LearnerWalk
{
	Oid			extension;
	Oid			keyfn;			/* mrf_citus_group_key(anyelement) */
	Oid			schema;			/* the extension's schema */
	Query	   *root;			/* the query given to the planner */
	Query	   *source;			/* its SELECT, when it is INSERT ... SELECT */
	bool		root_learner;	/* its own level calls a learner */
} LearnerWalk;

/* Whether aggregate fnoid belongs to extension mrfdp (every mrfdp aggregate is a learner). */
static bool
IsLearnerAggregate(Oid fnoid, LearnerWalk *walk)
{
	return OidIsValid(walk->extension) &&
		getExtensionOfObject(ProcedureRelationId, fnoid) == walk->extension;
}

/* Finds a learner aggregate of this query level (not of nested queries). */
static bool
FindLearnerWalker(Node *node, LearnerWalk *walk)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return false;
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0 &&
		IsLearnerAggregate(((Aggref *) node)->aggfnoid, walk))
		return true;
	if (IsA(node, WindowFunc) && IsLearnerAggregate(((WindowFunc *) node)->winfnoid, walk))
		return true;
	return expression_tree_walker(node, FindLearnerWalker, walk);
}

/* A grouping column and the expression that hides it. */
typedef struct HiddenColumn
{
	Var		   *var;
	Expr	   *wrapped;
} HiddenColumn;

/* Replaces the grouping column of this query level (not of sublinks) by its hidden form. */
static Node *
HideColumnMutator(Node *node, HiddenColumn *hidden)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && equal(node, hidden->var))
		return (Node *) copyObject(hidden->wrapped);
	if (IsA(node, Query) || IsA(node, SubLink) || IsA(node, Aggref) || IsA(node, WindowFunc))
		return node;
	return expression_tree_mutator(node, HideColumnMutator, hidden);
}

/*
 * Wraps the plain column of a grouping or partitioning clause in
 * mrf_citus_group_key(), an identity Citus cannot see through (a no-op
 * relabelling would be stripped by the planner before Citus looks).
 */
static void
HideGroupingColumn(SortGroupClause *sgc, Query *query, Oid keyfn)
{
	TargetEntry *tle = get_sortgroupclause_tle(sgc, query->targetList);
	HiddenColumn hidden;
	ListCell   *lc;

	if (!IsA(tle->expr, Var))
		return;
	hidden.var = (Var *) tle->expr;
	/* the identity keeps the column's collation: grouping text hashes with it */
	hidden.wrapped = (Expr *) makeFuncExpr(keyfn, hidden.var->vartype, list_make1(hidden.var),
										   hidden.var->varcollid, hidden.var->varcollid,
										   COERCE_EXPLICIT_CALL);
	tle->expr = hidden.wrapped;

	/*
	 * The column used inside other expressions of the select list or HAVING
	 * (e.g. 'group ' || g) must be the grouping expression there too, or the
	 * grouped query is no longer valid.
	 */
	foreach(lc, query->targetList)
	{
		TargetEntry *other = lfirst_node(TargetEntry, lc);

		if (other != tle)
			other->expr = (Expr *) HideColumnMutator((Node *) other->expr, &hidden);
	}
	query->havingQual = HideColumnMutator(query->havingQual, &hidden);
}

static bool ReadsCitusTable(Query *query);

/*
 * Errors when a learner aggregate of this query level (not of nested
 * queries) takes options that are not a function of constants and query
 * parameters.  Citus ships the options to the coordinator as a column, where
 * the aggregate can only compare each row's with the first's; this keeps the
 * one-node rule (options never depend on the data) on Citus too.
 */
static bool
CheckOptionsWalker(Node *node, LearnerWalk *walk)
{
	Oid			learner = InvalidOid;
	Node	   *options = NULL;

	if (node == NULL || IsA(node, Query))
		return false;
	/* an ordered call's sort keys follow its two arguments in args */
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0 &&
		list_length(((Aggref *) node)->args) >= 2)
	{
		learner = ((Aggref *) node)->aggfnoid;
		options = (Node *) lsecond_node(TargetEntry, ((Aggref *) node)->args)->expr;
	}
	else if (IsA(node, WindowFunc) && list_length(((WindowFunc *) node)->args) == 2)
	{
		learner = ((WindowFunc *) node)->winfnoid;
		options = (Node *) lsecond(((WindowFunc *) node)->args);
	}
	if (options != NULL && IsLearnerAggregate(learner, walk) &&
		(contain_var_clause(options) || contain_volatile_functions(options) ||
		 checkExprHasSubLink(options)))
	{
		char	   *name = get_func_name(learner);
		size_t		len = strlen(name);

		if (len > 4 && strcmp(name + len - 4, "_agg") == 0)
			name[len - 4] = '\0';
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs the same options for every row", name),
				 errdetail("The options argument is not a constant."),
				 errhint("Pass constants or query parameters to mrf_options().")));
	}
	return expression_tree_walker(node, CheckOptionsWalker, walk);
}

/*
 * The learner aggregate's sibling whose state Citus can combine
 * (mrfdp_internal.mrf_learn_<kind>_citus_agg, citus/state.c) for the call's sample
 * type, or InvalidOid.  The siblings live in schema mrfdp with the other
 * support functions: users never call them.
 */
static Oid
CombinableSibling(Aggref *aggref)
{
	char	   *name = get_func_name(aggref->aggfnoid);
	size_t		len = name ? strlen(name) : 0;
	Oid			argtypes[2] = {InvalidOid, JSONBOID};

	if (list_length(aggref->args) != 2)
		return InvalidOid;
	/* Citus checks a split aggregate's argument types exactly: one sibling per sample type */
	argtypes[0] = exprType((Node *) linitial_node(TargetEntry, aggref->args)->expr);
	if (len < 5 || strcmp(name + len - 4, "_agg") != 0 || strstr(name, "_citus_") != NULL)
		return InvalidOid;
	name[len - 4] = '\0';
	return LookupFuncName(list_make2(makeString("mrfdp_internal"),
									 makeString(psprintf("%s_citus_agg", name))),
						  2, argtypes, true);
}

/*
 * Merges what the learner fixes on every node from this (the
 * coordinator's) settings (MrfLearner.cluster_options) under the call's
 * options: jsonb_concat(fixed, options), so the call's own keys win.  The
 * workers receive the merged document and plan as the coordinator does,
 * whatever their own settings; its final function reads the same document
 * back from their states.
 */
static void
MergeClusterOptions(Aggref *aggref)
{
	const MrfLearner *learner = MrfLearnerFind(get_func_name(aggref->aggfnoid));
	TargetEntry *te = lsecond_node(TargetEntry, aggref->args);
	char	   *fixed;
	Const	   *c;

	if (learner == NULL || learner->cluster_options == NULL ||
		(fixed = learner->cluster_options()) == NULL)
		return;
	c = makeConst(JSONBOID, -1, InvalidOid, -1,
				  DirectFunctionCall1(jsonb_in, CStringGetDatum(fixed)), false, false);
	te->expr = (Expr *) makeFuncExpr(F_JSONB_CONCAT, JSONBOID, list_make2(c, te->expr),
									 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * Puts the combinable sibling in place of every plain learner aggregate of
 * this query level (not of nested queries): Citus then packs rows on the
 * workers and ships packed rows.  Ordered or DISTINCT calls keep their
 * aggregate (Citus would gather their rows anyway).
 */
static bool
ShipStateWalker(Node *node, LearnerWalk *walk)
{
	if (node == NULL || IsA(node, Query))
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *aggref = (Aggref *) node;

		if (aggref->agglevelsup == 0 && aggref->aggorder == NIL && aggref->aggdistinct == NIL &&
			IsLearnerAggregate(aggref->aggfnoid, walk))
		{
			Oid			sibling = CombinableSibling(aggref);

			if (OidIsValid(sibling))
			{
				MergeClusterOptions(aggref);
				aggref->aggfnoid = sibling;
			}
		}
	}
	return expression_tree_walker(node, ShipStateWalker, walk);
}

/*
 * Every query level that calls a learner: its grouping and partitioning
 * columns are hidden from Citus's distribution-column test, and, when it
 * reads a Citus table, its learners' options must be constants and its
 * learner aggregates become their combinable siblings.
 */
static bool
KeepLearnersWalker(Node *node, LearnerWalk *walk)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;

		if ((query->hasAggs || query->hasWindowFuncs) &&
			(FindLearnerWalker((Node *) query->targetList, walk) ||
			 FindLearnerWalker(query->havingQual, walk)))
		{
			ListCell   *lc;

			if (query == walk->root || query == walk->source)
				walk->root_learner = true;
			if (ReadsCitusTable(query))
			{
				(void) CheckOptionsWalker((Node *) query->targetList, walk);
				(void) CheckOptionsWalker(query->havingQual, walk);
				(void) ShipStateWalker((Node *) query->targetList, walk);
				(void) ShipStateWalker(query->havingQual, walk);
			}
			foreach(lc, query->groupClause)
				HideGroupingColumn(lfirst_node(SortGroupClause, lc), query, walk->keyfn);
			foreach(lc, query->windowClause)
			{
				WindowClause *wc = lfirst_node(WindowClause, lc);
				ListCell   *lc2;

				foreach(lc2, wc->partitionClause)
					HideGroupingColumn(lfirst_node(SortGroupClause, lc2), query, walk->keyfn);
			}
		}
		return query_tree_walker(query, KeepLearnersWalker, walk, 0);
	}
	return expression_tree_walker(node, KeepLearnersWalker, walk);
}

/*
 * Whether the query's own range table (not its subqueries') names a Citus
 * table whose shards may live on workers: a distributed or reference table
 * in pg_dist_partition (a small catalog, scanned without SPI).  A Citus
 * local table (DISTRIBUTE_BY_NONE, not 2PC-replicated, no colocation group:
 * Citus's IsCitusLocalTableByDistParams) stays on the coordinator, where
 * Citus's router planner runs its queries; the logical planner would refuse.
 */
static bool
ReadsCitusTable(Query *query)
{
	Oid			partition = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	bool		found = false;
	Relation	rel;
	ListCell   *lc;

	if (!OidIsValid(partition))
		return false;
	rel = table_open(partition, AccessShareLock);
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tup;

		if (rte->rtekind != RTE_RELATION)
			continue;
		/* columns: 1 logicalrelid, 2 partmethod, 4 colocationid, 5 repmodel */
		ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(rte->relid));
		scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
		tup = systable_getnext(scan);
		if (HeapTupleIsValid(tup))
		{
			TupleDesc	desc = RelationGetDescr(rel);
			bool		isnull;
			char		method = DatumGetChar(heap_getattr(tup, 2, desc, &isnull));
			int32		colocation = DatumGetInt32(heap_getattr(tup, 4, desc, &isnull));
			char		repmodel = DatumGetChar(heap_getattr(tup, 5, desc, &isnull));

			found = !(method == 'n' && repmodel != 't' && colocation == 0);
		}
		systable_endscan(scan);
		if (found)
			break;
	}
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * relid's partition method in pg_dist_partition ('h' hash-distributed, 'n'
 * reference or Citus local, ...), or '\0' when it is not a Citus table.
 */
static char
PartitionMethod(Oid relid)
{
	Oid			partition;
	char		method = '\0';
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	if (!CitusInstalled())
		return '\0';
	partition = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	if (!OidIsValid(partition))
		return '\0';
	rel = table_open(partition, AccessShareLock);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;

		method = DatumGetChar(heap_getattr(tup, 2, RelationGetDescr(rel), &isnull));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return method;
}

/* See citus/cluster.h: any entry of pg_dist_partition. */
bool
MrfCitusIsCitusTable(Oid relid)
{
	return PartitionMethod(relid) != '\0';
}

/* See citus/cluster.h: partition method 'h' in pg_dist_partition. */
bool
MrfCitusIsDistributed(Oid relid)
{
	return PartitionMethod(relid) == 'h';
}

/*
 * The SELECT of an INSERT ... SELECT (Citus plans it with its router
 * planner directly, not through planner()), or NULL.
 */
static Query *
InsertSource(Query *query)
{
	ListCell   *lc;

	if (query->commandType != CMD_INSERT)
		return NULL;
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_SUBQUERY && !rte->inFromCl)
			return rte->subquery;
	}
	return NULL;
}

/*
 * mrfdp_internal.mrf_citus_group_key(anyelement), or InvalidOid (an
 * installed script older than this library: nothing is rewritten, and
 * releases off the coordinator are still refused).
 */
static Oid
GroupKeyFunction(Oid *schema)
{
	Oid			owner;
	Oid			argtypes[1] = {ANYELEMENTOID};

	if (!MrfExtensionSchemaAndOwner(schema, &owner))
		return InvalidOid;
	return LookupFuncName(list_make2(makeString("mrfdp_internal"),
									 makeString("mrf_citus_group_key")),
						  1, argtypes, true);
}

PG_FUNCTION_INFO_V1(mrf_citus_group_key);
/* The identity (see HideGroupingColumn). */
Datum
mrf_citus_group_key(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* Sets a Citus planner setting for the current GUC nest level, if Citus defines it. */
static void
SetCitusOff(const char *name)
{
	if (GetConfigOption(name, true, false) != NULL)
		(void) set_config_option(name, "off", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
}

/*
 * See citus/cluster.h: a query that calls a learner, in a database with
 * Citus, is planned so that Citus runs the learners on this node (see the
 * file comment); other queries pass through untouched.
 */
int
MrfCitusBeforePlanning(Query *parse)
{
	LearnerWalk walk = {InvalidOid, InvalidOid, InvalidOid, parse, NULL, false};
	int			nestlevel = -1;

	/* the setting exists only where the Citus library is loaded: a cheap first test */
	if (parse->commandType != CMD_UTILITY && IsTransactionState() &&
		GetConfigOption("citus.enable_router_execution", true, false) != NULL &&
		CitusInstalled())
	{
		walk.extension = get_extension_oid("mrfdp", true);
		walk.keyfn = GroupKeyFunction(&walk.schema);
		walk.source = InsertSource(parse);
		if (OidIsValid(walk.keyfn))
			(void) KeepLearnersWalker((Node *) parse, &walk);
		if (walk.root_learner &&
			(ReadsCitusTable(parse) || (walk.source && ReadsCitusTable(walk.source))))
		{
			nestlevel = NewGUCNestLevel();
			SetCitusOff("citus.enable_router_execution");
			SetCitusOff("citus.enable_fast_path_router_planner");
		}
	}
	return nestlevel;
}

/* See citus/cluster.h. */
void
MrfCitusAfterPlanning(int nestlevel)
{
	if (nestlevel >= 0)
		AtEOXact_GUC(true, nestlevel);
}
