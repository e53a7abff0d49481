#!/usr/bin/env bash
# The process's resident memory over time, in the SIMULATED runtime (test infrastructure, not
# hardware): the MaxText-shaped scenario at STEPS steps, untraced, held whole
# (ROCPROF_XPLANE_WINDOW_MERGE=0) or streamed (the default), its VmRSS read from
# /proc/PID/status every 20 ms. Prints the peak and when it came, the RSS at the last sample
# before exit, and one sample a second; and the most kernel memory areas the process had at once
# (lines of /proc/PID/maps, sampled as often: an allocator that cuts its mappings up shows here). Not a test: the figures behind "Where the streamed run's
# peak RSS comes from" in docs/performance.md.
# Usage: ci/rss-timeline.sh [STEPS] [untraced|whole|streamed]   (default 36500 untraced)
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-36500}
mode=${2:-untraced}
cargo build --release -p rocprof-xplane -p rocprof-sim --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s/repeat = 36500/repeat = $steps/" scenarios/maxtext-scale.toml >"$work/mt.toml"
env=()
case $mode in
  untraced) ;;
  whole) env=(ROCP_TOOL_LIBRARIES="$PWD/target/release/librocprof_xplane.so" ROCPROF_XPLANE_WINDOW_MERGE=0) ;;
  streamed) env=(ROCP_TOOL_LIBRARIES="$PWD/target/release/librocprof_xplane.so") ;;
  *) echo "mode: untraced, whole or streamed" >&2; exit 2 ;;
esac
env "${env[@]}" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" ROCPROF_XPLANE_RUN_NAME=mt \
  target/release/rocprof-sim "$work/mt.toml" --sdk 1.0.0 >/dev/null 2>"$work/log" &
pid=$!
start=$(date +%s.%N)
while kill -0 "$pid" 2>/dev/null; do
  kb=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  areas=$(wc -l <"/proc/$pid/maps" 2>/dev/null || true)
  [ -n "$kb" ] && [ -n "$areas" ] && echo "$(date +%s.%N) $kb $areas" >>"$work/samples"
  sleep 0.02
done
wait "$pid" || { cat "$work/log" >&2; exit 1; }
python3 - "$work/samples" "$start" "$steps" "$mode" <<'PY'
import sys
path, start, steps, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
samples = [l.split() for l in open(path)]
rows = [(float(t) - start, int(kb) * 1024) for t, kb, _ in samples]
areas = max(int(a) for _, _, a in samples)
peak_t, peak = max(rows, key=lambda r: r[1])
print(f"MaxText-shaped run, {steps} steps, {mode} (SIMULATED runtime); VmRSS every 20 ms")
print(f"  peak {peak / 1e6:,.0f} MB at {peak_t:.1f} s; last sample {rows[-1][1] / 1e6:,.0f} MB at {rows[-1][0]:.1f} s; at most {areas:,} memory areas")
second = -1
for t, rss in rows:
    if int(t) > second:
        second = int(t)
        print(f"  {t:6.1f} s  {rss / 1e6:8,.0f} MB")
PY
