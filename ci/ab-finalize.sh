#!/usr/bin/env bash
# Finalize's phases for two builds of the tool, run alternately on one scenario in the
# SIMULATED runtime (test infrastructure, not hardware): per run, the debug log's flush +
# drain, join and write laps, finalize's own time and its helper threads'; then the median and
# range of each per build. Alternating puts both builds through the shared VM's slow and fast
# periods alike. Not a test: figures for docs/performance.md.
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
import re, sys
log = open(sys.argv[2]).read()
p = re.search(r"flush \+ drain ([\d.]+) ms, join ([\d.]+) ms, write ([\d.]+) ms", log)
f = re.search(r"finalize ([\d.]+) ms and ([\d.]+) ms on its helper threads", log)
print(sys.argv[1], *p.groups(), *f.groups())
PY
    tail -1 "$work/runs"
  done
done
python3 - "$old" "$new" "$work/runs" <<'PY'
import statistics, sys
old, new, runs = sys.argv[1], sys.argv[2], [l.split() for l in open(sys.argv[3])]
names = ["flush+drain", "join", "write", "finalize", "helpers"]
for so, label in ((old, "old"), (new, "new")):
    rows = [list(map(float, r[1:])) for r in runs if r[0] == so]
    cols = ", ".join(
        f"{n} {statistics.median(c):.0f} ms ({min(c):.0f}-{max(c):.0f})"
        for n, c in zip(names, zip(*rows)))
    print(f"{label} ({len(rows)} runs): {cols}")
PY
