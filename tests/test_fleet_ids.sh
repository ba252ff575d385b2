#!/usr/bin/env bash
# Request ids of a fleet after a cancel (docs/DAEMON.md, "Running a
# fleet"), on a private PostgreSQL server (tests/fleet/pg.sh) with one node
# whose simulated device takes 15 s a proof, so a job is still queued or
# running while the test acts on it:
#   - a resubmit of a live job's id with the same content attaches to it
#     (the same job id);
#   - once the job is cancelled, a resubmit of its id with the same content
#     makes a new job that replaces it (not attached, another job id, one
#     row for the id, not cancelled), and the new job ends done.
# Usage: test_fleet_ids.sh <cuzk> <source dir>; env CUZKD=<cuzkd>.
set -u
. "$2/tests/daemon/lib.sh"
if grep -q "built without libpq" "$CUZKD"; then
  skip "cuzkd built without libpq (no fleet support)"
fi
. "$2/tests/fleet/pg.sh"

gen_circuit s bn254 5
pg_start
start_daemon N --devices=sim:compute_us=15000000 --fleet_db="$pg_dsn" --node_name=N \
  --fleet_lease_s=3 --keys=slow="$tmp/s.zkey" || finish
wait_for 30 status_is 'j.fleet && j.fleet.connected && j.ready' ||
  { echo "FAIL: node N did not join its fleet; its log:"; cat "$tmp/N.log"; exit 1; }

# submit ID: the same job under ID each time; $jid its job id, $att attached
submit() {
  expect 202 -- -H 'Content-Type: application/json' \
    -d "{\"key\":\"slow\",\"witness_paths\":[\"$tmp/s.wtns\"],\"request_id\":\"$1\"}" /v1/jobs
  jid=$(jget "$tmp/body" job_id)
  att=$(jget "$tmp/body" attached)
}

submit c-1
first=$jid
check "first submit attached" "$att" false
submit c-1
check "a live job's id attaches" "$att/$jid" "true/$first"
expect 200 -- -X DELETE /v1/jobs/c-1
check "cancelled" "$(jget "$tmp/body" cancelled)/$(jget "$tmp/body" state)" true/cancelled
submit c-1
[ "$att" = false ] && [ "$jid" != "$first" ] && ok ||
  bad "a cancelled job's id must make a new job: attached $att, job $jid (the cancelled one: $first)"
check "rows of c-1 after the resubmit" \
  "$(psql_q "SELECT count(*) || ' ' || bool_and(state <> 'cancelled') FROM cuzk_fleet_jobs WHERE request_id = 'c-1'")" "1 true"
expect 200 -- '/v1/jobs/c-1/result?timeout_ms=90000'
check "the new job's end" "$(jget "$tmp/body" state)" done
finish
