#!/usr/bin/env bash
# The ratios the tool is judged by, in one command, in the SIMULATED runtime (test
# infrastructure, not hardware) and on synthetic callbacks, on this machine:
#   cut        the MaxText-shaped scenario at STEPS steps, streamed (the default: windows of
#              1,000,000 records): each window cut's records per second of each stage (collect:
#              flush and drain; hand-off: what straddles the cut; join; write), in all (the
#              stages' times summed), and sustained: of the busiest tool thread (each thread's
#              wall time on the cut's stages summed; stages on different threads overlap other
#              windows' stages), from the debug line `window N cut: …`; the median over the
#              windows, the thread each window's busiest was (by the stages it ran), and the
#              windows' sizes against the 1,000,000 configured; and per CPU-second: each stage's
#              CPU time (its thread's, with the helper threads it started) and the busiest
#              thread's, what one core given to the tool sustains where the wall times also
#              count the program's threads holding the cores;
#   exit       the time the program waits at exit (finalize) per delivered record, held whole
#              (ROCPROF_XPLANE_WINDOW_MERGE=0) and streamed;
#   peak       the process's peak RSS over the untraced run's, per delivered record, both modes;
#   per call   the tool's callbacks per HIP call on a runtime that costs nothing (the hot_path
#              bench's HOT_PATH_ONLY=calls: hipLaunchKernel on a created stream through the
#              tool's extern "C" edges), at 1 and 16 threads, for each subscription (HIP API
#              only; with the external-id request; with the HIP_STREAM brackets, the default
#              under SDK 1.x): the calling threads' CPU-ns, their minor page faults per 1,000
#              calls, and with − without: less the bench's own records and calls to callbacks
#              that do nothing (its `…, no tool` rows), the tool's own part. The runtime's own cost
#              of each callback comes on top.
# The simulated device keeps in step with the program's threads, as a GPU does
# (ROCPROF_SIM_DEVICE_IN_STEP=1 unless the environment says otherwise: docs/simulator.md).
# Timings on a shared VM move with its load: run it on a quiet machine, and read instruction
# counts (ci/bench-instructions.sh) for comparisons across builds.
# Not a test: figures for docs/performance.md.
# Usage: ci/bench-ratios.sh [STEPS]   (default 4200: about 1 M records, one cut)
set -euo pipefail
cd "$(dirname "$0")/.."
export ROCPROF_SIM_DEVICE_IN_STEP=${ROCPROF_SIM_DEVICE_IN_STEP:-1}
steps=${1:-4200}
cargo build --release -p rocprof-xplane -p rocprof-sim --quiet
bench=$(ci/hot-path-bench.sh)
tool=$PWD/target/release/librocprof_xplane.so
sim=$PWD/target/release/rocprof-sim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s/repeat = 36500/repeat = $steps/" scenarios/maxtext-scale.toml >"$work/mt.toml"

run() { # MODE: the scenario untraced, held whole or streamed; debug log and time into $work/MODE.*
  local env=()
  case $1 in
    untraced) ;;
    whole) env=(ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_WINDOW_MERGE=0 ROCPROF_XPLANE_LOG=debug) ;;
    streamed) env=(ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_LOG=debug) ;;
  esac
  rm -rf "$work/out"
  env "${env[@]}" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" ROCPROF_XPLANE_RUN_NAME=mt \
    /usr/bin/time -f '%M' -o "$work/$1.time" "$sim" "$work/mt.toml" --sdk 1.0.0 \
    >/dev/null 2>"$work/$1.log" || {
    cat "$work/$1.log" >&2
    exit 1
  }
}
for mode in untraced whole streamed; do run "$mode"; done
HOT_PATH_ONLY=calls "$bench" >"$work/calls.log"

python3 - "$work" "$steps" <<'PY'
import re, statistics, sys
work, steps = sys.argv[1], sys.argv[2]
log = lambda m: open(f"{work}/{m}.log").read()
rss = lambda m: int(open(f"{work}/{m}.time").read().split()[-1]) * 1024
records = int(re.search(r"(\d+) records in \d+ deliveries", log("whole")).group(1))
print(f"MaxText-shaped run, {steps} steps: {records:,} delivered records (SIMULATED runtime)")
cuts = re.findall(r"window \d+ cut: (\d+) records \(and \d+ roctx spans\); collect ([\d.]+) ms .*?, hand-off ([\d.]+) ms .*?, "
                  r"join ([\d.]+) ms .*?, write ([\d.]+) ms .*?; in all ([\d.]+) ms .*?; "
                  r"busiest thread ([\d.]+) ms \([\d.]+ M records/s\) \(([^)]*)\)", log("streamed"))
if cuts:
    rows = [tuple(map(float, c[:7])) for c in cuts]
    busiest = sorted(set(c[7] for c in cuts))
    sizes = ", ".join(f"{int(r[0]):,}" for r in rows)
    print(f"  cut: {len(rows)} window cuts of {sizes} records (configured 1,000,000)")
    for i, stage in enumerate(["collect", "hand-off", "join", "write", "in all", "sustained"], start=1):
        rate = statistics.median(r[0] / r[i] / 1e3 for r in rows)
        print(f"    {stage:<10} median {rate:5.2f} M records/s   ({statistics.median(r[i] for r in rows):7.1f} ms)")
    print(f"    (sustained: the busiest tool thread's stages per window; that thread ran: {'; '.join(busiest)})")
    cpu = re.findall(r"window \d+ cut: (\d+) records .*?CPU with helpers: hand-off ([\d.]+) ms, join ([\d.]+) ms, "
                     r"write ([\d.]+) ms; busiest thread's CPU ([\d.]+) ms", log("streamed"))
    if cpu:
        rows = [tuple(map(float, c)) for c in cpu]
        print("    CPU (each stage's thread with the helpers it started), median records per CPU-second:")
        for i, stage in enumerate(["hand-off", "join", "write", "per core"], start=1):
            rate = statistics.median(r[0] / r[i] / 1e3 for r in rows)
            print(f"    {stage:<10} median {rate:5.2f} M records/s   ({statistics.median(r[i] for r in rows):7.1f} ms CPU)")
        print("    (per core: the busiest thread's CPU, what one core given to the tool sustains)")
else:
    print("  cut: no window was cut (fewer records than one window)")
if "arrive faster" in log("streamed"):
    print("  the tool said: " + re.search(r"warning: (records arrive faster[^;]*)", log("streamed")).group(1))
for mode in ["whole", "streamed"]:
    exit_ms = float(re.search(r"finalize: done in ([\d.]+) ms", log(mode)).group(1))
    peak = (rss(mode) - rss("untraced")) / records
    print(f"  {mode:<9} exit {exit_ms * 1e6 / records:6.0f} ns per record ({exit_ms:7.0f} ms);"
          f" peak RSS over untraced {peak:5.0f} B per record")
calls = open(f"{work}/calls.log").read().strip()
print("per HIP call, the tool's callbacks on a runtime that costs nothing (CPU-ns at 1 and 16"
      " threads, page faults per 1,000 calls; with − without: less the same calls to callbacks"
      " that do nothing, the bench's own cost):")
rows = {mode: (float(one), f1, float(sixteen), f16) for mode, one, f1, sixteen, f16 in re.findall(
    r"  ([a-zA-Z0-9_ +,]+): 1 thread\(s\) ([\d.]+) \(([\d.]+)\) 16 thread\(s\) ([\d.]+) \(([\d.]+)\)", calls)}
for mode, (one, f1, sixteen, f16) in rows.items():
    base = rows.get(mode + ", no tool")
    if base is None:
        continue
    print(f"  {mode:<20} {one:6.1f} ns ({f1}) at 1, {sixteen:6.1f} CPU-ns ({f16}) at 16;"
          f"  with − without {one - base[0]:5.1f} at 1, {sixteen - base[2]:5.1f} at 16")
PY
# per call through a runtime: the C driver's HIP-call storm through the simulated runtime,
# the runtime's dispatch of each callback included (ci/bench-c-driver.sh).
echo "per HIP call, with − without, through a runtime (the C driver):"
ci/bench-c-driver.sh 200000 3 | sed 's/^/  /'
