#!/usr/bin/env bash
# Finalize's phases for two builds of the tool, run alternately on one scenario in the
# SIMULATED runtime (test infrastructure, not hardware): per run, the debug log's flush +
# drain, join and write laps, finalize's own time and its helper threads', and each join pass's
# lap (a pass run beside another on a helper thread is named with `+`); then the median and
# range of each per build. Alternating puts both builds through the shared VM's slow and fast
# periods alike. The environment passes through: `ROCPROF_XPLANE_WRITE_THREADS=1` keeps the
# write on one thread, `taskset -c 1 ci/ab-finalize.sh …` pins every run to one CPU. Not a
# test: figures for docs/performance.md.
# Usage: ci/ab-finalize.sh SCENARIO ROUNDS OLD.so NEW.so
#   (OLD.so from a worktree of the older commit: `git worktree add /tmp/old <commit>` and
#   `cargo build --release -p rocprof-xplane` there.)
set -euo pipefail
[[ $# -eq 4 ]] || { sed -n '2,8p' "$0" >&2; exit 2; }
scenario=$(realpath "$1"); rounds=$2; old=$(realpath "$3"); new=$(realpath "$4")
cd "$(dirname "$0")/.."
cargo build --release --quiet -p rocprof-sim
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for _ in $(seq "$rounds"); do
  for so in "$old" "$new"; do
    rm -rf "$work/out"
    ROCPROF_XPLANE_LOG=debug ROCP_TOOL_LIBRARIES="$so" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" \
      target/release/rocprof-sim "$scenario" >/dev/null 2>"$work/log"
    python3 - "$so" "$work/log" >>"$work/runs" <<'PY'
import json, re, sys
log = open(sys.argv[2]).read()
p = re.search(r"flush \+ drain ([\d.]+) ms, join ([\d.]+) ms, write ([\d.]+) ms", log)
f = re.search(r"finalize ([\d.]+) ms and ([\d.]+) ms on its helper threads", log)
laps = dict(zip(["flush+drain", "join", "write", "finalize", "helpers"],
                map(float, p.groups() + f.groups())))
passes = re.search(r"join passes: (.*)", log)
for m in re.finditer(r"(\[)?([a-z][a-z' ]*?) ([\d.]+) ms", re.sub(r"\(rss[^)]*\)", "", passes.group(1) if passes else "")):
    laps[("+ " if m.group(1) else "") + m.group(2)] = float(m.group(3))
print(json.dumps([sys.argv[1], laps]))
PY
    tail -1 "$work/runs"
  done
done
python3 - "$old" "$new" "$work/runs" <<'PY'
import json, statistics, sys
old, new = sys.argv[1], sys.argv[2]
runs = [json.loads(l) for l in open(sys.argv[3])]
for so, label in ((old, "old"), (new, "new")):
    rows = [laps for r, laps in runs if r == so]
    names = list(dict.fromkeys(n for laps in rows for n in laps))
    cols = ", ".join(
        f"{n} {statistics.median(c):.1f} ms ({min(c):.1f}-{max(c):.1f})"
        for n in names for c in [[laps[n] for laps in rows if n in laps]])
    print(f"{label} ({len(rows)} runs): {cols}")
PY
