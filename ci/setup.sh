#!/usr/bin/env bash
# Installs what the test command needs beyond the Rust toolchain, on a fresh Debian machine,
# and nothing when it is already there (so developers and CI run the same steps):
#   - clang + libclang with its resource headers (bindings freshness check, ABI check's C++);
#   - rustfmt and clippy;
#   - python3 with venv (the xprof tests create target/xprof-venv and pip-install the pinned
#     xprof there on first use; the ABI check downloads a wheel with pip);
#   - strace (tests that count the fsyncs of a run);
#   - valgrind (the instruction ceilings, tests/instruction_guard.rs).
# Needs root for apt (CI and these machines run as root); otherwise it says what is missing.
set -euo pipefail

need_apt=()
# libclang must find its own resource headers (stddef.h), or bindgen fails in odd ways.
if ! command -v clang >/dev/null 2>&1 \
   || ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 \
   || ! echo '#include <stddef.h>' | clang -E -x c - >/dev/null 2>&1; then
  need_apt+=(libclang-dev clang)
fi
command -v c++ >/dev/null 2>&1 || need_apt+=(g++)
# The tests that count a run's fsyncs trace it.
command -v strace >/dev/null 2>&1 || need_apt+=(strace)
# The instruction ceilings count under callgrind.
command -v valgrind >/dev/null 2>&1 || need_apt+=(valgrind)
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  need_apt+=(python3 python3-venv python3-pip)
fi
if ((${#need_apt[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "ci/setup.sh: missing ${need_apt[*]}; install them (apt-get install ${need_apt[*]}) or run as root" >&2
    exit 1
  fi
  echo "== installing ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi
