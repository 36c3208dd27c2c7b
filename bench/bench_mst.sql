-- MST at 1,000,000 rows x 20 columns (issue 12): one release against a plain
-- GROUP BY of the same counts (all 20 one-way and 190 two-way tables, one
-- GROUPING SETS statement).  Alphabets mixed: 5 columns each of 2, 3, 4 and
-- 6 values (enums).  Run by bench/run_mst_bench.sh; prints timings.
\timing off
SET client_min_messages = warning;
DROP TABLE IF EXISTS mst_bench;
DROP TYPE IF EXISTS mb2, mb3, mb4, mb6;
CREATE TYPE mb2 AS ENUM ('a', 'b');
CREATE TYPE mb3 AS ENUM ('a', 'b', 'c');
CREATE TYPE mb4 AS ENUM ('a', 'b', 'c', 'd');
CREATE TYPE mb6 AS ENUM ('a', 'b', 'c', 'd', 'e', 'f');
SELECT setseed(0.5);
-- a chain-like dependence: every column copies a shared base value (mod its
-- alphabet) with probability 0.5, otherwise it is uniform
CREATE TABLE mst_bench AS
SELECT
	(enum_range(NULL::mb2))[1 + CASE WHEN random() < 0.5 THEN a % 2 ELSE floor(random() * 2)::int END] AS c01,
	(enum_range(NULL::mb3))[1 + CASE WHEN random() < 0.5 THEN a % 3 ELSE floor(random() * 3)::int END] AS c02,
	(enum_range(NULL::mb4))[1 + CASE WHEN random() < 0.5 THEN a % 4 ELSE floor(random() * 4)::int END] AS c03,
	(enum_range(NULL::mb6))[1 + CASE WHEN random() < 0.5 THEN a % 6 ELSE floor(random() * 6)::int END] AS c04,
	(enum_range(NULL::mb2))[1 + CASE WHEN random() < 0.5 THEN a % 2 ELSE floor(random() * 2)::int END] AS c05,
	(enum_range(NULL::mb3))[1 + CASE WHEN random() < 0.5 THEN a % 3 ELSE floor(random() * 3)::int END] AS c06,
	(enum_range(NULL::mb4))[1 + CASE WHEN random() < 0.5 THEN a % 4 ELSE floor(random() * 4)::int END] AS c07,
	(enum_range(NULL::mb6))[1 + CASE WHEN random() < 0.5 THEN a % 6 ELSE floor(random() * 6)::int END] AS c08,
	(enum_range(NULL::mb2))[1 + CASE WHEN random() < 0.5 THEN a % 2 ELSE floor(random() * 2)::int END] AS c09,
	(enum_range(NULL::mb3))[1 + CASE WHEN random() < 0.5 THEN a % 3 ELSE floor(random() * 3)::int END] AS c10,
	(enum_range(NULL::mb4))[1 + CASE WHEN random() < 0.5 THEN a % 4 ELSE floor(random() * 4)::int END] AS c11,
	(enum_range(NULL::mb6))[1 + CASE WHEN random() < 0.5 THEN a % 6 ELSE floor(random() * 6)::int END] AS c12,
	(enum_range(NULL::mb2))[1 + CASE WHEN random() < 0.5 THEN a % 2 ELSE floor(random() * 2)::int END] AS c13,
	(enum_range(NULL::mb3))[1 + CASE WHEN random() < 0.5 THEN a % 3 ELSE floor(random() * 3)::int END] AS c14,
	(enum_range(NULL::mb4))[1 + CASE WHEN random() < 0.5 THEN a % 4 ELSE floor(random() * 4)::int END] AS c15,
	(enum_range(NULL::mb6))[1 + CASE WHEN random() < 0.5 THEN a % 6 ELSE floor(random() * 6)::int END] AS c16,
	(enum_range(NULL::mb2))[1 + CASE WHEN random() < 0.5 THEN a % 2 ELSE floor(random() * 2)::int END] AS c17,
	(enum_range(NULL::mb3))[1 + CASE WHEN random() < 0.5 THEN a % 3 ELSE floor(random() * 3)::int END] AS c18,
	(enum_range(NULL::mb4))[1 + CASE WHEN random() < 0.5 THEN a % 4 ELSE floor(random() * 4)::int END] AS c19,
	(enum_range(NULL::mb6))[1 + CASE WHEN random() < 0.5 THEN a % 6 ELSE floor(random() * 6)::int END] AS c20
FROM (SELECT floor(random() * 12)::int AS a FROM generate_series(1, 1000000)) s;
VACUUM ANALYZE mst_bench;
SET work_mem = '1GB';
SET max_parallel_workers_per_gather = 0;
\timing on
\echo mst_release
SELECT mrf_info(mrf_learn_mst(r, rho => 1))->>'learn_seconds' AS learn_seconds FROM mst_bench r;
\echo mst_release
SELECT mrf_info(mrf_learn_mst(r, rho => 1))->>'learn_seconds' AS learn_seconds FROM mst_bench r;
\echo mst_release
SELECT mrf_info(mrf_learn_mst(r, rho => 1))->>'learn_seconds' AS learn_seconds FROM mst_bench r;
\echo group_by
-- the same counts by SQL: 210 grouping sets in one statement (output discarded)
\o /dev/null
SELECT count(*) FROM mst_bench GROUP BY GROUPING SETS ((c01), (c02), (c03), (c04), (c05), (c06), (c07), (c08), (c09), (c10), (c11), (c12), (c13), (c14), (c15), (c16), (c17), (c18), (c19), (c20), (c01, c02), (c01, c03), (c01, c04), (c01, c05), (c01, c06), (c01, c07), (c01, c08), (c01, c09), (c01, c10), (c01, c11), (c01, c12), (c01, c13), (c01, c14), (c01, c15), (c01, c16), (c01, c17), (c01, c18), (c01, c19), (c01, c20), (c02, c03), (c02, c04), (c02, c05), (c02, c06), (c02, c07), (c02, c08), (c02, c09), (c02, c10), (c02, c11), (c02, c12), (c02, c13), (c02, c14), (c02, c15), (c02, c16), (c02, c17), (c02, c18), (c02, c19), (c02, c20), (c03, c04), (c03, c05), (c03, c06), (c03, c07), (c03, c08), (c03, c09), (c03, c10), (c03, c11), (c03, c12), (c03, c13), (c03, c14), (c03, c15), (c03, c16), (c03, c17), (c03, c18), (c03, c19), (c03, c20), (c04, c05), (c04, c06), (c04, c07), (c04, c08), (c04, c09), (c04, c10), (c04, c11), (c04, c12), (c04, c13), (c04, c14), (c04, c15), (c04, c16), (c04, c17), (c04, c18), (c04, c19), (c04, c20), (c05, c06), (c05, c07), (c05, c08), (c05, c09), (c05, c10), (c05, c11), (c05, c12), (c05, c13), (c05, c14), (c05, c15), (c05, c16), (c05, c17), (c05, c18), (c05, c19), (c05, c20), (c06, c07), (c06, c08), (c06, c09), (c06, c10), (c06, c11), (c06, c12), (c06, c13), (c06, c14), (c06, c15), (c06, c16), (c06, c17), (c06, c18), (c06, c19), (c06, c20), (c07, c08), (c07, c09), (c07, c10), (c07, c11), (c07, c12), (c07, c13), (c07, c14), (c07, c15), (c07, c16), (c07, c17), (c07, c18), (c07, c19), (c07, c20), (c08, c09), (c08, c10), (c08, c11), (c08, c12), (c08, c13), (c08, c14), (c08, c15), (c08, c16), (c08, c17), (c08, c18), (c08, c19), (c08, c20), (c09, c10), (c09, c11), (c09, c12), (c09, c13), (c09, c14), (c09, c15), (c09, c16), (c09, c17), (c09, c18), (c09, c19), (c09, c20), (c10, c11), (c10, c12), (c10, c13), (c10, c14), (c10, c15), (c10, c16), (c10, c17), (c10, c18), (c10, c19), (c10, c20), (c11, c12), (c11, c13), (c11, c14), (c11, c15), (c11, c16), (c11, c17), (c11, c18), (c11, c19), (c11, c20), (c12, c13), (c12, c14), (c12, c15), (c12, c16), (c12, c17), (c12, c18), (c12, c19), (c12, c20), (c13, c14), (c13, c15), (c13, c16), (c13, c17), (c13, c18), (c13, c19), (c13, c20), (c14, c15), (c14, c16), (c14, c17), (c14, c18), (c14, c19), (c14, c20), (c15, c16), (c15, c17), (c15, c18), (c15, c19), (c15, c20), (c16, c17), (c16, c18), (c16, c19), (c16, c20), (c17, c18), (c17, c19), (c17, c20), (c18, c19), (c18, c20), (c19, c20));
\o
\echo group_by
\o /dev/null
SELECT count(*) FROM mst_bench GROUP BY GROUPING SETS ((c01), (c02), (c03), (c04), (c05), (c06), (c07), (c08), (c09), (c10), (c11), (c12), (c13), (c14), (c15), (c16), (c17), (c18), (c19), (c20), (c01, c02), (c01, c03), (c01, c04), (c01, c05), (c01, c06), (c01, c07), (c01, c08), (c01, c09), (c01, c10), (c01, c11), (c01, c12), (c01, c13), (c01, c14), (c01, c15), (c01, c16), (c01, c17), (c01, c18), (c01, c19), (c01, c20), (c02, c03), (c02, c04), (c02, c05), (c02, c06), (c02, c07), (c02, c08), (c02, c09), (c02, c10), (c02, c11), (c02, c12), (c02, c13), (c02, c14), (c02, c15), (c02, c16), (c02, c17), (c02, c18), (c02, c19), (c02, c20), (c03, c04), (c03, c05), (c03, c06), (c03, c07), (c03, c08), (c03, c09), (c03, c10), (c03, c11), (c03, c12), (c03, c13), (c03, c14), (c03, c15), (c03, c16), (c03, c17), (c03, c18), (c03, c19), (c03, c20), (c04, c05), (c04, c06), (c04, c07), (c04, c08), (c04, c09), (c04, c10), (c04, c11), (c04, c12), (c04, c13), (c04, c14), (c04, c15), (c04, c16), (c04, c17), (c04, c18), (c04, c19), (c04, c20), (c05, c06), (c05, c07), (c05, c08), (c05, c09), (c05, c10), (c05, c11), (c05, c12), (c05, c13), (c05, c14), (c05, c15), (c05, c16), (c05, c17), (c05, c18), (c05, c19), (c05, c20), (c06, c07), (c06, c08), (c06, c09), (c06, c10), (c06, c11), (c06, c12), (c06, c13), (c06, c14), (c06, c15), (c06, c16), (c06, c17), (c06, c18), (c06, c19), (c06, c20), (c07, c08), (c07, c09), (c07, c10), (c07, c11), (c07, c12), (c07, c13), (c07, c14), (c07, c15), (c07, c16), (c07, c17), (c07, c18), (c07, c19), (c07, c20), (c08, c09), (c08, c10), (c08, c11), (c08, c12), (c08, c13), (c08, c14), (c08, c15), (c08, c16), (c08, c17), (c08, c18), (c08, c19), (c08, c20), (c09, c10), (c09, c11), (c09, c12), (c09, c13), (c09, c14), (c09, c15), (c09, c16), (c09, c17), (c09, c18), (c09, c19), (c09, c20), (c10, c11), (c10, c12), (c10, c13), (c10, c14), (c10, c15), (c10, c16), (c10, c17), (c10, c18), (c10, c19), (c10, c20), (c11, c12), (c11, c13), (c11, c14), (c11, c15), (c11, c16), (c11, c17), (c11, c18), (c11, c19), (c11, c20), (c12, c13), (c12, c14), (c12, c15), (c12, c16), (c12, c17), (c12, c18), (c12, c19), (c12, c20), (c13, c14), (c13, c15), (c13, c16), (c13, c17), (c13, c18), (c13, c19), (c13, c20), (c14, c15), (c14, c16), (c14, c17), (c14, c18), (c14, c19), (c14, c20), (c15, c16), (c15, c17), (c15, c18), (c15, c19), (c15, c20), (c16, c17), (c16, c18), (c16, c19), (c16, c20), (c17, c18), (c17, c19), (c17, c20), (c18, c19), (c18, c20), (c19, c20));
\o
