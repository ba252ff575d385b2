#!/usr/bin/env bash
# engine/'s files call one another without a cycle (tests/call_graph.sh over
# libcuzk's object files of engine/), so the engine reads as layers: the
# public API's files on top, the scheduler and the stages below them, the
# job's life below those, and the base (log, names, wake-up events,
# histograms; the clock is util/'s) at the bottom; nothing below calls back
# up (docs/INTERNALS.md, "engine/'s layers").
#
# KNOWN lists the calls still on a cycle, as call_graph.sh names them
# ("from -> to: symbol"), until the files are split further.  The test fails
# on any call on a cycle that is not listed, and on a listed call that is no
# longer on one, so the list only shrinks.  Empty it and the test is
# call_graph.sh's plain "no cycle".  Two cycles remain, and the calls
# listed are the ones on them or between them:
#   job -> sched (engine_sched_forget): a drained job leaves the
#     scheduler's queues through the job layer, not the scheduler's own
#     sweep;
#   keys <-> circuits: the key loader checks a registered circuit against
#     the key (engine_circuit_check) while registering a circuit resolves
#     its key (cuzk_engine_circuit_register -> engine_key_resolve).
# Usage: test_engine_layers.sh <path to cuzk> <source dir>
set -u
cuzk=${1:?usage: test_engine_layers.sh <path to cuzk> <source dir>}
src=${2:?usage: test_engine_layers.sh <path to cuzk> <source dir>}
objs=$(dirname "$cuzk")/CMakeFiles/cuzk_objects.dir
KNOWN="
  engine/circuits -> engine/keys: engine_key_release
  engine/circuits -> engine/keys: engine_key_resolve
  engine/inputs -> engine/circuits: engine_circuit_check
  engine/inputs -> engine/circuits: engine_circuit_hold
  engine/inputs -> engine/circuits: engine_circuit_release
  engine/inputs -> engine/circuits: engine_circuit_resolve
  engine/inputs -> engine/keys: engine_key_release
  engine/inputs -> engine/keys: engine_key_resolve
  engine/job -> engine/circuits: engine_circuit_release
  engine/job -> engine/keys: engine_key_release
  engine/job -> engine/keys: engine_key_unpin
  engine/job -> engine/sched: engine_sched_forget
  engine/keys -> engine/circuits: engine_circuit_check
  engine/sched -> engine/circuits: engine_circuit_check
  engine/sched -> engine/circuits: engine_circuit_failure
  engine/sched -> engine/job: engine_job_end
  engine/sched -> engine/job: engine_job_unref
  engine/sched -> engine/job: engine_part_drain
  engine/sched -> engine/job: engine_part_stage
  engine/sched -> engine/keys: engine_key_request_load_locked
  engine/sched -> engine/keys: engine_key_unpin
  engine/sched -> engine/keys: engine_make_room
  engine/sched -> engine/stages: engine_log_partition
  engine/sched -> engine/stages: engine_synq_push
  engine/sched -> engine/stages: engine_synth_enter
  engine/sched -> engine/stages: engine_worker_start
  engine/stages -> engine/circuits: engine_circuit_check
  engine/stages -> engine/circuits: engine_wc_charge
  engine/stages -> engine/inputs: engine_images_only
  engine/stages -> engine/inputs: engine_input_parse
  engine/stages -> engine/inputs: engine_witness_fits
  engine/stages -> engine/job: engine_fault
  engine/stages -> engine/job: engine_job_circuit_log
  engine/stages -> engine/job: engine_job_end
  engine/stages -> engine/job: engine_part_drain
  engine/stages -> engine/job: engine_part_release_source
  engine/stages -> engine/job: engine_part_should_stop
  engine/stages -> engine/job: engine_part_stage
"
out=$(bash "$src/tests/call_graph.sh" engine/ 10 "$src" "$objs/engine")
rc=$?
echo "$out"
found=$(printf '%s\n' "$out" | sed -n 's/^  \(engine\/.* -> engine\/.*: .*\)$/\1/p' | sort -u)
known=$(printf '%s\n' "$KNOWN" | sed -e 's/^[[:space:]]*//' -e '/^$/d' | sort -u)
[ $rc = 0 ] && [ -z "$known" ] && exit 0
if [ $rc != 0 ] && [ -z "$found" ]; then
  exit 1 # not a cycle: the symbols were not read
fi
new=$(comm -23 <(printf '%s\n' "$found" | sed '/^$/d') <(printf '%s\n' "$known" | sed '/^$/d'))
gone=$(comm -13 <(printf '%s\n' "$found" | sed '/^$/d') <(printf '%s\n' "$known" | sed '/^$/d'))
[ -n "$new" ] && printf 'FAIL: calls on a cycle that KNOWN does not list:\n%s\n' "$new"
[ -n "$gone" ] && printf 'FAIL: KNOWN lists calls no longer on a cycle (remove them):\n%s\n' "$gone"
[ -z "$new" ] && [ -z "$gone" ] || exit 1
echo "ok: the calls on a cycle are exactly the $(printf '%s\n' "$known" | wc -l) KNOWN ones"
