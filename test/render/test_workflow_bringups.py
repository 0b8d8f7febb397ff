"""The motion workflows' bringup files run: a motion played through them arrives over real DDS.

test_launch_files.py checks the files against the nodes' declarations; this runs the two motion
bringup files (``robot-formats bringup`` in a subprocess, its own domain on loopback, the
harness of test/nodes), sends a PlayMotion goal as any rclpy client would, and watches
``joint_states`` and ``/tf`` from the outside. The reference is the XMDI file's own key values,
read here with ElementTree (the wave takes shoulder_pan to 0.4 and elbow to 1.2; the grasp
opens finger_left to 0.04), not robot_formats' motion model.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / 'test'))
from nodes.conftest import _claim_block  # noqa: E402  (the node tests' domain blocks)
from nodes.harness import TF_QOS, TIMEOUT, NodeProcess, RosSide  # noqa: E402

WAVE = ROOT / 'examples' / 'xmdi' / 'arm_wave.xmdi'
#: Servo-tracking tolerance of sim_controller's position servos at the end of a hold, rad or m.
SERVO_TOL = 0.05
STATE_QOS = 10  # reliable, volatile: as both publishers offer joint_states


def key_extremes(motion: str) -> dict[str, float]:
    """servo -> the key value farthest from zero, from the XMDI file itself."""
    root = ET.parse(WAVE).getroot()
    element = next(m for m in root.iter('motion') if m.get('name') == motion)
    extremes = {}
    for servo in element.iter('servo'):
        values = [float(v) for v in servo.findtext('position').split()]
        extremes[servo.get('name')] = max(values, key=abs)
    return extremes


@pytest.fixture(scope='module')
def domains():
    base, lock = _claim_block()
    ids = iter(range(base, base + 25))
    yield lambda: next(ids)
    lock.close()


@pytest.fixture
def bringup(domains, tmp_path):
    started: list[tuple[NodeProcess, RosSide]] = []

    def start(config: str) -> tuple[NodeProcess, RosSide]:
        domain = domains()
        process = NodeProcess(['-m', 'robot_formats.cli', 'bringup', str(ROOT / config),
                               '--duration', '120'], domain, tmp_path, Path(config).stem)
        side = RosSide(domain, f'test_{Path(config).stem}')
        started.append((process, side))
        process.wait_for_log('bringup: started')
        return process, side

    yield start
    for process, side in started:
        process.stop()
        side.close()


def play(side: RosSide, process: NodeProcess, motion: str):
    """Send a PlayMotion goal to /motion_player/play and return its result."""
    from robot_formats_interfaces.action import PlayMotion
    client = ActionClient(side.node, PlayMotion, '/motion_player/play')
    side.spin_until(lambda: client.server_is_ready(), what='the ~/play action server',
                    process=process)
    # motion_player checks every play against robot_description: wait until it has the model
    # (a play before that is refused with NO_ROBOT_MODEL, as documented).
    process.wait_for_log('] [motion_player]: robot model:')
    sent = client.send_goal_async(PlayMotion.Goal(motion_name=motion))
    side.spin_until(sent.done, what='the goal response', process=process)
    goal = sent.result()
    assert goal.accepted
    done = goal.get_result_async()
    side.spin_until(done.done, timeout=TIMEOUT, what=f'the end of {motion!r}', process=process)
    return done.result().result


def positions(inbox) -> list[dict[str, float]]:
    return [dict(zip(m.name, m.position)) for m in inbox.messages]


def test_motion_sim_bringup_plays_the_wave_to_the_simulated_arm(bringup):
    """motion_player (action mode) -> sim_controller's FollowJointTrajectory -> MuJoCo: the
    simulated joints reach the wave's key values; the wave leaves the gripper alone, so the
    controller must accept partial goals as configured."""
    process, side = bringup('config/motion_sim_bringup.yaml')
    states = side.subscribe(JointState, 'joint_states', STATE_QOS)
    side.spin_until(lambda: len(states), what='sim_controller joint_states', process=process)
    result = play(side, process, 'wave')
    assert result.success, (result.error_code, result.message, result.controller_error_string)
    assert result.error_code == 0 and result.controller_error_code == 0
    received = positions(states)
    for servo, extreme in key_extremes('wave').items():
        reached = max((p[servo] for p in received if servo in p), key=lambda v: v * extreme)
        assert reached == pytest.approx(extreme, abs=SERVO_TOL), servo


def test_motion_preview_bringup_streams_joint_states_that_move_the_tf(bringup):
    """motion_player (joint_states mode) -> description_publisher -> /tf: the grasp's
    finger_left values are published and the finger's transform moves with them."""
    process, side = bringup('config/motion_bringup.yaml')
    states = side.subscribe(JointState, 'joint_states', STATE_QOS)
    tf = side.subscribe(TFMessage, '/tf', TF_QOS)
    result = play(side, process, 'grasp')
    assert result.success, (result.error_code, result.message)
    extreme = key_extremes('grasp')['finger_left']
    fingers = [p['finger_left'] for p in positions(states) if 'finger_left' in p]
    assert max(fingers) == pytest.approx(extreme, abs=1e-9)  # streamed, not simulated: exact
    side.spin_until(lambda: any(t.child_frame_id == 'left_finger' for m in tf.messages
                                for t in m.transforms), what='/tf of left_finger', process=process)
    offsets = {tuple(round(v, 6) for v in (t.transform.translation.x, t.transform.translation.y,
                                           t.transform.translation.z))
               for m in tf.messages for t in m.transforms if t.child_frame_id == 'left_finger'}
    assert len(offsets) > 5, f'left_finger did not move on /tf: {sorted(offsets)}'
