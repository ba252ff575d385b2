#!/usr/bin/env bash
# cuzkd's lifecycle: SIGTERM drains (jobs in flight finish and their
# results are delivered, new submits and /healthz get 503, exit 0, socket
# removed); the drain time limit; SIGINT twice exits at once (130); after
# kill -9 clients get a connection error, and a restart on the same socket
# removes the stale socket and serves resubmitted jobs; a second daemon on
# a live socket refuses to start; --print-default-config reads back through
# --config; bad configuration exits 2 with a message.
# Usage: test_daemon_lifecycle.sh <path to cuzk> <source dir>   (CUZKD=<cuzkd>)
set -u
. "$(dirname "$0")/daemon/lib.sh"

gen_circuit c bn254 6
W=$tmp/c.wtns
sub() { echo "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\"],\"request_id\":\"$1\"}"; }
# A simulated device: 400 ms per partition, so jobs are in flight for a
# while without loading the machine.
SIM=--devices=sim:compute_us=400000

# ---- SIGTERM with jobs in flight --------------------------------------------
# (3 s a partition here: the four jobs are still in flight when the
# waiters have connected, even on a machine whose cores are all busy)
# A pid file path that is a link (planted in a shared run folder) is
# refused: cuzkd does not start and the link's target is untouched.
echo victim >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/link.pid"
if "$CUZKD" --socket="$tmp/link.sock" --devices=cpu --pid_file="$tmp/link.pid" \
  >"$tmp/link.log" 2>&1; then
  bad "cuzkd started with its pid file at a symbolic link"
else
  grep -q "symbolic link" "$tmp/link.log" && ok || bad "pid file at a link: $(tail -2 "$tmp/link.log")"
fi
check "pid file at a link: the target" "$(cat "$tmp/victim")" victim
echo stale >"$tmp/term.pid" # a stale pid file is replaced
start_daemon term --devices=sim:compute_us=3000000 --pid_file="$tmp/term.pid" || exit 1
check "pid file" "$(cat "$tmp/term.pid" 2>/dev/null)" "$DPID"
for i in 1 2 3 4; do expect 202 -- -X POST -d "$(sub t$i)" /v1/jobs; done
# clients waiting for their results while the daemon drains
waiters=""
for i in 1 2 3 4; do
  curl -s --max-time 60 --unix-socket "$SOCK" -o "$tmp/t$i.json" \
    "http://cuzkd/v1/jobs/t$i/result?timeout_ms=60000" &
  waiters="$waiters $!"
done
# every waiter is connected (counted by the daemon, besides the status
# request itself) or already has its answer; exits are counted before the
# status is read, so a waiter leaving in between is never counted twice
waiters_in() {
  local gone=0 p
  for p in $waiters; do kill -0 "$p" 2>/dev/null || gone=$((gone + 1)); done
  status_is "j.connections - 1 + $gone >= 4"
}
wait_for 20 waiters_in || bad "the waiters did not connect: $(cat "$tmp/poll.json")"
kill -TERM "$DPID"
wait_for 10 sh -c "curl -s -o /dev/null -w '%{http_code}' --unix-socket '$SOCK' http://cuzkd/healthz | grep -q 503" \
  && ok || bad "healthz is not 503 while draining"
expect 503 draining -- -X POST -d "$(sub late)" /v1/jobs
expect 200 -- /v1/jobs/t4
wait "$DPID"
rc=$?
check "exit status after SIGTERM" "$rc" 0
for p in $waiters; do wait "$p"; done
for i in 1 2 3 4; do
  check "job t$i finished during the drain" "$(jget "$tmp/t$i.json" state)" done
done
[ ! -e "$SOCK" ] && ok || bad "socket not removed after SIGTERM"
[ ! -e "$tmp/term.pid" ] && ok || bad "pid file not removed"
# the drain waited for the jobs still in flight at SIGTERM (normally all
# four; fewer if a loaded machine was slow to send the signal) and says so
inflight=$(sed -n 's/.*waiting up to [0-9]* s for \([0-9]*\) job(s) in flight.*/\1/p' "$tmp/term.log")
if [ -n "$inflight" ] && [ "$inflight" -ge 1 ] && grep -q "drained: $inflight job(s) finished" "$tmp/term.log"; then ok; else
  bad "no drain lines for the jobs in flight: $(grep cuzkd: "$tmp/term.log")"
fi

# ---- the drain is bounded by drain_timeout_s ---------------------------------
# (10 s a partition: no job ends by itself before the 1 s drain is up,
# however slow a loaded machine is to connect the waiters)
start_daemon bounded --devices=sim:compute_us=10000000 --drain_timeout_s=1 || exit 1
for i in 1 2 3; do expect 202 -- -X POST -d "$(sub b$i)" /v1/jobs; done
wait_for 10 status_is 'j.in_flight.proving >= 1' || bad "no job reached the device"
# Clients waiting for results when the drain time runs out: every one is
# answered 503 (none is left without an answer when the listener closes).
for i in 1 2 3; do
  curl -s --max-time 30 --unix-socket "$SOCK" -o "$tmp/bw$i.json" -w '%{http_code}' \
    "http://cuzkd/v1/jobs/b$i/result?timeout_ms=60000" >"$tmp/bw$i.code" &
  eval "bw$i=\$!"
done
# the three waiters are connected (the fourth connection is the poll)
wait_for 10 status_is 'j.connections >= 4' || bad "the result waiters never connected"
stop_daemon "$DPID"
check "exit status after a bounded drain" "$rc" 0
for i in 1 2 3; do
  eval "wait \$bw$i"
  [ "$(cat "$tmp/bw$i.code")" = 503 ] && [ "$(jget "$tmp/bw$i.json" code)" = draining ] && ok ||
    bad "waiter $i at the end of a bounded drain: HTTP $(cat "$tmp/bw$i.code") $(cat "$tmp/bw$i.json")"
done
grep -q "drain time (1 s) is up: cancelled [1-9]" "$tmp/bounded.log" && ok || bad "no cancel line in the log"
[ ! -e "$SOCK" ] && ok || bad "socket not removed after a bounded drain"

# ---- SIGINT twice ----------------------------------------------------------
start_daemon int --devices=sim:compute_us=5000000 || exit 1
for i in 1 2; do expect 202 -- -X POST -d "$(sub i$i)" /v1/jobs; done
wait_for 10 status_is 'j.in_flight.proving >= 1' || bad "no job reached the device"
kill -INT "$DPID"
wait_for 10 grep -q "SIGINT: draining" "$tmp/int.log" || bad "first SIGINT not seen"
kill -INT "$DPID"
wait "$DPID"
check "exit status after two SIGINTs" "$?" 130
grep -q "second SIGINT: exiting now" "$tmp/int.log" && ok || bad "no log line for the second SIGINT"
[ ! -e "$SOCK" ] && ok || bad "socket not removed after two SIGINTs"

# ---- kill -9 mid-load, then restart on the same socket ----------------------
start_daemon k9 $SIM || exit 1
for i in 1 2 3; do expect 202 -- -X POST -d "$(sub k$i)" /v1/jobs; done
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
[ -S "$SOCK" ] && ok || bad "a killed daemon should leave its socket behind"
curl -s --max-time 10 --unix-socket "$SOCK" -o /dev/null "http://cuzkd/v1/jobs/k1"
check "client sees a connection error (curl exit 7)" "$?" 7
start_daemon k9 $SIM || exit 1
grep -q "removed stale socket" "$tmp/k9.log" && ok || bad "restart did not report the stale socket"
for i in 1 2 3; do expect 202 -- -X POST -d "$(sub k$i)" /v1/jobs; done
for i in 1 2 3; do
  expect 200 -- "/v1/jobs/k$i/result?timeout_ms=60000"
  check "resubmitted k$i" "$(jget "$tmp/body" state)" done
done

# ---- a second daemon on a live socket ----------------------------------------
live=$SOCK
"$CUZKD" --socket="$live" --devices=cpu >"$tmp/second.log" 2>&1
rc=$?
check "second daemon exit status" "$rc" 1
grep -q "another cuzkd is already serving" "$tmp/second.log" && ok || bad "second daemon: $(cat "$tmp/second.log")"
expect 200 -- /healthz
check "first daemon still serves" "$(jget "$tmp/body" ok)" true
stop_daemon "$DPID"
check "exit status" "$rc" 0
# a file that is not a socket is never replaced
touch "$tmp/plain"
"$CUZKD" --socket="$tmp/plain" --devices=cpu >"$tmp/plain.log" 2>&1
check "socket path is a regular file: exit status" "$?" 1
grep -q "is not a socket" "$tmp/plain.log" && ok || bad "plain file: $(cat "$tmp/plain.log")"

# ---- configuration -------------------------------------------------------------
"$CUZKD" --print-default-config >"$tmp/default.ini" || bad "--print-default-config failed"
# every option of --help is in the file
for opt in $("$CUZKD" --help | sed -n 's/^  --\([a-z_]*\) .*/\1/p'); do
  grep -q "^$opt =" "$tmp/default.ini" && ok || bad "--print-default-config lacks $opt"
done
# docs/DAEMON.md's reference is this output, every option included
XDG_RUNTIME_DIR=/run/user/1000 "$CUZKD" --print-default-config >"$tmp/doc.ini"
awk '/^```ini$/{f=1; next} /^```$/{f=0} f' "$src/docs/DAEMON.md" >"$tmp/doc-ref.ini"
if diff -q "$tmp/doc.ini" "$tmp/doc-ref.ini" >/dev/null; then ok; else
  bad "docs/DAEMON.md's configuration reference is not cuzkd --print-default-config's output: $(diff "$tmp/doc-ref.ini" "$tmp/doc.ini" | head -5 | tr '\n' ' ')"
fi
# it reads back to the same settings
"$CUZKD" --config "$tmp/default.ini" --print-config >"$tmp/again.ini" || bad "--config default.ini failed"
check "default config round trip" "$(diff <(grep -v '^#' "$tmp/default.ini") <(grep -v '^#' "$tmp/again.ini") && echo same)" same
# file < environment < flags
sed -e 's/^threads = .*/threads = 7/' -e 's/^budget = .*/budget = 3G/' -e 's/^log_level = .*/log_level = warn/' \
  "$tmp/default.ini" >"$tmp/mine.ini"
CUZKD_BUDGET=5G "$CUZKD" --config="$tmp/mine.ini" --log_level debug --print-config >"$tmp/eff.ini"
check "from the file" "$(grep '^threads =' "$tmp/eff.ini")" "threads = 7"
check "environment over file" "$(grep '^budget =' "$tmp/eff.ini")" "budget = 5G"
check "flag over file" "$(grep '^log_level =' "$tmp/eff.ini")" "log_level = debug"
# and a daemon runs from it
sed -i "s|^socket = .*|socket = $tmp/cfg.sock|; s|^devices = .*|devices = cpu|" "$tmp/mine.ini"
"$CUZKD" --config "$tmp/mine.ini" >"$tmp/cfg.log" 2>&1 &
pid=$!
daemon_pids="$daemon_pids $pid"
SOCK=$tmp/cfg.sock
wait_for 30 curl -sf --unix-socket "$SOCK" http://cuzkd/healthz && ok || bad "daemon from the config file: $(cat "$tmp/cfg.log")"
stop_daemon $pid
check "exit status" "$rc" 0

# bad values: exit 2 and a message naming the option
expect_config_error() {
  local what=$1 pattern=$2
  shift 2
  "$@" >"$tmp/bad.out" 2>&1
  local rc=$?
  if [ $rc -ne 2 ]; then bad "$what: exit $rc, expected 2"; return; fi
  grep -q -- "$pattern" "$tmp/bad.out" && ok || bad "$what: message '$(cat "$tmp/bad.out")' lacks '$pattern'"
}
expect_config_error "bad size" "budget" "$CUZKD" --budget=12X
expect_config_error "bad number" "threads" "$CUZKD" --threads=-3
expect_config_error "number out of range" "between" "$CUZKD" --threads=0
expect_config_error "bad bool" "self_verify" "$CUZKD" --self_verify=maybe
expect_config_error "bad level" "log_level" "$CUZKD" --log_level=loud
expect_config_error "bad device" "unknown device" "$CUZKD" --devices=tpu
expect_config_error "bad device parameter" "not a parameter" "$CUZKD" --devices=cpu:compute_us=5
expect_config_error "bad keys" "keys" "$CUZKD" --keys=noequals
expect_config_error "bad listen" "listen" "$CUZKD" --listen=localhost
expect_config_error "TCP without token" "needs a token" "$CUZKD" --socket="$tmp/x.sock" --listen=127.0.0.1:0
expect_config_error "token file missing" "token_file" "$CUZKD" --listen=127.0.0.1:0 --token_file="$tmp/none"
expect_config_error "nothing to listen on" "nothing to listen on" "$CUZKD" --socket=
expect_config_error "unknown flag" "unknown flag" "$CUZKD" --no_such_option=1
expect_config_error "flag without value" "needs a value" "$CUZKD" --threads
expect_config_error "stray argument" "unexpected argument" "$CUZKD" serve
expect_config_error "bad environment value" "CUZKD_THREADS" env CUZKD_THREADS=abc "$CUZKD"
printf 'threads = 4\nbogus = 1\n' >"$tmp/bad1.ini"
expect_config_error "unknown option in file" "line 2" "$CUZKD" --config "$tmp/bad1.ini"
printf '[other]\nthreads = 4\n' >"$tmp/bad2.ini"
expect_config_error "unknown section" "unknown section" "$CUZKD" --config "$tmp/bad2.ini"
printf 'threads = 4\nthis is not ini\n' >"$tmp/bad3.ini"
expect_config_error "not INI" "line 2" "$CUZKD" --config "$tmp/bad3.ini"
expect_config_error "missing config file" "cannot open config" "$CUZKD" --config "$tmp/none.ini"
finish
