#!/usr/bin/env bash
# groth16/'s files call one another without a cycle: from the symbols each
# of libcuzk's object files of groth16/ (its subfolders included) defines
# and uses (nm), the graph "file A calls a function of file B" must have no
# cycle, so the room reads as layers: the curve facts at the bottom, the
# file formats above them, the provers and the development tools above
# those, and the curve table's entry points on top (docs/INTERNALS.md,
# "groth16/'s layers").  A cycle fails, naming the calls on it, and so
# does a call from a layer into one above it.
# Usage: test_groth16_layers.sh <path to cuzk> <source dir>
set -u
cuzk=${1:?usage: test_groth16_layers.sh <path to cuzk> <source dir>}
src=${2:?usage: test_groth16_layers.sh <path to cuzk> <source dir>}
objroot=$(dirname "$cuzk")/CMakeFiles/cuzk_objects.dir
objdir=$objroot/groth16
[ -d "$objdir" ] || { echo "FAIL: no object files of libcuzk in $objdir"; exit 1; }
command -v nm >/dev/null || { echo "FAIL: nm is missing (binutils)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A file is named by its path below the object folder (formats/zkey,
# prover/key), since two folders may hold files of the same name.
find "$objdir" -name '*.o' | sort >"$tmp/objs"
while read -r o; do
  f=${o#"$objroot"/}
  f=${f%.o}
  f=${f%.c}
  f=${f%.cu}
  nm "$o" | awk -v f="$f" '$2 ~ /^[TDRB]$/ {print "D", f, $3} $1 == "U" {print "U", f, $2}'
done <"$tmp/objs" >"$tmp/syms"
# Objects whose source is gone (a renamed file in an old build folder)
# are not the library's any more.
awk '{print $2}' "$tmp/syms" | sort -u | while read -r f; do
  [ -e "$src/$f.c" ] || [ -e "$src/$f.cu" ] || echo "$f"
done >"$tmp/stale"
awk -v list="$tmp/stale" 'BEGIN {while ((getline f <list) > 0) stale[f] = 1} !($2 in stale)' \
  "$tmp/syms" >"$tmp/live"
mv "$tmp/live" "$tmp/syms"
# edges "A B symbol": A uses a symbol B defines
awk '$1 == "D" {def[$3] = $2} $1 == "U" {use[NR] = $2 " " $3}
     END {for (i in use) {split(use[i], p, " "); if ((p[2] in def) && def[p[2]] != p[1])
            print p[1], def[p[2]], p[2]}}' "$tmp/syms" | sort -u >"$tmp/edges"
files=$(awk '{print $2}' "$tmp/syms" | sort -u | wc -l)
edges=$(awk '{print $1, $2}' "$tmp/edges" | sort -u | wc -l)
# Kahn's peel, from the top and then from the bottom: repeatedly drop the
# calls of files nothing left calls into (column 1 never in column 2), then
# the calls into files that call nothing left; what remains is on a cycle.
awk '{print $1, $2}' "$tmp/edges" | sort -u >"$tmp/left"
peel() { # peel OUTER INNER: drop rows whose column OUTER never shows in column INNER
  while :; do
    awk -v o="$1" -v i="$2" 'NR == FNR {seen[$i] = 1; next} !($o in seen) {print $o}' \
      "$tmp/left" "$tmp/left" | sort -u >"$tmp/gone"
    [ -s "$tmp/gone" ] || return 0
    awk -v o="$1" 'NR == FNR {drop[$1] = 1; next} !($o in drop)' "$tmp/gone" "$tmp/left" >"$tmp/next"
    mv "$tmp/next" "$tmp/left"
  done
}
peel 1 2
peel 2 1
if [ -s "$tmp/left" ]; then
  echo "FAIL: groth16/'s files call one another in a cycle; the calls on it:"
  awk 'NR == FNR {on[$1 " " $2] = 1; next} ($1 " " $2) in on {print "  " $1 " -> " $2 ": " $3}' \
    "$tmp/left" "$tmp/edges"
  exit 1
fi
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
# Every subfolder's files must have been read: a renamed object folder
# must not turn the check into one of nothing.
for sub in formats prover devtools; do
  grep -q "^$objdir/$sub/" "$tmp/objs" ||
    { echo "FAIL: no object file of groth16/$sub in $objdir/$sub"; exit 1; }
done
[ "$files" -ge 15 ] && [ "$edges" -ge 15 ] ||
  { echo "FAIL: only $files files and $edges calls between them: the symbols were not read"; exit 1; }
echo "ok: $files files of groth16/, $edges calls between them, no cycle"
