#!/usr/bin/env bash
# The main job on a machine without a GPU: build, run the real tool .so inside the simulated
# rocprofiler-sdk runtime on the HIP-graph scenario, and summarise the XPlane it wrote.
# Usage: ci/demo.sh [SCENARIO] [OUTPUT_DIR] [SDK_VERSION]
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:-scenarios/graph-launch.toml}
out=${2:-out/demo}
sdk=${3:-1.0.0}
cargo build --release --workspace --quiet
target/release/rocprof-xplane simulate "$scenario" --output-dir "$out" --sdk "$sdk"
for f in "$out"/plugins/profile/*/*.xplane.pb; do
  target/release/rocprof-xplane inspect "$f"
done
