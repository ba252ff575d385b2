# Job rows are input: sourced by tests/test_fleet.sh once nodes A to D
# are up (it uses launch, healthy, psql_q and the circuit "a" there).
#
#   roles     the tables, made under default privileges that grant
#             everything to PUBLIC, are writable by their owner only: a
#             role with nothing but CONNECT can neither insert, change nor
#             read job rows, nor take a request id first
#   paths     key and circuit paths in rows follow the rule of TCP
#             clients: regular files under remote_paths.  A key or circuit
#             outside them is never claimed (the row expires at its
#             deadline), also through a link out of an allowed folder; one
#             under them is proved; a FIFO or a device named as circuit
#             fails its row unclaimed, like one named as key.  In a fleet
#             a submit naming a key or circuit path outside remote_paths
#             gets 403 on the unix socket too (every node would open it).
#   circuits  P has key c with its circuit, Q key c without one: the six
#             partitions of an inputs job are all proved by P, none fails.

# ---- roles ------------------------------------------------------------------
intruder="host=$pg_dir dbname=cuzk user=intruder"
as_intruder() { psql -X -A -t -q -v ON_ERROR_STOP=1 "$intruder" -c "$1" 2>&1; }
denied() { # WHAT SQL: refused for lack of privilege
  local out
  if out=$(as_intruder "$2"); then
    bad "roles: a role with only CONNECT could $1"
  else
    case $out in
      *"permission denied"*) ok ;;
      *) bad "roles: $1 failed, but not for lack of privilege: $out" ;;
    esac
  fi
}
denied "insert a job row (taking a request id first)" \
  "INSERT INTO cuzk_fleet_jobs (request_id, content_sha, key_id, key_path, key_sha, priority,
   n_partitions, inputs, submitted_by) VALUES ('squat-1', 'x', 'a', 'a', 'x', 1, 1, false, 'x')"
denied "insert a partition row" "INSERT INTO cuzk_fleet_parts (job_id, idx, data) VALUES (1, 0, '')"
denied "write a proof" "UPDATE cuzk_fleet_parts SET proof_json = '{}'"
denied "read job rows" "SELECT count(*) FROM cuzk_fleet_jobs"
denied "add a node" "INSERT INTO cuzk_fleet_nodes (name, started, heartbeat) VALUES ('x', now(), now())"
denied "change the schema version" "DELETE FROM cuzk_fleet_schema"
denied "draw job ids" "SELECT nextval('cuzk_fleet_jobs_id_seq')"
denied "read the fleet's secret (the key of the rows' MACs)" "SELECT secret FROM cuzk_fleet_secret"
check "roles: grants to PUBLIC left on the fleet's tables" \
  "$(psql_q "SELECT count(*) FROM information_schema.role_table_grants
             WHERE grantee = 'PUBLIC' AND table_name LIKE 'cuzk_fleet_%'")" 0
# (the daemon's own submit of squat-1 is below, with key c: the jobs of
# key a are counted by test_fleet.sh)

# ---- paths --------------------------------------------------------------------
rp=$tmp/rp
mkdir -p "$rp" "$tmp/wc"
gen_circuit c bn254 4
cp "$tmp/a.zkey" "$rp/a2.zkey"
ln -s "$tmp/a.zkey" "$rp/out.zkey"
mkfifo "$rp/fifo.wasm"
# (the circuit made below for key c, hostile_wasm.py's "good" module,
# computes (1, a, 0, ...), not a witness of circuit c: the nodes of key c
# prove it with self_verify off, else its jobs fail verification)
launch Q --devices=cpu --keys=c="$tmp/c.zkey" --remote_paths="$rp" --wc_cache_dir="$tmp/wc" \
  --self_verify=false
healthy Q
SOCK=${sock[Q]}
expect 200 -- /v1/keys/c
python3 "$2/tests/daemon/hostile_wasm.py" good "$rp/c.wasm" "$(jget "$tmp/body" n_vars)" >/dev/null ||
  bad "cannot make c.wasm"
cp "$rp/c.wasm" "$tmp/c_out.wasm"
launch P --devices=cpu --keys=c="$tmp/c.zkey:$rp/c.wasm" --remote_paths="$rp" --wc_cache_dir="$tmp/wc" \
  --self_verify=false
healthy P

asha=$(sha256sum "$tmp/a.zkey" | cut -c1-64)
csha=$(sha256sum "$tmp/c.zkey" | cut -c1-64)
ahex=$(od -An -v -tx1 "$tmp/a.wtns" | tr -d ' \n')
ihex=$(printf '{"a":7}' | od -An -v -tx1 | tr -d ' \n')
# row RID KEY_ID KEY_SHA INPUTS CIRCUIT HEX: a job row of one partition,
# with a deadline 8 s away, signed as a node signs it: a row the fleet
# takes as its own (rows no node signed are tests/test_fleet_foreign.sh's),
# whose paths still follow the rules below.
row() {
  local id mac
  id=$(psql_q "SELECT nextval('cuzk_fleet_jobs_id_seq')")
  mac=$(fleet_mac "$id" "$1" x "$2" "$2" "$3" 1 1 "${4:0:1}" "$5" elsewhere "")
  psql_q "WITH j AS (INSERT INTO cuzk_fleet_jobs (id, request_id, content_sha, key_id, key_path,
            key_sha, priority, deadline, n_partitions, inputs, circuit, submitted_by, parts_left,
            mac)
          VALUES ($id, '$1', 'x', '$2', '$2', '$3', 1, now() + interval '8 s', 1, $4, '$5',
            'elsewhere', 1, '$mac') RETURNING id)
          INSERT INTO cuzk_fleet_parts (job_id, idx, data) SELECT id, 0, '\\x$6'::bytea FROM j" ||
    bad "cannot insert job row $1"
}
row rp-key-out "$tmp/a.zkey" "$asha" false "" "$ahex"
row rp-key-link "$rp/out.zkey" "$asha" false "" "$ahex"
row rp-key-in "$rp/a2.zkey" "$asha" false "" "$ahex"
row rp-circ-dev c "$csha" true /dev/zero "$ihex"
row rp-circ-fifo c "$csha" true "$rp/fifo.wasm" "$ihex"
row rp-circ-out c "$csha" true "$tmp/c_out.wasm" "$ihex"
row rp-circ-in c "$csha" true "$rp/c.wasm" "$ihex"
# rp_state RID: "state/attempts of its partition".
rp_state() {
  psql_q "SELECT j.state || '/' || p.attempts FROM cuzk_fleet_jobs j
          JOIN cuzk_fleet_parts p ON p.job_id = j.id WHERE j.request_id = '$1'"
}
rows_ended() {
  [ "$(psql_q "SELECT count(*) FROM cuzk_fleet_jobs WHERE request_id LIKE 'rp-%'
               AND state IN ('queued', 'running')")" = 0 ]
}
wait_for 40 rows_ended || bad "rows naming paths: some never ended"
for rid in rp-key-out rp-key-link rp-circ-out; do
  check "row $rid (outside remote_paths): never claimed" "$(rp_state $rid)" expired/0
done
for rid in rp-circ-dev rp-circ-fifo; do
  check "row $rid (not a regular file): failed unclaimed" "$(rp_state $rid)" failed/0
  check "row $rid: why" "$(psql_q "SELECT error LIKE 'circuit % is not a regular file'
                                   FROM cuzk_fleet_jobs WHERE request_id = '$rid'")" t
done
for rid in rp-key-in rp-circ-in; do
  check "row $rid (under remote_paths): proved" \
    "$(psql_q "SELECT state || '/' || (done_by IN ('P', 'Q')) FROM cuzk_fleet_jobs
               WHERE request_id = '$rid'")" done/true
done
grep -q "key $tmp/a.zkey is not under this node's remote_paths" "$tmp/P.log" ||
  bad "P did not say why it leaves the row naming $tmp/a.zkey"
# submits: a key or circuit path goes into the row, so in a fleet the
# unix socket is held to remote_paths for them too (not for witness paths,
# which the receiving node reads itself)
SOCK=${sock[P]}
expect 403 forbidden -- -H 'Content-Type: application/json' \
  -d "{\"key\":\"$tmp/a.zkey\",\"witness_paths\":[\"$tmp/a.wtns\"]}" /v1/jobs
expect 403 forbidden -- -H 'Content-Type: application/json' \
  -d "{\"key\":\"c\",\"circuit\":\"$tmp/c_out.wasm\",\"input\":{\"a\":7}}" /v1/jobs
expect 202 -- -H 'Content-Type: application/json' \
  -d "{\"key\":\"$rp/a2.zkey\",\"witness_paths\":[\"$tmp/a.wtns\"],\"request_id\":\"rp-submit\"}" /v1/jobs
expect 200 -- '/v1/jobs/rp-submit/result?timeout_ms=30000'
check "a key path under remote_paths: proved" "$(jget "$tmp/body" state)" done

# ---- circuits: only a node that has the job's circuit claims it ----------------
i7='{"a":7}'
expect 202 -- -H 'Content-Type: application/json' \
  -d "{\"key\":\"c\",\"inputs\":[$i7,$i7,$i7,$i7,$i7,$i7],\"request_id\":\"circ-6\"}" /v1/jobs
SOCK=${sock[Q]}
expect 200 -- '/v1/jobs/circ-6/result?timeout_ms=60000'
check "circ-6: done with six proofs" "$(jget "$tmp/body" state)/$(jget "$tmp/body" proofs.length)" done/6
check "circ-6: partitions proved by P (Q has no circuit for key c)" \
  "$(psql_q "SELECT string_agg(p.state || ':' || coalesce(p.done_by, '-') || ':' || p.attempts,
             ',' ORDER BY p.idx) FROM cuzk_fleet_parts p JOIN cuzk_fleet_jobs j ON j.id = p.job_id
             WHERE j.request_id = 'circ-6'")" done:P:1,done:P:1,done:P:1,done:P:1,done:P:1,done:P:1
SOCK=${sock[P]}
expect 202 -- -H 'Content-Type: application/json' \
  -d "{\"key\":\"c\",\"input\":$i7,\"request_id\":\"squat-1\"}" /v1/jobs
check "roles: squat-1 is a new job of the daemon's" "$(jget "$tmp/body" attached)" false
expect 200 -- '/v1/jobs/squat-1/result?timeout_ms=30000'
check "roles: squat-1 proved" "$(jget "$tmp/body" state)" done
for n in P Q; do
  stop_daemon "${pid[$n]}"
  check "node $n exit status" "$rc" 0
done
