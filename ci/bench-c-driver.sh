#!/usr/bin/env bash
# What a HIP call costs an application with the tool loaded, minus without, measured as the
# application sees it: a C program (benches/c-driver/storm.c) whose threads each make CALLS
# hipLaunchKernel calls on a created stream through the SIMULATED rocprofiler-sdk runtime
# (test infrastructure, not a GPU runtime), which dispatches each call's callbacks to the tool
# (HIP_STREAM brackets under SDK 1.x, the external-correlation request, ENTER/EXIT, the API
# record) as its replay does. Unlike the hot_path bench it includes the runtime's own dispatch
# of each callback and the tool's threads.
# Three runs alternate, ROUNDS rounds, at 1 and 16 threads: without the tool; with it; with it
# loaded but ROCPROF_SIM_TOOL_CALLS=skip (the runtime traces, builds and buffers every record
# but calls no tool callback), which splits with − without into the simulated runtime's own
# tracing work (skip − without) and the tool's (with − skip); and with it loaded but each HIP
# call's record buffered by the runtime (ROCPROF_XPLANE_HIP_API_RECORDS=buffer) instead of built
# from the call's callbacks (the default). Prints the medians:
#   app CPU-ns        the calling threads' own CPU time / calls (the application thread's cost)
#   CPU-ns per call   the process's CPU time over the storm / calls (the runtime's and the
#                     tool's threads too)
#   wall-ns per call  the storm's wall time / calls (2 cores here: 16 threads share them)
#   peak B per call   the process's peak RSS with − without / calls
# Timings on a shared VM move with its load (printed): run it on a quiet machine.
# `callgrind` instead: instructions per HIP call of the tool's callbacks in the tool's .so
# (not the hot_path bench, which links the tool into its executable, where a thread-local is a
# plain %fs load), the driver on one thread under callgrind at CALLS and 2 × CALLS calls, the
# difference over CALLS taking out start-up and exit: each tool edge the runtime called,
# inclusive (the .so's thread-local look-ups, `__tls_get_addr`, one per edge, included), and
# their sum. The driver makes no dispatch, so the runtime asks for no external correlation id:
# the request is not counted. Then the whole process's instructions per HIP call (the same
# difference) without the tool, with it skipped (ROCPROF_SIM_TOOL_CALLS=skip) and with it:
# skip − without is the simulated runtime's own tracing, with − skip the tool's work (its
# callbacks and its processing of the delivered buffers) and the runtime's calls into it.
# Needs valgrind.
# Usage: ci/bench-c-driver.sh [CALLS] [ROUNDS] [SDK]   (default 200000 5 1.0.0)
#        ci/bench-c-driver.sh callgrind [CALLS] [SDK]  (default 20000 1.0.0)
# TOOL=path/librocprof_xplane.so measures another build of the tool (e.g. the one before a
# change) against the same simulator and driver; SIM=path/librocprofiler_sdk_sim.so another
# build of the simulator (its own tracing is in every figure but with − skip).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=timed
if [ "${1:-}" = callgrind ]; then
  mode=callgrind
  shift
  set -- "${1:-20000}" 1 "${2:-1.0.0}"
fi
calls=${1:-200000}
rounds=${2:-5}
sdk=${3:-1.0.0}
cargo build --release -p rocprof-xplane -p rocprof-sim --quiet
tool=${TOOL:-$PWD/target/release/librocprof_xplane.so}
libsim=${SIM:-$PWD/target/release/librocprofiler_sdk_sim.so}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -Wextra -Werror -o "$work/storm" benches/c-driver/storm.c -ldl -lpthread

if [ "$mode" = callgrind ]; then
  for c in "$calls" $((2 * calls)); do
    for with in 0 skip 1; do
      env=(ROCPROF_SIM_SDK="$sdk")
      [ "$with" != 0 ] && env+=(ROCP_TOOL_LIBRARIES="$tool")
      [ "$with" = skip ] && env+=(ROCPROF_SIM_TOOL_CALLS=skip)
      rm -rf "$work/out"
      env "${env[@]}" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" \
        valgrind --tool=callgrind --callgrind-out-file="$work/cg.$with.$c" \
        "$work/storm" "$libsim" 1 "$c" >/dev/null 2>"$work/err.$c" || {
        cat "$work/err.$c" >&2
        exit 1
      }
      callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.$with.$c" 2>/dev/null \
        >"$work/in.$with.$c"
    done
  done
python3 - "$work" "$calls" "$sdk" <<'PY'
import re, sys
work, n, sdk = sys.argv[1], int(sys.argv[2]), sys.argv[3]
EDGES = ["tracing_callback_v0", "tracing_callback_v1", "hip_stream_callback_v1", "marker_callback_v1",
         "external_id_request"]
def edges(calls):
    got = {}
    for line in open(f"{work}/in.1.{calls}"):
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*rocprof_xplane::sdk::callbacks::(\w+)\b", line)
        if m and m.group(2) in EDGES:
            # An edge is listed once per source file it holds code of: its own line is the
            # largest (inclusive of the rest).
            got[m.group(2)] = max(got.get(m.group(2), 0), int(m.group(1).replace(",", "")))
    return got
a, b = edges(n), edges(2 * n)
print(f"the tool's .so, per HIP call (callgrind, C driver through the SIMULATED runtime, SDK {sdk}, "
      f"{2 * n} minus {n} calls, one thread):")
for e in EDGES:
    if e in a or e in b:
        print(f"  {e:<24} {(b.get(e, 0) - a.get(e, 0)) / n:7.1f} instructions")
print(f"  {'all edges':<24} {(sum(b.values()) - sum(a.values())) / n:7.1f} instructions")
def total(with_, calls):
    for line in open(f"{work}/in.{with_}.{calls}"):
        m = re.match(r"\s*([\d,]+) .*PROGRAM TOTALS", line)
        if m:
            return int(m.group(1).replace(",", ""))
    raise SystemExit(f"no PROGRAM TOTALS in in.{with_}.{calls}")
per = {w: (total(w, 2 * n) - total(w, n)) / n for w in ("0", "skip", "1")}
print(f"the whole process, per HIP call: without the tool {per['0']:.0f}, skip {per['skip']:.0f}, "
      f"with {per['1']:.0f} instructions")
print(f"  the runtime's tracing (skip − without) {per['skip'] - per['0']:7.1f}")
print(f"  the tool's work (with − skip)          {per['1'] - per['skip']:7.1f}")
PY
exit 0
fi

run() { # WITH(0|1|skip|buffer) THREADS: one storm, its line appended to $work/runs
  local env=(ROCPROF_SIM_SDK="$sdk")
  [ "$1" != 0 ] && env+=(ROCP_TOOL_LIBRARIES="$tool")
  [ "$1" = skip ] && env+=(ROCPROF_SIM_TOOL_CALLS=skip)
  [ "$1" = buffer ] && env+=(ROCPROF_XPLANE_HIP_API_RECORDS=buffer)
  rm -rf "$work/out"
  local line
  line=$(env "${env[@]}" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" "$work/storm" "$libsim" "$2" "$calls" \
    2>"$work/err") || {
    cat "$work/err" >&2
    exit 1
  }
  echo "with=$1 $line" >>"$work/runs"
}
for _ in $(seq "$rounds"); do
  for threads in 1 16; do
    run 0 "$threads"
    run 1 "$threads"
    run skip "$threads"
    run buffer "$threads"
  done
done

python3 - "$work/runs" "$calls" "$rounds" "$sdk" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import statistics, sys
path, calls, rounds, sdk, load = sys.argv[1:]
runs = [dict(kv.split("=") for kv in line.split()) for line in open(path)]
print(f"HIP-call storm through the SIMULATED runtime (SDK {sdk}), C driver, {calls} calls per "
      f"thread, {rounds} rounds alternated, medians; load average {load}")
for threads in ("1", "16"):
    pick = lambda w, k: statistics.median(float(r[k]) for r in runs
                                          if r["with"] == w and r["threads"] == threads)
    app = pick("1", "app_cpu_ns_per_call") - pick("0", "app_cpu_ns_per_call")
    cpu = pick("1", "cpu_ns_per_call") - pick("0", "cpu_ns_per_call")
    wall = pick("1", "wall_ns_per_call") - pick("0", "wall_ns_per_call")
    peak = (pick("1", "maxrss_kib") - pick("0", "maxrss_kib")) * 1024 / (int(calls) * int(threads))
    print(f"  {threads:>2} threads: with − without {app:6.1f} app CPU-ns, {cpu:6.1f} CPU-ns, "
          f"{wall:6.1f} wall-ns per call (without: {pick('0', 'app_cpu_ns_per_call'):.1f} app "
          f"CPU-ns); peak {peak:+.1f} B per call")
    own = pick("1", "app_cpu_ns_per_call") - pick("skip", "app_cpu_ns_per_call")
    print(f"      of the app CPU-ns: the tool's callbacks (with − skip) {own:6.1f}, the runtime's "
          f"tracing (skip − without) {app - own:6.1f}")
    print(f"      records buffered instead (HIP_API_RECORDS=buffer): with − without "
          f"{pick('buffer', 'app_cpu_ns_per_call') - pick('0', 'app_cpu_ns_per_call'):6.1f} app CPU-ns, "
          f"{pick('buffer', 'cpu_ns_per_call') - pick('0', 'cpu_ns_per_call'):6.1f} CPU-ns, "
          f"{pick('buffer', 'wall_ns_per_call') - pick('0', 'wall_ns_per_call'):6.1f} wall-ns per call")
PY
