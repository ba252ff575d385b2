#!/usr/bin/env bash
# The programs build on the public API only: every `#include "..."` in
# cli/, server/ and the cuzk command's load generators (bench/cmd_bench_*.c,
# bench/load.[ch], bench/bench_daemon.h) names a public header (include/*.h)
# or one of the program's own headers (cli/*.h, bench/load.h and
# bench/bench_daemon.h for the cuzk command, server/*.h for cuzkd).  An include of an internal
# header (groth16/, engine/, util/, gpu/, witness/, ...) fails, naming the
# file and line, so the library's insides can change without the programs
# noticing.
# Usage: test_layers.sh <path to cuzk> <source dir>
set -u
src=$2

# Files not yet converted, allowed to include internal headers until they
# prove through the engine.  Empty this list as they are converted; an
# entry whose file no longer includes anything internal fails too, so the
# list cannot go stale.
KNOWN_EXCEPTIONS=""

fail=0
checked=0
cd "$src" || exit 1
public=" $(cd include && echo *.h) "
for f in cli/*.[ch] server/*.[ch] bench/cmd_bench_*.c bench/load.[ch] bench/bench_daemon.h; do
  [ -e "$f" ] || continue
  checked=$((checked + 1))
  dir=${f%%/*}
  bad=""
  while IFS=: read -r line text; do
    name=$(printf '%s' "$text" | sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p')
    [ -n "$name" ] || continue
    case "$name" in
      */*)
        own=$dir
        [ "$dir" = bench ] && own=cli
        [ "${name%%/*}" = "$own" ] && [ "${name#*/}" = "${name##*/}" ] && [ -e "$name" ] && continue
        [ "$own" = cli ] && { [ "$name" = bench/load.h ] || [ "$name" = bench/bench_daemon.h ]; } &&
          continue
        ;;
      *)
        case "$public" in *" $name "*) continue ;; esac
        ;;
    esac
    bad="$bad $f:$line: #include \"$name\"
"
  done < <(grep -n '#[[:space:]]*include[[:space:]]*"' "$f")
  case " $KNOWN_EXCEPTIONS " in
    *" $f "*)
      if [ -z "$bad" ]; then
        echo "FAIL: $f includes only public headers: remove it from KNOWN_EXCEPTIONS"
        fail=$((fail + 1))
      fi
      continue
      ;;
  esac
  if [ -n "$bad" ]; then
    printf 'FAIL: internal header included by a program (use include/*.h):\n%s' "$bad"
    fail=$((fail + 1))
  fi
done
[ "$checked" -gt 0 ] || { echo "FAIL: no cli/ or server/ source found under $src"; exit 1; }
echo "layers: $checked files of cli/ and server/ checked, $fail failing"
[ $fail = 0 ]
