#!/usr/bin/env bash
# Whether two builds of the tool write the same profile: each scenario runs in the SIMULATED
# runtime (test infrastructure, not hardware) once per tool library, every event and stat of
# the file is listed (`rocprof-xplane inspect --events`), and the listings are compared after
# taking out what differs between any two runs of one build: thread ids (in line names and in a roctx line's id), flow
# ids (salted with the pid), the times (made relative to the file's first event), the lines'
# timestamps, the clocks' readings at the profile's start and end, and the duration of a roctx
# range left open at exit (it ends at the exit).
# Prints one line per scenario; exits non-zero when any differs.
# Not a test: a check for changes meant to leave the output as it was (performance work).
# Usage: ci/compare-output.sh OLD.so NEW.so SCENARIO.toml...
# (OLD.so from a worktree of the older commit: `git worktree add /tmp/old <commit>` and
# `cargo build --release` there.)
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n '2,12p' "$0" >&2; exit 2; }
old=$(realpath "$1"); new=$(realpath "$2"); shift 2
cd "$(dirname "$0")/.."
cargo build --release --quiet --workspace
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
normalize() { # LISTING: thread ids and times made comparable, in place
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
tids = []
for m in re.finditer(r'Host Threads/(\d+)', text):
    if m.group(1) not in tids:
        tids.append(m.group(1))
names = {t: f'TID{i}' for i, t in enumerate(tids)}
tid_re = re.compile(r'\b(%s)\b' % '|'.join(sorted(names, key=len, reverse=True))) if names else None
# A roctx line's id is its thread's id (below 2^22) with its kind and lane above
# (xplane::lanes): the thread's part is renamed, the rest kept.
line_re = re.compile(r'^ LINE (\d+) ')
def line_id(m):
    v = int(m.group(1))
    tid, rest = str(v & ((1 << 22) - 1)), v >> 22
    return ' LINE %s+%d ' % (names[tid], rest) if rest and tid in names else m.group(0)
time_re = re.compile(r' T(-?\d+) ')
lines = text.split('\n')
times = [int(m.group(1)) for l in lines for m in [time_re.search(l)] if m]
base = min(times) if times else 0
# A flow's id is salted with the host and pid (xplane::deps): numbered by first appearance.
flows = {}
flow_re = re.compile(r'\bflow=(\d+)')
def flow(m):
    return 'flow=F%d' % flows.setdefault(m.group(1), len(flows))
out = []
for l in lines:
    l = flow_re.sub(flow, l)
    # A range still open at exit ends at the exit: its duration is the run's, not the data's.
    if 'open_at_end=1' in l:
        l = re.sub(r'^(  .* T-?\d+) \d+ ', r'\1 X ', l)
    l = time_re.sub(lambda m: ' T%d ' % (int(m.group(1)) - base), l)
    if l.startswith(' LINE') or l.startswith('PLANE'):
        l = line_re.sub(line_id, l)
        l = re.sub(r'ts \d+', 'ts X', l)
        l = re.sub(r'(profile_st\w+_time|rocprof_xplane_origin_boottime_ns|rocprof_xplane_clock_\w+_ns)=\d+', r'\1=X', l)
        if tid_re:
            l = tid_re.sub(lambda m: names[m.group(1)], l)
    out.append(l)
open(sys.argv[1], 'w').write('\n'.join(out))
PY
}
listing() { # SO SCENARIO OUT
  rm -rf "$work/run"
  ROCP_TOOL_LIBRARIES=$1 ROCPROF_XPLANE_OUTPUT_DIR="$work/run" \
    target/release/rocprof-sim "$2" >/dev/null 2>&1
  for f in "$work"/run/plugins/profile/*/*.xplane.pb; do
    target/release/rocprof-xplane inspect --events "$f"
  done >"$3"
  normalize "$3"
}
status=0
for sc in "$@"; do
  name=$(basename "$sc" .toml)
  listing "$old" "$sc" "$work/old.txt"
  listing "$new" "$sc" "$work/new.txt"
  if cmp -s "$work/old.txt" "$work/new.txt"; then
    echo "$name: same ($(wc -l <"$work/old.txt") lines)"
  else
    echo "$name: DIFFERS in $(diff "$work/old.txt" "$work/new.txt" | grep -c '^[<>]') lines:"
    diff "$work/old.txt" "$work/new.txt" | head -8 || true
    status=1
  fi
done
exit $status
