#!/usr/bin/env bash
# cuzkd's start-up and access controls: keys= readiness (/healthz answers
# 503 "starting" while the configured keys load, then 200; a key that does
# not load makes the daemon exit 1), the unix socket's mode 0660, the
# bearer token read from token_file, the max_await_ms cap on a result
# wait, and 503 EBUSY for an upload when the upload budget is full.
# Usage: test_daemon_access.sh <path to cuzk> <source dir>   (CUZKD=<cuzkd>)
set -u
. "$(dirname "$0")/daemon/lib.sh"

gen_circuit c bn254 12
W=$tmp/c.wtns
wsize=$(stat -c %s "$W") # above the smallest upload buffer (64 KiB)

# ---- keys=: starting, then ready ---------------------------------------------
# A 2^15 key loads in about 0.1 s here; eight names for it (hard links are
# distinct paths) keep the daemon starting for the better part of a second,
# and the slower the machine, the longer.
"$cuzk" gen --curve bls12_381 --log2 15 "$tmp/k.r1cs" "$tmp/k.wtns" >/dev/null 2>&1 &&
  "$cuzk" setup --dev "$tmp/k.r1cs" "$tmp/k0.zkey" >/dev/null 2>&1 || { echo "cannot make the 2^15 key"; exit 1; }
keys=k0=$tmp/k0.zkey
for i in 1 2 3 4 5 6 7; do
  ln "$tmp/k0.zkey" "$tmp/k$i.zkey"
  keys="$keys,k$i=$tmp/k$i.zkey"
done
SOCK=$tmp/start.sock
"$CUZKD" --socket="$SOCK" --devices=cpu --keys="$keys" >"$tmp/start.log" 2>&1 &
DPID=$!
daemon_pids="$daemon_pids $DPID"
# every /healthz answer from the first to the first 200, in order
seen=""
for _ in $(seq 3000); do
  c=$(curl -s --max-time 10 --unix-socket "$SOCK" -o "$tmp/h.json" -w '%{http_code}' http://cuzkd/healthz)
  case $c in
    503)
      if [ -z "$seen" ]; then cp "$tmp/h.json" "$tmp/starting.json"; fi
      seen="${seen}503 " ;;
    200) seen="${seen}200"; break ;;
    000) kill -0 "$DPID" 2>/dev/null || break ;;
    *) seen="${seen}$c "; break ;;
  esac
  # (no pause: the answers are what is being watched)
done
case $seen in
  503\ *200) ok ;;
  *) bad "healthz while the keys load: '$seen' (expected 503 ... then 200)" ;;
esac
if [ -f "$tmp/starting.json" ]; then
  check "starting: code" "$(jget "$tmp/starting.json" code)" starting
  check "starting: flag" "$(jget "$tmp/starting.json" starting)" true
  check "starting: ok" "$(jget "$tmp/starting.json" ok)" false
fi
check "ready: ok" "$(jget "$tmp/h.json" ok)" true
expect 200 -- /v1/status
check "status: ready" "$(jget "$tmp/body" ready)" true
check "status: the configured keys" "$(jget "$tmp/body" keys.length)" 8
check "status: loaded" "$(jget "$tmp/body" keys.0.tier)" host
grep -q "key k7 ready" "$tmp/start.log" && ok || bad "no ready line for k7"
# the socket: a unix socket with mode 0660 (owner and group only)
[ -S "$SOCK" ] && ok || bad "$SOCK is not a socket"
check "socket mode" "$(stat -c %a "$SOCK")" 660
stop_daemon "$DPID"
check "exit status" "$rc" 0

# ---- keys=: a key that does not load ---------------------------------------------
"$CUZKD" --socket="$tmp/bad.sock" --devices=cpu --keys="good=$tmp/c.zkey,nokey=$tmp/none.zkey" >"$tmp/bad.log" 2>&1
check "missing key: exit status" "$?" 1
grep -q "cannot load key nokey from $tmp/none.zkey" "$tmp/bad.log" && ok || bad "missing key: $(tail -n 3 "$tmp/bad.log")"
[ ! -e "$tmp/bad.sock" ] && ok || bad "missing key: socket left behind"
echo "not a key" >"$tmp/text.zkey"
"$CUZKD" --socket="$tmp/bad.sock" --devices=cpu --keys="text=$tmp/text.zkey" >"$tmp/bad2.log" 2>&1
check "corrupt key: exit status" "$?" 1
grep -q "cannot load key text" "$tmp/bad2.log" && ok || bad "corrupt key: $(tail -n 3 "$tmp/bad2.log")"

# ---- token_file ----------------------------------------------------------------------
# Only the first line is the token.
printf 'from-the-file\nsecond-line\n' >"$tmp/token"
start_daemon tok --listen=127.0.0.1:0 --token_file="$tmp/token" || exit 1
port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/tok.log" | head -1)
if [ -z "$port" ]; then
  bad "no TCP port in the log"
else
  url=http://127.0.0.1:$port
  c=$(curl -s -o "$tmp/body" -w '%{http_code}' -H 'Authorization: Bearer from-the-file' "$url/v1/status")
  check "token from the file" "$c" 200
  c=$(curl -s -o "$tmp/body" -w '%{http_code}' -H 'Authorization: Bearer second-line' "$url/v1/status")
  check "the file's second line is no token" "$c" 401
  check "401 body" "$(jget "$tmp/body" code)" unauthorized
  c=$(curl -s -o /dev/null -w '%{http_code}' "$url/v1/status")
  check "no token" "$c" 401
  # the process list must be readable (it names the daemon) and not hold the token
  args=$(ps -o args= -p "$DPID") && [ -n "$args" ] && ok || bad "no process list entry for cuzkd"
  case "$args" in *from-the-file*) bad "the token is in the process list" ;; *) ok ;; esac
fi
stop_daemon "$DPID"
check "exit status" "$rc" 0

# ---- max_await_ms caps timeout_ms ----------------------------------------------------
# The job takes 30 s on the simulated device; a result request asking for
# 60 s comes back (202, still running) after max_await_ms, long before the
# job could have finished -- without the cap it would answer 200 "done".
start_daemon await --devices=sim:compute_us=30000000 --max_await_ms=300 || exit 1
expect 202 -- -X POST -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\"],\"request_id\":\"long\"}" /v1/jobs
expect 202 -- "/v1/jobs/long/result?timeout_ms=60000"
case "$(jget "$tmp/body" state)" in queued | running) ok ;; *) bad "capped wait: state $(jget "$tmp/body" state)" ;; esac
expect 200 -- /v1/jobs/long
case "$(jget "$tmp/body" state)" in queued | running) ok ;; *) bad "the job ended: $(jget "$tmp/body" state)" ;; esac
expect 200 -- -X DELETE /v1/jobs/long
check "cancel the long job" "$(jget "$tmp/body" cancelled)" true
stop_daemon "$DPID"

# ---- 503 when the upload budget is full ------------------------------------------------
# A client that sends half of an upload holds its reservation; the upload
# budget has room for one witness, so a second upload finds none (and,
# with upload_wait_ms 0, does not wait): 503 EBUSY.  Once the first
# client is gone the room is back.
need=$(((wsize + 4095) / 4096 * 4096)) # a body's buffer: whole pages
start_daemon budget --devices=cpu --upload_budget=$((need * 3 / 2)) --upload_wait_ms=0 || exit 1
# upload buffers in use (memory.uploads.in_use; older daemons: memory.intake)
in_use='(j.memory.uploads ? j.memory.uploads.in_use : j.memory.intake)'
up=(-X POST -H 'Content-Type: application/octet-stream')
node -e '
  const net = require("net");
  const [sock, size] = process.argv.slice(1);
  const s = net.createConnection(sock);
  s.on("connect", () => s.write("POST /v1/jobs?key=" + encodeURIComponent(process.argv[3]) + " HTTP/1.1\r\nHost: x\r\n" +
    "Content-Type: application/octet-stream\r\nContent-Length: " + size + "\r\n\r\n" + "x".repeat(100)));
  s.on("data", () => {}); s.on("error", () => {});
  setTimeout(() => process.exit(0), 60000);
' "$SOCK" "$wsize" "$tmp/c.zkey" &
holder=$!
daemon_pids="$daemon_pids $holder"
wait_for 20 status_is "$in_use >= $need" || bad "the half upload holds no reservation: $(jget "$tmp/poll.json" memory)"
expect 503 EBUSY -- "${up[@]}" --data-binary @"$W" "/v1/jobs?key=$tmp/c.zkey&request_id=full"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
wait_for 20 status_is "$in_use == 0" || bad "the reservation was not returned: $(jget "$tmp/poll.json" memory)"
expect 202 -- "${up[@]}" --data-binary @"$W" "/v1/jobs?key=$tmp/c.zkey&request_id=fits"
expect 200 -- "/v1/jobs/fits/result?timeout_ms=60000"
check "the upload after the room came back" "$(jget "$tmp/body" state)" done
kill -0 "$DPID" 2>/dev/null && ok || bad "the daemon died"
stop_daemon "$DPID"
check "exit status" "$rc" 0
finish
