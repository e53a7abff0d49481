#!/usr/bin/env bash
# One profile of a run, written whole at exit (ROCPROF_XPLANE_WINDOW_MERGE=0) or window by
# window and merged at exit (the default's windows of 1,000,000 records, or
# ROCPROF_XPLANE_WINDOW_EVENTS=N with ROCPROF_XPLANE_WINDOW_MERGE=1), on the MaxText-shaped
# scenario at STEPS steps, in the SIMULATED runtime (test infrastructure, not hardware). Uses
# the `heap-stats` measurement copy of the tool (a counting allocator in the cdylib, as
# ci/bench-memory.sh builds it) and prints per mode: windows written, the tool's heap peak
# (MB, and B per delivered record: the whole run's count), the tool's heap held when finalize
# starts (`start_MB`: the windows not yet written and what the writer keeps of the run's), the
# process's peak RSS (MB, and B per delivered record: the simulator's own memory included, the
# same in every mode), the time
# the process waits at exit (finalize: the last window's join and write, then the merge) and
# per delivered record, the merge's own time, and the events written, the dependency arrows
# drawn and the waits drawn without one (a record in another window), and the sizes of the
# windows cut while the program runs (thousands of records, smallest-largest; the last window,
# written at exit, holds what is left), and the time each window took on the writer's file
# thread to be put into the profile assembled in place (ms, median/largest; `-` where the windows are
# merged at exit instead: docs/streaming.md), and the most calls a window handed on to the next
# (`held_k`, thousands: calls whose device work had not come, `model::carry`).
# With ROCPROF_SIM_KEEP_REPLAY=1 in the environment the simulator keeps its replay's memory until
# exit, as a program that holds its memory to the end (docs/simulator.md). With PACE=F the simulator replays at F × the scenario's simulated time
# (`[delivery] real_time`), delivering slower than it can.
# The simulated device keeps in step with the application threads (ROCPROF_SIM_DEVICE_IN_STEP=1,
# docs/simulator.md), as a GPU does whatever the host's CPU load: left free, the simulator's
# device thread, sharing two cores with the program's threads and the tool's, falls far behind
# them (held_k: the calls waiting for their kernels), which no GPU run shows.
# ROCPROF_SIM_DEVICE_IN_STEP=0 in the environment measures the free-running replay instead.
# Not a test: figures for docs/performance.md.
# Usage: ci/bench-window-merge.sh [STEPS [WINDOW_EVENTS|default...]] (default 3650 steps;
# windows of 100000 and 400000 records). LOGS=DIR keeps each mode's debug log there, as
# MODE.log (e.g. each window's `window put into the run's profile in place` line: the bytes
# its step moved).
set -euo pipefail
cd "$(dirname "$0")/.."
export ROCPROF_SIM_DEVICE_IN_STEP=${ROCPROF_SIM_DEVICE_IN_STEP:-1}
echo "device in step with the application threads: ROCPROF_SIM_DEVICE_IN_STEP=$ROCPROF_SIM_DEVICE_IN_STEP"
steps=${1:-3650}
sizes=("${@:2}"); ((${#sizes[@]})) || sizes=(100000 400000)
cargo build --release --workspace --quiet
CARGO_TARGET_DIR=target/heap-stats cargo build --release -p rocprof-xplane --features heap-stats --quiet
tool="$PWD/target/heap-stats/release/librocprof_xplane.so"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
sed -e "s/repeat = 36500/repeat = $steps/" -e "s/^\[delivery\]/[delivery]\nreal_time = ${PACE:-0}/" \
  scenarios/maxtext-scale.toml >"$work/mt.toml"
printf '%-14s %8s %9s %10s %11s %9s %8s %9s %8s %9s %9s %10s %8s %8s %12s %12s %8s\n' mode windows records heap_MB heap_B/rec start_MB rss_MB rss_B/rec exit_ms exit_ns/r merge_ms events arrows no_arrow cut_k put_ms held_k
for size in whole "${sizes[@]}"; do
  rm -rf "$work/logs"
  # `whole` holds the run until exit (WINDOW_MERGE=0); `default` sets nothing (the streaming
  # pipeline: windows of 1,000,000 records, merged at exit).
  case $size in
    whole) extra=(ROCPROF_XPLANE_WINDOW_MERGE=0) ;;
    default) extra=() ;;
    *) extra=(ROCPROF_XPLANE_WINDOW_EVENTS="$size" ROCPROF_XPLANE_WINDOW_MERGE=1) ;;
  esac
  env ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_OUTPUT_DIR="$work/logs" ROCPROF_XPLANE_RUN_NAME=mt \
    ROCPROF_XPLANE_LOG=debug "${extra[@]}" target/release/rocprof-sim "$work/mt.toml" --sdk 1.0.0 \
    >/dev/null 2>"$work/log"
  if [[ -n ${LOGS:-} ]]; then
    mkdir -p "$LOGS"
    cp "$work/log" "$LOGS/$size.log"
  fi
  file=$(ls "$work"/logs/plugins/profile/mt/*.xplane.pb)
  counts=$(target/release/rocprof-xplane inspect --json "$file" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(p["events"] for p in d["planes"]), d["dependency_arrows"], d["counters"]["waits_without_arrow"])')
  python3 - "$size" "$work/log" "$counts" "$work/records" <<'PY'
import re, sys, os
size, log, counts, rec_file = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3], sys.argv[4]
events, arrows, no_arrow = counts.split()
# The records delivered: from the whole run's line (the same workload in every mode).
t = re.search(r"(\d+) records in \d+ deliveries", log)
if t:
    open(rec_file, "w").write(t.group(1))
n = int(open(rec_file).read()) if os.path.exists(rec_file) else 0
peak = float(re.findall(r"tool heap [\d.]+ MB, peak ([\d.]+) MB", log)[-1])
start = float(re.search(r"finalize: start, .*?tool heap ([\d.]+) MB", log).group(1))
done = re.search(r"finalize: done in ([\d.]+) ms; memory rss \d+ kB, peak (\d+) kB", log)
exit_ms, rss_kb = float(done.group(1)), int(done.group(2))
m = re.search(r"merged (\d+) windows into .* \((\d+) events on \d+ lines, (\d+) ms[;)]", log)
windows, merge = (int(m.group(1)), int(m.group(3))) if m else (1, 0)
mode = size if size in ("whole", "default") else f"windows/{int(size)//1000}k"
cut = [int(r) // 1000 for r in re.findall(r"window \d+ cut: (\d+) records", log)]
cut_k = f"{min(cut)}-{max(cut)}" if cut else "-"
rss = rss_kb * 1024 / 1e6
put = sorted(float(x) for x in re.findall(r"window put into the run's profile in place in ([\d.]+) ms", log))
put_ms = f"{put[len(put)//2]:.0f}/{put[-1]:.0f}" if put else "-"
held = [int(x) // 1000 for x in re.findall(r"window: (\d+) calls, \d+ kernels and \d+ copies handed on", log)]
held_k = str(max(held)) if held else "-"
print(f"{mode:<14} {windows:>8} {n:>9} {peak:>10.1f} {peak*1e6/max(n,1):>11.0f} {start:>9.1f} {rss:>8.0f} {rss*1e6/max(n,1):>9.0f} {exit_ms:>8.0f} {exit_ms*1e6/max(n,1):>9.0f} {merge:>9} {events:>10} {arrows:>8} {no_arrow:>8} {cut_k:>12} {put_ms:>12} {held_k:>8}")
PY
done
