#!/usr/bin/env bash
# The installed library, as an embedder sees it: `cmake --install` of the
# build directory (the one holding cuzk) into a temporary prefix, then
#   - the layout: lib/libcuzk.so -> libcuzk.so.MAJOR (the SONAME) ->
#     libcuzk.so.VERSION, lib/libcuzk.a, every include/*.h, bin/cuzk (and
#     bin/cuzkd when it was built), lib/pkgconfig/cuzk.pc;
#   - pkg-config: its version is cuzk_version()'s and cuzk --version's;
#   - tests/install/hello.c built with only `pkg-config --cflags --libs
#     cuzk` (so <cuzk.h> must compile from the installed include/ alone and
#     every function it calls must be exported), linked to libcuzk.so, run
#     with the installed lib/ on LD_LIBRARY_PATH: it proves a bundled
#     circom example (BN254) on a one-CPU-device engine and writes
#     proof.json and public.json, which the installed cuzk verifies;
#   - the same program linked statically to libcuzk.a with `pkg-config
#     --static` (so Libs.private names everything the archive needs), on the
#     BLS12-381 example;
#   - the installed cuzk and cuzkd start (no library missing).
# Usage: test_install.sh <path to cuzk> <source dir>.  Uses $CUZK_CMAKE (set
# by CTest: the cmake that configured the build) or cmake, and $CC or cc.
set -u
cuzk=$1
src=$(cd "$2" && pwd)
build=$(cd "$(dirname "$cuzk")" && pwd)
cmake=${CUZK_CMAKE:-cmake}
cc=${CC:-cc}
fx=$src/tests/interop/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() {
  echo "install: $pass passed, $fail failed"
  [ "$fail" -eq 0 ] && exit 0
  exit 1
}
for tool in "$cmake" pkg-config readelf "$cc"; do
  command -v "$tool" >/dev/null || { bad "$tool is missing (scripts/deps.sh installs it)"; finish; }
done

prefix=$tmp/prefix
if ! "$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
  bad "cmake --install $build failed:"
  tail -n 5 "$tmp/install.log"
  finish
fi
ok

# ---- layout
pcs=$(find "$prefix" -name cuzk.pc)
if [ "$(echo "$pcs" | grep -c .)" -ne 1 ] || [ "$(basename "$(dirname "$pcs")")" != pkgconfig ]; then
  bad "expected one .../pkgconfig/cuzk.pc, found: $pcs"
  finish
fi
libdir=$(dirname "$(dirname "$pcs")")
export PKG_CONFIG_PATH=$(dirname "$pcs")
version=$(pkg-config --modversion cuzk)
if echo "$version" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'; then ok; else bad "pkg-config --modversion cuzk: '$version'"; fi
major=${version%%.*}
[ -f "$libdir/libcuzk.a" ] && ok || bad "no $libdir/libcuzk.a"
[ -f "$libdir/libcuzk.so.$version" ] && ok || bad "no $libdir/libcuzk.so.$version"
for l in libcuzk.so libcuzk.so.$major; do
  [ -L "$libdir/$l" ] && [ -e "$libdir/$l" ] && ok || bad "$libdir/$l is not a link to the library"
done
soname=$(readelf -d "$libdir/libcuzk.so.$version" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libcuzk.so.$major" ] && ok || bad "SONAME is '$soname', expected libcuzk.so.$major"
for h in "$src"/include/*.h; do
  [ -f "$prefix/include/$(basename "$h")" ] && ok || bad "header $(basename "$h") not installed"
done
# nothing but the public headers
extra=$(cd "$prefix/include" && ls | grep -vxF "$(cd "$src/include" && ls)")
[ -z "$extra" ] && ok || bad "installed headers that are not in include/: $extra"
[ -x "$prefix/bin/cuzk" ] && ok || bad "no $prefix/bin/cuzk"
if [ -n "${CUZKD:-}" ]; then
  [ -x "$prefix/bin/cuzkd" ] && ok || bad "cuzkd was built but not installed"
fi

# ---- the installed programs start and agree on the version
out=$("$prefix/bin/cuzk" --version 2>&1)
[ "$out" = "cuzk $version" ] && ok || bad "installed cuzk --version: '$out', expected 'cuzk $version'"
if [ -x "$prefix/bin/cuzkd" ]; then
  out=$("$prefix/bin/cuzkd" --version 2>&1)
  [ $? -eq 0 ] && ok || bad "installed cuzkd does not start: $out"
fi

# ---- an embedder: pkg-config only, the shared library
flags=$(pkg-config --cflags --libs cuzk)
if ! "$cc" -std=c11 -Wall -Wextra -Werror -o "$tmp/hello" "$src/tests/install/hello.c" \
  $flags >"$tmp/cc.log" 2>&1; then
  bad "hello.c does not build with only '$flags':"
  head -n 15 "$tmp/cc.log"
  finish
fi
ok
readelf -d "$tmp/hello" | grep -q "NEEDED.*\[libcuzk\.so\.$major\]" && ok ||
  bad "hello is not linked to libcuzk.so.$major"
where=$(LD_LIBRARY_PATH=$libdir ldd "$tmp/hello" | awk '/libcuzk/ { print $3 }')
[ "$where" -ef "$libdir/libcuzk.so.$major" ] && ok || bad "hello loads libcuzk from '$where', not $libdir"

# run PROGRAM CURVE NAME: prove fixture NAME, check the output and verify
# the proof with the installed cuzk
run_hello() {
  local prog=$1 curve=$2 name=$3 what="$(basename "$1") ($2 $3)"
  rm -f "$tmp/proof.json" "$tmp/public.json"
  if ! LD_LIBRARY_PATH=$libdir timeout 300 "$prog" "$fx/$curve/$name.zkey" "$fx/$curve/$name.wtns" \
    "$tmp/proof.json" "$tmp/public.json" >"$tmp/out" 2>"$tmp/err"; then
    bad "$what failed: $(head -c 400 "$tmp/err")"
    return
  fi
  printf 'cuzk %s\nproved: 1 partition(s)\n' "$version" | cmp -s - "$tmp/out" && ok ||
    bad "$what printed: $(cat "$tmp/out")"
  cmp -s "$tmp/public.json" "$fx/$curve/$name.public.json" && ok ||
    bad "$what: public.json differs from snarkjs's $fx/$curve/$name.public.json"
  if "$prefix/bin/cuzk" verify "$fx/$curve/$name.vk.json" "$tmp/public.json" "$tmp/proof.json" \
    >"$tmp/vout" 2>&1; then ok; else bad "$what: the installed cuzk does not verify its proof: $(cat "$tmp/vout")"; fi
}
run_hello "$tmp/hello" bn128 multiplier

# ---- the same program against the static library (pkg-config --static)
libs=$(pkg-config --static --libs cuzk | sed 's/-lcuzk\b/-Wl,-Bstatic -lcuzk -Wl,-Bdynamic/')
if "$cc" -std=c11 -o "$tmp/hello_static" "$src/tests/install/hello.c" $(pkg-config --cflags cuzk) \
  $libs >"$tmp/cc.log" 2>&1; then
  ok
  if readelf -d "$tmp/hello_static" | grep -q 'NEEDED.*libcuzk'; then
    bad "hello_static needs libcuzk.so"
  else
    ok
  fi
  run_hello "$tmp/hello_static" bls12381 multiplier
else
  bad "hello.c does not link statically with '$libs':"
  head -n 15 "$tmp/cc.log"
fi
finish
