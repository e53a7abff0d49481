#!/usr/bin/env bash
# Where one pass of finalize spends its time, by leaf function, kernel included (page faults
# show as `exc_page_fault` and the kernel functions under it), in the SIMULATED runtime (test
# infrastructure, not hardware). Records the run with `perf record -F 999 -g`, keeps the samples
# of the thread that ran finalize (the process's main thread: finalize runs at exit), finds the
# span from the first to the last sample whose leaf is FUNCTION (a pass's own function, e.g.
# `join::kernels::kernel_events` or `join::host_events::host_events`), and prints every leaf of that thread's samples
# in the span with its share. A pass's inlined helpers count as the pass; what it calls out of
# line (libc's `memmove`, the allocator, the kernel) shows by name.
# Not a test: figures for docs/performance.md. Needs `perf` (linux-tools) allowed to sample
# (`kernel.perf_event_paranoid` <= 1 or root).
# Usage: ci/perf-pass.sh SCENARIO FUNCTION [TOOL.so]   (default tool: target/release's)
# PERF_PASS_ANNOTATE=SYMBOL (a function's whole name, as the listing prints it) adds the
# instructions of SYMBOL that hold the most of its own samples in the whole run (`perf
# annotate`), each with its share: one instruction holding most of them is a load that waits
# (a cache miss, or a load of bytes just stored in smaller pieces).
# PERF_PASS_THREAD=NAME lists, for the same span, the samples of the threads of that name
# instead (as `perf` shows it, at most 15 characters: `rocprof-xplane-` for the join's and
# the drain's helper, which works beside the finalize thread).
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,15p' "$0" >&2; exit 2; }
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
perf script -i "$work/perf.data" -F comm,pid,tid,time,ip,sym,dso 2>/dev/null | python3 -c '
import collections, re, sys
function, thread = sys.argv[1], sys.argv[2]
who = thread if thread else "the finalize thread"
# A sample starts with "comm pid/tid time:" (padded with spaces), its stack lines with a tab.
header = re.compile(r"^\s*(.*?)\s+(\d+)/(\d+)\s+([\d.]+):")
samples, current = [], None
for line in sys.stdin:
    if not line.strip():
        current = None
        continue
    m = header.match(line)
    if m:
        current = [m.group(1), m.group(2) == m.group(3), float(m.group(4)), None]
        samples.append(current)
    elif current is not None and current[3] is None:
        parts = line.strip().split(None, 1)
        current[3] = parts[1] if len(parts) > 1 else "[unknown]"
own = [t for _, main, t, leaf in samples if main and leaf and function in leaf]
if not own:
    sys.exit(f"no sample of the finalize thread has a leaf matching {function!r}")
first, last = min(own), max(own)
listed = [leaf or "[unknown]" for comm, main, t, leaf in samples
          if (comm == thread if thread else main) and first <= t <= last]
if not listed:
    sys.exit(f"no sample of {who} in that span")
total = len(listed)
kernel = sum(1 for leaf in listed if "[kernel.kallsyms]" in leaf)
print(f"{function}: {last - first:.3f} s from its first to its last sample on the finalize "
      f"thread; {total} samples of {who} in it, {100 * kernel / total:.1f} % in the kernel")
for leaf, n in collections.Counter(listed).most_common(15):
    print(f"{100 * n / total:6.1f} %  {n:6d}  {leaf[:110]}")
' "$function" "${PERF_PASS_THREAD:-}"
if [[ -n ${PERF_PASS_ANNOTATE:-} ]]; then
  echo "$PERF_PASS_ANNOTATE: the instructions with the most of its own samples"
  perf annotate -i "$work/perf.data" --stdio -s "$PERF_PASS_ANNOTATE" 2>/dev/null \
    | grep -E '^ +[0-9]+\.[0-9]+ +:' | sort -rn | head -5
fi
