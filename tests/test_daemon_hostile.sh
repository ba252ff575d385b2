#!/usr/bin/env bash
# cuzkd against hostile clients, one class of attack after another, over
# the unix socket and loopback TCP.  After every case the daemon's answer is
# checked AND that it still serves: a real proof through it verifies.  A
# small load before and after the cases must verify every proof.
#
#   files       a FIFO, a directory, a device, / and a witness named as key
#               or witness: 400 at once, and none of them enters the key
#               table; the key loader still works afterwards; 256 files that
#               only start like a key fail to load and leave the table
#               empty (max_keys), so a real key still loads
#   socket      a socket planted by another user (nobody) in a folder every
#               user may write to: `cuzk prove` refuses it, sends nothing
#               and writes nothing; a daemon that answers with another
#               witness's proof: `cuzk prove` refuses the proof
#   slow        a hundred connections trickling header bytes from one
#               address: capped per address, closed at their deadline,
#               while an authorised client proves through TCP; 20
#               addresses with 16 such connections each, reconnecting as
#               they are cut, against a daemon of default limits: at least
#               24 of 25 authorised requests are answered
#   uploads     a large upload for an unknown key is refused before its
#               body takes memory; uploads that declare 64 MiB and trickle
#               neither starve a small upload nor keep their buffers past
#               about request_timeout_s
#   request id  the same id with other content: 409; same content attaches;
#               submits of one id racing each other (one job, and each
#               one with other content a 409)
#   edges       deadline_ms overflow, conflicting Content-Length, 401 and
#               413 decided from the headers answered at once, whether the
#               client waits before sending its body or sends it all,
#               Transfer-Encoding other than one "chunked" (400, closed, no
#               request served from the body), JSON
#               errors for 404/405, 401 lines rate-limited
#   TCP paths   files named over TCP: 403 unless under remote_paths
#   control     ESC, CR and LF in key paths and URLs (also without the
#               token): escaped in the daemon's log, in `cuzk keys` and in
#               `cuzk status`
#
# Needs root (CI runs as root) to drop privileges for the planted socket;
# otherwise it fails under CUZK_REQUIRE_ALL=1 and skips without it.
set -u
. "$(dirname "$0")/daemon/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
need_nobody "the planted-socket case"
# a python3 that user nobody can run (a per-user install may not be)
nobody_py=""
for p in $(type -aP python3) /usr/bin/python3; do
  if as_nobody "$p" -c 'pass' 2>/dev/null; then nobody_py=$p; break; fi
done
[ -n "$nobody_py" ] || skip "no python3 that user nobody can run"
PY="python3 $src/tests/daemon/hostile.py"

gen_circuit c bn254 6
gen_circuit o bn254 6 # another circuit: its proof is "another witness's"
W=$tmp/c.wtns
# other content that proves too: the a, b, c image of the same witness
# (a witness with one value changed does not satisfy the circuit, so its
# job fails self-verification, and a failed job's id starts a new job)
"$cuzk" abc --threads 2 "$tmp/c.zkey" "$W" "$tmp/c2.abc" >/dev/null 2>&1 ||
  { echo "cannot make c2.abc"; exit 1; }

# alive WHAT: a real proof through the daemon ($SOCK) verifies.
n_alive=0
alive() {
  n_alive=$((n_alive + 1))
  rm -f "$tmp/alive.json" "$tmp/alive.pub.json"
  if timeout 120 "$cuzk" prove --addr "$SOCK" "$tmp/c.zkey" "$W" "$tmp/alive.json" \
    "$tmp/alive.pub.json" >"$tmp/alive.log" 2>&1 &&
    "$cuzk" verify "$tmp/c.vk.json" "$tmp/alive.pub.json" "$tmp/alive.json" >/dev/null 2>&1; then
    ok
  else
    bad "after $1: no verified proof through the daemon: $(tail -3 "$tmp/alive.log")"
  fi
}

# load WHAT: eight jobs from two clients, every proof verified.
load() {
  timeout 300 "$cuzk" bench batch --addr "$SOCK" --key "$tmp/c.zkey" --witness "$W" -n 8 -j 2 \
    --verify >"$tmp/load.log" 2>&1
  grep -q "verified: 8 valid, 0 invalid" "$tmp/load.log" && ok ||
    bad "load $1: $(grep -E 'verified|failures|bench batch' "$tmp/load.log" | tr '\n' ' ')"
}


start_daemon main --listen=127.0.0.1:0 --token=tok --request_timeout_s=2 \
  --max_connections_per_ip=8 --threads=32 --max_keys=3 || exit 1
PORT=$(tcp_port "$tmp/main.log")
[ -n "$PORT" ] || { echo "no TCP port in the log"; exit 1; }
TCP=127.0.0.1:$PORT
tcurl() { curl -s --max-time 30 -H "Authorization: Bearer tok" "$@"; }

load "before the cases"
alive "start"

# ---- files that are not regular files ----------------------------------------
mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
nkeys() { curl -s --unix-socket "$SOCK" http://cuzkd/v1/keys | node -e \
  'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).keys.length))'; }
keys0=$(nkeys)
for w in "$tmp/fifo" "$tmp/dir" /dev/zero; do
  expect 400 -- -X POST -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$w\"]}" /v1/jobs
  alive "witness $w"
done
for k in "$tmp/fifo" "$tmp/dir" /dev/zero / "$W"; do
  expect 400 -- -X POST -d "{\"key\":\"$k\",\"witness_paths\":[\"$W\"]}" /v1/jobs
  expect 400 -- -X POST -d "{\"id\":\"bad\",\"path\":\"$k\"}" /v1/keys
done
expect 404 -- -X POST -d "{\"key\":\"$tmp/none.zkey\",\"witness_paths\":[\"$W\"]}" /v1/jobs
check "key table after non-keys" "$(nkeys)" "$keys0"
# the key table is bounded: max_keys=3, c.zkey is one of them
for k in 2 3 4; do cp "$tmp/c.zkey" "$tmp/k$k.zkey"; done
expect 202 -- -X POST -d "{\"key\":\"$tmp/k2.zkey\",\"witness_paths\":[\"$W\"]}" /v1/jobs
expect 202 -- -X POST -d "{\"key\":\"$tmp/k3.zkey\",\"witness_paths\":[\"$W\"]}" /v1/jobs
expect 503 EBUSY -- -X POST -d "{\"key\":\"$tmp/k4.zkey\",\"witness_paths\":[\"$W\"]}" /v1/jobs
check "key table at max_keys" "$(nkeys)" 3
alive "keys that are not key files (the key loader still loads)"

# ---- a socket planted by another user --------------------------------------------
pub=$(mktemp -d /tmp/cuzkd-pub.XXXXXX)
chmod 1777 "$pub"
cp "$src/tests/daemon/hostile.py" "$pub/h.py"
chmod 644 "$pub/h.py"
as_nobody "$nobody_py" "$pub/h.py" plant "$pub/cuzkd.sock" 6 >"$tmp/plant.out" 2>&1 &
plant=$!
wait_for 5 test -S "$pub/cuzkd.sock" || bad "the planted socket did not appear"
check "planted socket owner" "$(stat -c %u "$pub/cuzkd.sock")" "$nobody_uid"
rm -f "$tmp/pl.json" "$tmp/pl.pub.json"
"$cuzk" prove --addr "$pub/cuzkd.sock" "$tmp/c.zkey" "$W" "$tmp/pl.json" "$tmp/pl.pub.json" \
  >"$tmp/pl.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "refusing socket" "$tmp/pl.log" && ok ||
  bad "prove through a planted socket: exit $rc: $(cat "$tmp/pl.log")"
[ ! -e "$tmp/pl.json" ] && [ ! -e "$tmp/pl.pub.json" ] && ok || bad "planted socket: files written"
# a link in such a folder, even to a socket that would pass
ln -s "$pub/cuzkd.sock" "$pub/link.sock"
"$cuzk" prove --addr "$pub/link.sock" "$tmp/c.zkey" "$W" "$tmp/pl.json" "$tmp/pl.pub.json" \
  >"$tmp/pl2.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "refusing socket .*symbolic link" "$tmp/pl2.log" && ok ||
  bad "prove through a link in a shared folder: exit $rc: $(cat "$tmp/pl2.log")"
wait "$plant"
check "bytes the planted socket received" "$(cat "$tmp/plant.out")" "connections 0 bytes 0"
# The default path itself (/tmp/cuzkd-<uid>.sock without XDG_RUNTIME_DIR)
# is not planted here: every other client of this user on the machine,
# other tests running at the same time included, would find it.  The
# check is the same for every unix address (cli_conn_open), and the
# folder above is writable by all, as /tmp is.
rm -rf "$pub"
# A daemon that answers with the proof of another witness (a private
# folder: the socket is trusted, the answer is not): a real result whose
# first public signal differs from the witness's.
curl -s --unix-socket "$SOCK" -o /dev/null -X POST \
  -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\"],\"request_id\":\"other\"}" \
  http://cuzkd/v1/jobs
curl -s --unix-socket "$SOCK" -o "$tmp/real.json" "http://cuzkd/v1/jobs/other/result?timeout_ms=60000"
node -e '
  const fs = require("fs"), j = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  const p = j.proofs[0].public;
  p[0] = (BigInt(p[0]) + 1n).toString();
  fs.writeFileSync(process.argv[2], JSON.stringify(j));
' "$tmp/real.json" "$tmp/other.json"
$PY fake "$tmp/fake.sock" "$tmp/other.json" 20 &
fake=$!
wait_for 5 test -S "$tmp/fake.sock"
"$cuzk" prove --addr "$tmp/fake.sock" "$tmp/c.zkey" "$W" "$tmp/fk.json" "$tmp/fk.pub.json" \
  >"$tmp/fk.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "public signals" "$tmp/fk.log" && [ ! -e "$tmp/fk.json" ] && ok ||
  bad "another witness's proof accepted: exit $rc: $(cat "$tmp/fk.log")"
kill "$fake" 2>/dev/null; wait "$fake" 2>/dev/null
alive "planted and fake sockets"

# ---- slow clients ----------------------------------------------------------------
expect 200 -- -X POST -d "{\"id\":\"ck\",\"path\":\"$tmp/c.zkey\"}" /v1/keys
$PY trickle "$TCP" 127.0.0.2 100 8 >"$tmp/trickle.out" &
trickle=$!
sleep 1
# an authorised client from another address proves through TCP meanwhile
# (the key by its id: TCP clients name no files here)
"$cuzk" prove --addr "http://$TCP" --token tok --verify ck "$W" "$tmp/t.json" "$tmp/t.pub.json" \
  >"$tmp/t.log" 2>&1
rc=$?
[ $rc -eq 0 ] && "$cuzk" verify "$tmp/c.vk.json" "$tmp/t.pub.json" "$tmp/t.json" >/dev/null &&
  ok || bad "TCP prove while a hundred connections trickle: exit $rc: $(tail -2 "$tmp/t.log")"
wait "$trickle"
read -r _ acc _ closed <"$tmp/trickle.out"
# every trickling connection was closed: refused beyond the per-address
# limit, or cut at its deadline however steadily it sent
[ "${acc:-0}" -ge 1 ] && [ "$acc" = "$closed" ] && ok ||
  bad "trickling connections still open: $(cat "$tmp/trickle.out")"
alive "slow clients"

# ---- many addresses trickling heads --------------------------------------------
# 20 addresses, 16 connections each (the default per-address limit), with
# no token, trickle request heads and reconnect as soon as they are cut,
# against a daemon of default limits (64 connection threads): authorised
# clients must still be served.  Heads are waited for without a thread
# (front.c); this used to answer none of 25.
main_sock=$SOCK main_pid=$DPID
start_daemon storm --listen=127.0.0.1:0 --token=tok || exit 1
SPORT=$(tcp_port "$tmp/storm.log")
$PY storm "127.0.0.1:$SPORT" tok 20 16 25 >"$tmp/storm.out"
read -r _ served _ _ _ opened <"$tmp/storm.out"
echo "storm: $(cat "$tmp/storm.out")"
[ "${served:-0}" -ge 24 ] && ok || bad "20 addresses trickling heads: $(cat "$tmp/storm.out")"
[ "${opened:-0}" -ge 320 ] && ok || bad "the storm did not open its 320 connections: $(cat "$tmp/storm.out")"
grep -q "no complete request head within its deadline" "$tmp/storm.log" ||
  bad "the storm's connections were not closed at their deadline"
# the page needs no token, and its connection is not kept open
code=$(curl -s -o /dev/null -w '%{http_code}' -D "$tmp/storm.hdr" "http://127.0.0.1:$SPORT/")
check "storm: the page without a token" "$code" 200
grep -qi '^connection: close' "$tmp/storm.hdr" && ok ||
  bad "a TCP answer without the token keeps the connection: $(cat "$tmp/storm.hdr")"
stop_daemon "$DPID"
check "storm daemon exit status" "$rc" 0
SOCK=$main_sock DPID=$main_pid

# ---- uploads for a key that does not exist -----------------------------------------
inuse=$($PY partial "$TCP" tok "/v1/jobs?key=nope" 67108864 1048576)
check "upload memory while a 64 MiB body for an unknown key arrives" "$inuse" 0
out=$(curl -s --max-time 10 -H "Authorization: Bearer tok" -H "Expect: 100-continue" \
  -H "Content-Type: application/octet-stream" -H "Content-Length: 67108864" -X POST \
  -w ' %{http_code}' "http://$TCP/v1/jobs?key=nope" --data-binary @/dev/null 2>/dev/null)
case "$out" in *ENOTFOUND*404) ok ;; *) bad "unknown key with Expect: 100-continue: $out" ;; esac
expect 400 EINVAL -- -X POST -H "Content-Type: application/octet-stream" --data-binary @"$W" \
  "/v1/jobs?key=x&priority=urgent"
alive "uploads for unknown keys"

# ---- request ids ---------------------------------------------------------------
sub() { echo "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$1\"],\"request_id\":\"$2\"}"; }
expect 202 -- -X POST -d "$(sub "$W" rid1)" /v1/jobs
expect 409 request_id_reused -- -X POST -d "$(sub "$tmp/c2.abc" rid1)" /v1/jobs
expect 202 -- -X POST -d "$(sub "$W" rid1)" /v1/jobs
check "same content attaches" "$(jget "$tmp/body" attached)" true
up() { curl -s --unix-socket "$SOCK" -o "$tmp/body" -w '%{http_code}' -X POST \
  -H "Content-Type: application/octet-stream" --data-binary @"$1" \
  "http://cuzkd/v1/jobs?key=$tmp/c.zkey&request_id=$2"; }
check "upload with a new id" "$(up "$W" rid2)" 202
check "upload, same id, other bytes" "$(up "$tmp/c2.abc" rid2)" 409
check "upload, same id, same bytes" "$(up "$W" rid2)" 202
"$cuzk" prove --addr "$SOCK" --request-id rid1 "$tmp/c.zkey" "$tmp/c2.abc" "$tmp/r.json" \
  "$tmp/r.pub.json" >"$tmp/r.log" 2>&1 && bad "cuzk prove with a reused request id succeeded" ||
  { grep -q "409\|other content" "$tmp/r.log" && ok || bad "reused id: $(cat "$tmp/r.log")"; }
# eight submits of one fresh id released together: the same content, then
# two contents (whichever content made the job, the other gets 409)
out=$($PY race "unix:$SOCK" 6 8 "$(sub "$W" @RID@)")
check "racing submits of one id, one content" "$out" ok
out=$($PY race "unix:$SOCK" 12 8 "$(sub "$W" @RID@)" "$(sub "$tmp/c2.abc" @RID@)")
check "racing submits of one id, two contents" "$out" ok
alive "request ids"

# ---- edges -----------------------------------------------------------------------
expect 400 EINVAL -- -X POST -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\"],\"deadline_ms\":18446744073709551}" /v1/jobs
expect 400 EINVAL -- -X POST -H "Content-Type: application/octet-stream" --data-binary @"$W" \
  "/v1/jobs?key=$tmp/c.zkey&deadline_ms=99999999999999999"
printf 'POST /v1/keys HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}' |
  $PY raw "unix:$SOCK" >"$tmp/cl.out"
head -1 "$tmp/cl.out" | grep -q " 400 " && grep -q '"code":"bad_request"' "$tmp/cl.out" && ok ||
  bad "two Content-Length headers: $(head -c 300 "$tmp/cl.out")"
printf 'POST /v1/keys HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n' |
  $PY raw "unix:$SOCK" >"$tmp/te.out"
head -1 "$tmp/te.out" | grep -q " 400 " && ok || bad "Content-Length with chunked: $(head -c 300 "$tmp/te.out")"
# Transfer-Encoding other than a single "chunked" (RFC 9112 6.1), with a
# request hidden in the body: one 400 and the connection closed, over the
# socket, over TCP with the token and without it
check "Transfer-Encoding framing (unix)" "$($PY framing "unix:$SOCK" -)" ok
check "Transfer-Encoding framing (TCP)" "$($PY framing "$TCP" tok)" ok
check "Transfer-Encoding framing (TCP, no token)" "$($PY framing "$TCP" -)" ok
expect 404 -- /nothing/here
check "404 is JSON" "$ctype" application/json
expect 405 -- -X PUT /v1/jobs
check "405 is JSON" "$ctype" application/json
for _ in $(seq 30); do curl -s -o /dev/null "http://$TCP/v1/status"; done
n401=$(grep -c "INFO http: GET /v1/status 401" "$tmp/main.log")
[ "$n401" -ge 1 ] && [ "$n401" -le 3 ] && ok || bad "30 requests without a token logged $n401 lines"
# refused from its headers (401 without the token, 413 over the 1 MiB of a
# key import): answered at once to a client that waits for the answer
# before sending its body, and to one that sends it all first (the rest is
# read and dropped before the connection closes, so no reset eats the
# answer)
for mode in wait send; do
  check "401 before the body ($mode)" "$($PY early "$TCP" - /v1/keys 2000 $mode)" 401
  check "413 before the body ($mode)" "$($PY early "$TCP" tok /v1/keys 2000000 $mode)" 413
  check "413 before an 8 MB body (unix, $mode)" \
    "$($PY early "unix:$SOCK" - /v1/keys 8000000 $mode)" 413
done
alive "edges"

# ---- files named over TCP ----------------------------------------------------------
out=$(tcurl -X POST -d "$(sub "$W" tcp1)" "http://$TCP/v1/jobs")
case "$out" in *forbidden*) ok ;; *) bad "TCP witness path: $out" ;; esac
out=$(tcurl -X POST -d "{\"key\":\"k\",\"witness_paths\":[\"/etc/passwd\"]}" "http://$TCP/v1/jobs")
out2=$(tcurl -X POST -d "{\"key\":\"k\",\"witness_paths\":[\"/no/such/file\"]}" "http://$TCP/v1/jobs")
check "TCP: an existing and an absent file look alike" \
  "$(echo "$out" | sed 's/witness [^:]*:/W:/')" "$(echo "$out2" | sed 's/witness [^:]*:/W:/')"
out=$(tcurl -X POST -d "{\"id\":\"t\",\"path\":\"$tmp/c.zkey\"}" "http://$TCP/v1/keys")
case "$out" in *forbidden*) ok ;; *) bad "TCP key import by path: $out" ;; esac
alive "TCP paths"
stop_daemon "$DPID"
check "exit status of the first daemon" "$rc" 0

# remote_paths: a folder TCP clients may name files in
mkdir -p "$tmp/shared"
cp "$tmp/c.zkey" "$W" "$tmp/shared/"
ln -s "$tmp/c.wtns" "$tmp/shared/out.wtns" # a link that leaves the folder
start_daemon rp --listen=127.0.0.1:0 --token=tok --remote_paths="$tmp/shared" --key_idle_s=1 ||
  exit 1
TCP=127.0.0.1:$(tcp_port "$tmp/rp.log")
out=$(tcurl -X POST -d "{\"key\":\"$tmp/shared/c.zkey\",\"witness_paths\":[\"$tmp/shared/c.wtns\"]}" \
  "http://$TCP/v1/jobs")
case "$out" in *job_id*) ok ;; *) bad "TCP path under remote_paths: $out" ;; esac
out=$(tcurl -X POST -d "{\"key\":\"$tmp/shared/c.zkey\",\"witness_paths\":[\"$tmp/shared/out.wtns\"]}" \
  "http://$TCP/v1/jobs")
case "$out" in *forbidden*) ok ;; *) bad "TCP path through a link out of remote_paths: $out" ;; esac
out=$(tcurl -X POST -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$tmp/shared/c.wtns\"]}" \
  "http://$TCP/v1/jobs")
case "$out" in *forbidden*) ok ;; *) bad "TCP key outside remote_paths: $out" ;; esac
alive "remote_paths"
# keys named by path leave memory once idle for key_idle_s (1 s here)
wait_for 30 status_is 'j.keys.length >= 1 && j.keys.every(k => k.tier == "disk")' /v1/keys &&
  grep -q "evicted: named by path and unused" "$tmp/rp.log" && ok ||
  bad "idle keys named by path stayed resident: $(curl -s --unix-socket "$SOCK" http://cuzkd/v1/keys)"
alive "idle eviction"
load "after the cases"
stop_daemon "$DPID"
check "exit status" "$rc" 0
# ---- files that only start like a key -------------------------------------------
# 256 of them named by path (and a few imported under ids): every load
# fails, and none of them keeps a place in the key table (max_keys=4), so
# a real key still loads afterwards
start_daemon junk --max_keys=4 --listen=127.0.0.1:0 --token=tok || exit 1
mkdir "$tmp/junk"
for i in $(seq 256); do
  { printf 'zkey\001\000\000\000'; head -c 64 /dev/zero; } >"$tmp/junk/j$i.zkey"
done
nbad=0
for i in $(seq 256); do
  req -X POST -d "{\"key\":\"$tmp/junk/j$i.zkey\",\"witness_paths\":[\"$W\"]}" /v1/jobs
  case $code in 4??) ;; *) nbad=$((nbad + 1)); [ $nbad = 1 ] && bad "junk key $i: HTTP $code $(head -c 200 "$tmp/body")" ;; esac
done
for i in $(seq 8); do
  req -X POST -d "{\"id\":\"junk$i\",\"path\":\"$tmp/junk/j$i.zkey\"}" /v1/keys
  case $code in 4??) ;; *) nbad=$((nbad + 1)); [ $nbad = 1 ] && bad "junk import $i: HTTP $code $(head -c 200 "$tmp/body")" ;; esac
done
check "junk keys refused" "$nbad" 0
wait_for 10 status_is 'j.keys.length == 0' /v1/keys && ok ||
  bad "failed keys kept in the key table: $(curl -s --unix-socket "$SOCK" http://cuzkd/v1/keys | head -c 300)"
alive "256 files that only start like a key (a real key still loads)"
expect 200 -- -X POST -d "{\"id\":\"real\",\"path\":\"$tmp/c.zkey\"}" /v1/keys

# ---- control bytes ------------------------------------------------------------------
# ESC, CR and LF in a key's path and in URLs (also from a client without the
# token) reach neither the daemon's log nor `cuzk keys` / `cuzk status`
# raw: they are escaped as \xHH
ESC=$(printf '\033')
cp "$tmp/c.zkey" "$tmp/e${ESC}[31mred.zkey"
cp "$tmp/c.zkey" "$tmp/n"$'\r\n'"FORGED.zkey"
expect 202 -- -X POST -d "{\"key\":\"$tmp/e\\u001b[31mred.zkey\",\"witness_paths\":[\"$W\"]}" /v1/jobs
expect 202 -- -X POST -d "{\"key\":\"$tmp/n\\r\\nFORGED.zkey\",\"witness_paths\":[\"$W\"]}" /v1/jobs
expect 404 -- "/x%1b%5b31m%0d%0aFORGED"
expect 404 -- -X POST -d "{\"key\":\"$tmp/none\\u001b[31m\\r\\nFORGED.zkey\",\"witness_paths\":[\"$W\"]}" /v1/jobs
JTCP=127.0.0.1:$(tcp_port "$tmp/junk.log")
curl -s -o /dev/null "http://$JTCP/v1/jobs/x%1b%5b31m%0d%0aFORGED" # 401, logged
"$cuzk" keys --addr "$SOCK" >"$tmp/keys.out" 2>&1
"$cuzk" status --addr "$SOCK" >"$tmp/status.out" 2>&1
for f in junk.log keys.out status.out; do
  grep -q "$ESC" "$tmp/$f" && bad "$f: a raw ESC byte: $(grep -a "$ESC" "$tmp/$f" | head -2 | od -c | head -3)"
  grep -aq '^FORGED' "$tmp/$f" && bad "$f: a line forged by a CR LF: $(grep -a -B1 '^FORGED' "$tmp/$f" | head -2)"
done
grep -Fq 'e\x1b[31mred.zkey' "$tmp/keys.out" && grep -Fq 'n\x0d\x0aFORGED.zkey' "$tmp/keys.out" &&
  ok || bad "cuzk keys does not show the escaped paths: $(head -c 600 "$tmp/keys.out")"
grep -Fq 'e\x1b[31mred.zkey' "$tmp/status.out" && ok ||
  bad "cuzk status does not show the escaped path: $(tail -c 600 "$tmp/status.out")"
grep -Fq '/x\x1b[31m\x0d\x0aFORGED 401' "$tmp/junk.log" && ok ||
  bad "the 401 for a URL with control bytes is not logged escaped: $(grep -a ' 401 ' "$tmp/junk.log" | head -2)"
stop_daemon "$DPID"
check "exit status of the junk-key daemon" "$rc" 0

# ---- uploads that declare much and send little ----------------------------------
# Two TCP uploads declare 64 MiB each and trickle a byte every 0.5 s, in an
# upload budget that two such buffers would fill to within 32 KiB: a small
# upload still gets in (large bodies leave part of the budget to small
# ones), and the trickling ones are cut off within about request_timeout_s
# (a body must average a MiB a second after that), giving their buffers
# back, while they would go on trickling for 30 s
big=$((64 << 20))
ubudget=$((2 * (big + 4096) + (32 << 10)))
start_daemon up --listen=127.0.0.1:0 --token=tok --request_timeout_s=3 --upload_wait_ms=1000 \
  --upload_budget=$ubudget --keys="k=$tmp/c.zkey" || exit 1
UTCP=127.0.0.1:$(tcp_port "$tmp/up.log")
in_use() { curl -s --max-time 10 --unix-socket "$SOCK" http://cuzkd/metrics |
  sed -n 's/^cuzkd_upload_bytes{state="in_use"} //p'; }
check_in_use_zero() { [ "$(in_use)" = 0 ]; }
in_use_at_least() { [ "$(in_use)" -ge "$1" ] 2>/dev/null; }
$PY stall "$UTCP" tok "/v1/jobs?key=k" $big 30 >"$tmp/stall1.out" &
st1=$!
$PY stall "$UTCP" tok "/v1/jobs?key=k" $big 30 >"$tmp/stall2.out" &
st2=$!
wait_for 10 in_use_at_least $big || bad "the trickling uploads got no buffer: $(in_use)"
code=$(curl -s --max-time 60 -o "$tmp/small.json" -w '%{http_code}' -H "Authorization: Bearer tok" \
  -H 'Content-Type: application/octet-stream' --data-binary @"$W" "http://$UTCP/v1/jobs?key=k")
check "a $(stat -c %s "$W")-byte upload beside two trickling 64 MiB ones" "$code" 202
wait "$st1" "$st2"
for f in stall1 stall2; do
  case $(cat "$tmp/$f.out") in
  "closed after "*) ok ;;
  *) bad "an upload trickling for 30 s was not cut off: $(cat "$tmp/$f.out")" ;;
  esac
done
wait_for 10 check_in_use_zero && ok || bad "upload buffers still in use: $(in_use)"
stop_daemon "$DPID"
check "exit status of the upload daemon" "$rc" 0

echo "$n_alive liveness proofs"
finish
