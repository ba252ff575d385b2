#!/usr/bin/env bash
# cuzkd's files call one another without a cycle (tests/call_graph.sh), so
# the daemon reads as layers: the HTTP server and the route table on top,
# the endpoints, the job stores and the fleet below them, the reply
# helpers, the upload buffers and the logger at the bottom
# (docs/INTERNALS.md).
# Usage: test_server_layers.sh <path to cuzk> <source dir>   (CUZKD set)
set -u
[ -n "${CUZKD:-}" ] || { echo "SKIP: cuzkd was not built"; exit 77; }
exec bash "$2/tests/call_graph.sh" cuzkd 10 "$2" "$(dirname "$CUZKD")/CMakeFiles/cuzkd.dir/server"
