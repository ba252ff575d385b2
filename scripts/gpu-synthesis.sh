#!/usr/bin/env bash
# The proving pipeline under real synthesis cost, on a GPU machine: a backlog
# of jobs whose witnesses are computed from circom inputs by the engine's
# synthesis workers (witness/wc.h) while the GPU proves, for both curves and
# several synthesis-worker counts.  For each run it prints partitions/s and
# the GPU's busy / starved (synthesis behind) / idle-with-work split that
# `cuzk bench engine` reports, then a short table last.
#
# Usage: scripts/gpu-synthesis.sh CIRCUIT_DIR
#   CIRCUIT_DIR holds, per curve (bn128, bls12381), a folder with
#   chain.wasm, chain.r1cs (or chain.r1cs.gz) and chain.input.json: a long
#   Poseidon chain (bench/witness/make_chain.sh makes one; about 2^16
#   constraints keeps the witness longer than the GPU step).
# Environment:
#   CUZK            the cuzk binary (default build/cuzk)
#   OUT             logs (default ./gpu-out)
#   SYNTH_WORKERS   worker counts to try (default "1 2 4 8 14")
#   JOBS, PARTS     jobs and partitions per job (default 24 and 4)
#   CURVES          default "bn128 bls12381"
set -uo pipefail
DIR=${1:?usage: scripts/gpu-synthesis.sh CIRCUIT_DIR}
CUZK=${CUZK:-build/cuzk}
OUTDIR=${OUT:-$PWD/gpu-out}
WORKERS=${SYNTH_WORKERS:-"1 2 4 8 14"}
JOBS=${JOBS:-24}
PARTS=${PARTS:-4}
CURVES=${CURVES:-"bn128 bls12381"}
mkdir -p "$OUTDIR"
TABLE="$OUTDIR/synthesis-table.txt"
: >"$TABLE"
fail=0

for c in $CURVES; do
    d=$DIR/$c
    work=$(mktemp -d)
    r1cs=$d/chain.r1cs
    if [ ! -f "$r1cs" ] && [ -f "$r1cs.gz" ]; then
        gzip -dc "$r1cs.gz" >"$work/chain.r1cs"
        r1cs=$work/chain.r1cs
    fi
    zkey=$work/chain.zkey
    echo "== $c: development key"
    if ! "$CUZK" setup --dev "$r1cs" "$zkey" >"$OUTDIR/setup-$c.log" 2>&1; then
        echo "gpu-synthesis: setup failed for $c"; tail -5 "$OUTDIR/setup-$c.log"; fail=1; continue
    fi
    # one fullprove first: compiles the circuit (timed) and checks a proof end to end
    "$CUZK" zkey export-vk "$zkey" "$work/vk.json" >/dev/null 2>&1
    "$CUZK" fullprove -v --verify "$d/chain.input.json" "$d/chain.wasm" "$zkey" \
        "$work/proof.json" "$work/public.json" >"$OUTDIR/fullprove-$c.log" 2>&1 || fail=1
    "$CUZK" verify "$work/vk.json" "$work/public.json" "$work/proof.json" >>"$OUTDIR/fullprove-$c.log" 2>&1 || fail=1
    cat "$OUTDIR/fullprove-$c.log"
    for w in $WORKERS; do
        log="$OUTDIR/engine-$c-w$w.log"
        echo "== $c: $JOBS jobs x $PARTS partitions from inputs, $w synthesis workers"
        "$CUZK" bench engine --device gpu --circuit "$d/chain.wasm" --zkey "$zkey" \
            --input "$d/chain.input.json" -n "$JOBS" -k "$PARTS" --synth-workers "$w" \
            >"$log" 2>&1 || fail=1
        cat "$log"
        rate=$(grep -oE '[0-9.]+ partitions/s' "$log" | head -1)
        dev=$(grep -E '^ *(device )?gpu0' "$log" | head -1 | tr -s ' ')
        echo "$c w=$w | $rate | $dev" >>"$TABLE"
    done
    rm -rf "$work"
done
echo
echo "== synthesis pipeline (H200 host, $(nproc) cores)"
cat "$TABLE"
exit $fail
