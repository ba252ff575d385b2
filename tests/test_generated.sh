#!/usr/bin/env bash
# scripts/check-generated.sh: the committed generated files match their
# generators, and the check really catches a drift:
#  - on this tree it exits 0;
#  - on a copy with one constant of field/consts_gen.h edited by hand it
#    exits 1 and prints the diff naming the line;
#  - a copy whose generator changed but whose output was not regenerated
#    fails the same way;
#  - a generated file that lost its "do not edit" first line fails;
#  - a stray *_gen.h with no generator listed fails (hand-written
#    templates are named *_template.h).
# Usage: test_generated.sh <path to cuzk> <source dir>   (cuzk is unused)
set -u
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check=$src/scripts/check-generated.sh

if bash "$check" "$src" >"$tmp/log" 2>&1; then ok; else bad "check on the tree: $(cat "$tmp/log")"; fi

# a fresh copy of what the check reads
fresh() {
  rm -rf "$tmp/c"
  mkdir -p "$tmp/c/field" "$tmp/c/scripts"
  cp "$src"/scripts/gen_*.py "$tmp/c/scripts/"
  cp "$src"/field/*_gen.h "$tmp/c/field/"
}
expect_fail() { # what, pattern expected in the output
  bash "$check" "$tmp/c" >"$tmp/log" 2>&1
  rc=$?
  if [ $rc -eq 1 ]; then ok; else bad "$1: exit $rc, expected 1"; fi
  if grep -q -- "$2" "$tmp/log"; then ok; else bad "$1: output lacks '$2': $(cat "$tmp/log")"; fi
}

fresh
if bash "$check" "$tmp/c" >"$tmp/log" 2>&1; then ok; else bad "check on a copy: $(cat "$tmp/log")"; fi

fresh
sed -i 's/^#define BLS12_381_FP_N0 0x89f3fffcfffcfffdULL$/#define BLS12_381_FP_N0 0x89f3fffcfffcfffeULL/' "$tmp/c/field/consts_gen.h"
grep -q 0x89f3fffcfffcfffeULL "$tmp/c/field/consts_gen.h" || bad "edit of consts_gen.h did not apply"
expect_fail "hand-edited output" "+#define BLS12_381_FP_N0 0x89f3fffcfffcfffdULL"

fresh
echo 'print("/* one more line */")' >>"$tmp/c/scripts/gen_mont_asm.py"
expect_fail "changed generator" "mont_x86_gen.h differs"

fresh
sed -i 1d "$tmp/c/field/mont_x86_gen.h"
expect_fail "lost first line" "does not start with the line"

fresh
echo "/* hand-written */" >"$tmp/c/field/stray_gen.h"
expect_fail "stray _gen.h" "field/stray_gen.h ends in _gen.h"

echo "test_generated: $pass passed, $fail failed"
[ $fail -eq 0 ]
