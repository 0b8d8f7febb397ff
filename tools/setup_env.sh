#!/usr/bin/env bash
# tools/setup_env.sh - create/update the project's venv (.venv at the repo root) with ROS 2 Kilted from
# PyPI wheels (rclpy, message packages, ament_cmake, rosidl generators, colcon) plus robot_formats'
# Python libraries. No apt ROS needed.
#
# Usage: tools/setup_env.sh [--test]
#   --test   also install the opt-in TEST dependencies (tools/requirements-test.txt: pinocchio, which
#            brings urdfdom's check_urdf as .venv/bin/check_urdf, and dartpy; tools/requirements-test-nodeps.txt:
#            hebi-py, installed with --no-deps).
#
# Needs: CPython 3.11 on x86_64 (the ROS wheels are cp311 manylinux_2_28), its dev headers (Python.h),
# cmake >= 3.16, a C/C++ compiler, make. Override the interpreter with PYTHON=/path/to/python3.11.
#
# Pins: tools/requirements-ros.txt (top-level names) + tools/constraints-ros.txt (exact pins of the whole
# resolved set); tools/requirements-test.txt + tools/constraints-test.txt for --test.
#
# Idempotent and fast: a stamp in .venv holds a hash of this script, the requirement/constraint files, the
# interpreter and the venv path. If it matches, pip is not run at all (about 0.1 s). Each group has its
# own stamp. Delete .venv (or `make distclean`) to start over.
#
# The environment hook .venv/local_setup.{sh,bash,zsh} sets LD_LIBRARY_PATH, AMENT_PREFIX_PATH, ... for the
# pip-installed ROS prefix; tools/env.sh sources it (and install/setup.bash).
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
VENV="$ROOT/.venv"
PYTHON="${PYTHON:-python3}"
TOOLS="$ROOT/tools"
SELF="$TOOLS/setup_env.sh"
ROS_REQ="$TOOLS/requirements-ros.txt"
ROS_CON="$TOOLS/constraints-ros.txt"
ROS_NODEPS="$TOOLS/requirements-ros-nodeps.txt"
TEST_REQ="$TOOLS/requirements-test.txt"
TEST_CON="$TOOLS/constraints-test.txt"
TEST_NODEPS="$TOOLS/requirements-test-nodeps.txt"
ROS_STAMP="$VENV/.stamp-ros"
TEST_STAMP="$VENV/.stamp-test"

WANT_TEST=0
for arg in "$@"; do
  case "$arg" in
    --test) WANT_TEST=1 ;;
    -h|--help) sed -n '2,21p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup_env.sh: unknown argument: $arg (use --test or --help)" >&2; exit 2 ;;
  esac
done

say() { echo "setup: $*"; }

# Hash of the given files plus a salt string (interpreter, venv path).
stamp_of() {
  local salt="$1"; shift
  { printf '%s\n' "$salt"; cat "$@"; } | sha256sum | cut -d' ' -f1
}

# Interpreter identity is part of the stamp: a different python means a different venv. Ask the interpreter
# for its base executable: with tools/env.sh sourced, `python3` is this venv's own python, whose base is
# the interpreter the venv was made from (a pyenv shim or a symlink resolves to the same real file too).
if ! PYID="$("$PYTHON" -c 'import os, sys; print(os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable))' 2>/dev/null)"; then
  echo "setup: cannot run $PYTHON (set PYTHON=/path/to/python3.11)" >&2; exit 1
fi
PYTHON="$PYID"  # never create the venv from the venv's own interpreter
ROS_HASH="$(stamp_of "ros|$VENV|$PYID" "$SELF" "$ROS_REQ" "$ROS_CON" "$ROS_NODEPS")"
TEST_HASH="$(stamp_of "test|$VENV|$PYID|$ROS_HASH" "$SELF" "$TEST_REQ" "$TEST_CON" "$TEST_NODEPS")"

venv_ok() { [ -x "$VENV/bin/python" ] && [ -f "$VENV/local_setup.sh" ]; }
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

if venv_ok && stamp_ok "$ROS_STAMP" "$ROS_HASH" && { [ "$WANT_TEST" = 0 ] || stamp_ok "$TEST_STAMP" "$TEST_HASH"; }; then
  say "venv up to date ($VENV$([ "$WANT_TEST" = 1 ] && echo ', with test deps'))"
  exit 0
fi

PIP_ARGS=(--disable-pip-version-check --no-input -q)

# ---------------------------------------------------------------------------------------------------------
# 1. ROS group (runtime + build tools + libraries)
# ---------------------------------------------------------------------------------------------------------
if ! venv_ok || ! stamp_ok "$ROS_STAMP" "$ROS_HASH"; then
  "$PYTHON" - <<'EOF'
import sys, platform
if sys.version_info[:2] != (3, 11) or platform.machine() != 'x86_64':
    sys.exit(f'setup: need CPython 3.11 on x86_64 (ROS wheels are cp311 manylinux x86_64), '
             f'got {sys.version.split()[0]} {platform.machine()}; set PYTHON=/path/to/python3.11')
EOF
  for t in cmake make cc c++; do
    command -v "$t" >/dev/null || { echo "setup: missing build tool: $t (apt-get install cmake build-essential)" >&2; exit 1; }
  done

  # A venv made from another interpreter or at another path (moved checkout) cannot be reused.
  if [ -d "$VENV" ] && [ "$(cat "$VENV/.origin" 2>/dev/null || true)" != "$VENV|$PYID" ]; then
    say "recreating $VENV (made at another path or with another python)"
    rm -rf "$VENV"
  fi
  rm -f "$ROS_STAMP" "$TEST_STAMP"
  if [ ! -x "$VENV/bin/python" ]; then
    say "creating venv $VENV ($("$PYTHON" -c 'import sys; print(sys.version.split()[0])'))"
    "$PYTHON" -m venv "$VENV"
    printf '%s\n' "$VENV|$PYID" > "$VENV/.origin"
  fi
  PY="$VENV/bin/python"

  say "installing pinned ROS 2 Kilted wheels + colcon + libraries (tools/constraints-ros.txt)"
  t0=$SECONDS
  "$PY" -m pip install "${PIP_ARGS[@]}" -c "$ROS_CON" -r "$ROS_REQ" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  "$PY" -m pip install "${PIP_ARGS[@]}" --no-deps -c "$ROS_CON" -r "$ROS_NODEPS" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  say "pip done in $((SECONDS - t0)) s"

  # Every installed distribution must be one of the pinned ones (catches a requirement added without a pin).
  "$PY" - "$ROS_CON" "$ROS_REQ" "$ROS_NODEPS" <<'EOF'
import re, sys
from importlib import metadata
pins = {}
for line in open(sys.argv[1]):
    line = line.split('#', 1)[0].strip()
    if line:
        name, ver = line.split('==')
        pins[re.sub(r'[-_.]+', '-', name).lower()] = ver
for requirements in sys.argv[2:]:
    for line in open(requirements):
        line = line.split('#', 1)[0].strip()
        if line and re.sub(r'[-_.]+', '-', line).lower() not in pins:
            sys.exit(f'setup: requirement {line!r} of {requirements} has no pin in {sys.argv[1]}')
for name, ver in pins.items():
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        sys.exit(f'setup: pinned {name}=={ver} is not installed')
    if have != ver:
        sys.exit(f'setup: {name} is {have}, pinned {ver}')
EOF

  # --- fix absolute build-machine paths baked into the wheels' CMake exports (idempotent) ---------------
  PYINC="$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")"
  NPINC="$("$PY" -c "import numpy; print(numpy.get_include())")"
  [ -f "$PYINC/Python.h" ] || { echo "setup: Python.h not found in $PYINC (install the python3.11 dev headers)" >&2; exit 1; }
  { grep -rlZ --include='*.cmake' '/opt/python/cp311-cp311' "$VENV/share" || true; } | xargs -0 -r sed -i \
    -e "s|/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include|$NPINC|g" \
    -e "s|/opt/python/cp311-cp311/include/python3.11|$PYINC|g"
  if grep -rq --include='*.cmake' '/opt/python/' "$VENV/share"; then
    echo "setup: unfixed /opt/python paths remain:" >&2; grep -rl --include='*.cmake' '/opt/python/' "$VENV/share" >&2; exit 1
  fi

  # --- environment hook ----------------------------------------------------------------------------------
  # $VENV/local_setup.{sh,bash,zsh}: because $VENV is on AMENT_PREFIX_PATH when `colcon build` runs
  # (tools/build_ws.sh sources it), colcon chains it into install/setup.{sh,bash,zsh}.
  # LD_LIBRARY_PATH is required: the wheels' RPATHs ($ORIGIN/../../../ros_*.libs) point outside the venv.
  # It is set in a fixed order, and ros-wheels-bootstrapper's .pth re-exec (random order) is disabled.
  sed "s|@VENV@|$VENV|g" > "$VENV/local_setup.sh" <<'EOF'
# generated by tools/setup_env.sh - environment of the pip-installed ROS 2 prefix @VENV@
_rv_prefix="@VENV@"
_rv_prepend() {  # $1: variable name, $2: value; prepend unless already present
  eval "_rv_cur=\"\${$1:-}\""
  case ":$_rv_cur:" in
    *":$2:"*) ;;
    *) if [ -z "$_rv_cur" ]; then export "$1=$2"; else export "$1=$2:$_rv_cur"; fi ;;
  esac
}
for _rv_d in "$_rv_prefix"/lib/python3.11/site-packages/ros_*.libs; do
  if [ -d "$_rv_d" ]; then _rv_prepend LD_LIBRARY_PATH "$_rv_d"; fi
done
_rv_prepend LD_LIBRARY_PATH "$_rv_prefix/lib"
_rv_prepend AMENT_PREFIX_PATH "$_rv_prefix"
_rv_prepend CMAKE_PREFIX_PATH "$_rv_prefix"
_rv_prepend PATH "$_rv_prefix/bin"
export _ROS_WHEELS_BOOTSTRAP_COMPLETE=1
export RMW_IMPLEMENTATION="${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}"
export ROS_AUTOMATIC_DISCOVERY_RANGE="${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}"  # keep DDS on loopback (ROS_LOCALHOST_ONLY is ignored in Kilted)
unset _rv_prefix _rv_d _rv_cur
unset -f _rv_prepend
EOF
  for sh in bash zsh; do printf '. "%s/local_setup.sh"\n' "$VENV" > "$VENV/local_setup.$sh"; done
  MARK='# >>> ros-wheels env >>>'
  grep -qF "$MARK" "$VENV/bin/activate" || printf '\n%s\n. "%s/local_setup.sh"\n' "$MARK" "$VENV" >> "$VENV/bin/activate"

  # --- smoke test: rclpy creates a node with the hook's environment (no re-exec) ----------------------
  env -u _ROS_WHEELS_BOOTSTRAP_COMPLETE ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST bash -c ". '$VENV/local_setup.sh' && '$PY' -c '
import rclpy, lxml.etree, numpy, yaml, mujoco, trimesh, matplotlib
import std_msgs.msg, sensor_msgs.msg, geometry_msgs.msg, visualization_msgs.msg, trajectory_msgs.msg, std_srvs.srv, action_msgs.msg
rclpy.init(); n = rclpy.create_node(\"setup_env_smoke\"); n.destroy_node(); rclpy.shutdown()'" \
    || { echo "setup: smoke test failed (rclpy could not create a node)" >&2; exit 1; }
  [ -x "$VENV/bin/colcon" ] || { echo "setup: colcon missing from $VENV/bin" >&2; exit 1; }

  printf '%s\n' "$ROS_HASH" > "$ROS_STAMP"
  say "ROS venv ready ($(du -sh "$VENV" | cut -f1))"
fi

# ---------------------------------------------------------------------------------------------------------
# 2. opt-in TEST group
# ---------------------------------------------------------------------------------------------------------
if [ "$WANT_TEST" = 1 ] && ! stamp_ok "$TEST_STAMP" "$TEST_HASH"; then
  PY="$VENV/bin/python"
  rm -f "$TEST_STAMP"
  say "installing pinned test dependencies (tools/requirements-test.txt; pinocchio is ~400 MB)"
  t0=$SECONDS
  "$PY" -m pip install "${PIP_ARGS[@]}" -c "$ROS_CON" -c "$TEST_CON" -r "$TEST_REQ" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  "$PY" -m pip install "${PIP_ARGS[@]}" --no-deps -r "$TEST_NODEPS" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  say "pip done in $((SECONDS - t0)) s"

  # check_urdf (urdfdom, from cmeel-urdfdom) must run as $VENV/bin/check_urdf.
  tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
  cat > "$tmp/smoke.urdf" <<'EOF'
<?xml version="1.0"?>
<robot name="smoke">
  <link name="base"/>
  <link name="tip"/>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="tip"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
EOF
  out="$("$VENV/bin/check_urdf" "$tmp/smoke.urdf" 2>&1)" || { echo "setup: $VENV/bin/check_urdf failed:" >&2; echo "$out" >&2; exit 1; }
  grep -q "Successfully Parsed XML" <<<"$out" || { echo "setup: unexpected check_urdf output:" >&2; echo "$out" >&2; exit 1; }
  "$PY" -c 'import pinocchio' || { echo "setup: import pinocchio failed" >&2; exit 1; }
  "$PY" -c 'import hebi, dartpy' || { echo "setup: import hebi / dartpy failed" >&2; exit 1; }

  printf '%s\n' "$TEST_HASH" > "$TEST_STAMP"
  say "test dependencies ready (check_urdf OK, pinocchio OK)"
fi
