#!/usr/bin/env bash
# The process's kernel memory areas (mappings) at their peak during one run, with its CPU
# time, peak RSS and minor faults, in the SIMULATED runtime (test infrastructure, not
# hardware): the tool's allocator (`heap::pool`) moves free pages into blocks with `mremap`,
# and each moved range stays an area of its own, counted against `vm.max_map_count`.
# The areas are the lines of /proc/PID/maps, read every 50 ms (a shorter peak can be missed).
# Not a test: figures for the issue notes and docs/performance.md.
# Usage: ci/kernel-areas.sh SCENARIO.toml [RUNS] [TOOL.so]; extra settings through the
# environment (e.g. ROCPROF_XPLANE_WINDOW_EVENTS=300000). RUNS defaults to 1; TOOL to
# target/release's.
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=$1
runs=${2:-1}
cargo build --release -p rocprof-xplane -p rocprof-sim --quiet
tool=${3:-$PWD/target/release/librocprof_xplane.so}
sim=$PWD/target/release/rocprof-sim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $(seq 1 "$runs"); do
  rm -rf "$work/out"
  ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" \
    /usr/bin/time -f "user %U s, sys %S s, wall %e s, peak RSS %M kB, minor faults %R" \
    -o "$work/time" "$sim" "$scenario" >/dev/null 2>"$work/err" &
  pid=$!
  peak=0
  # The child of `time` is the simulator.
  while kill -0 "$pid" 2>/dev/null; do
    child=$(pgrep -P "$pid" | head -1 || true)
    if [[ -n $child && -r /proc/$child/maps ]]; then
      n=$(wc -l <"/proc/$child/maps" 2>/dev/null || echo 0)
      ((n > peak)) && peak=$n
    fi
    sleep 0.05
  done
  wait "$pid" || {
    cat "$work/err" >&2
    exit 1
  }
  echo "run $r: peak kernel areas $peak; $(cat "$work/time")"
done
