#!/usr/bin/env bash
# Makes a circom SHA-256 circuit for witness benchmarks: the hash of N
# bytes (circomlib's Sha256 over the bytes' bits, each byte split by
# Num2Bits(8)), a circuit of bit operations rather than field products:
# N = 192 (four 512-bit blocks) is about 120,000 constraints.
#
# Writes into OUT_DIR (created):
#   sha256_N.circom               the circuit source
#   sha256_N_CURVE.wasm           witness calculator (circom --wasm, --O2)
#   sha256_N_CURVE.r1cs           constraints
#   sha256_N_CURVE.input.json     an input (fixed bytes)
#   sha256_N_CURVE_cpp/           circom's C++ generator sources, with --cpp
# and prints the constraint count.  Existing outputs are kept.  circom
# comes from tests/interop's npm packages (npm ci there first).
#
# Usage: bench/witness/make_sha256.sh N CURVE OUT_DIR [--cpp]
set -euo pipefail

N=${1:?usage: make_sha256.sh N CURVE OUT_DIR [--cpp]}
CURVE=${2:?usage: make_sha256.sh N CURVE OUT_DIR [--cpp]}
OUT=${3:?usage: make_sha256.sh N CURVE OUT_DIR [--cpp]}
CPP=${4:-}
case "$CURVE" in bn128 | bls12381) ;; *) echo "make_sha256: curve must be bn128 or bls12381" >&2; exit 2 ;; esac
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "make_sha256: N must be a positive integer" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
NPM=$SRC/tests/interop/node_modules
[ -d "$NPM/circom2" ] && [ -d "$NPM/circomlib" ] ||
    { echo "make_sha256: run 'npm ci' in $SRC/tests/interop first" >&2; exit 1; }
CIRCOM=(node "$NPM/circom2/cli.js")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
name=sha256_$N
base=$OUT/${name}_$CURVE

cat >"$OUT/$name.circom" <<EOC
// SHA-256 of $N bytes (made by bench/witness/make_sha256.sh).
pragma circom 2.0.0;

include "circomlib/circuits/sha256/sha256.circom";
include "circomlib/circuits/bitify.circom";

template Sha256Bytes(n) {
    signal input in[n];
    signal output out[256];
    component bits[n];
    component h = Sha256(8 * n);
    for (var i = 0; i < n; i++) {
        bits[i] = Num2Bits(8);
        bits[i].in <== in[i];
        for (var j = 0; j < 8; j++) {
            h.in[8 * i + 7 - j] <== bits[i].out[j];
        }
    }
    out <== h.out;
}

component main = Sha256Bytes($N);
EOC

if [ ! -f "$base.wasm" ] || [ ! -f "$base.r1cs" ] || { [ "$CPP" = --cpp ] && [ ! -d "${base}_cpp" ]; }; then
    tmp=$OUT/tmp_${name}_$CURVE
    rm -rf "$tmp"
    mkdir -p "$tmp"
    flags=(--r1cs --wasm)
    [ "$CPP" = --cpp ] && flags+=(--c)
    # from the source root: circom2 (WASI) resolves include paths only
    # below its working directory's preopened parents
    (cd "$SRC" && "${CIRCOM[@]}" "$OUT/$name.circom" "${flags[@]}" --O2 --prime "$CURVE" -l "$NPM" \
        -o "$tmp" >"$tmp/circom.log" 2>&1) || { cat "$tmp/circom.log" >&2; exit 1; }
    mv "$tmp/${name}_js/$name.wasm" "$base.wasm"
    mv "$tmp/$name.r1cs" "$base.r1cs"
    if [ "$CPP" = --cpp ]; then
        rm -rf "${base}_cpp"
        mv "$tmp/${name}_cpp" "${base}_cpp"
    fi
    rm -rf "$tmp"
fi

[ -f "$base.input.json" ] ||
    python3 -c 'import json, sys; n = int(sys.argv[1]); json.dump({"in": [str((i * 151 + 7) % 256) for i in range(n)]}, open(sys.argv[2], "w"))' \
        "$N" "$base.input.json"

constraints=$(node -e '
const b = require("fs").readFileSync(process.argv[1]);
let o = 12;
for (let s = 0; s < b.readUInt32LE(8); s++) {
  const type = b.readUInt32LE(o), size = Number(b.readBigUInt64LE(o + 4));
  if (type === 1) { const n8 = b.readUInt32LE(o + 12); console.log(b.readUInt32LE(o + 12 + 4 + n8 + 24)); break; }
  o += 12 + size;
}' "$base.r1cs")
echo "make_sha256: $base.{wasm,r1cs,input.json}: $N bytes, $constraints constraints"
