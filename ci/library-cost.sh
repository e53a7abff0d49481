#!/usr/bin/env bash
# What the tool library costs a program that loads it, before it records anything: the size of
# the stripped .so, its code by crate (symbol sizes from `nm -S`, so generic code instantiated
# from one crate but named after another — `core::`, `alloc::` — is counted under the latter),
# the share of the profiler service's stack (tonic, hyper, h2, tokio, http, axum, …), and the
# time to dlopen it (RTLD_NOW, in fresh python3 processes; median of N).
# Not a test: figures for docs/architecture.md. Usage: ci/library-cost.sh [N=9]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-9}
cargo build --release -p rocprof-xplane --quiet
so=target/release/librocprof_xplane.so
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
strip -o "$work/tool.so" "$so"
echo "stripped .so: $(stat -c %s "$work/tool.so") bytes"
nm -S --size-sort -C "$so" | python3 -c '
import collections, re, sys
service = {"tonic", "tokio", "hyper", "h2", "tower", "http", "http_body", "http_body_util", "axum",
           "matchit", "httparse", "bytes", "mio", "socket2", "percent_encoding", "indexmap",
           "futures_util", "futures_core", "pin_project", "tower_layer", "tower_service", "tonic_prost"}
by, total = collections.Counter(), 0
for line in sys.stdin:
    p = line.split(" ", 3)
    if len(p) < 4:
        continue
    size = int(p[1], 16)
    total += size
    m = re.search(r"\b([a-z_][a-z0-9_]*)::", p[3])
    by[m.group(1) if m else "(unnamed)"] += size
svc = sum(v for k, v in by.items() if k in service)
print(f"code and data in symbols: {total} bytes")
print(f"the profiler service stack: {svc} bytes ({100 * svc / total:.0f} %)")
for k, v in by.most_common(12):
    print(f"  {k:24s} {v:>9d}")
'
for _ in $(seq "$n"); do
  python3 -c 'import ctypes, os, sys, time
t = time.perf_counter(); ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW)
print((time.perf_counter() - t) * 1e3)' "$work/tool.so"
done | sort -n | awk '{a[NR]=$1} END {printf "dlopen (RTLD_NOW): median %.2f ms, min %.2f, max %.2f over %d runs\n", a[int((NR+1)/2)], a[1], a[NR], NR}'
