# tools/ws_env.sh - sourced by tools/build_ws.sh and tools/build_upstream.sh (not run on its own).
# The build environment both share: the caller's environment WITHOUT this repository's own prefixes
# (install/, build/ and the underlay/ of upstream packages, in case tools/env.sh or a setup.bash was
# sourced in the calling shell), plus the venv's ROS prefix.
# Needs ROOT (the repository) and VENV (its venv) set by the caller.

# This repository's packages, whose package.xml dependencies decide which upstream packages are built.
WORKSPACE_PACKAGES=(. robot_formats_interfaces)
# The prefix the upstream packages the environment lacks are built into (tools/upstream.py).
UNDERLAY_INSTALL="$ROOT/underlay/install"

# Drop every $ROOT/install/..., $ROOT/build/... and $ROOT/underlay/... entry of the variable named $1.
strip_own() {
  local var="$1" out="" p
  local -a parts
  IFS=: read -r -a parts <<<"${!var:-}"
  for p in "${parts[@]}"; do
    case "$p" in
      ""|"$ROOT/install"|"$ROOT/install/"*|"$ROOT/build"|"$ROOT/build/"*|"$ROOT/underlay"|"$ROOT/underlay/"*) ;;
      *) out="${out:+$out:}$p" ;;
    esac
  done
  if [ -n "$out" ]; then export "$var=$out"; else unset "$var"; fi
}

# The environment colcon builds in: no own prefixes, the venv's ROS prefix, DDS on loopback.
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

# The build environment plus the underlay of upstream packages, if one was built: what this
# repository's own packages build on (colcon chains it into install/setup.bash).
enter_overlay_env() {
  enter_build_env
  if [ -f "$UNDERLAY_INSTALL/local_setup.bash" ]; then
    set +u
    # shellcheck disable=SC1091
    . "$UNDERLAY_INSTALL/local_setup.bash"
    set -u
  fi
}
