#!/usr/bin/env bash
# Time and memory of the tool from ~10 K to ~20 M events: scenarios/maxtext-scale.toml (8 GPUs,
# 8 threads; 240 events per step) scaled, run in the simulated runtime (test infrastructure, not
# hardware) with and without the tool, in release builds. Prints one row per size: events in
# the file, wall time without/with the tool, the added time per event, peak RSS without/with,
# the added peak per event, the file's bytes per event. Not a test: figures for
# docs/performance.md. Usage: ci/bench-scale.sh [STEPS...]   (default 42 420 4200 36500 83400)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
cargo build --release --workspace --quiet
steps=("$@"); ((${#steps[@]})) || steps=(42 420 4200 36500 83400)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
printf '%10s %8s %10s %10s %9s %10s %10s %9s %7s\n' steps events wall_off_s wall_on_s add_us/ev rss_off_MB rss_on_MB add_B/ev file_B/ev
for n in "${steps[@]}"; do
  sc="$work/scale.toml"
  sed "s/repeat = 36500/repeat = $n/" scenarios/maxtext-scale.toml >"$sc"
  /usr/bin/time -f '%e %M' -o "$work/off" target/release/rocprof-sim "$sc" >/dev/null 2>&1
  rm -rf "$work/logs"
  ROCP_TOOL_LIBRARIES="$PWD/target/release/librocprof_xplane.so" \
  ROCPROF_XPLANE_OUTPUT_DIR="$work/logs" ROCPROF_XPLANE_RUN_NAME=scale ROCPROF_XPLANE_LOG=error \
    /usr/bin/time -f '%e %M' -o "$work/on" target/release/rocprof-sim "$sc" >/dev/null 2>&1
  f=$(ls "$work"/logs/plugins/profile/scale/*.xplane.pb)
  ev=$(target/release/rocprof-xplane inspect --json "$f" | python3 -c '
import json,sys; c=json.load(sys.stdin)["event_counts"]; print(sum(v for k,v in c.items() if k!="other"))')
  read -r w0 m0 <"$work/off"; read -r w1 m1 <"$work/on"
  size=$(stat -c %s "$f")
  python3 - "$n" "$ev" "$w0" "$w1" "$m0" "$m1" "$size" <<'PY'
import sys
n, ev, w0, w1, m0, m1, size = sys.argv[1:]
ev = int(ev); w0, w1 = float(w0), float(w1); m0, m1 = int(m0), int(m1)
print(f"{int(n):>10} {ev:>8} {w0:>10.2f} {w1:>10.2f} {(w1-w0)*1e6/ev:>9.2f} {m0/1024:>10.0f} {m1/1024:>10.0f} {(m1-m0)*1024/ev:>9.0f} {int(size)/ev:>7.1f}")
PY
done
