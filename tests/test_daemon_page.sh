#!/usr/bin/env bash
# cuzkd's status page (GET /) in headless Chromium: served over TCP, it
# reads the token from the URL fragment, polls /v1/status, draws the
# utilisation chart from real data and records no script error; without
# the token it must show the failure (so the check can fail).  Saves a
# screenshot and prints its path (kept with CUZK_TEST_KEEP=1).
# Usage: test_daemon_page.sh <path to cuzk> <source dir>   (CUZKD=<cuzkd>)
set -u
. "$(dirname "$0")/daemon/lib.sh"

chromium=""
for c in /usr/bin/chromium chromium chromium-browser google-chrome; do
  if command -v "$c" >/dev/null; then
    chromium=$(command -v "$c")
    break
  fi
done
[ -n "$chromium" ] || skip "no chromium"
command -v timeout >/dev/null || skip "no timeout(1)"

gen_circuit c bn254 6
W=$tmp/c.wtns
# A CPU device that proves and a slow simulated one, so that the chart has
# two devices with different utilisation.
start_daemon page --listen=127.0.0.1:0 --token=page-token --devices=cpu,sim:compute_us=200000 || exit 1
port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/page.log" | head -1)
[ -n "$port" ] || { echo "no TCP port in the log"; cat "$tmp/page.log"; exit 1; }

# Some work for the page to show.
for i in 1 2 3; do
  expect 202 -- -X POST -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\",\"$W\"],\"request_id\":\"p$i\"}" /v1/jobs
done
for i in 1 2 3; do expect 200 -- "/v1/jobs/p$i/result?timeout_ms=60000"; done

# A job every 50 ms for the devices to chew on while the page watches;
# stopped by unload (or at exit).
load() {
  (while :; do
    curl -s --max-time 5 -o /dev/null --unix-socket "$SOCK" -X POST \
      -d "{\"key\":\"$tmp/c.zkey\",\"witness_paths\":[\"$W\",\"$W\"]}" http://cuzkd/v1/jobs
    sleep 0.05
  done) &
  LOADPID=$!
  daemon_pids="$daemon_pids $LOADPID"
}
unload() {
  kill "$LOADPID" 2>/dev/null
  wait "$LOADPID" 2>/dev/null
}

# chrome URL OUT [extra flags]: headless Chromium, bounded in time; its
# own profile in the temp dir.
chrome() {
  local url=$1 out=$2
  shift 2
  HOME=$tmp timeout 90 "$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run \
    --disable-dev-shm-usage --user-data-dir="$tmp/profile" --virtual-time-budget=8000 \
    "$@" "$url" >"$out" 2>"$tmp/chrome.err"
}

url="http://127.0.0.1:$port/#token=page-token"
load
if ! chrome "$url" "$tmp/dom.html" --dump-dom; then
  bad "chromium failed: $(tail -5 "$tmp/chrome.err")"
fi
unload
grep -q '<canvas' "$tmp/dom.html" && ok || bad "no canvas in the page"
grep -q 'data-ok="1"' "$tmp/dom.html" && ok || bad "the page did not draw its chart (no data-ok): $(grep -o '<div id="errors">[^<]*' "$tmp/dom.html")"
if grep -q 'data-errors' "$tmp/dom.html"; then
  bad "script errors: $(grep -o '<div id="errors">[^<]*' "$tmp/dom.html")"
else
  ok
fi
grep -q '>sim0<\|>cpu0<' "$tmp/dom.html" && ok || bad "device table has no device"
grep -q '>uid:0<' "$tmp/dom.html" && ok || bad "jobs tables list no job"
grep -q 'c.zkey' "$tmp/dom.html" && ok || bad "keys table lacks the key"
# the page polled the API with the token
grep -q "GET /v1/status 200" "$tmp/page.log" && ok || bad "the page never read /v1/status"

# Without the token the page must say so and not claim success.
chrome "http://127.0.0.1:$port/" "$tmp/dom-notoken.html" --dump-dom
grep -q 'data-ok="1"' "$tmp/dom-notoken.html" && bad "page without token claims success" || ok
grep -q '401' "$tmp/dom-notoken.html" && ok || bad "page without token does not show the 401"

shot=$tmp/cuzkd-page.png
load
chrome "$url" /dev/null --screenshot="$shot" --window-size=1280,1500 --hide-scrollbars
unload
if [ -s "$shot" ]; then
  ok
  echo "screenshot: $shot"
else
  bad "no screenshot"
fi
kill -0 "$DPID" 2>/dev/null && ok || bad "the daemon died"
finish
