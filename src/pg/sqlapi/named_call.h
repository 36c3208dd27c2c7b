/*
 * sqlapi/named_call.h - rewrite of named learner calls into aggregate calls.
 *
 * mrf_learn_ising(x, rho => 0.5) is a plain function with named, defaulted
 * parameters (PostgreSQL rejects named arguments in aggregate calls).  A
 * post_parse_analyze_hook turns each such call into a call of the aggregate
 * mrf_learn_ising_agg(x, mrf_options(rho => 0.5, ...)) of the same schema.
 */
#ifndef MRFDP_NAMED_CALL_H
#define MRFDP_NAMED_CALL_H

#include "postgres.h"

#include "nodes/parsenodes.h"
#include "parser/parse_node.h"

/*
 * Rewrites the named learner calls of a statement just analysed: the body of
 * the post_parse_analyze_hook (hooks.c), after earlier hooks (e.g.
 * pg_stat_statements) saw the tree as parsed.
 */
void		MrfRewriteNamedCalls(ParseState *pstate, Query *query);

#endif
