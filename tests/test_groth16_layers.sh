#!/usr/bin/env bash
# groth16/'s files call one another without a cycle (tests/call_graph.sh
# over libcuzk's object files of groth16/ and its subfolders), so the room
# reads as layers: the curve facts at the bottom, the file formats above
# them, the provers and the development tools above those, and the curve
# table's entry points on top (docs/INTERNALS.md, "groth16/'s layers").  A
# cycle fails, naming the calls on it, and so does a call from a layer into
# one above it.
# Usage: test_groth16_layers.sh <path to cuzk> <source dir>
set -u
cuzk=${1:?usage: test_groth16_layers.sh <path to cuzk> <source dir>}
src=${2:?usage: test_groth16_layers.sh <path to cuzk> <source dir>}
objroot=$(dirname "$cuzk")/CMakeFiles/cuzk_objects.dir
objdir=$objroot/groth16
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Every subfolder's files must be read: a renamed object folder must not
# turn the check into one of nothing.
for sub in formats prover devtools; do
  ls "$objdir/$sub"/*.o >/dev/null 2>&1 ||
    { echo "FAIL: no object file of groth16/$sub in $objdir/$sub"; exit 1; }
done
CALL_GRAPH_ROOT=$objroot CALL_GRAPH_EDGES=$tmp/edges bash "$src/tests/call_graph.sh" groth16/ 15 \
  "$src" "$objdir" "$objdir/formats" "$objdir/prover" "$objdir/devtools" || exit 1
# Beyond no cycle, the layers' order: a file calls only files of its own
# layer or below (the readers never run the prover, nothing below the
# curve table calls it).  A file of groth16/ itself that is not the
# table counts as the bottom, so a new one must call nothing above it.
rank() {
  case $1 in
  groth16/curve_impl) echo 4 ;; groth16/devtools/*) echo 3 ;; groth16/prover/*) echo 2 ;;
  groth16/formats/*) echo 1 ;; *) echo 0 ;;
  esac
}
up=$(while read -r a b sym; do
  [ "$(rank "$a")" -ge "$(rank "$b")" ] || echo "  $a -> $b: $sym"
done <"$tmp/edges")
if [ -n "$up" ]; then
  echo "FAIL: groth16/'s files call a layer above their own (facts < formats < prover"
  echo "      < devtools < curve_impl); the calls:"
  echo "$up"
  exit 1
fi
echo "ok: no call into a layer above"
