-- server: shared_preload
-- mrf_progress()'s seconds_left: the current phase's time left at its pace
-- so far (MrfProgressSecondsLeft, the formula of the NOTICEs' time left),
-- NULL until the phase has run a second and done a hundredth of its work.
-- Another session learns an Ising model whose Frank-Wolfe steps cost the
-- same each, watched every 50 ms: the estimate is NULL at first, appears,
-- shrinks, and predicts when the learner ends (within a factor of two, the
-- median over the samples of the learner's own phase).  6,000 steps: at 2,000
-- a quiet machine ends the phase within about a second of the first estimate,
-- leaving 0-11 samples with more than half a second left (none: a NULL result).
-- Not in a transaction: the other session must see the committed table.
SELECT plan(6);

CREATE EXTENSION IF NOT EXISTS dblink;
CREATE TABLE eta_samples (t timestamptz, started timestamptz, done bigint, total bigint, seconds_left float8);
SELECT dblink_connect('eta', format('host=%s port=%s dbname=%s',
	split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database()));
SELECT dblink_send_query('eta', $q$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1, iterations => 6000)) IS NULL
	FROM (SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0, g % 7 = 0] x FROM generate_series(1, 200000) g) q$q$);
CREATE TEMP TABLE eta_end (t timestamptz);
DO $$
BEGIN
	FOR i IN 1 .. 2400 LOOP
		INSERT INTO eta_samples
		SELECT clock_timestamp(), started, done, total, seconds_left FROM mrf_progress() WHERE learner = 'mrf_learn_ising';
		IF dblink_is_busy('eta') = 0 THEN
			INSERT INTO eta_end VALUES (clock_timestamp());
			EXIT;
		END IF;
		PERFORM pg_sleep(0.05);
	END LOOP;
END $$;
SELECT count(*) AS drained FROM dblink_get_result('eta') AS r(learned boolean);
SELECT dblink_disconnect('eta');

-- the learner's own phase: the samples after the last time done went down
CREATE TEMP TABLE eta_phase AS
SELECT s.*, (SELECT t FROM eta_end) AS finished
FROM (SELECT *, count(*) FILTER (WHERE dropped) OVER (ORDER BY t) AS phase
	  FROM (SELECT *, done < lag(done) OVER (ORDER BY t) AS dropped FROM eta_samples) d) s;
DELETE FROM eta_phase WHERE phase < (SELECT max(phase) FROM eta_phase);

SELECT ok((SELECT count(*) FROM eta_end) = 1 AND (SELECT count(*) FROM eta_samples WHERE done > 0) >= 20,
		  'the learner ran to its end and was watched');
SELECT ok((SELECT count(*) FROM eta_samples WHERE done > 0 AND seconds_left IS NULL) > 0,
		  'seconds_left is NULL before there is an estimate');
SELECT ok((SELECT bool_and(t - started >= interval '1 second') FROM eta_samples WHERE seconds_left IS NOT NULL),
		  'no estimate within a run''s first second');
SELECT ok((SELECT count(*) FROM eta_phase WHERE seconds_left IS NOT NULL) >= 5,
		  'the learner''s phase has estimates');
SELECT ok((SELECT (array_agg(seconds_left ORDER BY t))[1] > (array_agg(seconds_left ORDER BY t DESC))[1]
		   FROM eta_phase WHERE seconds_left IS NOT NULL),
		  'and they shrink as it runs');
SELECT ok((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished - t) / seconds_left)
		   FROM eta_phase WHERE seconds_left > 0.5) BETWEEN 0.5 AND 2,
		  'they predict the end: the median of the time that was left over the estimate is within 0.5..2');

DROP TABLE eta_samples;
SELECT * FROM finish();
