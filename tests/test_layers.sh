#!/usr/bin/env bash
# The programs build on the public API only: every `#include "..."` in
# cli/ and server/ names a public header (include/*.h) or a header of the
# program's own folder (cli/*.h, server/*.h).  An include of an internal
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
KNOWN_EXCEPTIONS="cli/cmd_prove.c cli/cmd_bench.c"

fail=0
checked=0
cd "$src" || exit 1
public=" $(cd include && echo *.h) "
for f in cli/*.[ch] server/*.[ch]; do
  [ -e "$f" ] || continue
  checked=$((checked + 1))
  dir=${f%%/*}
  bad=""
  while IFS=: read -r line text; do
    name=$(printf '%s' "$text" | sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p')
    [ -n "$name" ] || continue
    case "$name" in
      */*)
        [ "${name%%/*}" = "$dir" ] && [ "${name#*/}" = "${name##*/}" ] && [ -e "$name" ] && continue
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
