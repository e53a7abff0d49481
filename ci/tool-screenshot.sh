#!/usr/bin/env bash
# Screenshot of an xprof tool page on a profile of ours (docs/img; not part of the tests):
# xprof on 127.0.0.1 inside a loopback-only network namespace (it binds every interface),
# headless Chromium driven by Playwright. Google Charts, which xprof's tables and charts load
# from the internet, is replaced by a local stand-in (ci/screenshots/gviz-standin.js): the data
# and the page are xprof's, the drawing of tables and charts is the stand-in's, and says so.
# Needs root (unshare -n), Debian's chromium, node/npm, the xprof venv the tests create.
# Usage: ci/tool-screenshot.sh <LOGDIR> <TOOL> <OUT.png>
#   TOOL: an xprof tool name (kernel_stats, memory_profile, …), or trace_arrows for the trace
#   viewer with every flow event (launch and dependency arrows) switched on.
set -euo pipefail
cd "$(dirname "$0")/.."
logdir=$(realpath "$1"); tool=$2; out=$(realpath -m "$3")
xprof=$PWD/target/xprof-venv/bin/xprof
[[ -x $xprof ]] || { echo "missing $xprof: run the xprof tests once (ci/test.sh)" >&2; exit 1; }
command -v chromium >/dev/null || { echo "missing chromium: apt-get install chromium" >&2; exit 1; }
node_dir=target/screenshot-node
if [[ ! -d $node_dir/node_modules/playwright-core ]]; then
  mkdir -p "$node_dir"
  (cd "$node_dir" && npm init -y >/dev/null && npm install --silent playwright-core@1)
fi
cp ci/screenshots/tool.mjs ci/screenshots/trace-arrows.mjs ci/screenshots/gviz-standin.js "$node_dir/"
run=$(ls "$logdir/plugins/profile" | tail -n1)
exec unshare -n bash -s -- "$xprof" "$logdir" "$out" "$tool" "$run" "$PWD/$node_dir" <<'INNER'
set -euo pipefail
xprof=$1 logdir=$2 out=$3 tool=$4 run=$5 node_dir=$6
ip link set lo up
"$xprof" --logdir "$logdir" --port 6006 >/dev/null 2>&1 &
srv=$!
trap 'kill $srv' EXIT
for _ in $(seq 1 60); do curl -s -o /dev/null http://127.0.0.1:6006/ && break; sleep 1; done
if [[ $tool == trace_arrows ]]; then
  (cd "$node_dir" && timeout 120 node trace-arrows.mjs http://127.0.0.1:6006/ "$run" "$out")
else
  (cd "$node_dir" && timeout 120 node tool.mjs http://127.0.0.1:6006/ "$run" "$tool" "$out")
fi
INNER
