/*
 * sqlapi/options_check.h - the options of every learner call in a statement are
 * constants or query parameters, checked on the query tree before the
 * planner folds constants.
 */
#ifndef MRF_PG_OPTIONS_CHECK_H
#define MRF_PG_OPTIONS_CHECK_H

#include "postgres.h"

#include "nodes/parsenodes.h"

/*
 * Errors when a learner aggregate or window call anywhere in the query
 * (every level, sublinks, CTEs) takes options that could depend on the rows
 * of a table: a column (followed into subqueries, CTEs, joins and VALUES),
 * a sublink, an aggregate, or a function that is neither an immutable
 * function in C nor one of mrfdp's own.  Does nothing outside a transaction or
 * without the extension.
 */
void		MrfCheckLearnerOptions(Query *query);

#endif							/* MRF_PG_OPTIONS_CHECK_H */
