#!/usr/bin/env bash
# Instructions per HIP call of the tool's callbacks in the tool's .so (not the hot_path bench,
# which links the tool into its executable, where a thread-local is a plain %fs load): the C
# driver (benches/c-driver/storm.c, one thread, hipLaunchKernel on a created stream) through
# the SIMULATED rocprofiler-sdk runtime (test infrastructure, not a GPU runtime) under
# callgrind, twice (N and 2N calls); the difference over N takes out start-up and exit.
# Prints per HIP call, inclusive: each tool edge the runtime called and their sum, the .so's
# thread-local look-ups (`__tls_get_addr`, one per edge) included. The driver makes no
# dispatch, so the runtime asks for no external correlation id: the request is not counted.
# Needs valgrind. Not a test: figures for docs/performance.md.
# Usage: ci/bench-so-calls.sh [N] [SDK]   (default 20000 1.0.0)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}
sdk=${2:-1.0.0}
cargo build --release -p rocprof-xplane -p rocprof-sim --quiet
tool=$PWD/target/release/librocprof_xplane.so
libsim=$PWD/target/release/librocprofiler_sdk_sim.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -Wextra -Werror -o "$work/storm" benches/c-driver/storm.c -ldl -lpthread
for calls in "$n" $((2 * n)); do
  ROCPROF_SIM_SDK="$sdk" ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" \
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.$calls" \
    "$work/storm" "$libsim" 1 "$calls" >/dev/null 2>"$work/err.$calls" || {
    cat "$work/err.$calls" >&2
    exit 1
  }
  callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.$calls" 2>/dev/null >"$work/in.$calls"
done
python3 - "$work" "$n" "$sdk" <<'PY'
import re, sys
work, n, sdk = sys.argv[1], int(sys.argv[2]), sys.argv[3]
EDGES = ["tracing_callback_v0", "tracing_callback_v1", "hip_stream_callback_v1", "external_id_request"]
def edges(calls):
    got = {}
    for line in open(f"{work}/in.{calls}"):
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
PY
