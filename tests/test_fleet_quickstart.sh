#!/usr/bin/env bash
# The fleet quick start of docs/DAEMON.md, on the machine's own PostgreSQL
# cluster (Debian's `postgresql` package, socket in /run/postgresql): the
# doc's marked block is run as it stands (so doc and test cannot drift),
# then the README's fleet line as the user cuzk; a job proved through the
# node must end `done` in the database, and its proof must verify.  At the
# end everything the test made is undone: the daemon, the database and
# the role, the user, the folders, and the cluster is stopped again if it
# was down.  It refuses (skips) unless run as root with the stock cluster
# installed, and when a role or database `cuzk` already exists there (it
# never touches a fleet it did not make).  tests/fleet/pg.sh's private
# servers have sockets of their own and no TCP, so the two never meet.
# Usage: test_fleet_quickstart.sh <cuzk> <source dir>; env CUZKD=<cuzkd>.
set -u
. "$2/tests/daemon/lib.sh"
need_client "$cuzk"
grep -q "built without libpq" "$CUZKD" && skip "cuzkd built without libpq (no fleet support)"
[ "$(id -u)" = 0 ] || skip "not root (the quick start sets up the system's PostgreSQL cluster and a user)"
for t in pg_lsclusters pg_ctlcluster psql createdb runuser useradd userdel flock; do
  command -v $t >/dev/null || skip "$t is missing (Debian: postgresql, passwd, util-linux)"
done
ver=$(pg_lsclusters -h 2>/dev/null | awk '$2 == "main" {print $1; exit}')
[ -n "$ver" ] || skip "the postgresql package's cluster (main) is not installed"

doc=$src/docs/DAEMON.md
block=$(awk '/^<!-- fleet-quickstart/ {m = 1; next} m && /^```sh$/ {on = 1; next}
             on && /^```$/ {exit} on' "$doc")
[ -n "$block" ] || { echo "FAIL: no marked quick-start block in docs/DAEMON.md"; exit 1; }
line=$(grep -o "cuzkd --fleet_db '[^']*'" "$src/README.md" | head -1)
[ -n "$line" ] || { echo "FAIL: no fleet line in the README"; exit 1; }
# The doc's start line is the README's line with this machine's folders.
grep -qF "runuser -u cuzk -- $line --socket /run/cuzk/cuzkd.sock --wc_cache_dir /var/cache/cuzk/wc" "$doc" &&
  ok || bad "docs/DAEMON.md's start line is not the README's ($line)"

# One quick start at a time on this machine.
exec 9>/run/cuzk-fleet-quickstart.lock
flock -w 900 9 || { echo "FAIL: another quick-start test holds the lock"; exit 1; }

as_pg() { runuser -u postgres -- "$@"; }
was_up=0
pg_ctlcluster "$ver" main status >/dev/null 2>&1 && was_up=1
had_user=0
id -u cuzk >/dev/null 2>&1 && had_user=1
had_run=0 had_cache=0
[ -e /run/cuzk ] && had_run=1
[ -e /var/cache/cuzk ] && had_cache=1
made_db=0
qs_pid="" node_pid=""
undo() {
  if [ -n "$node_pid" ]; then kill -TERM "$node_pid" 2>/dev/null; fi
  if [ -n "$qs_pid" ]; then wait "$qs_pid" 2>/dev/null; fi
  if [ $made_db = 1 ]; then
    as_pg psql -q -c 'DROP DATABASE IF EXISTS cuzk' >/dev/null 2>&1
    as_pg psql -q -c 'DROP ROLE IF EXISTS cuzk' >/dev/null 2>&1
  fi
  [ $was_up = 1 ] || pg_ctlcluster "$ver" main stop >/dev/null 2>&1
  [ $had_user = 1 ] || userdel -r cuzk >/dev/null 2>&1
  [ $had_run = 1 ] || rm -rf /run/cuzk
  [ $had_cache = 1 ] || rm -rf /var/cache/cuzk
}
lib_cleanup=$(trap -p EXIT | sed "s/^trap -- '//; s/' EXIT\$//")
trap 'undo; '"$lib_cleanup" EXIT

# Step 1 of the block (starting the cluster) first: whether a fleet exists
# there already can only be asked of a running server.
step1=$(printf '%s\n' "$block" | sed '/^# 2\./,$d')
bash -euo pipefail -c "$step1" >"$tmp/step1.out" 2>&1 ||
  { echo "FAIL: the quick start's first step: $(cat "$tmp/step1.out")"; exit 1; }
exists=$(as_pg psql -Atq -c "SELECT (SELECT count(*) FROM pg_roles WHERE rolname = 'cuzk')
                               + (SELECT count(*) FROM pg_database WHERE datname = 'cuzk')")
[ "$exists" = 0 ] || skip "the cluster $ver/main already has a role or database cuzk: not touching it"

made_db=1
bash -euo pipefail -c "$block" >"$tmp/block.out" 2>&1 &&
  ok || { echo "FAIL: the quick start's block failed: $(cat "$tmp/block.out")"; exit 1; }
[ "$(stat -c '%U %a' /run/cuzk /var/cache/cuzk/wc | tr '\n' ' ')" = "cuzk 750 cuzk 700 " ] &&
  ok || bad "folders: $(stat -c '%n %U %a' /run/cuzk /var/cache/cuzk/wc | tr '\n' ' ')"

# A key and a witness the user cuzk may read.
gen_circuit a bn254 6
chmod 755 "$tmp"
chmod a+r "$tmp"/a.*
# The README's line, as the user cuzk, with the doc's socket and cache.
eval "set -- $line"
shift
runuser -u cuzk -- "$CUZKD" "$@" --socket /run/cuzk/cuzkd.sock --wc_cache_dir /var/cache/cuzk/wc \
  --pid_file /run/cuzk/cuzkd.pid --node_name qs --devices cpu --remote_paths "$tmp" \
  >"$tmp/qs.log" 2>&1 &
qs_pid=$!
SOCK=/run/cuzk/cuzkd.sock
# The same line run as root is refused by peer authentication (the doc says
# why): the node says so and does not get ready.
"$CUZKD" "$@" --socket "$tmp/root.sock" --devices cpu >"$tmp/root.log" 2>&1 &
root_pid=$!
daemon_pids="$daemon_pids $root_pid"
wait_for 30 grep -q 'waiting for the fleet database: .*role "root" does not exist' "$tmp/root.log" &&
  ok || bad "as root: $(grep fleet "$tmp/root.log")"
if grep -q 'INFO cuzkd: ready' "$tmp/root.log"; then bad "as root the node got ready"; else ok; fi
kill -TERM $root_pid
if wait_for 60 grep -q 'INFO cuzkd: ready' "$tmp/qs.log"; then
  ok
else
  echo "FAIL: the node did not get ready; its log:"
  cat "$tmp/qs.log"
  exit 1
fi
node_pid=$(cat /run/cuzk/cuzkd.pid)
grep -q 'node qs joined the fleet' "$tmp/qs.log" && ok || bad "the node did not join: $(grep fleet "$tmp/qs.log")"
if grep -q '^NOTICE\|^WARNING\|^FATAL' "$tmp/qs.log"; then bad "raw libpq lines: $(grep '^[A-Z]*:' "$tmp/qs.log")"; else ok; fi

"$cuzk" prove --addr "unix:$SOCK" "$tmp/a.zkey" "$tmp/a.wtns" "$tmp/p.json" "$tmp/pub.json" \
  >"$tmp/prove.out" 2>&1 && ok || bad "cuzk prove through the node: $(cat "$tmp/prove.out")"
"$cuzk" verify "$tmp/a.vk.json" "$tmp/pub.json" "$tmp/p.json" >/dev/null 2>&1 && ok ||
  bad "the fleet's proof does not verify"
rows=$(as_pg psql -d cuzk -Atq -c "SELECT state || ' ' || coalesce(done_by, '-') FROM cuzk_fleet_jobs")
[ "$rows" = "done qs" ] && ok || bad "the fleet's job rows: '$rows', want 'done qs'"

kill -TERM "$node_pid"
wait "$qs_pid"
rc=$?
node_pid="" qs_pid=""
[ $rc = 0 ] && ok || bad "the node exited $rc on SIGTERM"
finish
