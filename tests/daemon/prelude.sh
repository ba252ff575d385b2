# The start every cuzkd shell test shares (sourced by tests/daemon/lib.sh
# and by the tests that do without it): skipping, and the checks that
# cuzkd and the CLI's daemon client were built.

# skip REASON: exit 77 (CTest's "skipped"), or, with CUZK_REQUIRE_ALL=1 (CI),
# fail: there a missing tool or an unbuilt cuzkd is a broken set-up.  A
# skip after a failed check (the tests count them in $fail) is a failure
# too: exit 77 would have CTest report the whole test as skipped, its
# failures unseen.
skip() {
  if [ "${fail:-0}" != 0 ]; then
    echo "FAIL: $1, after $fail failed check(s): not a skip"
    exit 1
  fi
  if [ "${CUZK_REQUIRE_ALL:-0}" = 1 ]; then
    echo "FAIL: $1 (CUZK_REQUIRE_ALL=1: this test may not be skipped)"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}

# need_cuzkd: skip unless $CUZKD names a built cuzkd (CMake sets it then).
need_cuzkd() {
  if [ -z "${CUZKD:-}" ] || [ ! -x "${CUZKD:-}" ]; then
    skip "cuzkd was not built (needs libmicrohttpd, libinih, jansson)"
  fi
}

# need_client CUZK: skip unless the cuzk CLI was built with its daemon
# client (libcurl).
need_client() {
  if "$1" status --help 2>&1 | grep -q "built without libcurl"; then
    skip "cuzk built without libcurl"
  fi
}

# need_nobody WHAT: the test acts as user nobody (planted files, dropped
# privileges): skip (a failure under CUZK_REQUIRE_ALL) unless this is root
# with setpriv and a user nobody.  as_nobody CMD... runs CMD as nobody.
need_nobody() {
  command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
  [ "$(id -u)" = 0 ] || skip "$1 need root to act as user nobody"
  nobody_uid=$(id -u nobody 2>/dev/null) || skip "there is no user nobody"
}
as_nobody() { setpriv --reuid="$nobody_uid" --regid="$(id -g nobody)" --clear-groups "$@"; }
