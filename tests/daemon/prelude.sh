# The start every cuzkd shell test shares (sourced by tests/daemon/lib.sh
# and by the tests that do without it): skipping, and the checks that
# cuzkd and the CLI's daemon client were built.

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
