#!/usr/bin/env bash
# A fleet of cuzkd nodes on one private PostgreSQL server (docs/DAEMON.md,
# "Running a fleet").  Four nodes start at once on an empty database (they
# race to create the schema):
#   A, B  CPU device, key "a"
#   C     CPU device, key "a" from another setup of the same circuit (its
#         file's SHA-256 differs: it must never claim the fleet's "a" jobs)
#   D     a simulated device taking 2.5 s a proof, key "slow" (only D has it)
# Then: 300 jobs from 4 client processes through A, every proof verified,
# B proves some; duplicate request ids across nodes (attach, 409); status,
# result and cancel from nodes other than the one submitted to; priorities
# and deadlines across the fleet; a node stopped (SIGSTOP) past its lease
# and a node killed (SIGKILL) in the middle of a batch (B or S, a fifth node
# like B started for it: whichever holds a lease when it is stopped; the
# batch goes through A), and a PostgreSQL restart in the middle of one
# (while any node holds a lease): every job is done exactly once (one commit
# row per partition and one per job, a job count that matches what was
# submitted).  Job rows naming /dev/zero or a FIFO as key fail (the nodes
# neither block nor spin on them).  Claims are per partition: a job of six partitions is proved
# by two nodes together (H and I, simulated devices, started for it).  Last, two nodes started at once migrate a database
# of schema version 1 (job leases) with jobs in it, and prove them.
# Usage: test_fleet.sh <cuzk> <source dir>; env CUZKD=<cuzkd>.
set -u
. "$2/tests/daemon/lib.sh"
if "$cuzk" status --help 2>&1 | grep -q "built without libcurl"; then
  skip "cuzk built without libcurl"
fi
if grep -q "built without libpq" "$CUZKD"; then
  skip "cuzkd built without libpq (no fleet support)"
fi
. "$2/tests/fleet/pg.sh"

lease=3
pg_start
# A database whose default privileges give the daemon's tables to
# everyone, and a role that may only connect: the schema must still leave
# the tables to their owner (tests/fleet/rows.sh, "roles").
psql -q -v ON_ERROR_STOP=1 "host=$pg_dir dbname=cuzk user=postgres" >/dev/null <<'SQL' ||
ALTER DEFAULT PRIVILEGES FOR ROLE cuzk IN SCHEMA public GRANT ALL ON TABLES TO PUBLIC;
ALTER DEFAULT PRIVILEGES FOR ROLE cuzk IN SCHEMA public GRANT ALL ON SEQUENCES TO PUBLIC;
CREATE ROLE intruder LOGIN;
GRANT CONNECT ON DATABASE cuzk TO intruder;
SQL
  { echo "FAIL: lax default privileges"; exit 1; }
gen_circuit a bn254 6
"$cuzk" setup --dev --seed 7 "$tmp/a.r1cs" "$tmp/a_other.zkey" >/dev/null 2>&1 || { echo "FAIL: setup"; exit 1; }
cmp -s "$tmp/a.zkey" "$tmp/a_other.zkey" && { echo "FAIL: two setups gave one key"; exit 1; }
gen_circuit s bn254 5
# w: a larger circuit (2^10), for the batches a node is stopped, killed or
# cut from its database in: its proofs take long enough that the nodes
# hold leases for most of a batch (2^6 proofs end in milliseconds, and a
# node was then seldom caught holding one)
gen_circuit w bn254 10

declare -A pid sock
# launch NAME FLAGS...: a fleet node (not waited for).
launch() {
  local n=$1
  shift
  sock[$n]=$tmp/$n.sock
  "$CUZKD" --socket="${sock[$n]}" --log_level=debug --fleet_db="$pg_dsn" --node_name="$n" \
    --fleet_lease_s=$lease --drain_timeout_s=5 "$@" >>"$tmp/$n.log" 2>&1 &
  pid[$n]=$!
  daemon_pids="$daemon_pids ${pid[$n]}"
}
healthy() {
  wait_for 60 curl -sf --unix-socket "${sock[$1]}" http://cuzkd/healthz ||
    { echo "FAIL: node $1 did not start; its log:"; cat "$tmp/$1.log"; exit 1; }
}
flags_A=(--devices=cpu --keys=a="$tmp/a.zkey",w="$tmp/w.zkey" --listen=127.0.0.1:0 --token=fleet-token)
flags_B=(--devices=cpu --keys=a="$tmp/a.zkey",w="$tmp/w.zkey")
flags_C=(--devices=cpu --keys=a="$tmp/a_other.zkey")
flags_D=(--devices=sim:compute_us=2500000 --keys=slow="$tmp/s.zkey")
flags_S=("${flags_B[@]}")

# ---- schema creation raced by the nodes ---------------------------------
for n in A B C D; do
  eval 'launch $n "${flags_'$n'[@]}"'
done
for n in A B C D; do healthy $n; done
check "schema versions recorded" "$(psql_q 'SELECT string_agg(version::text, $$,$$ ORDER BY version) FROM cuzk_fleet_schema')" 1,2,3,4
check "fleet tables" "$(psql_q "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'cuzk_fleet_%'")" 6
for n in A B C D; do
  grep -q "node $n joined the fleet" "$tmp/$n.log" || bad "node $n did not join: $(grep fleet "$tmp/$n.log" | tail -3)"
done
SOCK=${sock[B]}
wait_for 10 status_is 'j.fleet && j.fleet.connected && j.fleet.nodes.length == 4' ||
  bad "B's status does not show 4 nodes: $(head -c 600 "$tmp/poll.json")"

# ---- job rows naming a device or a FIFO as key -------------------------------
# Rows are input (any role that may write the table could have written
# them): a key path that is not a regular file is never opened in a way
# that blocks or reads forever; the row fails, and the nodes keep serving.
mkfifo "$tmp/fifo.zkey"
# (signed as a node signs its rows: tests/fleet/pg.sh, fleet_mac)
for k in /dev/zero "$tmp/fifo.zkey"; do
  id=$(psql_q "SELECT nextval('cuzk_fleet_jobs_id_seq')")
  zeros=0000000000000000000000000000000000000000000000000000000000000000
  mac=$(fleet_mac "$id" "notkey-$(basename "$k")" x "$k" "$k" $zeros 1 1 f "" elsewhere "")
  psql_q "WITH j AS (INSERT INTO cuzk_fleet_jobs (id, request_id, content_sha, key_id, key_path,
            key_sha, priority, n_partitions, inputs, submitted_by, parts_left, mac)
          VALUES ($id, 'notkey-$(basename "$k")', 'x', '$k', '$k', '$zeros', 1, 1, false,
            'elsewhere', 1, '$mac') RETURNING id)
          INSERT INTO cuzk_fleet_parts (job_id, idx, data) SELECT id, 0, '\x00'::bytea FROM j" ||
    bad "cannot insert a job row naming $k"
done
notkey_failed() {
  [ "$(psql_q "SELECT count(*) FROM cuzk_fleet_jobs WHERE request_id LIKE 'notkey-%'
               AND state = 'failed' AND error LIKE '%not a regular file%'")" = 2 ]
}
wait_for 30 notkey_failed && ok ||
  bad "rows naming /dev/zero and a FIFO as key: $(psql_q "SELECT string_agg(key_id || '=' || state, ' ') FROM cuzk_fleet_jobs WHERE request_id LIKE 'notkey-%'")"
for n in A B C D; do
  curl -sf --max-time 10 --unix-socket "${sock[$n]}" http://cuzkd/healthz >/dev/null ||
    bad "node $n does not answer after the rows naming non-files"
done

# ---- rows as input: roles, paths, circuits (P and Q started for it) ------------
. "$2/tests/fleet/rows.sh"

# exactly_once WHAT EXPECTED_DONE: the database's record of every job
# (commit rows: one per partition, idx set; one per job, idx NULL).
exactly_once() {
  local dup duppart missing parts done
  dup=$(psql_q "SELECT count(*) FROM (SELECT job_id FROM cuzk_fleet_commits WHERE idx IS NULL
                GROUP BY job_id HAVING count(*) > 1) x")
  duppart=$(psql_q "SELECT count(*) FROM (SELECT job_id, idx FROM cuzk_fleet_commits
                    WHERE idx IS NOT NULL GROUP BY job_id, idx HAVING count(*) > 1) x")
  missing=$(psql_q "SELECT count(*) FROM cuzk_fleet_jobs j WHERE state IN ('done', 'failed')
                    AND (SELECT count(*) FROM cuzk_fleet_commits c WHERE c.job_id = j.id
                         AND c.idx IS NULL) <> 1")
  parts=$(psql_q "SELECT count(*) FROM cuzk_fleet_jobs j WHERE state = 'done'
                  AND (SELECT count(*) FROM cuzk_fleet_commits c WHERE c.job_id = j.id
                       AND c.idx IS NOT NULL AND c.state = 'done') <> j.n_partitions")
  done=$(psql_q "SELECT count(*) FROM cuzk_fleet_jobs WHERE state = 'done' AND key_id IN ('a', 'w')")
  check "$1: jobs committed twice" "$dup" 0
  check "$1: partitions committed twice" "$duppart" 0
  check "$1: done jobs without exactly one commit" "$missing" 0
  check "$1: done jobs without one commit per partition" "$parts" 0
  check "$1: done jobs of keys a and w" "$done" "$2"
}
# running_parts COND: partitions of open jobs under a lease, filtered by COND.
running_parts() {
  psql_q "SELECT count(*) FROM cuzk_fleet_parts p JOIN cuzk_fleet_jobs j ON j.id = p.job_id
          WHERE j.state IN ('queued', 'running') AND p.state = 'running' AND $1"
}

# batch NODE N OUT [KEY]: N jobs of KEY (default a) from 4 client
# processes through NODE, every proof verified.
batch() {
  local k=${4:-a}
  "$cuzk" bench batch -n "$2" -j 8 --procs 4 --verify --key "$k" --witness "$tmp/$k.wtns" \
    --timeout 120 --addr "unix:${sock[$1]}" >"$tmp/$3" 2>&1
}
batch_ok() {
  grep -q "failures: 0" "$tmp/$1" && grep -q "verified: $2 valid, 0 invalid" "$tmp/$1" ||
    { bad "$1: not every proof came back valid"; tail -8 "$tmp/$1"; }
}

# ---- 300 jobs through A; the other nodes prove some ----------------------
batch A 300 load.out || bad "batch through A exited $?"
batch_ok load.out 300
total=300
exactly_once "load" $total
byB=$(psql_q "SELECT count(*) FROM cuzk_fleet_commits WHERE node = 'B' AND idx IS NULL")
[ "$byB" -gt 0 ] || bad "node B proved none of the 300 jobs"
echo "load: A proved $(psql_q "SELECT count(*) FROM cuzk_fleet_commits WHERE node = 'A' AND idx IS NULL"), B $byB"
check "node C (other key file) claimed" "$(psql_q "SELECT count(*) FROM cuzk_fleet_parts p JOIN cuzk_fleet_jobs j ON j.id = p.job_id WHERE j.key_id = 'a' AND (j.done_by = 'C' OR p.done_by = 'C' OR p.lease_owner = 'C')")" 0
grep -q "key a: .* differs from the fleet's" "$tmp/C.log" || bad "C did not say its key a differs"
# (of key a: any node, D too, may have ended the rows naming no key file above)
check "node D (no key a) claimed" "$(psql_q "SELECT count(*) FROM cuzk_fleet_commits c JOIN cuzk_fleet_jobs j ON j.id = c.job_id WHERE c.node = 'D' AND j.key_id = 'a'")" 0

# ---- request ids across nodes ---------------------------------------------
body() { printf '{"key":"a","witness_paths":[%s],"request_id":"%s"%s}' "$1" "$2" "${3:-}"; }
one="\"$tmp/a.wtns\""
SOCK=${sock[A]}
expect 202 -- -H 'Content-Type: application/json' -d "$(body "$one" dup-1)" /v1/jobs
jid=$(jget "$tmp/body" job_id)
check "first submit attached" "$(jget "$tmp/body" attached)" false
SOCK=${sock[B]}
expect 202 -- -H 'Content-Type: application/json' -d "$(body "$one" dup-1)" /v1/jobs
check "resubmit on B attached" "$(jget "$tmp/body" attached)" true
check "resubmit on B: same job" "$(jget "$tmp/body" job_id)" "$jid"
expect 409 EMISMATCH -- -H 'Content-Type: application/json' -d "$(body "$one,$one" dup-1)" /v1/jobs
# an upload with the same bytes is the same content
expect 202 -- -H 'Content-Type: application/octet-stream' --data-binary "@$tmp/a.wtns" \
  '/v1/jobs?key=a&request_id=dup-1'
check "upload resubmit attached" "$(jget "$tmp/body" attached)" true
# other bytes under the same id and shape: the words of a single node
head -c -1 "$tmp/a.wtns" >"$tmp/a-other.wtns" && printf '\001' >>"$tmp/a-other.wtns"
expect 409 request_id_reused -- -H 'Content-Type: application/octet-stream' \
  --data-binary "@$tmp/a-other.wtns" '/v1/jobs?key=a&request_id=dup-1'
SOCK=${sock[C]}
expect 200 -- '/v1/jobs/dup-1/result?timeout_ms=30000'
check "result read on C" "$(jget "$tmp/body" state)" done
jsave "$tmp/body" proofs.0.proof "$tmp/dup.proof.json"
jsave "$tmp/body" proofs.0.public "$tmp/dup.public.json"
"$cuzk" verify "$tmp/a.vk.json" "$tmp/dup.public.json" "$tmp/dup.proof.json" >/dev/null 2>&1 &&
  ok || bad "the proof of dup-1 read on C does not verify"
expect 200 -- '/v1/jobs/dup-1/result?format=raw'
check "raw result size" "$(stat -c %s "$tmp/body")" 256
expect 200 -- /v1/jobs/dup-1
check "status on C: node that proved it" "$(jget "$tmp/body" node | grep -cE '^(A|B)$')" 1
expect 404 ENOTFOUND -- /v1/jobs/no-such-job
# a job of three partitions, submitted on B, read on A
SOCK=${sock[B]}
expect 202 -- -H 'Content-Type: application/json' -d "$(body "$one,$one,$one" multi-1)" /v1/jobs
check "partitions of multi-1" "$(jget "$tmp/body" partitions)" 3
SOCK=${sock[A]}
expect 200 -- '/v1/jobs/multi-1/result?timeout_ms=30000'
check "multi-1 done with 3 proofs" "$(jget "$tmp/body" state)/$(jget "$tmp/body" proofs.length)" done/3
jsave "$tmp/body" proofs.2.proof "$tmp/m.proof.json"
jsave "$tmp/body" proofs.2.public "$tmp/m.public.json"
"$cuzk" verify "$tmp/a.vk.json" "$tmp/m.public.json" "$tmp/m.proof.json" >/dev/null 2>&1 &&
  ok || bad "the third proof of multi-1 does not verify"
expect 200 -- '/v1/jobs/multi-1/result?format=raw'
check "multi-1 raw result size" "$(stat -c %s "$tmp/body")" 768
total=$((total + 2))
# a job of six partitions, proved here with real proofs: in partition
# order in the result, each partition row naming the node that proved it.
six="$one,$one,$one,$one,$one,$one"
SOCK=${sock[B]}
expect 202 -- -H 'Content-Type: application/json' -d "$(body "$six" six-1)" /v1/jobs
check "partitions of six-1" "$(jget "$tmp/body" partitions)" 6
SOCK=${sock[A]}
expect 200 -- "/v1/jobs/six-1/result?timeout_ms=60000"
check "six-1 done with 6 proofs" "$(jget "$tmp/body" state)/$(jget "$tmp/body" proofs.length)" done/6
for i in 0 1 2 3 4 5; do
  jsave "$tmp/body" proofs.$i.proof "$tmp/six.proof.json"
  jsave "$tmp/body" proofs.$i.public "$tmp/six.public.json"
  "$cuzk" verify "$tmp/a.vk.json" "$tmp/six.public.json" "$tmp/six.proof.json" >/dev/null 2>&1 &&
    ok || bad "proof $i of six-1 does not verify"
done
expect 200 -- "/v1/jobs/six-1/result?format=raw"
check "six-1 raw result size" "$(stat -c %s "$tmp/body")" 1536
total=$((total + 1))
check "six-1: every partition proved by A or B" \
  "$(psql_q "SELECT count(*) FROM cuzk_fleet_parts p JOIN cuzk_fleet_jobs j ON j.id = p.job_id
             WHERE j.request_id = 'six-1' AND p.state = 'done' AND p.done_by IN ('A', 'B')")" 6
check "six-1 commits: one per partition, then the job" \
  "$(psql_q "SELECT string_agg(coalesce(c.idx::text, 'job'), ',' ORDER BY c.idx NULLS LAST)
             FROM cuzk_fleet_commits c JOIN cuzk_fleet_jobs j ON j.id = c.job_id
             WHERE j.request_id = 'six-1'")" 0,1,2,3,4,5,job

# ---- one job's partitions on two nodes --------------------------------------
# H and I, simulated devices of 1 s a proof, are the only nodes with key m.
# A node claims at most its slots (4) at once and proves one partition at
# a time, so the six partitions of a job go to both: the second node has a
# whole proof's time to claim the two the first could not take.
gen_circuit m bn254 5
for n in H I; do launch $n --devices=sim:compute_us=1000000 --keys=m="$tmp/m.zkey"; done
for n in H I; do healthy $n; done
SOCK=${sock[H]}
mw="\"$tmp/m.wtns\""
expect 202 -- -H 'Content-Type: application/json' \
  -d "{\"key\":\"m\",\"witness_paths\":[$mw,$mw,$mw,$mw,$mw,$mw],\"request_id\":\"spread-1\"}" /v1/jobs
SOCK=${sock[I]}
expect 200 -- "/v1/jobs/spread-1/result?timeout_ms=60000"
check "spread-1 done" "$(jget "$tmp/body" state)/$(jget "$tmp/body" simulated)" done/true
owners=$(psql_q "SELECT string_agg(x.node || ':' || x.n, ',' ORDER BY x.node) FROM
                 (SELECT p.done_by AS node, count(*) AS n FROM cuzk_fleet_parts p
                  JOIN cuzk_fleet_jobs j ON j.id = p.job_id
                  WHERE j.request_id = 'spread-1' AND p.state = 'done' GROUP BY p.done_by) x")
echo "spread-1: partitions proved by $owners"
case $owners in
  H:[1-5],I:[1-5]) ok ;;
  *) bad "spread-1: the six partitions were not proved by H and I together: '$owners'" ;;
esac
check "spread-1: lease owners recorded per partition" \
  "$(psql_q "SELECT count(*) FROM cuzk_fleet_parts p JOIN cuzk_fleet_jobs j ON j.id = p.job_id
             WHERE j.request_id = 'spread-1' AND p.lease_owner = p.done_by")" 6
check "spread-1 commits: one per partition, then the job" \
  "$(psql_q "SELECT string_agg(coalesce(c.idx::text, 'job'), ',' ORDER BY c.idx NULLS LAST)
             FROM cuzk_fleet_commits c JOIN cuzk_fleet_jobs j ON j.id = c.job_id
             WHERE j.request_id = 'spread-1'")" 0,1,2,3,4,5,job
# cancel a job of ten partitions while H and I hold eight of them: the
# two never claimed stay so (a job submitted after it, which claims take
# later, is proved first), the held ones are stopped, the job never ends
# but as cancelled.
ten="$mw,$mw,$mw,$mw,$mw,$mw,$mw,$mw,$mw,$mw"
SOCK=${sock[H]}
expect 202 -- -H 'Content-Type: application/json' \
  -d "{\"key\":\"m\",\"witness_paths\":[$ten],\"request_id\":\"spread-2\"}" /v1/jobs
claimed8() { [ "$(running_parts "j.request_id = 'spread-2'")" = 8 ]; }
wait_for 20 claimed8 || bad "H and I do not hold eight partitions of spread-2"
# H and I are stopped while the job is cancelled (through A), so that
# neither can prove one of its eight and claim one of the two left in
# between, however long a slow machine takes from the check to the cancel
kill -STOP "${pid[H]}" "${pid[I]}"
SOCK=${sock[A]}
expect 200 -- -X DELETE /v1/jobs/spread-2
kill -CONT "${pid[H]}" "${pid[I]}"
check "spread-2 cancelled" "$(jget "$tmp/body" cancelled)/$(jget "$tmp/body" state)" true/cancelled
for n in H I; do
  wait_for 10 grep -q "job spread-2: no longer ours" "$tmp/$n.log" || bad "$n did not stop its partitions of spread-2"
done
SOCK=${sock[H]}
expect 202 -- -H 'Content-Type: application/json' \
  -d "{\"key\":\"m\",\"witness_paths\":[$mw,$mw],\"request_id\":\"spread-3\"}" /v1/jobs
expect 200 -- "/v1/jobs/spread-3/result?timeout_ms=60000"
check "spread-3 done after the cancel" "$(jget "$tmp/body" state)" done
check "spread-2: partitions never claimed" \
  "$(psql_q "SELECT count(*) FROM cuzk_fleet_parts p JOIN cuzk_fleet_jobs j ON j.id = p.job_id
             WHERE j.request_id = 'spread-2' AND p.attempts = 0 AND p.state = 'cancelled'")" 2
check "spread-2: state and job commits" \
  "$(psql_q "SELECT j.state || '/' || (SELECT count(*) FROM cuzk_fleet_commits c
             WHERE c.job_id = j.id AND c.idx IS NULL) FROM cuzk_fleet_jobs j
             WHERE j.request_id = 'spread-2'")" cancelled/0
for n in H I; do
  stop_daemon "${pid[$n]}"
  check "node $n exit status" "$rc" 0
done

# ---- priorities, deadlines and cancel across the fleet (D, 2.5 s a job) -----
SOCK=${sock[D]}
slow() { # slow ID PRIORITY [extra JSON]
  expect 202 -- -H 'Content-Type: application/json' \
    -d "{\"key\":\"slow\",\"witness_paths\":[\"$tmp/s.wtns\"],\"request_id\":\"$1\",\"priority\":\"$2\"${3:-}}" /v1/jobs
}
for i in 1 2 3 4 5 6; do slow "s-$i" normal; done
slow s-late normal ',"deadline_ms":800'
slow s-crit critical
# D holds 4 (its slots: s-1 to s-4); the rest stay queued for seconds
held_by_D() { [ "$(running_parts "p.lease_owner = 'D'")" = 4 ]; }
wait_for 20 held_by_D || bad "D does not hold 4 jobs"
check "s-6 queued" "$(psql_q "SELECT state FROM cuzk_fleet_jobs WHERE request_id = 's-6'")" queued
SOCK=${sock[A]}
expect 200 -- -X DELETE /v1/jobs/s-6
check "queued job cancelled from A" "$(jget "$tmp/body" cancelled)/$(jget "$tmp/body" state)" true/cancelled
# the last of the first four (the device proves one at a time: it has ~7.5 s left)
running=$(psql_q "SELECT j.request_id FROM cuzk_fleet_parts p JOIN cuzk_fleet_jobs j ON j.id = p.job_id
                  WHERE j.state = 'running' AND p.state = 'running' AND p.lease_owner = 'D'
                  AND j.request_id IN ('s-1', 's-2', 's-3', 's-4') ORDER BY j.id DESC LIMIT 1")
[ -n "$running" ] || bad "none of the first four slow jobs is running on D"
SOCK=${sock[C]}
expect 200 -- -X DELETE "/v1/jobs/$running"
check "running job cancelled from C" "$(jget "$tmp/body" cancelled)/$(jget "$tmp/body" state)" true/cancelled
wait_for 10 grep -q "job $running: no longer ours" "$tmp/D.log" || bad "D did not stop cancelled job $running"
SOCK=${sock[B]}
expect 200 -- '/v1/jobs/s-late/result?timeout_ms=20000'
check "deadline passed in the queue" "$(jget "$tmp/body" state)" expired
expect 200 -- '/v1/jobs/s-crit/result?timeout_ms=30000'
check "critical job done" "$(jget "$tmp/body" state)/$(jget "$tmp/body" simulated)" done/true
for i in 1 2 3 4 5; do
  [ "s-$i" = "$running" ] && continue
  expect 200 -- "/v1/jobs/s-$i/result?timeout_ms=30000"
done
# the critical job, submitted last, was claimed before the queued normal one
check "critical claimed before a queued normal job" \
  "$(psql_q "SELECT (SELECT finished FROM cuzk_fleet_jobs WHERE request_id = 's-crit') <
                    (SELECT finished FROM cuzk_fleet_jobs WHERE request_id = 's-5')")" t
check "cancelled jobs never committed" \
  "$(psql_q "SELECT count(*) FROM cuzk_fleet_commits c JOIN cuzk_fleet_jobs j ON j.id = c.job_id
             WHERE j.request_id IN ('s-6', '$running')")" 0

# holding NODE: the node holds a lease on some partition now.
holding() { [ "$(running_parts "p.lease_owner = '$1'")" -gt 0 ]; }
# freeze BATCH NODE...: SIGSTOP one of the NODEs at a moment it holds a
# lease (checked while it is stopped, so it cannot commit in between):
# whichever holds one, tried for as long as the batch (pid BATCH) runs, two
# minutes at most.  Which node claims a job is a race the test does not
# fix; what it needs is some node other than A (the batch's entry) caught
# holding.  Sets $frozen.
freeze() {
  local batch=$1 n end=$((SECONDS + 120))
  shift
  frozen=""
  while [ $SECONDS -lt $end ] && kill -0 "$batch" 2>/dev/null; do
    for n in "$@"; do
      holding "$n" || continue
      kill -STOP "${pid[$n]}"
      if holding "$n"; then
        frozen=$n
        echo "stopped node $n while it held a lease"
        return 0
      fi
      kill -CONT "${pid[$n]}"
    done
    sleep 0.1
  done
  bad "none of the nodes $* could be stopped while holding a job before the batch ended"
  return 1
}

# S: a second node like B, so that a node other than A holds leases
# whatever the race between the nodes' claims gives
launch S "${flags_S[@]}"
healthy S

# ---- a node stopped past its lease: its jobs go elsewhere ------------------
batch A 60 stop.out w &
bpid=$!
if freeze $bpid B S; then
  frozen_jobs=$(psql_q "SELECT string_agg(p.job_id::text, ',') FROM cuzk_fleet_parts p JOIN cuzk_fleet_jobs j ON j.id = p.job_id
                   WHERE j.state IN ('queued', 'running') AND p.state = 'running' AND p.lease_owner = '$frozen'")
  taken_over() { [ "$(psql_q "SELECT count(*) FROM cuzk_fleet_parts WHERE job_id IN ($frozen_jobs) AND lease_owner = '$frozen' AND state = 'running'")" = 0 ]; }
  wait_for 60 taken_over || bad "the jobs of the stopped node $frozen ($frozen_jobs) were not taken over"
  kill -CONT "${pid[$frozen]}"
fi
wait $bpid || bad "batch around the stopped node exited $?"
batch_ok stop.out 60
total=$((total + 60))
if [ -n "$frozen" ]; then
  wait_for 10 grep -qE "no longer ours|result dropped" "$tmp/$frozen.log" ||
    bad "$frozen, back after its lease ran out, did not drop its jobs"
fi
exactly_once "SIGSTOP" $total
check "jobs re-claimed after the lease ran out" \
  "$([ "$(psql_q "SELECT count(*) FROM cuzk_fleet_parts WHERE attempts > 1")" -gt 0 ] && echo yes)" yes

# multi_submit TAG: four jobs of four partitions through A, among a batch.
# multi_check TAG: each done with four proofs, the last one verified.
multi_submit() {
  SOCK=${sock[A]}
  for i in 1 2 3 4; do
    expect 202 -- -H 'Content-Type: application/json' -d "$(body "$one,$one,$one,$one" "$1-$i")" /v1/jobs
  done
}
multi_check() {
  SOCK=${sock[A]}
  for i in 1 2 3 4; do
    expect 200 -- "/v1/jobs/$1-$i/result?timeout_ms=60000"
    check "$1-$i done with 4 proofs" "$(jget "$tmp/body" state)/$(jget "$tmp/body" proofs.length)" done/4
    jsave "$tmp/body" proofs.3.proof "$tmp/mc.proof.json"
    jsave "$tmp/body" proofs.3.public "$tmp/mc.public.json"
    "$cuzk" verify "$tmp/a.vk.json" "$tmp/mc.public.json" "$tmp/mc.proof.json" >/dev/null 2>&1 &&
      ok || bad "the last proof of $1-$i does not verify"
  done
  total=$((total + 4))
}

# ---- a node killed: its partitions are proved elsewhere, exactly once ------------
batch A 60 kill.out w &
bpid=$!
multi_submit kill
if freeze $bpid B S; then
  kill -KILL "${pid[$frozen]}"
  { wait "${pid[$frozen]}"; } 2>/dev/null
fi
wait $bpid || bad "batch around the killed node exited $?"
batch_ok kill.out 60
total=$((total + 60))
multi_check kill
exactly_once "SIGKILL" $total
if [ -n "$frozen" ]; then
  check "leases of the dead node $frozen left" "$(running_parts "p.lease_owner = '$frozen'")" 0
  eval 'launch $frozen "${flags_'$frozen'[@]}"'
  healthy $frozen
fi

# ---- PostgreSQL restarts in the middle of a batch ---------------------------
batch A 60 pg.out w &
bpid=$!
multi_submit pgr
# (a restart while some node holds a lease: which node it is does not matter)
any_holding() { [ "$(running_parts true)" -gt 0 ]; }
wait_for 30 any_holding || bad "no node held a job while the batch ran"
pg_restart || bad "PostgreSQL did not restart"
wait $bpid || bad "batch across the database restart exited $?"
batch_ok pg.out 60
total=$((total + 60))
multi_check pgr
exactly_once "PostgreSQL restart" $total
for n in A B S; do
  grep -q "database connection lost" "$tmp/$n.log" || bad "$n did not notice the restart"
  grep -q "database connection back" "$tmp/$n.log" || bad "$n did not reconnect"
done

# ---- status, metrics, and a clean stop ------------------------------------------
SOCK=${sock[A]}
wait_for 10 status_is 'j.fleet.connected && j.fleet.nodes.length >= 4' ||
  bad "A's fleet status after the restart: $(head -c 400 "$tmp/poll.json")"
"$cuzk" status --addr "unix:${sock[A]}" >"$tmp/status.txt" 2>&1 || bad "cuzk status exited $?"
grep -q "^fleet" "$tmp/status.txt" || bad "cuzk status does not print the fleet: $(cat "$tmp/status.txt")"
expect 200 -- /metrics
grep -q '^cuzk_fleet_queue_jobs{state="queued",priority="normal"}' "$tmp/body" || bad "no fleet queue gauge"
grep -q '^cuzk_fleet_connected 1' "$tmp/body" || bad "fleet_connected is not 1"
# the status page lists the fleet's nodes (headless Chromium, as in
# test_daemon_page.sh; CI installs it)
chromium=""
for c in /usr/bin/chromium chromium chromium-browser google-chrome; do
  command -v "$c" >/dev/null 2>&1 && { chromium=$(command -v "$c"); break; }
done
[ -n "$chromium" ] || skip "no chromium for the status page"
port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$tmp/A.log" | head -1)
HOME=$tmp timeout 90 "$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run \
  --disable-dev-shm-usage --user-data-dir="$tmp/profile" --virtual-time-budget=4000 --dump-dom \
  "http://127.0.0.1:$port/#token=fleet-token" >"$tmp/dom.html" 2>"$tmp/chrome.err" ||
  bad "chromium failed: $(tail -3 "$tmp/chrome.err")"
grep -q 'data-errors' "$tmp/dom.html" && bad "page script errors: $(grep -o '<div id="errors">[^<]*' "$tmp/dom.html")"
grep -q 'Fleet: node A' "$tmp/dom.html" && grep -q '>D<' "$tmp/dom.html" && ok ||
  bad "the status page does not show the fleet: $(grep -o "<div id=.fleetbox[^>]*>.\{0,300\}" "$tmp/dom.html")"
for n in A B C D S; do
  stop_daemon "${pid[$n]}"
  check "node $n exit status" "$rc" 0
done
check "leases left after every node stopped" "$(running_parts true)" 0

# ---- a version-1 database, migrated by two nodes starting at once -------------
# Version 1 leased whole jobs.  The database holds a queued job of two
# partitions, a job "running" under the lease of a node that is gone (the
# lease would hold for an hour), and a done job with its result in the job
# row.  After the migration the first two are proved here, the third still
# reads, and a job row refuses a lease (what a version-1 node would take).
psql -q -v ON_ERROR_STOP=1 "$pg_admin" -c "CREATE DATABASE cuzk_v1 OWNER cuzk" >/dev/null ||
  bad "cannot create the version-1 database"
dsn1="host=$pg_dir dbname=cuzk_v1 user=cuzk"
psql -X -q -v ON_ERROR_STOP=1 "$dsn1" -f "$2/tests/fleet/schema_v1.sql" >/dev/null ||
  bad "cannot load the version-1 schema"
ksha=$(sha256sum "$tmp/a.zkey" | cut -c1-64)
whex=$(od -An -v -tx1 "$tmp/a.wtns" | tr -d ' \n')
proof=$(cat "$tmp/dup.proof.json") public=$(cat "$tmp/dup.public.json")
psql -X -q -v ON_ERROR_STOP=1 "$dsn1" >/dev/null <<SQL || bad "cannot fill the version-1 database"
INSERT INTO cuzk_fleet_jobs (request_id, content_sha, key_id, key_path, key_sha, priority,
  n_partitions, inputs, submitted_by) VALUES ('v1-queued', 'x', 'a', '$tmp/a.zkey', '$ksha', 1, 2, false, 'old');
INSERT INTO cuzk_fleet_parts SELECT id, i, '\\x$whex'::bytea FROM cuzk_fleet_jobs, generate_series(0, 1) i
  WHERE request_id = 'v1-queued';
INSERT INTO cuzk_fleet_jobs (request_id, content_sha, key_id, key_path, key_sha, priority,
  n_partitions, inputs, submitted_by, state, lease_owner, lease_epoch, lease_until, attempts)
  VALUES ('v1-running', 'y', 'a', '$tmp/a.zkey', '$ksha', 1, 1, false, 'old', 'running', 'gone', 1,
          now() + interval '1 hour', 1);
INSERT INTO cuzk_fleet_parts SELECT id, 0, '\\x$whex'::bytea FROM cuzk_fleet_jobs WHERE request_id = 'v1-running';
INSERT INTO cuzk_fleet_jobs (request_id, content_sha, key_id, key_path, key_sha, priority,
  n_partitions, inputs, submitted_by, state, lease_owner, lease_epoch, done_by, result_json,
  result_raw, finished)
  VALUES ('v1-done', 'z', 'a', '$tmp/a.zkey', '$ksha', 1, 1, false, 'old', 'done', 'gone', 1, 'gone',
          '[{"proof":$proof,"public":$public}]', '\\x00', now());
SQL
dsn_main=$pg_dsn
pg_dsn=$dsn1
launch F "${flags_B[@]}"
launch G "${flags_B[@]}"
pg_dsn=$dsn_main
healthy F
healthy G
check "version-1 database migrated" \
  "$(psql -X -A -t -q "$dsn1" -c 'SELECT string_agg(version::text, $$,$$ ORDER BY version) FROM cuzk_fleet_schema')" 1,2,3,4
SOCK=${sock[F]}
for id in v1-queued v1-running v1-done; do
  expect 200 -- "/v1/jobs/$id/result?timeout_ms=60000"
  check "$id done after the migration" "$(jget "$tmp/body" state)" done
  jsave "$tmp/body" proofs.0.proof "$tmp/v1.proof.json"
  jsave "$tmp/body" proofs.0.public "$tmp/v1.public.json"
  "$cuzk" verify "$tmp/a.vk.json" "$tmp/v1.public.json" "$tmp/v1.proof.json" >/dev/null 2>&1 &&
    ok || bad "the proof of $id does not verify"
done
expect 200 -- "/v1/jobs/v1-queued/result"
check "v1-queued: two proofs" "$(jget "$tmp/body" proofs.length)" 2
check "v1-running: proved by F or G" \
  "$(psql -X -A -t -q "$dsn1" -c "SELECT done_by IN ('F', 'G') FROM cuzk_fleet_jobs WHERE request_id = 'v1-running'")" t
# refused by the migration's constraint, not by any error psql might meet
out=$(psql -X -q "$dsn1" -c "UPDATE cuzk_fleet_jobs SET lease_owner = 'old' WHERE request_id = 'v1-queued'" 2>&1) &&
  bad "a job row took a lease after the migration" || {
  case "$out" in
    *cuzk_fleet_jobs_lease_per_partition*) ok ;;
    *) bad "a lease on a job row after the migration failed, but not by its constraint: $out" ;;
  esac
}
for n in F G; do
  stop_daemon "${pid[$n]}"
  check "node $n exit status" "$rc" 0
done

# ---- without its database a node still starts and says so, not ready -----------
# (tests/test_fleet_status.sh follows such a node until its server comes up)
launch E --devices=cpu --fleet_db="host=$tmp/nowhere dbname=cuzk user=cuzk"
SOCK=${sock[E]}
wait_for 60 status_is 'j.fleet' || { echo "FAIL: node E does not serve its status"; cat "$tmp/E.log"; exit 1; }
expect 503 fleet_db_unreachable -- /healthz
# a job's status waits for the database (20 s), then says it is out of reach
expect 503 EUNAVAILABLE -- /v1/jobs/nowhere-1
case "$(jget "$tmp/body" error)" in
  "the fleet database is unreachable: "?*) ok ;;
  *) bad "a status without the database: $(head -c 300 "$tmp/body")" ;;
esac
wait_for 10 status_is 'j.fleet && j.fleet.connected === false && j.fleet.db_error.length > 0' ||
  bad "E's status does not say its database is unreachable: $(head -c 400 "$tmp/poll.json")"
stop_daemon "${pid[E]}"
check "node E exit status" "$rc" 0
finish
