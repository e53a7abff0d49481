#!/usr/bin/env bash
# Screenshot of xprof's trace viewer on a run directory, for docs (not part of the tests).
# The xprof server binds every interface, so it runs inside a private network namespace that has
# only loopback; headless Chromium runs in the same namespace. Needs root (unshare -n), Debian's
# `chromium`, and the xprof venv the tests create (target/xprof-venv).
# Usage: ci/xprof-screenshot.sh <LOGDIR> <OUT.png> [TOOL]   (TOOL default: trace_viewer@)
# xprof's table/chart tools load Google Charts from the internet, so only the trace viewer renders
# offline.
set -euo pipefail
cd "$(dirname "$0")/.."
logdir=$(realpath "$1"); out=$(realpath -m "$2"); tool=${3:-trace_viewer@}
xprof=target/xprof-venv/bin/xprof
[[ -x $xprof ]] || { echo "missing $xprof: run the xprof tests once (ci/test.sh)" >&2; exit 1; }
command -v chromium >/dev/null || { echo "missing chromium: apt-get install chromium" >&2; exit 1; }
run=$(ls "$logdir/plugins/profile" | tail -n1)
exec unshare -n bash -s -- "$xprof" "$logdir" "$out" "$tool" "$run" <<'INNER'
set -euo pipefail
xprof=$1 logdir=$2 out=$3 tool=$4 run=$5
ip link set lo up
"$xprof" --logdir "$logdir" --port 6006 >/dev/null 2>&1 &
srv=$!
trap 'kill $srv' EXIT
for _ in $(seq 1 60); do curl -s -o /dev/null http://127.0.0.1:6006/ && break; sleep 1; done
profile=$(mktemp -d)
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --window-size=1600,1000 --virtual-time-budget=25000 \
  --screenshot="$out" "http://127.0.0.1:6006/?run=${run}&tool=${tool}" >/dev/null 2>&1
echo "wrote $out"
INNER
