#!/usr/bin/env bash
# The floor under "export to a file": writing BYTES to a file in the output's directory and
# making it durable (`dd conv=fsync`, as the tool fsyncs its file before the rename), three
# times; prints the rate and the time per event for EVENTS events. Not a test: the physical
# floor beside the export figures in docs/performance.md.
# Usage: ci/disk-floor.sh MIB EVENTS [DIR]   (e.g. `ci/disk-floor.sh 47 608250`: the hot_path
# export's file, 77.3 B per event)
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,7p' "$0" >&2; exit 2; }
mib=$1; events=$2; dir=${3:-${TMPDIR:-/tmp}}
f=$(mktemp -p "$dir" disk-floor.XXXXXX); trap 'rm -f "$f"' EXIT
for _ in 1 2 3; do
  s=$(dd if=/dev/zero of="$f" bs=1M count="$mib" conv=fsync 2>&1 | tail -1 | awk '{print $(NF-3)}')
  awk -v s="$s" -v b="$((mib * 1048576))" -v n="$events" \
    'BEGIN { printf "%d MiB durable in %.3f s: %.0f MB/s, %.0f ns per event\n", b / 1048576, s, b / s / 1e6, s * 1e9 / n }'
done
