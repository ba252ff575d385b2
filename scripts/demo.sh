#!/usr/bin/env bash
# The main job: build cuzk, then prove and verify bundled circom circuits
# (Poseidon hash chain, BN254 and BLS12-381) and a generated 2^14-constraint
# circuit, printing the time of each step.  With an NVIDIA GPU and the CUDA
# toolkit the build includes the kernels and the proofs are made on the GPU;
# otherwise on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
# nvcc is often installed off the PATH
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=$PATH:/usr/local/cuda/bin
echo "== building (build/; the CUDA kernels too when nvcc is found: a few minutes)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$jobs" --target cuzk-cli >/dev/null
cuzk=$PWD/build/cuzk
out=$(mktemp -d /tmp/cuzk-demo-XXXXXX)
if "$cuzk" info --gpu 2>/dev/null | grep -q "^CUDA devices: [1-9]"; then
  echo "== proving on the GPU: $("$cuzk" info --gpu | sed -n 2p | sed 's/^ *//'); files in $out"
else
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "== a GPU is present but this build has no CUDA kernels (nvcc not found)"
  fi
  echo "== proving on the CPU ($(nproc) threads); files in $out"
fi

for curve in bn128 bls12381; do
  fx=tests/interop/fixtures/$curve
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

echo
echo "-- generated circuit, BLS12-381, 2^14 constraints (mostly boolean signals)"
"$cuzk" gen --curve bls12_381 --log2 14 "$out/gen.r1cs" "$out/gen.wtns"
"$cuzk" setup --dev --seed 7 "$out/gen.r1cs" "$out/gen.zkey"
"$cuzk" prove -v "$out/gen.zkey" "$out/gen.wtns" "$out/gen.proof.json" "$out/gen.public.json"
"$cuzk" zkey export-vk "$out/gen.zkey" "$out/gen.vk.json"
printf '   verify: '
"$cuzk" verify "$out/gen.vk.json" "$out/gen.public.json" "$out/gen.proof.json"
echo
echo "== done: every proof above verified (files in $out)"
