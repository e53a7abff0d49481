#!/usr/bin/env bash
# Builds the `hot_path` bench (release, not run) and prints its executable's path: for scripts
# that run it under a tool (ci/bench-instructions.sh under callgrind, ci/write-io.sh under
# strace), which need the binary itself rather than `cargo bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench -p rocprof-xplane --bench hot_path --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "hot_path":
        print(m["executable"])'
