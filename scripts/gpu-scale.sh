#!/bin/sh
# Filecoin-scale measurements on a GPU machine, in one run:
#   1. build the GPU tests, bench_gpu_prove and cuzk (CUDA, sm_90) unless
#      CUZK_SCALE_PREBUILT names a build directory that has them;
#   2. the correctness checks of the key tiers and batches (test_gpu_msm,
#      test_gpu_prove with dev keys up to 2^CUZK_SCALE_TEST_LOG, verified;
#      test_engine_gpu);
#   3. bench_gpu_prove (BLS12-381) at each size of CUZK_SCALE_LOGS
#      (default 24) and each configuration of CUZK_SCALE_CONFIGS:
#        device:B     key resident, batches of B partitions
#        pinned:B     key in pinned host memory, streamed per MSM
#        capG:B       a device-memory cap of G GiB (the tier follows)
#      default "device:1 device:4 pinned:1 pinned:4 cap16:1 cap16:4";
#   4. a table of every run last.
# Logs go to $OUT (default ./gpu-out).  Exit 1 when a check fails.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUTDIR=${OUT:-$PWD/gpu-out}
mkdir -p "$OUTDIR"
B=${CUZK_SCALE_PREBUILT:-$SRC/build-gpu-scale}
LOGS=${CUZK_SCALE_LOGS:-24}
CONFIGS=${CUZK_SCALE_CONFIGS:-"device:1 device:4 pinned:1 pinned:4 cap16:1 cap16:4"}
TEST_LOG=${CUZK_SCALE_TEST_LOG:-18}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
PATH=$PATH:/usr/local/cuda/bin
fail=0
summary=$OUTDIR/scale-summary.txt
: >"$summary"

if [ ! -x "$B/bench_gpu_prove" ] || [ "${CUZK_SCALE_SKIP_TESTS:-0}" != 1 -a ! -x "$B/test_gpu_prove" ]; then
    # no daemon or daemon client here (their libraries may be absent)
    cmake -S "$SRC" -B "$B" -DCUZK_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_DAEMON=OFF -DCUZK_CLIENT=OFF ${CMAKE_ARGS:-} >"$OUTDIR/scale-config.log" 2>&1
    for t in test_gpu_msm test_gpu_prove test_engine_gpu bench_gpu_prove; do
        cmake --build "$B" -j "$JOBS" --target $t >>"$OUTDIR/scale-build.log" 2>&1 ||
            { echo "build of $t failed (see scale-build.log)"; fail=1; }
    done
fi

if [ "${CUZK_SCALE_SKIP_TESTS:-0}" != 1 ]; then
    logs=10,14,$TEST_LOG
    for t in test_gpu_msm test_gpu_prove test_engine_gpu; do
        start=$(date +%s)
        CUZK_GPU_PROVE_LOGS=$logs timeout 400 "$B/$t" >"$OUTDIR/scale-$t.log" 2>&1
        rc=$?
        res=$(grep -E "passed|failed" "$OUTDIR/scale-$t.log" | tail -1)
        printf 'test %-18s rc %3d %4d s  %s\n' "$t" "$rc" $(( $(date +%s) - start )) "$res" >>"$summary"
        [ $rc -eq 0 ] || fail=1
    done
fi

if [ "${CUZK_SCALE_SKIP_BENCH:-0}" != 1 ]; then
    for lg in $(echo "$LOGS" | tr ',' ' '); do
        for cfg in $CONFIGS; do
            mode=${cfg%%:*}
            batch=${cfg##*:}
            args="--curve bls12_381 --logs $lg --reps ${CUZK_SCALE_REPS:-2} --batch $batch"
            case $mode in
            device) ;;
            pinned) args="$args --host-bases" ;;
            cap*) args="$args --mem-limit-gib ${mode#cap}" ;;
            esac
            log=$OUTDIR/scale-bench-$lg-$mode-$batch.log
            timeout 500 "$B/bench_gpu_prove" $args >"$log" 2>&1
            rc=$?
            row=$(grep -E "^bls12381 +$lg " "$log" | tail -1)
            printf 'bench 2^%s %-8s batch %-2s rc %d | %s\n' "$lg" "$mode" "$batch" $rc "$row" >>"$summary"
            [ $rc -eq 0 ] || fail=1
        done
    done
fi
echo "== gpu-scale: $(date -u +%F) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
echo "bench columns: curve log2 key tier batch keyMB upload-s best-ms median eval ntt A B1 C H B2 devpeak (ms per partition)"
cat "$summary"
exit $fail
