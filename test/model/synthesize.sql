-- server: session_preload
-- Synthetic tables in the source's types (issue 11 item 4): mrf_synthesize
-- returns rows of the row type named in the call (the source relation's),
-- usable in CREATE TABLE AS; each variable's code becomes its column's
-- value through the model's labels (enum labels, booleans, declared text
-- and integer values, NULL for a 'category' of missing values).  One- and
-- two-way frequencies of the synthetic rows match the model's exact
-- marginals (a clique model) within sampling error.
BEGIN;
SELECT plan(10);
SET LOCAL mrfdp.test_seed = 19;

CREATE TYPE pg_temp.sy_level AS ENUM ('low', 'mid', 'high');
CREATE TEMP TABLE sy_source (level pg_temp.sy_level, ok boolean, city text, band int);
INSERT INTO sy_source
SELECT (enum_range(NULL::pg_temp.sy_level))[1 + g % 3], g % 3 = 0 OR g % 7 = 0,
	   CASE WHEN g % 11 = 0 THEN NULL ELSE (ARRAY['Oslo', 'Rome'])[1 + (g / 3) % 2] END,
	   (g / 2) % 4
FROM generate_series(1, 4000) g;

CREATE TEMP TABLE sy_models AS
SELECT 'cliques' AS kind, mrf_learn_cliques(r, cliques => '[[1, 2], [2, 3]]', epsilon => 20) AS m
FROM (SELECT level, ok, (g % 2 = 0) AS even FROM sy_source, LATERAL (SELECT band AS g) x) r;
INSERT INTO sy_models
SELECT 'pairwise', mrf_learn_pairwise(s, rho => 4, nulls => 'category',
									  domains => '{"city": ["Oslo", "Rome"], "band": [0, 1, 2, 3]}')
FROM sy_source s;

-- a synthetic table in the source's types, without spelling them out
CREATE TEMP TABLE sy_synth AS
SELECT * FROM mrf_synthesize((SELECT m FROM sy_models WHERE kind = 'pairwise'), 3000, NULL::sy_source, seed => 7);
SELECT is((SELECT count(*) FROM sy_synth), 3000::bigint, 'CREATE TABLE AS takes the synthetic rows');
SELECT results_eq($$SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute
					WHERE attrelid = 'sy_synth'::regclass AND attnum > 0 ORDER BY attnum$$,
				  $$SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute
					WHERE attrelid = 'sy_source'::regclass AND attnum > 0 ORDER BY attnum$$,
				  'the synthetic table has the source''s column names and types');
SELECT is((SELECT array_agg(DISTINCT city ORDER BY city) FROM sy_synth WHERE city IS NOT NULL), ARRAY['Oslo', 'Rome'],
		  'text columns take their declared values');
SELECT cmp_ok((SELECT count(*) FROM sy_synth WHERE city IS NULL), '>', 0::bigint,
			  'the NULL category comes back as NULL');
SELECT ok((SELECT bool_and(band BETWEEN 0 AND 3) FROM sy_synth), 'integer columns take their declared values');

-- marginals: a clique model's exact clique marginals against 20,000 synthetic rows
CREATE TYPE pg_temp.sy_row AS (level pg_temp.sy_level, ok boolean, even boolean);
CREATE TEMP TABLE sy_csynth AS
SELECT * FROM mrf_synthesize((SELECT m FROM sy_models WHERE kind = 'cliques'), 20000, NULL::pg_temp.sy_row, seed => 8);
CREATE TEMP TABLE sy_marg AS
SELECT names, labels, probability FROM mrf_marginals((SELECT m FROM sy_models WHERE kind = 'cliques'));
-- two-way: every cell of both cliques, |frequency - probability| below 4 standard errors (at most 0.0142)
SELECT cmp_ok((SELECT max(abs(f.freq - m.probability)) FROM sy_marg m,
			   LATERAL (SELECT avg((s.level::text = m.labels[1] AND s.ok::text = m.labels[2])::int)::float8 AS freq
						FROM sy_csynth s) f WHERE m.names = ARRAY['level', 'ok']),
			  '<', 0.0142::float8, 'two-way frequencies (level, ok) match the model''s marginals');
SELECT cmp_ok((SELECT max(abs(f.freq - m.probability)) FROM sy_marg m,
			   LATERAL (SELECT avg((s.ok::text = m.labels[1] AND s.even::text = m.labels[2])::int)::float8 AS freq
						FROM sy_csynth s) f WHERE m.names = ARRAY['ok', 'even']),
			  '<', 0.0142::float8, 'two-way frequencies (ok, even) match the model''s marginals');
SELECT cmp_ok((SELECT max(abs(f.freq - m.p)) FROM
				 (SELECT labels[1] AS level, sum(probability) AS p FROM sy_marg WHERE names = ARRAY['level', 'ok'] GROUP BY 1) m,
			   LATERAL (SELECT avg((s.level::text = m.level)::int)::float8 AS freq FROM sy_csynth s) f),
			  '<', 0.0142::float8, 'one-way frequencies (level) match the model''s marginals');

SELECT throws_ok($$SELECT * FROM mrf_synthesize((SELECT m FROM sy_models WHERE kind = 'pairwise'), 10, NULL::pg_temp.sy_row)$$,
				 '42804', NULL, 'a row type of another width is refused');
SELECT throws_ok($$SELECT * FROM mrf_synthesize('{"kind": "structure", "p": 3, "k": 2, "edges": [[1, 2]]}'::mrf, 10, NULL::pg_temp.sy_row)$$,
				 '42809', NULL, 'models that cannot sample are refused');

SELECT * FROM finish();
ROLLBACK;
