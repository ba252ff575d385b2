#!/usr/bin/env bash
# A fleet node's honesty about its database and its figures (docs/DAEMON.md,
# "Running a fleet"), on a private PostgreSQL server (tests/fleet/pg.sh):
#   - a node whose database does not answer yet starts and serves its
#     status, but does not log `ready`: it logs that it waits for the
#     database (libpq's reason, once for a reason that does not change),
#     /v1/status says the database is unreachable and since when, /healthz
#     answers 503, and `cuzk status` says UNREACHABLE since ...; once the
#     server is up the node logs `ready` and status says connected;
#   - what PostgreSQL says besides results (the NOTICE of the schema table
#     that already exists, on a second node's start) goes through the
#     daemon's log in its format, never raw on stderr;
#   - `cuzk bench batch` and `bench stress` through one node of two say
#     which counts are fleet-wide and which are that node's, and the
#     counts match the database.
# Usage: test_fleet_status.sh <cuzk> <source dir>; env CUZKD=<cuzkd>.
set -u
. "$2/tests/daemon/lib.sh"
need_client "$cuzk"
if grep -q "built without libpq" "$CUZKD"; then
  skip "cuzkd built without libpq (no fleet support)"
fi
. "$2/tests/fleet/pg.sh"

gen_circuit a bn254 6
mkdir -p "$pg_dir"
[ "$(id -u)" = 0 ] && chown nobody "$pg_dir"
dsn="host=$pg_dir dbname=cuzk user=cuzk"
launch() { # NAME FLAGS...: a fleet node, not waited for
  local n=$1
  shift
  "$CUZKD" --socket="$tmp/$n.sock" --devices=cpu --log_level=debug --fleet_db="$dsn" --node_name="$n" \
    --remote_paths="$tmp" --keys=a="$tmp/a.zkey" --fleet_lease_s=3 "$@" >"$tmp/$n.log" 2>&1 &
  daemon_pids="$daemon_pids $!"
}
logged() { grep -q "$2" "$tmp/$1.log"; }

# ---- no server yet ---------------------------------------------------------------
launch A
SOCK=$tmp/A.sock
wait_for 30 status_is 'j.fleet' || { echo "FAIL: node A does not serve its status"; cat "$tmp/A.log"; exit 1; }
# the connection attempts of three seconds (several, with backoff)
sleep 3
if logged A 'INFO cuzkd: ready'; then bad "A logged ready without its database"; else ok; fi
n=$(grep -c 'WARN fleet: waiting for the fleet database: .*No such file or directory' "$tmp/A.log")
[ "$n" = 1 ] && ok || bad "A said it waits for the database $n times (want once, with libpq's reason): $(grep fleet "$tmp/A.log")"
status_is 'j.fleet.connected === false && j.fleet.database == "unreachable"
           && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(j.fleet.unreachable_since)
           && j.fleet.unreachable_s >= 2 && /No such file/.test(j.fleet.db_error) && !j.ready' &&
  ok || bad "A's status while unreachable: $(head -c 700 "$tmp/poll.json")"
expect 503 fleet_db_unreachable -- /healthz
"$cuzk" status --addr "unix:$SOCK" >"$tmp/st.out" 2>&1
grep -Eq 'database UNREACHABLE since [0-9-]+T[0-9:]+Z \([0-9]+ s\): .*No such file' "$tmp/st.out" &&
  ok || bad "cuzk status while unreachable: $(grep fleet "$tmp/st.out")"

# ---- the server comes up -----------------------------------------------------------
pg_start
wait_for 30 logged A 'INFO cuzkd: ready' && ok || bad "A did not log ready once the database was up: $(tail -5 "$tmp/A.log")"
wait_for 10 status_is 'j.fleet.connected === true && j.fleet.database == "connected"
                      && j.fleet.unreachable_since === null && j.ready' &&
  ok || bad "A's status once connected: $(head -c 500 "$tmp/poll.json")"
expect 200 -- /healthz
"$cuzk" status --addr "unix:$SOCK" >"$tmp/st.out" 2>&1
grep -q 'database connected' "$tmp/st.out" && ok || bad "cuzk status once connected: $(grep fleet "$tmp/st.out")"
# The order: waiting, joined, ready.
w=$(grep -n 'waiting for the fleet database' "$tmp/A.log" | head -1 | cut -d: -f1)
r=$(grep -n 'INFO cuzkd: ready' "$tmp/A.log" | head -1 | cut -d: -f1)
[ -n "$w" ] && [ -n "$r" ] && [ "$w" -lt "$r" ] && ok || bad "A's log order (waiting line $w, ready line $r)"

# ---- PostgreSQL's notices: through the log --------------------------------------------
# B starts on the schema A made: CREATE TABLE IF NOT EXISTS sends a NOTICE.
launch B
SOCK=$tmp/B.sock
wait_for 30 logged B 'INFO cuzkd: ready' || { echo "FAIL: B did not start"; cat "$tmp/B.log"; exit 1; }
if grep -q '^NOTICE:' "$tmp/A.log" "$tmp/B.log"; then
  bad "libpq's raw NOTICE on stderr: $(grep -h '^NOTICE' "$tmp/A.log" "$tmp/B.log" | head -2)"
else
  ok
fi
grep -Eq '^[0-9-]+T[0-9:.]+Z DEBUG fleet: database NOTICE: relation "cuzk_fleet_schema" already exists, skipping$' \
  "$tmp/B.log" && ok || bad "B's log has no formatted NOTICE line: $(grep -i notice "$tmp/B.log")"

# ---- bench through one node of two: fleet-wide and per-node figures ------------------------
SOCK=$tmp/A.sock
wait_for 10 status_is 'j.fleet.nodes.length == 2' || bad "A does not see two nodes"
"$cuzk" bench batch -n 20 -j 4 --key "$tmp/a.zkey" --witness "$tmp/a.wtns" --addr "unix:$tmp/A.sock" \
  --json "$tmp/batch.json" >"$tmp/batch.out" 2>&1 || bad "bench batch failed: $(tail -5 "$tmp/batch.out")"
by_node() { psql_q "SELECT count(*) FROM cuzk_fleet_parts WHERE state = 'done' AND done_by = '$1'"; }
a=$(by_node A)
b=$(by_node B)
[ $((a + b)) = 20 ] || bad "the database has $a + $b partitions done, want 20"
grep -q '^bench batch: 20 jobs (20 ok, 0 failed) in .* (this run.s jobs, fleet-wide)$' "$tmp/batch.out" &&
  ok || bad "bench batch's first line: $(grep '^bench batch:' "$tmp/batch.out")"
grep -q '^fleet: 20 jobs done, fleet-wide (this run.s, submitted through node A, proved by any node)$' \
  "$tmp/batch.out" && ok || bad "no fleet-wide job count: $(grep '^fleet' "$tmp/batch.out")"
grep -q "^fleet: 20 partitions committed fleet-wide during the run (any client's jobs), by node: A $a, B $b\$" \
  "$tmp/batch.out" && ok || bad "fleet-wide partitions (database: A $a, B $b): $(grep '^fleet' "$tmp/batch.out")"
grep -q '^node A only (the figures below are this node.s, not the fleet.s):$' "$tmp/batch.out" &&
  ok || bad "the per-node part is not labelled: $(cat "$tmp/batch.out")"
grep -q "^node A engine jobs (partitions it proved): done +$a failed +0" "$tmp/batch.out" &&
  ok || bad "A's own jobs (database: $a): $(grep 'engine jobs\|daemon jobs' "$tmp/batch.out")"
if grep -q '^daemon jobs:' "$tmp/batch.out"; then bad "an unlabelled 'daemon jobs' line"; else ok; fi
[ "$(jget "$tmp/batch.json" fleet.partitions_committed)" = 20 ] &&
  [ "$(jget "$tmp/batch.json" fleet.partitions_committed_by_node.B)" = "$b" ] &&
  ok || bad "bench JSON's fleet part: $(jget "$tmp/batch.json" fleet)"

"$cuzk" bench stress --duration 2 -j 2 --key "$tmp/a.zkey" --witness "$tmp/a.wtns" \
  --addr "unix:$tmp/A.sock" >"$tmp/stress.out" 2>&1 || bad "bench stress failed: $(tail -5 "$tmp/stress.out")"
ok_n=$(sed -n 's/^bench stress: [0-9]* jobs (\([0-9]*\) ok.*(this run.s jobs, fleet-wide)$/\1/p' "$tmp/stress.out")
a2=$(by_node A)
b2=$(by_node B)
[ -n "$ok_n" ] && [ $((a2 + b2 - a - b)) = "$ok_n" ] &&
  grep -q "^fleet: $ok_n jobs done, fleet-wide" "$tmp/stress.out" &&
  grep -q "^fleet: $ok_n partitions committed fleet-wide during the run (any client's jobs), by node: A $((a2 - a)), B $((b2 - b))\$" \
    "$tmp/stress.out" && ok || bad "bench stress's fleet figures (database: A +$((a2 - a)), B +$((b2 - b))): $(grep '^fleet\|^bench stress' "$tmp/stress.out")"
finish
