#!/usr/bin/env bash
# What periodic device counters (ROCPROF_XPLANE_PMC_INTERVAL) cost, in the SIMULATED runtime
# (test infrastructure, not hardware), release build. Each round runs
# scenarios/device-counters.toml (0.8 s of paced work on two simulated GPUs) twice, back to back:
#   plain    the tool tracing, no counters;
#   sampled  the same, reading GRBM_GUI_ACTIVE, GRBM_COUNT, SQ_WAVES and
#            SQ_INSTS_VALU_FMA_F32 of both GPUs every INTERVAL seconds;
# and prints, from the tool's debug lines:
#   * the sampling thread's CPU time per read (both GPUs: sample, flush, name, sum, hand to the
#     recorder) — the simulator computing the values is part of it, so an upper bound of the
#     tool's part; what a read costs the real SDK and GPU is not measured here;
#   * the callbacks on application threads (count and ns each), plain and sampled: the sampling
#     thread adds none, so the count must be the same and the time per callback within noise.
# Figures are medians over the rounds, with the rounds' range. Not a test: figures for
# docs/counters.md.
# Usage: ci/bench-device-counters.sh [ROUNDS] [INTERVAL]   (default 5 rounds, 0.001 s)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
interval=${2:-0.001}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release -p rocprof-xplane -p rocprof-sim --quiet
tool=$PWD/target/release/librocprof_xplane.so
sim=$PWD/target/release/rocprof-sim

run() { # plain|sampled -> "reads cpu_us_per_read callbacks ns_per_callback"
  local env=(ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_LOG=debug)
  [[ $1 == sampled ]] && env+=(ROCPROF_XPLANE_PMC_INTERVAL="$interval" ROCPROF_XPLANE_PMC=SQ_WAVES,SQ_INSTS_VALU_FMA_F32)
  rm -rf "$work/out"
  env "${env[@]}" ROCPROF_XPLANE_OUTPUT_DIR="$work/out" \
    "$sim" scenarios/device-counters.toml >/dev/null 2>"$work/err" || {
    cat "$work/err" >&2
    exit 1
  }
  python3 - "$work/err" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"device counters: (\d+) reads, sampling thread CPU ([\d.]+) µs per read", t)
reads, cpu = (m.group(1), m.group(2)) if m else ("0", "0")
c = re.search(r"tool time: (\d+) callbacks [\d.]+ ms \((\d+) ns each\)", t)
print(reads, cpu, c.group(1), c.group(2))
PY
}

: >"$work/rows"
for _ in $(seq 1 "$rounds"); do
  echo "$(run plain) $(run sampled)" >>"$work/rows"
done
python3 - "$interval" "$work/rows" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
med = lambda v: f"{statistics.median(v):.1f} (rounds {min(v):.1f} … {max(v):.1f})"
print(f"interval {sys.argv[1]} s, {len(rows)} rounds, simulated runtime (not hardware)")
print(f"reads per run: {med([r[4] for r in rows])}")
print(f"sampling thread CPU per read (2 GPUs, 4 counters each), µs: {med([r[5] for r in rows])}")
print(f"application-thread callbacks, plain: {med([r[2] for r in rows])}, sampled: {med([r[6] for r in rows])}")
print(f"ns per application-thread callback, plain: {med([r[3] for r in rows])}, sampled: {med([r[7] for r in rows])}")
PY
