#!/usr/bin/env bash
# Builds the circom fixtures of the witness tests into OUT_DIR: for each
# circuit circuits/NAME.circom and each curve C (bn128, bls12381), in
# OUT_DIR/C/:
#   NAME.wasm        the witness calculator (circom --wasm)
#   NAME.r1cs        the constraint system
#   NAME.input.json  a valid input (circuits/NAME.C.input.json when present,
#                    else circuits/NAME.input.json)
#   NAME.wtns        its witness, by `snarkjs wtns calculate`
#   NAME.zkey        an INSECURE development key (`cuzk setup --dev`)
#   NAME.vk.json     its verification key (`cuzk zkey export-vk`)
#   NAME.proof.json, NAME.public.json
#                    a snarkjs proof with that key (and its public signals),
#                    verified by snarkjs against the exported key
#
# The compile and witness step of a circuit is redone only when its sources
# change (a stamp file holds the hash of the .circom, its inputs, this
# script and the npm lock file); the key is redone when it is missing or
# older than the .r1cs.  Runs `npm ci` in tests/interop when its
# node_modules is missing.  Any failure stops the build with a non-zero exit.
#
# Usage: tests/witness/build.sh OUT_DIR CUZK_BIN
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
NPM_DIR=$SRC/tests/interop
OUT=${1:?usage: build.sh OUT_DIR CUZK_BIN}
CUZK=${2:?usage: build.sh OUT_DIR CUZK_BIN}
[ -x "$CUZK" ] && [ -f "$CUZK" ] || { echo "build.sh: $CUZK is not an executable" >&2; exit 1; }
CUZK=$(cd "$(dirname "$CUZK")" && pwd)/$(basename "$CUZK")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CURVES=(bn128 bls12381)
CIRCUITS=(poseidon_chain mimc merkle near_p arrays pedersen assert_fail)

log() { printf '[%4ss] %s\n' "$SECONDS" "$*"; }
die() { echo "build.sh: $*" >&2; exit 1; }

if [ ! -d "$NPM_DIR/node_modules/snarkjs" ] || [ ! -d "$NPM_DIR/node_modules/circom2" ] ||
    [ ! -d "$NPM_DIR/node_modules/circomlib" ]; then
    log "npm ci in $NPM_DIR"
    (cd "$NPM_DIR" && npm ci --no-audit --no-fund) || die "npm ci failed in $NPM_DIR"
fi
SNARKJS=(node "$NPM_DIR/node_modules/snarkjs/build/cli.cjs")
CIRCOM=(node "$NPM_DIR/node_modules/circom2/cli.js")

# circom's optimisation level: --O1 keeps the linear constraints (rows
# with A = B = 0) in the .r1cs, --O2 substitutes them away.
opt_level() {
    case "$1" in
    arrays | near_p) echo --O1 ;;
    *) echo --O2 ;;
    esac
}

input_of() { # curve name
    local f=$HERE/circuits/$2.$1.input.json
    [ -f "$f" ] || f=$HERE/circuits/$2.input.json
    echo "$f"
}

# Hash of everything the circom part of a fixture is made from.
source_hash() { # curve name
    cat "$HERE/circuits/$2.circom" "$(input_of "$1" "$2")" "$HERE/build.sh" "$NPM_DIR/package-lock.json" |
        sha256sum | cut -d' ' -f1
}

# run <log file> <command...>: runs quietly, shows the log on failure.
run() {
    local logf=$1
    shift
    if ! "$@" >"$logf" 2>&1; then
        echo "build.sh: failed: $*" >&2
        cat "$logf" >&2
        return 1
    fi
}

build_circuit() { # curve name
    local curve=$1 name=$2 dir=$OUT/$1 tmp=$OUT/tmp/$1/$2
    local stamp=$dir/$name.stamp hash
    hash="$(source_hash "$curve" "$name") $(opt_level "$name")"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ] && [ -f "$dir/$name.wasm" ] &&
        [ -f "$dir/$name.r1cs" ] && [ -f "$dir/$name.wtns" ]; then
        log "$curve/$name: up to date"
    else
        rm -f "$stamp"
        rm -rf "$tmp"
        mkdir -p "$tmp"
        log "$curve/$name: circom $(opt_level "$name")"
        # circom2 (WASI) is run from the source root: it reaches files
        # through preopened parents of its working directory, and include
        # paths do not resolve through "..".
        (cd "$SRC" && run "$tmp/circom.log" "${CIRCOM[@]}" "$HERE/circuits/$name.circom" --r1cs \
            --wasm "$(opt_level "$name")" --prime "$curve" -l "$NPM_DIR/node_modules" -o "$tmp")
        [ -f "$tmp/${name}_js/$name.wasm" ] && [ -f "$tmp/$name.r1cs" ] ||
            die "$curve/$name: circom wrote no .wasm/.r1cs (log: $tmp/circom.log)"
        cp "$(input_of "$curve" "$name")" "$tmp/$name.input.json"
        run "$tmp/wtns.log" "${SNARKJS[@]}" wtns calculate "$tmp/${name}_js/$name.wasm" \
            "$tmp/$name.input.json" "$tmp/$name.wtns"
        run "$tmp/check.log" "${SNARKJS[@]}" wtns check "$tmp/$name.r1cs" "$tmp/$name.wtns"
        grep -q "WITNESS IS CORRECT" "$tmp/check.log" ||
            die "$curve/$name: snarkjs wtns check did not pass: $(cat "$tmp/check.log")"
        for f in "$name.r1cs" "$name.wtns" "$name.input.json"; do
            mv "$tmp/$f" "$dir/$f"
        done
        mv "$tmp/${name}_js/$name.wasm" "$dir/$name.wasm"
        rm -f "$dir/$name.zkey" "$dir/$name.vk.json" "$dir/$name.proof.json" "$dir/$name.public.json"
        rm -rf "$tmp"
        echo "$hash" >"$stamp"
    fi

    if [ -f "$dir/$name.zkey" ] && [ "$dir/$name.zkey" -nt "$dir/$name.r1cs" ] &&
        [ -f "$dir/$name.vk.json" ] && [ -f "$dir/$name.public.json" ]; then
        return 0
    fi
    mkdir -p "$tmp"
    log "$curve/$name: dev key, snarkjs proof"
    run "$tmp/setup.log" "$CUZK" setup --dev "$dir/$name.r1cs" "$tmp/$name.zkey"
    run "$tmp/vk.log" "$CUZK" zkey export-vk "$tmp/$name.zkey" "$tmp/$name.vk.json"
    run "$tmp/prove.log" "${SNARKJS[@]}" groth16 prove "$tmp/$name.zkey" "$dir/$name.wtns" \
        "$tmp/$name.proof.json" "$tmp/$name.public.json"
    run "$tmp/verify.log" "${SNARKJS[@]}" groth16 verify "$tmp/$name.vk.json" \
        "$tmp/$name.public.json" "$tmp/$name.proof.json"
    grep -q "OK" "$tmp/verify.log" ||
        die "$curve/$name: snarkjs rejects its own proof with the dev key: $(cat "$tmp/verify.log")"
    for f in "$name.vk.json" "$name.proof.json" "$name.public.json" "$name.zkey"; do
        mv "$tmp/$f" "$dir/$f"
    done
    rm -rf "$tmp"
}

build_curve() { # curve
    mkdir -p "$OUT/$1"
    for name in "${CIRCUITS[@]}"; do
        build_circuit "$1" "$name"
    done
}

# The two curves build side by side (each circom and node run is
# single-threaded); the build fails if either does.
pids=()
for curve in "${CURVES[@]}"; do
    build_curve "$curve" &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
    wait "$pid" || status=1
done
[ $status -eq 0 ] || die "fixture build failed"
rm -rf "$OUT/tmp"
log "done: $OUT ($(du -sh "$OUT" | cut -f1))"
