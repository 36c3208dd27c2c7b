-- server: session_preload
-- Regression tests for what fuzzing the parsers found (test/fuzz/run_fuzz.sh);
-- each input is also in the committed corpus that fuzz_corpus.sql replays.
SET client_min_messages = warning;
SELECT plan(4);

CREATE TEMP TABLE fuzz_start AS SELECT pg_backend_pid() AS pid, pg_postmaster_start_time() AS started;

-- ising: a weight of -0 was written as "-0", which reads back as 0 (a jsonb
-- number has no sign of zero), so the text changed on a round trip.
SELECT is((SELECT m::text::mrf::text = m::text
			 FROM (SELECT mrf_ising('{{0, 0.5, 0}, {0.25, 0, -0}, {0, 2, 0}}'::float8[]) AS m) q),
		  true, 'a model with a weight of -0 reads back to the same text');

-- model: a structure document whose monomials end in a number out of range
-- for float8 (1e400) leaked the items read so far (malloc'd, lost at the
-- error): 2000 such inputs of 435 monomials grew the backend by about 16 MB.
CREATE FUNCTION pg_temp.rss_kb() RETURNS bigint LANGUAGE sql AS $$
	SELECT (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmRSS:\s+(\d+)'))[1]::bigint
$$;
CREATE FUNCTION pg_temp.read_bad_monomials(times int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	doc text := format('{"kind": "structure", "p": 30, "t": 3, "monomials": [%s, [1e400, 2]]}',
					   (SELECT string_agg(format('[%s, %s]', i, j), ', ')
						  FROM generate_series(1, 29) i, generate_series(2, 30) j WHERE i < j));
	refused int := 0;
BEGIN
	FOR i IN 1 .. times LOOP
		BEGIN
			PERFORM doc::mrf;
		EXCEPTION WHEN numeric_value_out_of_range THEN
			refused := refused + 1;
		END;
	END LOOP;
	RETURN refused;
END $$;
SELECT pg_temp.read_bad_monomials(200) AS warmup \gset
CREATE TEMP TABLE rss_before AS SELECT pg_temp.rss_kb() AS kb;
SELECT pg_temp.read_bad_monomials(2000) AS refused \gset
SELECT cmp_ok(pg_temp.rss_kb() - (SELECT kb FROM rss_before), '<', 4096::bigint,
			  'refused structure documents leak no memory (backend growth under 4 MB over 2000)');

SELECT is(pg_backend_pid(), (SELECT pid FROM fuzz_start), 'the session survived');
SELECT is(pg_postmaster_start_time(), (SELECT started FROM fuzz_start), 'the server did not restart');

SELECT * FROM finish();
