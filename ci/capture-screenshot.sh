#!/usr/bin/env bash
# Screenshots of xprof's "Capture Profile" dialog and of the trace it captured from a running,
# simulated job (docs/img/*-simulated.png; not part of the tests). Everything runs inside a
# private network namespace that has only loopback (xprof binds every interface): the simulated
# job with the profiler service on 127.0.0.1:6009, xprof on 127.0.0.1:6006, and headless
# Chromium driven by Playwright. Needs root (unshare -n), Debian's chromium, node/npm (for
# playwright-core, installed into target/screenshot-node), and the xprof venv the tests create.
# Usage: ci/capture-screenshot.sh [OUT_DIR]   (default docs/img)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-docs/img}")
xprof=$PWD/target/xprof-venv/bin/xprof
[[ -x $xprof ]] || { echo "missing $xprof: run the xprof tests once (ci/test.sh)" >&2; exit 1; }
command -v chromium >/dev/null || { echo "missing chromium: apt-get install chromium" >&2; exit 1; }
node_dir=target/screenshot-node
if [[ ! -d $node_dir/node_modules/playwright-core ]]; then
  mkdir -p "$node_dir"
  (cd "$node_dir" && npm init -y >/dev/null && npm install --silent playwright-core@1)
fi
cargo build --release --workspace --quiet
mkdir -p "$out"
work=$(mktemp -d)
cp ci/screenshots/capture.mjs "$node_dir/"
exec unshare -n bash -s -- "$PWD" "$xprof" "$work" "$out" "$node_dir" <<'INNER'
set -euo pipefail
root=$1 xprof=$2 work=$3 out=$4 node_dir=$5
ip link set lo up
ROCP_TOOL_LIBRARIES=$root/target/release/librocprof_xplane.so ROCPROF_XPLANE_SERVER=127.0.0.1:6009 \
  "$root/target/release/rocprof-sim" "$root/scenarios/live-capture.toml" --sdk 1.0.0 >"$work/job.log" 2>&1 &
job=$!
mkdir -p "$work/logdir"
"$xprof" --logdir "$work/logdir" --port 6006 >"$work/xprof.log" 2>&1 &
srv=$!
trap 'kill $srv $job 2>/dev/null || true' EXIT
for _ in $(seq 1 60); do curl -s -o /dev/null http://127.0.0.1:6006/ && break; sleep 1; done
(cd "$root/$node_dir" && timeout 180 node capture.mjs http://127.0.0.1:6006/ 127.0.0.1:6009 \
  "$out/capture-profile-dialog-simulated.png" "$out/captured-trace-simulated.png")
echo "wrote $out/capture-profile-dialog-simulated.png and $out/captured-trace-simulated.png"
INNER
