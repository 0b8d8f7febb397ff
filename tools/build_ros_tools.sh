#!/usr/bin/env bash
# tools/build_ros_tools.sh - build the upstream ROS 2 tools robot_formats is started, inspected and tested
# with (launch, launch_ros, launch_testing, ros2cli and its commands, tf2 / tf2_ros Python), from their
# unmodified sources, into this repository's workspace (build/ install/ log/) -- ONLY those the
# environment lacks.
#
# On a ROS 2 install (source /opt/ros/<distro>/setup.bash before building) every one of them comes from
# the distribution and nothing is built. On a machine with ROS 2 from PyPI wheels only (tools/setup_env.sh)
# they are built from the sources in ../shared/vendor/ros2/src beside the repository, or from the folder
# named by ROS2_TOOLS_SRC. Each package is built only if no prefix on AMENT_PREFIX_PATH other than this
# workspace registers it (the same rule as compat/ for interface packages).
#
# Idempotent: colcon is skipped when the selected packages, their sources, the venv and the underlay are
# those of the last successful build (a stamp in install/).
#
# Usage: tools/build_ros_tools.sh [--force|--list]
#   --force  ignore the stamp and run colcon
#   --list   only print which packages the environment provides and which would be built
# Needs the venv from tools/setup_env.sh; called by tools/build_ws.sh (make build) before the project's
# own packages.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
STAMP="$ROOT/install/.build_ros_tools.stamp"
SRC="${ROS2_TOOLS_SRC:-$ROOT/../shared/vendor/ros2/src}"
FORCE=0
LIST=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    --list) LIST=1 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build_ros_tools.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done
say() { echo "build: $*"; }

# The tools robot_formats' launch files, tests, demo and docs use, in dependency order.
TOOLS=(launch launch_xml launch_yaml launch_testing composition_interfaces rosidl_runtime_py launch_ros
       ros2cli ros2pkg ros2node ros2service ros2param ros2topic ros2action ros2interface ros2run ros2launch
       launch_testing_ros tf2 tf2_py tf2_ros_py octomap_msgs object_recognition_msgs moveit_msgs)

[ -f "$VENV/local_setup.sh" ] && [ -f "$VENV/.stamp-ros" ] \
  || { echo "build: no venv at $VENV: run 'make setup' (tools/setup_env.sh) first" >&2; exit 1; }

# shellcheck disable=SC1091
. "$ROOT/tools/ws_env.sh"
enter_build_env

NEEDED=()
for pkg in "${TOOLS[@]}"; do
  if provided_by_env "$pkg"; then
    [ "$LIST" = 1 ] && echo "provided by the environment, not built: $pkg"
    if [ "$LIST" = 0 ] && { [ -d "install/$pkg" ] || [ -d "build/$pkg" ]; }; then
      say "$pkg is now provided by the environment: removing our build of it"
      rm -rf "install/$pkg" "build/$pkg"
      rm -f "$STAMP"
    fi
  else
    NEEDED+=("$pkg")
  fi
done
if [ "${#NEEDED[@]}" = 0 ]; then
  say "the ROS 2 tools (launch, launch_ros, ros2cli, tf2_ros, ...) come from the environment: nothing to build"
  exit 0
fi

if [ ! -d "$SRC" ]; then
  echo "build: the environment lacks the ROS 2 tools ${NEEDED[*]} and their sources are not at $SRC: source a ROS 2 installation (e.g. /opt/ros/kilted/setup.bash) before building, or place the upstream sources there (shared/vendor/ros2/src beside the repository) or name their folder with ROS2_TOOLS_SRC=/path/to/src" >&2
  exit 1
fi

# package name -> source folder (the folder whose package.xml names it)
declare -A DIR_OF=()
while IFS= read -r -d '' manifest; do
  name="$(sed -n 's:.*<name>[[:space:]]*\([^<[:space:]]*\)[[:space:]]*</name>.*:\1:p' "$manifest" | head -n1)"
  [ -n "$name" ] && DIR_OF["$name"]="$(dirname "$manifest")"
done < <(find "$SRC" -name package.xml -not -path '*/test/*' -print0)
PATHS=()
MISSING=()
for pkg in "${NEEDED[@]}"; do
  if [ -n "${DIR_OF[$pkg]:-}" ]; then PATHS+=("${DIR_OF[$pkg]}"); else MISSING+=("$pkg"); fi
done
if [ "${#MISSING[@]}" -gt 0 ]; then
  echo "build: the environment lacks the ROS 2 tools ${MISSING[*]} and $SRC does not hold their sources: source a ROS 2 installation that has them, or add their upstream sources there (see shared/vendor/ros2/README.md)" >&2
  exit 1
fi

if [ "$LIST" = 1 ]; then
  for i in "${!NEEDED[@]}"; do echo "build: ${NEEDED[$i]} from ${PATHS[$i]}"; done
  exit 0
fi

sources_hash() {
  {
    printf 'packages=%s\n' "${NEEDED[*]}"
    printf 'paths=%s\n' "${PATHS[*]}"
    printf 'underlay=%s\n' "${AMENT_PREFIX_PATH:-}"
    printf 'venv=%s\n' "$(cat "$VENV/.stamp-ros")"
    sha256sum tools/build_ros_tools.sh tools/ws_env.sh
    find "${PATHS[@]}" -type f -not -path '*/__pycache__/*' -not -name '*.pyc' -print0 \
      | LC_ALL=C sort -z | xargs -0 sha256sum
  } | sha256sum | cut -d' ' -f1
}
HASH="$(sources_hash)"
built_ok() {
  local n
  for n in "${NEEDED[@]}"; do [ -d "install/$n" ] && [ -d "build/$n" ] || return 1; done
  [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$HASH" ]
}
if [ "$FORCE" = 0 ] && built_ok; then
  say "ROS 2 tools up to date (${#NEEDED[@]} packages built from $SRC), colcon skipped"
  exit 0
fi

say "colcon build of the ROS 2 tools the environment lacks, from $SRC: ${NEEDED[*]}"
t0=$SECONDS
mkdir -p install
rm -f "$STAMP"
"$VENV/bin/colcon" --log-base log build \
  --build-base build --install-base install --symlink-install \
  --paths "${PATHS[@]}" \
  --cmake-args -DBUILD_TESTING=OFF "-DPython3_EXECUTABLE=$VENV/bin/python"
printf '%s\n' "$HASH" > "$STAMP"
say "ROS 2 tools built in $((SECONDS - t0)) s"
