#!/usr/bin/env bash
# The exported symbols of libcuzk.so: the library's only interface is the
# cuzk_* functions of its public headers (include/*.h).
#   1. every defined dynamic symbol is named cuzk_* (the version script
#      cmake/libcuzk.map guarantees it; this checks that the link used it):
#      the per-curve bls12_381_* / bn254_* code, helpers and any library
#      linked in stay inside;
#   2. every function a public header declares is exported (a declaration
#      without its export mark, or without a definition, fails here instead
#      of in an embedder's link);
#   3. the library is compiled with hidden visibility and the headers mark
#      their declarations (CUZK_API, include/cuzk.h), so nothing else is
#      exported: every exported cuzk_* symbol is declared in include/*.h.
# Needs nm (binutils) and a C compiler (to strip comments from headers).
# Usage: test_exports.sh <path to cuzk> <source dir>; libcuzk.so is the one
# built next to cuzk.
set -u
cuzk=$1
src=$(cd "$2" && pwd)
so=$(dirname "$cuzk")/libcuzk.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# Symbols the linker itself may define in a shared library's dynamic table
# (none appear with cmake/libcuzk.map's "local: *", which hides them too;
# listed so that a linker that insists on them is named, not silently
# accepted): the ends of the data and bss segments, and the init/fini
# entry points.
linker_own='^(_init|_fini|_edata|_end|__bss_start)$'

if [ ! -e "$so" ]; then
  echo "FAIL: $so does not exist (built with -DCUZK_SHARED=ON?)"
  exit 1
fi
if ! nm -D --defined-only "$so" >"$tmp/nm" 2>"$tmp/err"; then
  echo "FAIL: nm -D $so: $(cat "$tmp/err")"
  exit 1
fi
# "ADDRESS TYPE NAME" (a versioned name would carry @VERSION: cut it)
awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' "$tmp/nm" | sort -u >"$tmp/exported"
n_exported=$(wc -l <"$tmp/exported")
[ "$n_exported" -gt 0 ] || bad "libcuzk.so exports nothing"

# 1. nothing but cuzk_*
grep -Ev '^cuzk_' "$tmp/exported" | grep -Ev "$linker_own" >"$tmp/foreign"
if [ -s "$tmp/foreign" ]; then
  bad "libcuzk.so exports $(wc -l <"$tmp/foreign") symbol(s) not named cuzk_*:"
  sed 's/^/  /' "$tmp/foreign"
fi

# 2. every function the public headers declare.  Comments are stripped by
# the preprocessor (-fpreprocessed: no include is followed, no macro is
# expanded); a declaration is a cuzk_* name followed by "(" outside
# #define lines, which leaves out function-pointer typedefs ("(*name)(").
: >"$tmp/declared"
for h in "$src"/include/*.h; do
  if ! ${CC:-cc} -fpreprocessed -dD -E -P -x c "$h" >"$tmp/h.i" 2>"$tmp/err"; then
    bad "cannot read $h: $(head -c 300 "$tmp/err")"
    continue
  fi
  grep -v '^[[:space:]]*#' "$tmp/h.i" | grep -v '\bstatic\b' |
    grep -oE '\bcuzk_[A-Za-z0-9_]+[[:space:]]*\(' | sed 's/[[:space:](]//g' >>"$tmp/declared"
done
sort -u -o "$tmp/declared" "$tmp/declared"
n_declared=$(wc -l <"$tmp/declared")
[ "$n_declared" -gt 0 ] || bad "found no function declared in $src/include/*.h"
comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
  bad "$(wc -l <"$tmp/missing") function(s) declared in include/*.h but not exported by libcuzk.so:"
  sed 's/^/  /' "$tmp/missing"
fi

# 3. hidden visibility: exactly the declared functions
comm -13 "$tmp/declared" "$tmp/exported" | grep -Ev "$linker_own" >"$tmp/extra"
if [ -s "$tmp/extra" ]; then
  bad "libcuzk.so exports $(wc -l <"$tmp/extra") cuzk_* symbol(s) no public header declares:"
  sed 's/^/  /' "$tmp/extra"
fi

echo "exports: $n_exported exported, $n_declared declared in include/*.h; $fail failed"
[ "$fail" -eq 0 ]
