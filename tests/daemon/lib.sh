# Helpers for the cuzkd shell tests (tests/test_daemon_*.sh); sourced.
#
# The including test is run as `bash test.sh <cuzk> <source dir>` with
# CUZKD=<path to cuzkd> in the environment (CMake sets it when cuzkd was
# built).  Provides: a temp dir ($tmp) removed at exit, daemons started
# with start_daemon and killed at exit whatever happens, curl wrappers that
# record the status code and body, a JSON reader (node, which CI has), and
# pass/fail counting.  With CUZK_REQUIRE_ALL=1 a reason to skip (no cuzkd,
# no curl, no node) is a failure instead.

# skip REASON: exit 77 (CTest's "skipped"), or, with CUZK_REQUIRE_ALL=1 (CI),
# fail: there a missing tool or an unbuilt cuzkd is a broken set-up.
skip() {
  if [ "${CUZK_REQUIRE_ALL:-0}" = 1 ]; then
    echo "FAIL: $1 (CUZK_REQUIRE_ALL=1: this test may not be skipped)"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}

cuzk=$1
src=$2
if [ -z "${CUZKD:-}" ] || [ ! -x "${CUZKD:-}" ]; then
  skip "cuzkd was not built (needs libmicrohttpd, libinih, jansson)"
fi
for tool in curl node; do
  command -v $tool >/dev/null || skip "$tool is not installed"
done

# Short path: unix socket paths are limited to 107 bytes.
tmp=$(mktemp -d /tmp/cuzkd-t.XXXXXX)
daemon_pids=""
cleanup() {
  for p in $daemon_pids; do kill -9 "$p" 2>/dev/null; done
  for p in $daemon_pids; do wait "$p" 2>/dev/null; done
  if [ -n "${CUZK_TEST_KEEP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAIL: $*"
}
finish() {
  echo "$pass checks passed, $fail failed"
  [ $fail -eq 0 ]
  exit $?
}

# jget FILE PATH: the value at PATH ("a.b.0.c", "proofs.length") of the
# JSON in FILE: strings as-is, other values as JSON; "<invalid>" if FILE is
# not JSON, "<missing>" if PATH is not there.
jget() {
  node -e '
    const fs = require("fs");
    let v;
    try { v = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); }
    catch (e) { console.log("<invalid>"); process.exit(0); }
    for (const k of process.argv[2] ? process.argv[2].split(".") : []) {
      if (v === null || v === undefined || !(k in Object(v))) { console.log("<missing>"); process.exit(0); }
      v = v[k];
    }
    console.log(typeof v === "string" ? v : JSON.stringify(v));
  ' "$1" "$2"
}

# jsave FILE PATH OUT: write the JSON value at PATH to OUT.
jsave() {
  node -e '
    const fs = require("fs");
    let v = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    for (const k of process.argv[2].split(".")) v = v[k];
    fs.writeFileSync(process.argv[3], JSON.stringify(v));
  ' "$1" "$2" "$3"
}

# wait_for SECONDS COMMAND...: retry COMMAND every 0.1 s until it succeeds.
wait_for() {
  local limit=$(($1 * 10)) i=0
  shift
  while ! "$@" >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -ge $limit ] && return 1
    sleep 0.1
  done
}

# start_daemon NAME [cuzkd flags...]: cuzkd on $tmp/NAME.sock (unless the
# flags name another socket), log in $tmp/NAME.log; waits for /healthz.
# Sets DPID and SOCK.
start_daemon() {
  local name=$1
  shift
  SOCK=$tmp/$name.sock
  "$CUZKD" --socket="$SOCK" --devices=cpu --log_level=debug "$@" >"$tmp/$name.log" 2>&1 &
  DPID=$!
  daemon_pids="$daemon_pids $DPID"
  if ! wait_for 30 curl -sf --unix-socket "$SOCK" http://cuzkd/healthz; then
    echo "cuzkd $name did not become healthy; its log:"
    cat "$tmp/$name.log"
    return 1
  fi
}

# stop_daemon PID: SIGTERM and wait; the exit status in $rc.  (Not in a
# $(...): wait works only in the shell that started the daemon.)
stop_daemon() {
  kill -TERM "$1" 2>/dev/null
  wait "$1"
  rc=$?
}

# req [curl args...] URL-PATH: request over $SOCK; body in $tmp/body,
# status code in $code, content type in $ctype.
req() {
  local path=${*: -1}
  local args=("${@:1:$#-1}")
  local out
  out=$(curl -s --max-time 120 --unix-socket "$SOCK" -o "$tmp/body" \
    -w '%{http_code} %{content_type}' "${args[@]}" "http://cuzkd$path")
  code=${out%% *}
  ctype=${out#* }
}

# expect CODE [ERROR-CODE] -- [curl args...] PATH: the request answers CODE;
# for 4xx/5xx the body must be {"error": "...", "code": ERROR-CODE}.
expect() {
  local want=$1 want_err=""
  shift
  if [ "$1" != "--" ]; then
    want_err=$1
    shift
  fi
  shift
  req "$@"
  local what="${*: -1} (${*:1:$#-1})"
  if [ "$code" != "$want" ]; then
    bad "$what: HTTP $code, expected $want: $(head -c 300 "$tmp/body")"
    return 1
  fi
  if [ "$want" -ge 400 ]; then
    local msg ecode
    msg=$(jget "$tmp/body" error)
    ecode=$(jget "$tmp/body" code)
    if [ -z "$msg" ] || [ "$msg" = "<missing>" ] || [ "$msg" = "<invalid>" ]; then
      bad "$what: no JSON error message: $(head -c 300 "$tmp/body")"
      return 1
    fi
    if [ -n "$want_err" ] && [ "$ecode" != "$want_err" ]; then
      bad "$what: error code $ecode, expected $want_err ($msg)"
      return 1
    fi
  fi
  ok
}

# check WHAT ACTUAL EXPECTED
check() {
  if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi
}

# gen_circuit NAME CURVE LOG2: $tmp/NAME.{r1cs,wtns,zkey,vk.json}
gen_circuit() {
  "$cuzk" gen --curve "$2" --log2 "$3" "$tmp/$1.r1cs" "$tmp/$1.wtns" >/dev/null 2>&1 &&
    "$cuzk" setup --dev "$tmp/$1.r1cs" "$tmp/$1.zkey" >/dev/null 2>&1 &&
    "$cuzk" zkey export-vk "$tmp/$1.zkey" "$tmp/$1.vk.json" >/dev/null 2>&1 || {
    echo "cannot generate circuit $1"
    exit 1
  }
}
