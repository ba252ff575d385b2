#!/usr/bin/env bash
# Files a client names, against a real cuzkd (docs/DAEMON.md, "Files a
# client names"):
#   - a 3 GiB sparse a, b, c image whose header fits its size, for a key of
#     domain 2^8, submitted 20 times by path while another process
#     truncates and re-extends it: every submit refused (its rows against
#     the key's domain, from the header alone, or its size against the
#     header) and the daemon alive (a daemon that mapped and read the
#     image was killed by SIGBUS);
#   - a job whose image or .wtns path is swapped for a FIFO with no writer,
#     a device or a folder after its 202 (the synthesis worker is held by
#     an endless circom calculation meanwhile): each such job fails naming
#     "not a regular file", the next jobs are proved, and SIGTERM then
#     stops the daemon within its drain timeout (a blocking open of the
#     FIFO used to hang synthesis, every later job, and the shutdown);
#   - valid images and witnesses truncated and restored in a loop while
#     jobs name them: every job ends (done or failed with a message about
#     the file), the daemon stays up and proves a good job afterwards.
# Usage: test_daemon_files.sh <path to cuzk> <source dir>   (CUZKD=<cuzkd>)
set -u
. "$(dirname "$0")/daemon/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
command -v wat2wasm >/dev/null || skip "wat2wasm (Debian's wabt) is not installed"

gen_circuit c bn254 8
gen_circuit small bn254 4
"$cuzk" abc --threads 2 "$tmp/c.zkey" "$tmp/c.wtns" "$tmp/c.abc" >/dev/null 2>&1 ||
  { echo "cannot make c.abc"; exit 1; }
A=$tmp/c.abc
W=$tmp/c.wtns

alive() {
  if kill -0 "$DPID" 2>/dev/null; then ok; else bad "$1: the daemon died"; return; fi
  expect 200 -- /healthz
}

# job_by_path ID PATH: submit key c with the witness at PATH; $code.
job_by_path() {
  req -X POST -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$2\"],\"request_id\":\"$1\"}" /v1/jobs
}

# wait_end ID: the job's result document in $tmp/body once it ended
# (within 40 s: the calculation holding the worker stops after 4).
wait_end() {
  expect 200 -- "/v1/jobs/$1/result?timeout_ms=40000" >/dev/null
}

# ---- a 3 GiB sparse image, truncated while it is submitted ----------------------
start_daemon sparse || exit 1
python3 - "$A" "$tmp/sparse.abc" <<'EOF'
import struct, sys
head = open(sys.argv[1], "rb").read(32)
n_vars = struct.unpack_from("<Q", head, 24)[0]
m = 1 << 25
with open(sys.argv[2], "wb") as f:
    f.write(head[:16] + struct.pack("<QQ", m, n_vars))
    f.truncate(32 + 32 * (3 * m + n_vars))
EOF
full=$(stat -c %s "$tmp/sparse.abc")
( for _ in $(seq 1 400); do
    truncate -s $((full / 2)) "$tmp/sparse.abc"; truncate -s "$full" "$tmp/sparse.abc"
  done ) &
flipper=$!
refused=0
for i in $(seq 1 20); do
  job_by_path "sparse$i" "$tmp/sparse.abc"
  case "$code" in 400) refused=$((refused + 1)) ;; esac
  m=$(jget "$tmp/body" error)
  case "$m" in
    *"more than the key's domain"* | *"abc: truncated"*) ok ;;
    *) bad "sparse image: $code: $m" ;;
  esac
done
kill "$flipper" 2>/dev/null
wait "$flipper" 2>/dev/null
check "sparse image: submits refused" "$refused" 20
alive "the sparse image"
stop_daemon "$DPID"

start_daemon main --synth_workers=1 --wc_timeout_s=4 --drain_timeout_s=3 \
  --keys="small=$tmp/small.zkey" --wc_cache_dir="$tmp/wc" || exit 1
expect 202 -- -X POST -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\"],\"request_id\":\"warm\"}" /v1/jobs
wait_end warm
check "warm-up job" "$(jget "$tmp/body" state)" done
expect 200 -- /v1/keys/small
nv_small=$(jget "$tmp/body" n_vars)

# ---- paths swapped for a FIFO, a device, a folder after the 202 ----------------------
python3 "$src/tests/daemon/hostile_wasm.py" calc_loop "$tmp/loop.wasm" "$nv_small" >/dev/null ||
  bad "cannot make loop.wasm"
mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
n=0
for src_file in "$A" "$W"; do
  for swap in fifo dev dir; do
    n=$((n + 1))
    cp "$src_file" "$tmp/victim.$n"
    # the one synthesis worker is busy with an endless calculation
    printf '{"key":"small","circuit":"%s","input":{"a":7},"request_id":"hold%s"}' "$tmp/loop.wasm" "$n" >"$tmp/job.json"
    req -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/job.json" /v1/jobs
    check "hold $n: submit" "$code" 202
    job_by_path "swap$n" "$tmp/victim.$n"
    check "swap $n ($swap): submit" "$code" 202
    case $swap in
      fifo) mv -f "$tmp/fifo" "$tmp/victim.$n"; mkfifo "$tmp/fifo" ;;
      dev) ln -sf /dev/zero "$tmp/victim.$n" ;;
      dir) rm -f "$tmp/victim.$n"; mkdir "$tmp/victim.$n" ;;
    esac
    wait_end "swap$n"
    check "swap $n ($swap): state" "$(jget "$tmp/body" state)" failed
    case "$(jget "$tmp/body" error)" in
      *"not a regular file"*) ok ;;
      *) bad "swap $n ($swap): $(jget "$tmp/body" error)" ;;
    esac
  done
done
job_by_path after "$A"
check "after the swaps: submit" "$code" 202
wait_end after
check "after the swaps: state" "$(jget "$tmp/body" state)" done
alive "swapped paths"

# ---- files truncated and restored while jobs read them -----------------------------
cp "$A" "$tmp/t.abc"
cp "$W" "$tmp/t.wtns"
( for _ in $(seq 1 300); do
    truncate -s 100 "$tmp/t.abc"; cp "$A" "$tmp/t.abc.new"; mv -f "$tmp/t.abc.new" "$tmp/t.abc"
    truncate -s 100 "$tmp/t.wtns"; cat "$W" >"$tmp/t.wtns"
  done ) &
flipper=$!
for i in $(seq 1 12); do
  f=$tmp/t.abc
  [ $((i % 2)) = 0 ] && f=$tmp/t.wtns
  job_by_path "race$i" "$f"
  [ "$code" = 202 ] || [ "$code" = 400 ] && ok || bad "race $i: HTTP $code"
done
kill "$flipper" 2>/dev/null
wait "$flipper" 2>/dev/null
for i in $(seq 1 12); do
  req "/v1/jobs/race$i/result?timeout_ms=60000"
  [ "$code" = 404 ] && continue # refused at submit
  st=$(jget "$tmp/body" state)
  case "$st" in
    done) ok ;;
    failed) case "$(jget "$tmp/body" error)" in
              *wtns* | *abc* | *witness*) ok ;;
              *) bad "race $i: failed with '$(jget "$tmp/body" error)'" ;;
            esac ;;
    *) bad "race $i: state $st" ;;
  esac
done
alive "files truncated under the reader"
job_by_path last "$A"
wait_end last
check "a good job at the end" "$(jget "$tmp/body" state)" done

# ---- SIGTERM with an endless calculation running: stopped within the drain ----------
printf '{"key":"small","circuit":"%s","input":{"a":7}}' "$tmp/loop.wasm" >"$tmp/job.json"
req -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/job.json" /v1/jobs
check "last hold: submit" "$code" 202
sleep 0.5
t0=$SECONDS
kill -TERM "$DPID"
for _ in $(seq 1 200); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$DPID" 2>/dev/null; then
  bad "the daemon still runs $((SECONDS - t0)) s after SIGTERM (drain 3 s)"
  kill -KILL "$DPID"
else
  ok
fi
wait "$DPID" 2>/dev/null
finish
