-- The ledger's state as text, comparable across ALTER EXTENSION UPDATE:
-- budgets with exact spent sums, grants, every ledger row, what remains,
-- and the two views as a superuser sees them.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
SELECT 'budget', relation::text, epsilon, delta, rho_cap, created, spent_zcdp_rho, spent_pure_epsilon,
	   spent_pure_rho, spent_approx_epsilon, spent_approx_delta, releases
FROM mrfdp.budget ORDER BY 2;
SELECT 'grant', relation::text, role::text, granted_by::text, granted FROM mrfdp.grants ORDER BY 2, 3;
SELECT 'ledger', id, relation::text, relation_name, relation_owner::text, relation_owner_name, protected,
	   role::text, role_name, at, learner, notion, rho, epsilon, delta, rows_read, statement, private
FROM mrfdp.ledger ORDER BY id;
-- the columns of 0.1.0 (later versions add columns, such as the amounts to
-- type on the protected path)
SELECT 'remaining', b.relation::text, r.rho, r.pure_epsilon, r.approx_epsilon, r.approx_delta,
	   r.spent_epsilon, r.spent_delta, r.spent_rho, r.releases
FROM mrfdp.budget b, mrfdp.remaining(b.relation::regclass) r ORDER BY 2;
SELECT 'budget_status', s.relation, s.owner, s.epsilon, s.delta, s.rho_cap, s.spent_epsilon, s.spent_delta,
	   s.spent_rho, s.remaining_epsilon, s.remaining_delta, s.releases, s.created
FROM mrfdp.budget_status s ORDER BY relation::text;
SELECT 'releases', r.* FROM mrfdp.releases r ORDER BY id;
SELECT 'marker', relacl FROM pg_class WHERE oid = 'mrfdp.learning_grantees'::regclass;
