#!/usr/bin/env bash
# Build cuzk and run its whole test suite (CPU tests; GPU tests skip without
# a GPU; the snarkjs interop test when Node.js is available).
#   scripts/test.sh            release build in build/, ctest, interop
#   BUILD_DIR=... CMAKE_ARGS=... scripts/test.sh   other configurations
#   CUZK_REQUIRE_ALL=1 scripts/test.sh   (CI) nothing but the GPU tests may
#                              be skipped: cuzkd and the cuzk client must be
#                              built, every other test must run, and the
#                              snarkjs interop run is required
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh --interop
BUILD_DIR=${BUILD_DIR:-build}
REQUIRE_ALL=${CUZK_REQUIRE_ALL:-0}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j "$jobs"
if [ "$REQUIRE_ALL" = 1 ]; then
  # A lost dependency (libmicrohttpd, libcurl, ...) would otherwise only
  # turn the daemon tests into skips.
  for prog in cuzk cuzkd; do
    if [ ! -x "$BUILD_DIR/$prog" ]; then
      echo "test: $BUILD_DIR/$prog was not built (see the cmake summary); failing" >&2
      exit 1
    fi
  done
  # (a missing library stops CMake; these options turn parts off on purpose)
  off=$(sed -n 's/^\(CUZK_\(CLIENT\|DAEMON\|FLEET\|TESTS\|SHARED\)\):BOOL=OFF$/\1/p' \
    "$BUILD_DIR/CMakeCache.txt")
  if [ -n "$off" ]; then
    echo "test: configured with $(echo $off | sed 's/\([A-Z_]*\)/-D\1=OFF/g'); failing" >&2
    exit 1
  fi
fi
log=$BUILD_DIR/ctest.log
export CUZK_REQUIRE_ALL=$REQUIRE_ALL
set +e
ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$jobs" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
# What did not run, each with its reason, last, where it is seen: the tests
# CTest skipped (their reason is the "SKIP: ..." or "... skipped ..." line
# of their output, which ctest does not show) and the parts that running
# tests left out ("SKIP: ..." lines).  Both from CTest's full log.
skips=$(awk -v list="$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (Skipped).*/\1/p' "$log")" '
  BEGIN { n = split(list, l, "\n"); for (i = 1; i <= n; i++) if (l[i] != "") skipped[l[i]] = 1 }
  /^[0-9]+\/[0-9]+ Test: / { name = $3; out = 0; next }
  /^Output:$/ { out = 1; getline; next }
  /^<end of output>$/ {
    if (name in skipped) printf "  %s: %s\n", name, reason[name] != "" ? reason[name] : "(no reason printed)"
    out = 0; next }
  out && /[Ss][Kk][Ii][Pp]/ { reason[name] = $0; sub(/^SKIP: /, "", reason[name]) }
  out && /^SKIP: / && !(name in skipped) { printf "  %s (in part): %s\n", name, substr($0, 7) }
' "$BUILD_DIR/Testing/Temporary/LastTest.log" 2>/dev/null || true)
if [ -n "$skips" ]; then
  echo "test: not run, with the reason each gave:"
  echo "$skips"
fi
[ "$rc" -eq 0 ] || exit "$rc"
if [ "$REQUIRE_ALL" = 1 ]; then
  # ctest lists what did not run as "  N - name (Skipped)": only the GPU
  # tests may be there (no GPU in CI).
  skipped=$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (Skipped).*/\1/p' "$log" |
    grep -Ev '^(test_gpu_.*|test_engine_gpu)$' || true)
  if [ -n "$skipped" ]; then
    echo "test: skipped although only GPU tests may skip: $(echo $skipped)" >&2
    exit 1
  fi
fi
if [ "${SKIP_INTEROP:-0}" != 1 ]; then
  if [ -x tests/interop/run.sh ]; then
    tests/interop/run.sh "$PWD/$BUILD_DIR/cuzk"
  elif [ "$REQUIRE_ALL" = 1 ]; then
    echo "test: tests/interop/run.sh is missing or not executable" >&2
    exit 1
  fi
fi
