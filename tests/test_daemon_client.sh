#!/usr/bin/env bash
# The cuzk command as a client of a real cuzkd: prove through the daemon on
# a unix socket and over TCP with a token, address resolution (--addr,
# CUZK_ADDR, the default socket, a stale one), --local, errors, the
# status / keys / trace commands, and the client's job options: the same
# --request-id attaches to the done job (same proof, no new job),
# --deadline-ms expires the job and --timeout cancels it, each with its
# message and no output written; a proof from a daemon with A, B or C
# outside the prime-order subgroup is refused for that reason.
# Usage: test_daemon_client.sh <path to cuzk> <source dir>; env CUZKD=<cuzkd>.
set -u
cuzk=$1
src=$2
fx=$src/tests/interop/fixtures
. "$(dirname "$0")/daemon/prelude.sh"
need_cuzkd
need_client "$cuzk"
command -v python3 >/dev/null || skip "python3 is not installed"
tmp=$(mktemp -d)
pids=""
cleanup() {
  for p in $pids; do
    kill "$p" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
# Keep any daemon of the person running the tests out of the way.
unset CUZK_ADDR CUZK_TOKEN
export XDG_RUNTIME_DIR=$tmp/empty
mkdir -p "$XDG_RUNTIME_DIR"

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; [ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err"; }
# run <command...>: stdout in $tmp/out, stderr in $tmp/err, status in $rc.
run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
# A field of a JSON file, by a JavaScript expression over j.
jget() { node -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
                  console.log(eval(process.argv[2]))' "$1" "$2"; }
jobs_done() { "$cuzk" status --json --addr "$1" >"$tmp/st.json" 2>/dev/null && jget "$tmp/st.json" 'j.jobs.done'; }

# start_daemon <log> <address to poll> <cuzkd flags...>: sets $dpid.
start_daemon() {
  local log=$1 addr=$2
  shift 2
  "$CUZKD" "$@" >"$log" 2>&1 &
  dpid=$!
  pids="$pids $dpid"
  for _ in $(seq 150); do
    "$cuzk" status --addr "$addr" >/dev/null 2>&1 && return 0
    kill -0 "$dpid" 2>/dev/null || break
    sleep 0.2
  done
  echo "cuzkd did not start:"
  cat "$log"
  exit 1
}

mkdir -p "$tmp/run"
sock=$tmp/run/cuzkd.sock
start_daemon "$tmp/d.log" "unix:$sock" --socket="$sock" --devices=cpu

# --- a daemon with no work is idle, not starved --------------------------------
sleep 0.3
run "$cuzk" status --json --addr "unix:$sock"
[ $rc -eq 0 ] && [ "$(jget "$tmp/out" 'j.devices[0].starved_s')" = 0 ] &&
  node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).devices[0];
           process.exit(d.idle_s > 0 ? 0 : 1)' "$tmp/out" && ok ||
  bad "idle daemon: starved_s / idle_s: $(head -c 400 "$tmp/out")"
run "$cuzk" status --addr "unix:$sock"
# columns from the right: STARVED s, IDLE s, IDLE-W-WORK s, PARTITIONS, FAILED, WORKERS
grep -Eq "^  NAME +BUSY s \(share\) +STARVED s +IDLE s +IDLE-W-WORK s +PARTITIONS +FAILED +WORKERS$" "$tmp/out" &&
  awk '$1 == "cpu0" { found = 1; if ($(NF - 5) != "0.000" || $(NF - 4) + 0 <= 0) exit 1 }
       END { exit !found }' "$tmp/out" &&
  ok || bad "idle daemon: cuzk status: $(cat "$tmp/out")"

# --- prove through the daemon: the same files as in-process -----------------
for curve in bn128 bls12381; do
  d=$fx/$curve
  before=$(jobs_done "unix:$sock")
  run "$cuzk" prove --addr "unix:$sock" "$d/multiplier.zkey" "$d/multiplier.wtns" "$tmp/p.json" "$tmp/pub.json"
  [ $rc -eq 0 ] && ok || bad "$curve prove --addr unix:"
  run "$cuzk" verify "$d/multiplier.vk.json" "$tmp/pub.json" "$tmp/p.json"
  [ $rc -eq 0 ] && ok || bad "$curve verify the daemon's proof"
  [ "$(jobs_done "unix:$sock")" = $((before + 1)) ] && ok || bad "$curve: the proof did not come from the daemon"
  run "$cuzk" prove --local "$d/multiplier.zkey" "$d/multiplier.wtns" "$tmp/lp.json" "$tmp/lpub.json"
  [ $rc -eq 0 ] && ok || bad "$curve prove --local"
  cmp -s "$tmp/pub.json" "$tmp/lpub.json" && ok || bad "$curve public.json differs from the in-process one"
  # Proofs are randomised; their layout (snarkjs's) must be the same.
  [ "$(sed 's/[0-9]\+/N/g' "$tmp/p.json")" = "$(sed 's/[0-9]\+/N/g' "$tmp/lp.json")" ] && ok ||
    bad "$curve proof.json layout differs from the in-process one"
done
d=$fx/bn128
zkey=$d/multiplier.zkey
wtns=$d/multiplier.wtns
vk=$d/multiplier.vk.json

# -v: the job's stages; --verify on the client; --upload on a unix socket
run "$cuzk" prove -v --verify --addr "$sock" "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 0 ] && grep -q "partition 0 on device" "$tmp/err" && ok || bad "prove -v --verify stage times"
run "$cuzk" prove --upload --priority high --addr "unix:$sock" "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 0 ] && "$cuzk" verify "$vk" "$tmp/pub.json" "$tmp/p.json" >/dev/null && ok || bad "prove --upload"

# CUZK_ADDR, and the default socket when it is live
before=$(jobs_done "unix:$sock")
run env CUZK_ADDR="unix:$sock" "$cuzk" prove "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 0 ] && ok || bad "CUZK_ADDR"
run env XDG_RUNTIME_DIR="$tmp/run" "$cuzk" prove "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 0 ] && ok || bad "default socket"
[ "$(jobs_done "unix:$sock")" = $((before + 2)) ] && ok || bad "CUZK_ADDR / default socket did not use the daemon"

# --local bypasses even a dead configured daemon; --addr beats CUZK_ADDR
run env CUZK_ADDR="unix:$tmp/dead.sock" "$cuzk" prove --local "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 0 ] && ok || bad "--local with a dead CUZK_ADDR"
run env CUZK_ADDR="unix:$tmp/dead.sock" "$cuzk" prove --addr "unix:$sock" "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 0 ] && ok || bad "--addr over CUZK_ADDR"

# explicit dead addresses: exit 1 with a message, no fallback
rm -f "$tmp/p.json"
run "$cuzk" prove --addr "unix:$tmp/dead.sock" "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 1 ] && grep -q "cannot reach cuzkd" "$tmp/err" && [ ! -e "$tmp/p.json" ] && ok || bad "dead --addr: rc $rc"
run env CUZK_ADDR="http://127.0.0.1:1" "$cuzk" prove "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 1 ] && grep -q "cannot reach cuzkd" "$tmp/err" && ok || bad "dead CUZK_ADDR: rc $rc"
run "$cuzk" prove --addr "tcp:nowhere" "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 2 ] && grep -q "expected unix:/path" "$tmp/err" && ok || bad "malformed address: rc $rc"

# a stale default socket: a notice, then in-process
mkdir -p "$tmp/stale"
# (node exits without closing its server: the socket file stays behind)
node -e 'require("net").createServer().listen(process.argv[1], () => process.exit(0))' "$tmp/stale/cuzkd.sock"
[ -S "$tmp/stale/cuzkd.sock" ] && ok || bad "could not make a stale socket"
run env XDG_RUNTIME_DIR="$tmp/stale" "$cuzk" prove "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 0 ] && grep -q "stale" "$tmp/err" && "$cuzk" verify "$vk" "$tmp/pub.json" "$tmp/p.json" >/dev/null &&
  ok || bad "stale default socket: rc $rc"

# the daemon's refusal is printed with its message
run "$cuzk" prove --addr "unix:$sock" "$zkey" "$d/poseidon_chain.wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 1 ] && grep -q "HTTP 400" "$tmp/err" && ok || bad "wrong witness: rc $rc"
run "$cuzk" prove --addr "unix:$sock" no-such-key "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 1 ] && grep -q "HTTP 404" "$tmp/err" && ok || bad "unknown key id: rc $rc"

# --- status, keys, trace -----------------------------------------------------
run "$cuzk" status --addr "unix:$sock"
[ $rc -eq 0 ] && grep -q "^devices:" "$tmp/out" && grep -q "idle-with-work\|IDLE-W-WORK" "$tmp/out" && ok || bad "status"
run "$cuzk" status --json --addr "unix:$sock"
[ $rc -eq 0 ] && [ "$(jget "$tmp/out" 'Array.isArray(j.devices) && j.devices.length > 0')" = true ] && ok ||
  bad "status --json"
# (copies: the daemon registered the fixtures' paths under their own names
# when the proofs above used them)
cp "$zkey" "$tmp/mult.zkey"
cp "$fx/bls12381/multiplier.zkey" "$tmp/mult2.zkey"
run "$cuzk" keys import mult "$tmp/mult.zkey" --addr "unix:$sock"
[ $rc -eq 0 ] && grep -q "mult" "$tmp/out" && ok || bad "keys import"
run "$cuzk" keys import mult2 "$tmp/mult2.zkey" --no-preload --addr "unix:$sock"
[ $rc -eq 0 ] && ok || bad "keys import --no-preload"
run "$cuzk" keys --addr "unix:$sock"
[ $rc -eq 0 ] && grep -q "^  mult " "$tmp/out" && grep -q "^  mult2 " "$tmp/out" && ok || bad "keys list"
run "$cuzk" keys --json --addr "unix:$sock"
[ $rc -eq 0 ] && [ "$(jget "$tmp/out" 'j.keys.filter(k => k.id == "mult2").length')" = 1 ] && ok || bad "keys --json"
run "$cuzk" keys preload mult2 --addr "unix:$sock"
[ $rc -eq 0 ] && ok || bad "keys preload"
run "$cuzk" prove --verify --addr "unix:$sock" mult "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 0 ] && "$cuzk" verify "$vk" "$tmp/pub.json" "$tmp/p.json" >/dev/null && ok || bad "prove with a key id"
run "$cuzk" keys evict mult --addr "unix:$sock"
[ $rc -eq 0 ] && ok || bad "keys evict"
run "$cuzk" keys evict nonesuch --addr "unix:$sock"
[ $rc -eq 1 ] && grep -q "cuzk keys: .*404" "$tmp/err" && ok || bad "evict of an unknown key: rc $rc"
run "$cuzk" trace -o "$tmp/trace.json" --addr "unix:$sock"
[ $rc -eq 0 ] && node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$tmp/trace.json" &&
  ok || bad "trace -o"
run "$cuzk" trace -o "$tmp/trace2.json" --last 60 --addr "unix:$sock"
[ $rc -eq 0 ] && node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$tmp/trace2.json" &&
  ok || bad "trace --last"
for c in status keys trace "bench batch"; do
  run $cuzk $c --help
  [ $rc -eq 0 ] && grep -q "usage:" "$tmp/out" && ok || bad "$c --help"
done
run "$cuzk" status --addr "unix:$tmp/dead.sock"
[ $rc -eq 1 ] && grep -q "cannot reach" "$tmp/err" && ok || bad "status of a dead daemon: rc $rc"
run "$cuzk" status
[ $rc -eq 1 ] && grep -q "no cuzkd configured" "$tmp/err" && ok || bad "status with no daemon: rc $rc"

# a few proofs through bench, checked on the client
run "$cuzk" bench single -n 3 --verify --key "$zkey" --witness "$wtns" --addr "unix:$sock"
[ $rc -eq 0 ] && grep -q "3 ok, 0 failed" "$tmp/out" && ok || bad "bench single"

# --- the client checks the daemon's proof -------------------------------------
# A daemon (tests/daemon/hostile.py fake) that answers every job with the
# result file $tmp/fres.json.  With the fixture's own proof the client takes
# it; with A, B or C moved out of the prime-order subgroup (the point plus a
# torsion point, tests/torsion.py) it must refuse the proof with that
# reason and write nothing, through prove and fullprove alike.
fake_result() { # fake_result PROOF PUBLIC: the daemon's next answer
  python3 -c 'import json, sys
json.dump({"state": "done", "proofs": [{"proof": json.load(open(sys.argv[1])),
           "public": json.load(open(sys.argv[2]))}]}, open(sys.argv[3], "w"))' \
    "$1" "$2" "$tmp/fres.json"
}
fsock=$tmp/fake/cuzkd.sock
mkdir -p "$tmp/fake"
fake_result "$d/multiplier.proof.json" "$d/multiplier.public.json"
python3 "$src/tests/daemon/hostile.py" fake "$fsock" "$tmp/fres.json" 120 &
fpid=$!
pids="$pids $fpid"
for _ in $(seq 50); do [ -S "$fsock" ] && break; sleep 0.1; done
rm -f "$tmp/p.json" "$tmp/pub.json"
run "$cuzk" prove --addr "unix:$fsock" "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 0 ] && "$cuzk" verify "$vk" "$tmp/pub.json" "$tmp/p.json" >/dev/null && ok ||
  bad "the fake daemon's valid proof: rc $rc"
echo '{"a": "3", "b": "11"}' >"$tmp/in.json"
: >"$tmp/c.wasm" # named only: the fake daemon computes nothing
for case in "bn128 pi_b prove" "bls12381 pi_a prove" "bls12381 pi_b prove" \
  "bls12381 pi_c prove" "bn128 pi_b fullprove" "bls12381 pi_a fullprove"; do
  set -- $case
  cdir=$fx/$1
  python3 "$src/tests/torsion.py" "$cdir/multiplier.proof.json" "$tmp/tor.json" "$2" ||
    { bad "$case: no proof outside the subgroup"; continue; }
  fake_result "$tmp/tor.json" "$cdir/multiplier.public.json"
  rm -f "$tmp/p.json" "$tmp/pub.json"
  if [ "$3" = prove ]; then
    run "$cuzk" prove --addr "unix:$fsock" "$cdir/multiplier.zkey" "$cdir/multiplier.wtns" \
      "$tmp/p.json" "$tmp/pub.json"
  else
    run "$cuzk" fullprove --addr "unix:$fsock" "$tmp/in.json" "$tmp/c.wasm" \
      "$cdir/multiplier.zkey" "$tmp/p.json" "$tmp/pub.json"
  fi
  name=$(echo "${2#pi_}" | tr a-c A-C)
  [ $rc -eq 1 ] &&
    grep -q "check of the daemon's proof: .*point $name: .*not in the prime-order subgroup" "$tmp/err" &&
    [ ! -e "$tmp/p.json" ] && [ ! -e "$tmp/pub.json" ] && ok ||
    bad "$case: a proof outside the subgroup from the daemon: rc $rc"
done
kill "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null

# --- --request-id, --deadline-ms, --timeout ------------------------------------
# The same request id again attaches to the done job: no new job, and the
# very same (randomised) proof comes back.
before=$(jobs_done "unix:$sock")
run "$cuzk" prove --request-id rid-1 --addr "unix:$sock" "$zkey" "$wtns" "$tmp/r1.json" "$tmp/r1pub.json"
[ $rc -eq 0 ] && "$cuzk" verify "$vk" "$tmp/r1pub.json" "$tmp/r1.json" >/dev/null && ok || bad "prove --request-id: rc $rc"
curl -s --unix-socket "$sock" -o "$tmp/job.json" http://cuzkd/v1/jobs/rid-1
[ "$(jget "$tmp/job.json" 'j.request_id + " " + j.state')" = "rid-1 done" ] && ok || bad "job rid-1: $(cat "$tmp/job.json")"
run "$cuzk" prove --request-id rid-1 --addr "unix:$sock" "$zkey" "$wtns" "$tmp/r2.json" "$tmp/r2pub.json"
[ $rc -eq 0 ] && cmp -s "$tmp/r1.json" "$tmp/r2.json" && ok || bad "the same --request-id did not return the same proof"
[ "$(jobs_done "unix:$sock")" = $((before + 1)) ] && ok || bad "the same --request-id proved again"

# A slow simulated device (5 s a partition) for the deadline and the
# client's time limit; it makes no proofs, and nothing may be written.
ssock=$tmp/slow.sock
start_daemon "$tmp/slow.log" "unix:$ssock" --socket="$ssock" --devices=sim:compute_us=5000000
rm -f "$tmp/p.json" "$tmp/pub.json"
run "$cuzk" prove --request-id dl-1 --deadline-ms 300 --addr "unix:$ssock" "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 1 ] && grep -q "^cuzk prove: daemon: job dl-1 expired: deadline of 300 ms passed" "$tmp/err" && ok ||
  bad "--deadline-ms: rc $rc"
[ ! -e "$tmp/p.json" ] && [ ! -e "$tmp/pub.json" ] && ok || bad "--deadline-ms: an output was written"
curl -s --unix-socket "$ssock" -o "$tmp/job.json" http://cuzkd/v1/jobs/dl-1
[ "$(jget "$tmp/job.json" 'j.state + " " + j.status')" = "expired ETIMEOUT" ] && ok || bad "job dl-1: $(cat "$tmp/job.json")"
run "$cuzk" prove --request-id to-1 --timeout 1 --addr "unix:$ssock" "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 1 ] && grep -q "^cuzk prove: timed out after 1 s waiting for job to-1 (cancelled)" "$tmp/err" && ok ||
  bad "--timeout: rc $rc"
[ ! -e "$tmp/p.json" ] && [ ! -e "$tmp/pub.json" ] && ok || bad "--timeout: an output was written"
curl -s --unix-socket "$ssock" -o "$tmp/job.json" http://cuzkd/v1/jobs/to-1
[ "$(jget "$tmp/job.json" 'j.state + " " + j.status')" = "cancelled ECANCELLED" ] && ok ||
  bad "--timeout did not cancel job to-1: $(cat "$tmp/job.json")"

# --- TCP with a token ----------------------------------------------------------
# Port 0: the daemon picks a free port and logs it (no port is released by
# one process and reused by another).  TCP clients may name the key's file
# because its folder is in remote_paths.
export CUZK_TOKEN=s3cret
"$CUZKD" --socket= --listen=127.0.0.1:0 --token=s3cret --devices=cpu --remote_paths="$d" \
  >"$tmp/t.log" 2>&1 &
dpid=$!
pids="$pids $dpid"
port=""
for _ in $(seq 150); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/t.log" | head -1)
  [ -n "$port" ] && break
  kill -0 "$dpid" 2>/dev/null || break
  sleep 0.2
done
[ -n "$port" ] || { echo "FAIL: no TCP port in the log"; cat "$tmp/t.log"; exit 1; }
start_polled() { # wait for the daemon started above to answer
  for _ in $(seq 150); do
    "$cuzk" status --addr "$1" >/dev/null 2>&1 && return 0
    kill -0 "$dpid" 2>/dev/null || break
    sleep 0.2
  done
  echo "FAIL: cuzkd did not answer at $1"; cat "$tmp/t.log"; exit 1
}
start_polled "http://127.0.0.1:$port"
run "$cuzk" prove --addr "http://127.0.0.1:$port" "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
[ $rc -eq 0 ] && "$cuzk" verify "$vk" "$tmp/pub.json" "$tmp/p.json" >/dev/null && ok || bad "TCP prove with CUZK_TOKEN"
run env CUZK_TOKEN=wrong "$cuzk" prove --addr "http://127.0.0.1:$port" "$zkey" "$wtns" "$tmp/p.json" "$tmp/pub.json"
# a 401 says how a token is given
[ $rc -eq 1 ] && grep -q "401.*--token T or CUZK_TOKEN" "$tmp/err" && ok || bad "TCP with a wrong token: rc $rc"
run env -u CUZK_TOKEN "$cuzk" status --addr "http://127.0.0.1:$port"
[ $rc -eq 1 ] && grep -q "401.*--token T or CUZK_TOKEN" "$tmp/err" && ok || bad "TCP without a token: rc $rc"
run "$cuzk" status --token s3cret --addr "http://127.0.0.1:$port"
[ $rc -eq 0 ] && ok || bad "TCP status with --token"

echo "test_daemon_client: $pass passed, $fail failed"
[ $fail -eq 0 ]
