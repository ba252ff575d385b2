#!/bin/sh
# One GPU-machine run that builds cuzk (CUDA, sm_90) and, as the stages in
# CUZK_SESSION_STAGES ask (default "tests prove engine filecoin"):
#   tests     every GPU test (test_gpu_*, test_engine_gpu), one log each;
#   field     bench_gpu's product throughput (current and previous forms);
#   msm       bench_gpu's MSMs to 2^24, plain bases, with the accumulation
#             CUZK_SESSION_MSM_ACCUM (xyzz, affine or both), and G1 with
#             level 1 built for 3 blocks per multiprocessor;
#   ntt       bench_gpu --ntt-ab: the small-tile NTT plan against the
#             fixed one, 2^12..2^24, and H's transforms;
#   ncu       Nsight Compute counters of the MSM accumulation kernels
#             (batch-affine and XYZZ), where the machine lets ncu read them;
#   prove     bench_gpu_prove: BLS12-381 2^20 and 2^24, BN254 2^24, key
#             resident (the whole-proof figures of docs/PERFORMANCE.md), and
#             the 2^24 proofs again with shifted copies of the bases;
#   engine    cuzk bench engine --device gpu at 2^24 (timing key, 3 jobs of 4
#             partitions): the busy / idle-with-work split between partitions;
#   filecoin  cuzk bench filecoin --proof porep at 2^CUZK_SESSION_FC_LOG
#             (default 24), resident and with a 16 GiB device cap;
#   stream    bench_gpu --host-bases: MSMs over bases in pinned host memory
#             against the same bases resident (and resident unbounded),
#             BLS12-381 G1 and G2 at 2^24, 2^26, 2^27, batches of 4 and 10;
#   prove26   bench_gpu_prove at 2^26 (BLS12-381): the key resident, then in
#             pinned host memory with batches of 1, 4 and 10, without and
#             with a 16 GiB device cap.
#   porep     bench_gpu_prove, the porep profile (zero columns: a compact
#             key) at 2^CUZK_SESSION_POREP_LOG (default 24): bit-scalar sums
#             on and off, B2 on the device and on the host's threads, with
#             the witness and with a, b, c as input;
#   porep27   the same at 2^27, a, b, c as input, the key resident;
#   porep27cap  2^27, the key in pinned host memory under a 16 GiB cap.
#   verify    the cost of self-verification on a GPU device: cuzk bench
#             engine at 2^CUZK_SESSION_VERIFY_LOGS (default "20 22",
#             BLS12-381, a development key: proofs that verify), without
#             and with --verify, alternating, 3 rounds each.
# Prints a table last; logs go to $OUT (default ./gpu-out).  Uses the
# libraries of a .devdeps prefix when one is present (a bare GPU machine;
# scripts/gpu-devdeps.sh makes it).
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUTDIR=${OUT:-$PWD/gpu-out}
B=${CUZK_SESSION_BUILD:-$SRC/build-gpu-session}
STAGES=${CUZK_SESSION_STAGES:-"tests prove engine filecoin"}
FC_LOG=${CUZK_SESSION_FC_LOG:-24}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
PATH=$PATH:/usr/local/cuda/bin
mkdir -p "$OUTDIR"
sum=$OUTDIR/session-summary.txt
: >"$sum"
fail=0
extra=""
if [ -f "$SRC/.devdeps/setup.sh" ]; then
    . "$SRC/.devdeps/setup.sh"
    # no libcurl or libpq for development there: no daemon client, no fleet
    extra="-DCMAKE_LIBRARY_PATH=$SRC/.devdeps/lnk -DCMAKE_INCLUDE_PATH=$SRC/.devdeps/include
           -DCUZK_CLIENT=OFF -DCUZK_FLEET=OFF -DCUZK_DAEMON=OFF"
fi
t0=$(date +%s)
cmake -S "$SRC" -B "$B" -DCUZK_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 $extra ${CMAKE_ARGS:-} >"$OUTDIR/session-config.log" 2>&1 ||
    { echo "configure failed"; tail -20 "$OUTDIR/session-config.log"; exit 1; }
targets="cuzk-cli bench_gpu bench_gpu_prove"
GPU_TESTS=""
for f in "$SRC"/tests/test_gpu_*.c "$SRC"/tests/test_engine_gpu.c "$SRC"/tests/test_engine_abc.c; do
    [ -f "$f" ] && GPU_TESTS="$GPU_TESTS $(basename "$f" .c)"
done
targets="$targets $GPU_TESTS"
cmake --build "$B" -j "$JOBS" --target $targets >"$OUTDIR/session-build.log" 2>&1 ||
    { echo "build failed"; grep -m20 -B2 -A5 'error' "$OUTDIR/session-build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s" >>"$sum"

run() { # name timeout cmd...
    name=$1; to=$2; shift 2
    s=$(date +%s)
    # line-buffered: a run cut short by a time limit still leaves its lines
    echo "$(date -u +%T) start: $*" >"$OUTDIR/$name.log"
    timeout "$to" stdbuf -oL -eL "$@" >>"$OUTDIR/$name.log" 2>&1
    rc=$?
    printf '%-28s rc %3d %4d s\n' "$name" $rc $(( $(date +%s) - s )) >>"$sum"
    [ $rc -eq 0 ] || fail=1
    return $rc
}
for st in $STAGES; do
    case $st in
    tests)
        for t in $GPU_TESTS; do
            # CUZK_SESSION_TESTS: a space-separated subset
            case " ${CUZK_SESSION_TESTS:-$t} " in *" $t "*) ;; *) continue ;; esac
            run "$t" 400 "$B/$t"
            grep -E "passed|failed" "$OUTDIR/$t.log" | tail -1 | sed 's/^/    /' >>"$sum"
        done ;;
    ntt)
        # the small-tile plan against the fixed one, and H's transforms
        run ntt-ab 200 "$B/bench_gpu" --skip-msm --skip-field --ntt-ab --ntt-min-log 12 \
            --ntt-max-log 24 --reps 5
        grep -E "^bench_gpu: (ntt-ab|H transforms|ntt .*forward 2\^(20|22|24))" "$OUTDIR/ntt-ab.log" |
            cut -c1-120 | sed 's/^/    /' >>"$sum" ;;
    ncu)
        # hardware counters of the batch-affine levels and the XYZZ level 1
        # (BLS12-381 G1 2^20, the first launches), where ncu can read them
        export CUZK_GPU_MSM_ACCUM=affine
        run ncu-msm 240 ncu --clock-control none --kernel-name regex:'k_msm_(aff|acc)' \
            --launch-count 3 --section SpeedOfLight --section Occupancy \
            --section WarpStateStats --section MemoryWorkloadAnalysis \
            "$B/bench_gpu" --skip-field --skip-ntt --no-shifted --msm-only G1 \
            --msm-max-log 20 --reps 1
        unset CUZK_GPU_MSM_ACCUM
        grep -E "k_msm_|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per" \
            "$OUTDIR/ncu-msm.log" | head -40 | sed 's/^/    /' >>"$sum" ;;
    prove)
        run prove-bls-20 200 "$B/bench_gpu_prove" --curve bls12_381 --logs 20 --reps 5
        run prove-bls-24 400 "$B/bench_gpu_prove" --curve bls12_381 --logs 24 --reps 3
        run prove-bn-24 400 "$B/bench_gpu_prove" --curve bn254 --logs 24 --reps 3
        # shifted copies of the base sets within 60 GiB (cuzk_gpu_key_precompute)
        run prove-bls-24-shifted 400 "$B/bench_gpu_prove" --curve bls12_381 --logs 24 --reps 3 \
            --shifted-gib 60
        run prove-bn-24-shifted 400 "$B/bench_gpu_prove" --curve bn254 --logs 24 --reps 3 \
            --shifted-gib 60
        for l in prove-bls-20 prove-bls-24 prove-bn-24 prove-bls-24-shifted prove-bn-24-shifted; do
            grep -E "^(bls12381|bn128|bn254) +[0-9]+ " "$OUTDIR/$l.log" | tail -1 | sed 's/^/    /' >>"$sum"
        done ;;
    field)
        run field 120 "$B/bench_gpu" --skip-msm --skip-ntt
        grep -E "^bench_gpu: field .*product eo-32" "$OUTDIR/field.log" | sed 's/^/    /' >>"$sum" ;;
    msm)
        # CUZK_SESSION_MSM_ACCUM: xyzz (default), affine or both
        run msm-accum 400 "$B/bench_gpu" --skip-field --skip-ntt --no-shifted \
            --msm-accum "${CUZK_SESSION_MSM_ACCUM:-xyzz}" --msm-max-log 24 --reps 3
        grep -E "^bench_gpu: msm .* 2\^(20|24): " "$OUTDIR/msm-accum.log" | cut -c1-110 | tail -24 | sed 's/^/    /' >>"$sum"
        # level 1 of G1 built for 3 blocks per multiprocessor (msm_run.cu, MB)
        export CUZK_GPU_MSM_ACC_MINB=3
        run msm-minb3 200 "$B/bench_gpu" --skip-field --skip-ntt \
            --no-shifted --msm-only G1 --msm-max-log 24 --reps 3
        unset CUZK_GPU_MSM_ACC_MINB
        grep -E "^bench_gpu: msm .* 2\^(20|24): " "$OUTDIR/msm-minb3.log" | cut -c1-110 | sed 's/^/    minb3 /' >>"$sum" ;;
    verify)
        mkdir -p /tmp/fv
        for lg in ${CUZK_SESSION_VERIFY_LOGS:-20 22}; do
            for r in 1 2 3; do
                for v in off on; do
                    fl=""; [ $v = on ] && fl=--verify
                    run verify-$lg-$v-$r 280 "$B/cuzk" bench engine --device gpu --curve bls12_381 \
                        --log2 "$lg" -n 4 -k 4 --dir /tmp/fv/$lg $fl
                    grep -E "partitions/s|per partition|FAILED" "$OUTDIR/verify-$lg-$v-$r.log" |
                        sed "s/^/    $lg $v $r/" >>"$sum"
                done
            done
        done
        rm -rf /tmp/fv ;;
    engine)
        mkdir -p /tmp/fc
        run engine-24 500 "$B/cuzk" bench engine --device gpu --curve bls12_381 --log2 24 \
            -n ${CUZK_SESSION_ENGINE_JOBS:-3} -k 4 --timing-key --dir /tmp/fc --trace "$OUTDIR/engine-24.trace.json"
        grep -iE "busy|idle|proofs/s|partition" "$OUTDIR/engine-24.log" | head -12 | sed 's/^/    /' >>"$sum"
        rm -rf /tmp/fc ;; # a 2^24 key is 11 GB: the host's disk is 64 GiB
    filecoin)
        # the key is made in memory by the engine (no files: 2^27 would not fit the disk)
        run filecoin-$FC_LOG 560 "$B/cuzk" bench filecoin --proof porep --log2 "$FC_LOG" --proofs 2
        tail -12 "$OUTDIR/filecoin-$FC_LOG.log" | sed 's/^/    /' >>"$sum"
        if [ "${CUZK_SESSION_FC_CAP:-1}" = 1 ]; then
            run filecoin-$FC_LOG-cap16 560 "$B/cuzk" bench filecoin --proof porep --log2 "$FC_LOG" --proofs 2 \
                --gpu-mem-limit-gib 16
            tail -12 "$OUTDIR/filecoin-$FC_LOG-cap16.log" | sed 's/^/    /' >>"$sum"
        fi ;;
    stream)
        run stream-bench 580 "$B/bench_gpu" --host-bases --msm-only "${CUZK_SESSION_STREAM_ONLY:-bls12_381}" \
            --logs "${CUZK_SESSION_STREAM_LOGS:-24,26,27}" --batches 4,10 --reps 3
        grep -E "^bench_gpu: host bases" "$OUTDIR/stream-bench.log" | cut -c1-330 | sed 's/^/    /' >>"$sum" ;;
    prove26)
        run prove26-resident 240 "$B/bench_gpu_prove" --curve bls12_381 --logs 26 --reps 2 \
            --mem-limit-gib 135
        run prove26-host 330 "$B/bench_gpu_prove" --curve bls12_381 --logs 26 --reps 2 --host-bases \
            --batch 1,4,10 --mem-limit-gib 135
        run prove26-host-cap16 200 "$B/bench_gpu_prove" --curve bls12_381 --logs 26 --reps 2 \
            --host-bases --batch 1,4,10 --mem-limit-gib 16
        for l in prove26-resident prove26-host prove26-host-cap16; do
            grep -E "^(bls12381|bn128|bn254) +[0-9]+ |key:|GPU (key|prover)|batch [0-9]+:" \
                "$OUTDIR/$l.log" | cut -c1-300 | sed "s/^/    $l /" >>"$sum"
        done ;;
    porep)
        PL=${CUZK_SESSION_POREP_LOG:-24}
        # CUZK_SESSION_POREP_B2=both adds B2 on the host's threads
        run porep-$PL 400 "$B/bench_gpu_prove" --curve bls12_381 --profile porep --logs "$PL" \
            --reps 2 --ones both --b2 "${CUZK_SESSION_POREP_B2:-gpu}"
        run porep-$PL-abc 300 "$B/bench_gpu_prove" --curve bls12_381 --profile porep --logs "$PL" \
            --reps 2 --b2 "${CUZK_SESSION_POREP_B2:-gpu}" --input abc
        for l in porep-$PL porep-$PL-abc; do
            grep -E "^bls12381 +[0-9]+ |GiB \(profile|key:" "$OUTDIR/$l.log" | cut -c1-250 |
                sed "s/^/    $l /" >>"$sum"
        done ;;
    porep27)
        run porep27 580 "$B/bench_gpu_prove" --curve bls12_381 --profile porep --logs 27 \
            --reps 2 --ones both --input abc
        grep -E "^bls12381 +[0-9]+ |GiB \(profile|key:|a, b, c evaluated" "$OUTDIR/porep27.log" |
            cut -c1-250 | sed "s/^/    porep27 /" >>"$sum" ;;
    porep27cap)
        run porep27-cap16 580 "$B/bench_gpu_prove" --curve bls12_381 --profile porep --logs 27 \
            --reps 2 --host-bases --mem-limit-gib 16 --input abc
        grep -E "^bls12381 +[0-9]+ |GiB \(profile|key:|a, b, c evaluated" "$OUTDIR/porep27-cap16.log" |
            cut -c1-250 | sed "s/^/    porep27cap /" >>"$sum" ;;
    esac
done
echo "== gpu-session $(date -u '+%F %T') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null) total $(( $(date +%s) - t0 )) s"
cat "$sum"
exit $fail
