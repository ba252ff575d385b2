#!/usr/bin/env bash
# cuzkd proving from circom inputs: a key started with its circuit from the
# configuration, one registered over the API, a circuit named by the job;
# proofs checked by snarkjs; concurrent clients; every bad-input case
# answered with its status and the witness layer's message while the daemon
# keeps serving; `cuzk prove --input ... --circuit ...` through the daemon.
# Usage: test_daemon_inputs.sh <path to cuzk> <source dir>; env CUZKD=<cuzkd>,
# CUZK_WC_FIXTURES=<folder of tests/witness/build.sh>, CUZK_WC_CACHE.
set -u
cuzk=$1
src=$2
# This test needs cuzkd and the circom fixtures: without them it fails (a
# skip would hide that the daemon's inputs path went untested).
if [ -z "${CUZKD:-}" ] || [ ! -x "${CUZKD:-}" ]; then
  echo "FAIL: CUZKD does not name a cuzkd executable (cuzkd was not built)"
  exit 1
fi
fx=${CUZK_WC_FIXTURES:-}
for f in bn128/arrays.zkey bn128/arrays.wasm bn128/arrays.input.json bn128/arrays.vk.json \
  bn128/arrays.public.json bls12381/arrays.zkey bls12381/arrays.wasm bls12381/arrays.vk.json \
  bn128/mimc.zkey bn128/mimc.wasm bn128/mimc.input.json bn128/mimc.vk.json \
  bn128/assert_fail.zkey bn128/assert_fail.wasm bls12381/mimc.zkey bls12381/mimc.wasm \
  bls12381/mimc.input.json bls12381/mimc.vk.json; do
  if [ -z "$fx" ] || [ ! -f "$fx/$f" ]; then
    echo "FAIL: fixture ${fx:-<CUZK_WC_FIXTURES unset>}/$f is missing (tests/witness/build.sh)"
    exit 1
  fi
done
bad_input=$src/tests/witness/circuits/assert_fail.bad.input.json
snarkjs=$src/tests/interop/node_modules/snarkjs/build/cli.cjs
if [ ! -f "$snarkjs" ] || [ ! -f "$bad_input" ]; then
  echo "FAIL: $snarkjs or $bad_input is missing"
  exit 1
fi
. "$src/tests/daemon/lib.sh"
unset CUZK_ADDR CUZK_TOKEN
export XDG_RUNTIME_DIR=$tmp/xdg
mkdir -p "$XDG_RUNTIME_DIR"
# Compiled circuits: the build's cache when the test runs under CTest.
cache=${CUZK_WC_CACHE:-$tmp/wc-cache}

bn=$fx/bn128
bls=$fx/bls12381

# snarkjs_ok VK PUBLIC PROOF: snarkjs accepts the proof.
snarkjs_ok() {
  node "$snarkjs" groth16 verify "$1" "$2" "$3" >"$tmp/snarkjs.out" 2>&1 &&
    grep -q "OK" "$tmp/snarkjs.out"
}

# body KEY INPUT-FILE [EXTRA-JSON-MEMBERS]: a submit body with "input".
body() {
  printf '{"key":"%s",%s"input":' "$1" "${3:+$3,}"
  cat "$2"
  printf '}'
}

# prove_body NAME BODY-FILE VK [PARTITIONS]: submit, await, check every
# partition with snarkjs; proof i in $tmp/NAME.i.{proof,public}.json.
prove_body() {
  local name=$1 file=$2 vk=$3 parts=${4:-1}
  expect 202 -- -X POST -H 'Content-Type: application/json' --data-binary "@$file" /v1/jobs ||
    return 1
  local rid
  rid=$(jget "$tmp/body" request_id)
  expect 200 -- "/v1/jobs/$rid/result?timeout_ms=120000" || return 1
  cp "$tmp/body" "$tmp/$name.result.json"
  check "$name: state" "$(jget "$tmp/$name.result.json" state)" done
  check "$name: partitions" "$(jget "$tmp/$name.result.json" proofs.length)" "$parts"
  local i=0
  while [ $i -lt "$parts" ]; do
    jsave "$tmp/$name.result.json" "proofs.$i.proof" "$tmp/$name.$i.proof.json"
    jsave "$tmp/$name.result.json" "proofs.$i.public" "$tmp/$name.$i.public.json"
    if snarkjs_ok "$vk" "$tmp/$name.$i.public.json" "$tmp/$name.$i.proof.json"; then ok; else
      bad "$name: snarkjs rejects proof $i: $(cat "$tmp/snarkjs.out")"
    fi
    i=$((i + 1))
  done
}

# serving: the daemon still answers and proves after a refused request.
serving() {
  expect 200 -- /healthz
}

# expect_msg WHAT TEXT: the last error body's message contains TEXT.
expect_msg() {
  local msg
  msg=$(jget "$tmp/body" error)
  case "$msg" in
  *"$2"*) ok ;;
  *) bad "$1: message '$msg' does not contain '$2'" ;;
  esac
}

# --- start: a key with its circuit from the configuration -------------------
SOCK=$tmp/d.sock
"$CUZKD" --socket="$SOCK" --devices=cpu --log_level=debug --wc_cache_dir="$cache" \
  --keys="arr=$bn/arrays.zkey:$bn/arrays.wasm,fail=$bn/assert_fail.zkey:$bn/assert_fail.wasm" \
  >"$tmp/d.log" 2>&1 &
DPID=$!
daemon_pids="$daemon_pids $DPID"
# The first start on a machine compiles the circuits: allow for that.
if ! wait_for 600 curl -sf --unix-socket "$SOCK" http://cuzkd/healthz; then
  echo "FAIL: cuzkd did not become ready; its log:"
  cat "$tmp/d.log"
  exit 1
fi

expect 200 -- /v1/keys/arr
check "key arr: circuit" "$(jget "$tmp/body" circuit)" "$(realpath "$bn/arrays.wasm")"

# --- prove from one input (the key's circuit) --------------------------------
body arr "$bn/arrays.input.json" >"$tmp/one.json"
prove_body one "$tmp/one.json" "$bn/arrays.vk.json"
# Same inputs, same witness: the public signals snarkjs computed.
check "one: public signals" "$(node -e 'console.log(JSON.stringify(require(process.argv[1])))' \
  "$tmp/one.0.public.json")" "$(node -e 'console.log(JSON.stringify(require(process.argv[1])))' \
  "$bn/arrays.public.json")"

# --- several partitions ("inputs"), priority and request id --------------------
{
  printf '{"key":"arr","request_id":"inputs-2","priority":"high","inputs":['
  cat "$bn/arrays.input.json"
  printf ','
  cat "$bn/arrays.input.json"
  printf ']}'
} >"$tmp/two.json"
prove_body two "$tmp/two.json" "$bn/arrays.vk.json" 2
check "two: request id" "$(jget "$tmp/two.result.json" request_id)" inputs-2

# --- a circuit named by the job (no circuit registered with the key) ----------
body "$bn/mimc.zkey" "$bn/mimc.input.json" "\"circuit\":\"$bn/mimc.wasm\"" >"$tmp/mimc.json"
prove_body mimc "$tmp/mimc.json" "$bn/mimc.vk.json"

# --- inputs for a key that proves a, b, c images only: the client's 400 -------
# (the key's coefficient section emptied: a compact key of the same circuit)
python3 - "$bn/mimc.zkey" "$tmp/mimc-images.zkey" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
out, pos = [d[:12]], 12
for _ in range(struct.unpack_from("<I", d, 8)[0]):
    t, n = struct.unpack_from("<IQ", d, pos)
    body = d[pos + 12:pos + 12 + n]
    if t == 4:
        body = struct.pack("<I", 0)
    out.append(struct.pack("<IQ", t, len(body)) + body)
    pos += 12 + n
open(sys.argv[2], "wb").write(b"".join(out))
PY
body "$tmp/mimc-images.zkey" "$bn/mimc.input.json" "\"circuit\":\"$bn/mimc.wasm\"" >"$tmp/img.json"
# A submit while the key is still loading is accepted and its job fails;
# once the key's kind is known, the submit is refused before a job is made.
req -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/img.json" /v1/jobs
if [ "$code" = 202 ]; then
  img_job=$(jget "$tmp/body" request_id)
  req "/v1/jobs/$img_job/result?timeout_ms=60000"
  check "inputs for an images-only key, accepted while it loaded: state" \
    "$(jget "$tmp/body" state)" failed
fi
expect 400 EUNSUPPORTED -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/img.json" /v1/jobs
case "$(jget "$tmp/body" error)" in
  *"proves only a, b, c images"*) ;;
  *) bad "inputs for an images-only key: $(head -c 300 "$tmp/body")" ;;
esac

# --- a key registered with its circuit over the API (the other curve) ---------
printf '{"id":"arr381","path":"%s","circuit":"%s"}' "$bls/arrays.zkey" "$bls/arrays.wasm" \
  >"$tmp/import.json"
expect 200 -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/import.json" /v1/keys
check "arr381: circuit" "$(jget "$tmp/body" circuit)" "$(realpath "$bls/arrays.wasm")"
check "arr381: curve" "$(jget "$tmp/body" curve)" bls12381
input381=$bls/arrays.input.json
[ -f "$input381" ] || input381=$bn/arrays.input.json
body arr381 "$input381" >"$tmp/bls.json"
prove_body bls "$tmp/bls.json" "$bls/arrays.vk.json"

# --- concurrent clients ----------------------------------------------------------
for i in 1 2 3 4 5 6; do
  (
    curl -s --max-time 300 --unix-socket "$SOCK" -H "X-Cuzk-Client: c$i" \
      -H 'Content-Type: application/json' --data-binary "@$tmp/one.json" \
      -o "$tmp/c$i.sub" -w '%{http_code}' http://cuzkd/v1/jobs >"$tmp/c$i.code" &&
      rid=$(jget "$tmp/c$i.sub" request_id) &&
      curl -s --max-time 300 --unix-socket "$SOCK" -o "$tmp/c$i.res" \
        "http://cuzkd/v1/jobs/$rid/result?timeout_ms=240000"
  ) &
done
wait_pids=$(jobs -p | tr '\n' ' ')
for p in $wait_pids; do
  case " $daemon_pids " in *" $p "*) continue ;; esac
  wait "$p"
done
for i in 1 2 3 4 5 6; do
  check "client $i: submit status" "$(cat "$tmp/c$i.code")" 202
  check "client $i: state" "$(jget "$tmp/c$i.res" state)" done
  jsave "$tmp/c$i.res" proofs.0.proof "$tmp/c$i.proof.json" 2>/dev/null
  jsave "$tmp/c$i.res" proofs.0.public "$tmp/c$i.public.json" 2>/dev/null
  if snarkjs_ok "$bn/arrays.vk.json" "$tmp/c$i.public.json" "$tmp/c$i.proof.json"; then ok; else
    bad "client $i: snarkjs rejects the proof: $(cat "$tmp/snarkjs.out")"
  fi
done

# --- bad inputs: each refused with its status and message; still serving ----
node -e 'const j = require(process.argv[1]); j.nope = "1";
  require("fs").writeFileSync(process.argv[2], JSON.stringify(j))' \
  "$bn/arrays.input.json" "$tmp/unknown.input.json"
body arr "$tmp/unknown.input.json" >"$tmp/b1.json"
expect 400 ENOTFOUND -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/b1.json" /v1/jobs &&
  expect_msg "unknown signal" "Signal nope not found"
serving

node -e 'const j = require(process.argv[1]); j.v.push("5");
  require("fs").writeFileSync(process.argv[2], JSON.stringify(j))' \
  "$bn/arrays.input.json" "$tmp/many.input.json"
body arr "$tmp/many.input.json" >"$tmp/b2.json"
expect 400 EMISMATCH -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/b2.json" /v1/jobs &&
  expect_msg "too many values" "Too many values for input signal v"
serving

node -e 'const j = require(process.argv[1]); delete j.s;
  require("fs").writeFileSync(process.argv[2], JSON.stringify(j))' \
  "$bn/arrays.input.json" "$tmp/few.input.json"
body arr "$tmp/few.input.json" >"$tmp/b3.json"
expect 400 EMISMATCH -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/b3.json" /v1/jobs &&
  expect_msg "missing signal" "Not all inputs have been set. Only 28 out of 29 (1 value missing"
serving

# Malformed JSON: the body itself, and an input object the witness layer
# cannot read.
printf '{"key":"arr","input":{"s":"3"' >"$tmp/b4.json"
expect 400 EFORMAT -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/b4.json" /v1/jobs &&
  expect_msg "truncated body" "malformed JSON body"
serving
printf '{"key":"arr","input":{"s":"3",}}' >"$tmp/b5.json"
expect 400 EFORMAT -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/b5.json" /v1/jobs &&
  expect_msg "malformed input" "input: input.json:"
serving
printf '{"key":"arr","input":{"s":"1.5"}}' >"$tmp/b6.json"
expect 400 EFORMAT -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/b6.json" /v1/jobs &&
  expect_msg "not an integer" "cannot convert"
serving

# The other curve's circuit for this key.
body arr "$bn/arrays.input.json" "\"circuit\":\"$bls/arrays.wasm\"" >"$tmp/b7.json"
expect 400 ECURVE -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/b7.json" /v1/jobs &&
  expect_msg "other curve" "is for bls12381, key arr is for bn128"
serving

# No circuit anywhere; inputs and witness files together.
# (mimc's key has no circuit registered: its jobs above named theirs)
body "$bn/mimc.zkey" "$bn/mimc.input.json" >"$tmp/b8.json"
expect 400 EINVAL -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/b8.json" /v1/jobs &&
  expect_msg "no circuit" "has no circuit registered"
body arr "$bn/arrays.input.json" '"witness_paths":["/nonexistent.wtns"]' >"$tmp/b9.json"
expect 400 EINVAL -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/b9.json" /v1/jobs
serving

# A failed assert is found only by the witness calculation: the job fails.
body fail "$bad_input" >"$tmp/b10.json"
expect 202 -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/b10.json" /v1/jobs
rid=$(jget "$tmp/body" request_id)
expect 200 -- "/v1/jobs/$rid/result?timeout_ms=120000"
check "assert: state" "$(jget "$tmp/body" state)" failed
check "assert: status" "$(jget "$tmp/body" status)" EVERIFY
expect_msg "assert" "Assert Failed"
serving
# ... and its valid input still proves.
body fail "$bn/assert_fail.input.json" >"$tmp/good_fail.json"
prove_body good_fail "$tmp/good_fail.json" "$bn/assert_fail.vk.json"
# The failed assert was the client's input, not a fault of the key: the
# key's failure count (what an operator watches) stays 0.
expect 200 -- /v1/keys/fail
check "assert: not the key's failure" "$(jget "$tmp/body" failures)" 0

# --- cuzk prove --input ... --circuit ... through the daemon -----------------------
status_done() {
  curl -s --unix-socket "$SOCK" -o "$tmp/st.json" http://cuzkd/v1/status && jget "$tmp/st.json" jobs.done
}
before=$(status_done)
"$cuzk" prove --addr "unix:$SOCK" --input "$bn/mimc.input.json" --circuit "$bn/mimc.wasm" \
  "$bn/mimc.zkey" "$tmp/cli.proof.json" "$tmp/cli.public.json" >"$tmp/cli.out" 2>&1
rc=$?
check "cuzk prove --input: exit status" "$rc" 0
check "cuzk prove --input: proved by the daemon" "$(status_done)" $((before + 1))
if snarkjs_ok "$bn/mimc.vk.json" "$tmp/cli.public.json" "$tmp/cli.proof.json"; then ok; else
  bad "cuzk prove --input: snarkjs rejects the proof: $(cat "$tmp/snarkjs.out") $(cat "$tmp/cli.out")"
fi
# Without -v one line says where the proof was made; fullprove's lines,
# with -v too, are fullprove's.
check "cuzk prove --input: one line" "$(wc -l <"$tmp/cli.out" | tr -d ' ')" 1
grep -q "^cuzk prove: proved by cuzkd at unix:$SOCK (job " "$tmp/cli.out" && ok ||
  bad "cuzk prove --input: no line naming the daemon: $(cat "$tmp/cli.out")"
"$cuzk" fullprove -v --addr "unix:$SOCK" "$bn/mimc.input.json" "$bn/mimc.wasm" "$bn/mimc.zkey" \
  "$tmp/fp.proof.json" "$tmp/fp.public.json" >/dev/null 2>"$tmp/fp.err"
check "cuzk fullprove -v: exit status" "$?" 0
grep -q "^cuzk fullprove: via cuzkd at unix:$SOCK" "$tmp/fp.err" && ! grep -q "^cuzk prove" "$tmp/fp.err" &&
  ok || bad "cuzk fullprove -v: lines not fullprove's: $(cat "$tmp/fp.err")"
# The key's registered circuit, without --circuit; checked by cuzk verify.
"$cuzk" prove --addr "unix:$SOCK" --input "$bn/arrays.input.json" "$bn/arrays.zkey" \
  "$tmp/cli2.proof.json" "$tmp/cli2.public.json" >"$tmp/cli.out" 2>&1
check "cuzk prove --input (key's circuit): exit status" "$?" 0
"$cuzk" verify "$bn/arrays.vk.json" "$tmp/cli2.public.json" "$tmp/cli2.proof.json" >"$tmp/cli.out" 2>&1
check "cuzk verify of the daemon's proof" "$?" 0
# A bad input through the command: non-zero, the daemon's one-line message.
"$cuzk" prove --addr "unix:$SOCK" --input "$tmp/many.input.json" "$bn/arrays.zkey" \
  "$tmp/cli3.proof.json" "$tmp/cli3.public.json" >"$tmp/cli.out" 2>&1
rc=$?
[ $rc -ne 0 ] && ok || bad "cuzk prove with a bad input exited 0"
grep -q "Too many values for input signal v" "$tmp/cli.out" && ok ||
  bad "cuzk prove with a bad input: $(cat "$tmp/cli.out")"
# A key and its circuit registered by `cuzk keys import --circuit`, then
# proved by key id.
"$cuzk" keys import --addr "unix:$SOCK" mimc381 "$bls/mimc.zkey" --circuit "$bls/mimc.wasm" \
  >"$tmp/cli.out" 2>&1
check "cuzk keys import --circuit: exit status" "$?" 0
expect 200 -- /v1/keys/mimc381
check "mimc381: circuit" "$(jget "$tmp/body" circuit)" "$(realpath "$bls/mimc.wasm")"
"$cuzk" prove --addr "unix:$SOCK" --input "$bls/mimc.input.json" mimc381 \
  "$tmp/cli4.proof.json" "$tmp/cli4.public.json" >"$tmp/cli.out" 2>&1
check "cuzk prove --input by key id: exit status" "$?" 0
if snarkjs_ok "$bls/mimc.vk.json" "$tmp/cli4.public.json" "$tmp/cli4.proof.json"; then ok; else
  bad "cuzk prove --input by key id: $(cat "$tmp/cli.out") $(cat "$tmp/snarkjs.out")"
fi
# Several concurrent commands.
for i in 1 2 3; do
  "$cuzk" prove --addr "unix:$SOCK" --input "$bn/arrays.input.json" --circuit "$bn/arrays.wasm" \
    "$bn/arrays.zkey" "$tmp/cc$i.proof.json" "$tmp/cc$i.public.json" >"$tmp/cc$i.out" 2>&1 &
done
for p in $(jobs -p); do
  case " $daemon_pids " in *" $p "*) continue ;; esac
  wait "$p"
done
for i in 1 2 3; do
  if snarkjs_ok "$bn/arrays.vk.json" "$tmp/cc$i.public.json" "$tmp/cc$i.proof.json"; then ok; else
    bad "concurrent cuzk prove $i: $(cat "$tmp/cc$i.out") $(cat "$tmp/snarkjs.out")"
  fi
done

# --- uploaded witnesses: proved from the upload buffer, which is reused -------
# (the same daemon: witnesses and inputs side by side)
uploads_idle() {
  curl -s --unix-socket "$SOCK" -o "$tmp/st.json" http://cuzkd/v1/status &&
    [ "$(jget "$tmp/st.json" memory.uploads.in_use)" = 0 ]
}
maps() {
  curl -s --unix-socket "$SOCK" http://cuzkd/metrics | sed -n 's/^cuzkd_upload_buffers_total{event="map"} //p'
}
W=$bn/arrays.wtns
wsize=$(stat -c %s "$W")
up=(-X POST -H 'Content-Type: application/octet-stream')
wait_for 30 uploads_idle || bad "upload buffers still in use before the uploads"
m0=""
for round in 1 2 3; do
  # Two partitions in one body: both hold the buffer until synthesis.
  cat "$W" "$W" >"$tmp/two.wtns"
  expect 202 -- "${up[@]}" --data-binary @"$tmp/two.wtns" "/v1/jobs?key=arr&sizes=$wsize,$wsize&request_id=up$round"
  expect 200 -- "/v1/jobs/up$round/result?timeout_ms=120000"
  check "upload $round: state" "$(jget "$tmp/body" state)" done
  for i in 0 1; do
    jsave "$tmp/body" "proofs.$i.proof" "$tmp/up.proof.json"
    jsave "$tmp/body" "proofs.$i.public" "$tmp/up.public.json"
    if snarkjs_ok "$bn/arrays.vk.json" "$tmp/up.public.json" "$tmp/up.proof.json"; then ok; else
      bad "upload $round partition $i: snarkjs rejects the proof: $(cat "$tmp/snarkjs.out")"
    fi
  done
  # Every reference to the buffer is dropped once the job is done.
  wait_for 30 uploads_idle || bad "upload $round: its buffer is still in use: $(jget "$tmp/st.json" memory.uploads)"
  # After the first round the same buffer serves every later upload.
  if [ -z "$m0" ]; then
    m0=$(maps)
    [ "${m0:-0}" -ge 1 ] 2>/dev/null && ok || bad "no upload buffer was counted: '$m0'"
  else
    check "upload $round: buffers mapped" "$(maps)" "$m0"
  fi
done

serving
grep -q "circuit .*arrays.wasm loaded" "$tmp/d.log" && ok || bad "the daemon did not log the circuit load"
stop_daemon "$DPID"
check "cuzkd exit status after SIGTERM" "$rc" 0

# --- input.json parsing bounded ------------------------------------------------
# A 57 MiB input of zeros over TCP: over max_input_bytes (16 MiB by
# default) it gets 413 from its Content-Length; under a limit that lets it
# in, it is refused (more values than the circuit has input signals)
# before anything parses it, and the daemon's peak memory stays within a
# small multiple of the body (parsing it took 21 times the body).
python3 -c "
import sys
sys.stdout.write('{\"key\":\"arr\",\"input\":{\"v\":[' + '0,' * (28 << 20) + '0]}}')
" >"$tmp/zeros.json"
zbytes=$(stat -c %s "$tmp/zeros.json")
for limit in 16M 64M; do
  SOCK=$tmp/z.sock
  extra=""
  [ $limit = 64M ] && extra=--max_input_bytes=64M # 16M is the default
  "$CUZKD" --socket="$SOCK" --devices=cpu --wc_cache_dir="$cache" --listen=127.0.0.1:0 \
    --token=tok --keys="arr=$bn/arrays.zkey:$bn/arrays.wasm" $extra >"$tmp/z.log" 2>&1 &
  DPID=$!
  daemon_pids="$daemon_pids $DPID"
  wait_for 600 curl -sf --unix-socket "$SOCK" http://cuzkd/healthz || bad "cuzkd ($limit) did not start"
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/z.log" | head -1)
  code=$(curl -s --max-time 120 -o "$tmp/body" -w '%{http_code}' -H "Authorization: Bearer tok" \
    -H 'Content-Type: application/json' --data-binary @"$tmp/zeros.json" \
    "http://127.0.0.1:$port/v1/jobs")
  hwm=$(awk '/^VmHWM/ {print $2 * 1024}' "/proc/$DPID/status")
  if [ $limit = 16M ]; then
    check "57 MiB input.json, default limit" "$code $(jget "$tmp/body" code)" "413 payload_too_large"
  else
    check "57 MiB input.json under max_input_bytes=64M" "$code" 400
    expect_msg "57 MiB input.json" "far more values than the circuit"
  fi
  [ "$hwm" -lt $((zbytes * 4)) ] && ok ||
    bad "57 MiB input.json ($limit): the daemon's peak memory is $hwm bytes, over 4 times the body ($zbytes)"
  serving
  stop_daemon "$DPID"
  check "cuzkd ($limit) exit status" "$rc" 0
done

# A circuit the daemon compiles for a client's job (its first use there):
# the waiting client says so while it waits (not a terminal: a line).
start_daemon cold --wc_cache_dir="$tmp/cold-wc"
"$cuzk" fullprove --addr "unix:$SOCK" "$bn/mimc.input.json" "$bn/mimc.wasm" "$bn/mimc.zkey" \
  "$tmp/cold.proof.json" "$tmp/cold.public.json" >/dev/null 2>"$tmp/cold.err"
check "fullprove, circuit compiled by the daemon: exit status" "$?" 0
grep -Eq "^cuzk fullprove: cuzkd is loading circuit $(realpath "$bn/mimc.wasm") \(compiled on first use\): [0-9]+ s so far$" \
  "$tmp/cold.err" && ok || bad "fullprove, circuit compiled by the daemon: $(cat "$tmp/cold.err")"
stop_daemon "$DPID"
finish
