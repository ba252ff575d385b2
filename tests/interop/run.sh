#!/usr/bin/env bash
# Cross-checks between cuzk and snarkjs 0.7.6 on the committed fixtures
# (tests/interop/fixtures, both curves, every circuit):
#
#   snarkjs -> snarkjs  a fresh snarkjs proof verifies; a tampered proof
#                       (pi_a and pi_c swapped) and a changed public input are
#                       rejected by the pairing check (a clean exit, the
#                       verifier's "invalid proof" message; a crash or a
#                       parse error does not count).  Always run: it checks the toolchain and the
#                       fixtures themselves.
#   snarkjs -> cuzk     `cuzk verify` accepts the snarkjs proof and rejects
#                       both tampered variants.
#   cuzk -> snarkjs     `cuzk prove` writes a proof that `snarkjs groth16
#                       verify` and `cuzk verify` accept, public.json equal
#                       to snarkjs's byte for byte, and both reject its
#                       tampered variants.
#   writers -> snarkjs  zkeys re-serialized by cuzk's zkey writer and
#                       verification keys written by cuzk's JSON writer (made
#                       by the test_formats_zkey and test_formats_json
#                       programs with CUZK_FORMATS_OUT)
#                       are accepted by snarkjs: it proves with the zkey, its
#                       exported vk equals the original, and it verifies
#                       with our vk.json.
#
# Usage: tests/interop/run.sh [CUZK_BIN] [TEST_FORMATS_DIR]
#   CUZK_BIN          the built `cuzk` (CLI contract: `cuzk prove <zkey>
#                     <wtns> <proof.json> <public.json>`, `cuzk verify
#                     <vk.json> <public.json> <proof.json>`: exit 0 and "OK"
#                     on success, non-zero otherwise).  Without it only the
#                     snarkjs parts run.
#   TEST_FORMATS_DIR  the folder of test_formats_zkey and test_formats_json;
#                     defaults to CUZK_BIN's, if they are there.
# Needs node/npm; runs `npm ci` here when node_modules is missing.  Ends with
# "interop: N passed, N failed" and exits non-zero on any failure.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/fixtures
CUZK=${1:-}
TF=${2:-}
if [ -n "$CUZK" ] && [ -z "$TF" ] && [ -x "$(dirname "$CUZK")/test_formats_zkey" ]; then
    TF=$(dirname "$CUZK")
fi
CURVES=(bn128 bls12381)
CIRCUITS=(multiplier poseidon_chain merkle many_public)
passed=0
failed=0

if [ ! -d "$HERE/node_modules/snarkjs" ]; then
    (cd "$HERE" && npm ci --no-audit --no-fund >/dev/null 2>&1) || {
        echo "interop: npm ci failed"
        echo "interop: 0 passed, 1 failed"
        exit 1
    }
fi
SNARKJS=(node "$HERE/node_modules/snarkjs/build/cli.cjs")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

ok() {
    passed=$((passed + 1))
    echo "ok   $*"
}
bad() {
    failed=$((failed + 1))
    echo "FAIL $*"
}

# expect_accept DESC CMD...: exit 0 and an "OK" in the output.
expect_accept() {
    local desc=$1 out
    shift
    if out=$("$@" 2>&1) && grep -q "OK" <<<"$out"; then
        ok "$desc"
    else
        bad "$desc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
    fi
}

# expect_reject DESC REGEX CMD...: a clean rejection: exit status 1..127
# (a crash or a signal is not a rejection), no "OK" line, and output
# matching the extended regular expression REGEX (the verifier's own words
# for a failed pairing check, so a proof refused for another reason --
# a parse error, a range check -- does not count).
expect_reject() {
    local desc=$1 re=$2 out rc
    shift 2
    out=$("$@" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
        bad "$desc: accepted"
    elif [ $rc -ge 128 ]; then
        bad "$desc: killed by signal $((rc - 128)): $(tail -n 3 <<<"$out" | tr '\n' ' ')"
    elif grep -qx "OK" <<<"$out"; then
        bad "$desc: exit $rc but printed OK"
    elif ! grep -Eq -- "$re" <<<"$out"; then
        bad "$desc: rejected for another reason (exit $rc): $(tail -n 3 <<<"$out" | tr '\n' ' ')"
    else
        ok "$desc"
    fi
}

# expect_run DESC CMD...: exit 0.
expect_run() {
    local desc=$1 out
    shift
    if out=$("$@" 2>&1); then
        ok "$desc"
    else
        bad "$desc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
    fi
}

# tamper PROOF PUBLIC PREFIX: PREFIX.swapped.json (pi_a <-> pi_c, still
# valid points) and PREFIX.public+1.json (first public signal plus one).
tamper() {
    node -e '
        const fs = require("fs");
        const [proofPath, publicPath, prefix] = process.argv.slice(1);
        const p = JSON.parse(fs.readFileSync(proofPath));
        [p.pi_a, p.pi_c] = [p.pi_c, p.pi_a];
        fs.writeFileSync(prefix + ".swapped.json", JSON.stringify(p, null, 1));
        const pub = JSON.parse(fs.readFileSync(publicPath));
        pub[0] = (BigInt(pub[0]) + 1n).toString();
        fs.writeFileSync(prefix + ".public+1.json", JSON.stringify(pub, null, 1));
    ' "$1" "$2" "$3"
}

snarkjs_verify() { "${SNARKJS[@]}" groth16 verify "$@"; }
cuzk_verify() { "$CUZK" verify "$@"; }
# what each verifier prints when the pairing check fails
declare -A REJECTED=([snarkjs_verify]="Invalid proof" [cuzk_verify]="^INVALID: proof does not verify$")

check_pair() { # label vk proof public verifier-function
    local label=$1 vk=$2 proof=$3 pub=$4 verify=$5 t=$WORK/t.$RANDOM
    expect_accept "$label: valid proof" "$verify" "$vk" "$pub" "$proof"
    tamper "$proof" "$pub" "$t"
    expect_reject "$label: pi_a/pi_c swapped" "${REJECTED[$verify]}" "$verify" "$vk" "$pub" "$t.swapped.json"
    expect_reject "$label: public input + 1" "${REJECTED[$verify]}" "$verify" "$vk" "$t.public+1.json" "$proof"
}

for curve in "${CURVES[@]}"; do
    for c in "${CIRCUITS[@]}"; do
        f=$FIX/$curve/$c
        w=$WORK/$curve.$c
        expect_run "$curve/$c: snarkjs prove" \
            "${SNARKJS[@]}" groth16 prove "$f.zkey" "$f.wtns" "$w.s.proof.json" "$w.s.public.json"
        check_pair "$curve/$c: snarkjs->snarkjs" "$f.vk.json" "$w.s.proof.json" \
            "$w.s.public.json" snarkjs_verify
        [ -n "$CUZK" ] || continue
        check_pair "$curve/$c: snarkjs->cuzk" "$f.vk.json" "$w.s.proof.json" \
            "$w.s.public.json" cuzk_verify
        expect_run "$curve/$c: cuzk prove" \
            "$CUZK" prove "$f.zkey" "$f.wtns" "$w.c.proof.json" "$w.c.public.json"
        if cmp -s "$w.c.public.json" "$f.public.json"; then
            ok "$curve/$c: cuzk public.json == snarkjs public.json"
        else
            bad "$curve/$c: cuzk public.json differs from snarkjs's"
        fi
        check_pair "$curve/$c: cuzk->snarkjs" "$f.vk.json" "$w.c.proof.json" \
            "$w.c.public.json" snarkjs_verify
        check_pair "$curve/$c: cuzk->cuzk" "$f.vk.json" "$w.c.proof.json" \
            "$w.c.public.json" cuzk_verify
    done
done

if [ -n "$TF" ]; then
    out=$WORK/rewritten
    for prog in test_formats_zkey test_formats_json; do
        if CUZK_FORMATS_OUT=$out CUZK_SOURCE_DIR=$(cd "$HERE/../.." && pwd) "$TF/$prog" \
            >"$WORK/$prog.log" 2>&1; then
            ok "$prog wrote the rewritten files"
        else
            bad "$prog failed: $(tail -n 2 "$WORK/$prog.log" | tr '\n' ' ')"
        fi
    done
    for curve in "${CURVES[@]}"; do
        for c in "${CIRCUITS[@]}"; do
            f=$FIX/$curve/$c
            r=$out/$curve/$c
            w=$WORK/$curve.$c.r
            expect_run "$curve/$c: snarkjs proves with cuzk's zkey" \
                "${SNARKJS[@]}" groth16 prove "$r.zkey" "$f.wtns" "$w.proof.json" "$w.public.json"
            expect_accept "$curve/$c: that proof verifies" snarkjs_verify "$f.vk.json" \
                "$w.public.json" "$w.proof.json"
            expect_run "$curve/$c: snarkjs exports cuzk's zkey" \
                "${SNARKJS[@]}" zkey export verificationkey "$r.zkey" "$w.vk.json"
            if cmp -s "$w.vk.json" "$f.vk.json"; then
                ok "$curve/$c: exported vk == original vk"
            else
                bad "$curve/$c: vk exported from cuzk's zkey differs"
            fi
            expect_accept "$curve/$c: snarkjs verifies with cuzk's vk.json" snarkjs_verify \
                "$r.vk.json" "$f.public.json" "$f.proof.json"
        done
    done
else
    echo "interop: no test_formats_zkey / test_formats_json: writer checks skipped"
    [ "${CUZK_REQUIRE_ALL:-0}" = 1 ] && bad "CUZK_REQUIRE_ALL=1: the writer checks may not be skipped"
fi
[ -n "$CUZK" ] || echo "interop: no cuzk binary given: ran the snarkjs checks only"

# Development keys: a circuit from `cuzk gen` with a key from `cuzk setup
# --dev` must be a key snarkjs reads, proves with, and whose proofs (ours
# and snarkjs's) it accepts.
if [ -n "$CUZK" ]; then
    for curve in bn254 bls12_381; do
        d=$WORK/dev-$curve
        mkdir -p "$d"
        if "$CUZK" gen --curve "$curve" --log2 10 --seed 3 "$d/c.r1cs" "$d/c.wtns" >/dev/null 2>&1 &&
            "$CUZK" setup --dev "$d/c.r1cs" "$d/c.zkey" >/dev/null 2>&1; then
            ok "dev/$curve: cuzk gen + setup --dev"
        else
            bad "dev/$curve: cuzk gen + setup --dev failed"
            continue
        fi
        if "${SNARKJS[@]}" zkey export verificationkey "$d/c.zkey" "$d/vk.json" >/dev/null 2>&1; then
            ok "dev/$curve: snarkjs exports the vk of a dev key"
        else
            bad "dev/$curve: snarkjs cannot read the dev key"
            continue
        fi
        "$CUZK" prove "$d/c.zkey" "$d/c.wtns" "$d/p.json" "$d/pub.json" >/dev/null 2>&1
        expect_accept "dev/$curve: snarkjs verifies cuzk's proof" snarkjs_verify \
            "$d/vk.json" "$d/pub.json" "$d/p.json"
        "${SNARKJS[@]}" groth16 prove "$d/c.zkey" "$d/c.wtns" "$d/sp.json" "$d/spub.json" >/dev/null 2>&1
        expect_accept "dev/$curve: cuzk verifies snarkjs's proof" "$CUZK" verify \
            "$d/vk.json" "$d/spub.json" "$d/sp.json"
    done
fi

echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
