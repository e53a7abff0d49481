#!/usr/bin/env bash
# Whether real xprof's tools depend on the order of the events in a line: a question for the
# streaming join (docs/architecture.md), which would write a line's events segment by
# segment. Runs SCENARIO in the SIMULATED runtime (test infrastructure, not hardware), writes a
# copy of its profile with every line's events reversed (ci/reverse-lines.py: the same events,
# byte for byte), and prints, for each summary tests/xprof/xprof_summary.py makes (trace
# viewer, kernel_stats, overview_page, framework_op_stats), whether xprof gives the same for
# both. The trace viewer's launch flows are compared as multisets (their ids are xprof's own).
# Needs the test venv of real xprof (target/xprof-venv: made by the first test that uses it,
# e.g. `cargo test --test xprof_simulated`). Not a test: a finding for docs/architecture.md.
# Usage: ci/line-order.sh SCENARIO.toml
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=$1
py=target/xprof-venv/bin/python3
[[ -x $py ]] || { echo "needs target/xprof-venv (run: cargo test --test xprof_simulated)" >&2; exit 1; }
cargo build --release --quiet -p rocprof-xplane -p rocprof-sim
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
ROCP_TOOL_LIBRARIES="$PWD/target/release/librocprof_xplane.so" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" \
  target/release/rocprof-sim "$scenario" >/dev/null 2>&1
file=$(ls "$work"/out/plugins/profile/*/*.xplane.pb)
host=$(basename "$file" .xplane.pb)
python3 ci/reverse-lines.py "$file" "$work/reversed.xplane.pb"
# xprof logs every step on stderr: kept apart, shown only when a conversion fails.
$py tests/xprof/xprof_summary.py "$file" --host "$host" >"$work/a.json" 2>"$work/xprof.err" ||
  { tail -20 "$work/xprof.err" >&2; exit 1; }
$py tests/xprof/xprof_summary.py "$work/reversed.xplane.pb" --host "$host" >"$work/b.json" \
  2>"$work/xprof.err" || { tail -20 "$work/xprof.err" >&2; exit 1; }
python3 - "$work/a.json" "$work/b.json" "$(basename "$scenario")" <<'PY'
import json, sys
a, b, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
def flows(t):
    return sorted(json.dumps(v, sort_keys=True) for v in t.get("flows", {}).values())
for key in ["trace", "kernel_stats", "overview", "framework_op_stats"]:
    x, y = a.get(key), b.get(key)
    if key == "trace" and x and y:
        same_flows = flows(x) == flows(y)
        x = {k: v for k, v in x.items() if k != "flows"}
        y = {k: v for k, v in y.items() if k != "flows"}
        print(f"{name}: trace without flows {'same' if x == y else 'DIFFERS'}; launch flows {'same' if same_flows else 'DIFFER'}")
        continue
    if x == y:
        print(f"{name}: {key} same")
        continue
    diffs = [k for k in sorted(set(x) | set(y)) if x.get(k) != y.get(k)] if isinstance(x, dict) and isinstance(y, dict) else []
    print(f"{name}: {key} DIFFERS: " + "; ".join(f"{k}: {x.get(k)} -> {y.get(k)}" for k in diffs[:4]))
PY
