/*
 * ledger/guard.c - keeps the privacy ledger from being erased by a DROP.
 *
 * Dropping the extension drops its catalog: every budget, grant and ledger
 * row.  The event trigger mrfdp_refuse_drop_with_budgets (ddl_command_start)
 * calls this file's function with the statement's parse tree, so it knows
 * which objects a DROP names.  An event trigger is used rather than a
 * ProcessUtility hook because a hook exists only in sessions that have
 * loaded the library, while the trigger's C function loads it itself: the
 * guard holds without the preload, in a fresh session whose first statement
 * is the DROP.  (A sql_drop trigger cannot do it: the extension's own
 * triggers are gone by the time it would fire.)
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_namespace.h"
#include "commands/extension.h"
#include "commands/event_trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"

#include "pg/ledger/guard.h"
#include "pg/ledger/catalog.h"

/* mrfdp.allow_drop_with_budgets: a superuser allows dropping mrfdp while budgets exist. */
static bool MrfAllowDropWithBudgets = false;

/* Defines mrfdp.allow_drop_with_budgets (called from _PG_init). */
void
MrfCatalogGuardInit(void)
{
	/*
	 * Dropping the extension erases every budget, grant and ledger row; the
	 * event trigger mrfdp_refuse_drop_with_budgets refuses it while budgets
	 * exist unless a superuser says so here.
	 */
	DefineCustomBoolVariable("mrfdp.allow_drop_with_budgets",
							 "Allow dropping the mrfdp extension while relations are protected.",
							 "Dropping it erases every budget, grant and ledger row. Only superusers can change this setting.",
							 &MrfAllowDropWithBudgets,
							 false,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);
}

/* See ledger/guard.h. */
bool
MrfExtensionSchemaAndOwner(Oid *schema, Oid *owner)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	bool		found = false;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum("mrfdp"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		*schema = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
		*owner = ((Form_pg_extension) GETSTRUCT(tup))->extowner;
		found = true;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * Whether the statement would drop the extension: DROP EXTENSION naming it,
 * DROP SCHEMA ... CASCADE of the schema it was created in, or DROP OWNED BY
 * its owner.
 */
static bool
DropsExtension(Node *parsetree)
{
	Oid			schema;
	Oid			owner;
	ListCell   *lc;

	if (!MrfExtensionSchemaAndOwner(&schema, &owner))
		return false;
	if (IsA(parsetree, DropStmt))
	{
		DropStmt   *stmt = (DropStmt *) parsetree;

		if (stmt->removeType == OBJECT_EXTENSION)
		{
			foreach(lc, stmt->objects)
				if (strcmp(strVal(lfirst(lc)), "mrfdp") == 0)
					return true;
		}
		else if (stmt->removeType == OBJECT_SCHEMA && stmt->behavior == DROP_CASCADE)
		{
			/*
			 * The schema it was created in, or one of its own (mrfdp,
			 * mrfdp_internal): dropping a member of an extension by cascade
			 * drops the extension.
			 */
			foreach(lc, stmt->objects)
			{
				Oid			nsp = get_namespace_oid(strVal(lfirst(lc)), true);

				if (OidIsValid(nsp) &&
					(nsp == schema ||
					 getExtensionOfObject(NamespaceRelationId, nsp) == get_extension_oid("mrfdp", true)))
					return true;
			}
		}
	}
	else if (IsA(parsetree, DropOwnedStmt))
	{
		foreach(lc, ((DropOwnedStmt *) parsetree)->roles)
			if (get_rolespec_oid(lfirst_node(RoleSpec, lc), true) == owner)
				return true;
	}
	return false;
}

PG_FUNCTION_INFO_V1(mrf_refuse_drop_with_budgets);
/*
 * ddl_command_start: refuses to drop mrfdp while any relation is protected
 * or the ledger holds any row (the history of releases outlives budgets).
 */
Datum
mrf_refuse_drop_with_budgets(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;
	int64		protected = 0;
	int64		history = 0;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("mrfdp_internal.refuse_drop_with_budgets() must be called as an event trigger")));
	trigdata = (EventTriggerData *) fcinfo->context;
	if (trigdata->parsetree == NULL || !DropsExtension(trigdata->parsetree))
		PG_RETURN_NULL();

	SPI_connect();
	if (MrfCatalogQuery("SELECT (SELECT count(*) FROM mrfdp.budget), (SELECT count(*) FROM mrfdp.ledger)",
						0, NULL, NULL, NULL, true) == 1)
	{
		bool		isnull;

		protected = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		history = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	}
	SPI_finish();
	if (protected == 0 && history == 0)
		PG_RETURN_NULL();

	if (!MrfAllowDropWithBudgets)
		ereport(ERROR,
				(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
				 protected > 0 ?
				 errmsg("cannot drop extension mrfdp while " INT64_FORMAT " relation%s protected",
						protected, protected == 1 ? " is" : "s are") :
				 errmsg("cannot drop extension mrfdp while its ledger holds " INT64_FORMAT " row%s",
						history, history == 1 ? "" : "s"),
				 errdetail("Dropping it erases every privacy budget, learning grant and ledger row (the ledger has " INT64_FORMAT " row%s).",
						   history, history == 1 ? "" : "s"),
				 errhint("Keep a dump of the database first (pg_dump carries the ledger). To drop it anyway, a superuser sets mrfdp.allow_drop_with_budgets = on in the session.")));
	ereport(WARNING,
			(errmsg("dropping extension mrfdp erases the budgets of " INT64_FORMAT " protected relation%s and " INT64_FORMAT " ledger row%s",
					protected, protected == 1 ? "" : "s", history, history == 1 ? "" : "s"),
			 errdetail("mrfdp.allow_drop_with_budgets is on.")));
	PG_RETURN_NULL();
}
