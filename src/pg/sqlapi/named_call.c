/*
 * sqlapi/named_call.c - turns named learner calls into aggregate calls.
 *
 * Users type
 *		SELECT mrf_learn_ising(row, rho => 0.5) FROM samples;
 * but PostgreSQL rejects named arguments in aggregate calls and aggregates
 * take no defaults.  So mrf_learn_ising is declared as a plain function with
 * named, defaulted parameters whose C symbol is mrf_learn_named_form (shared
 * by every named learner form), and a post_parse_analyze_hook rewrites each
 * call of such a function, after parse analysis, into
 *		mrf_learn_ising_agg(row, mrf_options(rho => 0.5, ...))
 * where the aggregate and mrf_options live in the schema of the named form.
 *
 * Only calls in the select list, HAVING and ORDER BY of a SELECT are
 * rewritten; anywhere else the plain function runs and raises an error that
 * says why.  Parse analysis checks grouping before the hook runs, so a query
 * level that has GROUP BY, HAVING or another aggregate already fails there
 * when the row argument is not grouped; users write the aggregate form in
 * that case.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "funcapi.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parse_agg.h"
#include "parser/parse_coerce.h"
#include "parser/parse_func.h"
#include "parser/parse_node.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg/sqlapi/named_call.h"

/* How a named form is recognised: name prefix, then C language and symbol. */
#define NAMED_FORM_PREFIX	"mrf_learn_"
#define NAMED_FORM_SYMBOL	"mrf_learn_named_form"
#define AGGREGATE_SUFFIX	"_agg"
#define OPTIONS_FUNCTION	"mrf_options"

/*
 * Whether the parse-analysis hook (hooks.c) has analysed at least one
 * statement since the library was loaded.  If not, a named form reaching
 * execution was parsed before the library was loaded (a lazy load, not a
 * preload).
 */
static bool MrfNamedCallHookHasRun = false;

/* What makes the arguments of a named call impossible to rewrite. */
typedef enum NamedArgProblem
{
	NAMED_ARG_OK,
	NAMED_ARG_OUTER_REFERENCE,
	NAMED_ARG_AGGREGATE,
	NAMED_ARG_WINDOW_FUNCTION,
	NAMED_ARG_SET_RETURNING,
	NAMED_ARG_NAMED_FORM
} NamedArgProblem;

typedef struct NamedArgCheckContext
{
	int			depth;			/* subquery levels below the named call */
	NamedArgProblem problem;
} NamedArgCheckContext;

typedef struct RewriteContext
{
	ParseState *pstate;			/* for error positions */
	int			nrewritten;		/* calls turned into Aggrefs at this level */
} RewriteContext;

PG_FUNCTION_INFO_V1(mrf_learn_named_form);

static void rewrite_statement(ParseState *pstate, Query *query);
static void rewrite_query(ParseState *pstate, Query *query);
static bool nested_query_walker(Node *node, void *context);
static Node *rewrite_mutator(Node *node, void *context);
static bool is_group_by_target(Query *query, TargetEntry *tle);
static Node *build_named_aggref(ParseState *pstate, FuncExpr *fexpr);
static Node *build_options_call(ParseState *pstate, FuncExpr *fexpr,
								HeapTuple proctup, List *args,
								const char *nspname, const char *formname);
static void check_named_args(ParseState *pstate, FuncExpr *fexpr,
							 List *args, const char *formname);
static bool named_arg_check_walker(Node *node, void *context);
static bool contains_named_form(Node *node);
static bool contains_named_form_walker(Node *node, void *context);
static bool is_named_form(Oid funcid);
static Oid	common_collation(List *exprs);
static int	input_arg_names(HeapTuple proctup, char ***names);

/* See sqlapi/named_call.h. */
void
MrfRewriteNamedCalls(ParseState *pstate, Query *query)
{
	MrfNamedCallHookHasRun = true;
	rewrite_statement(pstate, query);
}

/*
 * Rewrites a top-level statement.  EXPLAIN, CREATE TABLE AS and DECLARE
 * CURSOR carry an already analysed query inside a utility statement, and the
 * hook only runs for the outer one, so look inside them.
 */
static void
rewrite_statement(ParseState *pstate, Query *query)
{
	Node	   *inner = NULL;

	if (query->commandType != CMD_UTILITY)
	{
		rewrite_query(pstate, query);
		return;
	}
	if (query->utilityStmt == NULL)
		return;

	if (IsA(query->utilityStmt, ExplainStmt))
		inner = ((ExplainStmt *) query->utilityStmt)->query;
	else if (IsA(query->utilityStmt, CreateTableAsStmt))
		inner = ((CreateTableAsStmt *) query->utilityStmt)->query;
	else if (IsA(query->utilityStmt, DeclareCursorStmt))
		inner = ((DeclareCursorStmt *) query->utilityStmt)->query;

	if (inner != NULL && IsA(inner, Query))
		rewrite_statement(pstate, (Query *) inner);
}

/*
 * Rewrites one query level and, through nested_query_walker, every query
 * below it (sublinks, subqueries in FROM, CTEs, set-operation branches).
 * Each level is checked for grouping on its own, as parse analysis does.
 */
static void
rewrite_query(ParseState *pstate, Query *query)
{
	RewriteContext context;
	ParseState *levelstate;
	ListCell   *lc;
	bool		found;

	/* Inner levels first; their Query nodes are shared, not copied, below. */
	(void) query_tree_walker(query, nested_query_walker, pstate, 0);

	/*
	 * An aggregate is only meaningful in a SELECT: INSERT ... VALUES, UPDATE
	 * SET and RETURNING lists are left alone and fail at run time.
	 */
	if (query->commandType != CMD_SELECT)
		return;

	/* Most queries have no named call: find out before allocating. */
	found = contains_named_form(query->havingQual);
	foreach(lc, query->targetList)
	{
		if (found)
			break;
		found = contains_named_form((Node *) ((TargetEntry *) lfirst(lc))->expr);
	}
	if (!found)
		return;

	levelstate = make_parsestate(pstate);
	levelstate->p_rtable = query->rtable;
	context.pstate = levelstate;
	context.nrewritten = 0;

	/* ORDER BY and window expressions are resjunk entries of this list. */
	foreach(lc, query->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		/* An aggregate in GROUP BY is an error; leave it to run time. */
		if (is_group_by_target(query, tle))
			continue;
		if (contains_named_form((Node *) tle->expr))
			tle->expr = (Expr *) rewrite_mutator((Node *) tle->expr, &context);
	}
	if (contains_named_form(query->havingQual))
		query->havingQual = rewrite_mutator(query->havingQual, &context);

	/*
	 * Parse analysis checked grouping while our calls were still plain
	 * functions; check again now that this level aggregates, so that
	 * ungrouped columns next to the call get the usual error.
	 */
	if (context.nrewritten > 0)
	{
		query->hasAggs = true;
		levelstate->p_hasAggs = true;
		parseCheckAggregates(levelstate, query);
	}
	free_parsestate(levelstate);
}

/* Finds the query levels nested in a query and rewrites each of them. */
static bool
nested_query_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		rewrite_query((ParseState *) context, (Query *) node);
		return false;
	}
	return expression_tree_walker(node, nested_query_walker, context);
}

/*
 * Replaces the named calls of one query level by Aggrefs.  Subqueries are
 * other levels (already handled), so they are returned untouched.
 */
static Node *
rewrite_mutator(Node *node, void *context)
{
	RewriteContext *rc = (RewriteContext *) context;

	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
		return node;
	if (IsA(node, Aggref))
	{
		Aggref	   *agg = (Aggref *) node;

		/* Rewriting would nest one aggregate inside another. */
		if (contains_named_form((Node *) agg->args) ||
			contains_named_form((Node *) agg->aggdirectargs) ||
			contains_named_form((Node *) agg->aggfilter))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a named learner call cannot be an argument of an aggregate function"),
					 errdetail("Named learner calls are rewritten into aggregate calls, and aggregate calls cannot be nested."),
					 errhint("Use the learner's aggregate form, for example mrf_learn_ising_agg(x, mrf_options(...)), in a subquery."),
					 parser_errposition(rc->pstate, agg->location)));
		return node;
	}
	if (IsA(node, FuncExpr) && is_named_form(((FuncExpr *) node)->funcid))
	{
		rc->nrewritten++;
		return build_named_aggref(rc->pstate, (FuncExpr *) node);
	}
	return expression_tree_mutator(node, rewrite_mutator, context);
}

/* Whether a target entry is referenced by the query's GROUP BY. */
static bool
is_group_by_target(Query *query, TargetEntry *tle)
{
	ListCell   *lc;

	if (tle->ressortgroupref == 0)
		return false;
	foreach(lc, query->groupClause)
	{
		SortGroupClause *sgc = (SortGroupClause *) lfirst(lc);

		if (sgc->tleSortGroupRef == tle->ressortgroupref)
			return true;
	}
	return false;
}

/*
 * Builds <form>_agg(x, mrf_options(<the other parameters by name>)) for one
 * named call.  The aggregate and mrf_options are looked up in the named
 * form's own schema so that search_path cannot redirect the call.
 */
static Node *
build_named_aggref(ParseState *pstate, FuncExpr *fexpr)
{
	HeapTuple	proctup;
	Form_pg_proc procform;
	char	   *formname;
	char	   *nspname;
	char	   *aggname;
	Oid			firstargtype;
	List	   *args;
	Node	   *x;
	Node	   *options;
	Oid			aggargtypes[2];
	Oid			aggoid;
	HeapTuple	aggtup;
	char		aggkind;
	Aggref	   *agg;

	proctup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fexpr->funcid));
	if (!HeapTupleIsValid(proctup))
		elog(ERROR, "cache lookup failed for function %u", fexpr->funcid);
	procform = (Form_pg_proc) GETSTRUCT(proctup);
	formname = pstrdup(NameStr(procform->proname));
	nspname = get_namespace_name(procform->pronamespace);
	if (nspname == NULL)
		elog(ERROR, "cache lookup failed for namespace %u",
			 procform->pronamespace);
	if (procform->pronargs < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("named learner form %s.%s has no row parameter",
						nspname, formname)));
	firstargtype = procform->proargtypes.values[0];

	/* Named and defaulted arguments become positional, in declared order. */
	args = expand_function_arguments(list_copy(fexpr->args), false,
									 fexpr->funcresulttype, proctup);
	check_named_args(pstate, fexpr, args, formname);

	x = (Node *) linitial(args);
	options = build_options_call(pstate, fexpr, proctup, args,
								 nspname, formname);
	ReleaseSysCache(proctup);

	aggname = psprintf("%s%s", formname, AGGREGATE_SUFFIX);
	aggargtypes[0] = firstargtype;
	aggargtypes[1] = JSONBOID;
	aggoid = LookupFuncName(list_make2(makeString(nspname), makeString(aggname)),
							2, aggargtypes, true);
	if (!OidIsValid(aggoid) || get_func_prokind(aggoid) != PROKIND_AGGREGATE)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("aggregate %s.%s(%s, jsonb) does not exist",
						nspname, aggname, format_type_be(firstargtype)),
				 errdetail("Calls of %s are rewritten into calls of this aggregate.",
						   formname),
				 parser_errposition(pstate, fexpr->location)));

	aggtup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggoid));
	if (!HeapTupleIsValid(aggtup))
		elog(ERROR, "cache lookup failed for aggregate %u", aggoid);
	aggkind = ((Form_pg_aggregate) GETSTRUCT(aggtup))->aggkind;
	ReleaseSysCache(aggtup);
	if (aggkind != AGGKIND_NORMAL ||
		get_func_rettype(aggoid) != fexpr->funcresulttype)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("aggregate %s.%s does not match named learner form %s",
						nspname, aggname, formname),
				 errdetail("The aggregate must be a plain aggregate returning %s.",
						   format_type_be(fexpr->funcresulttype))));

	agg = makeNode(Aggref);
	agg->aggfnoid = aggoid;
	agg->aggtype = fexpr->funcresulttype;
	agg->aggcollid = fexpr->funccollid;
	/* mrf_options returns jsonb, which has no collation: x decides. */
	agg->inputcollid = exprCollation(x);
	agg->aggtranstype = InvalidOid; /* the planner fills it in */
	agg->aggargtypes = list_make2_oid(exprType(x), JSONBOID);
	agg->aggdirectargs = NIL;
	agg->args = list_make2(makeTargetEntry((Expr *) x, 1, NULL, false),
						   makeTargetEntry((Expr *) options, 2, NULL, false));
	agg->aggorder = NIL;
	agg->aggdistinct = NIL;
	agg->aggfilter = NULL;
	agg->aggstar = false;
	agg->aggvariadic = false;
	agg->aggkind = AGGKIND_NORMAL;
	agg->agglevelsup = 0;
	agg->aggsplit = AGGSPLIT_SIMPLE;
	agg->aggno = -1;
	agg->aggtransno = -1;
	agg->location = fexpr->location;

	return (Node *) agg;
}

/*
 * The extension's mrf_options in schema nspname: the function of that name
 * that belongs to mrfdp (pg_depend, as options_check.c's IsLearner finds
 * the learners).  Not by name alone: a role that may create in the schema
 * (public, on servers that still grant CREATE there) could add an
 * overload, and a lookup of a unique name would then fail every named call
 * of every role.  InvalidOid when there is none, or more than one.
 */
static Oid
OptionsFunction(const char *nspname)
{
	FuncCandidateList c = FuncnameGetCandidates(list_make2(makeString(pstrdup(nspname)),
														   makeString(OPTIONS_FUNCTION)),
												-1, NIL, false, false, false, true);
	Oid			extension = get_extension_oid("mrfdp", true);
	Oid			found = InvalidOid;

	if (!OidIsValid(extension))
		return InvalidOid;
	for (; c != NULL; c = c->next)
	{
		if (getExtensionOfObject(ProcedureRelationId, c->oid) != extension)
			continue;
		if (OidIsValid(found))
			return InvalidOid;
		found = c->oid;
	}
	return found;
}

/*
 * Builds the mrf_options(...) call that carries every parameter of the named
 * form after x, passed by name so that mrf_options's own defaults fill any
 * parameter the form does not have, then made positional.
 */
static Node *
build_options_call(ParseState *pstate, FuncExpr *fexpr, HeapTuple proctup,
				   List *args, const char *nspname, const char *formname)
{
	char	  **formnames;
	int			nformnames;
	Oid			optoid;
	HeapTuple	opttup;
	Form_pg_proc optform;
	char	  **optnames;
	int			noptnames;
	bool	   *given;
	List	   *named = NIL;
	List	   *optargs;
	FuncExpr   *call;
	int			i;

	nformnames = input_arg_names(proctup, &formnames);
	if (nformnames != list_length(args))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("named learner form %s.%s must name all its parameters",
						nspname, formname)));

	optoid = OptionsFunction(nspname);
	if (!OidIsValid(optoid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("function %s.%s does not exist or is not unique",
						nspname, OPTIONS_FUNCTION),
				 errdetail("Calls of %s are rewritten to pass their options through %s.",
						   formname, OPTIONS_FUNCTION),
				 parser_errposition(pstate, fexpr->location)));

	opttup = SearchSysCache1(PROCOID, ObjectIdGetDatum(optoid));
	if (!HeapTupleIsValid(opttup))
		elog(ERROR, "cache lookup failed for function %u", optoid);
	optform = (Form_pg_proc) GETSTRUCT(opttup);
	if (optform->prokind != PROKIND_FUNCTION || optform->proretset ||
		optform->prorettype != JSONBOID)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("function %s.%s must be a plain function returning jsonb",
						nspname, OPTIONS_FUNCTION)));
	noptnames = input_arg_names(opttup, &optnames);
	given = palloc0(sizeof(bool) * Max(optform->pronargs, 1));

	for (i = 1; i < nformnames; i++)
	{
		Node	   *arg = (Node *) list_nth(args, i);
		NamedArgExpr *na;
		Oid			argtype = exprType(arg);
		Oid			opttype;
		int			j;

		for (j = 0; j < noptnames; j++)
		{
			if (optnames[j] != NULL && strcmp(optnames[j], formnames[i]) == 0)
				break;
		}
		if (j >= noptnames || j >= optform->pronargs)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("parameter \"%s\" of %s.%s has no counterpart in %s.%s",
							formnames[i], nspname, formname,
							nspname, OPTIONS_FUNCTION),
					 errdetail("Every parameter of a named learner form after the row must also be a parameter of %s.",
							   OPTIONS_FUNCTION)));

		/* The two declarations may differ, e.g. int against bigint. */
		opttype = optform->proargtypes.values[j];
		if (argtype != opttype)
		{
			Node	   *coerced;

			coerced = coerce_to_target_type(pstate, arg, argtype,
											opttype, -1,
											COERCION_ASSIGNMENT,
											COERCE_IMPLICIT_CAST,
											exprLocation(arg));
			if (coerced == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("parameter \"%s\" of %s.%s has type %s, but %s expects %s",
								formnames[i], nspname, formname,
								format_type_be(argtype), OPTIONS_FUNCTION,
								format_type_be(opttype))));
			arg = coerced;
		}

		na = makeNode(NamedArgExpr);
		na->arg = (Expr *) arg;
		na->name = pstrdup(formnames[i]);
		na->argnumber = j;
		na->location = -1;
		named = lappend(named, na);
		given[j] = true;
	}

	/*
	 * expand_function_arguments assumes every parameter not given has a
	 * default; say clearly which one has none instead.
	 */
	for (i = 0; i < optform->pronargs; i++)
	{
		if (!given[i] && i < optform->pronargs - optform->pronargdefaults)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("parameter \"%s\" of %s.%s has no default and no counterpart in %s",
							(i < noptnames && optnames[i]) ? optnames[i] : "?",
							nspname, OPTIONS_FUNCTION, formname)));
	}

	optargs = expand_function_arguments(named, false, JSONBOID, opttup);
	call = makeFuncExpr(optoid, JSONBOID, optargs, InvalidOid,
						common_collation(optargs), COERCE_EXPLICIT_CALL);
	call->location = fexpr->location;
	ReleaseSysCache(opttup);

	return (Node *) call;
}

/*
 * Refuses arguments the aggregate cannot take at this query level: outer
 * references (the aggregate would belong to the outer query), aggregates,
 * window functions, set-returning functions and nested named calls.
 */
static void
check_named_args(ParseState *pstate, FuncExpr *fexpr, List *args,
				 const char *formname)
{
	NamedArgCheckContext context;

	context.depth = 0;
	context.problem = NAMED_ARG_OK;
	(void) named_arg_check_walker((Node *) args, &context);

	switch (context.problem)
	{
		case NAMED_ARG_OK:
			return;
		case NAMED_ARG_OUTER_REFERENCE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("arguments of %s cannot refer to columns of an outer query",
							formname),
					 errdetail("The call is rewritten into an aggregate over the rows of the query it appears in."),
					 errhint("Use %s%s(x, mrf_options(...)) instead.",
							 formname, AGGREGATE_SUFFIX),
					 parser_errposition(pstate, fexpr->location)));
			break;
		case NAMED_ARG_AGGREGATE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("arguments of %s cannot contain aggregate function calls",
							formname),
					 errdetail("The call is rewritten into an aggregate call, and aggregate calls cannot be nested."),
					 errhint("Use %s%s(x, mrf_options(...)) instead.",
							 formname, AGGREGATE_SUFFIX),
					 parser_errposition(pstate, fexpr->location)));
			break;
		case NAMED_ARG_WINDOW_FUNCTION:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("arguments of %s cannot contain window function calls",
							formname),
					 errdetail("The call is rewritten into an aggregate call, which cannot contain window function calls."),
					 errhint("Use %s%s(x, mrf_options(...)) instead.",
							 formname, AGGREGATE_SUFFIX),
					 parser_errposition(pstate, fexpr->location)));
			break;
		case NAMED_ARG_SET_RETURNING:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("arguments of %s cannot contain set-returning functions",
							formname),
					 errdetail("The call is rewritten into an aggregate call, which cannot contain set-returning functions."),
					 errhint("Use %s%s(x, mrf_options(...)) instead.",
							 formname, AGGREGATE_SUFFIX),
					 parser_errposition(pstate, fexpr->location)));
			break;
		case NAMED_ARG_NAMED_FORM:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("arguments of %s cannot contain another named learner call",
							formname),
					 errdetail("Named learner calls are rewritten into aggregate calls, and aggregate calls cannot be nested."),
					 errhint("Use %s%s(x, mrf_options(...)) instead.",
							 formname, AGGREGATE_SUFFIX),
					 parser_errposition(pstate, fexpr->location)));
			break;
	}
}

/*
 * Records the first problem found; depth counts the sublinks entered, since
 * levelsup fields are relative to the query level of the node.
 */
static bool
named_arg_check_walker(Node *node, void *context)
{
	NamedArgCheckContext *cc = (NamedArgCheckContext *) context;

	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		if ((int) ((Var *) node)->varlevelsup > cc->depth)
			cc->problem = NAMED_ARG_OUTER_REFERENCE;
	}
	else if (IsA(node, Aggref))
	{
		int			levelsup = (int) ((Aggref *) node)->agglevelsup;

		if (levelsup > cc->depth)
			cc->problem = NAMED_ARG_OUTER_REFERENCE;
		else if (levelsup == cc->depth)
			cc->problem = NAMED_ARG_AGGREGATE;
	}
	else if (IsA(node, GroupingFunc))
	{
		int			levelsup = (int) ((GroupingFunc *) node)->agglevelsup;

		if (levelsup > cc->depth)
			cc->problem = NAMED_ARG_OUTER_REFERENCE;
		else if (levelsup == cc->depth)
			cc->problem = NAMED_ARG_AGGREGATE;
	}
	else if (IsA(node, WindowFunc))
	{
		/* A window function inside a sublink belongs to that sublink. */
		if (cc->depth == 0)
			cc->problem = NAMED_ARG_WINDOW_FUNCTION;
	}
	else if (IsA(node, FuncExpr))
	{
		FuncExpr   *f = (FuncExpr *) node;

		if (cc->depth == 0 && f->funcretset)
			cc->problem = NAMED_ARG_SET_RETURNING;
		else if (cc->depth == 0 && is_named_form(f->funcid))
			cc->problem = NAMED_ARG_NAMED_FORM;
	}
	else if (IsA(node, OpExpr))
	{
		if (cc->depth == 0 && ((OpExpr *) node)->opretset)
			cc->problem = NAMED_ARG_SET_RETURNING;
	}
	else if (IsA(node, Query))
	{
		bool		result;

		cc->depth++;
		result = query_tree_walker((Query *) node, named_arg_check_walker,
								   context, 0);
		cc->depth--;
		return result;
	}

	if (cc->problem != NAMED_ARG_OK)
		return true;
	return expression_tree_walker(node, named_arg_check_walker, context);
}

/* Whether an expression of one query level contains a named call. */
static bool
contains_named_form(Node *node)
{
	return contains_named_form_walker(node, NULL);
}

/* Walker for contains_named_form; subqueries are other levels. */
static bool
contains_named_form_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return false;
	if (IsA(node, FuncExpr) && is_named_form(((FuncExpr *) node)->funcid))
		return true;
	return expression_tree_walker(node, contains_named_form_walker, context);
}

/*
 * Whether a function is a named learner form.  Looked up afresh each time
 * (syscache) so that nothing goes stale when the extension is dropped and
 * created again.
 */
static bool
is_named_form(Oid funcid)
{
	HeapTuple	tup;
	Form_pg_proc procform;
	const char *name;
	size_t		len;
	bool		result = false;

	/* Built-in functions are never ours: skip the lookup for them. */
	if (funcid < FirstNormalObjectId)
		return false;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	if (!HeapTupleIsValid(tup))
		return false;
	procform = (Form_pg_proc) GETSTRUCT(tup);
	name = NameStr(procform->proname);
	len = strlen(name);

	if (strncmp(name, NAMED_FORM_PREFIX, strlen(NAMED_FORM_PREFIX)) == 0 &&
		!(len >= strlen(AGGREGATE_SUFFIX) &&
		  strcmp(name + len - strlen(AGGREGATE_SUFFIX), AGGREGATE_SUFFIX) == 0) &&
		procform->prolang == ClanguageId &&
		procform->prokind == PROKIND_FUNCTION)
	{
		Datum		prosrc;
		bool		isnull;

		prosrc = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
		if (!isnull)
		{
			char	   *symbol = TextDatumGetCString(prosrc);

			result = (strcmp(symbol, NAMED_FORM_SYMBOL) == 0);
			pfree(symbol);
		}
	}
	ReleaseSysCache(tup);
	return result;
}

/*
 * The collation shared by all collatable inputs, or InvalidOid when they
 * disagree.  Conflicting explicit collations were already refused when the
 * named call itself was parsed, so disagreement here is only implicit and,
 * as in the parser, leaves the input collation indeterminate.
 */
static Oid
common_collation(List *exprs)
{
	Oid			result = InvalidOid;
	ListCell   *lc;

	foreach(lc, exprs)
	{
		Oid			coll = exprCollation((Node *) lfirst(lc));

		if (!OidIsValid(coll))
			continue;
		if (!OidIsValid(result))
			result = coll;
		else if (coll != result)
			return InvalidOid;
	}
	return result;
}

/* Names of a function's input parameters (NULL or "" when unnamed). */
static int
input_arg_names(HeapTuple proctup, char ***names)
{
	Datum		argnames;
	Datum		argmodes;
	bool		isnull;

	argnames = SysCacheGetAttr(PROCOID, proctup, Anum_pg_proc_proargnames,
							   &isnull);
	if (isnull)
		argnames = PointerGetDatum(NULL);
	argmodes = SysCacheGetAttr(PROCOID, proctup, Anum_pg_proc_proargmodes,
							   &isnull);
	if (isnull)
		argmodes = PointerGetDatum(NULL);
	return get_func_input_arg_names(argnames, argmodes, names);
}

/*
 * The named forms' C function.  It is reached only when the call was not
 * rewritten: either the library was not loaded when the statement was
 * parsed, or the call sits where no aggregate can go (WHERE, GROUP BY, ...).
 */
Datum
mrf_learn_named_form(PG_FUNCTION_ARGS)
{
	char	   *name = NULL;

	if (fcinfo->flinfo != NULL && OidIsValid(fcinfo->flinfo->fn_oid))
		name = get_func_name(fcinfo->flinfo->fn_oid);
	if (name == NULL)
		name = "mrf_learn_<kind>";

	/*
	 * Calling this function is what loads the library lazily; then the hook
	 * was installed only now and has not analysed any statement yet.
	 */
	if (!MrfNamedCallHookHasRun)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s must be rewritten into an aggregate call", name),
				 errdetail("The mrfdp library was not loaded when this statement was parsed, so the call could not be rewritten."),
				 errhint("Add mrfdp to session_preload_libraries (for example ALTER DATABASE ... SET session_preload_libraries = 'mrfdp'), or call %s%s(x, mrf_options(...)) instead.",
						 name, AGGREGATE_SUFFIX)));

	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s must be rewritten into an aggregate call", name),
			 errdetail("Only calls in the select list, HAVING or ORDER BY of a SELECT are rewritten; this call appears elsewhere, for example in WHERE, GROUP BY, a function in FROM or a data-modifying statement."),
			 errhint("Move the call into the select list, or call %s%s(x, mrf_options(...)) instead.",
					 name, AGGREGATE_SUFFIX)));

	PG_RETURN_NULL();			/* not reached */
}
