#!/usr/bin/env bash
# The main job: build cuzk, then prove and verify bundled circom circuits
# (Poseidon hash chain, BN254 and BLS12-381) and a generated 2^14-constraint
# circuit, printing the time of each step and section.  Builds build/cuzk
# and build/cuzkd (the daemon; BUILD_DIR=... builds elsewhere), showing the
# build's progress.  Its files go to a temporary folder, removed at the end
# unless CUZK_DEMO_KEEP=1.  With an NVIDIA GPU and the CUDA toolkit the
# build includes the kernels and the proofs are made on the GPU; otherwise
# on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
t_start=$(date +%s.%N)
t_sec=$t_start
sec_title=""
# section TITLE: print the time of the section before, start another
section() {
  local now
  now=$(date +%s.%N)
  [ -n "$sec_title" ] &&
    awk -v a="$t_sec" -v b="$now" -v t="$sec_title" 'BEGIN { printf "   (%s: %.1f s)\n", t, b - a }'
  t_sec=$now
  sec_title=$1
}
section "installing missing packages"
bash scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
# nvcc is often installed off the PATH
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=$PATH:/usr/local/cuda/bin
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
# Whether this configuration builds the CUDA kernels (CMake found nvcc and
# CUZK_CUDA is on), said before the long part of the build.
cuda_compiler=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")
if grep -q '^CUZK_CUDA:BOOL=OFF' "$BUILD_DIR/CMakeCache.txt"; then
  cuda="without CUDA kernels (configured with -DCUZK_CUDA=OFF)"
elif [ -n "$cuda_compiler" ] && [ "${cuda_compiler%NOTFOUND}" = "$cuda_compiler" ]; then
  cuda="with the CUDA kernels (nvcc: $cuda_compiler; a few minutes)"
else
  cuda="without CUDA kernels (nvcc not found: CPU only)"
fi
section "build"
echo "== building $BUILD_DIR/cuzk and $BUILD_DIR/cuzkd $cuda"
# The build's progress: one line redrawn on a terminal, a line every 10%
# otherwise; the whole output goes to demo-build.log in the build folder,
# whose end is shown if the build fails.
log=$BUILD_DIR/demo-build.log
tty=0
[ -t 1 ] && tty=1
if ! cmake --build "$BUILD_DIR" -j "$jobs" --target cuzk-cli cuzkd 2>&1 | tee "$log" |
  awk -v tty=$tty '/^\[ *[0-9]+%\]/ { p = substr($0, 2, index($0, "%") - 2) + 0
         if (tty) { printf "\r   build %3d%%", p; fflush(); shown = 1 }
         else if (p >= last + 10 || (p == 100 && last < 100)) { printf "   build %3d%%\n", p; fflush(); last = p - p % 10 } }
       END { if (shown) printf "\n" }'; then
  echo "== the build failed; the end of $log:"
  tail -n 30 "$log"
  exit 1
fi
section "looking for a GPU"
cuzk=$(cd "$BUILD_DIR" && pwd)/cuzk
out=$(mktemp -d /tmp/cuzk-demo-XXXXXX)
# The demo's files are removed at the end (CUZK_DEMO_KEEP=1 keeps them).
if [ "${CUZK_DEMO_KEEP:-0}" = 1 ]; then
  keep_note="kept"
else
  keep_note="removed at the end; CUZK_DEMO_KEEP=1 keeps them"
  trap 'rm -rf "$out"' EXIT
fi
if "$cuzk" info --gpu 2>/dev/null | grep -q "^CUDA devices: [1-9]"; then
  echo "== proving on the GPU: $("$cuzk" info --gpu | sed -n 2p | sed 's/^ *//'); files in $out ($keep_note)"
else
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "== a GPU is present but this build has no CUDA kernels (nvcc not found)"
  fi
  echo "== proving on the CPU ($(nproc) threads); files in $out ($keep_note)"
fi

for curve in bn128 bls12381; do
  fx=tests/interop/fixtures/$curve
  section "Poseidon hash chain, $curve"
  echo
  echo "-- circom Poseidon hash chain, $curve"
  "$cuzk" info "$fx/poseidon_chain.zkey" | sed 's/^/   /'
  t0=$(date +%s.%N)
  "$cuzk" prove -v "$fx/poseidon_chain.zkey" "$fx/poseidon_chain.wtns" \
    "$out/$curve.proof.json" "$out/$curve.public.json"
  "$cuzk" zkey export-vk "$fx/poseidon_chain.zkey" "$out/$curve.vk.json"
  printf '   verify: '
  "$cuzk" verify "$out/$curve.vk.json" "$out/$curve.public.json" "$out/$curve.proof.json"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "   prove + export + verify wall time: %.3f s\n", b - a }'
done

section "generated circuit"
echo
echo "-- generated circuit, BLS12-381, 2^14 constraints (mostly boolean signals)"
"$cuzk" gen --curve bls12_381 --log2 14 "$out/gen.r1cs" "$out/gen.wtns"
"$cuzk" setup --dev --seed 7 "$out/gen.r1cs" "$out/gen.zkey"
"$cuzk" prove -v "$out/gen.zkey" "$out/gen.wtns" "$out/gen.proof.json" "$out/gen.public.json"
"$cuzk" zkey export-vk "$out/gen.zkey" "$out/gen.vk.json"
printf '   verify: '
"$cuzk" verify "$out/gen.vk.json" "$out/gen.public.json" "$out/gen.proof.json"
section ""
awk -v a="$t_start" -v b="$(date +%s.%N)" 'BEGIN { printf "\n== done in %.1f s: every proof above verified\n", b - a }'
if [ "${CUZK_DEMO_KEEP:-0}" = 1 ]; then echo "   files in $out"; fi
