#!/usr/bin/env bash
# cuzk's native circom witness calculation against snarkjs, on the fixtures
# of tests/witness/build.sh (CUZK_WC_FIXTURES) with the compiled circuits
# cached in CUZK_WC_CACHE:
#  - `cuzk wtns calculate` writes the bytes `snarkjs wtns calculate` writes,
#    for every fixture and for inputs spelled in every way snarkjs accepts
#    (decimal and hex strings, JSON numbers, booleans, negative values,
#    values >= p, other nestings of the same values); snarkjs runs on the
#    same input files, nothing is assumed about its reduction;
#  - `cuzk fullprove` proofs pass `snarkjs groth16 verify`, and its
#    public.json is byte for byte snarkjs's;
#  - bad input (unknown signal, too few / too many values, malformed JSON,
#    non-integers, a failing assert, a wasm that is no circom witness
#    calculator, a truncated wasm, a key of the other curve) exits non-zero
#    without a crash, with a message naming the problem, and leaves no
#    output file;
#  - two processes compiling the same circuit into an empty cache at once
#    both succeed with equal witnesses and leave one object.
# Usage: test_witness.sh <path to cuzk> <source dir>
set -u
cuzk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() {
  echo "test_witness: $pass passed, $fail failed"
  [ $fail -eq 0 ]
  exit
}

fx=${CUZK_WC_FIXTURES:-}
cache=${CUZK_WC_CACHE:-}
npm=$src/tests/interop/node_modules
if [ -z "$fx" ] || [ ! -f "$fx/bn128/arrays.wtns" ] || [ ! -f "$fx/bls12381/arrays.wtns" ]; then
  bad "CUZK_WC_FIXTURES ('$fx') does not hold the fixtures of tests/witness/build.sh"
  finish
fi
if [ -z "$cache" ]; then
  bad "CUZK_WC_CACHE is not set"
  finish
fi
if [ ! -f "$npm/snarkjs/build/main.cjs" ]; then
  bad "snarkjs is not installed in $npm (npm ci in tests/interop)"
  finish
fi
if ! command -v python3 >/dev/null; then
  bad "python3 is needed to write the input variants"
  finish
fi
export CUZK_WC_CACHE=$cache
SNARKJS=(node "$npm/snarkjs/build/cli.cjs")
CURVES=(bn128 bls12381)
CIRCUITS=(poseidon_chain mimc merkle near_p arrays pedersen assert_fail)
bad_input=$src/tests/witness/circuits/assert_fail.bad.input.json

# snarkjs's witness for many inputs in one node process (its start costs
# about a second): each line of the job file is "wasm<TAB>input<TAB>out";
# `snarkjs wtns calculate` reads the input with JSON.parse and calls this
# same function.  A failure leaves out.err with the message, no out.
cat >"$tmp/snarkjs_wtns.cjs" <<'JS'
const fs = require("fs");
const snarkjs = require(process.argv[2]);
const jobs = fs.readFileSync(process.argv[3], "utf8").split("\n").filter((l) => l);
(async () => {
  for (const job of jobs) {
    const [wasm, input, out] = job.split("\t");
    try {
      const json = JSON.parse(fs.readFileSync(input, "utf8"));
      await snarkjs.wtns.calculate(json, wasm, out);
    } catch (e) {
      fs.rmSync(out, { force: true });
      fs.writeFileSync(out + ".err", String((e && e.message) || e));
    }
  }
  process.exit(0);
})();
JS
snarkjs_batch() { # job file
  node "$tmp/snarkjs_wtns.cjs" "$npm/snarkjs/build/main.cjs" "$1" >"$tmp/snarkjs.log" 2>&1 ||
    { bad "snarkjs batch failed: $(tail -3 "$tmp/snarkjs.log")"; }
}

# expect_fail <description> <grep -E pattern> <output file> <command...>: exit
# status 1..127 (not a signal), the pattern on stderr, no output file.
expect_fail() {
  local what=$1 pat=$2 outf=$3
  shift 3
  rm -f "$outf"
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -eq 0 ]; then bad "$what: exit 0"; return; fi
  if [ $rc -ge 128 ]; then bad "$what: killed by signal $((rc - 128))"; return; fi
  if ! grep -qE -- "$pat" "$tmp/err"; then
    bad "$what: stderr does not match /$pat/:"; sed 's/^/    /' "$tmp/err"; return
  fi
  # one line of reason (compile progress lines aside)
  local n
  n=$(grep -vc '^cuzk: compil' "$tmp/err")
  if [ "$n" -ne 1 ]; then bad "$what: $n lines of error, not one:"; sed 's/^/    /' "$tmp/err"; return; fi
  if [ -e "$outf" ]; then bad "$what: left $outf behind"; return; fi
  ok
}

wtns() { "$cuzk" wtns calculate "$@"; }

# ---- 1. every fixture, byte for byte -------------------------------------
echo "test_witness: every fixture, byte for byte (at ${SECONDS}s)"
for curve in "${CURVES[@]}"; do
  for c in "${CIRCUITS[@]}"; do
    d=$fx/$curve
    if ! wtns "$d/$c.wasm" "$d/$c.input.json" "$tmp/$c.wtns" 2>"$tmp/err"; then
      bad "$curve/$c: cuzk wtns calculate failed: $(tail -1 "$tmp/err")"
    elif ! cmp -s "$tmp/$c.wtns" "$d/$c.wtns"; then
      bad "$curve/$c: .wtns differs from snarkjs's ($(cmp "$tmp/$c.wtns" "$d/$c.wtns" 2>&1 | head -1))"
    else ok; fi
  done
done

# ---- 2. inputs spelled differently, against snarkjs on the same files ----
echo "test_witness: inputs spelled differently, against snarkjs on the same files (at ${SECONDS}s)"
# Variants of each fixture input (values v as the fixture gives them, r = v
# mod p): dec (r), hex ("0x.." of r), num (JSON numbers where |r| < 2^53),
# plus_p (r + p), plus_3p_hex, minus_p (r - p, negative), minus_5p,
# neg_num (r - p as a JSON number when it fits: small negatives), and for
# the array inputs flat (every array flattened) and regroup (the
# flattened values in other nestings).  Then single-value edge cases of
# the arrays circuit.  Every one must give snarkjs's bytes (snarkjs is
# expected to accept all of them; a rejection there is a test failure
# too, since the premise would be wrong).
python3 - "$fx" "$tmp/var" <<'PY'
import json, os, sys
fx, out = sys.argv[1], sys.argv[2]
P = {"bn128": 21888242871839275222246405745257275088548364400416034343698204186575808495617,
     "bls12381": 52435875175126190479447740508185965837690552500527637822603658699938581184513}
circuits = ["poseidon_chain", "mimc", "merkle", "near_p", "arrays", "pedersen"]

def as_int(v):
    if isinstance(v, bool): return int(v)
    if isinstance(v, int): return v
    return int(v, 0)

def walk(v, f):
    return [walk(x, f) for x in v] if isinstance(v, list) else f(v)

def flat(v):
    return [y for x in v for y in flat(x)] if isinstance(v, list) else [v]

for curve, p in P.items():
    os.makedirs(f"{out}/{curve}", exist_ok=True)
    for c in circuits:
        base = json.load(open(f"{fx}/{curve}/{c}.input.json"))
        fns = {
            "dec": lambda v: str(as_int(v) % p),
            "hex": lambda v: hex(as_int(v) % p),
            "num": lambda v: (as_int(v) % p) if as_int(v) % p < 2**53 else str(as_int(v) % p),
            "plus_p": lambda v: str(as_int(v) % p + p),
            "plus_3p_hex": lambda v: hex(as_int(v) % p + 3 * p),
            "minus_p": lambda v: str(as_int(v) % p - p),
            "minus_5p": lambda v: str(as_int(v) % p - 5 * p),
            "neg_num": lambda v: (as_int(v) % p - p) if p - as_int(v) % p < 2**53 else str(as_int(v) % p),
        }
        for name, f in fns.items():
            json.dump({k: walk(v, f) for k, v in base.items()}, open(f"{out}/{curve}/{c}.{name}.json", "w"))
        if c == "arrays":
            json.dump({k: flat(v) if isinstance(v, list) else v for k, v in base.items()},
                      open(f"{out}/{curve}/{c}.flat.json", "w"))
            m, t = flat(base["m"]), flat(base["t"])
            json.dump({"s": [base["s"]], "v": [base["v"][:2], [base["v"][2:]]],
                       "m": [m[:6], m[6:]], "t": [t[:4], t[4:8], [t[8:]]]},
                      open(f"{out}/{curve}/{c}.regroup.json", "w"))
            # one value of v replaced at a time: spellings JSON.parse and
            # BigInt accept
            edges = {"true": True, "false": False, "num_1e3": 1e3, "num_neg": -3,
                     "num_big": 12345678901234567890, "num_2p64": 18446744073709551616,
                     "hex_mixed_case": "0xABcdEF", "leading_zeros": "000123",
                     "neg_zero": "-0", "neg_dec_big": "-" + str(p + 12345),
                     "num_1e80": 1e80, "num_neg_1e30": -1e30}
            for name, val in edges.items():
                j = dict(base)
                j["v"] = [val] + base["v"][1:]
                txt = json.dumps(j)
                if name == "num_1e3": txt = txt.replace("1000.0", "1e3")
                open(f"{out}/{curve}/{c}.edge_{name}.json", "w").write(txt)
PY
[ $? -eq 0 ] || bad "writing the input variants failed"
: >"$tmp/jobs"
for curve in "${CURVES[@]}"; do
  for f in "$tmp/var/$curve"/*.json; do
    c=$(basename "$f" | cut -d. -f1)
    printf '%s\t%s\t%s\n' "$fx/$curve/$c.wasm" "$f" "${f%.json}.snarkjs.wtns" >>"$tmp/jobs"
  done
done
snarkjs_batch "$tmp/jobs"
while IFS=$'\t' read -r wasm f ref; do
  what="${f#"$tmp/var/"}"
  if [ ! -f "$ref" ]; then
    bad "$what: snarkjs rejects it: $(cat "$ref.err" 2>/dev/null)"
    continue
  fi
  if ! wtns "$wasm" "$f" "$tmp/v.wtns" 2>"$tmp/err"; then
    bad "$what: cuzk fails where snarkjs does not: $(tail -1 "$tmp/err")"
  elif ! cmp -s "$tmp/v.wtns" "$ref"; then
    bad "$what: .wtns differs from snarkjs's"
  else ok; fi
done <"$tmp/jobs"

# ---- 3. bad input ---------------------------------------------------------
echo "test_witness: bad input (at ${SECONDS}s)"
for curve in "${CURVES[@]}"; do
  d=$fx/$curve
  a=$d/arrays
  o=$tmp/bad.wtns
  mk() { # name python-expression-on-j (j: the valid input)
    python3 -c "import json,sys; j=json.load(open('$a.input.json')); $2; open('$tmp/$1.json','w').write(j if isinstance(j,str) else json.dumps(j))"
  }
  mk unknown 'j["nope"]="1"'
  mk few 'j["v"]=j["v"][:3]'
  mk many 'j["v"]=j["v"]+["5"]'
  mk few_2d 'j["m"]=j["m"][:2]'
  mk missing 'del j["t"]'
  mk malformed 'j=json.dumps(j)[:-5]'
  mk frac_str 'j["s"]="1.5"'
  mk frac_num 'j["s"]=1.5'
  mk abc 'j["s"]="abc"'
  mk null 'j["s"]=None'
  mk object 'j["s"]={"a":"1"}'
  mk neg_hex 'j["s"]="-0x5"'
  mk not_object 'j=[1,2,3]'
  # snarkjs rejects all of these too (the premise of expecting a failure)
  : >"$tmp/jobs_bad"
  for n in unknown few many few_2d missing malformed frac_str frac_num abc null object neg_hex not_object; do
    printf '%s\t%s\t%s\n' "$a.wasm" "$tmp/$n.json" "$tmp/$n.snarkjs.wtns" >>"$tmp/jobs_bad"
  done
  snarkjs_batch "$tmp/jobs_bad"
  for n in unknown few many few_2d missing malformed frac_str frac_num abc null object neg_hex not_object; do
    if [ -f "$tmp/$n.snarkjs.wtns" ]; then bad "$curve: snarkjs accepts the '$n' input"; else ok; fi
  done
  expect_fail "$curve unknown signal" '\bnope\b' "$o" wtns "$a.wasm" "$tmp/unknown.json" "$o"
  expect_fail "$curve too few values" '(Not enough|[Tt]oo few) values.*\bv\b' "$o" wtns "$a.wasm" "$tmp/few.json" "$o"
  expect_fail "$curve too many values" 'Too many values.*\bv\b' "$o" wtns "$a.wasm" "$tmp/many.json" "$o"
  expect_fail "$curve too few rows" '(Not enough|[Tt]oo few) values.*\bm\b' "$o" wtns "$a.wasm" "$tmp/few_2d.json" "$o"
  expect_fail "$curve signal missing" 'Not all inputs.*12 values missing' "$o" wtns "$a.wasm" "$tmp/missing.json" "$o"
  expect_fail "$curve malformed JSON" '[Jj][Ss][Oo][Nn]|expected' "$o" wtns "$a.wasm" "$tmp/malformed.json" "$o"
  expect_fail "$curve \"1.5\"" '\bs\b.*1\.5.*integer' "$o" wtns "$a.wasm" "$tmp/frac_str.json" "$o"
  expect_fail "$curve 1.5" '\bs\b.*1\.5.*integer' "$o" wtns "$a.wasm" "$tmp/frac_num.json" "$o"
  expect_fail "$curve \"abc\"" '\bs\b.*abc.*integer' "$o" wtns "$a.wasm" "$tmp/abc.json" "$o"
  expect_fail "$curve null" '\bs\b' "$o" wtns "$a.wasm" "$tmp/null.json" "$o"
  expect_fail "$curve object value" '\bs\b' "$o" wtns "$a.wasm" "$tmp/object.json" "$o"
  expect_fail "$curve \"-0x5\"" '\bs\b.*-0x5' "$o" wtns "$a.wasm" "$tmp/neg_hex.json" "$o"
  expect_fail "$curve input not an object" '[Oo]bject' "$o" wtns "$a.wasm" "$tmp/not_object.json" "$o"
  expect_fail "$curve missing input file" 'nonexistent\.json' "$o" wtns "$a.wasm" "$tmp/nonexistent.json" "$o"
  expect_fail "$curve output in a missing folder" 'no-such-dir' "$tmp/no-such-dir/o.wtns" \
    wtns "$a.wasm" "$a.input.json" "$tmp/no-such-dir/o.wtns"
  expect_fail "$curve failing assert" 'Assert Failed.*RangeCheck' "$o" \
    wtns "$d/assert_fail.wasm" "$bad_input" "$o"
  # an existing output is not replaced when the calculation fails
  echo keep >"$tmp/keep.wtns"
  wtns "$d/assert_fail.wasm" "$bad_input" "$tmp/keep.wtns" 2>/dev/null
  [ "$(cat "$tmp/keep.wtns")" = keep ] && ok || bad "$curve: a failed calculation replaced the existing output"
  expect_fail "$curve fullprove failing assert" 'Assert Failed.*RangeCheck' "$tmp/fp.proof.json" \
    "$cuzk" fullprove "$bad_input" "$d/assert_fail.wasm" "$d/assert_fail.zkey" "$tmp/fp.proof.json" "$tmp/fp.public.json"
  [ -e "$tmp/fp.public.json" ] && bad "$curve fullprove failing assert: left public.json" || ok
  expect_fail "$curve fullprove unknown signal" '\bnope\b' "$tmp/fp.proof.json" \
    "$cuzk" fullprove "$tmp/unknown.json" "$a.wasm" "$a.zkey" "$tmp/fp.proof.json" "$tmp/fp.public.json"
done

# wasm files that are not circom witness calculators
printf '(module (func (export "main")) (memory (export "memory") 1))\n' >"$tmp/tiny.wat"
if wat2wasm "$tmp/tiny.wat" -o "$tmp/tiny.wasm" 2>"$tmp/err"; then
  expect_fail "valid wasm, not a circom witness calculator" 'circom|witness calculator' "$tmp/o.wtns" \
    wtns "$tmp/tiny.wasm" "$fx/bn128/arrays.input.json" "$tmp/o.wtns"
else
  bad "wat2wasm (Debian's wabt) failed or is missing: $(head -1 "$tmp/err")"
fi
size=$(stat -c %s "$fx/bn128/arrays.wasm")
for cut in 0 4 8 100 $((size / 2)) $((size - 1)); do
  head -c "$cut" "$fx/bn128/arrays.wasm" >"$tmp/cut.wasm"
  expect_fail "wasm cut at $cut of $size bytes" 'wasm|WebAssembly|truncated|empty|module' "$tmp/o.wtns" \
    wtns "$tmp/cut.wasm" "$fx/bn128/arrays.input.json" "$tmp/o.wtns"
done
expect_fail "a .r1cs as the wasm" 'wasm|WebAssembly|module' "$tmp/o.wtns" \
  wtns "$fx/bn128/arrays.r1cs" "$fx/bn128/arrays.input.json" "$tmp/o.wtns"
expect_fail "missing wasm" 'nonexistent\.wasm' "$tmp/o.wtns" \
  wtns "$tmp/nonexistent.wasm" "$fx/bn128/arrays.input.json" "$tmp/o.wtns"

# a circuit of one curve with the key of the other
for pair in "bls12381 bn128" "bn128 bls12381"; do
  set -- $pair
  expect_fail "fullprove $1 wasm with a $2 key" "$1.*$2|$2.*$1" "$tmp/x.proof.json" \
    "$cuzk" fullprove "$fx/$1/arrays.input.json" "$fx/$1/arrays.wasm" "$fx/$2/arrays.zkey" \
    "$tmp/x.proof.json" "$tmp/x.public.json"
  [ -e "$tmp/x.public.json" ] && bad "fullprove $1/$2: left public.json" || ok
done
# a circuit with the key of another circuit of the same curve
expect_fail "fullprove with another circuit's key" '.' "$tmp/x.proof.json" \
  "$cuzk" fullprove "$fx/bn128/arrays.input.json" "$fx/bn128/arrays.wasm" "$fx/bn128/mimc.zkey" \
  "$tmp/x.proof.json" "$tmp/x.public.json"

# ---- 4. fullprove: snarkjs verifies, public.json is snarkjs's ------------
echo "test_witness: fullprove: snarkjs verifies, public.json is snarkjs's (at ${SECONDS}s)"
for curve in "${CURVES[@]}"; do
  for c in "${CIRCUITS[@]}"; do
    d=$fx/$curve
    pf=$tmp/$curve.$c.proof.json pub=$tmp/$curve.$c.public.json
    if ! "$cuzk" fullprove -v "$d/$c.input.json" "$d/$c.wasm" "$d/$c.zkey" "$pf" "$pub" \
      >"$tmp/out" 2>"$tmp/err"; then
      bad "$curve/$c: cuzk fullprove failed: $(tail -1 "$tmp/err")"
      continue
    fi
    # the witness is computed by the engine's synthesis stage
    grep -Eq '^cuzk fullprove: queue [0-9.]+ ms \| synthesis [0-9.]+ ms \(witness [0-9.]+ ms\)' "$tmp/err" &&
      ok || bad "$curve/$c: fullprove -v prints no witness time of the engine's synthesis"
    if cmp -s "$pub" "$d/$c.public.json"; then ok; else bad "$curve/$c: public.json differs from snarkjs's"; fi
    if "${SNARKJS[@]}" groth16 verify "$d/$c.vk.json" "$pub" "$pf" 2>&1 | grep -q 'OK!'; then
      ok
    else
      bad "$curve/$c: snarkjs groth16 verify rejects cuzk fullprove's proof"
    fi
  done
done

# ---- 5. a cold cache used by two processes at once ------------------------
echo "test_witness: a cold cache used by two processes at once (at ${SECONDS}s)"
cold=$tmp/cold-cache
a=$fx/bn128/arrays
CUZK_WC_CACHE=$cold wtns "$a.wasm" "$a.input.json" "$tmp/c1.wtns" 2>"$tmp/c1.err" &
p1=$!
CUZK_WC_CACHE=$cold wtns "$a.wasm" "$a.input.json" "$tmp/c2.wtns" 2>"$tmp/c2.err" &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
if [ $r1 -ne 0 ] || [ $r2 -ne 0 ]; then
  bad "concurrent first use: exit $r1 and $r2: $(tail -1 "$tmp/c1.err") / $(tail -1 "$tmp/c2.err")"
else
  cmp -s "$tmp/c1.wtns" "$a.wtns" && cmp -s "$tmp/c2.wtns" "$a.wtns" && ok ||
    bad "concurrent first use: a witness differs from snarkjs's"
  n=$(find "$cold" -name '*.wc' | wc -l)
  [ "$n" -eq 1 ] && ok || bad "concurrent first use: $n objects in the cache, not 1: $(ls "$cold")"
  n=$(find "$cold" -mindepth 1 -maxdepth 1 -name 'build-*' | wc -l)
  [ "$n" -eq 0 ] && ok || bad "concurrent first use: $n build folders left in the cache: $(ls "$cold")"
  # the compile says what it does and how long it took, once
  n=$(cat "$tmp/c1.err" "$tmp/c2.err" | grep -c 'compiled .* in [0-9.]* s')
  [ "$n" -eq 1 ] && ok || bad "concurrent first use: $n 'compiled ... in N s' lines, not 1"
  # ... naming the wasm by its path, its size in KB below a megabyte
  cat "$tmp/c1.err" "$tmp/c2.err" | grep -Eq "compiling $a\.wasm \([1-9][0-9]* KB of wasm\)" && ok ||
    bad "first use: the compile line: $(cat "$tmp/c1.err" "$tmp/c2.err" | grep compiling)"
  CUZK_WC_CACHE=$cold wtns "$a.wasm" "$a.input.json" "$tmp/c3.wtns" 2>"$tmp/c3.err"
  cmp -s "$tmp/c3.wtns" "$a.wtns" && ok || bad "warm cache: witness differs"
  [ -s "$tmp/c3.err" ] && bad "warm cache: prints $(head -1 "$tmp/c3.err")" || ok
fi

# ---- 6. cuzk info on a .wasm: read without running or compiling it ---------
echo "test_witness: cuzk info on a circuit's .wasm (at ${SECONDS}s)"
for curve in "${CURVES[@]}"; do
  a=$fx/$curve/arrays
  # the witness size is the .wtns's; arrays has 1 + 4 + 12 + 12 input values
  wires=$("$cuzk" info "$a.wtns" | sed -n 's/^  values *\([0-9]*\)$/\1/p')
  "$cuzk" info "$a.wasm" >"$tmp/iw.out" 2>&1
  rc=$?
  [ $rc -eq 0 ] && grep -q "^$a\.wasm: circom witness calculator (\.wasm, [1-9][0-9]* KB)$" "$tmp/iw.out" &&
    grep -q "^  curve        $curve$" "$tmp/iw.out" &&
    grep -Eq "^  circom       2\.[0-9]+\.[0-9]+$" "$tmp/iw.out" &&
    grep -q "^  wires        $wires (" "$tmp/iw.out" &&
    grep -q "^  inputs       29 values" "$tmp/iw.out" &&
    grep -q "^  native code  cached: $CUZK_WC_CACHE/" "$tmp/iw.out" && ok ||
    bad "$curve info arrays.wasm (exit $rc, wires $wires): $(cat "$tmp/iw.out")"
  CUZK_WC_CACHE=$tmp/empty-cache "$cuzk" info "$a.wasm" >"$tmp/iw.out" 2>&1
  grep -q "^  native code  not compiled yet" "$tmp/iw.out" && ok ||
    bad "$curve info arrays.wasm, empty cache: $(cat "$tmp/iw.out")"
done
printf '\0asm\1\0\0\0' >"$tmp/empty.wasm"
"$cuzk" info "$tmp/empty.wasm" >"$tmp/iw.out" 2>&1
[ $? -eq 1 ] && grep -q "not a circom 2 witness calculator" "$tmp/iw.out" && ok ||
  bad "info on a wasm that is no circuit: $(cat "$tmp/iw.out")"

# ---- 7. a first compile says what it does and for how long -----------------
echo "test_witness: the first compile's messages (at ${SECONDS}s)"
m=$fx/bn128/mimc
# fullprove in-process: the engine's compile is said at any verbosity
"$cuzk" fullprove --cpu --cache "$tmp/fp-cache" "$m.input.json" "$m.wasm" "$m.zkey" \
  "$tmp/fp.proof.json" "$tmp/fp.public.json" 2>"$tmp/fp.err" >/dev/null
rc=$?
[ $rc -eq 0 ] && grep -q "^cuzk fullprove: compiling $m\.wasm (" "$tmp/fp.err" &&
  grep -Eq "^cuzk fullprove: compiled $m\.wasm in [0-9.]+ s$" "$tmp/fp.err" && ok ||
  bad "fullprove, first compile (exit $rc): $(cat "$tmp/fp.err")"
# on a terminal the time so far is redrawn on one line while it compiles
if command -v script >/dev/null; then
  script -qec "'$cuzk' wtns calculate --cache '$tmp/tty-cache' '$m.wasm' '$m.input.json' '$tmp/tty.wtns'" \
    /dev/null >"$tmp/tty.out" 2>&1
  tr '\r' '\n' <"$tmp/tty.out" | grep -Eq "^cuzk wtns calculate: compiling $m\.wasm: [0-9]+ s so far" &&
    cmp -s "$tmp/tty.wtns" "$m.wtns" && ok || bad "first compile on a terminal: $(cat -v "$tmp/tty.out")"
elif [ "${CUZK_REQUIRE_ALL:-0}" = 1 ]; then
  bad "script (util-linux) is not installed: the terminal case did not run"
else
  echo "SKIP: script (util-linux) is not installed: the terminal case did not run"
fi

# ---- 8. circom's field runtime as native code --------------------------------
echo "test_witness: the field runtime as native code, and the fallback (at ${SECONDS}s)"
# The fixtures' runtime is one the natives reproduce: every witness above
# was computed by them.  With CUZK_WC_NATIVE=check each worker first
# compares every native function with the module's own on 200,000 operand
# pairs (0, 1, q - 1, q, q + 1, 2^256 - 1, values below q, below 2^256,
# runs of ones; short values 0, 1, -1, INT_MIN; every type word; operands
# aliased) and keeps the module's own if one differs ("field products
# wasm").  CUZK_WC_NATIVE=0 runs the module's own runtime.
for curve in "${CURVES[@]}"; do
  for c in poseidon_chain near_p; do
    d=$fx/$curve
    for mode in 1 check 0; do
      want=native
      [ $mode = 0 ] && want=wasm
      CUZK_WC_NATIVE=$mode wtns -v "$d/$c.wasm" "$d/$c.input.json" "$tmp/n.wtns" >"$tmp/out" 2>"$tmp/err"
      rc=$?
      [ $rc -eq 0 ] && grep -q "field products $want" "$tmp/err" && cmp -s "$tmp/n.wtns" "$d/$c.wtns" &&
        ok || bad "$curve/$c, CUZK_WC_NATIVE=$mode: exit $rc, want $want and snarkjs's bytes: $(grep -h 'field products\|Error\|error' "$tmp/err")"
    done
  done
done
# A runtime that is not one the natives know: one instruction of Fr_isTrue
# changed for an equivalent one (x != 0 as x >u 0).  The module keeps its
# own runtime, compiled on its own (another cache object), and computes
# the same witness.
for curve in "${CURVES[@]}"; do
  d=$fx/$curve
  if ! python3 - "$d/poseidon_chain.wasm" "$tmp/$curve.changed.wasm" <<'PY'
import sys
w = bytearray(open(sys.argv[1], "rb").read())
def leb(i):
    r = s = 0
    while True:
        b = w[i]; i += 1; r |= (b & 0x7f) << s; s += 7
        if not b & 0x80: return r, i
i, nimp, names, bodies = 8, 0, {}, []
while i < len(w):
    sid = w[i]; ln, j = leb(i + 1); end = j + ln
    if sid == 2:
        n, j = leb(j)
        for _ in range(n):
            l, j = leb(j); j += l; l, j = leb(j); j += l; kind = w[j]; j += 1
            _, j = leb(j); nimp += kind == 0
    elif sid == 10:
        n, j = leb(j)
        for _ in range(n):
            l, j = leb(j); bodies.append((j, l)); j += l
    elif sid == 0:
        l, j = leb(j)
        if w[j:j + l] == b"name":
            j += l
            while j < end:
                sub = w[j]; sl, j = leb(j + 1); send = j + sl
                if sub == 1:
                    n, j = leb(j)
                    for _ in range(n):
                        fi, j = leb(j); l, j = leb(j); names[bytes(w[j:j + l])] = fi; j += l
                j = send
    i = end
at, l = bodies[names[b"Fr_isTrue"] - nimp]
tail = bytes([0x41, 0x00, 0x47, 0x0b])  # i32.const 0, i32.ne, end
assert w[at + l - 4:at + l] == tail, "Fr_isTrue does not end as expected"
w[at + l - 2] = 0x4b  # i32.gt_u
open(sys.argv[2], "wb").write(w)
PY
  then
    bad "$curve: cannot change Fr_isTrue in poseidon_chain.wasm"
    continue
  fi
  wtns -v "$tmp/$curve.changed.wasm" "$d/poseidon_chain.input.json" "$tmp/ch.wtns" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 0 ] && grep -q "field products wasm" "$tmp/err" && cmp -s "$tmp/ch.wtns" "$d/poseidon_chain.wtns" &&
    ok || bad "$curve: a changed runtime (exit $rc) must run as wasm with snarkjs's witness: $(grep -h 'field products\|rror' "$tmp/err")"
done

finish
