#!/usr/bin/env bash
# Makes a circom Poseidon chain of N links for witness and pipeline
# benchmarks: h_0 = x, h_{i+1} = Poseidon(h_i, k_i), out = h_N, x public.
# Each link is 240 constraints under --O2 (circomlib's Poseidon(2)), so
# N = 273 gives 65,520 constraints (just under 2^16); under --O1 (see
# CIRCOM_OPT) a link is 517, and N = 2028 gives 1,048,476 (just under
# 2^20), which --O2 cannot compile in circom2's memory.
#
# With KIND=sha256 in the environment it makes instead the SHA-256 of N
# bytes (circomlib's Sha256 over the bytes' bits, each byte split by
# Num2Bits(8)): a circuit of bit operations rather than field products,
# named sha256_N; N = 192 (four 512-bit blocks) is 121,473 constraints.
#
# Writes into OUT_DIR (created), NAME being chain_N (chain_N_O1 under
# --O1) or sha256_N:
#   NAME.circom                    the circuit source
#   NAME_CURVE.wasm                witness calculator (circom --wasm)
#   NAME_CURVE.r1cs                constraints
#   NAME_CURVE.input.json          an input (fixed values)
#   NAME_CURVE.zkey                INSECURE development key (cuzk setup --dev),
#                                  only when CUZK is set (path to cuzk) or
#                                  cuzk is on the PATH
#   NAME_CURVE_cpp/                circom's C++ generator sources, with
#                                  --cpp as the fourth argument (`make`
#                                  there builds the generator NAME)
# and prints the constraint count.  Existing outputs are kept (delete them
# to remake).  circom and snarkjs come from tests/interop's npm packages
# (npm ci there first).
#
# Usage: [KIND=sha256] bench/witness/make_chain.sh N CURVE OUT_DIR [--cpp]
#   CURVE: bn128 or bls12381
set -euo pipefail

N=${1:?usage: make_chain.sh N CURVE OUT_DIR [--cpp]}
CURVE=${2:?usage: make_chain.sh N CURVE OUT_DIR [--cpp]}
OUT=${3:?usage: make_chain.sh N CURVE OUT_DIR [--cpp]}
CPP=${4:-}
# circom optimisation level: CIRCOM_OPT=--O1 keeps the linear constraints
# (more constraints per link, and a compile that needs far less memory:
# circom2 runs in 32-bit WebAssembly, at most 4 GiB, and its --O2 runs
# out of it near 2^20 constraints).
OPT=${CIRCOM_OPT:---O2}
case "$OPT" in --O0 | --O1 | --O2) ;; *) echo "make_chain: CIRCOM_OPT must be --O0, --O1 or --O2" >&2; exit 2 ;; esac
KIND=${KIND:-chain}
case "$KIND" in chain | sha256) ;; *) echo "make_chain: KIND must be chain or sha256" >&2; exit 2 ;; esac
case "$CURVE" in bn128 | bls12381) ;; *) echo "make_chain: curve must be bn128 or bls12381" >&2; exit 2 ;; esac
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "make_chain: N must be a positive integer" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
NPM=$SRC/tests/interop/node_modules
[ -d "$NPM/circom2" ] && [ -d "$NPM/circomlib" ] ||
    { echo "make_chain: run 'npm ci' in $SRC/tests/interop first" >&2; exit 1; }
CIRCOM=(node "$NPM/circom2/cli.js")
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
CUZK=${CUZK:-$(command -v cuzk || true)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
name=${KIND}_$N
[ "$OPT" = --O2 ] || name=${KIND}_${N}_${OPT#--}
base=$OUT/${name}_$CURVE

if [ "$KIND" = sha256 ]; then
    cat >"$OUT/$name.circom" <<EOF
// SHA-256 of $N bytes (made by bench/witness/make_chain.sh).
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
EOF
else
    cat >"$OUT/$name.circom" <<EOF
// Poseidon chain of $N links (made by bench/witness/make_chain.sh).
pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

template PoseidonChain(n) {
    signal input x;
    signal input k[n];
    signal output out;
    component h[n];
    for (var i = 0; i < n; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== i == 0 ? x : h[i - 1].out;
        h[i].inputs[1] <== k[i];
    }
    out <== h[n - 1].out;
}

component main {public [x]} = PoseidonChain($N);
EOF
fi

if [ ! -f "$base.wasm" ] || [ ! -f "$base.r1cs" ] || { [ "$CPP" = --cpp ] && [ ! -d "${base}_cpp" ]; }; then
    tmp=$OUT/tmp_${name}_$CURVE
    rm -rf "$tmp"
    mkdir -p "$tmp"
    flags=(--r1cs --wasm)
    [ "$CPP" = --cpp ] && flags+=(--c)
    start=$(date +%s.%N)
    # from the source root: circom2 (WASI) resolves include paths only
    # below its working directory's preopened parents, not through ".."
    (cd "$SRC" && "${CIRCOM[@]}" "$OUT/$name.circom" "${flags[@]}" "$OPT" --prime "$CURVE" -l "$NPM" \
        -o "$tmp" >"$tmp/circom.log" 2>&1) || { cat "$tmp/circom.log" >&2; exit 1; }
    echo "make_chain: circom ${flags[*]} $OPT --prime $CURVE: $(elapsed "$start") s"
    mv "$tmp/${name}_js/$name.wasm" "$base.wasm"
    mv "$tmp/$name.r1cs" "$base.r1cs"
    if [ "$CPP" = --cpp ]; then
        rm -rf "${base}_cpp"
        mv "$tmp/${name}_cpp" "${base}_cpp"
    fi
    rm -rf "$tmp"
fi

if [ ! -f "$base.input.json" ]; then
    python3 - "$N" "$base.input.json" "$KIND" <<'PY'
import json, sys
n = int(sys.argv[1])
if sys.argv[3] == "sha256":  # fixed bytes
    json.dump({"in": [str((i * 151 + 7) % 256) for i in range(n)]}, open(sys.argv[2], "w"))
else:  # fixed, spread-out values below both primes
    json.dump({"x": str(3 ** 100), "k": [str((i + 1) * 7919 ** 9 + i) for i in range(n)]},
              open(sys.argv[2], "w"))
PY
fi

if [ -n "$CUZK" ] && [ ! -f "$base.zkey" ]; then
    start=$(date +%s.%N)
    "$CUZK" setup --dev "$base.r1cs" "$base.zkey.tmp" 2>/dev/null
    mv "$base.zkey.tmp" "$base.zkey"
    echo "make_chain: cuzk setup --dev: $(elapsed "$start") s"
fi

constraints=$(node -e '
const fs = require("fs"); const b = fs.readFileSync(process.argv[1]);
// .r1cs: magic, version, nSections, then sections (type u32, size u64);
// the header section (type 1) holds n8, prime, nWires, nPubOut, nPubIn,
// nPrvIn, nLabels (u64), nConstraints.
let o = 12;
for (let s = 0; s < b.readUInt32LE(8); s++) {
  const type = b.readUInt32LE(o), size = Number(b.readBigUInt64LE(o + 4));
  if (type === 1) { const n8 = b.readUInt32LE(o + 12); console.log(b.readUInt32LE(o + 12 + 4 + n8 + 24)); break; }
  o += 12 + size;
}' "$base.r1cs")
what="$N links"
[ "$KIND" = chain ] || what="$N bytes"
echo "make_chain: $base.{wasm,r1cs,input.json$([ -f "$base.zkey" ] && echo ,zkey)}: $what, $constraints constraints"
