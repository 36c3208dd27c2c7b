/*
 * protected/route.h - the routes of the protected path (protected/learn_from.c):
 * how a call's rows are counted and learned from.  The local read
 * (learn_from.c) reads every row here as the owner; the Citus routes
 * (citus/from_routes.c) leave the rows on the shards: distributed
 * Frank-Wolfe (score sums), the stable mode's blocks.
 *
 * The driver asks every route, in order, whether it may serve the call,
 * from public values only (options, schema, Citus's metadata), before the
 * charge; commits the charge; then lets each route that may serve count
 * the rows (a read: after the charge) and take the call or pass it on (with
 * auto, from n and public sizes only).  The local read takes whatever is
 * left.  A new route is a new descriptor in the driver's list.
 */
#ifndef MRF_PG_PROTECTED_ROUTE_H
#define MRF_PG_PROTECTED_ROUTE_H

#include "postgres.h"

#include "pg/driver/aggregates.h"
#include "pg/driver/learners.h"

/* One protected call: its public facts, fixed before the charge, and its count. */
typedef struct MrfFromCall
{
	Oid			relid;
	Oid			caller;			/* the role that called (its grant was checked) */
	const char *fname;			/* mrf_learn_<kind>_from */
	const char *learner;		/* mrf_learn_<kind> */
	MemoryContext cxt;			/* where rows and results go */
	MrfPlan    *plan;			/* from the options and the schema's p and k */
	MrfCharge	total;			/* the release's charge, the substituted-rows count included */
	MrfRowsState *state;		/* its reader set up from the schema and options */
	MrfRowFormat format;
	Oid			typid;			/* the sample's type */
	TupleDesc	columns_row;	/* option columns: the record of those columns, else NULL */
	int			p;
	const char *sample_expr;	/* the sample, as the read selects it */
	const char *alias;			/* the relation's alias in from */
	const char *from;			/* "<relation> AS <alias>" */
	const char *sql;			/* the local read: SELECT <sample> FROM <from> */
	/* after the count */
	int64		n;
	int64		substituted;	/* rows the lenient reader could not read */
} MrfFromCall;

typedef struct MrfFromRoute
{
	const char *name;

	/*
	 * Before the charge, from public values only: the route's state when it
	 * may serve the call, or NULL.
	 */
	void	   *(*prepare) (MrfFromCall *call);

	/*
	 * After the charge: counts the rows (call->n, call->substituted).  A
	 * read that fails ends the call (MrfOwnerOutcomeCheck).
	 */
	void		(*count) (MrfFromCall *call, void *arg);

	/*
	 * With call->n > 0: whether the route learns the call (from n and public
	 * sizes only); if so it sets up call->plan and call->state for its run
	 * (state->n, plan->distributed, the state's score or block hooks).
	 */
	bool		(*takes) (MrfFromCall *call, void *arg);

	/* Optional: the run after MrfPlanRows (default MrfPlanRun). */
	MrfModel   *(*run) (MrfFromCall *call, void *arg);
} MrfFromRoute;

/* Distributed Frank-Wolfe on a Citus distributed table (citus/from_routes.c). */
extern const MrfFromRoute MrfCitusFwRoute;

/* The stable mode's blocks cut on a Citus distributed table's shards. */
extern const MrfFromRoute MrfCitusStableRoute;

#endif
