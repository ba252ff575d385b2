#!/usr/bin/env bash
# The cuzk command's files (cli/, and bench/'s load generators of `cuzk
# bench`) call one another without a cycle (tests/call_graph.sh), so the
# command reads as layers: main's command table on top, the commands, the
# daemon client and the shared helpers (cli/common.c) at the bottom; no
# helper calls back into a command, no command into main
# (docs/INTERNALS.md).
# Usage: test_cli_layers.sh <path to cuzk> <source dir>
set -u
objs=$(dirname "$1")/CMakeFiles/cuzk-cli.dir
exec bash "$2/tests/call_graph.sh" cuzk 10 "$2" "$objs/cli" "$objs/bench"
