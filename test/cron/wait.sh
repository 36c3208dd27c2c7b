#!/usr/bin/env bash
# Waits until the mrfdp-relearn cron job has finished $2 runs (at most $3 seconds).
db=$1
runs=$2
limit=$3
for _ in $(seq 1 "$limit"); do
	n=$(psql -AtX -d "$db" -c "SELECT count(*) FROM cron.job_run_details d JOIN cron.job j USING (jobid)
		WHERE j.jobname = 'mrfdp-relearn' AND d.status IN ('succeeded', 'failed')")
	[ "${n:-0}" -ge "$runs" ] && exit 0
	sleep 1
done
echo "cron: only ${n:-0} of $runs runs finished in $limit s"
exit 1
