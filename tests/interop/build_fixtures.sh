#!/usr/bin/env bash
# Builds the circom/snarkjs interop fixtures of cuzk into the directory given
# as the first argument: for each circuit in circuits/ and each curve (bn128,
# bls12381) the .r1cs, the .wtns of circuits/<name>.input.json, a Groth16
# .zkey with one phase-2 contribution (so delta != generator), the exported
# verification key, and a snarkjs proof with its public signals.  The
# multiplier also keeps its fresh-setup zkey (multiplier_0000.zkey), whose
# sections are physically out of id order (1,2,4,3,9,8,5,6,7,10).
#
# It does not touch the committed fixtures unless asked to write there, and it
# needs only `npm ci` in this folder (snarkjs 0.7.6, circom2, circomlib).
# Randomness comes from snarkjs (entropy mixed with the OS RNG), so two runs
# give different keys; the fixtures are made once and committed.
#
# Usage: tests/interop/build_fixtures.sh OUT_DIR [PTAU_POWER]
#   PTAU_POWER defaults to 10 (domains up to 2^10); the largest circuit here
#   needs 2^9.  Reuses OUT_DIR/ptau/<curve>.ptau when present.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: build_fixtures.sh OUT_DIR [PTAU_POWER]}
POWER=${2:-10}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SNARKJS=(node "$HERE/node_modules/snarkjs/build/cli.cjs")
CIRCOM=(node "$HERE/node_modules/circom2/cli.js")
CURVES=(bn128 bls12381)
CIRCUITS=(multiplier poseidon_chain merkle many_public)

if [ ! -d "$HERE/node_modules/snarkjs" ]; then
    echo "build_fixtures: run 'npm ci' in $HERE first" >&2
    exit 1
fi

# circom optimisation level per circuit: --O2 substitutes linear constraints
# away (dense rows, small domain); --O1 keeps them (rows with A = B = empty).
opt_level() {
    case "$1" in
    poseidon_chain | merkle) echo --O2 ;;
    *) echo --O1 ;;
    esac
}

log() { printf '[%5ss] %s\n' "$SECONDS" "$*"; }

make_ptau() {
    local curve=$1 dir=$OUT/ptau
    mkdir -p "$dir"
    if [ -f "$dir/$curve.ptau" ]; then
        log "ptau $curve: reusing $dir/$curve.ptau"
        return
    fi
    log "ptau $curve: new power $POWER"
    "${SNARKJS[@]}" powersoftau new "$curve" "$POWER" "$dir/${curve}_0000.ptau" >/dev/null
    "${SNARKJS[@]}" powersoftau contribute "$dir/${curve}_0000.ptau" "$dir/${curve}_0001.ptau" \
        --name="cuzk fixtures" -e="cuzk fixtures $curve $RANDOM$RANDOM" >/dev/null
    log "ptau $curve: prepare phase2"
    "${SNARKJS[@]}" powersoftau prepare phase2 "$dir/${curve}_0001.ptau" "$dir/$curve.ptau" >/dev/null
    rm -f "$dir/${curve}_0000.ptau" "$dir/${curve}_0001.ptau"
}

build_circuit() {
    local curve=$1 name=$2 dir=$OUT/$1 tmp=$OUT/tmp/$1
    mkdir -p "$dir" "$tmp"
    log "$curve/$name: compile ($(opt_level "$name"))"
    "${CIRCOM[@]}" "$HERE/circuits/$name.circom" --r1cs --wasm "$(opt_level "$name")" \
        --prime "$curve" -o "$tmp" >"$tmp/$name.circom.log"
    cp "$tmp/$name.r1cs" "$dir/$name.r1cs"
    "${SNARKJS[@]}" wtns calculate "$tmp/${name}_js/$name.wasm" \
        "$HERE/circuits/$name.input.json" "$dir/$name.wtns"
    "${SNARKJS[@]}" wtns check "$dir/$name.r1cs" "$dir/$name.wtns" >/dev/null
    log "$curve/$name: setup + contribution"
    "${SNARKJS[@]}" groth16 setup "$dir/$name.r1cs" "$OUT/ptau/$curve.ptau" \
        "$tmp/${name}_0000.zkey" >/dev/null
    "${SNARKJS[@]}" zkey contribute "$tmp/${name}_0000.zkey" "$dir/$name.zkey" \
        --name="cuzk" -e="cuzk $name $RANDOM$RANDOM" >/dev/null
    if [ "$name" = multiplier ]; then
        cp "$tmp/${name}_0000.zkey" "$dir/${name}_0000.zkey"
    fi
    "${SNARKJS[@]}" zkey export verificationkey "$dir/$name.zkey" "$dir/$name.vk.json" >/dev/null
    log "$curve/$name: prove + verify"
    "${SNARKJS[@]}" groth16 prove "$dir/$name.zkey" "$dir/$name.wtns" \
        "$dir/$name.proof.json" "$dir/$name.public.json"
    "${SNARKJS[@]}" groth16 verify "$dir/$name.vk.json" "$dir/$name.public.json" \
        "$dir/$name.proof.json" | grep -q "OK"
}

for curve in "${CURVES[@]}"; do
    make_ptau "$curve"
    for name in "${CIRCUITS[@]}"; do
        build_circuit "$curve" "$name"
    done
done
rm -rf "$OUT/tmp"

{
    echo "# cuzk interop fixtures, made by tests/interop/build_fixtures.sh"
    echo "# $(${CIRCOM[@]} --version 2>&1 | tr '\n' ' ')"
    echo "# snarkjs $(node -p "require('$HERE/node_modules/snarkjs/package.json').version")," \
        "circomlib $(node -p "require('$HERE/node_modules/circomlib/package.json').version")," \
        "ptau power $POWER"
    (cd "$OUT" && find bn128 bls12381 -type f | sort | xargs sha256sum)
} >"$OUT/MANIFEST"
log "done: $(du -sh --exclude=ptau "$OUT" | cut -f1) without ptau, $(du -sh "$OUT/ptau" | cut -f1) of ptau"
