/*
 * sqlapi/options_check.c - a learner's options are constants or query parameters,
 * checked on the statement's query tree, at every level, before the planner
 * folds constants.
 *
 * The charge of a release is planned from its options, so options that
 * depend on the rows of a table would make the charged amount (which the
 * ledger shows to whoever reads the budget) a function of the data.  The
 * aggregates check their options argument at run time (a constant, a query
 * parameter, or a column whose every row must equal the first), but by then
 * the planner has folded IMMUTABLE functions to constants (one that reads a
 * table with a query passes as a constant), and a column from a subquery or
 * CTE that computes the options from the rows is equal in every row.  Here
 * the options expression of every learner aggregate or window call, at
 * every query level, must be made of constants, query parameters and calls
 * of immutable functions in C (built in or a superuser's) or of mrfdp's own
 * non-volatile ones; a column
 * is followed to its definition in a subquery, CTE, join or VALUES list,
 * which must be such an expression too.  A column of a table, a sublink, an
 * aggregate and any other function are refused, before anything runs.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_language.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg/sqlapi/options_check.h"

/* The walk over a statement: mrfdp's OID, and the enclosing queries (innermost first). */
typedef struct OptionsWalk
{
	Oid			extension;
	List	   *stack;
} OptionsWalk;

static bool ConstantOptions(Node *node, List *stack, Oid extension);

/*
 * Whether fnoid is distributed Frank-Wolfe's scores aggregate or one of its
 * support functions (mrf_fw_*, citus/fw.c): it releases nothing (its final
 * function returns the sums only to mrf_learn_ising_from's own call) and
 * takes the rows' tableoid, a column, besides its step.
 */
static bool
IsFwScores(Oid fnoid)
{
	char	   *name = get_func_name(fnoid);

	/* and the stable mode's blocks aggregate on the shards (mrf_stable_blocks_*, citus/stable.c) */
	return name != NULL && (strncmp(name, "mrf_fw_", 7) == 0 ||
							strncmp(name, "mrf_stable_blocks_", 18) == 0);
}

/*
 * Whether aggregate fnoid learns: one of mrfdp's (every mrfdp aggregate is a
 * learner), or any aggregate built on one of mrfdp's transition, combine or
 * final functions (a role can declare its own around them).
 */
static bool
IsLearner(Oid fnoid, Oid extension)
{
	HeapTuple	tup;
	Oid			support[3];
	bool		found = false;

	if (getExtensionOfObject(ProcedureRelationId, fnoid) == extension)
		return !IsFwScores(fnoid);
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(fnoid));
	if (!HeapTupleIsValid(tup))
		return false;
	support[0] = ((Form_pg_aggregate) GETSTRUCT(tup))->aggtransfn;
	support[1] = ((Form_pg_aggregate) GETSTRUCT(tup))->aggcombinefn;
	support[2] = ((Form_pg_aggregate) GETSTRUCT(tup))->aggfinalfn;
	ReleaseSysCache(tup);
	for (int i = 0; i < lengthof(support) && !found; i++)
		found = OidIsValid(support[i]) &&
			getExtensionOfObject(ProcedureRelationId, support[i]) == extension &&
			!IsFwScores(support[i]);
	return found;
}

/*
 * Whether calling fnoid cannot read a table: an immutable function written
 * in C (built in, or created by a superuser: only they can), or one of
 * mrfdp's own non-volatile functions.  An IMMUTABLE label on a function in
 * SQL or PL/pgSQL, which any role can create, is only a promise (it may run
 * a query); stable built-ins such as the statistics functions read what the
 * rows did.  (The aggregates refuse any call the planner did not fold to a
 * constant anyway: only immutable functions of constants reach them as
 * constants.)
 */
static bool
TrustedFunction(Oid fnoid, Oid extension)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fnoid));
	char		volatility;
	Oid			language;

	if (!HeapTupleIsValid(tup))
		return false;
	volatility = ((Form_pg_proc) GETSTRUCT(tup))->provolatile;
	language = ((Form_pg_proc) GETSTRUCT(tup))->prolang;
	ReleaseSysCache(tup);
	if (volatility == PROVOLATILE_IMMUTABLE &&
		(language == ClanguageId || language == INTERNALlanguageId))
		return true;
	return volatility != PROVOLATILE_VOLATILE &&
		getExtensionOfObject(ProcedureRelationId, fnoid) == extension;
}

/*
 * Whether output column attno of query sub (with stack, sub first) is a
 * constant expression; a set operation's column must be in every branch.
 */
static bool
ConstantColumn(Query *sub, AttrNumber attno, List *stack, Oid extension)
{
	TargetEntry *tle;

	if (sub->commandType != CMD_SELECT || sub->utilityStmt != NULL)
		return false;
	if (sub->setOperations != NULL)
	{
		List	   *todo = list_make1(sub->setOperations);

		while (todo != NIL)
		{
			Node	   *op = linitial(todo);

			todo = list_delete_first(todo);
			if (IsA(op, SetOperationStmt))
			{
				todo = lappend(todo, ((SetOperationStmt *) op)->larg);
				todo = lappend(todo, ((SetOperationStmt *) op)->rarg);
			}
			else
			{
				RangeTblEntry *leaf = rt_fetch(castNode(RangeTblRef, op)->rtindex, sub->rtable);

				if (leaf->rtekind != RTE_SUBQUERY ||
					!ConstantColumn(leaf->subquery, attno, lcons(leaf->subquery, stack), extension))
					return false;
			}
		}
		return true;
	}
	tle = get_tle_by_resno(sub->targetList, attno);
	return tle != NULL && ConstantOptions((Node *) tle->expr, stack, extension);
}

/* Whether the column var (relative to stack's first query) is a constant expression. */
static bool
ConstantVar(Var *var, List *stack, Oid extension)
{
	List	   *outer;
	Query	   *query;
	RangeTblEntry *rte;

	if (var->varlevelsup >= list_length(stack) || var->varattno <= 0)
		return false;
	outer = list_copy_tail(stack, var->varlevelsup);
	query = linitial(outer);
	if (var->varno < 1 || var->varno > list_length(query->rtable))
		return false;
	rte = rt_fetch(var->varno, query->rtable);
	switch (rte->rtekind)
	{
		case RTE_SUBQUERY:
			return ConstantColumn(rte->subquery, var->varattno, lcons(rte->subquery, outer),
								  extension);
		case RTE_CTE:
			{
				Query	   *owner;
				ListCell   *lc;

				if (rte->self_reference || rte->ctelevelsup >= list_length(outer))
					return false;
				outer = list_copy_tail(outer, rte->ctelevelsup);
				owner = linitial(outer);
				foreach(lc, owner->cteList)
				{
					CommonTableExpr *cte = lfirst_node(CommonTableExpr, lc);

					if (strcmp(cte->ctename, rte->ctename) == 0)
						return !cte->cterecursive && IsA(cte->ctequery, Query) &&
							ConstantColumn((Query *) cte->ctequery, var->varattno,
										   lcons(cte->ctequery, outer), extension);
				}
				return false;
			}
		case RTE_JOIN:
			if (var->varattno > list_length(rte->joinaliasvars))
				return false;
			return ConstantOptions(list_nth(rte->joinaliasvars, var->varattno - 1), outer,
								   extension);
		case RTE_VALUES:
			{
				ListCell   *lc;

				foreach(lc, rte->values_lists)
				{
					List	   *row = lfirst(lc);

					if (var->varattno > list_length(row) ||
						!ConstantOptions(list_nth(row, var->varattno - 1), outer, extension))
						return false;
				}
				return true;
			}
		default:
			/* a table, a function's result, a tuplestore: the rows themselves */
			return false;
	}
}

/* Walker of ConstantOptions: true (stop) at the first node that may read a table. */
static bool
NotConstantWalker(Node *node, OptionsWalk *walk)
{
	Oid			fnoid = InvalidOid;

	if (node == NULL)
		return false;
	check_stack_depth();
	switch (nodeTag(node))
	{
		case T_Const:
		case T_CaseTestExpr:
		case T_SQLValueFunction:
			return false;
		case T_Param:
			return ((Param *) node)->paramkind != PARAM_EXTERN;
		case T_Var:
			return !ConstantVar((Var *) node, walk->stack, walk->extension);
		case T_FuncExpr:
			fnoid = ((FuncExpr *) node)->funcid;
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			set_opfuncid((OpExpr *) node);
			fnoid = ((OpExpr *) node)->opfuncid;
			break;
		case T_ScalarArrayOpExpr:
			set_sa_opfuncid((ScalarArrayOpExpr *) node);
			fnoid = ((ScalarArrayOpExpr *) node)->opfuncid;
			break;
		case T_List:
		case T_NamedArgExpr:
		case T_BoolExpr:
		case T_RelabelType:
		case T_CoerceViaIO:
		case T_ArrayCoerceExpr:
		case T_CollateExpr:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_ArrayExpr:
		case T_RowExpr:
		case T_CoalesceExpr:
		case T_FieldSelect:
			break;
		default:
			/* sublinks, aggregates, domains and anything else */
			return true;
	}
	if (OidIsValid(fnoid) && !TrustedFunction(fnoid, walk->extension))
		return true;
	return expression_tree_walker(node, NotConstantWalker, walk);
}

/*
 * Whether node, an expression of stack's first query, is made of constants,
 * query parameters and trusted functions only (see the file comment).
 */
static bool
ConstantOptions(Node *node, List *stack, Oid extension)
{
	OptionsWalk walk = {extension, stack};

	return !NotConstantWalker(node, &walk);
}

/* Raises the refusal (the same words as the aggregates' run-time check). */
static void
pg_attribute_noreturn()
OptionsNotConstant(Oid learner)
{
	char	   *name = get_func_name(learner);
	size_t		len = name ? strlen(name) : 0;

	if (len > 10 && strcmp(name + len - 10, "_citus_agg") == 0)
		name[len - 10] = '\0';
	else if (len > 4 && strcmp(name + len - 4, "_agg") == 0)
		name[len - 4] = '\0';
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s needs the same options for every row", name ? name : "mrfdp learner"),
			 errdetail("The options argument is not a constant."),
			 errhint("Pass constants or query parameters to mrf_options().")));
}

/*
 * Citus's split-aggregate steps, which a user can also call by hand:
 * worker_partial_agg(aggregate, ROW(sample, options)) runs a learner's
 * transition, coord_combine_agg(aggregate, state, NULL) its combine and
 * final functions on a state that carries the options.  Returns 1 and 2
 * for those, 0 for anything else.
 */
static int
CitusSplitStep(Oid fnoid)
{
	char	   *name;

	if (get_func_namespace(fnoid) != PG_CATALOG_NAMESPACE)
		return 0;
	name = get_func_name(fnoid);
	if (name != NULL && strcmp(name, "worker_partial_agg") == 0)
		return 1;
	if (name != NULL && strcmp(name, "coord_combine_agg") == 0)
		return 2;
	return 0;
}

/*
 * Checks a call of Citus's worker_partial_agg or coord_combine_agg that
 * names a learner: the options in its ROW(sample, options), or the state
 * (which carries the options it was built with), must be constants too.
 * The calls Citus itself plans pass: its workers' tasks spell the options
 * as a literal, and its coordinator's combine query is planned by Citus,
 * not through this check.
 */
static void
CheckCitusSplitCall(Aggref *aggref, int step, OptionsWalk *walk)
{
	Node	   *named = (Node *) linitial_node(TargetEntry, aggref->args)->expr;
	Node	   *second = (Node *) lsecond_node(TargetEntry, aggref->args)->expr;
	Oid			learner;

	while (IsA(named, RelabelType))
		named = (Node *) ((RelabelType *) named)->arg;
	/* Citus names the aggregate with a literal; anything else might name a learner */
	if (!IsA(named, Const))
		OptionsNotConstant(aggref->aggfnoid);
	if (((Const *) named)->constisnull)
		return;
	learner = DatumGetObjectId(((Const *) named)->constvalue);
	if (!IsLearner(learner, walk->extension))
		return;
	if (step == 1)
	{
		while (IsA(second, RelabelType))
			second = (Node *) ((RelabelType *) second)->arg;
		if (!IsA(second, RowExpr) || list_length(((RowExpr *) second)->args) != 2 ||
			!ConstantOptions(lsecond(((RowExpr *) second)->args), walk->stack, walk->extension))
			OptionsNotConstant(learner);
	}
	else if (!ConstantOptions(second, walk->stack, walk->extension))
		OptionsNotConstant(learner);
}

/* Walker over the statement: checks every learner call's options, query by query. */
static bool
CheckWalker(Node *node, OptionsWalk *walk)
{
	Oid			learner = InvalidOid;
	Node	   *options = NULL;

	if (node == NULL)
		return false;
	check_stack_depth();
	if (IsA(node, Query))
	{
		List	   *saved = walk->stack;
		bool		result;

		walk->stack = lcons(node, saved);
		result = query_tree_walker((Query *) node, CheckWalker, walk, 0);
		walk->stack = saved;
		return result;
	}
	if (IsA(node, Aggref) && list_length(((Aggref *) node)->args) >= 2)
	{
		int			step = CitusSplitStep(((Aggref *) node)->aggfnoid);

		if (step != 0)
			CheckCitusSplitCall((Aggref *) node, step, walk);
	}
	/* an ordered call's sort keys follow its two arguments in args */
	if (IsA(node, Aggref) && list_length(((Aggref *) node)->args) >= 2)
	{
		learner = ((Aggref *) node)->aggfnoid;
		options = (Node *) lsecond_node(TargetEntry, ((Aggref *) node)->args)->expr;
	}
	else if (IsA(node, WindowFunc) && list_length(((WindowFunc *) node)->args) == 2)
	{
		learner = ((WindowFunc *) node)->winfnoid;
		options = (Node *) lsecond(((WindowFunc *) node)->args);
	}
	if (options != NULL && IsLearner(learner, walk->extension) &&
		!ConstantOptions(options, walk->stack, walk->extension))
		OptionsNotConstant(learner);
	return expression_tree_walker(node, CheckWalker, walk);
}

/* Walker: whether the statement holds an aggregate or window call anywhere. */
static bool
HasAggregateWalker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref) || IsA(node, WindowFunc))
		return true;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, HasAggregateWalker, context, 0);
	return expression_tree_walker(node, HasAggregateWalker, context);
}

/* See sqlapi/options_check.h. */
void
MrfCheckLearnerOptions(Query *query)
{
	OptionsWalk walk = {InvalidOid, NIL};

	if (query->commandType == CMD_UTILITY || !IsTransactionState() ||
		!HasAggregateWalker((Node *) query, NULL))
		return;
	walk.extension = get_extension_oid("mrfdp", true);
	if (OidIsValid(walk.extension))
		(void) CheckWalker((Node *) query, &walk);
}
