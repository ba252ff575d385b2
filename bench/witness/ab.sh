#!/usr/bin/env bash
# Alternating runs of `cuzk wtns calculate` from two builds (A: a
# baseline, B: a change) on the same circuits, so that the load of a
# shared machine falls on both: ROUNDS rounds, each running every circuit
# once with A, then once with B.  Each build keeps its own compiled-circuit
# cache (the cache key covers the glue, so two builds never share an
# object); compile first with one run of each (not counted).  Prints one
# line per run and, per circuit and build, the medians of the witness time
# (what `-v` reports: inputs set and the calculation), the wall time of
# the whole command and its CPU time (user + system, with the worker's).
#
# Usage: bench/witness/ab.sh ROUNDS BUILD_A CACHE_A BUILD_B CACHE_B CIRCUIT...
#   BUILD_*: a build folder (its cuzk and libcuzk.so); CIRCUIT: a path
#   without extension, with CIRCUIT.wasm and CIRCUIT.input.json beside it
#   (as bench/witness/make_chain.sh writes them).
#   CFLAGS_A, CFLAGS_B in the environment: CUZK_WC_CFLAGS of each side's
#   runs (compiler flags of its circuits, in its cache key), so that one
#   build can be compared with itself built otherwise.
set -euo pipefail
ROUNDS=${1:?usage: ab.sh ROUNDS BUILD_A CACHE_A BUILD_B CACHE_B CIRCUIT...}
A=$2 CA=$3 B=$4 CB=$5
shift 5
[ $# -gt 0 ] || { echo "ab.sh: no circuit" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

one() { # build cache circuit cflags -> "witness wall cpu", the times in seconds
    local w t extra=()
    [ -z "$4" ] || extra=("CUZK_WC_CFLAGS=$4") # set only when given: it is in the cache key
    t=$( { TIMEFORMAT='%3R %3U %3S'; time env LD_LIBRARY_PATH="$1" CUZK_WC_CACHE="$2" "${extra[@]}" \
        "$1/cuzk" wtns calculate -v "$3.wasm" "$3.input.json" "$out/w.wtns" >"$out/log" 2>&1; } 2>&1) ||
        { cat "$out/log" >&2; exit 1; }
    w=$(sed -n 's/.*| witness \([0-9.]*\) s.*/\1/p' "$out/log")
    echo "$w $t" | awk '{ printf "%s %.3f %.3f\n", $1, $2, $3 + $4 }'
}

for c in "$@"; do # compile (or load) once each
    one "$A" "$CA" "$c" "${CFLAGS_A:-}" >/dev/null
    one "$B" "$CB" "$c" "${CFLAGS_B:-}" >/dev/null
done
cpp_of() { # circuit -> its C++ generator, if built
    local n
    n=$(basename "$1")
    n=${n%_bn128}
    n=${n%_bls12381}
    [ -x "$1_cpp/$n" ] && echo "$1_cpp/$n"
}
cpp() { # exe circuit -> "- wall cpu"
    local t
    t=$( { TIMEFORMAT='%3R %3U %3S'; time "$1" "$2.input.json" "$out/c.wtns" >"$out/log" 2>&1; } 2>&1) ||
        { cat "$out/log" >&2; exit 1; }
    echo "$t" | awk '{ printf "- %.3f %.3f\n", $1, $2 + $3 }'
}
for r in $(seq "$ROUNDS"); do
    for c in "$@"; do
        sides="A B"
        [ -z "$(cpp_of "$c")" ] || sides="A B C"
        for side in $sides; do
            case $side in
            A) res=$(one "$A" "$CA" "$c" "${CFLAGS_A:-}") ;;
            B) res=$(one "$B" "$CB" "$c" "${CFLAGS_B:-}") ;;
            C) res=$(cpp "$(cpp_of "$c")" "$c") ;;
            esac
            echo "$(basename "$c") $side $res" | tee -a "$out/all"
        done
    done
done
echo "# medians over $ROUNDS rounds: circuit build witness_s wall_s cpu_s (load $(cut -d' ' -f1-3 /proc/loadavg))"
for c in "$@"; do
    for side in A B C; do
        grep -q "^$(basename "$c") $side " "$out/all" || continue
        grep "^$(basename "$c") $side " "$out/all" | awk -v c="$(basename "$c")" -v s=$side '
            { w[NR] = $3; t[NR] = $4; u[NR] = $5 }
            function med(a, n,   i, j, x) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
            END { printf "%s %s %s %.3f %.3f\n", c, s, w[1] == "-" ? "-" : sprintf("%.3f", med(w, NR)),
                          med(t, NR), med(u, NR) }'
    done
done
