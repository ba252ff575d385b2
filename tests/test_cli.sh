#!/usr/bin/env bash
# The cuzk command line on good and bad input: every failure must exit with
# the expected status (1 for bad input, 2 for usage) and a one-line
# "cuzk <cmd>: ..." reason naming what is wrong, never crash, and write
# nothing.  Tampered proofs cover both kinds of rejection: points that do
# not decode (off the curve) and valid points that only the pairing check
# can reject (pi_a of another proof, a proof for other public inputs).
# The in-process prover's options --cpu, --gpu N and --threads N run too.
# Needs the shell and awk, and python3 for points outside the subgroup.
# Usage: test_cli.sh <path to cuzk> <source dir>
set -u
cuzk=$1
src=$2
fx=$src/tests/interop/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# Whether the driver lists an NVIDIA device (then --gpu 0 must work).
gpu_listed=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  gpu_listed=1
fi

# expect_fail WHAT RC REGEX COMMAND...: COMMAND exits with status RC (not
# any non-zero status, not a signal) and its output (stderr, then stdout)
# matches the extended regular expression REGEX.  A failure on bad input
# (RC 1) gives its reason on one line of stderr; usage errors (2) may add
# the help text.
expect_fail() {
  local what=$1 want=$2 re=$3
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -ne "$want" ]; then
    if [ $rc -ge 128 ]; then bad "$what: killed by signal $((rc - 128))"; else bad "$what: exit $rc, expected $want"; fi
    head -n 3 "$tmp/err" "$tmp/out"
    return
  fi
  if ! cat "$tmp/err" "$tmp/out" | grep -Eq -- "$re"; then
    bad "$what: output does not match /$re/: $(head -c 300 "$tmp/err") $(head -c 300 "$tmp/out")"
    return
  fi
  if [ "$want" = 1 ] && [ -s "$tmp/err" ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    bad "$what: reason is not one line: $(cat "$tmp/err")"
    return
  fi
  ok
}
expect_ok() {
  local what=$1
  shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "$what (exit $?)"; cat "$tmp/err"; fi
}
# expect_invalid WHAT VK PUBLIC PROOF: cuzk verify reads everything and the
# pairing check rejects the proof: exit 1, "INVALID: proof does not verify".
expect_invalid() {
  expect_fail "$1" 1 "^INVALID: proof does not verify$" "$cuzk" verify "$2" "$3" "$4"
}
# named_once WHAT PATH: the last failure's stderr names PATH exactly once.
named_once() {
  local n
  n=$(grep -oF -- "$2" "$tmp/err" | wc -l)
  [ "$n" -eq 1 ] && ok || bad "$1: $2 named $n times: $(head -c 300 "$tmp/err")"
}
# prove_fails WHAT REGEX ARGS...: cuzk prove ARGS <x.json> <y.json> fails
# with exit 1, the reason matching REGEX, and neither output file written.
prove_fails() {
  local what=$1 re=$2
  shift 2
  rm -f "$tmp/x.json" "$tmp/y.json"
  expect_fail "$what" 1 "$re" "$cuzk" prove "$@" "$tmp/x.json" "$tmp/y.json"
  if [ -e "$tmp/x.json" ] || [ -e "$tmp/y.json" ]; then bad "$what: an output file was written"; else ok; fi
}

# swap_pi_a TO FROM OUT: TO's proof with FROM's pi_a (cuzk's and snarkjs's
# proof.json put each coordinate on its own line).
swap_pi_a() {
  awk 'NR == FNR { if ($0 ~ /"pi_a"/) f = 1; if (f) a[++n] = $0; if (f && $0 ~ /\]/) f = 0; next }
       $0 ~ /"pi_a"/ { skip = 1; for (i = 1; i <= n; i++) print a[i] }
       skip { if ($0 ~ /\]/) skip = 0; next }
       { print }' "$2" "$1" >"$3"
}
# bump_last_digit IN OUT: the first number of a public.json (one per line)
# with its last digit changed (a different value, still below r).
bump_last_digit() {
  awk '!done && match($0, /[0-9]"/) { d = substr($0, RSTART, 1); n = (d < 9) ? d + 1 : d - 1
         $0 = substr($0, 1, RSTART - 1) n substr($0, RSTART + 1); done = 1 } { print }' "$1" >"$2"
}
# break_pi_c IN OUT: the last digit of pi_c's x changed: still below p,
# no longer on the curve.
break_pi_c() {
  awk '/"pi_c"/ { f = 1; print; next }
       f == 1 && match($0, /[0-9]"/) { d = substr($0, RSTART, 1); n = (d < 9) ? d + 1 : d - 1
         $0 = substr($0, 1, RSTART - 1) n substr($0, RSTART + 1); f = 2 } { print }' "$1" >"$2"
}
# Points outside the prime-order subgroup come from tests/torsion.py (a
# proof's point plus a torsion point); without python3 those cases are
# skipped, which fails the test when CUZK_REQUIRE_ALL=1 (CI).
have_py=0
command -v python3 >/dev/null && have_py=1

for curve in bn128 bls12381; do
  d=$fx/$curve
  expect_ok "$curve prove" "$cuzk" prove --verify "$d/multiplier.zkey" "$d/multiplier.wtns" "$tmp/p.json" "$tmp/pub.json"
  expect_ok "$curve verify own proof" "$cuzk" verify "$d/multiplier.vk.json" "$tmp/pub.json" "$tmp/p.json"
  grep -qx OK "$tmp/out" && ok || bad "$curve verify own proof: no OK line"
  cmp -s "$tmp/pub.json" "$d/multiplier.public.json" && ok || bad "$curve public.json differs from snarkjs's"
  expect_ok "$curve verify snarkjs proof" "$cuzk" verify "$d/multiplier.vk.json" "$d/multiplier.public.json" "$d/multiplier.proof.json"
  expect_ok "$curve export-vk" "$cuzk" zkey export-vk "$d/multiplier.zkey" "$tmp/vk.json"
  cmp -s "$tmp/vk.json" "$d/multiplier.vk.json" && ok || bad "$curve export-vk differs from snarkjs's vk.json"
  expect_ok "$curve info zkey" "$cuzk" info "$d/multiplier.zkey"
  expect_ok "$curve info r1cs" "$cuzk" info "$d/multiplier.r1cs"
  expect_ok "$curve info wtns" "$cuzk" info "$d/multiplier.wtns"

  # the in-process prover's options: each still makes a valid proof
  for opt in "--cpu" "--threads 1" "--cpu --threads 3"; do
    # shellcheck disable=SC2086
    expect_ok "$curve prove $opt" "$cuzk" prove $opt "$d/multiplier.zkey" "$d/multiplier.wtns" "$tmp/o.json" "$tmp/opub.json"
    expect_ok "$curve prove $opt: proof verifies" "$cuzk" verify "$d/multiplier.vk.json" "$tmp/opub.json" "$tmp/o.json"
  done
  if [ $gpu_listed = 1 ]; then
    expect_ok "$curve prove --gpu 0" "$cuzk" prove --gpu 0 "$d/multiplier.zkey" "$d/multiplier.wtns" "$tmp/o.json" "$tmp/opub.json"
    expect_ok "$curve prove --gpu 0: proof verifies" "$cuzk" verify "$d/multiplier.vk.json" "$tmp/opub.json" "$tmp/o.json"
  else
    prove_fails "$curve prove --gpu 0 without a GPU" "^cuzk prove: .*(no CUDA support|no CUDA device 0|GPU)" \
      --gpu 0 "$d/multiplier.zkey" "$d/multiplier.wtns"
  fi
  # the in-process prover is the proving engine: -v gives its stage
  # boundaries and its CPU device's step, which no direct prover call has
  expect_ok "$curve prove -v --cpu" "$cuzk" prove -v --cpu "$d/multiplier.zkey" "$d/multiplier.wtns" "$tmp/o.json" "$tmp/opub.json"
  grep -Eq '^cuzk prove: engine start [0-9.]+ ms \(cpu, [0-9]+ threads\) \| key load [0-9.]+ ms$' "$tmp/err" && ok || bad "$curve prove -v: no engine start line: $(head -c 300 "$tmp/err")"
  grep -Eq '^cuzk prove: queue [0-9.]+ ms \| synthesis [0-9.]+ ms \| ready [0-9.]+ ms \| device cpu0 [0-9.]+ ms \| finalize [0-9.]+ ms' "$tmp/err" && ok || bad "$curve prove -v: no engine stage line: $(head -c 300 "$tmp/err")"
  grep -Eq '^cuzk prove \(cpu0\): upload [0-9.]+ ms \| evaluate \(synthesis\) [0-9.]+ \| h \(6 NTT\) [0-9.]+ \| msm A [0-9.]+ B1' "$tmp/err" && ok || bad "$curve prove -v: no device step line: $(head -c 300 "$tmp/err")"
  expect_ok "$curve prove -v: proof verifies" "$cuzk" verify "$d/multiplier.vk.json" "$tmp/opub.json" "$tmp/o.json"
  prove_fails "$curve prove --gpu 99" "^cuzk prove: .*(no CUDA support|no CUDA device 99)" \
    --gpu 99 "$d/multiplier.zkey" "$d/multiplier.wtns"

  # truncated and corrupted inputs: the decoder says what is wrong, and
  # nothing is written
  for f in zkey wtns; do
    size=$(stat -c %s "$d/multiplier.$f")
    for cut in 0 4 11 12 40 $((size / 2)) $((size - 1)); do
      head -c "$cut" "$d/multiplier.$f" >"$tmp/cut.$f"
      re="^cuzk prove: ($tmp/cut.$f: )?$f: .*(impossible size|header claims|declares [0-9]+ bytes but only|truncated|ends)"
      if [ $f = zkey ]; then
        prove_fails "$curve zkey cut at $cut" "$re" "$tmp/cut.zkey" "$d/multiplier.wtns"
      else
        prove_fails "$curve wtns cut at $cut" "$re" "$d/multiplier.zkey" "$tmp/cut.wtns"
      fi
      named_once "$curve $f cut at $cut" "$tmp/cut.$f"
    done
  done
  cp "$d/multiplier.zkey" "$tmp/magic.zkey"; printf 'zkez' | dd of="$tmp/magic.zkey" bs=1 conv=notrunc 2>/dev/null
  prove_fails "$curve wrong magic" "zkey: wrong magic" "$tmp/magic.zkey" "$d/multiplier.wtns"
  prove_fails "$curve missing file" "cannot open $tmp/nope.zkey: No such file" "$tmp/nope.zkey" "$d/multiplier.wtns"
  prove_fails "$curve witness of another circuit" "witness has [0-9]+ values, the key expects [0-9]+" \
    "$d/multiplier.zkey" "$d/poseidon_chain.wtns"
  # a file in another file's place: its kind, the role it was given, the
  # usage line (exit 2), nothing written
  rm -f "$tmp/x.json"
  expect_fail "$curve key file as witness" 2 \
    "^cuzk prove: $d/multiplier.zkey is a proving key \(.zkey\), given as the witness \(argument 2\)" \
    "$cuzk" prove "$d/multiplier.zkey" "$d/multiplier.zkey" "$tmp/x.json" "$tmp/y.json"
  grep -q "^usage: cuzk prove" "$tmp/err" && [ ! -e "$tmp/x.json" ] && ok || bad "$curve key file as witness: no usage line, or a file written"
  expect_fail "$curve prove with key and witness swapped" 2 \
    "^cuzk prove: $d/multiplier.wtns is a witness \(.wtns\), given as the proving key \(argument 1\)" \
    "$cuzk" prove "$d/multiplier.wtns" "$d/multiplier.zkey" "$tmp/x.json" "$tmp/y.json"
  # an existing output is left as it was when proving fails
  echo keep >"$tmp/keep.json"
  expect_fail "$curve failing prove over an existing file" 1 "wrong magic" \
    "$cuzk" prove "$tmp/magic.zkey" "$d/multiplier.wtns" "$tmp/keep.json" "$tmp/keep2.json"
  [ "$(cat "$tmp/keep.json")" = keep ] && [ ! -e "$tmp/keep2.json" ] && ok || bad "$curve: a failing prove touched its outputs"

  # valid points, wrong proof: only the pairing check can reject these
  expect_ok "$curve second proof" "$cuzk" prove "$d/multiplier.zkey" "$d/multiplier.wtns" "$tmp/p2.json" "$tmp/pub2.json"
  swap_pi_a "$tmp/p.json" "$tmp/p2.json" "$tmp/mixed.json"
  cmp -s "$tmp/mixed.json" "$tmp/p.json" && bad "$curve: pi_a swap changed nothing" || ok
  expect_invalid "$curve pi_a of another proof" "$d/multiplier.vk.json" "$tmp/pub.json" "$tmp/mixed.json"
  swap_pi_a "$d/multiplier.proof.json" "$tmp/p.json" "$tmp/mixed2.json"
  expect_invalid "$curve snarkjs proof with cuzk's pi_a" "$d/multiplier.vk.json" "$d/multiplier.public.json" "$tmp/mixed2.json"
  bump_last_digit "$d/multiplier.public.json" "$tmp/tpub.json"
  cmp -s "$tmp/tpub.json" "$d/multiplier.public.json" && bad "$curve: public input unchanged" || ok
  expect_invalid "$curve proof for other public inputs" "$d/multiplier.vk.json" "$tmp/tpub.json" "$d/multiplier.proof.json"
  expect_invalid "$curve proof of another circuit" "$d/multiplier.vk.json" "$d/multiplier.public.json" "$d/poseidon_chain.proof.json"
  # a point that does not decode is refused before any pairing
  break_pi_c "$d/multiplier.proof.json" "$tmp/tp.json"
  expect_fail "$curve pi_c off the curve" 1 "^cuzk verify: $tmp/tp.json: .*not on the curve" \
    "$cuzk" verify "$d/multiplier.vk.json" "$d/multiplier.public.json" "$tmp/tp.json"
  # a point on the curve outside the subgroup (BN254's G1 has none)
  if [ $curve = bn128 ]; then pts="pi_b"; else pts="pi_a pi_b pi_c"; fi
  for pt in $pts; do
    [ $have_py = 1 ] || break
    name=$(echo "${pt#pi_}" | tr a-c A-C)
    if python3 "$src/tests/torsion.py" "$d/multiplier.proof.json" "$tmp/tor.json" $pt; then
      expect_fail "$curve $pt outside the subgroup" 1 \
        "^INVALID: .*point $name: .*not in the prime-order subgroup" \
        "$cuzk" verify "$d/multiplier.vk.json" "$d/multiplier.public.json" "$tmp/tor.json"
    else
      bad "$curve $pt: no proof outside the subgroup"
    fi
  done
  # verify: 1 is an invalid proof (above), 2 a file that cannot be used:
  # malformed, missing, or in another file's place (named once, with its
  # role and the usage line)
  echo '{"pi_a": [' >"$tmp/broken.json"
  expect_fail "$curve malformed proof JSON" 2 "invalid JSON at line" "$cuzk" verify "$d/multiplier.vk.json" "$d/multiplier.public.json" "$tmp/broken.json"
  named_once "$curve malformed proof JSON" "$tmp/broken.json"
  expect_fail "$curve malformed vk JSON" 2 "invalid JSON at line" "$cuzk" verify "$tmp/broken.json" "$d/multiplier.public.json" "$d/multiplier.proof.json"
  named_once "$curve malformed vk JSON" "$tmp/broken.json"
  expect_fail "$curve verify: missing proof" 2 "cannot open $tmp/nope.json" \
    "$cuzk" verify "$d/multiplier.vk.json" "$d/multiplier.public.json" "$tmp/nope.json"
  named_once "$curve verify: missing proof" "$tmp/nope.json"
  printf '{"pi_a": ["1"], "protocol": "groth16"}\n' >"$tmp/nopoints.json"
  expect_fail "$curve proof without points" 2 "pi_a" \
    "$cuzk" verify "$d/multiplier.vk.json" "$d/multiplier.public.json" "$tmp/nopoints.json"
  named_once "$curve proof without points" "$tmp/nopoints.json"
  expect_fail "$curve verify: proof and key swapped" 2 \
    "^cuzk verify: $d/multiplier.proof.json is a proof \(proof.json\), given as the verification key \(argument 1\)" \
    "$cuzk" verify "$d/multiplier.proof.json" "$d/multiplier.public.json" "$d/multiplier.vk.json"
  grep -q "^usage: cuzk verify <verification_key.json> <public.json> <proof.json>" "$tmp/err" && ok || bad "$curve verify swapped: no usage line"
  expect_fail "$curve verify: proof and public swapped" 2 \
    "^cuzk verify: $d/multiplier.proof.json is a proof \(proof.json\), given as the public signals \(argument 2\)" \
    "$cuzk" verify "$d/multiplier.vk.json" "$d/multiplier.proof.json" "$d/multiplier.public.json"
  # the .zkey in the verification key's place: its verification key is used
  expect_ok "$curve verify with the .zkey" "$cuzk" verify "$d/multiplier.zkey" "$d/multiplier.public.json" "$d/multiplier.proof.json"
  grep -qx OK "$tmp/out" && ok || bad "$curve verify with the .zkey: no OK line"
  expect_invalid "$curve verify with the .zkey: another circuit's proof" "$d/multiplier.zkey" "$d/multiplier.public.json" "$d/poseidon_chain.proof.json"
done
expect_ok "verify --help" "$cuzk" verify --help
grep -q "^  2  a file cannot be read" "$tmp/out" && grep -q "\.zkey" "$tmp/out" && ok || bad "verify --help: exit statuses or the .zkey not described: $(cat "$tmp/out")"

# fullprove in the argument order of snarkjs wtns calculate (circuit first):
# refused by the roles, before anything is read or compiled
printf '\0asm\1\0\0\0' >"$tmp/c.wasm"
printf '{"a": "1"}\n' >"$tmp/in.json"
rm -f "$tmp/x.json"
expect_fail "fullprove with the wasm first" 2 \
  "^cuzk fullprove: $tmp/c.wasm is a circuit's witness calculator \(.wasm\), given as the input.json \(argument 1\)" \
  "$cuzk" fullprove "$tmp/c.wasm" "$tmp/in.json" "$fx/bn128/multiplier.zkey" "$tmp/x.json" "$tmp/y.json"
grep -q "^usage: cuzk fullprove" "$tmp/err" && [ ! -e "$tmp/x.json" ] && ok || bad "fullprove with the wasm first: no usage line, or a file written"
expect_fail "fullprove with the key first" 2 \
  "^cuzk fullprove: .*multiplier.zkey is a proving key \(.zkey\), given as the input.json \(argument 1\)" \
  "$cuzk" fullprove "$fx/bn128/multiplier.zkey" "$tmp/c.wasm" "$tmp/in.json" "$tmp/x.json" "$tmp/y.json"
expect_fail "vk of the other curve" 1 "proof is for bn128, expected bls12381" \
  "$cuzk" verify "$fx/bls12381/multiplier.vk.json" "$fx/bn128/multiplier.public.json" "$fx/bn128/multiplier.proof.json"

# cuzk bench --dir makes its folder and the ones above it, as mkdir -p; a
# file in the way is named
expect_ok "bench engine --dir DIR that does not exist" \
  "$cuzk" bench engine --device cpu --log2 6 -n 1 -k 1 --dir "$tmp/bench/a/b"
[ -f "$tmp/bench/a/b/engine_bn128_6.zkey" ] && ok || bad "bench --dir: no key in the folder it made"
: >"$tmp/bench/file"
expect_fail "bench engine --dir under a file" 1 "bench/file is not a folder" \
  "$cuzk" bench engine --device cpu --log2 6 -n 1 -k 1 --dir "$tmp/bench/file/x"

# a, b, c images (cuzk abc): made from a witness and its key, described by
# cuzk info, proved by cuzk prove where a .wtns goes (told by the magic),
# with snarkjs's public signals and no evaluation; bad images are refused
# by name and nothing is written
for curve in bn128 bls12381; do
  d=$fx/$curve
  expect_ok "$curve abc" "$cuzk" abc --threads 2 "$d/multiplier.zkey" "$d/multiplier.wtns" "$tmp/m.abc"
  expect_ok "$curve info abc" "$cuzk" info "$tmp/m.abc"
  grep -q "a, b, c image" "$tmp/out" && grep -q "curve        $curve" "$tmp/out" &&
    grep -Eq "rows         [1-9][0-9]* " "$tmp/out" && grep -Eq "values       [1-9][0-9]* " "$tmp/out" &&
    ok || bad "$curve info abc: $(cat "$tmp/out")"
  expect_ok "$curve prove abc" "$cuzk" prove --verify -v --cpu "$d/multiplier.zkey" "$tmp/m.abc" "$tmp/ap.json" "$tmp/apub.json"
  grep -q 'evaluate (none: a, b, c input) 0.0 |' "$tmp/err" && ok || bad "$curve prove abc -v: $(head -c 400 "$tmp/err")"
  expect_ok "$curve verify the abc proof" "$cuzk" verify "$d/multiplier.vk.json" "$tmp/apub.json" "$tmp/ap.json"
  cmp -s "$tmp/apub.json" "$d/multiplier.public.json" && ok || bad "$curve abc public.json differs from snarkjs's"
  size=$(stat -c %s "$tmp/m.abc")
  for cut in 8 20 40 $((size / 2)) $((size - 1)); do
    head -c "$cut" "$tmp/m.abc" >"$tmp/cut.abc"
    prove_fails "$curve abc cut at $cut" "^cuzk prove: .*abc: truncated" "$d/multiplier.zkey" "$tmp/cut.abc"
  done
  expect_fail "$curve info on a cut abc" 1 "^cuzk info: .*abc: truncated" "$cuzk" info "$tmp/cut.abc"
  cp "$tmp/m.abc" "$tmp/big.abc"
  printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' |
    dd of="$tmp/big.abc" bs=1 seek=32 conv=notrunc 2>/dev/null
  prove_fails "$curve abc value above r" "abc: a\[0\] is not below r" "$d/multiplier.zkey" "$tmp/big.abc"
  expect_ok "$curve abc of another circuit" "$cuzk" abc "$d/poseidon_chain.zkey" "$d/poseidon_chain.wtns" "$tmp/other.abc"
  prove_fails "$curve abc of another circuit" "abc: the image has [0-9]+ witness values, the key expects [0-9]+" \
    "$d/multiplier.zkey" "$tmp/other.abc"
  rm -f "$tmp/none.abc"
  expect_fail "$curve abc of a witness for another key" 1 "^cuzk abc: .*witness has [0-9]+ values, the key expects [0-9]+" \
    "$cuzk" abc "$d/multiplier.zkey" "$d/poseidon_chain.wtns" "$tmp/none.abc"
  [ ! -e "$tmp/none.abc" ] && ok || bad "$curve: a failing cuzk abc wrote its output"
done
expect_fail "abc usage error" 2 "usage: cuzk abc" "$cuzk" abc only-one-arg
expect_ok "abc help" "$cuzk" abc --help
grep -q "a, b, c image" "$tmp/out" && ok || bad "abc --help: $(cat "$tmp/out")"

# cuzk info on snarkjs and circom JSON files: told by their contents, each
# checked by the library's reader
for curve in bn128 bls12381; do
  d=$fx/$curve
  expect_ok "$curve info vk.json" "$cuzk" info "$d/multiplier.vk.json"
  grep -q "verification key" "$tmp/out" && grep -q "curve        $curve" "$tmp/out" &&
    grep -q "public       1 signals" "$tmp/out" && ok || bad "$curve info vk.json: $(cat "$tmp/out")"
  expect_ok "$curve info proof.json" "$cuzk" info "$d/multiplier.proof.json"
  grep -q "Groth16 proof" "$tmp/out" && grep -q "curve        $curve" "$tmp/out" &&
    ok || bad "$curve info proof.json: $(cat "$tmp/out")"
  expect_ok "$curve info public.json" "$cuzk" info "$d/multiplier.public.json"
  grep -q "signals      1" "$tmp/out" && ok || bad "$curve info public.json: $(cat "$tmp/out")"
done
printf '{"a": 3, "b": ["1", ["2", "3"]]}\n' >"$tmp/input.json"
expect_ok "info input.json" "$cuzk" info "$tmp/input.json"
grep -q "circom input" "$tmp/out" && grep -q "signals      2" "$tmp/out" &&
  grep -q "values       4" "$tmp/out" && ok || bad "info input.json: $(cat "$tmp/out")"
printf '["1", "%s"]\n' 52435875175126190479447740508185965837690552500527637822603658699938581184513 >"$tmp/pub-r.json"
expect_fail "info public.json with a value no field holds" 1 "fits         no curve" \
  "$cuzk" info "$tmp/pub-r.json"
echo '{"pi_a": [' >"$tmp/broken.json"
expect_fail "info malformed JSON" 1 "invalid JSON at line" "$cuzk" info "$tmp/broken.json"
tr -d ' \n' <"$fx/bn128/multiplier.proof.json" | sed 's/"pi_a":\["[0-9]*"/"pi_a":["5"/' >"$tmp/offcurve.json"
expect_fail "info proof with A off the curve" 1 "point A|not on the curve|on the curve" \
  "$cuzk" info "$tmp/offcurve.json"

# usage errors exit 2
expect_fail "usage error" 2 "usage: cuzk prove" "$cuzk" prove only-one-arg
expect_fail "unknown command" 2 "frobnicate|usage" "$cuzk" frobnicate
expect_fail "prove --threads without a value" 2 "usage: cuzk prove" "$cuzk" prove a b c --threads
expect_fail "prove unknown option" 2 "unknown option --frob" "$cuzk" prove --frob a b c d
expect_ok "help" "$cuzk" prove --help
grep -q -- "--threads N" "$tmp/out" && ok || bad "prove --help does not list --threads"
# the daemon's address options are prove's too, and the cache folder's
# defaults are those of docs/WITNESS.md
for opt in "--addr ADDR" "--token T" "--client ID" "XDG_CACHE_HOME"; do
  grep -q -- "$opt" "$tmp/out" && ok || bad "prove --help does not list $opt"
done
expect_ok "wtns calculate --help" "$cuzk" wtns calculate --help
grep -q -- "--cache DIR.*CUZK_WC_CACHE" "$tmp/out" && grep -q "XDG_CACHE_HOME/cuzk/wc" "$tmp/out" && ok ||
  bad "wtns calculate --help: the cache's defaults: $(cat "$tmp/out")"
# bench prove --log2 takes the sizes as its help shows them: K [K...]
mkdir -p "$tmp/bp"
expect_ok "bench prove --log2 6 7" "$cuzk" bench prove --curve bn254 --log2 6 7 --reps 1 --dir "$tmp/bp"
grep -Eq "^bn128 +2\^6 " "$tmp/out" && grep -Eq "^bn128 +2\^7 " "$tmp/out" && ok ||
  bad "bench prove --log2 6 7: $(cat "$tmp/out" "$tmp/err")"

if [ $have_py = 0 ]; then
  if [ "${CUZK_REQUIRE_ALL:-0}" = 1 ]; then
    bad "python3 is not installed: the subgroup cases did not run (CUZK_REQUIRE_ALL=1)"
  else
    echo "SKIP: python3 is not installed: the subgroup cases did not run"
  fi
fi
echo "test_cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
