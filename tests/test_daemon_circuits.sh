#!/usr/bin/env bash
# cuzkd against circuits that misbehave: each circuit is a client's program,
# so each case checks that the daemon survives, the job (or the request)
# fails with a clear reason within its limit, no worker keeps burning CPU,
# and the daemon still serves.  Modules are made here (hostile_wasm.py,
# wabt's wat2wasm):
#
#   recurse     deep recursion in getVersion (a native stack overflow)
#   lie_n32     getFieldNumLen32 says 8, then 0x7fffffff
#   start_loop  an endless start function: the submit answers within
#               wc_start_timeout_s
#   calc_loop   an endless calculation: the job fails within wc_timeout_s
#               (and within its deadline); SIGTERM stops a daemon in the
#               middle of one within its drain timeout
#   membomb     200 MiB of memory against wc_memory=64M
#   log_flood   20,000 log() lines: the job keeps wc_log_lines of them and
#               counts the rest; the daemon's log gets one line
#   fuzz        modules whose exports report random sizes
#   limits      wc_max_wasm_bytes, max_circuits (hard links of one wasm,
#               each unused once its job ended: unloaded for room)
#   one copy    the daemon's checks of inputs and the engine's synthesis use
#               one loaded circuit; every worker is in the budget
#   refused     circuits a key refuses (other curve, other size), bound
#               again and again under a small max_circuits: none is kept
#               or counted, and a good circuit is still taken
#   cache       a cache folder of another user (with a planted object), a
#               folder others may write (mode 777, 770, 702) or under one
#               (refused each time, the same cache taken once safe), a
#               tampered object in our own cache: nothing planted ever runs
#   binding     a client cannot bind a circuit to an operator's key, nor
#               to a key that exists already
#   seccomp     a worker that opens a file after its filter dies of SIGSYS
#   compile     a compile past wc_compile_timeout_s, or over
#               wc_compile_memory, is refused naming the option and leaves
#               no compiler running; with wc_compilers=1 two compiles asked
#               at once never run together
#   self-verify the good module's witness does not satisfy the circuit: with
#               the default self_verify its job fails (EVERIFY)
#
# Needs root (CI runs as root) to plant files as user nobody.
set -u
. "$(dirname "$0")/daemon/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
command -v wat2wasm >/dev/null || skip "wat2wasm (Debian's wabt) is not installed"
need_nobody "the planted-cache cases"
W="python3 $src/tests/daemon/hostile_wasm.py"

gen_circuit small bn128 4
cache=$tmp/cache
mkdir -m 700 "$cache"

# alive: the daemon process still runs and answers.
alive() {
  if kill -0 "$DPID" 2>/dev/null; then ok; else bad "$1: the daemon died"; return; fi
  expect 200 -- /healthz
}

# busy_children PID: worker processes of PID using CPU now (state R).
busy_children() {
  local n=0 p st
  for p in $(ps --ppid "$1" -o pid= 2>/dev/null); do
    st=$(ps -o stat= -p "$p" 2>/dev/null)
    case "$st" in R*) n=$((n + 1)) ;; esac
  done
  echo $n
}
no_burn() {
  sleep 1
  local n
  n=$(busy_children "$DPID")
  check "$1: workers still running after the failure" "$n" 0
}

# job_circuit WASM [EXTRA]: submit a job of key op naming WASM; $code, $tmp/body.
job_circuit() {
  printf '{"key":"op","circuit":"%s",%s"input":{"a":7}}' "$1" "${2:+$2,}" >"$tmp/job.json"
  req -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/job.json" /v1/jobs
}

# msg_has WHAT TEXT: the last body's error (or a job's) contains TEXT.
msg_has() {
  local m
  m=$(jget "$tmp/body" error)
  [ "$m" = "<missing>" ] && m=$(cat "$tmp/body")
  case "$m" in *"$2"*) ok ;; *) bad "$1: '$m' does not name '$2'" ;; esac
}

# The "good" module computes a witness of the right shape, (1, a, 0, ...),
# that does not satisfy the key's circuit: its proofs cannot verify.  These
# daemons run with self_verify off so that its jobs end done (what is tested
# is how the daemon treats the calculator); the last case shows the default.
start_daemon d --wc_cache_dir="$cache" --wc_timeout_s=3 --wc_start_timeout_s=3 \
  --wc_memory=64M --wc_log_lines=5 \
  --max_circuits=12 --wc_max_wasm_bytes=1M --keys="op=$tmp/small.zkey" --self_verify=false || finish
expect 200 -- /v1/keys/op
nv=$(jget "$tmp/body" n_vars)
for k in good recurse lie_n32 start_loop calc_loop membomb log_flood; do
  $W $k "$tmp/$k.wasm" "$nv" >/dev/null || bad "cannot make $k.wasm"
done

# --- a well-behaved module goes through ----------------------------------------
job_circuit "$tmp/good.wasm"
check "good: submit" "$code" 202
good_rid=$(jget "$tmp/body" request_id)
alive good

# --- the workers' memory is charged to the budget ------------------------------
# (worker processes used to be outside the budget: /v1/status said a few
# MiB while each circuit's instances held their linear memory)
req "/v1/jobs/$good_rid/result?timeout_ms=30000"
check "good: job state" "$(jget "$tmp/body" state)" done
expect 200 -- /v1/status
ww=$(jget "$tmp/body" memory.witness_workers)
used=$(jget "$tmp/body" memory.used)
keys=$(jget "$tmp/body" memory.keys)
buffers=$(jget "$tmp/body" memory.buffers)
echo "good: memory.witness_workers = $ww bytes"
[ "$ww" -gt 0 ] 2>/dev/null && ok || bad "good: memory.witness_workers is $ww"
# two workers (the circuit's look-up worker, one synthesis thread's), each
# under wc_memory (64M) plus its executable
[ "$ww" -lt $((2 * 80 * 1048576)) ] 2>/dev/null && ok || bad "good: witness_workers $ww for two workers"
[ "$used" -ge $((keys + buffers + ww)) ] 2>/dev/null && ok ||
  bad "good: used $used leaves out the workers ($keys + $buffers + $ww)"

# --- one copy: the daemon's checks use the engine's loaded circuit ---------------
# (the daemon loaded a copy of its own to check inputs, with a look-up
# worker of its own that no budget counted)  A second job of the circuit
# is submitted, and waited for, on a connection that stays open (a
# look-up worker lives as long as the thread that started it); while it
# is open, every worker process of the daemon must be in
# memory.witness_workers, measured by a status on that same connection.
workers_pss() { # the daemon's worker processes: "COUNT KIB"
  local n=0 kb=0 p v
  for p in $(ps --ppid "$DPID" -o pid= 2>/dev/null); do
    v=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null)
    [ -n "$v" ] || continue
    n=$((n + 1))
    kb=$((kb + v))
  done
  echo "$n $kb"
}
python3 - "$SOCK" "$tmp/good.wasm" "$tmp/one.status" "$tmp/one.pss" "$DPID" <<'PY'
import http.client, json, socket, subprocess, sys
sock, wasm, status_out, pss_out, dpid = sys.argv[1:]
class C(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sock)
c = C("cuzkd")
body = json.dumps({"key": "op", "circuit": wasm, "input": {"a": 7}})
c.request("POST", "/v1/jobs", body, {"Content-Type": "application/json"})
r = c.getresponse()
assert r.status == 202, r.status
rid = json.loads(r.read())["request_id"]
# done before the status: no worker starts between the status and the count
c.request("GET", "/v1/jobs/%s/result?timeout_ms=30000" % rid); r = c.getresponse()
assert json.loads(r.read()).get("state") == "done"
c.request("GET", "/v1/status"); r = c.getresponse()
open(status_out, "wb").write(r.read())
pss = 0; n = 0  # every worker of the daemon, the connection still open
for p in subprocess.run(["ps", "--ppid", dpid, "-o", "pid="], capture_output=True,
                        text=True).stdout.split():
    try:
        for line in open("/proc/%s/smaps_rollup" % p):
            if line.startswith("Pss:"):
                pss += int(line.split()[1]); n += 1
    except OSError:
        pass
open(pss_out, "w").write("%d %d" % (n, pss))
c.close()
PY
check "one copy: the second submit" "$?" 0
cp "$tmp/one.status" "$tmp/body"
check "one copy: circuits loaded" "$(jget "$tmp/body" circuits.loaded)" 1
check "one copy: circuits known" "$(jget "$tmp/body" circuits.known)" 1
ww=$(jget "$tmp/body" memory.witness_workers)
read -r nw kb <"$tmp/one.pss"
echo "one copy: $nw workers, $kb KiB together; memory.witness_workers = $ww bytes"
[ "$nw" -ge 2 ] 2>/dev/null && ok || bad "one copy: $nw worker processes (a look-up and a synthesis one expected)"
# every worker counted (Pss moves a little between two readings)
[ $((ww / 1024 * 10)) -ge $((kb * 9)) ] 2>/dev/null && ok ||
  bad "one copy: witness_workers $ww bytes leaves out workers ($kb KiB measured)"

# --- recursion deep enough to overflow a native stack ---------------------------
job_circuit "$tmp/recurse.wasm"
case "$code" in 202 | 4* | 5*) ok ;; *) bad "recurse: HTTP $code" ;; esac
alive recurse

# --- a module that lies about its field width -----------------------------------
# (refused at the submit, or the job fails: where the lie shows depends on
# which call the module lies to)
job_circuit "$tmp/lie_n32.wasm"
if [ "$code" = 202 ]; then
  req "/v1/jobs/$(jget "$tmp/body" request_id)/result?timeout_ms=30000"
  check "lie_n32: job state" "$(jget "$tmp/body" state)" failed
else
  [ "$code" -ge 400 ] && ok || bad "lie_n32: HTTP $code"
fi
msg_has lie_n32 "words"
alive lie_n32

# --- an endless start function: the submit answers within its limit ------------
t0=$SECONDS
job_circuit "$tmp/start_loop.wasm"
[ "$code" -ge 400 ] && ok || bad "start_loop: HTTP $code, expected a refusal"
msg_has start_loop "wc_start_timeout_s"
[ $((SECONDS - t0)) -le 13 ] && ok || bad "start_loop: answered after $((SECONDS - t0)) s (limit 3 s)"
no_burn start_loop
alive start_loop

# --- an endless calculation: the job fails within its limit ---------------------
for extra in "" '"deadline_ms":1500'; do
  t0=$SECONDS
  job_circuit "$tmp/calc_loop.wasm" "$extra"
  check "calc_loop ($extra): submit" "$code" 202
  rid=$(jget "$tmp/body" request_id)
  req "/v1/jobs/$rid/result?timeout_ms=30000"
  st=$(jget "$tmp/body" state)
  case "$st" in failed | expired) ok ;; *) bad "calc_loop ($extra): state $st: $(head -c 300 "$tmp/body")" ;; esac
  [ $((SECONDS - t0)) -le 13 ] && ok || bad "calc_loop ($extra): ended after $((SECONDS - t0)) s"
  no_burn "calc_loop ($extra)"
done
alive calc_loop

# --- a memory bomb against wc_memory=64M -----------------------------------------
rss0=$(awk '/VmRSS/ {print $2}' /proc/$DPID/status)
job_circuit "$tmp/membomb.wasm"
check "membomb: HTTP status" "$code" 400
msg_has membomb "wc_memory"
rss1=$(awk '/VmRSS/ {print $2}' /proc/$DPID/status)
[ $((rss1 - rss0)) -lt 102400 ] && ok || bad "membomb: the daemon grew by $((rss1 - rss0)) KiB"
alive membomb

# --- 20,000 log() lines: data of the job, not of the daemon's log ------------------
# (the daemon used to write every line, or later the first wc_log_lines of
# each calculation and a summary, into its own log)
before=$(wc -l <"$tmp/d.log")
job_circuit "$tmp/log_flood.wasm"
check "log_flood: submit" "$code" 202
rid=$(jget "$tmp/body" request_id)
req "/v1/jobs/$rid/result?timeout_ms=30000"
check "log_flood: the result's circuit_log" "$(jget "$tmp/body" circuit_log.length)" 5
expect 200 -- "/v1/jobs/$rid"
check "log_flood: lines kept" "$(jget "$tmp/body" circuit_log.length)" 5
check "log_flood: a kept line" "$(jget "$tmp/body" circuit_log.0)" x
check "log_flood: lines counted, not kept" "$(jget "$tmp/body" circuit_log_dropped)" 19995
sleep 0.5
new=$(tail -n +"$((before + 1))" "$tmp/d.log")
check "log_flood: the circuit's text in the daemon log" \
  "$(printf '%s\n' "$new" | grep -c -E '^(.* )?x$|circuit log:')" 0
check "log_flood: lines about it in the daemon log" \
  "$(printf '%s\n' "$new" | grep -c "prints log() lines")" 1
alive log_flood

# --- fuzz: exports that report random sizes ---------------------------------------
for seed in $(seq 1 10); do
  $W random "$tmp/r$seed.wasm" "$nv" "$seed" >/dev/null || { bad "cannot make r$seed"; continue; }
  job_circuit "$tmp/r$seed.wasm"
  if [ "$code" -ge 400 ]; then
    m=$(jget "$tmp/body" error)
    [ -n "$m" ] && [ "$m" != "<missing>" ] && ok || bad "fuzz $seed: no message"
  fi
  kill -0 "$DPID" 2>/dev/null && ok || { bad "fuzz $seed: the daemon died"; break; }
done
alive fuzz

# --- limits: wasm size, circuits known ---------------------------------------------
python3 -c "
import sys
sys.stdout.buffer.write(open('$tmp/good.wasm','rb').read() + bytes([0, 0x83, 0x80, 0x80, 1, 1, 120]) + bytes(2 << 20))
" >"$tmp/big.wasm"
job_circuit "$tmp/big.wasm"
[ "$code" -ge 400 ] && ok || bad "big wasm: HTTP $code"
msg_has "big wasm" "wc_max_wasm_bytes"
taken=0
for i in $(seq 1 20); do
  ln "$tmp/good.wasm" "$tmp/link$i.wasm"
  job_circuit "$tmp/link$i.wasm"
  [ "$code" = 202 ] || { msg_has "max_circuits ($i)" "max_circuits"; break; }
  taken=$((taken + 1))
  req "/v1/jobs/$(jget "$tmp/body" request_id)/result?timeout_ms=30000"
done
check "max_circuits: circuits taken, each unused after its job" "$taken" 20
expect 200 -- /v1/status
n=$(jget "$tmp/body" circuits.known)
[ "$n" -le 12 ] 2>/dev/null && ok || bad "max_circuits: $n circuits known (bound 12)"
alive limits

# --- binding: operator's key, existing key -------------------------------------------
printf '{"id":"op","path":"%s","circuit":"%s"}' "$tmp/small.zkey" "$tmp/good.wasm" >"$tmp/k.json"
expect 403 -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/k.json" /v1/keys
cp "$tmp/small.zkey" "$tmp/c1.zkey"
printf '{"id":"c1","path":"%s"}' "$tmp/c1.zkey" >"$tmp/k.json"
expect 200 -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/k.json" /v1/keys
printf '{"id":"c1","path":"%s","circuit":"%s"}' "$tmp/c1.zkey" "$tmp/good.wasm" >"$tmp/k.json"
expect 409 -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/k.json" /v1/keys
expect 200 -- /v1/keys/c1
check "c1: no circuit bound" "$(jget "$tmp/body" circuit)" ""

# --- seccomp: a worker cannot open files ------------------------------------------------
exe=$(ls "$cache"/*.wc | head -1)
("$exe" 100000000 --probe-open /etc/hostname 3>/dev/null 4>/dev/null) 2>/dev/null
check "seccomp: the probe's exit status (128 + SIGSYS)" "$?" 159

# --- SIGTERM in the middle of an endless calculation -----------------------------------
stop_daemon "$DPID"
start_daemon t --wc_cache_dir="$cache" --wc_timeout_s=600 --drain_timeout_s=2 \
  --keys="op=$tmp/small.zkey" || finish
job_circuit "$tmp/calc_loop.wasm"
check "sigterm: submit" "$code" 202
sleep 1
t0=$SECONDS
kill -TERM "$DPID"
for _ in $(seq 1 150); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$DPID" 2>/dev/null; then
  bad "sigterm: the daemon still runs $((SECONDS - t0)) s after SIGTERM (drain 2 s)"
  kill -KILL "$DPID"
else
  ok
fi
wait "$DPID" 2>/dev/null
sleep 0.5
# workers of this test's cache only (the machine may run others' workers)
left=$(for p in /proc/[0-9]*; do readlink "$p/exe" 2>/dev/null; done | grep -c "^$cache/")
check "sigterm: workers left" "$left" 0

# --- the cache: another user's folder, a folder others may write, a tampered object ----
marker=$tmp/planted-ran
obj=$(basename "$(ls "$cache"/*.wc | head -1)")
plant() { # plant DIR: an object that would leave a marker if it ever ran
  printf '#!/bin/sh\ntouch %s\n' "$marker" >"$1/$obj"
  chmod 755 "$1/$obj"
  sha256sum "$1/$obj" | cut -c1-64 | tr -d '\n' >"$1/${obj%.wc}.sum"
}
mkdir -p "$tmp/other/wc"
chmod 755 "$tmp/other"
plant "$tmp/other/wc"
cp "$tmp/good.wasm" "$tmp/other/good.wasm"
chown -R nobody "$tmp/other/wc"
chmod 755 "$tmp/other/wc"
start_daemon o --wc_cache_dir="$tmp/other/wc" --keys="op=$tmp/small.zkey" || finish
job_circuit "$tmp/good.wasm"
[ "$code" -ge 400 ] && ok || bad "another user's cache: HTTP $code"
msg_has "another user's cache" "belongs to uid $nobody_uid"
mkdir -p "$tmp/open/wc"
chmod 777 "$tmp/open/wc"
stop_daemon "$DPID"
start_daemon w --wc_cache_dir="$tmp/open/wc" --keys="op=$tmp/small.zkey" || finish
job_circuit "$tmp/good.wasm"
[ "$code" -ge 400 ] && ok || bad "a cache others may write: HTTP $code"
msg_has "a cache others may write" "writable by others"
# the group's or the others' write bit alone, then a folder above the cache
# that others may write (no sticky bit); each refused for that reason, the
# same circuit taken once the folders are safe (the refusals were theirs).
# Each case names its own hard link of the circuit: a circuit is loaded
# once per path, so one accepted by mistake cannot hide the next case.
for mode in 770 702; do
  chmod $mode "$tmp/open/wc"
  ln "$tmp/good.wasm" "$tmp/open-$mode.wasm"
  job_circuit "$tmp/open-$mode.wasm"
  [ "$code" -ge 400 ] && ok || bad "a cache of mode $mode: HTTP $code"
  msg_has "a cache of mode $mode" "writable by others (mode $mode)"
done
chmod 700 "$tmp/open/wc"
chmod 777 "$tmp/open"
ln "$tmp/good.wasm" "$tmp/open-above.wasm"
job_circuit "$tmp/open-above.wasm"
[ "$code" -ge 400 ] && ok || bad "a cache under a folder others may write: HTTP $code"
msg_has "a cache under a folder others may write" "the folder $tmp/open above it"
chmod 755 "$tmp/open"
job_circuit "$tmp/good.wasm"
check "the same cache once its folders are safe" "$code" 202
stop_daemon "$DPID"
# our own cache with the object replaced (its recorded hash kept): rebuilt, never run
own=$tmp/own
mkdir -m 700 "$own"
cp "$cache"/* "$own"/ 2>/dev/null
for f in "$own"/*.wc; do
  printf '#!/bin/sh\ntouch %s\n' "$marker" >"$f"
done
start_daemon s --wc_cache_dir="$own" --keys="op=$tmp/small.zkey" || finish
job_circuit "$tmp/good.wasm"
check "tampered object: rebuilt and used" "$code" 202
stop_daemon "$DPID"
[ ! -e "$marker" ] && ok || bad "a planted object ran"

# --- compile limits: time, memory, compilers at once ---------------------------------
# (nothing bounded the compile: a 200 KB module of one 8,000-local function
# held a submit for 49 s and its C compiler at 737 MiB; such a module is
# now refused before compiling, test_daemon_wasm_hog.sh: these modules stay
# within the bounds on locals)
for k in 1 2 3; do
  $W slowfn "$tmp/big$k.wasm" "$nv" "$k" >/dev/null || bad "cannot make big$k.wasm"
done
# compilers DIR [WHAT]: processes whose arguments name the compile folder DIR
# (cuzkd's own arguments name DIR too; so does this awk)
compilers() {
  ps -eo pid=,args= | awk -v d="$1" -v w="${2:-.}" -v me="$DPID" \
    '$1 != me && index($0, d) && $0 ~ w && !/ awk /' | wc -l
}
climit=$tmp/climit
mkdir -m 700 "$climit"
start_daemon c1 --wc_cache_dir="$climit" --wc_compile_timeout_s=1 --wc_compilers=1 \
  --keys="op=$tmp/small.zkey" || finish
t0=$SECONDS
job_circuit "$tmp/big1.wasm"
[ "$code" -ge 400 ] && ok || bad "compile time: HTTP $code, expected a refusal"
msg_has "compile time" "wc_compile_timeout_s"
[ $((SECONDS - t0)) -le 10 ] && ok || bad "compile time: answered after $((SECONDS - t0)) s (limit 1 s)"
sleep 0.5
check "compile time: compilers left running" "$(compilers "$climit")" 0
# two compiles asked at once with wc_compilers=1: never two compilers
# together (each is killed after its 1 s)
for k in 2 3; do
  printf '{"key":"op","circuit":"%s","input":{"a":7}}' "$tmp/big$k.wasm" >"$tmp/job$k.json"
done
submit_bg() {
  curl -s --max-time 60 --unix-socket "$SOCK" -o /dev/null -X POST \
    -H 'Content-Type: application/json' --data-binary "@$tmp/job$1.json" http://cuzkd/v1/jobs &
}
submit_bg 2
j2=$!
submit_bg 3
j3=$!
most=0
for _ in $(seq 1 40); do
  n=$(compilers "$climit" 'cc1|wasm2c|/as |collect2|/ld ')
  [ "$n" -gt "$most" ] && most=$n
  sleep 0.1
done
wait $j2 $j3
check "wc_compilers=1: most compilers seen running at once" "$most" 1
check "compilers: left running" "$(compilers "$climit")" 0
alive "compile time"
stop_daemon "$DPID"
cm=$tmp/cm
mkdir -m 700 "$cm"
start_daemon cm --wc_cache_dir="$cm" --wc_compile_memory=64M --keys="op=$tmp/small.zkey" || finish
job_circuit "$tmp/big1.wasm"
[ "$code" -ge 400 ] && ok || bad "compile memory: HTTP $code, expected a refusal"
msg_has "compile memory" "wc_compile_memory"
sleep 0.5
check "compile memory: compilers left running" "$(compilers "$cm")" 0
alive "compile memory"
stop_daemon "$DPID"

# --- refused: circuits a key refuses leave nothing ---------------------------------
# (a circuit the engine refused for a key stayed in the daemon's list,
# loaded, with its worker, and counted toward max_circuits: a few refused
# binds and no circuit could be used any more)
start_daemon rf --wc_cache_dir="$cache" --max_circuits=2 --keys="op=$tmp/small.zkey" \
  --self_verify=false || finish
$W bls "$tmp/bls.wasm" "$nv" >/dev/null || bad "cannot make bls.wasm"
$W good "$tmp/size.wasm" $((nv + 1)) >/dev/null || bad "cannot make size.wasm"
for i in 1 2 3 4 5 6; do
  if [ $((i % 3)) = 0 ]; then w=size http=409 want=EMISMATCH; else w=bls http=400 want=ECURVE; fi
  ln "$tmp/$w.wasm" "$tmp/rf$i.wasm"
  cp "$tmp/small.zkey" "$tmp/rf$i.zkey"
  printf '{"id":"rf%s","path":"%s","circuit":"%s"}' $i "$tmp/rf$i.zkey" "$tmp/rf$i.wasm" >"$tmp/k.json"
  expect "$http" "$want" -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/k.json" /v1/keys
done
expect 200 -- /v1/status
check "refused: circuits known" "$(jget "$tmp/body" circuits.known)" 0
check "refused: circuits loaded" "$(jget "$tmp/body" circuits.loaded)" 0
check "refused: memory.witness_workers" "$(jget "$tmp/body" memory.witness_workers)" 0
sleep 0.5
check "refused: worker processes left" "$(workers_pss | cut -d' ' -f1)" 0
# the bound still has room: a good circuit bound to a new key, and a job
cp "$tmp/small.zkey" "$tmp/rfgood.zkey"
printf '{"id":"rfgood","path":"%s","circuit":"%s"}' "$tmp/rfgood.zkey" "$tmp/good.wasm" >"$tmp/k.json"
expect 200 -- -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/k.json" /v1/keys
printf '{"key":"rfgood","input":{"a":7}}' >"$tmp/job.json"
req -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/job.json" /v1/jobs
check "refused: a job of the good circuit" "$code" 202
req "/v1/jobs/$(jget "$tmp/body" request_id)/result?timeout_ms=30000"
check "refused: the job's state" "$(jget "$tmp/body" state)" done
expect 200 -- /v1/status
check "refused: circuits known after" "$(jget "$tmp/body" circuits.known)" 1
check "refused: circuits loaded after" "$(jget "$tmp/body" circuits.loaded)" 1
alive refused
stop_daemon "$DPID"

# --- the default: a computed witness that does not satisfy the circuit ----------
# (the good module's) fails its job on self-verification instead of ending
# done with a proof that does not verify
start_daemon sv --wc_cache_dir="$cache" --keys="op=$tmp/small.zkey" || finish
job_circuit "$tmp/good.wasm"
check "self-verify: submit" "$code" 202
req "/v1/jobs/$(jget "$tmp/body" request_id)/result?timeout_ms=30000"
check "self-verify: the job's state" "$(jget "$tmp/body" state)" failed
check "self-verify: the job's status" "$(jget "$tmp/body" status)" EVERIFY
msg_has "self-verify" "self-verification failed"
alive self-verify
stop_daemon "$DPID"
finish
