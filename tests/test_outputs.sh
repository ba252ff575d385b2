#!/usr/bin/env bash
# Every command that writes a file honours what the output's name is
# (util/outfile.h), with private nodes made in a temporary folder (never
# the system's):
#  - a character device (mknod c 1 3: a null device) stays that device,
#    with its major and minor, after `cuzk prove`, `zkey export-vk`, `abc`,
#    `wtns calculate`, `gen` and `setup --dev` wrote into it;
#  - a FIFO stays a FIFO and its reader gets exactly the bytes the same
#    command writes into a regular file (a proof read from FIFOs verifies);
#    without a reader the command fails after its bounded wait, saying so;
#  - a symlink stays a symlink and its target holds the new content;
#  - symlinks planted at the temporary names the writers once used
#    (<output>.tmp<pid>) leave their victim untouched;
#  - /dev/stdout writes into the shell's redirection (a pipe, a file,
#    an append);
#  - a folder, a missing folder: exit 1, a message naming the path, an
#    existing output untouched, no temporary file left;
#  - `cuzk bench prove --dir` makes its folder (mkdir -p) or says why not.
# mknod needs root: elsewhere the device checks are skipped with a SKIP
# line; as root (CI) a failing mknod fails the test.
# Usage: test_outputs.sh <path to cuzk> <source dir>
set -u
cuzk=$1
src=$2
fx=$src/tests/interop/fixtures/bn128
tmp=$(mktemp -d)
readers=""
trap 'for p in $readers; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() {
  echo "test_outputs: $pass passed, $fail failed"
  [ $fail -eq 0 ]
  exit
}
d=$tmp/n
mkdir "$d"
zkey=$fx/multiplier.zkey
wtns=$fx/multiplier.wtns
vkj=$fx/multiplier.vk.json

# run WHAT CMD...: CMD exits 0 (its stderr is shown when it does not).
run() {
  local what=$1
  shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "$what: exit $?: $(head -c 400 "$tmp/err")"; fi
}
# refused WHAT REGEX CMD...: CMD exits 1 with stderr matching REGEX.
refused() {
  local what=$1 re=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 1 ] && grep -Eq -- "$re" "$tmp/err" && ok ||
    bad "$what: exit $rc, stderr '$(head -c 400 "$tmp/err")' (wanted /$re/)"
}
# no_temps: no temporary file of a writer is left in $d.
no_temps() {
  local left
  left=$(ls -A "$d" | grep -E '\.tmp' | grep -v '^vk\.json\.tmp[0-9]*$')
  [ -z "$left" ] && ok || bad "$1: temporary files left: $left"
}

# ---- reference outputs in regular files ---------------------------------------------
run "export-vk to a file" "$cuzk" zkey export-vk "$zkey" "$tmp/vk.json"
run "abc to a file" "$cuzk" abc "$zkey" "$wtns" "$tmp/ref.abc"
cmp -s "$tmp/vk.json" "$vkj" && ok || bad "export-vk differs from the fixture's vk"

# ---- a private character device ------------------------------------------------------
dev=$d/null
# is_null_dev WHAT: $dev is still a character device 1,3
is_null_dev() {
  [ "$(stat -c '%F %t,%T' "$dev" 2>&1)" = "character special file 1,3" ] && ok ||
    bad "$1: $dev is now '$(stat -c '%F %t,%T' "$dev" 2>&1)'"
}
if mknod "$dev" c 1 3 2>"$tmp/mknod.err"; then
  run "prove into the device" "$cuzk" prove --cpu --local "$zkey" "$wtns" "$dev" "$dev"
  is_null_dev "prove"
  run "export-vk into the device" "$cuzk" zkey export-vk "$zkey" "$dev"
  is_null_dev "export-vk"
  run "abc into the device" "$cuzk" abc "$zkey" "$wtns" "$dev"
  is_null_dev "abc"
  run "gen into the device" "$cuzk" gen --curve bn254 --log2 4 "$dev" "$dev"
  is_null_dev "gen"
  run "gen of a circuit" "$cuzk" gen --curve bn254 --log2 4 "$tmp/g.r1cs" "$tmp/g.wtns"
  run "setup into the device" "$cuzk" setup --dev "$tmp/g.r1cs" "$dev"
  is_null_dev "setup"
  # through a symlink to it: the node is written, the link stays
  ln -s "$dev" "$d/to-null"
  run "export-vk through a link to the device" "$cuzk" zkey export-vk "$zkey" "$d/to-null"
  is_null_dev "export-vk through a link"
  [ -L "$d/to-null" ] && ok || bad "the link to the device was replaced"
elif [ "$(id -u)" = 0 ]; then
  bad "mknod as root failed: $(cat "$tmp/mknod.err")"
else
  echo "SKIP: not root: no private device node (mknod), the device checks did not run"
fi

# ---- FIFOs with a reader ---------------------------------------------------------------
# reader NAME: a FIFO $d/NAME read into $tmp/NAME.got in the background
# (for 30 s at most: a writer that replaced the FIFO must not hang the test)
reader() {
  mkfifo "$d/$1" || bad "mkfifo $1"
  timeout 30 cat "$d/$1" >"$tmp/$1.got" &
  readers="$readers $!"
}
still_fifo() { [ -p "$d/$1" ] && [ ! -L "$d/$1" ] && ok || bad "$d/$1 is no longer a FIFO"; }
reader vk
run "export-vk into a FIFO" "$cuzk" zkey export-vk "$zkey" "$d/vk"
wait
still_fifo vk
cmp -s "$tmp/vk.got" "$tmp/vk.json" && ok || bad "the FIFO's reader did not get the vk"
reader abc
run "abc into a FIFO" "$cuzk" abc "$zkey" "$wtns" "$d/abc"
wait
still_fifo abc
cmp -s "$tmp/abc.got" "$tmp/ref.abc" && ok || bad "the FIFO's reader did not get the abc image"
reader proof
reader public
run "prove into two FIFOs" "$cuzk" prove --cpu --local "$zkey" "$wtns" "$d/proof" "$d/public"
wait
still_fifo proof
still_fifo public
run "the proof read from the FIFOs verifies" "$cuzk" verify "$vkj" "$tmp/public.got" "$tmp/proof.got"
# the .r1cs is written in two passes: a FIFO is refused, nothing hangs
reader r1cs
refused "gen into a FIFO" "cannot go back" "$cuzk" gen --curve bn254 --log2 4 "$d/r1cs" "$tmp/x.wtns"
kill $readers 2>/dev/null
wait
still_fifo r1cs
# no reader: the bounded wait, then the reason
mkfifo "$d/lonely"
refused "export-vk into a FIFO without a reader" "no reader on FIFO $d/lonely" \
  "$cuzk" zkey export-vk "$zkey" "$d/lonely"
still_fifo lonely

# ---- witness calculation (the circom fixtures) -------------------------------------------
wc=${CUZK_WC_FIXTURES:-}/bn128
if [ -f "$wc/poseidon_chain.wasm" ] && [ -n "${CUZK_WC_CACHE:-}" ]; then
  run "wtns calculate to a file" "$cuzk" wtns calculate "$wc/poseidon_chain.wasm" \
    "$wc/poseidon_chain.input.json" "$tmp/w.wtns"
  reader w
  run "wtns calculate into a FIFO" "$cuzk" wtns calculate "$wc/poseidon_chain.wasm" \
    "$wc/poseidon_chain.input.json" "$d/w"
  wait
  still_fifo w
  cmp -s "$tmp/w.got" "$tmp/w.wtns" && ok || bad "the FIFO's reader did not get the witness"
  if [ -c "$dev" ]; then
    run "wtns calculate into the device" "$cuzk" wtns calculate "$wc/poseidon_chain.wasm" \
      "$wc/poseidon_chain.input.json" "$dev"
    is_null_dev "wtns calculate"
  fi
elif [ "${CUZK_REQUIRE_ALL:-0}" = 1 ]; then
  bad "CUZK_WC_FIXTURES ('${CUZK_WC_FIXTURES:-}') does not hold the circom fixtures"
else
  echo "SKIP: no circom fixtures (CUZK_WC_FIXTURES): wtns calculate did not run"
fi

# ---- symlinks -------------------------------------------------------------------------
echo old >"$d/real.json"
ln -s real.json "$d/link.json"
run "export-vk through a symlink" "$cuzk" zkey export-vk "$zkey" "$d/link.json"
[ -L "$d/link.json" ] && [ "$(readlink "$d/link.json")" = real.json ] && ok ||
  bad "the symlink was replaced"
cmp -s "$d/real.json" "$tmp/vk.json" && ok || bad "the symlink's target does not hold the vk"
# links planted where the writers once put their temporary file
# (<output>.tmp<pid>), for the next few hundred pids (one process plants
# them all, so that the writer's pid is likely among them; the C test
# test_outfile proves the temporary file's open flags whatever the pid)
echo victim >"$d/victim"
if command -v python3 >/dev/null; then
  python3 - "$d" <<'PY'
import os, sys
d = sys.argv[1]
base = os.getpid()
for p in range(base + 1, base + 400):
    os.symlink(d + "/victim", "%s/vk.json.tmp%d" % (d, p))
PY
else
  for i in $(seq 1 400); do ln -s "$d/victim" "$d/vk.json.tmp$((BASHPID + i))"; done
fi
"$cuzk" zkey export-vk "$zkey" "$d/vk.json" >"$tmp/out" 2>"$tmp/err" &
cpid=$!
wait $cpid && ok || bad "export-vk beside planted links: $(cat "$tmp/err")"
[ -L "$d/vk.json.tmp$cpid" ] || echo "note: no link was planted for the writer's pid $cpid"
run "prove beside planted links" "$cuzk" prove --cpu --local "$zkey" "$wtns" "$d/vk.json" "$d/p.json"
[ "$(cat "$d/victim")" = victim ] && ok || bad "a planted link's victim was written"
[ -f "$d/vk.json" ] && [ ! -L "$d/vk.json" ] && ok || bad "vk.json is not a regular file"
rm -f "$d"/vk.json.tmp*
no_temps "after the writes"

# ---- /dev/stdout -------------------------------------------------------------------------
"$cuzk" zkey export-vk "$zkey" /dev/stdout 2>"$tmp/err" | cat >"$tmp/piped.json"
cmp -s "$tmp/piped.json" "$tmp/vk.json" && ok || bad "/dev/stdout into a pipe: $(cat "$tmp/err")"
"$cuzk" zkey export-vk "$zkey" /dev/stdout >"$tmp/redir.json" 2>"$tmp/err"
cmp -s "$tmp/redir.json" "$tmp/vk.json" && ok || bad "/dev/stdout into a file: $(cat "$tmp/err")"
echo head >"$tmp/app.json"
"$cuzk" zkey export-vk "$zkey" /dev/stdout >>"$tmp/app.json" 2>"$tmp/err"
{ echo head; cat "$tmp/vk.json"; } | cmp -s - "$tmp/app.json" && ok ||
  bad "/dev/stdout appended to a file: $(head -c 200 "$tmp/app.json")"

# ---- refusals: the old output is left as it was ---------------------------------------------
mkdir "$d/folder"
refused "export-vk onto a folder" "$d/folder: it is a folder" "$cuzk" zkey export-vk "$zkey" "$d/folder"
[ -d "$d/folder" ] && ok || bad "the folder is gone"
refused "export-vk into a missing folder" "$d/none/vk.json: cannot create a file in $d/none: No such file" \
  "$cuzk" zkey export-vk "$zkey" "$d/none/vk.json"
echo keep >"$d/keep.json"
refused "prove with a proof into a folder" "it is a folder" \
  "$cuzk" prove --cpu --local "$zkey" "$wtns" "$d/folder" "$d/keep.json"
[ "$(cat "$d/keep.json")" = keep ] && ok || bad "public.json was written though the proof could not be"
no_temps "after the refusals"

# ---- bench prove --dir makes its folder ---------------------------------------------------------
run "bench prove --dir <missing folders>" "$cuzk" bench prove --curve bn254 --log2 4 --reps 1 \
  --dir "$tmp/bench/a/b"
[ -d "$tmp/bench/a/b" ] && ok || bad "bench prove did not make its folder"
echo file >"$tmp/plain"
refused "bench prove --dir under a file" "--dir $tmp/plain/x: $tmp/plain is not a folder" \
  "$cuzk" bench prove --curve bn254 --log2 4 --reps 1 --dir "$tmp/plain/x"
finish
