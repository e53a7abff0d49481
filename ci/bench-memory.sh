#!/usr/bin/env bash
# The tool's own memory and time per delivered record, on the stress scenario and on the
# 200 k-launch storm (scenarios/thread-storm.toml at 3,125 repeats), in the SIMULATED runtime
# (test infrastructure, not hardware). Builds a measurement copy of the tool with the
# `heap-stats` feature (a counting allocator: a cdylib has its own, so the simulator's memory is
# not mixed in) into target/heap-stats, and prints per scenario: delivered records, the tool's
# heap when finalize starts (held while tracing) and at its peak, per record; the tool's own
# time per record (callbacks + buffer callbacks + finalize + the writer's helper threads, wall
# time: see docs/performance.md on threads outnumbering cores); and the whole process's peak
# RSS with and without the tool.
# Not a test: figures for docs/performance.md. Usage: ci/bench-memory.sh [RUNS [SCENARIO...]]
# (default 3 runs of the two above; e.g. `ci/bench-memory.sh 1 scenarios/maxtext-scale.toml`
# for the MaxText-sized run)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
runs=${1:-3}
cargo build --release --workspace --quiet
CARGO_TARGET_DIR=target/heap-stats cargo build --release -p rocprof-xplane --features heap-stats --quiet
tool="$PWD/target/heap-stats/release/librocprof_xplane.so"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
sed 's/repeat = 25000/repeat = 3125/' scenarios/thread-storm.toml >"$work/storm200k.toml"
printf '%-8s %9s %12s %12s %12s %12s %12s %12s\n' scenario records held_MB held_B/rec peak_MB peak_B/rec tool_ns/rec rss_add_B/rec
scenarios=("${@:2}"); ((${#scenarios[@]})) || scenarios=(scenarios/stress.toml "$work/storm200k.toml")
for sc in "${scenarios[@]}"; do
  name=$(basename "$sc" .toml)
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%M' -o "$work/off" target/release/rocprof-sim "$sc" --sdk 1.0.0 >/dev/null 2>&1
    rm -rf "$work/logs"
    ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_OUTPUT_DIR="$work/logs" ROCPROF_XPLANE_LOG=debug \
      /usr/bin/time -f '%M' -o "$work/on" target/release/rocprof-sim "$sc" --sdk 1.0.0 >/dev/null 2>"$work/log"
    python3 - "$name" "$work/log" "$(cat "$work/off")" "$(cat "$work/on")" <<'PY'
import re, sys
name, log, off, on = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3]), int(sys.argv[4])
held = float(re.search(r"finalize: start, .*tool heap ([\d.]+) MB", log).group(1))
t = re.search(r"(\d+) records in .* ([\d.]+) ns of tool time per delivered record; tool heap peak ([\d.]+) MB", log)
n, ns, peak = int(t.group(1)), float(t.group(2)), float(t.group(3))
print(f"{name:<8} {n:>9} {held:>12.1f} {held*1e6/n:>12.0f} {peak:>12.1f} {peak*1e6/n:>12.0f} {ns:>12.0f} {(on-off)*1024/n:>12.0f}")
PY
  done
done
