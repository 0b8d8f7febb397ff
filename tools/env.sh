# tools/env.sh - source me (bash):   . tools/env.sh
# Sets up the environment of this repository: the venv's ROS 2 prefix (.venv/local_setup.sh: PATH,
# LD_LIBRARY_PATH, AMENT_PREFIX_PATH, ...) and the colcon workspace (install/setup.bash, which chains
# the underlay of upstream packages), if built; else the underlay alone (underlay/install), if built.
# Always keeps DDS discovery on this machine (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST).
# Safe to source from scripts running with `set -euo pipefail`.

_rf_opts="$-"
set +eu
_rf_root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
if [ -f "$_rf_root/.venv/local_setup.sh" ]; then
  . "$_rf_root/.venv/local_setup.sh"
else
  echo "env.sh: no venv at $_rf_root/.venv (run 'make setup')" >&2
fi
if [ -f "$_rf_root/install/setup.bash" ]; then
  . "$_rf_root/install/setup.bash"
elif [ -f "$_rf_root/underlay/install/setup.bash" ]; then
  . "$_rf_root/underlay/install/setup.bash"
fi
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
case "$_rf_opts" in *e*) set -e ;; esac
case "$_rf_opts" in *u*) set -u ;; esac
unset _rf_opts _rf_root
true
