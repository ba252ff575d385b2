#!/bin/sh
# GPU check in one run, for a machine with an NVIDIA GPU and nvcc:
#   1. configure a fresh build directory and build only the GPU tests, the
#      GPU benchmark and their dependencies (CUDA for sm_90);
#   2. run every GPU test (tests/test_gpu_*.c and tests/test_engine_gpu.c),
#      each with its own log;
#   3. run the benchmarks (bench/bench_gpu.c: kernels; bench/bench_gpu_prove.c:
#      whole proofs);
#   4. print a short table (tests, then benchmark summary) last.
# Logs go to $OUT (or ./gpu-out when OUT is unset).
#
# Environment:
#   OUT                   where logs go (default ./gpu-out)
#   CUZK_GPU_BUILD        build directory (default build-gpu-check; wiped
#                         first unless CUZK_GPU_REUSE=1)
#   CUZK_GPU_PREBUILT     directory with test_gpu_* / bench_gpu built
#                         elsewhere: used as is if they start, else rebuilt
#   CUZK_GPU_BENCH_ARGS   arguments for bench_gpu (default: full run)
#   CUZK_GPU_PROVE_ARGS   arguments for bench_gpu_prove (default: its own)
#   CUZK_GPU_TESTS        the tests to run (default: every GPU test, found
#                         from tests/test_gpu_*.c plus test_engine_gpu)
#   CUZK_GPU_PROOF_DIR    test_gpu_prove writes its fixture proofs there
#                         (for snarkjs to verify on another machine)
#   CUZK_GPU_SKIP_BENCH=1 tests only;  CUZK_GPU_SKIP_TESTS=1 bench only
#   JOBS                  parallel build jobs (default: all cores)
#   CMAKE_ARGS            more options for CMake (e.g. where jansson is)
#   CUZK_GPU_TEST_TIMEOUT / CUZK_GPU_BENCH_TIMEOUT   seconds per program
#                         (default 300 / 600), so a hung kernel cannot eat
#                         a whole lease
# Exit status: 0 when every test passed, else 1.  A skipped test (exit 77)
# counts as a failure whenever `nvidia-smi -L` lists a device: on a GPU
# machine a skip means the CUDA runtime could not start (a driver older
# than the toolkit, a missing device node), and the test's log says why.
# Without a listed device (a dry run elsewhere) the whole check fails too,
# since nothing it is meant to check ran.
set -u

SRC=$(cd "$(dirname "$0")/.." && pwd)
OUTDIR=${OUT:-$PWD/gpu-out}
BUILD=${CUZK_GPU_BUILD:-$SRC/build-gpu-check}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
if [ -z "${CUZK_GPU_TESTS:-}" ]; then
    TESTS=""
    for f in "$SRC"/tests/test_gpu_*.c "$SRC"/tests/test_engine_gpu.c; do
        [ -f "$f" ] && TESTS="$TESTS $(basename "$f" .c)"
    done
else
    TESTS=$CUZK_GPU_TESTS
fi
mkdir -p "$OUTDIR"
SUMMARY="$OUTDIR/summary.txt"
: >"$SUMMARY"

log() { echo "gpu-check: $*"; }

now() { date +%s.%N 2>/dev/null || date +%s; }

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

LISTED=$(nvidia-smi -L 2>&1 | grep -c '^GPU ')
log "nvidia-smi -L lists $LISTED device(s)"
if [ "$LISTED" -eq 0 ]; then
    log "no NVIDIA device listed: every GPU test would skip; this check fails"
    nvidia-smi -L 2>&1 | head -n 3
fi
DEV=$(nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm \
    --format=csv,noheader 2>&1 | head -n 1)
log "device: $DEV"
echo "device: $DEV" >>"$SUMMARY"

# run PROGRAM under a time limit when timeout(1) exists
limited() {
    lim=$1
    shift
    if command -v timeout >/dev/null 2>&1; then
        timeout "$lim" "$@"
    else
        "$@"
    fi
}

BIN=""
if [ -n "${CUZK_GPU_PREBUILT:-}" ] && [ -x "$CUZK_GPU_PREBUILT/bench_gpu" ]; then
    # a prebuilt binary that cannot start here (missing library, older
    # glibc) shows "not found" in ldd's report; then build here instead
    if ldd "$CUZK_GPU_PREBUILT/bench_gpu" 2>&1 | grep -q "not found"; then
        log "prebuilt binaries cannot start here; building"
    else
        BIN=$CUZK_GPU_PREBUILT
        log "using prebuilt binaries in $BIN"
    fi
fi

if [ -z "$BIN" ]; then
    [ "${CUZK_GPU_REUSE:-0}" = 1 ] || rm -rf "$BUILD"
    t0=$(now)
    # Tests and benchmarks only: the daemon and the daemon client (and their
    # libraries, often absent on a GPU machine) are not built.  jansson and
    # GMP are required; CMAKE_ARGS can point CMake at a private copy
    # (-DCMAKE_LIBRARY_PATH=... -DCMAKE_INCLUDE_PATH=...).
    if ! cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
        -DCUZK_CUDA=ON -DCUZK_DAEMON=OFF -DCUZK_CLIENT=OFF ${CMAKE_ARGS:-} \
        >"$OUTDIR/build.log" 2>&1; then
        log "configure failed (see build.log)"
        tail -n 20 "$OUTDIR/build.log"
        exit 1
    fi
    if ! grep -q "CUDA kernels ON" "$OUTDIR/build.log"; then
        log "nvcc not found by CMake: no CUDA build (see build.log)"
        exit 1
    fi
    if ! make -C "$BUILD" -j"$JOBS" $TESTS bench_gpu bench_gpu_prove >>"$OUTDIR/build.log" 2>&1; then
        log "build failed (see build.log)"
        grep -E "error|Error" "$OUTDIR/build.log" | head -n 30
        exit 1
    fi
    log "build: $(secs "$t0" "$(now)") s"
    echo "build $(secs "$t0" "$(now)") s" >>"$SUMMARY"
    BIN=$BUILD
fi

status=0
if [ "${CUZK_GPU_SKIP_TESTS:-0}" != 1 ]; then
    for t in $TESTS; do
        t0=$(now)
        CUZK_SOURCE_DIR="$SRC" limited "${CUZK_GPU_TEST_TIMEOUT:-300}" \
            "$BIN/$t" >"$OUTDIR/$t.log" 2>&1
        rc=$?
        dt=$(secs "$t0" "$(now)")
        case $rc in
        0) res=PASS ;;
        77) res=SKIP; status=1 ;; # a GPU machine must run every GPU test
        *) res="FAIL($rc)"; status=1 ;;
        esac
        line=$(grep -E "passed, [0-9]+ failed|skipped" "$OUTDIR/$t.log" | tail -n 1)
        printf '%-16s %-8s %7s s  %s\n' "$t" "$res" "$dt" "$line" >>"$SUMMARY"
        log "$t: $res ($dt s)"
        [ "$res" = PASS ] || grep -E "FAIL|error|skipped" "$OUTDIR/$t.log" | head -n 15
    done
fi

if [ "${CUZK_GPU_SKIP_BENCH:-0}" != 1 ]; then
    t0=$(now)
    # shellcheck disable=SC2086
    limited "${CUZK_GPU_BENCH_TIMEOUT:-600}" "$BIN/bench_gpu" \
        ${CUZK_GPU_BENCH_ARGS:-} >"$OUTDIR/bench_gpu.log" 2>&1
    log "bench_gpu: exit $? ($(secs "$t0" "$(now)") s)"
    t0=$(now)
    # shellcheck disable=SC2086
    limited "${CUZK_GPU_BENCH_TIMEOUT:-600}" "$BIN/bench_gpu_prove" \
        ${CUZK_GPU_PROVE_ARGS:-} >"$OUTDIR/bench_gpu_prove.log" 2>&1
    log "bench_gpu_prove: exit $? ($(secs "$t0" "$(now)") s)"
fi

echo
echo "== gpu-check summary ($(date -u +%Y-%m-%dT%H:%MZ)) =="
cat "$SUMMARY"
if [ -f "$OUTDIR/bench_gpu.log" ]; then
    sed -n '/bench_gpu summary/,$p' "$OUTDIR/bench_gpu.log"
fi
if [ -f "$OUTDIR/bench_gpu_prove.log" ]; then
    echo "-- bench_gpu_prove --"
    sed -n '/^curve /,$p' "$OUTDIR/bench_gpu_prove.log"
fi
if [ "$LISTED" -eq 0 ]; then
    echo "gpu-check: FAILED: no NVIDIA device listed by nvidia-smi -L"
    status=1
fi
exit $status
