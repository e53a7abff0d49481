#!/usr/bin/env bash
# Instructions the finalize path executes, counted by valgrind's callgrind: a figure that does
# not move with the machine's load (this project's 2-core VMs move timings by ±20–50 % and have
# no hardware counters). Two workloads, run at once: the hot_path bench's 600 k-event join and
# export (HOT_PATH_ONLY=finalize HOT_PATH_REPEAT=1: 5 builds into a byte counter + 3 to a file),
# and the 200 k-launch storm (scenarios/thread-storm.toml at 3,125 repeats) in the SIMULATED
# runtime (test infrastructure, not hardware). Prints instructions per event / per delivered
# record for the join, the export and finalize as a whole, and for the callbacks' own work on
# the application threads (`tracing_callback_v1`, `hip_stream_callback_v1` and
# `marker_callback_v1`, the callback-tracing edges whole: their panic guard, dispatch and capture, and the debug self-timing the
# runs have on; the storm's callbacks are also counted at the default log level, without
# it), and the storm end to end: the whole process at the default log level, traced minus
# the same run with every tool callback skipped. Cache misses are
# not in these counts: a change that only cuts memory traffic reads flat here. Also the bench's
# window hand-offs (`HOT_PATH_ONLY=carry`), per record of its windows. Takes about 3 minutes.
# Not a test: figures for docs/performance.md. Usage: ci/bench-instructions.sh [KEEP_DIR]
# (with KEEP_DIR the callgrind files stay there, for callgrind_annotate). BENCH_MAXTEXT=1 adds a
# third workload, scenarios/maxtext-scale.toml at a tenth of its repeats (905 k records, with the
# sync calls and event records a storm lacks): about 10 minutes more. BENCH_CUT=1 adds that run
# cut into windows of 300,000 records while it runs: the instructions per record of each stage
# of a cut on the tool's threads (collect on the coordinator's, then the window writer's three:
# hand-off, join, write). BENCH_LABELS=1 adds scenarios/train-loop.toml at 500 / 400 steps, held
# whole: the write per record where most label lists are new, and each new list's cost.
# TOOL=path/librocprof_xplane.so counts another build of the tool in the
# storm and MaxText-shaped runs (the bench rows are always this tree's).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
cargo build --release --workspace --quiet
tool=${TOOL:-$PWD/target/release/librocprof_xplane.so}
bench=$(ci/hot-path-bench.sh)
if [[ $# -ge 1 ]]; then
  work=$1; mkdir -p "$work"
else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi
sed 's/repeat = 25000/repeat = 3125/' scenarios/thread-storm.toml >"$work/storm200k.toml"
# One thread builds the planes: callgrind counts a helper thread's work outside the writer's
# call, so with one thread the writer's count is all the work the planes take.
export ROCPROF_XPLANE_WRITE_THREADS=1
HOT_PATH_ONLY=finalize HOT_PATH_REPEAT=1 valgrind --tool=callgrind \
  --callgrind-out-file="$work/bench.out" "$bench" >"$work/bench.log" 2>&1 &
traced() { # NAME SCENARIO: the tool in the simulator under callgrind, into $work/NAME.{out,log}
  ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_OUTPUT_DIR="$work/logs-$1" \
    ROCPROF_XPLANE_LOG=${LOG:-debug} valgrind --tool=callgrind --callgrind-out-file="$work/$1.out" \
    target/release/rocprof-sim "$2" --sdk 1.0.0 >"$work/$1.log" 2>&1
}
traced storm "$work/storm200k.toml" &
# The storm again at the default log level: the callbacks without the debug self-timing.
LOG=info traced storm-info "$work/storm200k.toml" &
# And with every tool callback skipped (the runtime's tracing alone): the whole process's
# instructions traced minus these are the tool's work per record, end to end.
ROCPROF_SIM_TOOL_CALLS=skip LOG=info traced storm-skip "$work/storm200k.toml" &
# The tool's callbacks per HIP call through its extern "C" edges, in each subscription it can
# make (the bench's HOT_PATH_ONLY=calls): 200,000 launches each, one thread, the bench's own
# records and calls included (its `…, no tool` rows: those alone); the drains every 64 k calls run
# on a thread of the bench's own, as on the tool's thread in a run, and are not counted.
HOT_PATH_ONLY=calls HOT_PATH_CALLS=200000 valgrind --tool=callgrind \
  --callgrind-out-file="$work/calls.out" "$bench" >"$work/calls.log" 2>&1 &
# The same, one subscription per run: the tool's `extern "C"` edges alone (without the records
# and calls the bench makes). `table_ops`: the table's calls of 4 operations in turn, as a
# program's launches, copies, event records and waits come (no record repeats the one before's).
for mode in table table_request table_stream table_ops; do
  HOT_PATH_ONLY=calls HOT_PATH_CALLS=200000 HOT_PATH_CALL_MODE=$mode valgrind --tool=callgrind \
    --callgrind-out-file="$work/calls-$mode.out" "$bench" >"$work/calls-$mode.log" 2>&1
done &
# The hot_path bench's window hand-offs (`HOT_PATH_ONLY=carry`: synthetic windows, the device
# behind, built the same every run), `model::carry::hand_off` alone counted: the cut's hand-off
# on windows that do not move with the run's timing, as the MaxText-shaped cut's do.
HOT_PATH_ONLY=carry valgrind --tool=callgrind --toggle-collect='*carry*hand_off*' \
  --callgrind-out-file="$work/carry.out" "$bench" >"$work/carry.log" 2>&1 &
if [[ ${BENCH_MAXTEXT:-0} == 1 ]]; then
  sed 's/repeat = 36500/repeat = 3650/' scenarios/maxtext-scale.toml >"$work/maxtext10.toml"
  traced maxtext "$work/maxtext10.toml" &
fi
if [[ ${BENCH_CUT:-0} == 1 ]]; then
  # The same run cut into windows of 300,000 records while it runs: the cut's stages.
  sed 's/repeat = 36500/repeat = 3650/' scenarios/maxtext-scale.toml >"$work/cut10.toml"
  ROCPROF_XPLANE_WINDOW_EVENTS=300000 ROCPROF_XPLANE_WINDOW_MERGE=1 traced cut "$work/cut10.toml" &
fi
if [[ ${BENCH_LABELS:-0} == 1 ]]; then
  # Label-heavy: the train-loop scenario (JAX TraceMe levels with a step number, PyTorch
  # emit_nvtx levels with a seq each) at 500 / 400 steps, held whole: each new label list.
  sed '0,/repeat = 8,/s//repeat = 500,/; 0,/repeat = 6,/s//repeat = 400,/' \
    scenarios/train-loop.toml >"$work/labels.toml"
  ROCPROF_XPLANE_WINDOW_MERGE=0 traced labels "$work/labels.toml" &
fi
wait
inclusive() { # FILE FUNCTION -> inclusive instructions of the function (0 when absent)
  # A function can be listed once per source file its inlined code came from: its own entry,
  # which includes the others, is the largest.
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | grep -v '=>' | { grep -E "[:]$2( |$)" || true; } \
    | awk '{gsub(",", "", $1); if ($1 + 0 > max) max = $1 + 0} END {printf "%.0f\n", max}'
}
callbacks() { # FILE -> the callback-tracing edges' inclusive instructions: the general
  # trampoline, the HIP_STREAM one and the roctx one (none calls another)
  echo $(( $(inclusive "$1" 'rocprof_xplane::sdk::callbacks::tracing_callback_v1') \
    + $(inclusive "$1" 'rocprof_xplane::sdk::callbacks::hip_stream_callback_v1') \
    + $(inclusive "$1" 'rocprof_xplane::sdk::callbacks::marker_callback_v1') ))
}
finalize() { # FILE -> finalize's inclusive instructions: the coordinator's last cut and the
  # window writer's last window (its join, write and the merge). A run that never cut a window
  # has no writer's thread: the last window is written within the coordinator's finalize (which
  # then counts it, and is the larger); else on the writer's thread, apart.
  local f l
  f=$(inclusive "$1" 'rocprof_xplane::control::coordinator::Coordinator::finalize')
  l=$(inclusive "$1" 'rocprof_xplane::control::writer::Writer::last')
  if ((f >= l)); then echo "$f"; else echo $((f + l)); fi
}
events=$(grep -oE '^join +[0-9]+ events' "$work/bench.log" | awk '{print $2}')
records=$(grep -oE '[0-9]+ records in [0-9]+ deliveries' "$work/storm.log" | awk '{print $1}')
python3 - "$events" "$records" "$(inclusive "$work/bench.out" 'rocprof_xplane(_core)?::(model::)?join::join(_on|_numbered)?')" \
  "$(inclusive "$work/bench.out" 'rocprof_xplane(_core)?::xplane::space::build_(planes(_spilling)?|window_planes)')" \
  "$(finalize "$work/storm.out")" \
  "$(inclusive "$work/storm.out" 'rocprof_xplane(_core)?::(model::)?join::join(_on|_numbered)?')" \
  "$(inclusive "$work/storm.out" 'rocprof_xplane(_core)?::xplane::file::write_(xspace(_on)?|window(_placed)?)')" \
  "$(callbacks "$work/storm.out")" <<'PY'
import sys
events, records, bj, bb, sf, sj, sw, sc = map(int, sys.argv[1:])
builds = 8  # bench_export: 5 builds into a byte counter, 3 into a file
print(f"bench {events:,} events: join {bj / events:,.0f} instructions/event; build + encode {bb / builds / events:,.0f} instructions/event")
print(f"storm {records:,} records: finalize {sf / records:,.0f} instructions/record (join {sj / records:,.0f}, write {sw / records:,.0f}); callbacks' work {sc / records:,.0f}")
PY
carried=$(grep -E '^carry' "$work/carry.log" | grep -oE '[0-9]+ records' | awk '{s += $1} END {print s + 0}')
handed=$(awk '/^totals:/ {print $2}' "$work/carry.out")
echo "bench hand-offs, $(echo "$carried" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') records in windows: $((handed / carried)) instructions/record"
calls=200000
for mode in table table_request table_stream table_ops; do
  n=$(inclusive "$work/calls.out" "hot_path::calls_$mode")
  f="$work/calls-$mode.out"
  edges=$(($(inclusive "$f" 'rocprof_xplane::sdk::callbacks::tracing_callback_v1') \
    + $(inclusive "$f" 'rocprof_xplane::sdk::callbacks::hip_stream_callback_v1') \
    + $(inclusive "$f" 'rocprof_xplane::sdk::callbacks::external_id_request')))
  echo "per HIP call, $mode: $((n / calls)) instructions (the tool's callbacks, hipLaunchKernel on a created stream), of which the tool's edges $((edges / calls))"
done | sed 's/table_request/table + request/; s/table_stream/table + HIP_STREAM/; s/table_ops/table, 4 operations in turn/'
echo "per HIP call, table + HIP_STREAM, no tool: $(($(inclusive "$work/calls.out" "hot_path::calls_table_stream_no_tool") / calls)) instructions (the bench's own records and calls, to callbacks that do nothing)"
# Per record collected: every edge the runtime calls on its threads (callbacks, external-id
# requests, buffer deliveries), per delivered record of the storm.
python3 - "$records" "$(callbacks "$work/storm.out")" \
  "$(inclusive "$work/storm.out" 'rocprof_xplane::sdk::callbacks::external_id_request')" \
  "$(inclusive "$work/storm.out" 'rocprof_xplane::sdk::callbacks::buffer_callback')" <<'PY'
import sys
records, cb, req, buf = map(int, sys.argv[1:])
print(f"storm per record collected: {(cb + req + buf) / records:,.0f} instructions (callbacks {cb / records:,.0f}, external-id requests {req / records:,.0f}, buffer deliveries {buf / records:,.0f})")
PY
python3 - "$records" "$(callbacks "$work/storm-info.out")" \
  "$(inclusive "$work/storm-info.out" 'rocprof_xplane::sdk::callbacks::external_id_request')" \
  "$(inclusive "$work/storm-info.out" 'rocprof_xplane::sdk::callbacks::buffer_callback')" <<'PY'
import sys
records, cb, req, buf = map(int, sys.argv[1:])
print(f"storm per record collected, default log (no self-timing): {(cb + req + buf) / records:,.0f} instructions (callbacks {cb / records:,.0f}, external-id requests {req / records:,.0f}, buffer deliveries {buf / records:,.0f})")
PY
total() { # FILE -> the whole process's instructions
  callgrind_annotate "$1" 2>/dev/null | grep -m1 'PROGRAM TOTALS' | awk '{gsub(",", "", $1); print $1}'
}
python3 - "$records" "$(total "$work/storm-info.out")" "$(total "$work/storm-skip.out")" <<'PY'
import sys
records, traced, skipped = map(int, sys.argv[1:])
print(f"storm end to end, default log: {(traced - skipped) / records:,.0f} instructions per delivered record, the whole process traced minus the tool's callbacks skipped (the tool's collection and finalize, and the runtime's calls into it)")
PY
if [[ ${BENCH_MAXTEXT:-0} == 1 ]]; then
  mt=$(grep -oE '[0-9]+ records in [0-9]+ deliveries' "$work/maxtext.log" | awk '{print $1}')
  python3 - "$mt" "$(finalize "$work/maxtext.out")" \
    "$(inclusive "$work/maxtext.out" 'rocprof_xplane(_core)?::(model::)?join::join(_on|_numbered)?')" \
    "$(inclusive "$work/maxtext.out" 'rocprof_xplane(_core)?::(model|join)::(deps::)?resolve_dependencies')" \
    "$(inclusive "$work/maxtext.out" 'rocprof_xplane(_core)?::xplane::file::write_(xspace(_on)?|window(_placed)?)')" \
    "$(inclusive "$work/maxtext.out" 'rocprof_xplane(_core)?::xplane::space::(host::)?host_plane')" \
    "$(callbacks "$work/maxtext.out")" <<'PY'
import sys
records, f, j, d, w, h, c = map(int, sys.argv[1:])
print(f"maxtext/10 {records:,} records: finalize {f / records:,.0f} instructions/record (join {j / records:,.0f}, of which dependencies {d / records:,.0f}; write {w / records:,.0f}, of which the host plane {h / records:,.0f}); callbacks' work {c / records:,.0f}")
PY
fi
if [[ ${BENCH_CUT:-0} == 1 ]]; then
  cut=$(grep -oE 'window [0-9]+ cut: [0-9]+ records' "$work/cut.log" | awk '{s += $4} END {print s + 0}')
  # The coordinator's tick collects; the writer's hand-off thread hands off (`HandOff::window`),
  # its join thread joins (`Writer::window`), its file thread writes (`write_window`).
  python3 - "$cut" "$(inclusive "$work/cut.out" 'rocprof_xplane::control::coordinator::Coordinator::tick')" \
    "$(inclusive "$work/cut.out" 'rocprof_xplane::control::writer::Writer::window')" \
    "$(inclusive "$work/cut.out" 'rocprof_xplane::control::writer::write_window')" \
    "$(inclusive "$work/cut.out" 'rocprof_xplane::control::writer::HandOff::window')" \
    "$(inclusive "$work/cut.out" 'rocprof_xplane(_core)?::xplane::merge::Indexed::(own|written)')" <<'PY'
import sys
records, tick, join, write, hand, index = map(int, sys.argv[1:])
print(f"maxtext/10 cut into windows of 300,000: {records:,} records cut while running: {(tick + hand + join + write) / records:,.0f} instructions/record on the tool's threads (collect {tick / records:,.0f}, hand-off {hand / records:,.0f}, join {join / records:,.0f}, write {write / records:,.0f}, of which indexing each window for the exit's splice {index / records:,.0f})")
PY
fi
if [[ ${BENCH_LABELS:-0} == 1 ]]; then
  lr=$(grep -oE '[0-9]+ records in [0-9]+ deliveries' "$work/labels.log" | awk '{print $1}')
  lists=$(callgrind_annotate --auto=no --inclusive=yes --tree=calling "$work/labels.out" 2>/dev/null \
    | grep -E '%\)  >   .*ListStats::place \([0-9,]+x\)' | grep -oE '\([0-9,]+x\)' | tr -d '(),x' \
    | awk '{s += $1} END {print s + 0}')
  python3 - "$lr" "$lists" \
    "$(inclusive "$work/labels.out" 'rocprof_xplane(_core)?::xplane::file::write_(xspace(_on)?|window(_placed)?)')" \
    "$(inclusive "$work/labels.out" 'rocprof_xplane(_core)?::xplane::space::cache::ListStats::place')" <<'PY'
import sys
records, lists, w, place = map(int, sys.argv[1:])
print(f"train-loop 500/400 steps {records:,} records: write {w / records:,.0f} instructions/record; {lists:,} new label lists (per plane) at {place / max(lists, 1):,.0f} each, {place / records:,.0f} per record")
PY
fi
