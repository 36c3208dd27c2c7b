/*
 * ledger/refs.c - the types mrfdp.relation_ref and mrfdp.role_ref, which
 * the catalog uses for its references to relations and roles.
 *
 * Stored as an OID, they print as the name the OID has when printed (so
 * pg_dump writes the names of the moment, renames included, as regclass and
 * regrole do), but reading a name back never fails: a name that nothing
 * carries in the restoring database reads as the invalid reference, with a
 * WARNING, so one table left out of a dump (pg_dump -T) or one role missing
 * in the target cluster cannot fail the COPY of a whole catalog table.  The
 * catalog's triggers then skip the budget or grant that names it.  An OID
 * that names nothing prints as "-", never as a number: restored elsewhere, a
 * number could name an unrelated object; likewise a number read back is a
 * name, never an OID.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/pg_list.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/varlena.h"

#define MISSING_REF "-"

/* Names already warned about in this transaction (TopTransactionContext). */
static List *WarnedNames = NIL;
static LocalTransactionId WarnedIn = InvalidLocalTransactionId;

/*
 * Warns once per transaction and name that a reference reads as missing: a
 * restore's COPY may carry many ledger rows of one relation left out.
 */
static void
WarnMissing(const char *kind, const char *name)
{
	char	   *key;
	ListCell   *lc;
	MemoryContext old;

	if (WarnedIn != MyProc->lxid)
	{
		WarnedNames = NIL;		/* its memory went with the last transaction */
		WarnedIn = MyProc->lxid;
	}
	key = psprintf("%s %s", kind, name);
	foreach(lc, WarnedNames)
		if (strcmp((char *) lfirst(lc), key) == 0)
			return;
	old = MemoryContextSwitchTo(TopTransactionContext);
	WarnedNames = lappend(WarnedNames, pstrdup(key));
	MemoryContextSwitchTo(old);
	ereport(WARNING,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("%s \"%s\" does not exist", kind, name),
			 errdetail("mrfdp skips a budget or learning grant naming it; a ledger row keeps its recorded names without the reference.")));
}

PG_FUNCTION_INFO_V1(mrf_relation_ref_in);
/* Reads a qualified relation name; "-" or a name nothing carries: invalid. */
Datum
mrf_relation_ref_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	List	   *names;
	Oid			relid;

	if (strcmp(str, MISSING_REF) == 0)
		PG_RETURN_OID(InvalidOid);
	names = stringToQualifiedNameList(str);
	if (list_length(names) > 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("invalid relation reference \"%s\"", str),
				 errhint("Give a relation name, qualified by its schema or not.")));
	relid = RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true);
	if (!OidIsValid(relid))
		WarnMissing("relation", str);
	PG_RETURN_OID(relid);
}

PG_FUNCTION_INFO_V1(mrf_relation_ref_out);
/* Prints the relation's qualified name now, or "-" when there is none. */
Datum
mrf_relation_ref_out(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	char	   *relname = OidIsValid(relid) ? get_rel_name(relid) : NULL;
	char	   *nspname = relname ? get_namespace_name(get_rel_namespace(relid)) : NULL;

	if (relname == NULL || nspname == NULL)
		PG_RETURN_CSTRING(pstrdup(MISSING_REF));
	PG_RETURN_CSTRING(quote_qualified_identifier(nspname, relname));
}

PG_FUNCTION_INFO_V1(mrf_role_ref_in);
/* Reads a role name; "-" or a name no role carries: invalid. */
Datum
mrf_role_ref_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	List	   *names;
	Oid			roleid;

	if (strcmp(str, MISSING_REF) == 0)
		PG_RETURN_OID(InvalidOid);
	names = stringToQualifiedNameList(str);
	if (list_length(names) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("invalid role reference \"%s\"", str)));
	roleid = get_role_oid(strVal(linitial(names)), true);
	if (!OidIsValid(roleid))
		WarnMissing("role", strVal(linitial(names)));
	PG_RETURN_OID(roleid);
}

PG_FUNCTION_INFO_V1(mrf_role_ref_out);
/* Prints the role's name now, or "-" when there is none. */
Datum
mrf_role_ref_out(PG_FUNCTION_ARGS)
{
	Oid			roleid = PG_GETARG_OID(0);
	char	   *name = OidIsValid(roleid) ? GetUserNameFromId(roleid, true) : NULL;

	if (name == NULL)
		PG_RETURN_CSTRING(pstrdup(MISSING_REF));
	PG_RETURN_CSTRING(pstrdup(quote_identifier(name)));
}
