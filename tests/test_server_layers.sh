#!/usr/bin/env bash
# cuzkd's files call one another without a cycle: from the symbols each of
# its object files defines and uses (nm), the graph "file A calls a function
# of file B" must have no cycle, so the daemon reads as layers (the HTTP
# server and the route table on top, the endpoints, the job stores and the
# fleet below them, the reply helpers, the upload buffers and the logger at
# the bottom: docs/INTERNALS.md).  A cycle fails, naming the calls on it.
# Usage: test_server_layers.sh <path to cuzk> <source dir>   (CUZKD set)
set -u
[ -n "${CUZKD:-}" ] || { echo "SKIP: cuzkd was not built"; exit 77; }
objdir=$(dirname "$CUZKD")/CMakeFiles/cuzkd.dir/server
ls "$objdir"/*.o >/dev/null 2>&1 || { echo "FAIL: no object files of cuzkd in $objdir"; exit 1; }
command -v nm >/dev/null || { echo "FAIL: nm is missing (binutils)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for o in "$objdir"/*.o; do
  f=$(basename "$o" .c.o)
  nm "$o" | awk -v f="$f" '$2 ~ /^[TDRB]$/ {print "D", f, $3} $1 == "U" {print "U", f, $2}'
done >"$tmp/syms"
# edges "A B symbol": A uses a symbol B defines
awk '$1 == "D" {def[$3] = $2} $1 == "U" {use[NR] = $2 " " $3}
     END {for (i in use) {split(use[i], p, " "); if ((p[2] in def) && def[p[2]] != p[1])
            print p[1], def[p[2]], p[2]}}' "$tmp/syms" | sort -u >"$tmp/edges"
files=$(awk '{print $2}' "$tmp/syms" | sort -u | wc -l)
edges=$(awk '{print $1, $2}' "$tmp/edges" | sort -u | wc -l)
# peel from the top: repeatedly drop the calls of files nothing left calls
# into
awk '{print $1, $2}' "$tmp/edges" | sort -u >"$tmp/left"
while :; do
  awk 'NR == FNR {callee[$2] = 1; next} !($1 in callee) {print}' "$tmp/left" "$tmp/left" >"$tmp/top"
  [ -s "$tmp/top" ] || break
  awk 'NR == FNR {drop[$1] = 1; next} !($1 in drop)' "$tmp/top" "$tmp/left" >"$tmp/next"
  mv "$tmp/next" "$tmp/left"
done
# and from the bottom: drop the calls into files that call nothing left
while :; do
  awk 'NR == FNR {caller[$1] = 1; next} !($2 in caller) {print}' "$tmp/left" "$tmp/left" >"$tmp/bottom"
  [ -s "$tmp/bottom" ] || break
  awk 'NR == FNR {drop[$2] = 1; next} !($2 in drop)' "$tmp/bottom" "$tmp/left" >"$tmp/next"
  mv "$tmp/next" "$tmp/left"
done
if [ -s "$tmp/left" ]; then
  echo "FAIL: cuzkd's files call one another in a cycle; the calls on it:"
  awk 'NR == FNR {on[$1 " " $2] = 1; next} ($1 " " $2) in on {print "  " $1 " -> " $2 ": " $3}' \
    "$tmp/left" "$tmp/edges"
  exit 1
fi
[ "$files" -ge 10 ] && [ "$edges" -ge 10 ] ||
  { echo "FAIL: only $files files and $edges calls between them: the symbols were not read"; exit 1; }
echo "ok: $files files of cuzkd, $edges calls between them, no cycle"
