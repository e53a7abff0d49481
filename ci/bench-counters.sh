#!/usr/bin/env bash
# What per-dispatch hardware counters (ROCPROF_XPLANE_PMC) add per kernel dispatch, as process
# CPU time (user + system, every thread) and wall time, in the SIMULATED runtime (test
# infrastructure, not hardware), release build. Each round runs scenarios/counters.toml with its
# launch loop repeated REPEAT times (8 dispatches per repeat, on four simulated GPUs) twice,
# back to back:
#   plain     the tool tracing, no counters;
#   counters  the same with ROCPROF_XPLANE_PMC set to the 9 counters docs/counters.md uses
#             for FLOPs and bytes on gfx942 (the other GPUs collect what they offer of them).
# and prints, per dispatch, counters minus plain: the tool's work for the counter records
# (dispatch callback, decode, naming, summing, the derived metrics, the stats and the counter
# line written) PLUS the simulator's making of those records, so an upper bound of the tool's
# part. It says nothing of the real SDK's cost, which serialises kernels (docs/counters.md).
# Figures are medians over the rounds of the per-round difference, with the rounds' range.
# Not a test: figures for docs/counters.md.
# Usage: ci/bench-counters.sh [ROUNDS] [REPEAT]   (default 5 rounds, 2500 repeats = 20,000 dispatches)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
repeat=${2:-2500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s/repeat = 3,/repeat = $repeat,/" scenarios/counters.toml >"$work/bench.toml"
grep -q "repeat = $repeat," "$work/bench.toml"
pmc=SQ_WAVES,GRBM_GUI_ACTIVE,SQ_INSTS_VALU_FMA_F32,SQ_INSTS_VALU_FMA_F64,SQ_INSTS_VALU_MFMA_MOPS_BF16,TCC_BUBBLE,TCC_EA0_RDREQ,TCC_EA0_WRREQ,TCC_EA0_WRREQ_64B
cargo build --release -p rocprof-xplane -p rocprof-sim --quiet
tool=$PWD/target/release/librocprof_xplane.so
sim=$PWD/target/release/rocprof-sim
dispatches=$((repeat * 8))

run() { # plain|counters -> "wall user sys"
  local env=(ROCP_TOOL_LIBRARIES="$tool")
  [[ $1 == counters ]] && env+=(ROCPROF_XPLANE_PMC="$pmc")
  rm -rf "$work/out"
  env "${env[@]}" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" /usr/bin/time -f '%e %U %S' \
    -o "$work/time" "$sim" "$work/bench.toml" >/dev/null 2>"$work/err" || {
    cat "$work/err" >&2
    exit 1
  }
  cat "$work/time"
}

: >"$work/rows"
for r in $(seq 1 "$rounds"); do
  echo "$(run plain) $(run counters)" >>"$work/rows"
done
python3 - "$dispatches" "$work/rows" <<'PY'
import statistics, sys
n = int(sys.argv[1])
rows = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
def per(i, j):  # (counters - plain) per dispatch, µs
    return [((r[j] - r[i])) / n * 1e6 for r in rows]
cpu = [((r[4] + r[5]) - (r[1] + r[2])) / n * 1e6 for r in rows]
wall = per(0, 3)
fmt = lambda v: f"{statistics.median(v):.2f} µs (rounds {min(v):.2f} … {max(v):.2f})"
print(f"{n} dispatches, {len(rows)} rounds, simulated runtime (not hardware)")
print(f"added CPU per dispatch with counters: {fmt(cpu)}")
print(f"added wall per dispatch with counters: {fmt(wall)}")
PY
