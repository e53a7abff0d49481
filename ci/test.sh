#!/usr/bin/env bash
# The project's one test command (README.md). Runs everything CI runs, in order of cost.
# Needs: the Rust toolchain; libclang (bindings freshness check), a C compiler and python3 with
# venv/pip (ABI conformance against real headers, xprof as a test client). `.ci/run` installs them.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== fmt"; cargo fmt --all -- --check
echo "== clippy"; cargo clippy --workspace --all-targets -- -D warnings
echo "== build"; cargo build --workspace --all-targets
echo "== tests"; cargo test --workspace
echo "== bindings are fresh"; cargo test -p rocprofiler-sdk-sys --features regen
echo "== ABI conformance against real headers"; ci/abi-check.sh
