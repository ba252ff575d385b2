#!/usr/bin/env bash
# One program's files call one another without a cycle: from the symbols
# each of its object files defines and uses (nm), the graph "file A calls a
# function (or uses a variable) of file B" must have no cycle, so the
# program reads as layers (docs/INTERNALS.md).  A cycle fails, naming the
# calls on it.  The tests of cuzkd (test_server_layers.sh) and of cuzk
# (test_cli_layers.sh) run this over their programs' object files.
# Usage: call_graph.sh <program> <min files> <source dir> <objdir>...
#   <program>    the name said in the messages
#   <min files>  fewer files (or calls between them) than this means the
#                symbols were not read: a failure, not a pass
#   <objdir>     folders of the program's object files (*.o, not recursive);
#                a file is named by its folder and name (cli/cuzk, bench/load)
#                and read only while its source, <source dir>/cli/cuzk.c,
#                exists: a build folder keeps the objects of removed files
# Environment:
#   CALL_GRAPH_ROOT   name each file by its object's path below this folder
#                     instead (groth16/formats/zkey): for a room whose
#                     subfolders hold files of the same name
#   CALL_GRAPH_EDGES  after a pass, write the calls there ("A B symbol" a
#                     line), for a caller's own rules over them
set -u
[ $# -ge 4 ] || { echo "usage: call_graph.sh <program> <min files> <source dir> <objdir>..."; exit 2; }
prog=$1 min=$2 src=$3
shift 3
command -v nm >/dev/null || { echo "FAIL: nm is missing (binutils)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for dir in "$@"; do
  ls "$dir"/*.o >/dev/null 2>&1 || { echo "FAIL: no object files of $prog in $dir"; exit 1; }
  for o in "$dir"/*.o; do
    if [ -n "${CALL_GRAPH_ROOT:-}" ]; then
      f=${o#"$CALL_GRAPH_ROOT"/}
      f=${f%.o}
      f=${f%.c}
      f=${f%.cu}
    else
      f=$(basename "$dir")/$(basename "$o" .c.o)
    fi
    [ -f "$src/$f.c" ] || [ -f "$src/$f.cu" ] || continue
    nm "$o" | awk -v f="$f" '$2 ~ /^[TDRB]$/ {print "D", f, $3} $1 == "U" {print "U", f, $2}'
  done
done >"$tmp/syms"
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
  echo "FAIL: $prog's files call one another in a cycle; the calls on it:"
  awk 'NR == FNR {on[$1 " " $2] = 1; next} ($1 " " $2) in on {print "  " $1 " -> " $2 ": " $3}' \
    "$tmp/left" "$tmp/edges"
  exit 1
fi
[ "$files" -ge "$min" ] && [ "$edges" -ge "$min" ] ||
  { echo "FAIL: only $files files and $edges calls between them: the symbols were not read"; exit 1; }
[ -z "${CALL_GRAPH_EDGES:-}" ] || cp "$tmp/edges" "$CALL_GRAPH_EDGES"
echo "ok: $files files of $prog, $edges calls between them, no cycle"
