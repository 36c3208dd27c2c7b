-- The chain sampler's report (models no exact sampler reaches): a NOTICE
-- that says which sampler ran and whether its chains agree (split R-hat over
-- the chains); when they disagree, the NOTICE says the rows may not
-- represent the model, names the variable and what to do.  Exactly sampled
-- rows get no NOTICE.  Seeds make the rows and the figures repeatable.
LOAD 'mrfdp';
-- 31 spins, all pairs at 0.12: two modes the tempered chains move between
CREATE TABLE sn_ising AS
SELECT mrf_ising((SELECT array_agg(r ORDER BY i)
                  FROM (SELECT i, array_agg(CASE WHEN i = j THEN 0 ELSE 0.12 END::float8 ORDER BY j) r
                        FROM generate_series(1, 31) i, generate_series(1, 31) j GROUP BY i) q)) AS m;
SELECT count(*) AS rows FROM mrf_sample((SELECT m FROM sn_ising), 2000, seed => 1);
-- too few rounds for halves of 10: 8 rows at thin 1 are 2 rounds a chain
SELECT count(*) AS rows FROM mrf_sample((SELECT m FROM sn_ising), 8, 1000, 1, seed => 1);
-- 8 rows at thin 10 are 20 rounds a chain, too short for a chain to move
-- between the modes: the R-hat sees the chains in different modes
SELECT count(*) AS rows FROM mrf_sample((SELECT m FROM sn_ising), 8, seed => 1);
-- a Potts model of 30 variables of 10 values, all pairs at 0.8 when equal:
-- ten modes that no temperature connects; no burn-in, 20 rounds a chain
CREATE TABLE sn_potts AS
SELECT format('{"kind": "pairwise", "p": 30, "k": 10, "weights": %s, "fields": %s}',
              (SELECT json_agg(wi ORDER BY i)
               FROM (SELECT i, json_agg((SELECT json_agg((SELECT json_agg(CASE WHEN i <> j AND a = b THEN 0.8 ELSE 0 END ORDER BY b)
                                                          FROM generate_series(0, 9) b) ORDER BY a)
                                         FROM generate_series(0, 9) a) ORDER BY j) AS wi
                     FROM generate_series(1, 30) i, generate_series(1, 30) j GROUP BY i) x),
              (SELECT json_agg((SELECT json_agg(0) FROM generate_series(0, 9))) FROM generate_series(1, 30)))::mrf AS m;
SELECT count(*) AS rows FROM mrf_sample((SELECT m FROM sn_potts), 80, 0, 1, seed => 2);
-- the same through mrf_synthesize into named columns with labels: the
-- NOTICE names the column and the value
CREATE TYPE sn_level AS ENUM ('l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7', 'l8', 'l9');
DO $$
BEGIN
	EXECUTE (SELECT 'CREATE TYPE sn_row AS (' || string_agg(format('c%s sn_level', i), ', ' ORDER BY i) || ')'
			 FROM generate_series(1, 30) i);
END
$$;
SELECT count(*) AS rows
FROM mrf_synthesize((SELECT jsonb_set(m::jsonb, '{meta}', jsonb_build_object('variables',
                        (SELECT jsonb_agg(jsonb_build_object('name', 'c' || i, 'labels',
                                (SELECT jsonb_agg('l' || v ORDER BY v) FROM generate_series(0, 9) v)) ORDER BY i)
                         FROM generate_series(1, 30) i)))::text::mrf FROM sn_potts),
                    80, NULL::sn_row, seed => 2, burn_in => 0, thin => 1);
-- exactly sampled (a 6-spin chain: enumeration; a 40-spin chain: junction tree): no NOTICE
SELECT count(*) AS rows FROM mrf_sample(mrf_ising((SELECT array_agg(r ORDER BY i)
    FROM (SELECT i, array_agg(CASE WHEN abs(i - j) = 1 THEN 0.5 ELSE 0 END::float8 ORDER BY j) r
          FROM generate_series(1, 40) i, generate_series(1, 40) j GROUP BY i) q)), 100, seed => 1);
DROP TABLE sn_ising, sn_potts;
DROP TYPE sn_row;
DROP TYPE sn_level;
