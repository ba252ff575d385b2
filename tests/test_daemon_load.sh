#!/usr/bin/env bash
# cuzkd under load through its HTTP API: several client processes submit
# hundreds of small jobs of two circuits (bn254 2^6, bls12_381 2^7) at once.
# Every proof must come back and verify, no job may be lost or duplicated
# (unique request ids; the daemon's done counter grows by exactly the
# number submitted), and the daemon's resident memory must not grow across
# the load once warm.  Then a short mixed-priority stress run.
# Usage: test_daemon_load.sh <path to cuzk> <source dir>; env CUZKD=<cuzkd>.
set -u
cuzk=$1
. "$(dirname "$0")/daemon/prelude.sh"
need_cuzkd
need_client "$cuzk"
tmp=$(mktemp -d)
dpid=""
cleanup() {
  if [ -n "$dpid" ]; then
    kill "$dpid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$dpid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$dpid" 2>/dev/null
    wait "$dpid" 2>/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
unset CUZK_ADDR CUZK_TOKEN
export XDG_RUNTIME_DIR=$tmp
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
jget() { node -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
                  console.log(eval(process.argv[2]))' "$1" "$2"; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$dpid/status"; }
jobs_done() { "$cuzk" status --json --addr "$addr" >"$tmp/st.json" && jget "$tmp/st.json" 'j.jobs.done'; }

# two small circuits with INSECURE development keys
"$cuzk" gen --curve bn254 --log2 6 "$tmp/a.r1cs" "$tmp/a.wtns" 2>/dev/null &&
  "$cuzk" setup --dev "$tmp/a.r1cs" "$tmp/a.zkey" 2>/dev/null &&
  "$cuzk" gen --curve bls12_381 --log2 7 "$tmp/b.r1cs" "$tmp/b.wtns" 2>/dev/null &&
  "$cuzk" setup --dev "$tmp/b.r1cs" "$tmp/b.zkey" 2>/dev/null || { echo "FAIL: circuits"; exit 1; }
pairs=(--key "$tmp/a.zkey" --witness "$tmp/a.wtns" --key "$tmp/b.zkey" --witness "$tmp/b.wtns")

sock=$tmp/s.sock
addr=unix:$sock
"$CUZKD" --socket="$sock" --devices=cpu >"$tmp/d.log" 2>&1 &
dpid=$!
for _ in $(seq 150); do
  "$cuzk" status --addr "$addr" >/dev/null 2>&1 && break
  kill -0 "$dpid" 2>/dev/null || break
  sleep 0.2
done
"$cuzk" status --addr "$addr" >/dev/null 2>&1 || { echo "FAIL: cuzkd did not start"; cat "$tmp/d.log"; exit 1; }

# warm-up: keys resident, pools and connection threads grown
for form in "" --upload; do
  "$cuzk" bench batch -n 80 -j 8 --procs 4 $form "${pairs[@]}" --addr "$addr" >"$tmp/warm.out" 2>&1 ||
    { bad "warm-up batch $form"; cat "$tmp/warm.out"; }
done
rss0=$(rss_kib)
done0=$(jobs_done)

n=300
"$cuzk" bench batch -n $n -j 8 --procs 4 --verify "${pairs[@]}" --addr "$addr" --json "$tmp/load.json" \
  >"$tmp/load.out" 2>&1
rc=$?
cat "$tmp/load.out"
[ $rc -eq 0 ] || bad "bench batch exited $rc"
if [ -s "$tmp/load.json" ]; then
  [ "$(jget "$tmp/load.json" j.jobs)" = $n ] || bad "jobs accounted: $(jget "$tmp/load.json" j.jobs), want $n"
  [ "$(jget "$tmp/load.json" j.ok)" = $n ] || bad "verified proofs: $(jget "$tmp/load.json" j.ok), want $n"
  [ "$(jget "$tmp/load.json" j.failed)" = 0 ] || bad "failures: $(jget "$tmp/load.json" 'JSON.stringify(j.failures)')"
  [ "$(jget "$tmp/load.json" j.verified)" = true ] || bad "proofs were not verified"
  [ "$(jget "$tmp/load.json" j.duplicate_job_ids)" = 0 ] || bad "two submissions got one job id"
else
  bad "no --json figures"
fi
# the same with the witnesses uploaded (the form TCP clients use)
nu=200
"$cuzk" bench batch -n $nu -j 8 --procs 4 --upload "${pairs[@]}" --addr "$addr" --json "$tmp/up.json" \
  >"$tmp/up.out" 2>&1 || { bad "bench batch --upload"; cat "$tmp/up.out"; }
[ -s "$tmp/up.json" ] && [ "$(jget "$tmp/up.json" "j.ok == $nu && j.failed == 0")" = true ] ||
  bad "uploads: not every job came back"
done1=$(jobs_done)
[ $((done1 - done0)) -eq $((n + nu)) ] || bad "daemon's done counter grew by $((done1 - done0)), want $((n + nu))"
rss1=$(rss_kib)
echo "daemon RSS: $((rss0 / 1024)) MiB after warm-up, $((rss1 / 1024)) MiB after $((n + nu)) jobs"
# Generous: allocator arenas of new connection threads may still grow; a
# per-job leak of anything witness-sized would show.
# Under AddressSanitizer freed memory sits in its quarantine (256 MiB by
# default) and RSS grows with the traffic, leak or not; there LeakSanitizer
# is the leak check, so the RSS bound applies to plain builds only.
if ldd "$CUZKD" 2>/dev/null | grep -q libasan; then
  echo "RSS bound not checked: cuzkd is built with AddressSanitizer"
else
  [ $((rss1 - rss0)) -le $((32 * 1024)) ] || bad "RSS grew by $(((rss1 - rss0) / 1024)) MiB under load"
fi

# mixed priorities and sizes for a few seconds
"$cuzk" bench stress --duration 5 -j 4 --procs 2 --verify "${pairs[@]}" --addr "$addr" \
  --json "$tmp/stress.json" >"$tmp/stress.out" 2>&1
rc=$?
cat "$tmp/stress.out"
[ $rc -eq 0 ] || bad "bench stress exited $rc"
[ -s "$tmp/stress.json" ] && [ "$(jget "$tmp/stress.json" 'j.ok > 0 && j.failed == 0')" = true ] ||
  bad "stress: no proofs or some failed"
kill -0 "$dpid" 2>/dev/null || bad "cuzkd died"

[ $fail -eq 0 ] && echo "test_daemon_load: passed" || echo "test_daemon_load: $fail failed"
[ $fail -eq 0 ]
