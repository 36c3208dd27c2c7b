-- Regression tests for what fuzzing the parsers found (test/fuzz/run_fuzz.sh);
-- each input is also in the committed corpus that fuzz_corpus.sql replays.
SET client_min_messages = warning;
SELECT plan(3);

CREATE TEMP TABLE fuzz_start AS SELECT pg_backend_pid() AS pid, pg_postmaster_start_time() AS started;

-- ising: a weight of -0 was written as "-0", which reads back as 0 (a jsonb
-- number has no sign of zero), so the text changed on a round trip.
SELECT is((SELECT m::text::mrf::text = m::text
			 FROM (SELECT mrf_ising('{{0, 0.5, 0}, {0.25, 0, -0}, {0, 2, 0}}'::float8[]) AS m) q),
		  true, 'a model with a weight of -0 reads back to the same text');

SELECT is(pg_backend_pid(), (SELECT pid FROM fuzz_start), 'the session survived');
SELECT is(pg_postmaster_start_time(), (SELECT started FROM fuzz_start), 'the server did not restart');

SELECT * FROM finish();
