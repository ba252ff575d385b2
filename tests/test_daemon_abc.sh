#!/usr/bin/env bash
# cuzkd proving a, b, c images (docs/FILES.md, `cuzk abc`): uploaded
# (alone, and beside a .wtns in one multi-partition upload) and by path,
# every proof accepted by `cuzk verify` with the same public signals as the
# witness's, also through `cuzk prove --addr` (by path and uploaded); a truncated upload, one with a value above r and one of
# another circuit answered 400 with the reader's message before a job is
# made, while the daemon keeps serving.
# Usage: test_daemon_abc.sh <path to cuzk> <source dir>   (CUZKD=<cuzkd>)
set -u
. "$(dirname "$0")/daemon/lib.sh"

gen_circuit c bn254 8
gen_circuit small bn254 6
gen_circuit bls bls12_381 7
for n in c small bls; do
  "$cuzk" abc --threads 2 "$tmp/$n.zkey" "$tmp/$n.wtns" "$tmp/$n.abc" >/dev/null 2>&1 ||
    { echo "cannot make $n.abc"; exit 1; }
done
A=$tmp/c.abc
asize=$(stat -c %s "$A")
wsize=$(stat -c %s "$tmp/c.wtns")

# verify_result FILE N WHAT VK: FILE holds a done JSON result with N proofs,
# each accepted by cuzk verify with VK; proof i's public.json in
# $tmp/pub.i.json.
verify_result() {
  local f=$1 n=$2 what=$3 vk=$4
  check "$what: state" "$(jget "$f" state)" done
  check "$what: proofs" "$(jget "$f" proofs.length)" "$n"
  for i in $(seq 0 $((n - 1))); do
    jsave "$f" "proofs.$i.proof" "$tmp/p.json"
    jsave "$f" "proofs.$i.public" "$tmp/pub.$i.json"
    if "$cuzk" verify "$vk" "$tmp/pub.$i.json" "$tmp/p.json" >/dev/null 2>&1; then ok; else
      bad "$what: proof $i does not verify"
    fi
  done
}

start_daemon main --max_body_bytes=4M || exit 1
up=(-X POST -H 'Content-Type: application/octet-stream')

# ---- the witness, for its public signals -----------------------------------
expect 202 -- "${up[@]}" --data-binary @"$tmp/c.wtns" "/v1/jobs?key=$tmp/c.zkey&request_id=w1"
expect 200 -- "/v1/jobs/w1/result?timeout_ms=60000"
verify_result "$tmp/body" 1 "witness upload" "$tmp/c.vk.json"
cp "$tmp/pub.0.json" "$tmp/wpub.json"

# ---- uploaded images ---------------------------------------------------------
expect 202 -- "${up[@]}" --data-binary @"$A" "/v1/jobs?key=$tmp/c.zkey&request_id=a1"
check "image upload: partitions" "$(jget "$tmp/body" partitions)" 1
expect 200 -- "/v1/jobs/a1/result?timeout_ms=60000"
verify_result "$tmp/body" 1 "image upload" "$tmp/c.vk.json"
cmp -s "$tmp/pub.0.json" "$tmp/wpub.json" && ok || bad "image upload: public signals differ from the witness's"

cat "$A" "$tmp/c.wtns" "$A" >"$tmp/mixed.bin"
expect 202 -- "${up[@]}" --data-binary @"$tmp/mixed.bin" \
  "/v1/jobs?key=$tmp/c.zkey&request_id=a3&sizes=$asize,$wsize,$asize"
check "mixed upload: partitions" "$(jget "$tmp/body" partitions)" 3
expect 200 -- "/v1/jobs/a3/result?timeout_ms=60000"
verify_result "$tmp/body" 3 "mixed upload" "$tmp/c.vk.json"
for i in 0 1 2; do
  cmp -s "$tmp/pub.$i.json" "$tmp/wpub.json" && ok || bad "mixed upload: partition $i public signals differ"
done

# ---- by path, and another curve ---------------------------------------------
expect 202 -- -X POST -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$A\"],\"request_id\":\"p1\"}" /v1/jobs
expect 200 -- "/v1/jobs/p1/result?timeout_ms=60000"
verify_result "$tmp/body" 1 "image by path" "$tmp/c.vk.json"
expect 202 -- "${up[@]}" --data-binary @"$tmp/bls.abc" "/v1/jobs?key=$tmp/bls.zkey&request_id=b1"
expect 200 -- "/v1/jobs/b1/result?timeout_ms=60000"
verify_result "$tmp/body" 1 "bls12-381 image upload" "$tmp/bls.vk.json"

# ---- refused before a job is made, with the reader's message -----------------
head -c $((asize / 2)) "$A" >"$tmp/cut.abc"
expect 400 EFORMAT -- "${up[@]}" --data-binary @"$tmp/cut.abc" "/v1/jobs?key=$tmp/c.zkey&request_id=bad1"
jget "$tmp/body" error | grep -q "witness 0: abc: truncated: $((asize / 2)) bytes" && ok ||
  bad "truncated upload: $(jget "$tmp/body" error)"
expect 404 -- "/v1/jobs/bad1"
head -c 40 "$A" >"$tmp/cut40.abc"
expect 400 EFORMAT -- "${up[@]}" --data-binary @"$tmp/cut40.abc" "/v1/jobs?key=$tmp/c.zkey"
cp "$A" "$tmp/big.abc"
printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' |
  dd of="$tmp/big.abc" bs=1 seek=64 conv=notrunc 2>/dev/null
expect 400 ERANGE -- "${up[@]}" --data-binary @"$tmp/big.abc" "/v1/jobs?key=$tmp/c.zkey"
jget "$tmp/body" error | grep -q "a\[1\] is not below r" && ok || bad "value above r: $(jget "$tmp/body" error)"
expect 400 EMISMATCH -- "${up[@]}" --data-binary @"$tmp/small.abc" "/v1/jobs?key=$tmp/c.zkey"
expect 400 ECURVE -- "${up[@]}" --data-binary @"$tmp/bls.abc" "/v1/jobs?key=$tmp/c.zkey"

# ---- cuzk prove through the daemon (path and upload) ---------------------------
# the client checks the daemon's public signals against the image's witness
for how in "" "--upload"; do
  # shellcheck disable=SC2086
  if "$cuzk" prove $how --addr "unix:$SOCK" "$tmp/c.zkey" "$A" "$tmp/cp.json" "$tmp/cpub.json" >"$tmp/cli.out" 2>&1; then
    ok
  else
    bad "cuzk prove $how --addr with an image: $(head -c 300 "$tmp/cli.out")"
  fi
  "$cuzk" verify "$tmp/c.vk.json" "$tmp/cpub.json" "$tmp/cp.json" >/dev/null 2>&1 && ok ||
    bad "cuzk prove $how --addr with an image: the proof does not verify"
  check "cuzk prove $how --addr: public signals" "$(jget "$tmp/cpub.json" "")" "$(jget "$tmp/wpub.json" "")"
done

# ---- still serving -------------------------------------------------------------
kill -0 "$DPID" 2>/dev/null && ok || bad "the daemon died"
expect 200 -- /healthz
expect 202 -- "${up[@]}" --data-binary @"$A" "/v1/jobs?key=$tmp/c.zkey&request_id=last"
expect 200 -- "/v1/jobs/last/result?timeout_ms=60000"
verify_result "$tmp/body" 1 "an image after the refusals" "$tmp/c.vk.json"
stop_daemon "$DPID"
check "exit status" "$rc" 0
finish
