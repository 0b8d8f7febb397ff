#!/usr/bin/env bash
# tools/install_bench_deps.sh - what `make bench` needs beyond the test setup (idempotent).
# 1. The Python URDF loaders benchmarks/urdf_peers.py times robot_formats against (urdf_parser_py,
#    yourdfpy, urchin), pinned in tools/requirements-bench-nodeps.txt and installed into .venv with
#    pip --no-deps (what they import beyond that is pinned in tools/constraints-ros.txt). A stamp in
#    .venv (a hash of this script and that file) skips pip when nothing changed.
# 2. libsdformat 12 (Debian's libsdformat-dev): the reference benchmarks/sdformat_load.py times
#    robot_formats' SDFormat reader against, with pkg-config and g++ to build its C++ timer.
#    Installed with apt-get only when pkg-config cannot find sdformat12; needs root (or sudo) the
#    first time.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
VENV="$ROOT/.venv"
BENCH_NODEPS="$ROOT/tools/requirements-bench-nodeps.txt"
BENCH_STAMP="$VENV/.stamp-bench"

bench_hash="$(cat "${BASH_SOURCE[0]}" "$BENCH_NODEPS" | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$BENCH_STAMP" 2>/dev/null || true)" != "$bench_hash" ]; then
  echo "install_bench_deps: installing the pinned URDF loaders of urdf_peers ($BENCH_NODEPS)" >&2
  rm -f "$BENCH_STAMP"
  "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q --no-deps \
    -r "$BENCH_NODEPS" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  "$VENV/bin/python" -c 'import urdf_parser_py.urdf, yourdfpy, urchin' \
    || { echo "install_bench_deps: the URDF loaders do not import" >&2; exit 1; }
  printf '%s\n' "$bench_hash" > "$BENCH_STAMP"
fi

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
