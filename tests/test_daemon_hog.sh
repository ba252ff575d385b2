#!/usr/bin/env bash
# cuzkd's guarantees with every core busy: a CPU hog (one busy loop per
# core, bounded in time) runs beside the daemon throughout, and
#   - 150 TCP clients at once (15 from each of 10 addresses, within the
#     per-address limit) are all served;
#   - 20 addresses trickling request heads (slowloris, 16 connections each,
#     reconnecting as they are cut) while authorised clients keep asking:
#     at least 24 of 25 answered, then a proof through the daemon verifies
#     (still serving);
#   - a burst of 24 uploaded jobs from 4 client processes: every proof
#     verified;
#   - SIGTERM with jobs still queued stops the daemon within its drain
#     timeout (a second or two for the process to exit after it).
# Usage: test_daemon_hog.sh <path to cuzk> <source dir>   (CUZKD=<cuzkd>)
set -u
. "$(dirname "$0")/daemon/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
PY="python3 $src/tests/daemon/hostile.py"

gen_circuit c bn254 6
W=$tmp/c.wtns

# one busy loop per core, each ending by itself after 15 minutes at most
hogs=""
for _ in $(seq "$(nproc)"); do
  timeout 900 sh -c 'while :; do :; done' &
  hogs="$hogs $!"
done
stop_hogs() { for p in $hogs; do kill "$p" 2>/dev/null; done; }
trap 'stop_hogs; cleanup' EXIT

alive() {
  rm -f "$tmp/alive.json" "$tmp/alive.pub.json"
  if timeout 300 "$cuzk" prove --addr "$SOCK" "$tmp/c.zkey" "$W" "$tmp/alive.json" \
    "$tmp/alive.pub.json" >"$tmp/alive.log" 2>&1 &&
    "$cuzk" verify "$tmp/c.vk.json" "$tmp/alive.pub.json" "$tmp/alive.json" >/dev/null 2>&1; then
    ok
  else
    bad "after $1: no verified proof through the daemon: $(tail -3 "$tmp/alive.log")"
  fi
}

start_daemon hog --listen=127.0.0.1:0 --token=tok --drain_timeout_s=5 || exit 1
TCP=127.0.0.1:$(tcp_port "$tmp/hog.log")
alive "start"

# ---- 150 clients at once ---------------------------------------------------------
out=$($PY burst "$TCP" tok 10 15)
echo "burst: $out"
check "150 TCP clients at once" "$out" "served 150 of 150"
alive "the burst of clients"

# ---- slowloris from 20 addresses --------------------------------------------------
out=$($PY storm "$TCP" tok 20 16 25)
echo "storm: $out"
read -r _ served _ _ _ _ <<<"$out"
[ "${served:-0}" -ge 24 ] && ok || bad "20 addresses trickling heads: $out"
alive "the trickling storm"

# ---- a burst of jobs ----------------------------------------------------------------
timeout 600 "$cuzk" bench batch --addr "$SOCK" --key "$tmp/c.zkey" --witness "$W" -n 24 -j 4 \
  --upload --verify >"$tmp/batch.log" 2>&1
grep -q "verified: 24 valid, 0 invalid" "$tmp/batch.log" && ok ||
  bad "24 jobs under the hog: $(grep -E 'verified|failures|error' "$tmp/batch.log" | tr '\n' ' ')"
alive "the burst of jobs"

# ---- SIGTERM with work queued: stopped within the drain timeout ----------------------
timeout 600 "$cuzk" bench batch --addr "$SOCK" --key "$tmp/c.zkey" --witness "$W" -n 64 -j 4 \
  >/dev/null 2>&1 &
batch=$!
sleep 2
t0=$(date +%s%N)
kill -TERM "$DPID"
for _ in $(seq 1 300); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
took=$((($(date +%s%N) - t0) / 1000000))
echo "SIGTERM to exit: $took ms (drain_timeout_s 5)"
if kill -0 "$DPID" 2>/dev/null; then
  bad "cuzkd still runs 30 s after SIGTERM (drain_timeout_s 5)"
  kill -KILL "$DPID"
elif [ "$took" -gt 8000 ]; then
  bad "cuzkd took $took ms to stop after SIGTERM, drain_timeout_s 5"
else
  ok
fi
wait "$DPID" 2>/dev/null
kill "$batch" 2>/dev/null
wait "$batch" 2>/dev/null
finish
