#!/usr/bin/env bash
# The README's two set-up commands keep their promises, run with a stand-in
# for what takes minutes (the build) and what needs root (the package
# check):
#   scripts/demo.sh   builds cuzk and cuzkd, says whether the CUDA kernels
#                     are built and why, shows the build's progress, times
#                     every section and removes its temporary folder;
#   scripts/test.sh   ends with each test that did not run (or ran in
#                     part) and the reason it gave.
# And the shell tests' skip (tests/daemon/prelude.sh) exits 77 only when no
# check failed before it.
# The demo's proofs are real: they are made by <cuzk>.
# Usage: test_scripts.sh <path to cuzk> <source dir>
set -u
cuzk=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
real_cmake=${CUZK_CMAKE:-$(command -v cmake)}
tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# The package check finds everything installed.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/bin/sh
printf 'install ok installed'
EOF

# ---- scripts/demo.sh --------------------------------------------------------
# cmake: the configuration is a cache without nvcc; the build prints
# progress as CMake's makefiles do, records its targets and puts the tested
# cuzk in place.
cat >"$tmp/bin/cmake" <<EOF
#!/bin/sh
if [ "\$1" = --build ]; then
  echo "\$*" >>"$tmp/builds"
  for p in 3 8 15 27 41 56 70 83 97 100 100; do
    printf '[%3d%%] Building C object x.o\n' \$p
  done
  ln -sf "$cuzk" "\$2/cuzk"
  printf '#!/bin/sh\n' >"\$2/cuzkd" && chmod +x "\$2/cuzkd"
  exit 0
fi
while [ \$# -gt 0 ]; do [ "\$1" = -B ] && b=\$2; shift; done
mkdir -p "\$b"
printf 'CUZK_CUDA:BOOL=ON\nCMAKE_CUDA_COMPILER:FILEPATH=CMAKE_CUDA_COMPILER-NOTFOUND\n' >"\$b/CMakeCache.txt"
EOF
chmod +x "$tmp/bin/"*
# not a terminal: the build's progress comes as lines
PATH=$tmp/bin:$PATH BUILD_DIR=$tmp/demo-build bash "$src/scripts/demo.sh" >"$tmp/demo.out" 2>&1 </dev/null
rc=$?
[ $rc -eq 0 ] && ok || { bad "demo.sh exit $rc"; tail -n 20 "$tmp/demo.out"; }
grep -q -- "--target cuzk-cli cuzkd" "$tmp/builds" && ok || bad "demo.sh does not build cuzkd: $(cat "$tmp/builds")"
grep -q "^== building .*/cuzk and .*/cuzkd without CUDA kernels (nvcc not found" "$tmp/demo.out" && ok ||
  bad "demo.sh does not say that no CUDA kernels are built: $(head -n 3 "$tmp/demo.out")"
n=$(grep -Ec '^   build +[0-9]+%$' "$tmp/demo.out")
[ "$n" -ge 5 ] && [ "$(grep -c '^   build 100%$' "$tmp/demo.out")" -eq 1 ] && ok ||
  bad "demo.sh shows no build progress ($n lines)"
for s in "build" "looking for a GPU" "Poseidon hash chain, bn128" "Poseidon hash chain, bls12381" "generated circuit"; do
  grep -Eq "^   \($s: [0-9]+\.[0-9] s\)$" "$tmp/demo.out" && ok || bad "demo.sh does not time the section '$s'"
done
grep -Eq "^== done in [0-9]+\.[0-9] s: every proof above verified$" "$tmp/demo.out" && ok ||
  bad "demo.sh: no total time: $(tail -n 2 "$tmp/demo.out")"
dir=$(sed -n 's/.*files in \(\/tmp\/cuzk-demo-[A-Za-z0-9]*\).*/\1/p' "$tmp/demo.out" | head -1)
[ -n "$dir" ] && [ ! -e "$dir" ] && ok || bad "demo.sh left its folder '$dir'"
[ "$(grep -c '^OK$\|verify: OK$' "$tmp/demo.out")" -eq 3 ] && ok || bad "demo.sh: not three verified proofs"

# ---- scripts/test.sh --------------------------------------------------------
# cmake configures a project of three tests instead (one skipped with its
# reason, one that skips a part, one that passes); ctest is the real one.
mkdir -p "$tmp/proj"
cat >"$tmp/proj/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(skips NONE)
enable_testing()
add_test(NAME test_widget COMMAND sh -c "echo 'SKIP: no widget on this machine'; exit 77")
set_tests_properties(test_widget PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME test_half COMMAND sh -c "echo 'SKIP: python3 is not installed: half of it did not run'")
add_test(NAME test_whole COMMAND sh -c "echo all ran")
EOF
cat >"$tmp/bin/cmake" <<EOF
#!/bin/sh
if [ "\$1" = --build ]; then exec "$real_cmake" --build "\$2"; fi
while [ \$# -gt 0 ]; do [ "\$1" = -B ] && b=\$2; shift; done
exec "$real_cmake" -S "$tmp/proj" -B "\$b"
EOF
# node and npm are looked for by the interop set-up: present or not, the
# package check above says installed
PATH=$tmp/bin:$PATH BUILD_DIR=$tmp/test-build SKIP_INTEROP=1 CUZK_REQUIRE_ALL=0 \
  bash "$src/scripts/test.sh" >"$tmp/test.out" 2>&1 </dev/null
rc=$?
[ $rc -eq 0 ] && ok || { bad "test.sh exit $rc"; tail -n 20 "$tmp/test.out"; }
tail -n 3 "$tmp/test.out" >"$tmp/test.tail"
grep -q "^test: not run, with the reason each gave:$" "$tmp/test.tail" &&
  grep -q "^  test_widget: no widget on this machine$" "$tmp/test.tail" &&
  grep -q "^  test_half (in part): python3 is not installed: half of it did not run$" "$tmp/test.tail" &&
  ! grep -q test_whole "$tmp/test.tail" && ok || bad "test.sh does not end with the skips: $(cat "$tmp/test.out")"

# ---- tests/daemon/prelude.sh: a skip cannot hide a failure ------------------------
# skip_rc REQUIRE_ALL FAILS: the exit status of a test that counted FAILS
# failed checks, then skipped.
skip_rc() {
  CUZK_REQUIRE_ALL=$1 bash -c '. "$1"; fail=$2; skip "no widget"; echo never' \
    _ "$src/tests/daemon/prelude.sh" "$2" >"$tmp/skip.out" 2>&1
  echo $?
}
r=$(skip_rc 0 0)
[ "$r" = 77 ] && ok || bad "prelude: a skip with no failure exited $r, not 77"
r=$(skip_rc 0 1)
[ "$r" != 0 ] && [ "$r" != 77 ] && grep -q "^FAIL: no widget, after 1 failed check" "$tmp/skip.out" && ok ||
  bad "prelude: a skip after a failure exited $r: $(cat "$tmp/skip.out")"
r=$(skip_rc 1 0)
[ "$r" = 1 ] && ok || bad "prelude: a skip under CUZK_REQUIRE_ALL=1 exited $r, not 1"

echo "test_scripts: $pass passed, $fail failed"
[ $fail -eq 0 ]
