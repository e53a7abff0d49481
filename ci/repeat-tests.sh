#!/usr/bin/env bash
# Runs the whole test suite N times in a row (default 20) beside a CPU hog (two busy `yes`
# processes on this 2-core class of machine), to catch tests that flake under load. Prints one
# line per run and a final "N passed, M failed" line; logs of failed runs stay in target/.
# Needs a prior build (ci/test.sh, or `cargo build --workspace --all-targets`).
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"
hogs=()
for _ in 1 2; do
  yes >/dev/null &
  hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
pass=0
fail=0
for i in $(seq 1 "$runs"); do
  log="target/repeat-tests-$i.log"
  if cargo test -q --workspace >"$log" 2>&1; then
    pass=$((pass + 1))
    rm -f "$log"
  else
    fail=$((fail + 1))
    echo "run $i failed: $log"
  fi
  echo "run $i: $pass passed, $fail failed"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
