#!/usr/bin/env bash
# Where the profile's bytes go when it is written: into the output, into the unlinked files
# that hold a plane's lines until its turn in the output (`xplane::spill`), and copied from
# those files into the output; with the time the write, copy, writeback and fsync calls took.
# A plane that is set aside is written twice and copied once; one that goes straight into the
# output, once. Runs SCENARIO once under `strace -f` in the SIMULATED runtime (test
# infrastructure, not hardware) with the tool's debug log, whose finalize line it prints first.
# strace slows every call it traces, so the times are for comparing builds, not absolute.
# `bench` for SCENARIO runs the hot_path bench's export instead (`HOT_PATH_ONLY=finalize
# HOT_PATH_REPEAT=1`: its three writes to a file, and its five encodes that write nothing),
# of the tree the script is in, and prints the bench's export lines.
# Renames are counted too (their time: a rename over an existing file frees its blocks).
# Not a test: figures for docs/performance.md. Needs strace (apt-get install strace).
# Usage: ci/write-io.sh SCENARIO.toml|bench [TOOL.so]   (default tool: target/release's)
set -euo pipefail
[[ $# -ge 1 ]] || { sed -n '2,14p' "$0" >&2; exit 2; }
[[ $1 == bench ]] && scenario=bench || scenario=$(realpath "$1")
cd "$(dirname "$0")/.."
command -v strace >/dev/null || { echo "needs strace (apt-get install strace)" >&2; exit 1; }
cargo build --release --quiet -p rocprof-xplane -p rocprof-sim
tool=$(realpath "${2:-target/release/librocprof_xplane.so}")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
calls=write,writev,pwrite64,sendfile,splice,copy_file_range,fsync,sync_file_range,rename
if [[ $scenario == bench ]]; then
  bench=$(ci/hot-path-bench.sh)
  HOT_PATH_ONLY=finalize HOT_PATH_REPEAT=1 strace -f -y -T -o "$work/strace" -e trace="$calls" \
    "$bench" --bench 2>&1 | grep -E '^export' || true
else
  ROCP_TOOL_LIBRARIES="$tool" ROCPROF_XPLANE_LOG=debug ROCPROF_XPLANE_OUTPUT_DIR="$work/out" \
    strace -f -y -T -o "$work/strace" -e trace="$calls" \
    target/release/rocprof-sim "$scenario" >/dev/null 2>"$work/log"
  grep -E "finalize: flush" "$work/log" | sed 's/^rocprof-xplane: //' || true
fi
python3 - "$work/strace" <<'PY'
import collections, re, sys
# A call is one line, or (another thread's call in between) an "<unfinished ...>" line whose
# descriptor and path the "<... resumed>" line's result completes.
size, secs, pending = collections.Counter(), collections.Counter(), {}
def count(call, path, ret, dt):
    where = ("set-aside lines" if "rocprof-xplane-lines" in path
             else "output" if ".xplane.pb" in path else "other")
    what = {"copy_file_range": "copied from " + where,
            "fsync": "fsync", "sync_file_range": "writeback started"}.get(call, "written to " + where)
    size[what] += max(0, int(ret)) if what.startswith(("written", "copied")) else 0
    secs[what] += float(dt)
for line in open(sys.argv[1]):
    m = re.match(r"(\d+)\s+(\w+)\(\d+<([^>]*)>.*<unfinished", line)
    if m:
        pending[m.group(1)] = m.group(2, 3)
        continue
    m = re.match(r"(\d+)\s+<\.\.\. (\w+) resumed>.*=\s+(-?\d+)\s+<([\d.]+)>", line)
    if m and m.group(1) in pending:
        count(*pending.pop(m.group(1)), m.group(3), m.group(4))
        continue
    m = re.match(r"\d+\s+(\w+)\(\d+<([^>]*)>.*=\s+(-?\d+)\s+<([\d.]+)>", line)
    if m:
        count(*m.groups())
        continue
    m = re.match(r"\d+\s+rename\(.*=\s+-?\d+\s+<([\d.]+)>", line)
    if m:
        size["renames"] += 1
        secs["renames"] += float(m.group(1))
for what in sorted(size):
    if what == "renames":
        print(f"{what:32} {size[what]:9d}    {secs[what] * 1e3:9.1f} ms")
    elif what != "written to other":
        print(f"{what:32} {size[what] / 1e6:9.1f} MB {secs[what] * 1e3:9.1f} ms")
PY
