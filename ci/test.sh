#!/usr/bin/env bash
# The project's one test command (README.md). Runs everything CI runs, in order of cost.
# Needs only the Rust toolchain: ci/setup.sh installs what else is missing (libclang and clang
# for the bindings check, a C++ compiler for the ABI check, python3 with venv for xprof).
set -euo pipefail
cd "$(dirname "$0")/.."

ci/setup.sh
if [ "${ROCPROF_XPLANE_SKIP_XPROF:-}" = 1 ]; then
  echo "note: ROCPROF_XPLANE_SKIP_XPROF=1: the real-xprof checks are skipped (they need PyPI once)"
fi

echo "== fmt"; cargo fmt --all -- --check
echo "== clippy"; cargo clippy --workspace --all-targets -- -D warnings
echo "== build"; cargo build --workspace --all-targets
echo "== tests"; cargo test --workspace
echo "== the allocation guards (counting allocators of their own: the system-heap build)"
cargo clippy -p rocprof-xplane --features system-heap --test alloc_guard --test peak_guard -- -D warnings
cargo test -p rocprof-xplane --features system-heap --test alloc_guard --test peak_guard
echo "== the heap-stats measurement build"
# (the libraries only: the guards above have counting allocators of their own)
cargo clippy -p rocprof-xplane -p rocprof-xplane-core --features heap-stats --lib -- -D warnings
# (one test at a time: the count is the whole process's)
cargo test -p rocprof-xplane-core --lib --features heap-stats heap -- --test-threads=1
echo "== the callback edges' machine code and the instruction ceilings (release builds)"
# (the simulator in release too: the ceilings count runs through it)
cargo build --release -p rocprof-sim
cargo test --release -p rocprof-xplane --test edge_code --test instruction_guard
echo "== bindings are fresh"; cargo test -p rocprofiler-sdk-sys --features regen
echo "== ABI conformance against real headers"; ci/abi-check.sh
