-- server: session_preload
-- Replays the committed fuzz corpus (test/fuzz/corpus/<target>/*, kept by
-- test/fuzz/run_fuzz.sh) through the real build, as SQL users would send it:
-- every input either parses or fails with an expected SQLSTATE (classes 22,
-- 42, 54; accessors and learners also 0A and 53), never an internal error,
-- and the backend survives all of them.  The inputs are read on the client
-- (psql's \copy FROM PROGRAM, run from the repository root as in_cluster.sh
-- does), so the server needs no access to the files.
SET client_min_messages = warning;
SET mrfdp.test_seed = 11;
SELECT plan(10);

CREATE TEMP TABLE fuzz_start AS SELECT pg_backend_pid() AS pid, pg_postmaster_start_time() AS started;
CREATE TEMP TABLE fuzz_corpus (target text, name text, hex text);
\copy fuzz_corpus FROM PROGRAM 'cd test/fuzz/corpus && for f in */*; do printf "%s\t%s\t" "${f%%/*}" "${f#*/}"; od -An -v -tx1 "$f" | tr -d " \n"; echo; done'
CREATE TEMP TABLE fuzz_outcome (target text, name text, outcome text, detail text);

-- Rows the learners read: 24 samples of 5 binary variables, of 6 ternary
-- ones, and the clique learner's shapes (6 binary, 4 ternary variables).
CREATE TEMP TABLE fuzz_bits AS
	SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0, g % 7 = 0, g % 11 = 0] AS r FROM generate_series(1, 24) g;
CREATE TEMP TABLE fuzz_kary AS
	SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3, (g / 2) % 3, g % 2, (g / 5) % 3] AS r FROM generate_series(1, 24) g;
CREATE TEMP TABLE fuzz_k2 AS
	SELECT ARRAY[g % 2, (g / 2) % 2, (g / 3) % 2, (g * 7) % 2, (g / 5) % 2, (g / 7) % 2] AS r FROM generate_series(1, 24) g;
CREATE TEMP TABLE fuzz_k3 AS
	SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3, (g / 2) % 3] AS r FROM generate_series(1, 24) g;

-- Runs a query with one argument; NULL when it returned or failed with a
-- SQLSTATE of an allowed class, else what went wrong.
CREATE FUNCTION pg_temp.fuzz_try(query text, arg anyelement, allowed text[])
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query USING arg;
	RETURN NULL;
EXCEPTION
	WHEN query_canceled THEN
		RETURN 'timeout: ' || query;
	WHEN OTHERS THEN
		IF left(SQLSTATE, 2) = ANY (allowed) THEN
			RETURN NULL;
		END IF;
		RETURN format('%s: %s (%s)', SQLSTATE, SQLERRM, query);
END $$;

-- A model the extension accepted: its text reads back to the same text, and
-- every accessor returns or refuses cleanly (as the fuzz driver's CheckModel).
CREATE FUNCTION pg_temp.fuzz_check_model(m mrf) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	again text;
	bad text;
	q text;
BEGIN
	BEGIN
		again := m::text::mrf::text;
	EXCEPTION
		WHEN OTHERS THEN
			RETURN format('output does not read back: %s: %s', SQLSTATE, SQLERRM);
	END;
	IF again IS DISTINCT FROM m::text THEN
		RETURN 'round trip changed the text: ' || m::text;
	END IF;
	FOREACH q IN ARRAY ARRAY[
		'SELECT mrf_info($1)', 'SELECT $1::jsonb', 'SELECT mrf_send($1)',
		'SELECT count(*) FROM mrf_edges($1)', 'SELECT count(*) FROM mrf_edges($1, 0.5)',
		'SELECT count(*) FROM mrf_fields($1)', 'SELECT count(*) FROM mrf_weights($1)',
		'SELECT count(*) FROM mrf_monomials($1)', 'SELECT count(*) FROM mrf_potentials($1)',
		'SELECT count(*) FROM mrf_marginals($1)']
	LOOP
		bad := pg_temp.fuzz_try(q, m, ARRAY['22', '42', '54', '0A', '53']);
		IF bad IS NOT NULL THEN
			RETURN bad;
		END IF;
	END LOOP;
	IF (mrf_info(m) ->> 'p')::int <= 64 THEN
		RETURN pg_temp.fuzz_try('SELECT count(*) FROM mrf_sample($1, 3, burn_in => 2, thin => 1, seed => 1)',
								m, ARRAY['22', '42', '54', '0A', '53']);
	END IF;
	RETURN NULL;
END $$;

-- An options document, as every learner's aggregate receives it, learned on
-- 24 rows.  What makes learning slow is capped so that the replay takes
-- seconds (the fuzz driver only plans with such documents): iterations at
-- 100, em_iterations at 5, k at 6, rho and epsilon at 64; the checks then see
-- the capped number in place of the original.
CREATE FUNCTION pg_temp.fuzz_options(doc jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	learner text;
	rows text;
	bad text;
	cap record;
BEGIN
	IF jsonb_typeof(doc) = 'object' THEN
		FOR cap IN SELECT * FROM (VALUES ('iterations', 100), ('em_iterations', 5), ('k', 6),
										 ('rho', 64), ('epsilon', 64)) c(name, value)
		LOOP
			IF jsonb_typeof(doc -> cap.name) = 'number' AND (doc ->> cap.name)::numeric > cap.value THEN
				doc := doc || jsonb_build_object(cap.name, cap.value);
			END IF;
		END LOOP;
	END IF;
	FOREACH learner IN ARRAY ARRAY['ising', 'pairwise', 'twise', 'structure', 'cliques']
	LOOP
		rows := CASE WHEN learner IN ('pairwise', 'cliques') OR
						  (learner = 'structure' AND doc ->> 'model' = 'pairwise')
					 THEN 'pg_temp.fuzz_kary' ELSE 'pg_temp.fuzz_bits' END;
		bad := pg_temp.fuzz_try(format('SELECT mrf_learn_%s_agg(r, $1) FROM %s', learner, rows),
								doc, ARRAY['22', '42', '54', '0A', '53']);
		IF bad IS NOT NULL THEN
			RETURN bad;
		END IF;
	END LOOP;
	RETURN NULL;
END $$;

-- One corpus input of one target: 'skipped' (not SQL text), 'rejected',
-- 'accepted' or 'bad'.
CREATE FUNCTION pg_temp.fuzz_replay(target text, input bytea, OUT outcome text, OUT detail text)
LANGUAGE plpgsql AS $$
DECLARE
	txt text;
	m mrf;
	doc jsonb;
	value jsonb;
	nl int;
	args text;
	shape int[];
BEGIN
	-- SQL text ends at a NUL byte and must be valid UTF-8 (as in the driver).
	IF position('\x00'::bytea IN input) > 0 THEN
		input := substring(input FOR position('\x00'::bytea IN input) - 1);
	END IF;
	BEGIN
		txt := convert_from(input, 'UTF8');
	EXCEPTION
		WHEN OTHERS THEN
			outcome := 'skipped';
			RETURN;
	END;
	outcome := 'accepted';
	BEGIN
		CASE target
			WHEN 'model' THEN
				m := txt::mrf;
			WHEN 'options' THEN
				doc := txt::jsonb;
			WHEN 'cliques' THEN
				value := txt::jsonb;
			WHEN 'mrf_options' THEN
				SELECT string_agg(format('%I => %L::%s', a.name, a.value, a.type), ', ')
				  INTO args
				  FROM (SELECT DISTINCT ON (l.name) l.name, l.value, format_type(p.type, NULL) AS type
						  FROM (SELECT split_part(line, E'\t', 1) AS name,
									   substr(line, length(split_part(line, E'\t', 1)) + 2) AS value, n
								  FROM regexp_split_to_table(txt, E'\n') WITH ORDINALITY s(line, n)
								 WHERE strpos(line, E'\t') > 0) l
						  JOIN (SELECT unnest(proargnames) AS name, unnest(proargtypes::oid[]) AS type
								  FROM pg_proc WHERE proname = 'mrf_options') p ON p.name = l.name
						 ORDER BY l.name, l.n) a;
				EXECUTE format('SELECT mrf_options(%s)', coalesce(args, '')) INTO doc;
			WHEN 'ising' THEN
				nl := strpos(txt, E'\n');
				IF nl > 0 THEN
					m := mrf_ising(left(txt, nl - 1)::float8[], substr(txt, nl + 1)::float8[]);
				ELSE
					m := mrf_ising(txt::float8[]);
				END IF;
		END CASE;
	EXCEPTION
		WHEN query_canceled THEN
			outcome := 'bad';
			detail := 'timeout';
			RETURN;
		WHEN OTHERS THEN
			IF left(SQLSTATE, 2) IN ('22', '42', '54') THEN
				outcome := 'rejected';
			ELSE
				outcome := 'bad';
				detail := format('%s: %s', SQLSTATE, SQLERRM);
			END IF;
			RETURN;
	END;

	IF m IS NOT NULL THEN
		detail := pg_temp.fuzz_check_model(m);
	ELSIF doc IS NOT NULL THEN
		detail := pg_temp.fuzz_options(doc);
	ELSIF value IS NOT NULL THEN
		-- The clique list as option "cliques" of two shapes, naive and CGM.
		FOREACH shape SLICE 1 IN ARRAY ARRAY[[6, 2, 0], [6, 2, 1], [4, 3, 0], [4, 3, 1]]
		LOOP
			doc := jsonb_build_object('epsilon', 1, 'k', shape[2], 'cliques', value);
			IF shape[3] = 1 THEN
				doc := doc || '{"method": "cgm", "em_iterations": 3}';
			END IF;
			BEGIN
				EXECUTE format('SELECT mrf_learn_cliques_agg(r, $1) FROM pg_temp.fuzz_k%s', shape[2])
				   INTO m USING doc;
			EXCEPTION
				WHEN query_canceled THEN
					detail := 'timeout';
				WHEN OTHERS THEN
					IF left(SQLSTATE, 2) NOT IN ('22', '42', '54', '0A', '53') THEN
						detail := format('%s: %s', SQLSTATE, SQLERRM);
					END IF;
			END;
			IF detail IS NULL AND m IS NOT NULL THEN
				detail := pg_temp.fuzz_check_model(m);
			END IF;
			EXIT WHEN detail IS NOT NULL;
		END LOOP;
	END IF;
	IF detail IS NOT NULL THEN
		outcome := 'bad';
	END IF;
END $$;

-- One statement per input, so that statement_timeout bounds each.
SET statement_timeout = '30s';
SELECT format('INSERT INTO fuzz_outcome SELECT %L, %L, o.* FROM pg_temp.fuzz_replay(%L, decode(%L, ''hex'')) o',
			  target, name, target, hex)
  FROM fuzz_corpus ORDER BY target, name
\gexec
RESET statement_timeout;

SELECT is((SELECT count(DISTINCT target)::int FROM fuzz_corpus), 5,
		  'the corpus of every fuzz target is there (run from the repository root)');
SELECT is((SELECT count(*) FROM fuzz_outcome), (SELECT count(*) FROM fuzz_corpus),
		  'every corpus input was replayed');
SELECT is_empty($$SELECT target, name, detail FROM fuzz_outcome WHERE target = 'model' AND outcome = 'bad'$$,
				'every mrf document of the corpus parses, or fails with SQLSTATE class 22, 42 or 54');
SELECT is_empty($$SELECT target, name, detail FROM fuzz_outcome WHERE target = 'options' AND outcome = 'bad'$$,
				'every options document of the corpus is accepted or refused cleanly by every learner');
SELECT is_empty($$SELECT target, name, detail FROM fuzz_outcome WHERE target = 'cliques' AND outcome = 'bad'$$,
				'every clique list of the corpus is accepted or refused cleanly');
SELECT is_empty($$SELECT target, name, detail FROM fuzz_outcome WHERE target = 'mrf_options' AND outcome = 'bad'$$,
				'every mrf_options argument list of the corpus is accepted or refused cleanly');
SELECT is_empty($$SELECT target, name, detail FROM fuzz_outcome WHERE target = 'ising' AND outcome = 'bad'$$,
				'every mrf_ising argument pair of the corpus is accepted or refused cleanly');
SELECT ok((SELECT count(DISTINCT target) FROM fuzz_outcome WHERE outcome = 'accepted') = 5,
		  'every target has inputs the parsers accept (the replay reaches past the first check)');
SELECT is(pg_backend_pid(), (SELECT pid FROM fuzz_start), 'the session survived the whole corpus');
SELECT is(pg_postmaster_start_time(), (SELECT started FROM fuzz_start), 'the server did not restart');

SELECT * FROM finish();
