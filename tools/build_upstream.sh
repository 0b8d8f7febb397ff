#!/usr/bin/env bash
# tools/build_upstream.sh - build the upstream ROS 2 packages robot_formats needs and the environment
# lacks (launch, launch_ros, ros2cli commands, tf2 / tf2_ros Python, tf2_msgs, control_msgs, ...) from
# their unmodified sources at the commits pinned in tools/upstream.repos, into the underlay prefix
# underlay/install -- ONLY those no prefix of the environment provides.
#
# Which packages: the package.xml dependencies of this repository's packages, recursively. On a ROS 2
# install (source /opt/ros/<distro>/setup.bash before building) every one of them comes from the
# distribution and nothing is built. Sources: ROS2_TOOLS_SRC, else shared/vendor/ros2/src of the shared
# data (ROBOT_FORMATS_SHARED, else ../shared), when it holds the package; otherwise a git fetch of the
# pinned commit into underlay/src/ (ROBOT_FORMATS_UPSTREAM_REPOS names another pinned list). The rules
# and their reasons: tools/upstream.py.
#
# Idempotent: colcon is skipped when the packages, their sources, the venv and the environment are
# those of the last successful build (a stamp in underlay/install).
#
# Usage: tools/build_upstream.sh [--force|--list]
#   --force  ignore the stamp and run colcon
#   --list   only print what the environment provides and what would be built from where (sources
#            not yet there are fetched into underlay/src, as for a build)
# Needs the venv from tools/setup_env.sh; run by tools/build_ws.sh (make build) before the project's
# own packages, and by `make underlay`. Source underlay/install/setup.bash to build a colcon workspace
# on it, as on a ROS 2 installation.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
ARGS=()
for arg in "$@"; do
  case "$arg" in
    --force|--list) ARGS+=("$arg") ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build_upstream.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

[ -f "$VENV/local_setup.sh" ] && [ -f "$VENV/.stamp-ros" ] \
  || { echo "build: no venv at $VENV: run 'make setup' (tools/setup_env.sh) first" >&2; exit 1; }

# shellcheck disable=SC1091
. "$ROOT/tools/ws_env.sh"
enter_build_env
exec "$VENV/bin/python" "$ROOT/tools/upstream.py" --venv "$VENV" "${ARGS[@]}" "${WORKSPACE_PACKAGES[@]}"
