#!/usr/bin/env bash
# The hip-graph-bubbles benchmark: scenarios/graph-bubbles.toml (128,000 graph-kernel
# dispatches inside roctx ranges) in the SIMULATED runtime, release build, with and without the
# tool, N runs each (default 3). Prints wall times, the tool's added time per dispatch (median),
# and the device-side gaps between consecutive graph kernels from the written profile (the
# simulator's modelled timeline: equal with or without the tool by construction).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cargo build --release --workspace -q
sim=target/release/rocprof-sim
tool=$PWD/target/release/librocprof_xplane.so
scen=scenarios/graph-bubbles.toml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
without=(); with=()
for i in $(seq "$runs"); do
  without+=("$(t "$sim" "$scen")")
  with+=("$(t env ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_OUTPUT_DIR="$tmp/logs" ROCPROF_XPLANE_RUN_NAME="r$i" "$sim" "$scen")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mw=$(median "${without[@]}"); mt=$(median "${with[@]}")
echo "runs: $runs; wall µs without the tool: ${without[*]}; with: ${with[*]}"
echo "median wall: without ${mw} µs, with ${mt} µs; added per dispatch: $(( (mt - mw) * 1000 / 128000 )) ns (128,000 dispatches, finalize included)"
f=$(ls "$tmp"/logs/plugins/profile/r1/*.xplane.pb)
target/release/rocprof-xplane inspect "$f" --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
for st in s["streams"]:
    print("device gaps on %s %s: busy %.1f%% of %.3f ms, %d gaps, largest %s µs" % (
        st["plane"], st["line"], 100 * st["busy_fraction"], st["span_ns"] / 1e6, st["gaps"],
        [round(g["gap_ns"] / 1e3, 2) for g in st["largest_gaps"]]))
'
