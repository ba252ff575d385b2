#!/usr/bin/env bash
# Build cuzk and run its whole test suite (CPU tests; GPU tests skip without
# a GPU; the snarkjs interop test when Node.js is available).
#   scripts/test.sh            release build in build/, ctest, interop
#   BUILD_DIR=... CMAKE_ARGS=... scripts/test.sh   other configurations
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh --interop
BUILD_DIR=${BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j "$jobs"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$jobs"
if [ "${SKIP_INTEROP:-0}" != 1 ] && [ -x tests/interop/run.sh ]; then
  tests/interop/run.sh "$PWD/$BUILD_DIR/cuzk"
fi
