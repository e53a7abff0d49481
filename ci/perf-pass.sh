#!/usr/bin/env bash
# Where one pass of finalize spends its time, by leaf function, kernel included (page faults
# show as `exc_page_fault` and the kernel functions under it), in the SIMULATED runtime (test
# infrastructure, not hardware). Records the run with `perf record -F 999 -g`, keeps the samples
# of the thread that ran finalize (the process's main thread: finalize runs at exit), finds the
# span from the first to the last sample whose leaf is FUNCTION (a pass's own function, e.g.
# `join::kernel_events` or `join::host_events`), and prints every leaf of that thread's samples
# in the span with its share. A pass's inlined helpers count as the pass; what it calls out of
# line (libc's `memmove`, the allocator, the kernel) shows by name.
# Not a test: figures for docs/performance.md. Needs `perf` (linux-tools) allowed to sample
# (`kernel.perf_event_paranoid` <= 1 or root).
# Usage: ci/perf-pass.sh SCENARIO FUNCTION [TOOL.so]   (default tool: target/release's)
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,12p' "$0" >&2; exit 2; }
scenario=$(realpath "$1"); function=$2
cd "$(dirname "$0")/.."
tool=$(realpath "${3:-target/release/librocprof_xplane.so}")
command -v perf >/dev/null || { echo "needs perf (apt-get install linux-tools-generic)" >&2; exit 1; }
cargo build --release --quiet --workspace
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" ROCPROF_XPLANE_LOG=debug \
  perf record -q -F 999 -g -o "$work/perf.data" target/release/rocprof-sim "$scenario" \
  >/dev/null 2>"$work/log"
grep -E "join passes" "$work/log" | sed 's/^rocprof-xplane: //' || true
perf script -i "$work/perf.data" -F pid,tid,time,ip,sym 2>/dev/null | python3 -c '
import collections, re, sys
function = sys.argv[1]
# A sample starts with "pid/tid time:" (the pid padded with spaces), its stack lines with a tab.
header = re.compile(r"^\s*(\d+)/(\d+)\s+([\d.]+):")
samples, current = [], None
for line in sys.stdin:
    if not line.strip():
        current = None
        continue
    m = header.match(line)
    if m:
        current = [m.group(1) == m.group(2), float(m.group(3)), None]
        samples.append(current)
    elif current is not None and current[2] is None:
        parts = line.strip().split(None, 1)
        current[2] = parts[1] if len(parts) > 1 else "[unknown]"
main = [(t, leaf or "[unknown]") for is_main, t, leaf in samples if is_main]
own = [t for t, leaf in main if function in leaf]
if not own:
    sys.exit(f"no sample of the main thread has a leaf matching {function!r}")
first, last = min(own), max(own)
counts = collections.Counter(leaf for t, leaf in main if first <= t <= last)
total = sum(counts.values())
print(f"{function}: {last - first:.3f} s from its first to its last sample, {total} samples of the finalize thread")
for leaf, n in counts.most_common(15):
    print(f"{100 * n / total:6.1f} %  {n:6d}  {leaf[:110]}")
' "$function"
