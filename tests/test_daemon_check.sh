#!/usr/bin/env bash
# cuzkd never serves a proof that does not verify (docs/ENGINE.md,
# "Checks"): with its defaults, an a, b, c image whose c differs from a∘b
# at row 17 (uploaded, and by path) is accepted (202) and its job fails
# with EVERIFY and "a∘b ≠ c at row 17: the witness does not satisfy the
# circuit"; a .wtns with one value changed fails on self-verification; the
# daemon keeps serving and a good job after them is done.  With
# --check_abc=false the image fails on self-verification instead; with
# --self_verify=false as well it ends done with a proof `cuzk verify`
# rejects (what the switches give up).  `cuzk prove --cpu` reports the row
# and writes nothing; with --no-check-abc --no-verify it writes the bad proof.
# Usage: test_daemon_check.sh <path to cuzk> <source dir>   (CUZKD=<cuzkd>)
set -u
. "$(dirname "$0")/daemon/lib.sh"

gen_circuit c bn254 10
"$cuzk" abc --threads 2 "$tmp/c.zkey" "$tmp/c.wtns" "$tmp/c.abc" >/dev/null 2>&1 ||
  { echo "cannot make c.abc"; exit 1; }

# put_small FILE OFFSET: the 32-byte value at OFFSET becomes 5 (6 if it was 5).
put_small() {
  local v='\005'
  [ "$(od -An -tx1 -j "$2" -N 32 "$1" | tr -d ' \n')" = "05$(printf '0%.0s' $(seq 62))" ] && v='\006'
  { printf '%b' "$v"; head -c 31 /dev/zero; } | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
m=$(od -An -tu8 -j 16 -N 8 "$tmp/c.abc" | tr -d ' ')
cp "$tmp/c.abc" "$tmp/bad.abc"
put_small "$tmp/bad.abc" $((32 + (2 * m + 17) * 32))
cmp -s "$tmp/c.abc" "$tmp/bad.abc" && { echo "the bad image equals the good one"; exit 1; }
# the witness's last value (section 2, the last of the file) changed
cp "$tmp/c.wtns" "$tmp/bad.wtns"
put_small "$tmp/bad.wtns" $(($(stat -c %s "$tmp/c.wtns") - 32))
cmp -s "$tmp/c.wtns" "$tmp/bad.wtns" && { echo "the bad witness equals the good one"; exit 1; }

up=(-X POST -H 'Content-Type: application/octet-stream')
row_msg="a∘b ≠ c at row 17: the witness does not satisfy the circuit"

# failed_with WHAT RID STATUS TEXT: job RID ends failed with STATUS and TEXT.
failed_with() {
  expect 200 -- "/v1/jobs/$2/result?timeout_ms=60000"
  check "$1: state" "$(jget "$tmp/body" state)" failed
  check "$1: status" "$(jget "$tmp/body" status)" "$3"
  case "$(jget "$tmp/body" error)" in
  *"$4"*) ok ;;
  *) bad "$1: message '$(jget "$tmp/body" error)' does not contain '$4'" ;;
  esac
}

# done_with WHAT RID VERIFIES: job RID ends done; its proof passes `cuzk
# verify` (VERIFIES yes) or not (no).
done_with() {
  expect 200 -- "/v1/jobs/$2/result?timeout_ms=60000"
  check "$1: state" "$(jget "$tmp/body" state)" "done"
  jsave "$tmp/body" proofs.0.proof "$tmp/p.json"
  jsave "$tmp/body" proofs.0.public "$tmp/pub.json"
  if "$cuzk" verify "$tmp/c.vk.json" "$tmp/pub.json" "$tmp/p.json" >/dev/null 2>&1; then
    check "$1: the proof verifies" yes "$3"
  else
    check "$1: the proof verifies" no "$3"
  fi
}

# ---- the defaults: both checks on ---------------------------------------------
start_daemon main || exit 1
expect 202 -- "${up[@]}" --data-binary @"$tmp/bad.abc" "/v1/jobs?key=$tmp/c.zkey&request_id=b1"
failed_with "bad image upload" b1 EVERIFY "$row_msg"
expect 202 -- -X POST -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$tmp/bad.abc\"],\"request_id\":\"b2\"}" /v1/jobs
failed_with "bad image by path" b2 EVERIFY "$row_msg"
expect 202 -- "${up[@]}" --data-binary @"$tmp/bad.wtns" "/v1/jobs?key=$tmp/c.zkey&request_id=b3"
failed_with "bad witness upload" b3 EVERIFY "self-verification failed"
kill -0 "$DPID" 2>/dev/null && ok || bad "the daemon died"
expect 200 -- /healthz
expect 202 -- "${up[@]}" --data-binary @"$tmp/c.abc" "/v1/jobs?key=$tmp/c.zkey&request_id=g1"
done_with "good image after the bad" g1 yes
expect 202 -- "${up[@]}" --data-binary @"$tmp/c.wtns" "/v1/jobs?key=$tmp/c.zkey&request_id=g2"
done_with "good witness after the bad" g2 yes
stop_daemon "$DPID"
check "exit status" "$rc" 0

# ---- the row check off: self-verification fails it --------------------------------
start_daemon nocheck --check_abc=false || exit 1
expect 202 -- "${up[@]}" --data-binary @"$tmp/bad.abc" "/v1/jobs?key=$tmp/c.zkey&request_id=n1"
failed_with "bad image, check_abc off" n1 EVERIFY "self-verification failed"
stop_daemon "$DPID"
check "exit status" "$rc" 0

# ---- both off: done, and the proof does not verify --------------------------------
start_daemon off --check_abc=false --self_verify=false || exit 1
expect 202 -- "${up[@]}" --data-binary @"$tmp/bad.abc" "/v1/jobs?key=$tmp/c.zkey&request_id=o1"
done_with "bad image, both checks off" o1 no
stop_daemon "$DPID"
check "exit status" "$rc" 0

# ---- cuzk prove in process ----------------------------------------------------------
rm -f "$tmp/cp.json" "$tmp/cpub.json"
if "$cuzk" prove --cpu "$tmp/c.zkey" "$tmp/bad.abc" "$tmp/cp.json" "$tmp/cpub.json" >"$tmp/cli.out" 2>&1; then
  bad "cuzk prove proved the bad image"
else
  grep -q "$row_msg" "$tmp/cli.out" && ok || bad "cuzk prove: $(head -c 300 "$tmp/cli.out")"
fi
[ -e "$tmp/cp.json" ] && bad "cuzk prove wrote a proof of the bad image" || ok
if "$cuzk" prove --cpu --no-check-abc --no-verify "$tmp/c.zkey" "$tmp/bad.abc" "$tmp/cp.json" \
  "$tmp/cpub.json" >"$tmp/cli.out" 2>&1; then ok; else
  bad "cuzk prove --no-check-abc --no-verify: $(head -c 300 "$tmp/cli.out")"
fi
"$cuzk" verify "$tmp/c.vk.json" "$tmp/cpub.json" "$tmp/cp.json" >/dev/null 2>&1 &&
  bad "the proof of the bad image verifies" || ok
finish
