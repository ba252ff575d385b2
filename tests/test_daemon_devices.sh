#!/usr/bin/env bash
# `cuzkd --devices auto` says in one line what it found and then serves on
# what it has: a build without CUDA says so; a CUDA build on a machine with
# no GPU (no NVIDIA driver, or a driver that lists none) says that no GPU
# was found, not that CUDA failed; with a GPU, the engine's devices name
# it.  Either way it gets ready and proves.  .ci/run runs this test in its
# CUDA build too (build-cuda, on a machine without a GPU).
# Usage: test_daemon_devices.sh <cuzk> <source dir>; env CUZKD=<cuzkd>.
set -u
. "$2/tests/daemon/lib.sh"

gen_circuit a bn254 5
# What the build and the machine have, asked of the library (cuzk info).
gpu=$("$cuzk" info --gpu --addr "unix:$tmp/none.sock" 2>/dev/null | head -1)
case "$gpu" in
  *"no CUDA support"*) want='INFO cuzkd: devices auto: libcuzk was built without CUDA: proving on the CPU$' ;;
  "CUDA devices: none ("*|"CUDA devices: 0") want='INFO cuzkd: devices auto: no GPU found: .*: proving on the CPU$' ;;
  "CUDA devices: "[1-9]*) want='INFO cuzkd: cuzkd .*: engine up: devices gpu0' ;;
  *) want="" ; bad "cuzk info --gpu: '$gpu' (CUDA could not tell: a broken driver?)" ;;
esac
echo "cuzk info --gpu: $gpu"

start_daemon auto --devices=auto || exit 1
if [ -n "$want" ]; then
  grep -q "$want" "$tmp/auto.log" && ok || bad "no line /$want/ in the log: $(grep cuzkd "$tmp/auto.log" | head -5)"
fi
if grep -q 'CUDA failed' "$tmp/auto.log" && [ "${gpu#CUDA devices: none usable}" = "$gpu" ]; then
  bad "'CUDA failed' where CUDA did not fail: $(grep 'CUDA failed' "$tmp/auto.log")"
else
  ok
fi
n=$(grep -c 'devices auto:' "$tmp/auto.log")
case "$gpu" in "CUDA devices: "[1-9]*) [ "$n" = 0 ] ;; *) [ "$n" = 1 ] ;; esac && ok ||
  bad "$n 'devices auto:' lines: $(grep 'devices auto' "$tmp/auto.log")"
"$cuzk" prove --addr "unix:$SOCK" "$tmp/a.zkey" "$tmp/a.wtns" "$tmp/p.json" "$tmp/pub.json" >/dev/null 2>&1 &&
  "$cuzk" verify "$tmp/a.vk.json" "$tmp/pub.json" "$tmp/p.json" >/dev/null 2>&1 && ok ||
  bad "the daemon on --devices auto did not prove"
finish
