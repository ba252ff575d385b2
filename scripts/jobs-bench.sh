#!/usr/bin/env bash
# Throughput of cuzkd's job path, two builds side by side (docs/PERFORMANCE.md,
# "One job layer"): for each build, alternating, ROUNDS rounds of
#   1. `cuzk bench batch -n 300 -j 4 --verify` against `cuzkd --devices=cpu`
#      (a BN254 2^10 development circuit, the same files for every run,
#      witness paths over the unix socket): proofs/s and p99;
#   2. the queue alone: one client, one job at a time, a simulated device of
#      1 us (`--devices=sim:compute_us=1`), 300 jobs: the job latency p50;
# then scripts/fleet-bench.sh once per build (PostgreSQL).  Medians of the
# rounds are printed last.  The machine should be otherwise idle.
# Usage: scripts/jobs-bench.sh <before build dir> <after build dir> [rounds]
set -u
before=${1:?usage: scripts/jobs-bench.sh <before build> <after build> [rounds]}
after=${2:?usage: scripts/jobs-bench.sh <before build> <after build> [rounds]}
rounds=${3:-4}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/cuzk-jb.XXXXXX)
pid=""
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
"$after/cuzk" gen --curve bn254 --log2 10 "$tmp/c.r1cs" "$tmp/c.wtns" >/dev/null 2>&1 &&
  "$after/cuzk" setup --dev "$tmp/c.r1cs" "$tmp/c.zkey" >/dev/null 2>&1 ||
  { echo "jobs-bench: cannot make the circuit"; exit 1; }

daemon() { # daemon BUILD DEVICES
  "$1/cuzkd" --socket="$tmp/d.sock" --devices="$2" --keys=c="$tmp/c.zkey" --log_level=warn \
    >"$tmp/d.log" 2>&1 &
  pid=$!
  for _ in $(seq 200); do
    curl -sf --unix-socket "$tmp/d.sock" http://cuzkd/healthz >/dev/null && return 0
    sleep 0.05
  done
  echo "jobs-bench: $1/cuzkd did not start"; cat "$tmp/d.log"; exit 1
}
stop() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=""; }
# batch N J [--verify]: "proofs/s p99_ms p50_ms", with the after build's
# client for both daemons (only the daemon differs)
batch() {
  local n=$1 j=$2
  shift 2
  "$after/cuzk" bench batch -n "$n" -j "$j" "$@" --key c --witness "$tmp/c.wtns" \
    --addr "unix:$tmp/d.sock" --json "$tmp/b.json" >"$tmp/b.out" 2>&1 ||
    { echo "jobs-bench: bench failed"; cat "$tmp/b.out"; exit 1; }
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["latency_s"]
print("%.2f %.1f %.2f" % (d["proofs_per_s"], l["p99"] * 1e3, l["p50"] * 1e3))' "$tmp/b.json"
}

for r in $(seq "$rounds"); do
  for side in before after; do
    b=${!side}
    daemon "$b" cpu
    batch 20 4 >/dev/null
    echo "cpu $side $(batch 300 4 --verify)" | tee -a "$tmp/rows"
    stop
    daemon "$b" sim:compute_us=1
    batch 30 1 >/dev/null
    echo "queue $side $(batch 300 1)" | tee -a "$tmp/rows"
    stop
  done
done
for side in before after; do
  echo "== fleet-bench, $side (${!side})"
  bash "$here/scripts/fleet-bench.sh" "${!side}" 600
done
echo "== medians of $rounds rounds (cpu: proofs/s, p99 ms; queue: p50 ms a job)"
for kind in cpu queue; do
  for side in before after; do
    awk -v k=$kind -v s=$side '$1 == k && $2 == s {print $3, $4, $5}' "$tmp/rows" |
      sort -n | awk -v k=$kind -v s=$side '{a[NR] = $0} END {m = a[int((NR + 1) / 2)];
        split(m, f, " "); printf "%-6s %-7s proofs/s %s  p99 %s ms  p50 %s ms\n", k, s, f[1], f[2], f[3]}'
  done
done
