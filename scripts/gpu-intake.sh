#!/usr/bin/env bash
# cuzkd intake on a GPU machine: 8 clients upload 2^22 BLS12-381 witnesses
# (128 MiB each) over loopback TCP, 48 then 96 jobs, then jobs carrying
# circom inputs (a Poseidon chain, bn128) from 16 clients.  Prints each
# `cuzk bench batch` report (proofs/s, latency, intake MB/s, the GPU's busy
# / starved / idle-with-work split) and the daemon's upload-buffer counters.
#
# Usage: scripts/gpu-intake.sh [CHAIN_DIR]
#   CHAIN_DIR/bn128/ holds chain.wasm, chain.r1cs(.gz), chain.input.json
#   (bench/witness/make_chain.sh); without it the inputs part is skipped.
# Environment: B (build folder with cuzk and cuzkd, default build).
set -u
B=${B:-build}; CHAIN=${1:-}
D=/tmp/b22; mkdir -p $D; echo secret > $D/token
T0=$(date +%s)
$B/cuzk gen --curve bls12381 --log2 22 $D/c.r1cs $D/c.wtns >/dev/null 2>&1 && $B/cuzk setup --dev $D/c.r1cs $D/c.zkey >/dev/null 2>&1 || { echo gen/setup failed; exit 1; }
echo "gen+setup $(( $(date +%s) - T0 )) s"
start() { $B/cuzkd --socket= --listen=127.0.0.1:7654 --token_file=$D/token --devices=gpu "$@" > $D/d.log 2>&1 & PID=$!
  for i in $(seq 120); do curl -sf -H 'Authorization: Bearer secret' http://127.0.0.1:7654/healthz >/dev/null && return 0; sleep 0.5; done; echo "cuzkd did not start"; tail -5 $D/d.log; return 1; }
start --keys=k=$D/c.zkey || exit 1
export CUZK_TOKEN=secret
echo "== witnesses 2^22 bls12381, 48 jobs, 8 clients, TCP"
$B/cuzk bench batch --addr http://127.0.0.1:7654 --key k --witness $D/c.wtns -n 48 -j 8 2>&1 | tail -12
echo "== again (warm)"
$B/cuzk bench batch --addr http://127.0.0.1:7654 --key k --witness $D/c.wtns -n 96 -j 8 2>&1 | tail -12
curl -s -H 'Authorization: Bearer secret' http://127.0.0.1:7654/metrics | grep -E '^cuzkd_upload' | head
kill $PID; wait $PID 2>/dev/null
[ -n "$CHAIN" ] || exit 0; C=$CHAIN/bn128; $B/cuzk setup --dev <(gzip -dc $C/chain.r1cs.gz) $D/chain.zkey >/dev/null 2>&1 || { gzip -dc $C/chain.r1cs.gz > $D/chain.r1cs; $B/cuzk setup --dev $D/chain.r1cs $D/chain.zkey >/dev/null; }
start --keys=chain=$D/chain.zkey:$(cd $C && pwd)/chain.wasm --wc_cache_dir=/tmp/wcd || exit 1
echo "== inputs (Poseidon chain 2^16, bn128), 192 jobs, 16 clients, TCP"
$B/cuzk bench batch --addr http://127.0.0.1:7654 --zkey chain --input $C/chain.input.json -n 192 -j 16 --verify 2>&1 | tail -12
kill $PID; wait $PID 2>/dev/null
