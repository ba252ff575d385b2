#!/usr/bin/env bash
# A client's circom circuit cannot hog cuzkd.  Modules are made here
# (tests/daemon/hostile_wasm.py, wabt's wat2wasm):
#
#   setup      a start function that never returns, and a getVersion that
#              never returns (read when the circuit is inspected): the
#              submit is refused within wc_start_timeout_s (400 naming it),
#              however long wc_timeout_s is
#   sigterm    SIGTERM while a submit waits on an endless start function
#              (wc_start_timeout_s long), or on a compile: the daemon stops
#              within its drain timeout, says so, and leaves no worker, no
#              compiler and no build folder
#   bomb       one function of 8,000 locals: refused before any compile,
#              at once, naming the locals; no compiler ever runs
#   table      under a small max_circuits, circuits refused by the submit's
#              check and circuits whose jobs ended do not fill the table: a
#              new circuit is still taken, and a circuit bound to a key is
#              never unloaded for room
#   cache      under wc_cache_max_bytes, compiles remove the least recently
#              used objects, never the one a loaded circuit (bound to a key)
#              uses; the default bound is not "none"
# Usage: test_daemon_wasm_hog.sh <path to cuzk> <source dir>   (CUZKD=<cuzkd>)
set -u
. "$(dirname "$0")/daemon/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
command -v wat2wasm >/dev/null || skip "wat2wasm (Debian's wabt) is not installed"
W="python3 $src/tests/daemon/hostile_wasm.py"

gen_circuit small bn128 4
cache=$tmp/cache
mkdir -m 700 "$cache"

alive() {
  if kill -0 "$DPID" 2>/dev/null; then ok; else bad "$1: the daemon died"; return; fi
  expect 200 -- /healthz
}

# job_circuit WASM [KEY]: submit a job naming WASM; $code, $tmp/body.
job_circuit() {
  printf '{"key":"%s","circuit":"%s","input":{"a":7}}' "${2:-op}" "$1" >"$tmp/job.json"
  req -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/job.json" /v1/jobs
}

msg_has() {
  local m
  m=$(jget "$tmp/body" error)
  [ "$m" = "<missing>" ] && m=$(cat "$tmp/body")
  case "$m" in *"$2"*) ok ;; *) bad "$1: '$m' does not name '$2'" ;; esac
}

# workers_of CACHE: processes running an object of CACHE
workers_of() {
  for p in /proc/[0-9]*; do readlink "$p/exe" 2>/dev/null; done | grep -c "^$1/"
}

# --- the default bound of the compiled cache ----------------------------------------
def=$(XDG_RUNTIME_DIR=$tmp "$CUZKD" --print-default-config | sed -n 's/^wc_cache_max_bytes *= *//p')
case "$def" in "" | 0) bad "wc_cache_max_bytes defaults to '$def' (no bound)" ;; *) ok ;; esac

start_daemon d --wc_cache_dir="$cache" --wc_start_timeout_s=2 --max_circuits=3 \
  --keys="op=$tmp/small.zkey" --self_verify=false || finish
expect 200 -- /v1/keys/op
nv=$(jget "$tmp/body" n_vars)
for k in good start_loop info_loop bigfn; do
  $W $k "$tmp/$k.wasm" "$nv" >/dev/null || bad "cannot make $k.wasm"
done

# --- setup: an endless start function or inspection, under its own limit ------------
# (a start function could take min(wc_timeout_s, 30) s, and the calls that
# read a circuit's sizes all of wc_timeout_s: 600 s by default)
for k in start_loop info_loop; do
  t0=$SECONDS
  job_circuit "$tmp/$k.wasm"
  check "$k: HTTP status" "$code" 400
  check "$k: error code" "$(jget "$tmp/body" code)" ERANGE
  msg_has "$k" "wc_start_timeout_s"
  [ $((SECONDS - t0)) -le 12 ] && ok || bad "$k: answered after $((SECONDS - t0)) s (limit 2 s)"
  sleep 0.5
  check "$k: workers left" "$(workers_of "$cache")" 0
done
alive setup

# --- bomb: refused before compiling ---------------------------------------------------
# (8,000 locals in one function held the only compiler slot 37 s and 901 MiB)
t0=$SECONDS
job_circuit "$tmp/bigfn.wasm"
check "bomb: HTTP status" "$code" 400
check "bomb: error code" "$(jget "$tmp/body" code)" ERANGE
msg_has bomb "8000 locals"
[ $((SECONDS - t0)) -le 5 ] && ok || bad "bomb: answered after $((SECONDS - t0)) s"
check "bomb: compile lines in the daemon log" "$(grep -c "compiling bigfn.wasm" "$tmp/d.log")" 0
check "bomb: compile logs in the cache" "$(ls "$cache" | grep -c '\.log$')" 0
alive bomb

# --- table: refused and unused circuits do not fill max_circuits ------------------------
# (each hard link is a circuit of its own; the submit's check refused every
# one for its size, yet each stayed counted: past max_circuits every new
# circuit got 503 until a restart)
$W good "$tmp/size.wasm" $((nv + 1)) >/dev/null || bad "cannot make size.wasm"
# a circuit bound to a key: in use for good, never unloaded for room
cp "$tmp/small.zkey" "$tmp/bound.zkey"
ln "$tmp/good.wasm" "$tmp/bound.wasm"
printf '{"id":"bound","path":"%s","circuit":"%s"}' "$tmp/bound.zkey" "$tmp/bound.wasm" >"$tmp/k.json"
expect 200 -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/k.json" /v1/keys
refused=0
for i in $(seq 1 8); do
  ln "$tmp/size.wasm" "$tmp/size$i.wasm"
  job_circuit "$tmp/size$i.wasm"
  [ "$code" = 400 ] && refused=$((refused + 1))
done
check "table: circuits of the wrong size refused" "$refused" 8
# circuits that ran a job each, waited for: unused once it ended
for i in $(seq 1 5); do
  ln "$tmp/good.wasm" "$tmp/used$i.wasm"
  job_circuit "$tmp/used$i.wasm"
  check "table: used$i: submit" "$code" 202
  [ "$code" = 202 ] && req "/v1/jobs/$(jget "$tmp/body" request_id)/result?timeout_ms=30000"
done
ln "$tmp/good.wasm" "$tmp/legit.wasm"
job_circuit "$tmp/legit.wasm"
check "table: a new circuit after them" "$code" 202
req "/v1/jobs/$(jget "$tmp/body" request_id)/result?timeout_ms=30000"
check "table: its job" "$(jget "$tmp/body" state)" done
expect 200 -- /v1/status
known=$(jget "$tmp/body" circuits.known)
[ "$known" -le 3 ] 2>/dev/null && ok || bad "table: $known circuits known (max_circuits 3)"
printf '{"key":"bound","input":{"a":7}}' >"$tmp/job.json"
req -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/job.json" /v1/jobs
check "table: a job of the key's circuit" "$code" 202
req "/v1/jobs/$(jget "$tmp/body" request_id)/result?timeout_ms=30000"
check "table: its state" "$(jget "$tmp/body" state)" done
check "table: the key's circuit unloaded" "$(grep -c "bound.wasm unloaded" "$tmp/d.log")" 0
[ "$(grep -c "unloaded to make room" "$tmp/d.log")" -ge 1 ] && ok || bad "table: no eviction logged"
alive table
stop_daemon "$DPID"

# --- sigterm: an endless start function during the drain ---------------------------------
# (the submit's connection waited for the start: SIGTERM took 12.6 s
# against a drain timeout of 3 s)
start_daemon t --wc_cache_dir="$cache" --wc_start_timeout_s=120 --drain_timeout_s=2 \
  --keys="op=$tmp/small.zkey" || finish
ln "$tmp/start_loop.wasm" "$tmp/start_loop2.wasm"
printf '{"key":"op","circuit":"%s","input":{"a":7}}' "$tmp/start_loop2.wasm" >"$tmp/job.json"
curl -s --max-time 200 --unix-socket "$SOCK" -o /dev/null -X POST \
  -H 'Content-Type: application/json' --data-binary "@$tmp/job.json" http://cuzkd/v1/jobs &
cpid=$!
for _ in $(seq 1 100); do [ "$(workers_of "$cache")" -ge 1 ] && break; sleep 0.1; done
check "sigterm: the start is running" "$(workers_of "$cache")" 1
sleep 0.5
t0=$(date +%s%N)
kill -TERM "$DPID"
for _ in $(seq 1 200); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.05; done
t1=$(date +%s%N)
if kill -0 "$DPID" 2>/dev/null; then
  bad "sigterm: the daemon still runs $(((t1 - t0) / 1000000)) ms after SIGTERM (drain 2 s)"
  kill -KILL "$DPID"
fi
wait "$DPID" 2>/dev/null
wait "$cpid" 2>/dev/null
ms=$(((t1 - t0) / 1000000))
echo "sigterm: stopped in $ms ms (drain timeout 2 s)"
# the drain's 2 s, the responses' grace (2 s at most) and a second for the exit
[ "$ms" -le 5500 ] && ok || bad "sigterm: stopped in $ms ms, drain timeout 2 s"
grep -q "circuits: stopping" "$tmp/t.log" && ok || bad "sigterm: the stop of circuits not logged"
sleep 0.3
check "sigterm: workers left" "$(workers_of "$cache")" 0

# --- sigterm: a compile during the drain -------------------------------------------------
# (a compile ran to its end, up to wc_compile_timeout_s, before the daemon
# could stop)
sc=$tmp/sc
mkdir -m 700 "$sc"
$W slowfn "$tmp/slow.wasm" "$nv" 7 >/dev/null || bad "cannot make slow.wasm"
compilers() { # processes whose arguments name the compile folder $sc
  ps -eo pid=,args= | awk -v d="$sc" -v me="$DPID" '$1 != me && index($0, d) && !/ awk /' | wc -l
}
start_daemon tc --wc_cache_dir="$sc" --drain_timeout_s=2 --keys="op=$tmp/small.zkey" || finish
printf '{"key":"op","circuit":"%s","input":{"a":7}}' "$tmp/slow.wasm" >"$tmp/job.json"
curl -s --max-time 200 --unix-socket "$SOCK" -o /dev/null -X POST \
  -H 'Content-Type: application/json' --data-binary "@$tmp/job.json" http://cuzkd/v1/jobs &
cpid=$!
for _ in $(seq 1 100); do [ "$(compilers)" -ge 1 ] && break; sleep 0.1; done
[ "$(compilers)" -ge 1 ] && ok || bad "sigterm (compile): no compiler seen running"
t0=$(date +%s%N)
kill -TERM "$DPID"
for _ in $(seq 1 200); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.05; done
t1=$(date +%s%N)
if kill -0 "$DPID" 2>/dev/null; then
  bad "sigterm (compile): the daemon still runs $(((t1 - t0) / 1000000)) ms after SIGTERM"
  kill -KILL "$DPID"
fi
wait "$DPID" 2>/dev/null
wait "$cpid" 2>/dev/null
ms=$(((t1 - t0) / 1000000))
echo "sigterm (compile): stopped in $ms ms (drain timeout 2 s)"
[ "$ms" -le 5500 ] && ok || bad "sigterm (compile): stopped in $ms ms, drain timeout 2 s"
sleep 0.3
check "sigterm (compile): compilers left running" "$(compilers)" 0
check "sigterm (compile): build folders left" "$(ls "$sc" | grep -c '^build-')" 0

# --- cache: bounded, never the object of a loaded circuit --------------------------------
cb=$tmp/cb
mkdir -m 700 "$cb"
start_daemon c0 --wc_cache_dir="$cb" --keys="op=$tmp/small.zkey" || finish
job_circuit "$tmp/good.wasm"
check "cache: the first object" "$code" 202
stop_daemon "$DPID"
sz=$(stat -c %s "$cb"/*.wc)
rm -f "$cb"/*
# room for one object and a half: each compile must remove one
start_daemon c --wc_cache_dir="$cb" --wc_cache_max_bytes=$((sz * 3 / 2)) --max_circuits=2 \
  --keys="op=$tmp/small.zkey" --self_verify=false || finish
cp "$tmp/small.zkey" "$tmp/kept.zkey"
printf '{"id":"kept","path":"%s","circuit":"%s"}' "$tmp/kept.zkey" "$tmp/good.wasm" >"$tmp/k.json"
expect 200 -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/k.json" /v1/keys
kept=$(ls "$cb"/*.wc)
for i in 1 2 3; do
  $W good "$tmp/n$i.wasm" $((nv + i)) >/dev/null || bad "cannot make n$i.wasm"
  job_circuit "$tmp/n$i.wasm"
  check "cache: n$i refused by the check (compiled)" "$code" 400
done
[ -e "$kept" ] && ok || bad "cache: the object of the key's loaded circuit was removed"
check "cache: objects kept" "$(ls "$cb" | grep -c '\.wc$')" 2
check "cache: sums kept" "$(ls "$cb" | grep -c '\.sum$')" 2
printf '{"key":"kept","input":{"a":7}}' >"$tmp/job.json"
req -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/job.json" /v1/jobs
check "cache: a job of the kept circuit" "$code" 202
req "/v1/jobs/$(jget "$tmp/body" request_id)/result?timeout_ms=30000"
check "cache: its state" "$(jget "$tmp/body" state)" done
alive cache
stop_daemon "$DPID"
finish
