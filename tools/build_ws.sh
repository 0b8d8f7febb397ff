#!/usr/bin/env bash
# tools/build_ws.sh - colcon build of this repository's packages into build/ install/ log/ at the repo root.
#
# First the upstream ROS 2 packages the environment lacks, into the underlay prefix underlay/install
# (tools/build_upstream.sh); then this repository's packages on top of it (explicit --paths: colcon
# would not look inside the repo root, which is itself a package):
#   .                          robot_formats (ament_python, --symlink-install: edits to robot_formats/*.py
#                              need no rebuild)
#   robot_formats_interfaces   ament_cmake interface package (srv/Reload.srv, ...)
# install/ holds only these two: anything else found there (an upstream package of an older layout) is
# removed, so that it cannot shadow the underlay's or the environment's.
#
# Idempotent and fast: colcon is skipped entirely when a hash of the build inputs (package manifests,
# CMakeLists, msg/srv/action files, setup.py/cfg, the launch/ config/ examples/ meshes/ file lists, the venv
# stamp and the underlay) equals the one recorded after the last successful build.
#
# Usage: tools/build_ws.sh [--force|--list]
#   --force  ignore the stamp and run colcon
#   --list   only print what would be built (and what the environment provides)
# Needs the venv from tools/setup_env.sh. To build against a ROS 2 installation instead, source its
# setup.bash first: every upstream package it provides is then taken from it and not built.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
STAMP="$ROOT/install/.build_ws.stamp"
FORCE=0
LIST=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    --list) LIST=1 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build_ws.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done
say() { echo "build: $*"; }

[ -f "$VENV/local_setup.sh" ] && [ -f "$VENV/.stamp-ros" ] \
  || { echo "build: no venv at $VENV: run 'make setup' (tools/setup_env.sh) first" >&2; exit 1; }

# The upstream ROS 2 packages (launch, ros2cli, tf2_ros, control_msgs, ...) first, where the environment
# lacks them.
if [ "$LIST" = 1 ]; then bash "$ROOT/tools/build_upstream.sh" --list; else bash "$ROOT/tools/build_upstream.sh"; fi

# shellcheck disable=SC1091
. "$ROOT/tools/ws_env.sh"
enter_overlay_env

# --- select packages ---------------------------------------------------------------------------------------
PATHS=("${WORKSPACE_PACKAGES[@]}")
NAMES=()
for dir in "${PATHS[@]}"; do
  pkg="$(sed -n 's:.*<name>[[:space:]]*\([^<[:space:]]*\)[[:space:]]*</name>.*:\1:p' "$dir/package.xml" | head -n1)"
  [ -n "$pkg" ] || { echo "build: cannot read <name> from $dir/package.xml" >&2; exit 1; }
  NAMES+=("$pkg")
done

if [ "$LIST" = 1 ]; then
  for i in "${!PATHS[@]}"; do echo "build: ${PATHS[$i]} (${NAMES[$i]})"; done
  exit 0
fi

# --- up to date? -------------------------------------------------------------------------------------------
inputs_hash() {
  local -a files=(tools/build_ws.sh tools/ws_env.sh package.xml setup.py setup.cfg scripts/robot-formats)
  local p
  for p in resource robot_formats_interfaces; do
    [ -e "$p" ] && while IFS= read -r -d '' f; do files+=("$f"); done \
      < <(find "$p" -type f -not -path '*/__pycache__/*' -not -name '*.pyc' -print0 | LC_ALL=C sort -z)
  done
  {
    printf 'paths=%s\n' "${PATHS[*]}"
    printf 'underlay=%s\n' "${AMENT_PREFIX_PATH:-}"
    printf 'venv=%s\n' "$(cat "$VENV/.stamp-ros")"
    printf 'init=%s\n' "$([ -f robot_formats/__init__.py ] && echo yes || echo no)"
    sha256sum "${files[@]}"
    # launch/ and config/ files are symlinked one by one: a new or removed file needs a rebuild, an edit not.
    for p in launch config examples meshes; do [ -d "$p" ] && find "$p" -type f -not -name '*.pyc' | LC_ALL=C sort; done
    true
  } | sha256sum | cut -d' ' -f1
}
HASH="$(inputs_hash)"

built_ok() {
  [ -f install/setup.bash ] || return 1
  local n
  for n in "${NAMES[@]}"; do [ -d "install/$n" ] && [ -d "build/$n" ] || return 1; done
  [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$HASH" ]
}
# install/ and build/ hold this repository's packages only: an upstream package colcon built there (the
# layout before underlay/) would shadow the underlay's or the environment's, so it goes.
remove_foreign_packages() {
  local d name
  for d in install/*/share/colcon-core/packages/* build/*/colcon_build.rc; do
    [ -e "$d" ] || continue
    case "$d" in install/*) name="$(basename "$d")" ;; *) name="$(basename "$(dirname "$d")")" ;; esac
    case " ${NAMES[*]} " in *" $name "*) continue ;; esac
    say "removing $name from install/ and build/ (upstream packages live in underlay/ now)"
    rm -rf "install/$name" "build/$name"
    rm -f "$STAMP"
  done
}
remove_foreign_packages
if [ "$FORCE" = 0 ] && built_ok; then
  say "workspace up to date (${NAMES[*]}), colcon skipped"
  exit 0
fi

# --- colcon build ------------------------------------------------------------------------------------------
# colcon never removes the symlinks of data files that were deleted from launch/ or config/: drop the
# dangling ones (and directories left empty) so the installed share/ mirrors the sources.
prune_data_links() {
  local d
  for d in build/robot_formats/launch build/robot_formats/config build/robot_formats/examples \
           build/robot_formats/meshes install/robot_formats/share/robot_formats/examples \
           install/robot_formats/share/robot_formats/meshes \
           install/robot_formats/share/robot_formats/launch install/robot_formats/share/robot_formats/config; do
    [ -d "$d" ] || continue
    find "$d" -xtype l -delete
    find "$d" -depth -type d -empty -delete
  done
}

say "colcon build: ${NAMES[*]}"
prune_data_links
t0=$SECONDS
rm -f "$STAMP"
"$VENV/bin/colcon" --log-base log build \
  --build-base build --install-base install --symlink-install \
  --paths "${PATHS[@]}" \
  --cmake-args -DBUILD_TESTING=OFF "-DPython3_EXECUTABLE=$VENV/bin/python"
prune_data_links
printf '%s\n' "$HASH" > "$STAMP"
say "done in $((SECONDS - t0)) s"
