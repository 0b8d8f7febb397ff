# tools/ws_env.sh - sourced by tools/build_ws.sh and tools/build_ros_tools.sh (not run on its own).
# The build environment both share: the caller's environment WITHOUT this workspace's own overlay
# (in case tools/env.sh or install/setup.bash was sourced in the calling shell), plus the venv's ROS
# prefix; and the test for a package the environment already provides.
# Needs ROOT (the repository) and VENV (its venv) set by the caller.

# Drop every $ROOT/install/... and $ROOT/build/... entry of the variable named $1.
strip_own() {
  local var="$1" out="" p
  local -a parts
  IFS=: read -r -a parts <<<"${!var:-}"
  for p in "${parts[@]}"; do
    case "$p" in
      ""|"$ROOT/install"|"$ROOT/install/"*|"$ROOT/build"|"$ROOT/build/"*) ;;
      *) out="${out:+$out:}$p" ;;
    esac
  done
  if [ -n "$out" ]; then export "$var=$out"; else unset "$var"; fi
}

# The environment colcon builds in: no own overlay, the venv's ROS prefix, DDS on loopback.
enter_build_env() {
  local v
  for v in AMENT_PREFIX_PATH CMAKE_PREFIX_PATH COLCON_PREFIX_PATH PYTHONPATH LD_LIBRARY_PATH PATH; do
    strip_own "$v"
  done
  unset COLCON_CURRENT_PREFIX
  set +u
  # shellcheck disable=SC1091
  . "$VENV/local_setup.sh"
  set -u
  export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
}

# True if a prefix on AMENT_PREFIX_PATH registers the package named $1.
provided_by_env() {
  local p
  local -a prefixes
  IFS=: read -r -a prefixes <<<"${AMENT_PREFIX_PATH:-}"
  for p in "${prefixes[@]}"; do
    [ -n "$p" ] && [ -e "$p/share/ament_index/resource_index/packages/$1" ] && return 0
  done
  return 1
}
