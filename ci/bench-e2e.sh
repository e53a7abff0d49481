#!/usr/bin/env bash
# The tool's end-to-end cost per delivered record (the "collection + finalize + write" target of
# docs/performance.md), as CPU time rather than self-timed wall time: the callbacks' self-timing
# (`ROCPROF_XPLANE_LOG=debug`) counts a thread descheduled inside a callback, which a storm of
# 32 threads on 2 cores inflates several times over. Each round runs the scenario three ways in
# the SIMULATED runtime (test infrastructure, not hardware), release build:
#   untraced  no tool;
#   baseline  the tool loaded and configured, the runtime tracing for it, but every tool
#             callback skipped (`ROCPROF_SIM_TOOL_CALLS=skip`): the runtime's own tracing work
#             without the tool's (the tool still writes its empty profile at exit);
#   traced    the tool.
# and prints, per delivered record, the process's CPU time (user + system, every thread; the
# system part and the minor page faults beside it) and wall time of traced minus baseline: what
# the tool itself costs the program, finalize and write included. Baseline minus untraced is
# the simulator's tracing, which says nothing about the real runtime's. Figures are medians over the rounds of the per-round difference (the
# three runs of a round are back to back, so a slow period of the shared VM hits all three),
# with the rounds' range. Records delivered come from one extra traced run with the debug log,
# and so does finalize's share: the process's CPU time from its start to its end (the program's
# threads wait then), every thread it uses.
# Not a test: figures for docs/performance.md.
# Usage: ci/bench-e2e.sh [ROUNDS] [SCENARIO.toml ...]; TOOL=path/librocprof_xplane.so measures
# another build of the tool (e.g. the one before a change) against the same simulator;
# PIN=CPU runs every run on that one CPU (`taskset -c CPU`): the storm's 32 threads then take
# turns instead of spinning against each other on two cores, which keeps the baseline's CPU
# time steady when other processes load the machine, at the price of one core's context
# switches (which the tool's figure then includes).
#   default: 5 rounds of the 200 k-launch storm (scenarios/thread-storm.toml at 3,125 repeats)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
shift || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $# -eq 0 ]]; then
  sed 's/repeat = 25000/repeat = 3125/' scenarios/thread-storm.toml >"$work/storm200k.toml"
  set -- "$work/storm200k.toml"
fi
cargo build --release -p rocprof-xplane -p rocprof-sim --quiet
tool=${TOOL:-$PWD/target/release/librocprof_xplane.so}
sim=$PWD/target/release/rocprof-sim

run() { # MODE SCENARIO -> "wall user sys maxrss_kb minor_faults"
  local env=()
  case $1 in
    untraced) ;;
    baseline) env=(ROCP_TOOL_LIBRARIES="$tool" ROCPROF_SIM_TOOL_CALLS=skip) ;;
    traced) env=(ROCP_TOOL_LIBRARIES="$tool") ;;
  esac
  rm -rf "$work/out"
  env "${env[@]}" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" ${PIN:+taskset -c "$PIN"} python3 "$work/rusage.py" \
    "$sim" "$2" 2>"$work/err" || {
    cat "$work/err" >&2
    exit 1
  }
}

# The child's resources from wait4: CPU times to the microsecond (GNU time prints them to
# 10 ms, about 17 ns per record of the default storm).
cat >"$work/rusage.py" <<'EOF'
import os, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
wall = time.monotonic() - t0
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit(f"{sys.argv[1]} failed: status {status}")
print(f"{wall:.6f} {ru.ru_utime:.6f} {ru.ru_stime:.6f} {ru.ru_maxrss} {ru.ru_minflt}")
EOF

for sc in "$@"; do
  rm -rf "$work/out"
  ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_LOG=debug ROCPROF_XPLANE_OUTPUT_DIR="$work/out" \
    ${PIN:+taskset -c "$PIN"} "$sim" "$sc" >/dev/null 2>"$work/debug.log"
  records=$(grep -oE '[0-9]+ records in [0-9]+ deliveries' "$work/debug.log" | awk '{print $1}')
  # The process's CPU time at finalize's start and end (the program's threads wait then):
  # finalize's own CPU, on every thread it uses.
  finalize_ms=$(grep -E 'finalize: (start|done)' "$work/debug.log" |
    grep -oE 'process CPU [0-9.]+ ms' | awk '{v[NR] = $3} END {if (NR == 2) print v[2] - v[1]}')
  : >"$work/rows"
  for r in $(seq 1 "$rounds"); do
    echo "$r $(run untraced "$sc") $(run baseline "$sc") $(run traced "$sc")" >>"$work/rows"
  done
  python3 - "$(basename "$sc")" "$records" "$work/rows" "${finalize_ms:-}" <<'EOF'
import os, statistics, sys
name, records, path, finalize_ms = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = [list(map(float, l.split()[1:])) for l in open(path)]
# per run: wall, user, sys, rss (KB), minor faults; untraced 0..4, baseline 5..9, traced 10..14
U, B, T = 0, 5, 10
def cpu(r, at): return r[at + 1] + r[at + 2]
def show(label, values, unit, scale, digits=0):
    v = sorted(x * scale for x in values)
    print(f"  {label:<46} median {statistics.median(v):8.{digits}f} {unit}   range {v[0]:.{digits}f}–{v[-1]:.{digits}f}")
pin = os.environ.get("PIN")
print(f"{name}: {records} delivered records, {len(rows)} rounds (SIMULATED runtime)"
      + (f", every run on CPU {pin}" if pin else ""))
show("wall, untraced", [r[U] for r in rows], "ms", 1e3)
show("wall, baseline (runtime traces, tool skipped)", [r[B] for r in rows], "ms", 1e3)
show("wall, traced", [r[T] for r in rows], "ms", 1e3)
show("CPU (user+sys), untraced", [cpu(r, U) for r in rows], "ms", 1e3)
show("CPU, baseline", [cpu(r, B) for r in rows], "ms", 1e3)
show("CPU, traced", [cpu(r, T) for r in rows], "ms", 1e3)
per = 1e9 / records
print("per delivered record, traced minus baseline (the tool's own cost):")
show("CPU", [cpu(r, T) - cpu(r, B) for r in rows], "ns", per)
# The kernel's share: mostly first touches of new memory (ci/page-faults.sh says whose).
show("  of which system CPU", [r[T + 2] - r[B + 2] for r in rows], "ns", per)
show("  minor page faults, per 1,000 records", [r[T + 4] - r[B + 4] for r in rows], "", 1e3 / records, 1)
if finalize_ms:
    label = "  of which finalize (the debug-log run)"
    print(f"  {label:<46} one run {float(finalize_ms) * 1e6 / records:6.0f} ns")
show("wall", [r[T] - r[B] for r in rows], "ns", per)
show("peak RSS", [(r[T + 3] - r[B + 3]) * 1024 for r in rows], "B", 1 / records)
print("per delivered record, baseline minus untraced (the simulator's tracing, not the tool's):")
show("CPU", [cpu(r, B) - cpu(r, U) for r in rows], "ns", per)
EOF
done
