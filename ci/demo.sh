#!/usr/bin/env bash
# The main job on a machine without a GPU: build, run the real tool .so inside the simulated
# rocprofiler-sdk runtime, and summarise the XPlanes it wrote. Two examples:
#  1. scenarios/graph-launch.toml into out/demo: a HIP graph launched 20 times;
#  2. scenarios/train-loop.toml into out/demo-train-loop: two training loops whose steps are
#     marked as JAX and PyTorch mark them, which xprof's overview, input pipeline and pod viewer
#     group into steps.
# Usage: ci/demo.sh                                  both examples
#        ci/demo.sh SCENARIO [OUTPUT_DIR] [SDK_VERSION]   one scenario (default out/demo, 1.0.0)
set -euo pipefail
cd "$(dirname "$0")/.."

run_one() {
  local scenario=$1 out=$2 sdk=$3
  target/release/rocprof-xplane simulate "$scenario" --output-dir "$out" --sdk "$sdk"
  for f in "$out"/plugins/profile/*/*.xplane.pb; do
    target/release/rocprof-xplane inspect "$f"
  done
}

cargo build --release --workspace --quiet
if [[ $# -gt 0 ]]; then
  run_one "$1" "${2:-out/demo}" "${3:-1.0.0}"
  exit 0
fi
echo "== example 1: a HIP graph launched 20 times (scenarios/graph-launch.toml)"
run_one scenarios/graph-launch.toml out/demo 1.0.0
echo
echo "== example 2: two training loops, steps marked the JAX and the PyTorch way (scenarios/train-loop.toml)"
echo "   (in xprof: the overview page's 12 steps of 5.6 ms, the same steps in the input pipeline and"
echo "   pod viewer, and each GPU's Steps, Launch Stats and, for the graph-launched pass, Command Buffers rows)"
run_one scenarios/train-loop.toml out/demo-train-loop 1.4.0
