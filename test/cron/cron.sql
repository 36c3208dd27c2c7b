-- server: pg_cron
-- After three runs of the scheduled re-learn (see test/cron/setup.sql).
SELECT plan(6);
CREATE TEMP TABLE runs AS
SELECT d.status, d.return_message, row_number() OVER (ORDER BY d.start_time) AS n
FROM cron.job_run_details d JOIN cron.job j USING (jobid)
WHERE j.jobname = 'mrfdp-relearn' AND d.status IN ('succeeded', 'failed');
SELECT is((SELECT array_agg(status ORDER BY n) FROM runs WHERE n <= 3),
          ARRAY['succeeded', 'succeeded', 'failed']::text[],
          'the job learns while the budget lasts, then fails');
SELECT alike((SELECT return_message FROM runs WHERE n = 3), '%privacy budget of relation public.cron_src is exhausted%',
             'the failed run says why (cron.job_run_details)');
SELECT is((SELECT count(*) FROM cron_models), 2::bigint, 'two models were stored');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'cron_src'::regclass), 0.251953125::numeric,
          'the ledger is exactly at the cap');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'cron_src'::regclass AND role = 'mrfdp_cron_analyst'::regrole),
          2::bigint, 'one ledger row per stored model, in the analyst''s name');
SELECT ok((SELECT bool_and(mrf_info(model)->>'private' = 'true') FROM cron_models), 'the stored models are private');
DELETE FROM cron.job WHERE jobname = 'mrfdp-relearn';
SELECT * FROM finish();
