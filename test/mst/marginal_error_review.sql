-- server: session_preload
-- Adversarial review of mrf_marginal_error / mrf_marginal_errors (issue 12
-- item 3): they read a relation without privacy, so only a role that may
-- SELECT it gets an answer; crafted model text must not hold a backend
-- past a cancel or give NaN as an error.  Before the fixes: a dense Ising
-- model of 18 variables with ways 1..9 (about 150,000 sets, 2^18 states)
-- ran a minute between two interrupt checks, before the relation was
-- read, so any role (one without SELECT included) could hold a backend a
-- minute past statement_timeout, and weights near 1e308 gave NaN errors.
BEGIN;
SELECT plan(12);

CREATE TABLE mer_rows (a boolean, b boolean, c boolean, d boolean, x boolean[]);
INSERT INTO mer_rows
SELECT i % 2 = 0, i % 3 = 0, i % 5 = 0, i % 7 = 0, array_fill(i % 2 = 0, ARRAY[18])
FROM generate_series(1, 200) i;
SELECT mrfdp.protect('mer_rows', epsilon => 10, delta => 1e-6);
CREATE ROLE mer_analyst;
CREATE ROLE mer_reader;
SELECT mrfdp.grant_learning('mer_rows', 'mer_analyst');
GRANT SELECT ON mer_rows TO mer_reader;
GRANT SELECT (a, b) ON mer_rows TO mer_analyst;
-- a dense Ising model of 18 variables
CREATE TABLE mer_models (name text, m mrf);
INSERT INTO mer_models
SELECT 'dense', format('{"kind": "ising", "p": 18, "k": 2, "weights": %s, "fields": %s}',
	(SELECT json_agg((SELECT json_agg(CASE WHEN i = j THEN 0 ELSE 0.01 END) FROM generate_series(1, 18) j))
	 FROM generate_series(1, 18) i),
	(SELECT json_agg(0.0) FROM generate_series(1, 18)))::mrf;
INSERT INTO mer_models VALUES
	('small', '{"kind": "cliques", "p": 4, "k": 2, "cliques": [[1, 3]], "log_potentials": [[0, 0.5, 0, 0]]}'),
	('huge', '{"kind": "ising", "p": 4, "k": 2, "weights": [[0, 1e308, 0, 0], [1e308, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], "fields": [0, 0, 0, 0]}');
GRANT SELECT ON mer_models TO mer_analyst, mer_reader;
-- seconds until a cancel ends the heavy call (-1: it finished)
CREATE FUNCTION mer_cancel_seconds() RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	PERFORM * FROM mrf_marginal_error((SELECT m FROM mer_models WHERE name = 'dense'), 'mer_rows', '{x}',
		'{1,2,3,4,5,6,7,8}');
	RETURN -1;
EXCEPTION WHEN query_canceled THEN
	RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;
GRANT EXECUTE ON FUNCTION mer_cancel_seconds() TO mer_reader;
SET client_min_messages = warning;

-- a role that may learn but not read: refused before any work on the model
SET ROLE mer_analyst;
SET LOCAL statement_timeout = '10s';
SELECT throws_ok($$SELECT * FROM mrf_marginal_errors((SELECT m FROM mer_models WHERE name = 'dense'), 'mer_rows', '{x}', '{1,2,3,4,5,6,7,8,9}')$$,
	'42501', NULL, 'a role without SELECT is refused at once, even with a model whose marginals cost minutes');
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT m FROM mer_models WHERE name = 'small'), 'mer_rows', '{a,b,c,d}')$$,
	'42501', NULL, 'and with any model (it has SELECT on columns a and b only)');
SELECT ok((SELECT count(*) = 3 FROM mrf_marginal_error((SELECT m FROM mer_models WHERE name = 'small'), 'mer_rows', '{a,b,a,b}')),
	'a list of the columns it may read is read with its rights (its own SELECT, not the owner''s)');
-- through a SECURITY DEFINER function of its own: still its rights
CREATE FUNCTION pg_temp.mer_definer() RETURNS SETOF record LANGUAGE sql SECURITY DEFINER
	AS $$SELECT * FROM mrf_marginal_error((SELECT m FROM mer_models WHERE name = 'small'), 'mer_rows', '{a,b,c,d}')$$;
SELECT throws_ok($$SELECT * FROM pg_temp.mer_definer() AS (way int, marginals int, mean_l1 float8, max_l1 float8)$$,
	'42501', NULL, 'a SECURITY DEFINER function of the analyst''s own reads with the analyst''s rights');
RESET statement_timeout;
RESET ROLE;
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'mer_rows'::regclass), 0::numeric,
	'nothing charged (nothing released)');

-- a role that may read: a cancel ends the heavy call within seconds
SET ROLE mer_reader;
SET LOCAL statement_timeout = '1s';
-- (once: BETWEEN would evaluate the call twice, the second without a timeout)
SELECT ok(s BETWEEN 0 AND 10, 'statement_timeout (1 s) ends mrf_marginal_error on 2^18 states x 107,000 sets within 10 s (it took a minute)')
FROM (SELECT mer_cancel_seconds() AS s OFFSET 0) x;
RESET statement_timeout;
RESET ROLE;
-- two cliques of 20 and 21 binary variables: each triple across them
-- calibrates a junction tree of 3 million cells (about 0.3 s); the first
-- 64 triples hold 21 of them, and the interrupt was checked every 64 sets
-- (a cancel after 1 s landed after 5.7 s)
INSERT INTO mer_models
SELECT 'two cliques', format('{"kind": "cliques", "p": 41, "k": 2, "cliques": [%s, %s], "log_potentials": [%s, %s]}',
	(SELECT json_agg(i) FROM generate_series(1, 20) i), (SELECT json_agg(i) FROM generate_series(21, 41) i),
	(SELECT json_agg(((i::bigint * 7919) % 1000) / 1000.0) FROM generate_series(0, 1048575) i),
	(SELECT json_agg(((i::bigint * 104729) % 1000) / 1000.0) FROM generate_series(0, 2097151) i))::mrf;
CREATE TABLE mer_wide AS SELECT array_fill(true, ARRAY[41]) AS x FROM generate_series(1, 10);
GRANT SELECT ON mer_wide TO mer_reader;
CREATE FUNCTION mer_cancel_seconds_jt() RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	PERFORM * FROM mrf_marginal_error((SELECT m FROM mer_models WHERE name = 'two cliques'), 'mer_wide', '{x}', '{3}');
	RETURN -1;
EXCEPTION WHEN query_canceled THEN
	RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;
GRANT EXECUTE ON FUNCTION mer_cancel_seconds_jt() TO mer_reader;
SET ROLE mer_reader;
SET LOCAL statement_timeout = '1s';
SELECT ok(s BETWEEN 0 AND 3.5, 'statement_timeout (1 s) ends a run of junction trees within 3.5 s (it took 5.7 s)')
FROM (SELECT mer_cancel_seconds_jt() AS s OFFSET 0) x;
RESET statement_timeout;
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT m FROM mer_models WHERE name = 'huge'), 'mer_rows', '{a,b,c,d}')$$,
	'22003', NULL, 'weights near 1e308: an error, not NaN');
SELECT throws_ok($$SELECT * FROM mrf_marginal_errors((SELECT m FROM mer_models WHERE name = 'huge'), 'mer_rows', '{a,b,c,d}')$$,
	'22003', NULL, 'mrf_marginal_errors too');
SELECT ok((SELECT bool_and(l1 BETWEEN 0 AND 2) AND count(*) = 14
		   FROM mrf_marginal_errors((SELECT m FROM mer_models WHERE name = 'small'), 'mer_rows', '{a,b,c,d}')),
	'an ordinary model still gives 14 finite errors in [0, 2]');
RESET ROLE;

-- a model of more variables than a query has columns: a clear 54000, not the
-- target-list error with the whole generated query as its CONTEXT
SELECT throws_ok($$SELECT * FROM mrf_marginal_error(mrf_ising(array_fill(0::float8, ARRAY[1700, 1700]),
                                                              array_fill(0::float8, ARRAY[1700])), 'mer_rows')$$,
	'54000', 'mrf_marginal_error compares models of at most 1664 variables, and this model has 1700',
	'a model of 1700 variables is refused with its limit');

-- the sets' bookkeeping counts against mrfdp.max_learner_memory, planned
-- before it is allocated: 1,279,200 pairs of 1600 variables hold about 63 MB
-- of it next to their 78 MB of tables (the check used to see only the tables,
-- 78 MB, and let this call allocate the rest unplanned)
CREATE TABLE mer_wider AS SELECT array_fill(i % 2 = 0, ARRAY[1600]) AS x FROM generate_series(1, 20) i;
SET LOCAL mrfdp.max_learner_memory = '100MB';
SELECT throws_ok($$SELECT * FROM mrf_marginal_error(mrf_ising(array_fill(0::float8, ARRAY[1600, 1600]),
                                                              array_fill(0::float8, ARRAY[1600])), 'mer_wider', '{x}', '{2}')$$,
	'54000', 'mrf_marginal_error would need 142 MB of working memory',
	'the sets'' bookkeeping is planned with their tables against the memory limit');
RESET mrfdp.max_learner_memory;

SELECT * FROM finish();
ROLLBACK;
