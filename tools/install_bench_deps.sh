#!/usr/bin/env bash
# tools/install_bench_deps.sh - what `make bench` needs beyond the test setup (idempotent).
# libsdformat 12 (Debian's libsdformat-dev): the reference benchmarks/sdformat_load.py times
# robot_formats' SDFormat reader against, with pkg-config and g++ to build its C++ timer.
# Installed with apt-get only when pkg-config cannot find sdformat12; needs root (or sudo) the
# first time.
set -euo pipefail

if pkg-config --exists sdformat12 2>/dev/null; then
  exit 0
fi
echo "install_bench_deps: installing libsdformat-dev (libsdformat 12) with apt-get" >&2
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
# a fresh image may have no package lists yet: update once if the first attempt fails
packages=(libsdformat-dev pkg-config g++)
as_root apt-get install -y "${packages[@]}" || {
  as_root apt-get update && as_root apt-get install -y "${packages[@]}"; }
pkg-config --exists sdformat12
