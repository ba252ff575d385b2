#!/usr/bin/env bash
# Job rows no fleet node wrote (docs/DAEMON.md, "Database roles"), on a
# private PostgreSQL server (tests/fleet/pg.sh) with one node:
#   - upgrade: a job done under schema version 3 (rows without a MAC) is
#     signed by the migration to version 4: it still reads, a resubmit of
#     its content attaches to it, and the sweep leaves it alone;
#   - a role granted INSERT only on the job and partition tables inserts
#     rows with a MAC that is not the fleet's: under a client's request id
#     (its content digest, done, with a forged proof), under an id no
#     client submitted (done), a queued job of the node's key with a real
#     witness, a queued job of a key no node has, and a partition past the
#     count of a real done job;
#   - the client's submit under the squatted id makes a new job (not
#     attached) whose proof is real; the squatting row is set aside as
#     foreign, with its request id kept in foreign_rid, said once in the log;
#   - the queued rows are never proved (no commit, no proof) and are set
#     aside too, the one of a key no node has included; status and result
#     of the unsubmitted id answer 404; the extra partition is not read as
#     the real job's;
#   - /v1/status counts and lists the foreign rows, /metrics counts them.
# Usage: test_fleet_foreign.sh <cuzk> <source dir>; env CUZKD=<cuzkd>.
set -u
. "$2/tests/daemon/lib.sh"
if grep -q "built without libpq" "$CUZKD"; then
  skip "cuzkd built without libpq (no fleet support)"
fi
. "$2/tests/fleet/pg.sh"

gen_circuit s bn254 5
pg_start
flags=(--devices=cpu --fleet_db="$pg_dsn" --node_name=N --fleet_lease_s=3 --keys=k="$tmp/s.zkey")
start_node() {
  start_daemon N "${flags[@]}" || { bad "node N did not start"; finish; }
  wait_for 30 status_is 'j.fleet && j.fleet.connected && j.ready' ||
    { echo "FAIL: node N did not join its fleet; its log:"; cat "$tmp/N.log"; exit 1; }
}
# submit RID: the job of key k and s.wtns under RID; $jid, $att
submit() {
  expect 202 -- -H 'Content-Type: application/json' \
    -d "{\"key\":\"k\",\"witness_paths\":[\"$tmp/s.wtns\"],\"request_id\":\"$1\"}" /v1/jobs
  jid=$(jget "$tmp/body" job_id)
  att=$(jget "$tmp/body" attached)
}
done_of() { # RID: wait for its result, into $tmp/body
  expect 200 -- "/v1/jobs/$1/result?timeout_ms=60000"
  check "$1 done" "$(jget "$tmp/body" state)" done
}
start_node

# ---- a database of schema version 3, with a done job -------------------------
submit old-1
done_of old-1
old_id=$jid
stop_daemon "$DPID"
# back to version 3: rows without a MAC, as a version-3 node wrote them
psql -X -q -v ON_ERROR_STOP=1 "$pg_dsn" >/dev/null <<'SQL' || bad "cannot go back to schema version 3"
ALTER TABLE cuzk_fleet_jobs DROP CONSTRAINT IF EXISTS cuzk_fleet_jobs_signed;
ALTER TABLE cuzk_fleet_jobs DROP COLUMN IF EXISTS mac, DROP COLUMN IF EXISTS foreign_rid;
DROP INDEX IF EXISTS cuzk_fleet_jobs_foreign;
DROP TABLE IF EXISTS cuzk_fleet_secret;
DELETE FROM cuzk_fleet_schema WHERE version > 3;
SQL
start_node
check "schema versions" "$(psql_q 'SELECT max(version) FROM cuzk_fleet_schema')" 4
grep -q "1 job row(s) written before rows were signed: signed" "$tmp/N.log" ||
  bad "the migration did not say it signed the row written before it"
done_of old-1
submit old-1
check "a resubmit of a job from before the MACs attaches" "$att/$jid" "true/$old_id"

# ---- a role with INSERT only writes rows ---------------------------------------
admin="host=$pg_dir dbname=cuzk user=postgres"
psql -X -q -v ON_ERROR_STOP=1 "$admin" >/dev/null <<'SQL' || bad "cannot make the role squatter"
CREATE ROLE squatter LOGIN;
GRANT INSERT ON cuzk_fleet_jobs, cuzk_fleet_parts TO squatter;
SQL
squat() { psql -X -A -t -q -v ON_ERROR_STOP=1 "host=$pg_dir dbname=cuzk user=squatter" -c "$1"; }
# the columns a row needs, and a MAC of its own making where the table has one
has_mac=$(psql_q "SELECT count(*) FROM information_schema.columns
                  WHERE table_name = 'cuzk_fleet_jobs' AND column_name = 'mac'")
mc="" mv=""
[ "$has_mac" = 1 ] && mc=", mac" mv=", repeat('ab', 32)"
read -r content ksha kpath < <(psql_q "SELECT content_sha || ' ' || key_sha || ' ' || key_path
                                       FROM cuzk_fleet_jobs WHERE request_id = 'old-1'" | tr '\n' ' ')
whex=$(od -An -v -tx1 "$tmp/s.wtns" | tr -d ' \n')
forged='[{"proof":{"forged":true},"public":["1"]}]'
# jobrow ID RID STATE KEY_ID CONTENT: a job row of one partition by squatter
jobrow() {
  squat "INSERT INTO cuzk_fleet_jobs (id, request_id, content_sha, key_id, key_path, key_sha,
           priority, n_partitions, inputs, submitted_by, state, parts_left, result_json$mc)
         VALUES ($1, '$2', '$5', '$4', '$kpath', '$ksha', 1, 1, false, 'N', '$3',
           CASE WHEN '$3' = 'done' THEN 0 ELSE 1 END,
           CASE WHEN '$3' = 'done' THEN '$forged' END$mv)" ||
    bad "squatter could not insert row $2"
}
jobrow 900001 c-1 done k "$content"
jobrow 900002 ghost-1 done k x
jobrow 900003 q-1 queued k y
jobrow 900004 nokey-1 queued nokey z
for id in 900003 900004; do
  squat "INSERT INTO cuzk_fleet_parts (job_id, idx, data) VALUES ($id, 0, '\\x$whex'::bytea)" ||
    bad "squatter could not insert the partition of row $id"
done
squat "INSERT INTO cuzk_fleet_parts (job_id, idx, data, state, proof_json)
       VALUES ($old_id, 1, '', 'done', '{\"proof\":{\"forged\":true},\"public\":[\"1\"]}')" ||
  bad "squatter could not insert a partition into old-1"

# the client's submit under its squatted id
submit c-1
[ "$att" = false ] && [ "$jid" != 900001 ] && ok ||
  bad "the submit of c-1 attached to a row no node wrote: attached $att, job $jid"
done_of c-1
check "c-1: one proof" "$(jget "$tmp/body" proofs.length)" 1
jsave "$tmp/body" proofs.0.proof "$tmp/c1.proof.json"
jsave "$tmp/body" proofs.0.public "$tmp/c1.public.json"
"$cuzk" verify "$tmp/s.vk.json" "$tmp/c1.public.json" "$tmp/c1.proof.json" >/dev/null 2>&1 &&
  ok || bad "the proof of c-1 does not verify (the forged one?): $(head -c 200 "$tmp/body")"
check "the squatting row, set aside" \
  "$(psql_q "SELECT state || '/' || coalesce(foreign_rid, '-') || '/' || (request_id <> 'c-1')
             FROM cuzk_fleet_jobs WHERE id = 900001")" "foreign/c-1/true"
submit c-1
check "a resubmit of c-1 attaches to the real job" "$att" true

# an id no client submitted: not a job
expect 404 ENOTFOUND -- /v1/jobs/ghost-1
expect 404 ENOTFOUND -- /v1/jobs/ghost-1/result
# the extra partition is not old-1's
done_of old-1
check "old-1: one proof (a partition past its count is not its)" "$(jget "$tmp/body" proofs.length)" 1

# the queued rows: set aside, never proved (the one of a key no node has too)
all_foreign() {
  [ "$(psql_q "SELECT count(*) FROM cuzk_fleet_jobs WHERE id BETWEEN 900001 AND 900004
               AND state = 'foreign'")" = 4 ]
}
wait_for 30 all_foreign && ok ||
  bad "rows no node wrote not set aside: $(psql_q "SELECT string_agg(id || '=' || state, ' ')
                                                  FROM cuzk_fleet_jobs WHERE id > 900000")"
check "queued foreign rows never proved (commits, proofs)" \
  "$(psql_q "SELECT (SELECT count(*) FROM cuzk_fleet_commits WHERE job_id IN (900003, 900004))
              || '/' || (SELECT count(*) FROM cuzk_fleet_parts WHERE job_id IN (900003, 900004)
                         AND (proof_json IS NOT NULL OR state = 'done'))")" 0/0
sleep 3 # a sweep more
check "old-1 (signed at the migration) left alone by the sweep" \
  "$(psql_q "SELECT state FROM cuzk_fleet_jobs WHERE id = $old_id")" done
for rid in c-1 ghost-1 q-1 nokey-1; do
  check "said once: the row of $rid is foreign" \
    "$(grep -c "(request id '$rid', .*was not written by a fleet node" "$tmp/N.log")" 1
done
wait_for 10 status_is 'j.fleet.foreign_rows == 4' ||
  bad "status: foreign_rows is not 4: $(head -c 600 "$tmp/poll.json")"
check "status lists the squatted request id" \
  "$(jtrue "$tmp/poll.json" 'j.fleet.foreign.some(r => r.request_id == "c-1" && r.job_id == 900001)' && echo yes)" yes
"$1" status --addr "unix:$SOCK" >"$tmp/st.out" 2>&1
grep -q '^fleet: 4 FOREIGN row' "$tmp/st.out" && grep -q 'request id c-1 ' "$tmp/st.out" && ok ||
  bad "cuzk status does not show the foreign rows: $(grep -A3 FOREIGN "$tmp/st.out")"
expect 200 -- /metrics
grep -q '^cuzk_fleet_foreign_rows 4$' "$tmp/body" && ok || bad "metrics: cuzk_fleet_foreign_rows is not 4"
stop_daemon "$DPID"
check "node N exit status" "$rc" 0
finish
