# A private PostgreSQL server for the fleet tests; sourced after
# tests/daemon/lib.sh (uses $tmp, skip, and adds to the cleanup).
#
# pg_start: initdb in $tmp/pg, a unix socket in that folder and no TCP
# (listen_addresses=''), trust authentication (a throwaway server for one
# test), no fsync unless PG_DURABLE=1.  initdb refuses to run as root, so
# as root (CI) the server runs as `nobody`.  Sets $pg_dsn (a libpq
# connection string for the role cuzk on the database cuzk, as the daemons
# use it) and $pg_admin.
# pg_stop / pg_restart: stop (fast) / restart the server.
# psql_q SQL: one value, as text.
# fleet_mac ...: the MAC of a job row (below).

pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ] || ! command -v psql >/dev/null; then
  skip "PostgreSQL server binaries are not installed (Debian: postgresql)"
fi
pg_dir=$tmp/pg
pg_as=()
if [ "$(id -u)" = 0 ]; then
  command -v runuser >/dev/null || skip "runuser is missing (needed to run postgres as nobody)"
  pg_as=(runuser -u nobody --)
  chmod 755 "$tmp"
fi
pg_run() { "${pg_as[@]}" "$@"; }

pg_start() {
  mkdir -p "$pg_dir"
  [ "$(id -u)" = 0 ] && chown nobody "$pg_dir"
  pg_run "$pg_bin/initdb" -D "$pg_dir/data" -U postgres --auth=trust -E UTF8 >"$tmp/initdb.log" 2>&1 ||
    { echo "FAIL: initdb"; cat "$tmp/initdb.log"; exit 1; }
  cat >>"$pg_dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$pg_dir'
max_connections = 200
CONF
  # Tests need no durability; PG_DURABLE=1 keeps PostgreSQL's defaults
  # (scripts/fleet-bench.sh measures both).
  [ "${PG_DURABLE:-0}" = 1 ] ||
    printf 'fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n' >>"$pg_dir/data/postgresql.conf"
  pg_run "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -w -t 60 start >/dev/null ||
    { echo "FAIL: postgres did not start"; cat "$pg_dir/log"; exit 1; }
  pg_admin="host=$pg_dir dbname=postgres user=postgres"
  psql -q -v ON_ERROR_STOP=1 "$pg_admin" >/dev/null <<SQL || { echo "FAIL: database set-up"; exit 1; }
CREATE ROLE cuzk LOGIN;
CREATE DATABASE cuzk OWNER cuzk;
SQL
  pg_dsn="host=$pg_dir dbname=cuzk user=cuzk"
}
pg_stop() { pg_run "$pg_bin/pg_ctl" -D "$pg_dir/data" -m fast -w -t 60 stop >/dev/null 2>&1; }
pg_restart() {
  pg_run "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -m fast -w -t 60 restart >/dev/null
}
psql_q() { psql -X -A -t -q -v ON_ERROR_STOP=1 "$pg_dsn" -c "$1"; }

# Stop the server whatever happens (before lib.sh's cleanup removes $tmp).
pg_cleanup_chain=$(trap -p EXIT | sed "s/^trap -- '//; s/' EXIT\$//")
trap 'pg_stop; '"$pg_cleanup_chain" EXIT

# fleet_mac ID RID CONTENT_SHA KEY_ID KEY_PATH KEY_SHA PRIORITY N INPUTS(t|f)
# CIRCUIT SUBMITTED_BY CLIENT: the MAC a node writes into a job row of the
# database $pg_dsn (server/fleet_mac.c), computed here with Python's HMAC,
# from the secret the tables' owner reads: how a test makes a row the
# fleet takes as its own.
fleet_mac() {
  python3 - "$(psql_q "SELECT encode(secret, 'hex') FROM cuzk_fleet_secret")" "$@" <<'PY'
import hashlib, hmac, sys
msg = b"".join(f.encode() + b"\0" for f in ["cuzk-fleet-job-v1"] + sys.argv[2:])
print(hmac.new(bytes.fromhex(sys.argv[1]), msg, hashlib.sha256).hexdigest())
PY
}
