#!/usr/bin/env bash
# engine/'s files call one another without a cycle (tests/call_graph.sh over
# libcuzk's object files of engine/), so the engine reads as layers: the
# public API's files on top, the scheduler and the stages below them, the
# job's life below those, the scheduler's queues, the key and circuit
# tables, what-fits-what (fit.c) and the base (log, names, wake-up events,
# histograms; the clock is util/'s) at the bottom; nothing below calls back
# up (docs/INTERNALS.md, "engine/'s layers").  A cycle fails, naming the
# calls on it.
# Usage: test_engine_layers.sh <path to cuzk> <source dir>
set -u
cuzk=${1:?usage: test_engine_layers.sh <path to cuzk> <source dir>}
src=${2:?usage: test_engine_layers.sh <path to cuzk> <source dir>}
objs=$(dirname "$cuzk")/CMakeFiles/cuzk_objects.dir
exec bash "$src/tests/call_graph.sh" engine/ 10 "$src" "$objs/engine"
