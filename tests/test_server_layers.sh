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
  echo "FAIL: cuzkd's files call one another in a cycle; the calls on it:"
  awk 'NR == FNR {on[$1 " " $2] = 1; next} ($1 " " $2) in on {print "  " $1 " -> " $2 ": " $3}' \
    "$tmp/left" "$tmp/edges"
  exit 1
fi
[ "$files" -ge 10 ] && [ "$edges" -ge 10 ] ||
  { echo "FAIL: only $files files and $edges calls between them: the symbols were not read"; exit 1; }
echo "ok: $files files of cuzkd, $edges calls between them, no cycle"
