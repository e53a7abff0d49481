#!/usr/bin/env bash
# Whose page faults a run takes, in the SIMULATED runtime (test infrastructure, not hardware):
# records every 50th minor fault with its call stack (`perf record -e page-faults -c 50
# --call-graph dwarf`), gives each sample to the first frame in the tool's library (by its
# function) or in the simulator's, and prints the counts (samples × 50). A fault in libc's
# `memmove` or the allocator counts for the tool function that called it; one in the standard
# library's code inlined into the tool (a vector's growth) names the tool's function under it.
# The tool's faults are also counted by the thread that took them (its name, digits folded:
# the application's threads, the delivery thread, the tool's coordinator and writer threads).
# Not a test: figures for docs/performance.md. Needs `perf` allowed to sample
# (`kernel.perf_event_paranoid` <= 1 or root). Writes a few hundred MB of perf data (removed).
# EXACT=N instead records every fault without its stack (`-c 1`), N runs, and prints each
# thread name's median and range over the runs: exact for the threads only the tool runs (its
# coordinator and writer threads: finalize and the windows); the application's and the
# delivery threads' counts hold the simulator's faults too. The counts move between runs of
# one build by up to a fifth (where freed blocks land depends on the threads' timing), so
# compare medians.
# Usage: ci/page-faults.sh SCENARIO [TOOL.so]   (default tool: target/release's)
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=$1
tool=$(realpath "${2:-target/release/librocprof_xplane.so}")
command -v perf >/dev/null || { echo "needs perf (apt-get install linux-tools-generic)" >&2; exit 1; }
cargo build --release --quiet --workspace
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if [ -n "${EXACT:-}" ]; then
  for run in $(seq "$EXACT"); do
    ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" \
      perf record -q -e page-faults -c 1 -o "$work/perf.data" \
      target/release/rocprof-sim "$scenario" >/dev/null 2>"$work/log"
    perf script -i "$work/perf.data" -F comm 2>/dev/null >"$work/comm.$run"
    rm -rf "$work/out" "$work/perf.data"
  done
  python3 - "$work" "$EXACT" <<'PY'
import collections, re, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
counts = [collections.Counter(re.sub(r"\d+", "N", l.strip()) for l in open(f"{work}/comm.{run}")
                              if l.strip()) for run in range(1, runs + 1)]
per = {k: [c.get(k, 0) for c in counts] for k in set().union(*counts)}
print(f"faults, every one counted, {runs} runs, by thread name: median (range)")
for k, v in sorted(per.items(), key=lambda kv: -statistics.median(kv[1])):
    print(f"{statistics.median(v):9.0f}  ({min(v)}–{max(v)})  {k}")
PY
  exit 0
fi
ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" \
  perf record -q -e page-faults -c 50 --call-graph dwarf,16384 -o "$work/perf.data" \
  target/release/rocprof-sim "$scenario" >/dev/null 2>"$work/log"
perf script -i "$work/perf.data" -F comm,tid,ip,sym,dso 2>/dev/null | python3 -c '
import collections, re, sys
tool_dso = sys.argv[1]
counts, threads, total, stack, thread = collections.Counter(), collections.Counter(), 0, [], "?"
generic = re.compile(r"^<?(alloc|core|std|hashbrown)::")
def name(sym):
    return re.sub(r"::h[0-9a-f]{16}$", "", sym)
def flush():
    global total
    if not stack:
        return
    total += 1
    key = "other"
    for i, (sym, dso) in enumerate(stack):
        if tool_dso in dso:
            key = "tool: " + name(sym)[:70]
            if generic.match(sym):
                # Growth or iteration of the standard library: say whose.
                own = next((name(s) for s, d in stack[i:] if tool_dso in d
                            and not generic.match(s)), "?")
                key += " <- " + own[:70]
            break
        if "sdk_sim" in dso or "rocprof-sim" in dso:
            key = "simulator"
            break
    counts[key] += 1
    if key.startswith("tool"):
        threads[thread] += 1
for line in sys.stdin:
    if not line.startswith(("\t", " ")):
        flush(); stack = []
        thread = re.sub(r"\d+", "N", line.split()[0]) if line.strip() else "?"
        continue
    parts = line.strip().split(None, 1)
    m = re.match(r"(.*) \((.*)\)$", parts[1]) if len(parts) > 1 else None
    if m:
        stack.append((m.group(1), m.group(2)))
flush()
tool = sum(n for k, n in counts.items() if k.startswith("tool"))
sim, other = counts["simulator"], counts["other"]
print(f"{total * 50} faults sampled: simulator {sim * 50}, tool {tool * 50}, other {other * 50}")
for k, n in counts.most_common(25):
    if k.startswith("tool"):
        print(f"{n * 50:9d}  {k}")
print("faults of the tool by thread:")
for k, n in threads.most_common():
    print(f"{n * 50:9d}  {k}")
' "$(basename "$tool")"
