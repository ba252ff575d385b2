#!/usr/bin/env bash
# The fleet measurements of docs/PERFORMANCE-HISTORY.md ("Fleet queue"), on a
# private PostgreSQL server (tests/fleet/pg.sh) with simulated devices:
#   1. queue overhead per job: one client, one job at a time, through one
#      node with a near-zero simulated device, with and without fleet_db:
#      the difference of the job latencies is what submit + claim + commit
#      through the database add;
#   2. throughput of 3 fleet nodes against 1, every node one simulated
#      device of 20 ms a proof, jobs submitted to one node.
# Usage: scripts/fleet-bench.sh <build dir> [jobs]   (root or not)
# PostgreSQL runs without fsync (as in the tests); PG_DURABLE=1 keeps its
# durable defaults.
set -u
build=${1:?usage: scripts/fleet-bench.sh <build dir> [jobs]}
n=${2:-600}
cuzk=$build/cuzk
CUZKD=$build/cuzkd
here=$(cd "$(dirname "$0")/.." && pwd)
skip() { echo "fleet-bench: $1"; exit 1; }
tmp=$(mktemp -d /tmp/cuzk-fb.XXXXXX)
pids=""
cleanup() {
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
. "$here/tests/fleet/pg.sh"
pg_start
"$cuzk" gen --curve bn254 --log2 5 "$tmp/a.r1cs" "$tmp/a.wtns" >/dev/null 2>&1 &&
  "$cuzk" setup --dev "$tmp/a.r1cs" "$tmp/a.zkey" >/dev/null 2>&1 || skip "cannot make a circuit"

node() { # node NAME DEVICES [flags]
  local name=$1 dev=$2
  shift 2
  "$CUZKD" --socket="$tmp/$name.sock" --devices="$dev" --keys=a="$tmp/a.zkey" --log_level=warn \
    "$@" >"$tmp/$name.log" 2>&1 &
  pids="$pids $!"
  for _ in $(seq 100); do
    curl -sf --unix-socket "$tmp/$name.sock" http://cuzkd/healthz >/dev/null && return 0
    sleep 0.1
  done
  echo "node $name did not start"; cat "$tmp/$name.log"; exit 1
}
stop_all() {
  for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  pids=""
}
bench() { # bench NAME N J
  "$cuzk" bench batch -n "$2" -j "$3" --key a --witness "$tmp/a.wtns" --addr "unix:$tmp/$1.sock" 2>&1 |
    grep -E "proofs/s|^latency|^submit"
}

echo "== queue overhead: one job at a time, sim device of 1 us"
node mem sim:compute_us=1
echo "-- without a fleet"
bench mem 50 1 >/dev/null
bench mem "$n" 1
stop_all
node f1 sim:compute_us=1 --fleet_db="$pg_dsn" --node_name=f1
echo "-- fleet node"
bench f1 50 1 >/dev/null
bench f1 "$n" 1
stop_all
psql_q "TRUNCATE cuzk_fleet_jobs, cuzk_fleet_parts, cuzk_fleet_commits, cuzk_fleet_nodes" >/dev/null

echo "== throughput: sim devices of 20 ms a proof, $n jobs, 24 clients"
node t1 sim:compute_us=20000 --fleet_db="$pg_dsn" --node_name=t1
bench t1 40 24 >/dev/null
echo "-- 1 node"
bench t1 "$n" 24
node t2 sim:compute_us=20000 --fleet_db="$pg_dsn" --node_name=t2
node t3 sim:compute_us=20000 --fleet_db="$pg_dsn" --node_name=t3
bench t1 40 24 >/dev/null
echo "-- 3 nodes"
bench t1 "$n" 24
psql_q "SELECT done_by, count(*) FROM cuzk_fleet_jobs GROUP BY 1 ORDER BY 1"
stop_all
