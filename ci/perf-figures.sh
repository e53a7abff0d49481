#!/usr/bin/env bash
# The figures of docs/performance.md's table, regenerated: runs the bench scripts of ci/ and the
# hot_path bench one after another and prints one table, each figure with its target and the
# ratio to it where there is one. Everything runs in the SIMULATED runtime (test infrastructure,
# not hardware) or on synthetic records; the figures describe this code on this machine.
# Not a test: timings on a shared VM move by ±20–50 % with its load.
# Usage: ci/perf-figures.sh [quick|full] [KEEP_DIR]
#   quick (default; a few minutes on a 2-core VM once built): the 200 k-launch storm and the
#         stress run at their sizes, fewer repeats, the MaxText-shaped run at 4,200 steps
#         (1 M records) for the streaming default, the scale from 10 K to 1 M events.
#   full  (10–20 minutes): the sizes and repeats of docs/performance.md: the MaxText-shaped
#         run at its size (9 M records), the scale to 20 M events, instruction counts under
#         callgrind (needs valgrind).
# With KEEP_DIR each step's whole output stays there (one .log per step).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-quick}
case $size in quick | full) ;; *) sed -n '2,15p' "$0" >&2; exit 2 ;; esac
if [[ $# -ge 2 ]]; then
  work=$2
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
if [[ $size == full ]]; then
  repeat=8 e2e_rounds=9 mem_runs=3 merge_steps=36500 scale_steps=(42 420 4200 36500 83400)
else
  repeat=3 e2e_rounds=3 mem_runs=1 merge_steps=4200 scale_steps=(42 420 4200)
fi

step() { # NAME COMMAND...: its output into $work/NAME.log, progress on stderr
  local name=$1 t0=$SECONDS
  shift
  echo "perf-figures: $name: $*" >&2
  if ! "$@" >"$work/$name.log" 2>&1; then
    cat "$work/$name.log" >&2
    echo "perf-figures: $name failed" >&2
    exit 1
  fi
  echo "perf-figures: $name done in $((SECONDS - t0)) s" >&2
}
hot_path() { env "$@" cargo bench -p rocprof-xplane --bench hot_path; }

cargo build --release --workspace --quiet
step decode hot_path HOT_PATH_ONLY=decode
step annotations hot_path HOT_PATH_ONLY=annotations
step export hot_path HOT_PATH_ONLY=finalize HOT_PATH_REPEAT="$repeat"
step disk ci/disk-floor.sh 47 608250
# The run held whole (WINDOW_MERGE=0): its heap figures are deterministic, and the stress run's
# 1.5 M records would otherwise be cut into windows (the streaming default's heap is the merge
# step's figure).
step memory env ROCPROF_XPLANE_WINDOW_MERGE=0 ci/bench-memory.sh "$mem_runs"
[[ $size == full ]] && step memory-maxtext env ROCPROF_XPLANE_WINDOW_MERGE=0 ci/bench-memory.sh 1 scenarios/maxtext-scale.toml
step e2e ci/bench-e2e.sh "$e2e_rounds"
step merge ci/bench-window-merge.sh "$merge_steps" default
step scale ci/bench-scale.sh "${scale_steps[@]}"
step scale-whole env ROCPROF_XPLANE_WINDOW_MERGE=0 ci/bench-scale.sh "${scale_steps[@]}"
step bubbles ci/bench-graph-bubbles.sh 3
[[ $size == full ]] && step instructions ci/bench-instructions.sh

python3 - "$work" "$size" <<'PY'
import os, re, statistics, sys

work, size = sys.argv[1], sys.argv[2]
rows = []  # (figure, measured, target, ratio)


def log(name):
    path = os.path.join(work, name + ".log")
    return open(path).read() if os.path.exists(path) else ""


def span(values, fmt="{:.1f}"):
    lo, hi = min(values), max(values)
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else f"{fmt.format(lo)}–{fmt.format(hi)}"


def row(figure, measured, target="", ratio=None):
    rows.append((figure, measured, target, "" if ratio is None else f"{ratio:.2f}"))


# Decode on the delivery thread (hot_path, HOT_PATH_ONLY=decode).
for m in re.finditer(r"^decode (.+?)\s{2,}([\d.]+) ns/record \(per batch of 512: median ([\d.]+), p99 ([\d.]+)\)",
                     log("decode"), re.M):
    name, ns, med, p99 = m.group(1), float(m.group(2)), m.group(3), m.group(4)
    row(f"decode, {name}", f"{ns:.1f} ns/record (per batch: median {med}, p99 {p99})", "≤ 100 ns", ns / 100)

# The application thread per HIP call at 1, 4, 16 and 32 threads (HOT_PATH_ONLY=annotations).
ann = log("annotations")
for m in re.finditer(r"^per HIP call on application threads, on (the null stream|a created stream).*$", ann, re.M):
    cells = re.findall(r"(\d+) threads\s+([\d.]+) \(([\d.]+) / ([\d.]+)\)", m.group(0))
    cpu = [float(c[1]) for c in cells]
    row(f"per HIP call, {m.group(1)}, {'/'.join(c[0] for c in cells)} threads",
        f"{span(cpu)} CPU-ns; per call median {span([float(c[2]) for c in cells])}, p99 {span([float(c[3]) for c in cells], '{:.0f}')} ns",
        "≤ 150 ns, flat", max(cpu) / 150)
m = re.search(r"roctx push\+pop\s+([\d.]+) ns", ann)
if m:
    row("roctx push + pop, application thread", f"{float(m.group(1)):.1f} ns per range")

# The join and the export of the bench's 608 k-event trace (HOT_PATH_ONLY=finalize).
exp = log("export")
joins = [float(x) for x in re.findall(r"^join\s+\d+ events\s+([\d.]+) ns/event", exp, re.M)]
if joins:
    row("join, bench trace (per event)", f"{span(joins)} ns/event")
for what, label in (("build\\+encode", "build + encode"), ("to a file", "to a file (fsync, rename)")):
    sets = [float(x) for x in re.findall(rf"^export\s+\d+ events {what}\s+([\d.]+) ns/event", exp, re.M)]
    if sets:
        med = statistics.median(sets)
        row(f"export, {label}", f"median {med:.0f} ns/event over {len(sets)} sets ({span(sets, '{:.0f}')}) = {1e3 / med:.1f} M events/s",
            "≥ 5 M events/s", (1e3 / med) / 5)
floor = [float(x) for x in re.findall(r"([\d.]+) ns per event", log("disk"))]
if floor:
    row("durable write alone, 47 MiB (the export's file)", f"{span(floor, '{:.0f}')} ns/event")

# The tool's own heap (heap-stats build) and the process's added peak RSS.
mem = log("memory") + log("memory-maxtext")
by = {}
for m in re.finditer(r"^(\S+)\s+(\d+)\s+[\d.]+\s+(\d+)\s+[\d.]+\s+(\d+)\s+(\d+)\s+(-?\d+)$", mem, re.M):
    by.setdefault(m.group(1), []).append(tuple(int(m.group(i)) for i in range(2, 7)))
for name, runs in by.items():
    held, peak, rss = [r[1] for r in runs], [r[2] for r in runs], [r[4] for r in runs]
    row(f"tool heap when finalize starts, {name} ({runs[0][0]:,} records, held whole)", f"{span(held, '{:.0f}')} B/record", "≤ 64 B", max(held) / 64)
    row(f"tool heap peak, {name}, held whole", f"{span(peak, '{:.0f}')} B/record (process added peak RSS {span(rss, '{:.0f}')} B)",
        "≤ 100 B", max(peak) / 100)

# End to end on the 200 k-launch storm: traced minus the run whose tool callbacks are skipped.
e2e = log("e2e")
m = re.search(r"traced minus baseline.*?\n(.*?)\nper delivered record, baseline", e2e, re.S)
if m:
    part = m.group(1)
    for label, name in (("CPU", "CPU"), ("wall", "wall")):
        x = re.search(rf"^  {label}\s+median\s+(-?[\d.]+) ns\s+range (-?[\d.]+)–(-?[\d.]+)", part, re.M)
        if x:
            v = float(x.group(1))
            row(f"end to end, storm, tool {name} per record", f"median {v:.0f} ns ({x.group(2)}–{x.group(3)})", "≤ 300 ns", v / 300)

# The streaming default against the run held whole (WINDOW_MERGE=0), MaxText-shaped run.
merge = {}
for m in re.finditer(r"^(whole|default)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", log("merge"), re.M):
    merge[m.group(1)] = dict(windows=int(m.group(2)), records=int(m.group(3)), peak=float(m.group(4)), per=int(m.group(5)),
                             rss=int(m.group(6)), rss_per=int(m.group(7)), exit=int(m.group(8)), exit_ns=int(m.group(9)),
                             events=int(m.group(11)), arrows=int(m.group(12)), none=int(m.group(13)))
if {"whole", "default"} <= merge.keys():
    w, d = merge["whole"], merge["default"]
    n = f"{d['records'] / 1e6:.2f} M records"
    row(f"streaming default, tool heap peak ({n})", f"{d['peak']:.0f} MB ({d['per']} B/record, {d['windows']} windows) vs {w['peak']:.0f} MB ({w['per']} B) held whole",
        "default / whole", d["peak"] / w["peak"])
    row(f"streaming default, process peak RSS ({n})", f"{d['rss']:,} MB ({d['rss_per']} B/record) vs {w['rss']:,} MB ({w['rss_per']} B) held whole",
        "default / whole", d["rss"] / w["rss"])
    row(f"streaming default, exit ({n})", f"{d['exit']:,} ms ({d['exit_ns']} ns/record) vs {w['exit']:,} ms ({w['exit_ns']} ns/record) held whole",
        "default / whole", d["exit"] / w["exit"])
    same = d["events"] == w["events"] and d["arrows"] == w["arrows"] and d["none"] == 0
    row("streaming default, the same profile", f"{d['events']:,} events, {d['arrows']:,} arrows, {d['none']} waits without one: "
        + ("as held whole" if same else f"held whole: {w['events']:,} / {w['arrows']:,}"))

# Scale: the MaxText-shaped run from 10 K events up.
for mode, name in (("default", "scale"), ("held whole", "scale-whole")):
    for m in re.finditer(r"^\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+(-?[\d.]+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+([\d.]+)$", log(name), re.M):
        steps, ev, off, on = int(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4))
        whole = "all written" if ev == 240 * steps + 32 else f"{240 * steps + 32 - ev:,} missing"
        row(f"scale, {mode}, {steps:,} steps: {ev:,} events ({whole})",
            f"wall {off:.2f} → {on:.2f} s; added peak RSS {m.group(8)} B/event; file {m.group(9)} B/event",
            "traced / untraced wall", on / off if off > 0 else None)

# The hip-graph-bubbles benchmark.
m = re.search(r"median wall: without (\d+) µs, with (\d+) µs; added per dispatch: (\d+) ns", log("bubbles"))
if m:
    row("graph-bubbles, 128,000 dispatches", f"{int(m.group(1)) / 1e3:.0f} → {int(m.group(2)) / 1e3:.0f} ms, {m.group(3)} ns added per dispatch",
        "traced / untraced wall", int(m.group(2)) / int(m.group(1)))

# Instructions under callgrind (full only).
ins = log("instructions")
m = re.search(r"join ([\d,]+) instructions/event; build \+ encode ([\d,]+) instructions/event", ins)
if m:
    row("instructions, bench trace", f"join {m.group(1)}, build + encode {m.group(2)} per event")
m = re.search(r"finalize ([\d,]+) instructions/record \(join ([\d,]+), write ([\d,]+)\); callbacks' work ([\d,]+)", ins)
if m:
    row("instructions, storm", f"finalize {m.group(1)} (join {m.group(2)}, write {m.group(3)}), callbacks {m.group(4)} per record")

if not rows:
    sys.exit("perf-figures: nothing parsed (see the step logs)")
print(f"\nperf-figures ({size}): SIMULATED runtime and synthetic records, this machine; ratio = measured / target")
widths = [max(len(r[i]) for r in rows + [("figure", "measured", "target", "ratio")]) for i in range(4)]
for r in [("figure", "measured", "target", "ratio")] + rows:
    print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
PY
