/*
 * ledger/catalog.h - the privacy ledger's catalog access as the extension's
 * owner: the budget condition, the over-budget error, ledger rows of
 * unprotected releases and learning grants.
 */
#ifndef MRF_PG_LEDGER_CATALOG_H
#define MRF_PG_LEDGER_CATALOG_H

#include "postgres.h"

#include "pg/ledger/ledger.h"

/*
 * What one release adds to each sum of a budget row: $2 rho, $3 epsilon,
 * $4 delta (exact decimal texts, MrfExactDecimal), $5 the notion.
 * [BS16] Prop. 1.4: a pure release also counts as eps^2/2 in zCDP; exact in
 * numeric.
 */
#define MRF_CHARGE_AMOUNTS_SQL \
	"SELECT $2::numeric AS zr," \
	"  CASE WHEN $5 = 'pure' THEN $3::numeric ELSE 0 END AS pe," \
	"  CASE WHEN $5 = 'pure' THEN $3::numeric * $3::numeric * 0.5 ELSE 0 END AS pr," \
	"  CASE WHEN $5 = 'approximate' THEN $3::numeric ELSE 0 END AS ae," \
	"  $4::numeric AS ad"

/*
 * Whether budget row b still admits the amounts c: the composed total of the
 * new exact sums (privacy.md 9, MrfComposeEpsilon through mrfdp.spent_epsilon)
 * within epsilon, the approximate deltas within delta, the rho total within
 * rho_cap.  The charge worker admits a release by exactly this condition; the
 * checks before learning and the amounts reported as fitting use it too.
 */
#define MRF_CHARGE_FITS_SQL \
	"mrfdp.spent_epsilon(b.spent_zcdp_rho + c.zr, b.spent_pure_epsilon + c.pe," \
	"      b.spent_pure_rho + c.pr, b.spent_approx_epsilon + c.ae," \
	"      b.spent_approx_delta + c.ad, b.delta) <= b.epsilon" \
	"  AND b.spent_approx_delta + c.ad <= mrfdp.exact_numeric(b.delta)" \
	"  AND (b.rho_cap IS NULL OR" \
	"       b.spent_zcdp_rho + b.spent_pure_rho + c.zr + c.pr <= mrfdp.exact_numeric(b.rho_cap))"

/*
 * Whether grants row g's role itself holds the learning marker privilege
 * (REFERENCES on mrfdp.learning_grantees), as the SQL function
 * mrfdp_internal.holds_learning_marker says: written out, so that the query
 * reads the same under every installed version's schema (the function sat
 * in mrfdp before 0.2.0).
 */
#define MRF_HOLDS_LEARNING_MARKER_SQL \
	"EXISTS (SELECT 1 FROM pg_catalog.pg_class mc, pg_catalog.aclexplode(mc.relacl) ma" \
	"        WHERE mc.oid = 'mrfdp.learning_grantees'::pg_catalog.regclass" \
	"          AND ma.grantee = g.role::pg_catalog.oid AND ma.privilege_type = 'REFERENCES')"

/*
 * Runs one query on the mrfdp catalog as the extension's owner (inside
 * SPI_connect); returns SPI_processed.
 */
uint64		MrfCatalogQuery(const char *sql, int nargs, Oid *types, Datum *values,
							const char *nulls, bool read_only);

/* Whether MrfCatalogQuery is running (its reads are not the statement's). */
bool		MrfCatalogQueryRunning(void);

/* The extension's owner, who owns the catalog and runs the charge worker. */
Oid			MrfExtensionOwner(void);

/* The ledger's name of a privacy notion ("zCDP", "pure", "approximate"). */
const char *MrfNotionName(MrfNotion notion);

/* A relation's qualified name for messages, or its OID if it is gone. */
const char *MrfRelationNameOrOid(Oid relid);

/* Makes a fresh snapshot active: catalog reads see every charge committed so far. */
void		MrfPushFreshSnapshot(void);

/*
 * The first of relids whose budget charge does not fit, by the charge
 * worker's own condition, under the active snapshot; InvalidOid if none.
 */
Oid			MrfFirstNotFitting(const Oid *relids, int n, const MrfCharge *charge);

/* The over-budget error for charge at relid, with what is left if visible. */
void		MrfReportOverBudget(Oid relid, const MrfCharge *charge) pg_attribute_noreturn();

/* Whether any of the relations is protected, by a fresh look at the catalog. */
bool		MrfAnyProtected(const Oid *relids, int n);

/* Ledger rows, in the caller's transaction, of a release from unprotected relids. */
void		MrfRecordUnprotected(const MrfCharge *charge, const Oid *relids, int n);

/* Whether charge fits relid's budget now, by the charge worker's own condition. */
bool		MrfChargeFits(Oid relid, const MrfCharge *charge);

/* Errors unless role may learn from relid through the protected path. */
void		MrfCheckLearningGrant(Oid relid, Oid role);

#endif
