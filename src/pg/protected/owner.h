/*
 * protected/owner.h - reading a protected relation as its owner (the
 * protected path, protected/learn_from.c, and its Citus routes,
 * citus/from_routes.c): the owner-rights call, a security-restricted
 * subtransaction whose errors are withheld; its two bodies, the cursor that
 * reads every row and one run of an aggregate with a step parameter; and the
 * refusals, from the schema, of sources whose read could fail on their data.
 */
#ifndef MRF_PG_PROTECTED_OWNER_H
#define MRF_PG_PROTECTED_OWNER_H

#include "postgres.h"

#include "pg/driver/aggregates.h"

/* How the owner-rights read ended. */
typedef enum MrfReadOutcome
{
	MRF_READ_DONE,					/* every row read */
	MRF_READ_OUT_OF_MEMORY,			/* stopped: the rows would not fit the memory limit */
	MRF_READ_FAILED,				/* an error, withheld (it may quote the data) */
	MRF_READ_REFUSED				/* the plan scans a fallible source: nothing read */
} MrfReadOutcome;

/* What the body of an owner-rights call gets, and what it reports. */
typedef struct MrfOwnerCall
{
	Oid			relid;
	const char *sql;
	MemoryContext cxt;			/* where results go */
	Oid			refused;		/* a fallible source the plan scans */
	/* MrfOwnerReadRows: the rows */
	Oid			typid;
	TupleDesc	columns;		/* option columns: the selected columns make each row's record */
	MrfRowsState *state;
	int			p;
	int64		substituted;
	/* MrfOwnerAggregate: the step parameter and the aggregate's result */
	bytea	   *step;
	bytea	   *result;
	bool		null_ok;		/* no rows answered (a last or forget step): result NULL */
} MrfOwnerCall;

typedef MrfReadOutcome (*MrfOwnerBody) (MrfOwnerCall *call);

/* A call on relid's query sql whose results go to cxt. */
void		MrfOwnerCallInit(MrfOwnerCall *call, Oid relid, const char *sql, MemoryContext cxt);

/*
 * Runs body as the relation's owner, in a security-restricted operation
 * with a fixed search_path, inside a subtransaction, connected to SPI.
 * Errors raised in it are withheld (MRF_READ_FAILED), except those that
 * carry no data (cancels, shutdowns), which end the call with a fixed text.
 */
MrfReadOutcome MrfAsOwner(MrfOwnerCall *call, MrfOwnerBody body);

/*
 * MrfAsOwner's body that reads every row of call->sql through a cursor into
 * call->state with the lenient reader; call->substituted counts the rows it
 * could not read.
 */
MrfReadOutcome MrfOwnerReadRows(MrfOwnerCall *call);

/*
 * MrfAsOwner's body that runs the one-row aggregate query call->sql with
 * call->step as its parameter; its bytea result goes to call->result.
 */
MrfReadOutcome MrfOwnerAggregate(MrfOwnerCall *call);

/*
 * Ends the call after an owner-rights read that did not finish: a fallible
 * source its plan scans is refused, any other error withheld
 * (MrfReadFailedAfterCharge).  Returns for MRF_READ_DONE and
 * MRF_READ_OUT_OF_MEMORY.
 */
void		MrfOwnerOutcomeCheck(const MrfOwnerCall *call, MrfReadOutcome outcome,
								 const char *fname);

/*
 * Refuses, from the schema alone and before anything is read or charged, a
 * relation any of whose members is a source whose read could fail on its
 * data (foreign tables, views, relations forcing row-level security on
 * their owner); locks the relation and its descendants.
 */
void		MrfRefuseFallibleSources(Oid relid, const char *fname);

/* The refusal of one such source. */
void		pg_attribute_noreturn() MrfRefuseFallibleSource(Oid relid, const char *fname);

/*
 * Refuses, before anything is read or charged, a Citus table whose owner
 * cannot log in (Citus would connect to the workers as that role).
 */
void		MrfRefuseOwnerWithoutLogin(Oid relid, const char *fname);

/* The error of a read that failed after the charge: its cause withheld. */
void		pg_attribute_noreturn() MrfReadFailedAfterCharge(Oid relid);

/*
 * emit_log_hook's part (pg/hooks.c): in a transaction whose owner-rights
 * work read a Citus table, until it has ended, a message of Citus's
 * connection code (connection warnings, relayed worker errors: they name
 * the owner's connections) does not reach the client; an error is
 * reworded.  PostgreSQL calls the hook only for messages the server logs
 * (log_min_messages); the transaction callbacks (MrfOwnerInit) keep
 * Citus's boundary messages off the client whatever it logs.
 */
void		MrfOwnerQuietCitusMessage(ErrorData *edata);

/* Registers the transaction callbacks that quiet Citus's boundary messages. */
void		MrfOwnerInit(void);

/* The error of a distributed learn whose relation changed between two reads. */
void		pg_attribute_noreturn() MrfChangedDuringLearn(Oid relid, const char *between);

#endif
