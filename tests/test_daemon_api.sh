#!/usr/bin/env bash
# cuzkd's HTTP API (docs/API.md): every endpoint, both submit forms,
# multi-partition jobs, attach by request id, results as JSON (proofs
# verified with `cuzk verify`) and raw bytes (decoded -- EIP-197 for BN254,
# zcash for BLS12-381 -- compared with the JSON proofs and verified);
# cancel and deadline of a job already on the device (result dropped,
# buffers, key pin and witness returned); keys; status, metrics, trace,
# healthz and the page; TCP with a bearer token; and every error path with
# its status code and JSON error body.  The daemon must still be serving
# at the end.
# Usage: test_daemon_api.sh <path to cuzk> <source dir>   (CUZKD=<cuzkd>)
set -u
. "$(dirname "$0")/daemon/lib.sh"

gen_circuit c bn254 6      # the key under test
gen_circuit big bn254 7    # a witness of another length
gen_circuit bls bls12_381 6 # a witness of another curve
W=$tmp/c.wtns
wsize=$(stat -c %s "$W")

# verify_result FILE N WHAT [VK]: FILE holds a done JSON result with N
# proofs, each accepted by cuzk verify (with VK, default the c circuit's).
verify_result() {
  local f=$1 n=$2 what=$3 vk=${4:-$tmp/c.vk.json}
  check "$what: state" "$(jget "$f" state)" done
  check "$what: proofs" "$(jget "$f" proofs.length)" "$n"
  for i in $(seq 0 $((n - 1))); do
    jsave "$f" "proofs.$i.proof" "$tmp/p.json"
    jsave "$f" "proofs.$i.public" "$tmp/pub.json"
    if "$cuzk" verify "$vk" "$tmp/pub.json" "$tmp/p.json" >/dev/null 2>&1; then ok; else
      bad "$what: proof $i does not verify"
    fi
  done
}

start_daemon main --max_body_bytes=64K --connection_timeout_s=2 || exit 1

# ---- daemon endpoints ------------------------------------------------------
expect 200 -- /healthz
check "healthz" "$(jget "$tmp/body" ok)" true
expect 200 -- /
check "page type" "$ctype" "text/html; charset=utf-8"
grep -q "<canvas" "$tmp/body" && ok || bad "page has no canvas"
expect 200 -- /v1/status
check "status devices" "$(jget "$tmp/body" devices.0.kind)" cpu
check "status draining" "$(jget "$tmp/body" draining)" false
# what CUDA said at start: a device count, or the reason there is none
# (a build without CUDA, a CUDA build on a machine without a GPU, or
# CUDA's own error), never a bare zero
cuda=$(jget "$tmp/body" cuda.status)
case "$cuda" in
  OK) ok ;;
  EUNSUPPORTED | ENOTFOUND | EGPU) [ -n "$(jget "$tmp/body" cuda.error)" ] && [ "$(jget "$tmp/body" cuda.error)" != "<missing>" ] &&
    ok || bad "status cuda $cuda without the reason" ;;
  *) bad "status cuda: '$cuda'" ;;
esac

# ---- keys ------------------------------------------------------------------
expect 200 -- -X POST -d "{\"id\":\"k1\",\"path\":\"$tmp/c.zkey\",\"preload\":false}" /v1/keys
check "import without load: tier" "$(jget "$tmp/body" tier)" disk
expect 200 -- /v1/keys
check "keys list" "$(jget "$tmp/body" keys.0.id)" k1
expect 200 -- -X POST /v1/keys/k1/preload
check "preload: tier" "$(jget "$tmp/body" tier)" host
check "preload: curve" "$(jget "$tmp/body" curve)" bn128
nvars=$(jget "$tmp/body" n_vars)
[ "$nvars" -gt 0 ] 2>/dev/null && ok || bad "preload: n_vars $nvars"
expect 200 -- -X POST /v1/keys/k1/evict
check "evict: tier" "$(jget "$tmp/body" tier)" disk
check "evict: curve stays known" "$(jget "$tmp/body" curve)" bn128
expect 200 -- /v1/keys/k1
expect 200 -- -X POST -d "{\"id\":\"k2\",\"path\":\"$tmp/bls.zkey\"}" /v1/keys
check "import with load" "$(jget "$tmp/body" curve)" bls12381
# key errors
expect 404 ENOTFOUND -- /v1/keys/nokey
expect 404 ENOTFOUND -- -X POST /v1/keys/nokey/preload
expect 404 ENOTFOUND -- -X POST /v1/keys/nokey/evict
expect 404 ENOTFOUND -- -X POST -d "{\"id\":\"k3\",\"path\":\"$tmp/none.zkey\"}" /v1/keys
expect 409 EMISMATCH -- -X POST -d "{\"id\":\"k1\",\"path\":\"$tmp/bls.zkey\"}" /v1/keys
expect 400 EFORMAT -- -X POST -d '{"id": "k4", "path": ' /v1/keys
expect 400 EINVAL -- -X POST -d '{"id": "a/b", "path": "/x.zkey"}' /v1/keys
expect 400 EINVAL -- -X POST -d '{"id": "k5", "path": "rel.zkey"}' /v1/keys
expect 405 method_not_allowed -- -X DELETE /v1/keys

# ---- submit by path, attach, status, results ------------------------------
expect 202 -- -X POST -d "{\"key\":\"k1\",\"witness_paths\":[\"$W\",\"$W\"],\"request_id\":\"j1\",\"priority\":\"high\"}" /v1/jobs
check "submit: partitions" "$(jget "$tmp/body" partitions)" 2
check "submit: attached" "$(jget "$tmp/body" attached)" false
check "submit: request id" "$(jget "$tmp/body" request_id)" j1
expect 202 -- -X POST -d "{\"key\":\"k1\",\"witness_paths\":[\"$W\",\"$W\"],\"request_id\":\"j1\"}" /v1/jobs
check "resubmit attaches" "$(jget "$tmp/body" attached)" true
expect 409 EMISMATCH -- -X POST -d "{\"key\":\"k1\",\"witness_paths\":[\"$W\"],\"request_id\":\"j1\"}" /v1/jobs
expect 200 -- "/v1/jobs/j1/result?timeout_ms=60000"
cp "$tmp/body" "$tmp/j1.json"
verify_result "$tmp/j1.json" 2 "json submit"
expect 200 -- "/v1/jobs/j1/result?format=raw"
check "raw type" "$ctype" application/octet-stream
check "raw length (2 x 256 bytes)" "$(stat -c %s "$tmp/body")" 512
# raw_verify RAW JSON CURVE VK N WHAT: the raw proofs decode to the JSON
# result's proofs, and each decoded proof verifies against VK.
raw_verify() {
  local raw=$1 json=$2 curve=$3 vk=$4 n=$5 what=$6
  check "$what: raw decodes to the JSON proofs" "$(raw_check "$raw" "$json" "$curve" "$tmp/raw")" "ok $n"
  for i in $(seq 0 $((n - 1))); do
    jsave "$json" "proofs.$i.public" "$tmp/pub.json"
    out=$("$cuzk" verify "$vk" "$tmp/pub.json" "$tmp/raw.$i.json" 2>&1)
    check "$what: decoded raw proof $i verifies" "$out" OK
  done
}
cp "$tmp/body" "$tmp/j1.raw"
raw_verify "$tmp/j1.raw" "$tmp/j1.json" bn128 "$tmp/c.vk.json" 2 "raw EIP-197"
# the check can fail: one flipped byte of the raw proof is caught (its low
# bit flipped, so it differs whatever the random proof held there)
b=$(od -An -tu1 -j100 -N1 "$tmp/j1.raw" | tr -d ' ')
printf "\\$(printf '%03o' $((b ^ 1)))" | dd of="$tmp/j1.raw" bs=1 seek=100 conv=notrunc 2>/dev/null
case "$(raw_check "$tmp/j1.raw" "$tmp/j1.json" bn128 "$tmp/raw")" in
  "proof 0 pi_b"*) ok ;; *) bad "a changed raw byte was not noticed" ;;
esac
# BLS12-381: zcash compressed points
expect 202 -- -X POST -d "{\"key\":\"k2\",\"witness_paths\":[\"$tmp/bls.wtns\"],\"request_id\":\"b1\"}" /v1/jobs
expect 200 -- "/v1/jobs/b1/result?timeout_ms=60000"
cp "$tmp/body" "$tmp/b1.json"
verify_result "$tmp/b1.json" 1 "bls12-381 job" "$tmp/bls.vk.json"
expect 200 -- "/v1/jobs/b1/result?format=raw"
check "raw length (1 x 192 bytes)" "$(stat -c %s "$tmp/body")" 192
cp "$tmp/body" "$tmp/b1.raw"
raw_verify "$tmp/b1.raw" "$tmp/b1.json" bls12381 "$tmp/bls.vk.json" 1 "raw zcash"
expect 200 -- /v1/jobs/j1
check "status: state" "$(jget "$tmp/body" state)" done
check "status: priority" "$(jget "$tmp/body" priority)" high
check "status: partitions done" "$(jget "$tmp/body" partitions_done)" 2
check "status: partition stage" "$(jget "$tmp/body" partition.1.stage)" done
# by .zkey path, generated request id
expect 202 -- -X POST -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\"]}" /v1/jobs
rid=$(jget "$tmp/body" request_id)
expect 200 -- "/v1/jobs/$rid/result?timeout_ms=60000"
verify_result "$tmp/body" 1 "submit by zkey path"

# ---- uploaded witnesses ----------------------------------------------------
expect 202 -- -X POST -H 'Content-Type: application/octet-stream' --data-binary @"$W" "/v1/jobs?key=k1&request_id=u1&priority=low&deadline_ms=600000"
check "upload: partitions" "$(jget "$tmp/body" partitions)" 1
expect 200 -- "/v1/jobs/u1/result?timeout_ms=60000"
verify_result "$tmp/body" 1 "upload"
cat "$W" "$W" "$W" >"$tmp/three.wtns"
expect 202 -- -X POST -H 'Content-Type: application/octet-stream' --data-binary @"$tmp/three.wtns" "/v1/jobs?key=k1&request_id=u3&sizes=$wsize,$wsize,$wsize"
check "multi-partition upload: partitions" "$(jget "$tmp/body" partitions)" 3
expect 200 -- "/v1/jobs/u3/result?timeout_ms=60000"
cp "$tmp/body" "$tmp/u3.json"
verify_result "$tmp/u3.json" 3 "multi-partition upload"
expect 200 -- "/v1/jobs/u3/result?format=raw&timeout_ms=1000"
check "raw length (3 x 256 bytes)" "$(stat -c %s "$tmp/body")" 768
cp "$tmp/body" "$tmp/u3.raw"
raw_verify "$tmp/u3.raw" "$tmp/u3.json" bn128 "$tmp/c.vk.json" 3 "raw, 3 partitions"

# ---- cancel ----------------------------------------------------------------
expect 200 -- -X DELETE /v1/jobs/u1
check "cancel a done job" "$(jget "$tmp/body" cancelled)" false
check "cancel a done job: state" "$(jget "$tmp/body" state)" done
expect 200 -- -X POST /v1/jobs/u1/cancel
check "cancel (POST form)" "$(jget "$tmp/body" cancelled)" false
expect 404 ENOTFOUND -- -X DELETE /v1/jobs/nosuchjob

# ---- submit errors ---------------------------------------------------------
up=(-X POST -H 'Content-Type: application/octet-stream')
expect 400 EFORMAT -- -X POST -d '{"key": "k1", "witness_paths": [' /v1/jobs
expect 400 EFORMAT -- -X POST -d '[1, 2]' /v1/jobs
expect 400 EINVAL -- -X POST -d "{\"witness_paths\":[\"$W\"]}" /v1/jobs
expect 400 EINVAL -- -X POST -d '{"key":"k1","witness_paths":[]}' /v1/jobs
expect 400 EINVAL -- -X POST -d '{"key":"k1","witness_paths":["rel.wtns"]}' /v1/jobs
expect 400 EINVAL -- -X POST -d "{\"key\":\"k1\",\"witness_paths\":[\"$W\"],\"priority\":\"urgent\"}" /v1/jobs
expect 400 EINVAL -- -X POST -d "{\"key\":\"k1\",\"witness_paths\":[\"$W\"],\"request_id\":\"a b\"}" /v1/jobs
expect 400 EINVAL -- -X POST -d "{\"key\":\"k1\",\"witness_paths\":[\"$W\"],\"deadline_ms\":-1}" /v1/jobs
expect 404 ENOTFOUND -- -X POST -d "{\"key\":\"nokey\",\"witness_paths\":[\"$W\"]}" /v1/jobs
expect 404 ENOTFOUND -- -X POST -d "{\"key\":\"$tmp/none.zkey\",\"witness_paths\":[\"$W\"]}" /v1/jobs
expect 400 EIO -- -X POST -d "{\"key\":\"k1\",\"witness_paths\":[\"$tmp/none.wtns\"]}" /v1/jobs
expect 400 ECURVE -- -X POST -d "{\"key\":\"k1\",\"witness_paths\":[\"$W\",\"$tmp/bls.wtns\"]}" /v1/jobs
expect 400 EMISMATCH -- -X POST -d "{\"key\":\"k1\",\"witness_paths\":[\"$tmp/big.wtns\"]}" /v1/jobs
expect 400 ECURVE -- "${up[@]}" --data-binary @"$tmp/bls.wtns" "/v1/jobs?key=k1"
expect 400 EMISMATCH -- "${up[@]}" --data-binary @"$tmp/big.wtns" "/v1/jobs?key=k1"
head -c $((wsize / 2)) "$W" >"$tmp/cut.wtns"
expect 400 EFORMAT -- "${up[@]}" --data-binary @"$tmp/cut.wtns" "/v1/jobs?key=k1"
head -c 10 "$W" >"$tmp/cut10.wtns"
expect 400 EFORMAT -- "${up[@]}" --data-binary @"$tmp/cut10.wtns" "/v1/jobs?key=k1"
expect 400 EINVAL -- "${up[@]}" --data-binary @"$tmp/three.wtns" "/v1/jobs?key=k1&sizes=$wsize,$wsize"
expect 400 EINVAL -- "${up[@]}" --data-binary @"$tmp/three.wtns" "/v1/jobs?key=k1&sizes=$wsize,x,$wsize"
expect 400 EINVAL -- "${up[@]}" --data-binary @"$W" "/v1/jobs"
expect 400 EINVAL -- "${up[@]}" --data-binary @"$W" "/v1/jobs?key=k1&priority=soon"
# 413: refused from the declared length.  A client that sends at once has
# its body read and dropped, then gets the answer (not a reset connection);
# one that asks "Expect: 100-continue" gets it before sending anything.
head -c $((70 * 1024)) /dev/zero >"$tmp/big.bin"
expect 413 payload_too_large -- "${up[@]}" -H 'Expect:' --data-binary @"$tmp/big.bin" "/v1/jobs?key=k1"
expect 413 payload_too_large -- "${up[@]}" -H 'Expect: 100-continue' --data-binary @"$tmp/big.bin" "/v1/jobs?key=k1"
expect 413 payload_too_large -- -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/big.bin" /v1/jobs
# a chunked body over the limit cannot be answered mid-body: the daemon
# closes the connection without a response (curl: no HTTP status, "empty
# reply" or a send/receive error), logs it, and keeps serving
out=$(curl -s --max-time 20 --unix-socket "$SOCK" -o /dev/null -w '%{http_code}' -H 'Transfer-Encoding: chunked' \
  "${up[@]}" --data-binary @"$tmp/big.bin" "http://cuzkd/v1/jobs?key=k1")
crc=$?
check "chunked over the limit: no response" "$out" 000
case $crc in 52 | 55 | 56) ok ;; *) bad "chunked over the limit: curl exit $crc, expected 52/55/56 (connection closed)" ;; esac
wait_for 10 grep -q "body over 65536 bytes, connection closed" "$tmp/main.log" && ok || bad "no log line for the chunked body"
expect 200 -- /healthz

# ---- results and status errors --------------------------------------------
expect 404 ENOTFOUND -- /v1/jobs/nosuchjob
expect 404 ENOTFOUND -- /v1/jobs/nosuchjob/result
expect 400 EINVAL -- "/v1/jobs/j1/result?format=xml"
expect 400 EINVAL -- "/v1/jobs/j1/result?timeout_ms=soon"

# ---- unknown paths and wrong methods --------------------------------------
expect 404 ENOTFOUND -- /nope
expect 404 ENOTFOUND -- /v1/status/extra
expect 405 method_not_allowed -- -X PUT /v1/status
expect 405 method_not_allowed -- /v1/jobs
expect 405 method_not_allowed -- -X POST /metrics
expect 405 method_not_allowed -- -X GET /v1/jobs/j1/cancel

# ---- slow client: a request that stops half way is cut off ---------------
# connection_timeout_s is 2; the client sends half a request and waits.
node -e '
  const net = require("net");
  const s = net.createConnection(process.argv[1]);
  const t0 = Date.now();
  s.on("connect", () => s.write("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"key\""));
  s.on("data", () => {});
  s.on("error", () => {});
  s.on("close", () => { console.log("closed after " + (Date.now() - t0) + " ms"); process.exit(0); });
  setTimeout(() => { console.log("still open"); process.exit(1); }, 30000);
' "$SOCK" >"$tmp/slow.out" 2>&1 && ok || bad "slow client was not disconnected: $(cat "$tmp/slow.out")"
grep -q "client too slow" "$tmp/main.log" && ok || bad "no log line for the slow client"

# ---- status, metrics, trace -----------------------------------------------
expect 200 -- /v1/status
st=$tmp/status.json
cp "$tmp/body" "$st"
done_jobs=$(jget "$st" jobs.done)
[ "$done_jobs" -ge 4 ] 2>/dev/null && ok || bad "status: jobs.done $done_jobs"
check "status: keys listed (k1 also by its path)" "$(jget "$st" keys.length)" 2
check "status: recent jobs" "$(jget "$st" recent_jobs.recent.0.state)" done
# A job that has ended is not in flight, even before the daemon's sweep
# of ended jobs: the status read straight after each result lists it with
# the finished ones.
for n in 1 2 3 4 5 6; do
  expect 202 -- -X POST -d "{\"key\":\"k1\",\"witness_paths\":[\"$W\"],\"request_id\":\"fl$n\"}" /v1/jobs
  curl -s --unix-socket "$SOCK" -o /dev/null "http://cuzkd/v1/jobs/fl$n/result?timeout_ms=60000"
  curl -s --unix-socket "$SOCK" -o "$tmp/fl.json" http://cuzkd/v1/status
  jtrue "$tmp/fl.json" "j.recent_jobs.active.every(a => a.state == 'queued' || a.state == 'running') &&
                        j.recent_jobs.recent[0].request_id == 'fl$n'" && ok ||
    bad "status after job fl$n ended: $(head -c 600 "$tmp/fl.json")"
done
check "status: in_flight" "$(jget "$st" in_flight.proving)" 0
check "status: memory" "$([ "$(jget "$st" memory.budget)" -gt 0 ] && echo yes)" yes
expect 200 -- /metrics
case "$ctype" in text/plain*) ok ;; *) bad "metrics content type $ctype" ;; esac
for series in 'cuzk_jobs_total{outcome="done"}' cuzk_device_seconds_total cuzk_stage_seconds_bucket \
  cuzk_memory_bytes 'cuzkd_http_requests_total{code="202"}' 'cuzkd_http_requests_total{code="413"}' \
  'cuzkd_http_request_seconds_bucket{le="+Inf"}' cuzkd_http_request_seconds_count cuzkd_clients; do
  grep -qF "$series" "$tmp/body" && ok || bad "metrics: no $series"
done
expect 200 -- /trace
check "trace is JSON with events" "$([ "$(jget "$tmp/body" traceEvents.length)" -gt 0 ] 2>/dev/null && echo yes)" yes
expect 200 -- "/trace?last_s=600"
check "trace last_s" "$(jget "$tmp/body" traceEvents.length | grep -c '^[0-9]')" 1
expect 200 -- "/trace?from_s=0&to_s=100000"
check "trace from/to" "$(jget "$tmp/body" traceEvents.length | grep -c '^[0-9]')" 1
expect 400 EINVAL -- "/trace?last_s=abc"
expect 400 EINVAL -- "/trace?last_s=1&from_s=0"

# ---- limits, waiting, cancelling: a slow simulated device -----------------
# Each partition takes 6 s on the device, so jobs stay in flight through
# the checks below even on a loaded machine (the device is the only
# clock here: the checks need s1 unfinished and s2 still queued); the
# simulated device makes no proofs.  Also serves TCP with a token.
main_sock=$SOCK
start_daemon tcp --devices=sim:compute_us=6000000 --max_jobs_per_client=2 \
  --connection_timeout_s=1 --listen=127.0.0.1:0 --token=s3cret-token || exit 1
sub() { echo "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\"],\"request_id\":\"$1\"}"; }
expect 202 -- -X POST -d "$(sub s1)" /v1/jobs
expect 202 -- -X POST -d "$(sub s2)" /v1/jobs
expect 429 too_many_jobs -- -X POST -d "$(sub s3)" /v1/jobs
expect 429 too_many_jobs -- "${up[@]}" --data-binary @"$W" "/v1/jobs?key=k1"
expect 202 -- -H 'X-Cuzk-Client: other' -X POST -d "$(sub s4)" /v1/jobs
expect 202 -- -X POST -d "$(sub s1)" /v1/jobs
check "attach does not count against the limit" "$(jget "$tmp/body" attached)" true
expect 202 -- "/v1/jobs/s1/result?timeout_ms=100"
case "$(jget "$tmp/body" state)" in queued | running) ok ;; *) bad "result before the end: state $(jget "$tmp/body" state)" ;; esac
expect 200 -- -X DELETE /v1/jobs/s2
check "cancel a queued job" "$(jget "$tmp/body" cancelled)" true
expect 200 -- -X POST /v1/jobs/s2/cancel
check "cancel it again" "$(jget "$tmp/body" cancelled)" false
check "cancel it again: state" "$(jget "$tmp/body" state)" cancelled
expect 200 -- "/v1/jobs/s2/result"
check "cancelled result: state" "$(jget "$tmp/body" state)" cancelled
check "cancelled result: status" "$(jget "$tmp/body" status)" ECANCELLED
# a wait longer than connection_timeout_s (1 s) is not cut off
expect 200 -- "/v1/jobs/s4/result?timeout_ms=30000"
check "simulated result" "$(jget "$tmp/body" simulated)" true
check "simulated result: state" "$(jget "$tmp/body" state)" done
expect 409 EUNSUPPORTED -- "/v1/jobs/s4/result?format=raw"
# s1 and s2 have ended: once the daemon counts no job of this client in
# flight, the client may submit again
wait_for 10 status_is 'j.state == "done"' /v1/jobs/s1 || bad "s1 did not finish"
wait_for 10 status_is 'j.clients == 0' || bad "the client still counts jobs in flight"
expect 202 -- -X POST -d "$(sub s5)" /v1/jobs
expect 200 -- -X DELETE /v1/jobs/s5

# ---- cancel and deadline of a job already on the device ------------------
# The device is busy with it (6 s): the job ends at once, and once the
# device is done with it the result is dropped (no proof counted), its
# buffers are back in the pool, its key unpinned and its witness released.
idle_again='j.jobs.active == 0 && j.in_flight.proving == 0 && j.in_flight.finalizing == 0'
wait_for 20 status_is "$idle_again" || bad "the simulated daemon did not go idle"
expect 200 -- /v1/status
before_done=$(jget "$tmp/body" jobs.done)
before_proofs=$(jget "$tmp/body" jobs.proofs)
for how in cancel deadline; do
  if [ $how = cancel ]; then
    expect 202 -- -X POST -d "$(sub run-$how)" /v1/jobs
    wait_for 20 status_is 'j.state == "running" && j.partition[0].stage == "proving"' /v1/jobs/run-$how ||
      bad "run-$how never reached the device"
    expect 200 -- -X DELETE /v1/jobs/run-$how
    check "cancel a running job" "$(jget "$tmp/body" cancelled)" true
    want="cancelled ECANCELLED"
  else
    # The deadline must pass while the partition is on the device (6 s):
    # on a machine too loaded to get it there in time, again with a longer
    # deadline, under a new request id.
    for dl in 1000 2500 5000; do
      rid=run-$how-$dl
      expect 202 -- -X POST -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\"],\"request_id\":\"$rid\",\"deadline_ms\":$dl}" /v1/jobs
      wait_for 20 status_is 'j.state == "expired"' /v1/jobs/$rid || bad "$rid did not expire"
      jtrue "$tmp/poll.json" 'j.partition[0].device_us > 0' && break
      wait_for 20 status_is "$idle_again" || bad "the simulated daemon did not go idle"
      expect 200 -- /v1/status
      before_done=$(jget "$tmp/body" jobs.done)
      before_proofs=$(jget "$tmp/body" jobs.proofs)
    done
    want="expired ETIMEOUT"
  fi
  [ $how = cancel ] && rid=run-$how
  expect 200 -- "/v1/jobs/$rid/result?timeout_ms=100"
  check "$how of a running job: result" "$(jget "$tmp/body" state) $(jget "$tmp/body" status)" "$want"
  check "$how of a running job: no proofs" "$(jget "$tmp/body" proofs)" "<missing>"
  expect 200 -- /v1/jobs/$rid
  jtrue "$tmp/body" 'j.partition[0].device_us > 0' && ok || bad "$how: the partition never ran on the device"
  wait_for 20 status_is "$idle_again" || bad "$how: the device did not finish the dropped partition"
  expect 200 -- /v1/status
  cp "$tmp/body" "$tmp/after.json"
  check "$how: no job done" "$(jget "$tmp/after.json" jobs.done)" "$before_done"
  check "$how: no proof published" "$(jget "$tmp/after.json" jobs.proofs)" "$before_proofs"
  # in use afterwards: only the scratch that devices and synthesis threads
  # keep between partitions
  jtrue "$tmp/after.json" 'j.memory.buffers == j.memory.buffers_idle + j.memory.scratch' && ok ||
    bad "$how: buffers not returned: $(jget "$tmp/after.json" memory)"
  jtrue "$tmp/after.json" 'typeof j.memory.scratch == "number" && j.memory.scratch <= j.memory.buffers' && ok ||
    bad "$how: memory.scratch missing or larger than the buffers: $(jget "$tmp/after.json" memory)"
  check "$how: witness memory returned" "$(jget "$tmp/after.json" memory.intake)" 0
  jtrue "$tmp/after.json" 'j.keys.every(k => k.in_use == 0)' && ok || bad "$how: a key is still pinned: $(jget "$tmp/after.json" keys)"
  expect 200 -- /v1/jobs/$rid
  check "$how: the job stays ended" "$(jget "$tmp/body" state)" "${want% *}"
done

# ---- TCP with a bearer token ----------------------------------------------
port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/tcp.log" | head -1)
if [ -z "$port" ]; then
  bad "no TCP port in the log"
else
  url=http://127.0.0.1:$port
  c=$(curl -s -o "$tmp/body" -w '%{http_code}' "$url/v1/status")
  check "TCP without token" "$c" 401
  check "TCP 401 body" "$(jget "$tmp/body" code)" unauthorized
  c=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer wrong' "$url/v1/status")
  check "TCP wrong token" "$c" 401
  c=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer s3cret-token-and-more' "$url/healthz")
  check "TCP token with a suffix" "$c" 401
  c=$(curl -s -o "$tmp/body" -w '%{http_code}' -H 'Authorization: Bearer s3cret-token' "$url/v1/status")
  check "TCP right token" "$c" 200
  c=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer wrong' -d '{}' "$url/v1/jobs")
  check "TCP submit without the token" "$c" 401
  c=$(curl -s -o /dev/null -w '%{http_code}' "$url/")
  check "TCP page needs no token" "$c" 200
fi
c=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" http://cuzkd/v1/status)
check "unix socket needs no token" "$c" 200

# ---- the body limit's boundary; a deadline on time -------------------------
# A submit body of exactly max_body_bytes is taken; one byte more is 413
# (Content-Length) or a closed connection (chunked), on the unix socket
# and on TCP.  The body is a JSON submit padded with spaces to its size.
keep_pid=$DPID keep_sock=$SOCK
start_daemon lim --devices=sim:compute_us=300000 --max_body_bytes=64K --listen=127.0.0.1:0 \
  --token=lim-token --remote_paths="$tmp" || exit 1
lim_pid=$DPID
lim_port=""
for _ in $(seq 100); do
  lim_port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/lim.log" | head -1)
  [ -n "$lim_port" ] && break
  sleep 0.1
done
[ -n "$lim_port" ] && ok || bad "body limit: no TCP port in the log"
# padded SIZE ID: $tmp/pad.json, a submit of exactly SIZE bytes
padded() {
  local head="{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\"],\"request_id\":\"$2\""
  { printf '%s' "$head"; head -c $(($1 - ${#head} - 1)) /dev/zero | tr '\0' ' '; printf '}'; } >"$tmp/pad.json"
  [ "$(stat -c %s "$tmp/pad.json")" = "$1" ] || bad "padded body is not $1 bytes"
}
# limit_post WHERE MODE: POST $tmp/pad.json over WHERE (unix, tcp) with
# MODE (length: Content-Length, chunked); prints the HTTP status (000: no
# answer) and the error code of the body
limit_post() {
  local where=(--unix-socket "$SOCK" http://cuzkd/v1/jobs) mode=()
  [ "$1" = tcp ] && where=(-H "Authorization: Bearer lim-token" "http://127.0.0.1:$lim_port/v1/jobs")
  [ "$2" = chunked ] && mode=(-H 'Transfer-Encoding: chunked')
  local c
  c=$(curl -s --max-time 20 -o "$tmp/lim.body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -H 'Expect:' "${mode[@]}" --data-binary @"$tmp/pad.json" "${where[@]}")
  echo "$c $( [ -s "$tmp/lim.body" ] && jget "$tmp/lim.body" code)"
}
limit=65536
for where in unix tcp; do
  for mode in length chunked; do
    padded $limit "lim-$where-$mode"
    out=$(limit_post $where $mode)
    check "body of exactly max_body_bytes ($where, $mode)" "${out%% *}" 202
    padded $((limit + 1)) "lim-$where-$mode-over"
    out=$(limit_post $where $mode)
    if [ $mode = length ]; then
      check "body one byte over max_body_bytes ($where, $mode)" "$out" "413 payload_too_large"
    else
      check "chunked body one byte over max_body_bytes ($where)" "${out%% *}" 000
    fi
  done
done
# A deadline fires on time: a job with deadline_ms=30 (each partition
# takes the simulated device 300 ms) is expired within 500 ms of its
# submit, as curl measures the submit and the wait for its result in one
# process (an upper bound on the job's own submit-to-end time).
dl=$(curl -s --unix-socket "$SOCK" -o /dev/null -w '%{time_total}\n' -X POST \
  -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\"],\"request_id\":\"dl30\",\"deadline_ms\":30}" \
  http://cuzkd/v1/jobs --next -s --unix-socket "$SOCK" -o "$tmp/dl.json" -w '%{time_total}\n' \
  "http://cuzkd/v1/jobs/dl30/result?timeout_ms=20000")
check "30 ms deadline: result" "$(jget "$tmp/dl.json" state) $(jget "$tmp/dl.json" status)" "expired ETIMEOUT"
ms=$(echo "$dl" | awk '{ t += $1 } END { printf "%d", t * 1000 }')
[ -n "$ms" ] && [ "$ms" -lt 500 ] && ok || bad "30 ms deadline: submit to expired result took ${ms:-?} ms"
kill -0 "$lim_pid" 2>/dev/null && ok || bad "the body-limit daemon died"
stop_daemon "$lim_pid"
check "exit status (body-limit daemon)" "$rc" 0
DPID=$keep_pid SOCK=$keep_sock

# ---- still serving ---------------------------------------------------------
kill -0 "$DPID" 2>/dev/null && ok || bad "the simulated daemon died"
tcp_pid=$DPID
SOCK=$main_sock
expect 200 -- /healthz
expect 202 -- -X POST -d "{\"key\":\"k1\",\"witness_paths\":[\"$W\"],\"request_id\":\"last\"}" /v1/jobs
expect 200 -- "/v1/jobs/last/result?timeout_ms=60000"
verify_result "$tmp/body" 1 "after the error paths"
kill -0 "$DPID" 2>/dev/null && ok || bad "a daemon died"
# and both stop cleanly (under sanitizers this also checks for leaks)
stop_daemon "$DPID"
check "exit status" "$rc" 0
stop_daemon "$tcp_pid"
check "exit status (simulated daemon)" "$rc" 0
finish
