#!/usr/bin/env python3
"""make demo, the pick and place: a planner's loop closed over real ROS 2, shortened.

Starts ``ros2 launch robot_formats pick_and_place.launch.py rviz:=false`` (problem_server,
sim_controller, motion_player) on loopback DDS in the ROS_DOMAIN_ID the user set (else one of
its own), then runs the planner script ``examples/tmp/pick_and_place.py --speed 2
--no-retreat``: get_grasps for the block, play ``approach`` in the MuJoCo simulation, attach the
block to the gripper, play ``transport``, detach; the script checks, through a tf2_ros Buffer and
get_placements, that the block stands on a stable placement of stand_b. Exit 0 only if it did;
else the nodes' output is printed. The launch is always stopped (SIGINT, then SIGKILL).

Run it in the set-up environment (``. tools/env.sh``): ``python tools/demo_pick_and_place.py``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from demo_motion import demo_domain  # tools/ is this script's folder: one rule for the demos

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / 'examples' / 'tmp' / 'pick_and_place.py'
#: Seconds the script may take: discovery, three plays at double speed, the arm settling.
TIMEOUT = 180.0


def stop(process: subprocess.Popen) -> int:
    """Ctrl-C for ros2 launch (its nodes end cleanly), SIGKILL if that does not end it."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    try:
        return process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait(timeout=10)


def main() -> int:
    ros2 = shutil.which('ros2')
    if ros2 is None:
        print('demo_pick_and_place: ros2 is not on PATH (source tools/env.sh after make build)')
        return 1
    domain = demo_domain()
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain), ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               PYTHONUNBUFFERED='1', RCUTILS_COLORIZED_OUTPUT='0')
    with tempfile.TemporaryDirectory(prefix='demo_pick_and_place_') as scratch:
        env['ROS_LOG_DIR'] = str(Path(scratch) / 'ros_log')
        log = Path(scratch) / 'launch.log'
        print(f'== ros2 launch robot_formats pick_and_place.launch.py rviz:=false  '
              f'(ROS_DOMAIN_ID={domain}, DDS on loopback)')
        with open(log, 'wb') as out:
            launch = subprocess.Popen([ros2, 'launch', 'robot_formats', 'pick_and_place.launch.py',
                                       'rviz:=false'], cwd=ROOT, env=env,
                                      stdin=subprocess.DEVNULL, stdout=out,
                                      stderr=subprocess.STDOUT)
        code = 1
        try:
            print(f'== python {SCRIPT.relative_to(ROOT)} --speed 2 --no-retreat')
            code = subprocess.run([sys.executable, str(SCRIPT), '--speed', '2', '--no-retreat'],
                                  cwd=ROOT, env=env, timeout=TIMEOUT).returncode
        except subprocess.TimeoutExpired:
            print(f'demo_pick_and_place: the script did not finish within {TIMEOUT:g} s')
        except KeyboardInterrupt:
            print('demo_pick_and_place: interrupted')
        finally:
            launch_code = stop(launch)
        if code != 0 or launch_code != 0:
            print(log.read_text(errors='replace')[-4000:])
            print('demo_pick_and_place FAILED')
            return 1
    print('demo OK: the block was picked, carried on the gripper and placed on stand_b.')
    return 0


def _terminate(signum, frame) -> None:
    raise KeyboardInterrupt  # SIGTERM cleans up like Ctrl-C


if __name__ == '__main__':
    signal.signal(signal.SIGTERM, _terminate)
    raise SystemExit(main())
