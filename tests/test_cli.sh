#!/usr/bin/env bash
# The cuzk command line on good and bad input: every failure must exit
# non-zero with a one-line "cuzk <cmd>: ..." reason, never crash.
# Usage: test_cli.sh <path to cuzk> <source dir>
set -u
cuzk=$1
src=$2
fx=$src/tests/interop/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_fail <description> <command...>: non-zero exit (not a signal), a
# message on stderr naming cuzk.
expect_fail() {
  local what=$1
  shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -eq 0 ]; then bad "$what: exit 0"; return; fi
  if [ $rc -ge 128 ]; then bad "$what: killed by signal $((rc - 128))"; return; fi
  if ! grep -q "cuzk" "$tmp/err" && ! grep -q "INVALID" "$tmp/out"; then
    bad "$what: no reason printed"; cat "$tmp/err"; return
  fi
  ok
}
expect_ok() {
  local what=$1
  shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "$what"; cat "$tmp/err"; fi
}

for curve in bn128 bls12381; do
  d=$fx/$curve
  expect_ok "$curve prove" "$cuzk" prove --verify "$d/multiplier.zkey" "$d/multiplier.wtns" "$tmp/p.json" "$tmp/pub.json"
  expect_ok "$curve verify own proof" "$cuzk" verify "$d/multiplier.vk.json" "$tmp/pub.json" "$tmp/p.json"
  expect_ok "$curve verify snarkjs proof" "$cuzk" verify "$d/multiplier.vk.json" "$d/multiplier.public.json" "$d/multiplier.proof.json"
  expect_ok "$curve export-vk" "$cuzk" zkey export-vk "$d/multiplier.zkey" "$tmp/vk.json"
  expect_ok "$curve info zkey" "$cuzk" info "$d/multiplier.zkey"
  expect_ok "$curve info r1cs" "$cuzk" info "$d/multiplier.r1cs"
  expect_ok "$curve info wtns" "$cuzk" info "$d/multiplier.wtns"

  # truncated and corrupted inputs
  for f in zkey wtns; do
    size=$(stat -c %s "$d/multiplier.$f")
    for cut in 0 4 11 12 40 $((size / 2)) $((size - 1)); do
      head -c "$cut" "$d/multiplier.$f" >"$tmp/cut.$f"
      if [ $f = zkey ]; then
        expect_fail "$curve zkey cut at $cut" "$cuzk" prove "$tmp/cut.zkey" "$d/multiplier.wtns" "$tmp/x.json" "$tmp/y.json"
      else
        expect_fail "$curve wtns cut at $cut" "$cuzk" prove "$d/multiplier.zkey" "$tmp/cut.wtns" "$tmp/x.json" "$tmp/y.json"
      fi
    done
  done
  printf 'zkez' | dd of="$tmp/magic.zkey" bs=1 conv=notrunc 2>/dev/null
  cp "$d/multiplier.zkey" "$tmp/magic.zkey"; printf 'zkez' | dd of="$tmp/magic.zkey" bs=1 conv=notrunc 2>/dev/null
  expect_fail "$curve wrong magic" "$cuzk" prove "$tmp/magic.zkey" "$d/multiplier.wtns" "$tmp/x.json" "$tmp/y.json"
  expect_fail "$curve missing file" "$cuzk" prove "$tmp/nope.zkey" "$d/multiplier.wtns" "$tmp/x.json" "$tmp/y.json"
  expect_fail "$curve witness of another circuit" "$cuzk" prove "$d/multiplier.zkey" "$d/poseidon_chain.wtns" "$tmp/x.json" "$tmp/y.json"
  expect_fail "$curve key file as witness" "$cuzk" prove "$d/multiplier.zkey" "$d/multiplier.zkey" "$tmp/x.json" "$tmp/y.json"

  # tampered proof and public input
  python3 - "$d/multiplier.proof.json" "$tmp/tp.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
d = p["pi_c"][0]
p["pi_c"][0] = str((int(d[0]) % 9) + 1) + d[1:]  # change one digit
json.dump(p, open(sys.argv[2], "w"))
PY
  expect_fail "$curve tampered proof" "$cuzk" verify "$d/multiplier.vk.json" "$d/multiplier.public.json" "$tmp/tp.json"
  python3 - "$d/multiplier.public.json" "$tmp/tpub.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1])); v[0] = str(int(v[0]) + 1); json.dump(v, open(sys.argv[2], "w"))
PY
  expect_fail "$curve changed public input" "$cuzk" verify "$d/multiplier.vk.json" "$tmp/tpub.json" "$d/multiplier.proof.json"
  echo '{"pi_a": [' >"$tmp/broken.json"
  expect_fail "$curve malformed proof JSON" "$cuzk" verify "$d/multiplier.vk.json" "$d/multiplier.public.json" "$tmp/broken.json"
  expect_fail "$curve malformed vk JSON" "$cuzk" verify "$tmp/broken.json" "$d/multiplier.public.json" "$d/multiplier.proof.json"
done
other=bls12381
expect_fail "vk of the other curve" "$cuzk" verify "$fx/$other/multiplier.vk.json" "$fx/bn128/multiplier.public.json" "$fx/bn128/multiplier.proof.json"

# usage errors exit 2
"$cuzk" prove only-one-arg >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "usage error exit code"
"$cuzk" frobnicate >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "unknown command exit code"
expect_ok "help" "$cuzk" prove --help

echo "test_cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
