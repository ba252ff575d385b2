# Helpers for the cuzkd shell tests (tests/test_daemon_*.sh); sourced.
#
# The including test is run as `bash test.sh <cuzk> <source dir>` with
# CUZKD=<path to cuzkd> in the environment (CMake sets it when cuzkd was
# built).  Provides: a temp dir ($tmp) removed at exit, daemons started
# with start_daemon and killed at exit whatever happens, curl wrappers that
# record the status code and body, a JSON reader (node, which CI has), and
# pass/fail counting.  With CUZK_REQUIRE_ALL=1 a reason to skip (no cuzkd,
# no curl, no node) is a failure instead.

. "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"

cuzk=$1
src=$2
need_cuzkd
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

# jtrue FILE EXPR: exit 0 when the JavaScript expression EXPR over the JSON
# j of FILE is true.
jtrue() {
  node -e '
    const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    process.exit(eval(process.argv[2]) ? 0 : 1);
  ' "$1" "$2" 2>/dev/null
}

# status_is EXPR [PATH]: GET PATH (default /v1/status) over $SOCK answers
# JSON for which EXPR (over j) holds.  For waiting on a condition:
# wait_for 10 status_is 'j.clients == 0'.
status_is() {
  curl -s --max-time 10 --unix-socket "$SOCK" -o "$tmp/poll.json" "http://cuzkd${2:-/v1/status}" &&
    jtrue "$tmp/poll.json" "$1"
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

# tcp_port LOG: the port a daemon started with --listen=127.0.0.1:0 logged
# (waits up to 30 s for the line: a loaded machine starts slowly).
tcp_port() {
  local p=""
  for _ in $(seq 300); do
    p=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$1" | head -1)
    [ -n "$p" ] && break
    sleep 0.1
  done
  echo "$p"
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

# raw_check RAW JSON CURVE OUTPREFIX: RAW (a job's ?format=raw body) decodes
# to exactly the proofs of JSON (the same job's JSON result): BN254 as
# EIP-196/197 (A x||y, B x.c1||x.c0||y.c1||y.c0, C x||y, 32-byte big-endian
# plain integers), BLS12-381 as zcash compressed points (A 48, B 96, C 48;
# flags 0x80 compressed, 0x40 infinity, 0x20 sign of y; G1 y recovered by
# the square root, G2 x and the sign of y compared).  Writes each decoded
# proof as OUTPREFIX.N.json (snarkjs layout) for `cuzk verify`.  Prints
# "ok N" or the first mismatch.
raw_check() {
  node -e '
    const fs = require("fs");
    const [rawPath, jsonPath, curve, prefix] = process.argv.slice(1);
    const raw = fs.readFileSync(rawPath);
    const res = JSON.parse(fs.readFileSync(jsonPath, "utf8"));
    const bn = curve === "bn128";
    const P = bn ? 21888242871839275222246405745257275088696311157297823662689037894645226208583n
                 : 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;
    const size = bn ? 256 : 192;
    const die = (m) => { console.log(m); process.exit(0); };
    const int = (b) => BigInt("0x" + b.toString("hex"));
    const pow = (b, e) => { let r = 1n; b %= P; for (; e > 0n; e >>= 1n, b = b * b % P) if (e & 1n) r = r * b % P; return r; };
    const larger = (y) => y > P - y;  // y is the larger of y, -y
    if (!Array.isArray(res.proofs)) die("no proofs in the JSON result");
    if (raw.length !== size * res.proofs.length) die("raw length " + raw.length + ", expected " + size * res.proofs.length);
    const eq = (what, got, want) => { if (got !== BigInt(want)) die(what + ": raw " + got + ", JSON " + want); };
    // zcash compressed coordinate: flags (must be compressed, finite) and x
    const zx = (b, what) => {
      const f = b[0] >> 5;
      if ((f & 6) !== 4) die(what + ": flags " + f.toString(2) + " (want compressed, not infinity)");
      const c = Buffer.from(b); c[0] &= 0x1f;
      return [int(c), f & 1];
    };
    res.proofs.forEach((pp, i) => {
      const pr = pp.proof, r = raw.subarray(i * size, (i + 1) * size);
      let a, b, c;
      if (bn) {
        const w = (k) => int(r.subarray(32 * k, 32 * k + 32));
        a = [w(0), w(1)]; b = [[w(3), w(2)], [w(5), w(4)]]; c = [w(6), w(7)];
      } else {
        const g1 = (buf, what) => {
          const [x, s] = zx(buf, what);
          const rhs = (x * x % P * x + 4n) % P;
          let y = pow(rhs, (P + 1n) / 4n);
          if (y * y % P !== rhs) die(what + ": x has no square root");
          if (larger(y) !== (s === 1)) y = P - y;
          return [x, y];
        };
        a = g1(r.subarray(0, 48), "A");
        c = g1(r.subarray(144, 192), "C");
        const [x1, s] = zx(r.subarray(48, 96), "B");
        const x0 = int(r.subarray(96, 144));
        const y0 = BigInt(pr.pi_b[1][0]), y1 = BigInt(pr.pi_b[1][1]);
        const big = y1 !== 0n ? larger(y1) : larger(y0);
        if (big !== (s === 1)) die("B: sign flag " + s + " does not match the JSON y");
        b = [[x0, x1], [y0, y1]];
      }
      [["pi_a.x", a[0], pr.pi_a[0]], ["pi_a.y", a[1], pr.pi_a[1]],
       ["pi_b.x.c0", b[0][0], pr.pi_b[0][0]], ["pi_b.x.c1", b[0][1], pr.pi_b[0][1]],
       ["pi_b.y.c0", b[1][0], pr.pi_b[1][0]], ["pi_b.y.c1", b[1][1], pr.pi_b[1][1]],
       ["pi_c.x", c[0], pr.pi_c[0]], ["pi_c.y", c[1], pr.pi_c[1]]].forEach(([w, g, j]) => eq("proof " + i + " " + w, g, j));
      if (pr.pi_a[2] !== "1" || pr.pi_c[2] !== "1") die("proof " + i + ": JSON points are not affine");
      const s = (v) => v.toString();
      fs.writeFileSync(prefix + "." + i + ".json", JSON.stringify({
        pi_a: [s(a[0]), s(a[1]), "1"], pi_b: [[s(b[0][0]), s(b[0][1])], [s(b[1][0]), s(b[1][1])], ["1", "0"]],
        pi_c: [s(c[0]), s(c[1]), "1"], protocol: "groth16", curve: curve }, null, 1));
    });
    console.log("ok " + res.proofs.length);
  ' "$1" "$2" "$3" "$4"
}
