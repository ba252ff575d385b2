#!/usr/bin/env bash
# Witness calculation time of `cuzk wtns calculate` (the circuit's wasm
# compiled to native code, cache warm; the one-time compile measured
# separately) against `snarkjs wtns calculate` (node, the wasm) and
# circom's own C++ generator (`circom --c`, built with g++/nasm/gmp/
# nlohmann-json), on Poseidon chains of about 2^16 and 2^20 constraints;
# then `cuzk fullprove` against `snarkjs groth16 fullprove` on the 2^16 one.
# One run of each, on whatever machine runs it; every witness is checked
# byte for byte against snarkjs's and both proofs with snarkjs.
#
# Usage: [CURVE=bls12381] bench/witness/run.sh OUT_DIR CUZK_BIN [LINKS...]
#   LINKS: chain lengths, N (circom --O2, 240 constraints a link) or N/O1
#   (--O1, 517 a link); default 273 2028/O1: 65,520 and 1,048,476
#   constraints (circom2 runs out of its 4 GiB at --O2 near 2^20).  The
#   first is also the fullprove circuit.  Circuits, keys and C++ builds in
#   OUT_DIR are reused by later runs; the compile cache of each circuit
#   (OUT_DIR/cache-NAME_CURVE) is emptied first so that the compile is measured.
# Needs: npm ci in tests/interop; g++, make, nasm, libgmp-dev,
# nlohmann-json3-dev for the C++ generator (that column is left out, with
# a note, when they are missing).  Results: OUT_DIR/results.txt.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
OUT=${1:?usage: run.sh OUT_DIR CUZK_BIN [LINKS...]}
CUZK=${2:?usage: run.sh OUT_DIR CUZK_BIN [LINKS...]}
shift 2
LINKS=("$@")
[ ${#LINKS[@]} -gt 0 ] || LINKS=(273 2028/O1)
CUZK=$(cd "$(dirname "$CUZK")" && pwd)/$(basename "$CUZK")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SNARKJS=(node "$SRC/tests/interop/node_modules/snarkjs/build/cli.cjs")
RES=$OUT/results.txt
CURVE=${CURVE:-bn128} # or CURVE=bls12381 in the environment

have_cpp=1
for tool in g++ make nasm; do command -v $tool >/dev/null || have_cpp=0; done
if [ $have_cpp -eq 1 ]; then
    printf '#include <gmp.h>\n#include <nlohmann/json.hpp>\n' | g++ -std=c++11 -E -x c++ - \
        >/dev/null 2>&1 || have_cpp=0
fi

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
note() { echo "$*" | tee -a "$RES"; }

# timed LABEL CMD...: runs CMD once, its output in OUT/LABEL.log; records
# the wall time in T.
timed() {
    local label=$1
    shift
    local t0 t1
    t0=$(now)
    if ! "$@" >"$OUT/$label.log" 2>&1; then
        echo "run.sh: failed: $*" >&2
        cat "$OUT/$label.log" >&2
        exit 1
    fi
    t1=$(now)
    T=$(secs "$t0" "$t1")
}

same() { # a b what
    if cmp -s "$1" "$2"; then echo "same bytes"; else echo "DIFFERENT from snarkjs ($3)"; fi
}

{
    echo "# cuzk witness benchmark, $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -m)"
    echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
    echo "# node $(node --version), snarkjs $(node -p "require('$SRC/tests/interop/node_modules/snarkjs/package.json').version"), $(node "$SRC/tests/interop/node_modules/circom2/cli.js" --version 2>&1 | tail -1), cc: $(cc --version | head -1)"
} >"$RES"
cat "$RES"

# chain N (circom --O2) or N/O1 (--O1): the base name make_chain.sh gives it
chain_base() {
    case "$1" in
    */*) echo "$OUT/chain_${1%/*}_${1#*/}_$CURVE" ;;
    *) echo "$OUT/chain_${1}_$CURVE" ;;
    esac
}

for spec in "${LINKS[@]}"; do
    n=${spec%/*}
    opt=--O2
    [ "$spec" = "$n" ] || opt=--${spec#*/}
    b=$(chain_base "$spec")
    cname=$(basename "${b%_"$CURVE"}")
    flag=()
    [ $have_cpp -eq 1 ] && flag=(--cpp)
    CUZK=$CUZK CIRCOM_OPT=$opt bash "$HERE/make_chain.sh" "$n" "$CURVE" "$OUT" "${flag[@]}" |
        tee "$OUT/make_$n.log"
    cons=$(tail -1 "$OUT/make_$n.log" | sed -n 's/.*links, \([0-9]*\) constraints/\1/p')
    note ""
    note "== Poseidon chain of $n links, circom $opt: $cons constraints, $CURVE, wasm $(du -h "$b.wasm" | cut -f1)"

    # cuzk: compile once into an empty cache, then a warm run
    cache=$OUT/cache-$(basename "$b")
    rm -rf "$cache"
    timed cuzk_cold_$n env CUZK_WC_CACHE="$cache" "$CUZK" wtns calculate -v "$b.wasm" \
        "$b.input.json" "$b.cuzk_cold.wtns"
    compile=$(sed -n 's/.*compiled .* in \([0-9.]*\) s.*/\1/p' "$OUT/cuzk_cold_$n.log")
    note "cuzk compile (first use, empty cache): ${compile:-?} s (whole first run $T s)"
    note "   CUZK_WC_CACHE=$cache cuzk wtns calculate -v $(basename "$b").wasm $(basename "$b").input.json w.wtns"
    timed cuzk_warm_$n env CUZK_WC_CACHE="$cache" "$CUZK" wtns calculate -v "$b.wasm" \
        "$b.input.json" "$b.cuzk.wtns"
    inner=$(sed -n 's/.*| witness \([0-9.]*\) s.*/\1/p' "$OUT/cuzk_warm_$n.log")
    note "cuzk wtns calculate, warm cache:  $T s wall (witness $inner s inside)"

    timed snarkjs_$n "${SNARKJS[@]}" wtns calculate "$b.wasm" "$b.input.json" "$b.snarkjs.wtns"
    note "snarkjs wtns calculate:           $T s wall"
    note "   node snarkjs/build/cli.cjs wtns calculate $(basename "$b").wasm $(basename "$b").input.json w.wtns"
    note "   cuzk vs snarkjs: $(same "$b.cuzk.wtns" "$b.snarkjs.wtns" cuzk)"

    if [ $have_cpp -eq 1 ]; then
        exe=${b}_cpp/$cname
        if [ ! -x "$exe" ]; then
            timed cpp_build_$n make -C "${b}_cpp" -j2
            note "circom C++ generator build (make -j2): $T s"
        fi
        timed cpp_$n "$exe" "$b.input.json" "$b.cpp.wtns"
        note "circom --c generator:             $T s wall"
        note "   $(basename "$b")_cpp/$cname $(basename "$b").input.json w.wtns"
        note "   circom C++ vs snarkjs: $(same "$b.cpp.wtns" "$b.snarkjs.wtns" cpp)"
    else
        note "circom --c generator: not measured (needs g++, make, nasm, libgmp-dev, nlohmann-json3-dev)"
    fi
done

# end to end on the first (smallest) chain
b=$(chain_base "${LINKS[0]}")
note ""
note "== fullprove, $(basename "$b")"
# the cache is warm from the runs above
timed cuzk_fullprove env CUZK_WC_CACHE="$OUT/cache-$(basename "$b")" "$CUZK" fullprove -v "$b.input.json" \
    "$b.wasm" "$b.zkey" "$OUT/cuzk.proof.json" "$OUT/cuzk.public.json"
note "cuzk fullprove -v (warm cache):   $T s wall"
sed 's/^/   | /' "$OUT/cuzk_fullprove.log" | tee -a "$RES"
timed snarkjs_fullprove "${SNARKJS[@]}" groth16 fullprove "$b.input.json" "$b.wasm" "$b.zkey" \
    "$OUT/snarkjs.proof.json" "$OUT/snarkjs.public.json"
note "snarkjs groth16 fullprove:        $T s wall"
"${SNARKJS[@]}" zkey export verificationkey "$b.zkey" "$OUT/vk.json" >/dev/null
for who in cuzk snarkjs; do
    if "${SNARKJS[@]}" groth16 verify "$OUT/vk.json" "$OUT/$who.public.json" "$OUT/$who.proof.json" |
        grep -q 'OK!'; then
        note "   $who proof: snarkjs groth16 verify OK"
    else
        note "   $who proof: snarkjs groth16 verify FAILED"
    fi
done
note "   public.json: $(same "$OUT/cuzk.public.json" "$OUT/snarkjs.public.json" public)"
echo "results in $RES"
