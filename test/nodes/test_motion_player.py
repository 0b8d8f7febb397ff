"""motion_player end to end over real DDS: every output mode checked by a real subscriber or a real
action server, the checks that keep a bad play from moving anything, cancel, and bad requests.

Independent references: key-frame interpolation and trajectory times are recomputed here from
the XMDI text written by the test (:func:`expected_positions`, :func:`expected_ns`), never with
robot_formats.formats.xmdi; the action-mode server is the real sim_controller node (kinematic
mode) or a FollowJointTrajectory server written here that fails with a chosen error code.

Cubic mode is checked where an independent value exists: the points at a servo's own key frames
(and holds) carry the key values, and the trajectory starts and ends at rest.

The motions are short (frame period 10 ms) so the whole module runs in well under a minute.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from control_msgs.action import FollowJointTrajectory
from rclpy.action import ActionClient, ActionServer, GoalResponse
from robot_formats_interfaces.action import PlayMotion
from robot_formats_interfaces.srv import ListMotions
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory

from .harness import ARM, DESCRIPTION_QOS, TIMEOUT, Inbox, NodeProcess

PERIOD = 0.01
Result = PlayMotion.Result

#: name -> {servo: (positions, frames)}; written as XMDI by the fixture, used as the reference.
MOTIONS = {
    # ends where it starts, so loops need no jump; within the arm's limits (2 rad/s, ±2.5 rad)
    'short': {'shoulder_pan': ([0.0, 0.075, -0.05, 0.0], [0, 10, 25, 40]),
              'elbow': ([0.3, 0.4, 0.3], [5, 20, 35])},
    'long': {'shoulder_pan': ([0.0, 1.0, 0.0], [0, 300, 600]),
             'elbow': ([0.0, -0.8, 0.0], [0, 300, 600])},
    'unmapped': {'shoulder_pan': ([0.0, 0.1], [0, 20]), 'no_such_joint': ([0.0, 0.1], [0, 20])},
    'mimic': {'finger_right': ([0.0, 0.01], [0, 20])},
    'too_far': {'elbow': ([0.0, 2.6, 0.0], [0, 200, 400])},
    'too_fast': {'shoulder_pan': ([0.0, 0.5], [0, 10])},
    'pan_only': {'shoulder_pan': ([0.0, 0.1], [0, 20])},
    'with_wrist': {'shoulder_pan': ([0.0, 0.1], [0, 20]), 'elbow': ([0.0, 0.1], [0, 20]),
                   'wrist_roll': ([0.0, 0.1], [0, 20])},
}
STREAM_JOINTS = ['elbow', 'shoulder_pan']  # the forward controller's order (not the motion's)


def xmdi_text(motions: dict = MOTIONS) -> str:
    """XMDI text of ``motions`` (name -> {servo: (positions, frames)})."""
    lines = ['<xmdi><motions>']
    for name, servos in motions.items():
        lines.append(f'  <motion name="{name}">')
        for servo, (positions, frames) in servos.items():
            lines.append(f'    <servo name="{servo}"><position>{" ".join(map(str, positions))}'
                         f'</position><frames>{" ".join(map(str, frames))}</frames></servo>')
        lines.append('  </motion>')
    lines.append('</motions></xmdi>')
    return '\n'.join(lines) + '\n'


def lerp_servo(positions, frames, frame: float) -> float:
    """Linear interpolation between key frames; holds the first/last value outside them."""
    if frame <= frames[0]:
        return float(positions[0])
    if frame >= frames[-1]:
        return float(positions[-1])
    for k in range(len(frames) - 1):
        if frames[k] <= frame <= frames[k + 1]:
            w = (frame - frames[k]) / (frames[k + 1] - frames[k])
            return positions[k] + w * (positions[k + 1] - positions[k])
    raise AssertionError('unreachable')


def expected_positions(motion: str, frame: float, joints) -> list[float]:
    servos = MOTIONS[motion]
    return [lerp_servo(*servos[j], frame) for j in joints]


def last_frame(motion: str) -> int:
    return max(frames[-1] for _, frames in MOTIONS[motion].values())


def key_frames(motion: str) -> list[int]:
    return sorted({0, last_frame(motion)} | {f for _, fr in MOTIONS[motion].values() for f in fr})


def expected_ns(frame: float, speed: float = 1.0) -> int:
    """time_from_start of a key frame: frame x period / speed, in nanoseconds."""
    return round(frame * PERIOD / speed * 1e9)


def ns_of(duration) -> int:
    return duration.sec * 1_000_000_000 + duration.nanosec


def canceled_at(message: str) -> float:
    match = re.search(r'canceled at motion time ([0-9.]+) s', message)
    assert match, message
    return float(match.group(1))


@pytest.fixture(scope='module')
def motion_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp('motions') / 'test_motions.xmdi'
    path.write_text(xmdi_text(), encoding='utf-8')
    return path


class Player:
    """A motion_player process (plus optional companions on its domain) and the test side."""

    def __init__(self, launcher, name: str, motion_file: Path, *parameters: str,
                 publish_description: bool = True, output: tuple | None = None) -> None:
        """``output``: (message type, topic, depth) of the node's output, received into
        ``self.output`` with each arrival's instant in ``self.receipts``."""
        args = ['-m', 'robot_formats.nodes.motion_player', '--ros-args',
                '-p', f'motion_files:=[{str(motion_file)!r}]', '-p', f'frame_period:={PERIOD}']
        for parameter in parameters:
            args += ['-p', parameter]
        self.process, self.side = launcher.command(args, name)
        self.launcher = launcher
        node = self.side.node
        self.output, self.receipts = Inbox(), []
        if output is not None:
            # Made before the action client: a participant announces its endpoints in order, and
            # the node answers a goal only once it has matched the client's reply reader, so by
            # then its publisher has matched this subscription too (the topic is volatile: what
            # it published before would be lost). Waiting on our side's match proves nothing.
            self.output.subscription = node.create_subscription(
                output[0], output[1], self._receive, output[2])
        self.description_pub = node.create_publisher(String, 'robot_description',
                                                     DESCRIPTION_QOS)
        self.client = ActionClient(node, PlayMotion, 'motion_player/play')
        self.list_client = node.create_client(ListMotions, 'motion_player/list_motions')
        self.process.wait_for_log('ready')
        if publish_description:
            self.publish_description()
        assert self.client.wait_for_server(timeout_sec=TIMEOUT), self.process.describe()
        if output is not None:
            self.side.spin_until(lambda: self.output.subscription.get_publisher_count() > 0,
                                 what='the output publisher', process=self.process)

    def _receive(self, msg) -> None:
        self.receipts.append(time.monotonic())  # to see a stream spread over its schedule
        self.output(msg)

    def publish_description(self) -> None:
        """Latched, as robot_state_publisher does; returns once the node has read it."""
        self.description_pub.publish(String(data=ARM.read_text()))
        self.side.spin_until(lambda: 'robot model: ' in self.process.log(),
                             what='the robot model to reach the node', process=self.process)

    def companion(self, args: list[str], name: str) -> NodeProcess:
        """Another node process on this player's domain."""
        process = NodeProcess(args, self.process.domain_id, self.launcher.log_dir, name)
        self.launcher.processes.append(process)
        return process

    def send(self, motion: str, feedback=None, **fields):
        goal = PlayMotion.Goal(motion_name=motion, **fields)
        future = self.client.send_goal_async(goal, feedback_callback=feedback)
        self.side.spin_until(future.done, what='the goal response', process=self.process)
        handle = future.result()
        assert handle.accepted, self.process.log()
        return handle

    def result(self, handle, timeout: float = TIMEOUT):
        future = handle.get_result_async()
        self.side.spin_until(future.done, timeout, 'the play result', self.process)
        return future.result()

    def play(self, motion: str, feedback=None, **fields):
        return self.result(self.send(motion, feedback, **fields))


def assert_rejected(outcome, code: int, *phrases: str) -> None:
    result = outcome.result
    assert outcome.status == GoalStatus.STATUS_ABORTED, (outcome.status, result.message)
    assert (result.success, result.error_code) == (False, code), result.message
    for phrase in phrases:
        assert phrase in result.message, result.message


# --- trajectory mode --------------------------------------------------------------------------

@pytest.fixture(scope='module')
def trajectory_player(module_launcher, motion_file):
    player = Player(module_launcher, 'motion_player_trajectory', motion_file,
                    'output_mode:=trajectory', 'controller:=arm_controller',
                    output=(JointTrajectory, 'arm_controller/joint_trajectory', 10))
    player.trajectories = player.output
    return player


def test_list_motions_describes_every_loaded_motion(trajectory_player, motion_file):
    response = trajectory_player.side.call(trajectory_player.list_client, ListMotions.Request(),
                                           process=trajectory_player.process)
    assert [m.name for m in response.motions] == list(MOTIONS)
    assert response.frame_period == PERIOD and response.interpolation == 'linear'
    for info in response.motions:
        assert list(info.servos) == list(MOTIONS[info.name]) == list(info.joints)
        assert info.last_frame == last_frame(info.name)
        assert info.duration == pytest.approx(last_frame(info.name) * PERIOD, abs=1e-12)
        assert info.file == str(motion_file)


def test_checks_reject_before_anything_is_sent(trajectory_player):
    player = trajectory_player
    before = len(player.trajectories)
    assert_rejected(player.play('unmapped'), Result.UNMAPPED_SERVO, "'no_such_joint'",
                    'no such joint')
    assert_rejected(player.play('mimic'), Result.UNMAPPED_SERVO, "'finger_right'", 'mimic')
    assert_rejected(player.play('too_far'), Result.POSITION_LIMIT, "'elbow'", '2.6', '2.5')
    assert_rejected(player.play('too_fast'), Result.VELOCITY_LIMIT, "'shoulder_pan'", 'at 5/s',
                    'velocity limit 2')
    # speed 3 pushes the 'short' motion's 0.83 rad/s segment above the 2 rad/s limit
    assert_rejected(player.play('short', speed_factor=3.0), Result.VELOCITY_LIMIT,
                    "'shoulder_pan'")
    player.side.spin_for(0.3)  # a bounded absence check: nothing may have been published
    assert len(player.trajectories) == before, 'a rejected play published a trajectory'


def test_bad_requests_are_answered_and_the_node_keeps_serving(trajectory_player):
    player = trajectory_player
    before = len(player.trajectories)
    assert_rejected(player.play('no such motion'), Result.UNKNOWN_MOTION, "'no such motion'",
                    'short')
    assert_rejected(player.play('short', speed_factor=-1.0), Result.INVALID_GOAL, 'speed factor')
    assert_rejected(player.play('short', start_time=0.5), Result.INVALID_GOAL, 'start time')
    assert_rejected(player.play('short', start_time=float('nan')), Result.INVALID_GOAL,
                    'start time')
    player.side.spin_for(0.2)
    assert len(player.trajectories) == before
    assert player.process.alive()
    response = player.side.call(player.list_client, ListMotions.Request(), process=player.process)
    assert len(response.motions) == len(MOTIONS)


def test_trajectory_times_are_frame_times_over_speed_and_positions_interpolate(
        trajectory_player):
    player = trajectory_player
    player.trajectories.messages.clear()
    feedback = []
    outcome = player.play('short', lambda msg: feedback.append(msg.feedback), speed_factor=2.0)
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.message
    assert outcome.result.error_code == Result.SUCCESSFUL
    player.side.spin_until(lambda: len(player.trajectories), what='the trajectory')
    msg = player.trajectories.last
    joints = list(msg.joint_names)
    assert joints == list(MOTIONS['short'])
    frames = key_frames('short')
    assert [ns_of(p.time_from_start) for p in msg.points] == [expected_ns(f, 2.0) for f in frames]
    for point, frame in zip(msg.points, frames):
        assert list(point.positions) == pytest.approx(expected_positions('short', frame, joints),
                                                      abs=1e-12)
        assert list(point.velocities) == []  # linear: the controller interpolates positions
    player.side.spin_until(lambda: feedback and feedback[-1].progress == 1.0,
                           what='the final feedback')
    assert feedback[-1].frame == pytest.approx(last_frame('short'))
    assert all(0.0 <= f.progress <= 1.0 for f in feedback)


def test_reverse_with_seek_starts_at_the_seek_point_and_runs_backwards(trajectory_player):
    player = trajectory_player
    player.trajectories.messages.clear()
    seek = 0.1  # 10 frames of motion skipped: reversed, the play starts at frame 30
    outcome = player.play('short', reverse=True, start_time=seek)
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.message
    player.side.spin_until(lambda: len(player.trajectories), what='the trajectory')
    msg = player.trajectories.last
    joints = list(msg.joint_names)
    frames = [30] + [f for f in reversed(key_frames('short')) if f < 30]
    times = [round(((last_frame('short') - f) * PERIOD - seek) * 1e9) for f in frames]
    assert [ns_of(p.time_from_start) for p in msg.points] == pytest.approx(times, abs=1)
    for point, frame in zip(msg.points, frames):
        assert list(point.positions) == pytest.approx(expected_positions('short', frame, joints),
                                                      abs=1e-12)


def test_loops_repeat_the_motion_after_a_one_frame_transition(trajectory_player):
    player = trajectory_player
    player.trajectories.messages.clear()
    feedback = []
    outcome = player.play('short', lambda msg: feedback.append(msg.feedback), loop_count=3)
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.message
    player.side.spin_until(lambda: len(player.trajectories), what='the trajectory')
    msg = player.trajectories.last
    joints = list(msg.joint_names)
    loop_length = last_frame('short') + 1  # the motion, then one frame back to its first pose
    expected = [(loop * loop_length + f, f) for loop in range(3) for f in key_frames('short')]
    assert [ns_of(p.time_from_start) for p in msg.points] == pytest.approx(
        [expected_ns(t) for t, _ in expected], abs=1)
    for point, (_, frame) in zip(msg.points, expected):
        assert list(point.positions) == pytest.approx(expected_positions('short', frame, joints),
                                                      abs=1e-12)
    player.side.spin_until(lambda: feedback and feedback[-1].progress == 1.0,
                           what='the final feedback')
    assert {f.loop for f in feedback} <= {0, 1, 2} and feedback[-1].loop == 2


def test_cancel_sends_a_trajectory_holding_the_position_reached(trajectory_player):
    player = trajectory_player
    player.trajectories.messages.clear()
    feedback = []
    handle = player.send('long', lambda msg: feedback.append(msg.feedback))
    player.side.spin_until(lambda: feedback and feedback[-1].time > 0.3, what='some progress')
    cancel = handle.cancel_goal_async()
    outcome = player.result(handle)
    assert cancel.done() or player.side.spin_until(cancel.done, what='the cancel response')
    assert outcome.status == GoalStatus.STATUS_CANCELED, outcome.result.message
    assert outcome.result.error_code == Result.CANCELED
    at = canceled_at(outcome.result.message)
    assert 0.3 < at < last_frame('long') * PERIOD
    player.side.spin_until(lambda: len(player.trajectories) >= 2, what='the hold trajectory')
    hold = player.trajectories.last
    assert len(hold.points) == 1
    assert list(hold.points[0].positions) == pytest.approx(
        expected_positions('long', at / PERIOD, list(hold.joint_names)), abs=1e-9)
    assert list(hold.points[0].velocities) == [0.0, 0.0]
    assert ns_of(hold.points[0].time_from_start) == expected_ns(1)


def test_cubic_trajectories_pass_the_keys_and_end_at_rest(module_launcher, motion_file):
    player = Player(module_launcher, 'motion_player_cubic', motion_file,
                    'output_mode:=trajectory', 'interpolation:=cubic',
                    output=(JointTrajectory, 'joint_trajectory_controller/joint_trajectory', 10))
    trajectories = player.output
    outcome = player.play('short')
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.message
    player.side.spin_until(lambda: len(trajectories), what='the trajectory')
    msg = trajectories.last
    joints = list(msg.joint_names)
    frames = key_frames('short')
    assert [ns_of(p.time_from_start) for p in msg.points] == [expected_ns(f) for f in frames]
    for point, frame in zip(msg.points, frames):
        assert len(point.velocities) == len(joints)
        for joint, value in zip(joints, point.positions):
            positions, keys = MOTIONS['short'][joint]
            if frame in keys or frame < keys[0] or frame > keys[-1]:  # a key, or a hold
                assert value == pytest.approx(lerp_servo(positions, keys, frame), abs=1e-12)
    assert list(msg.points[0].velocities) == [0.0, 0.0]
    assert list(msg.points[-1].velocities) == [0.0, 0.0]  # JTC: the last point at rest
    assert any(abs(v) > 0.01 for p in msg.points for v in p.velocities)


# --- stream mode ------------------------------------------------------------------------------

@pytest.fixture(scope='module')
def stream_player(module_launcher, motion_file):
    player = Player(module_launcher, 'motion_player_stream', motion_file, 'output_mode:=stream',
                    'controller:=forward_position_controller', 'stream_rate:=200.0',
                    f'controller_joints:={STREAM_JOINTS}'.replace("'", '"'),
                    output=(Float64MultiArray, 'forward_position_controller/commands', 1000))
    player.commands = player.output
    return player


def test_stream_publishes_every_sample_at_the_rate_in_the_controller_order(stream_player):
    player = stream_player
    player.commands.messages.clear()
    player.receipts.clear()
    sent = time.monotonic()
    outcome = player.play('short')
    elapsed = time.monotonic() - sent
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.message
    count = int(round(last_frame('short') * PERIOD * 200)) + 1  # t = 0, 5 ms, ..., 0.4 s
    player.side.spin_until(lambda: len(player.commands) >= count, what='every command')
    player.side.spin_for(0.1)
    assert len(player.commands) == count
    for k, msg in enumerate(player.commands.messages):
        assert list(msg.data) == pytest.approx(
            expected_positions('short', k / 200 / PERIOD, STREAM_JOINTS), abs=1e-12), k
    # paced, not sent at once: the schedule is absolute, so the play cannot end before 0.4 s;
    # most commands arrive one period apart and the node's median lateness is small (bounds
    # loose enough for a loaded machine)
    assert elapsed >= 0.4, f'the 0.4 s stream ended after {elapsed:.3f} s'
    interval = float(np.median(np.diff(player.receipts)))
    assert 0.0025 < interval < 0.010, f'median interval between commands {interval * 1e3:.2f} ms'
    p50 = float(re.search(r'p50 ([0-9.]+) ms', outcome.result.message).group(1))
    assert p50 < 20.0, outcome.result.message
    assert f'streamed {count} commands at 200 Hz' in outcome.result.message


def test_stream_reversed_loops_follow_the_motion_backwards_twice(stream_player):
    player = stream_player
    player.commands.messages.clear()
    outcome = player.play('short', reverse=True, loop_count=2)
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.message
    last = last_frame('short')
    # played frames: last .. 0, one frame back to the last pose (the motion ends where it
    # starts: a constant), then last .. 0 again
    count = int(round((2 * last + 1) * PERIOD * 200)) + 1
    player.side.spin_until(lambda: len(player.commands) >= count, what='every command')
    player.side.spin_for(0.1)
    assert len(player.commands) == count
    for k, msg in enumerate(player.commands.messages):
        played = k / 200 / PERIOD  # frames played so far
        frame = last - played if played <= last else (
            0.0 if played <= last + 1 else last - (played - last - 1))
        assert list(msg.data) == pytest.approx(
            expected_positions('short', frame, STREAM_JOINTS), abs=1e-12), k


def test_stream_cancel_holds_the_position_reached(stream_player):
    player = stream_player
    player.commands.messages.clear()
    handle = player.send('long')
    player.side.spin_until(lambda: len(player.commands) > 40, what='some commands')
    handle.cancel_goal_async()
    outcome = player.result(handle)
    assert outcome.status == GoalStatus.STATUS_CANCELED, outcome.result.message
    at = canceled_at(outcome.result.message)
    player.side.spin_for(0.2)  # the last commands may still be in flight
    assert list(player.commands.last.data) == pytest.approx(
        expected_positions('long', at / PERIOD, STREAM_JOINTS), abs=1e-9)
    assert len(player.commands) < 6 * 200  # stopped before the 6 s motion ended


def test_stream_refuses_a_motion_the_controller_joints_do_not_cover(module_launcher,
                                                                     stream_player):
    player = stream_player
    before = len(player.commands)
    assert_rejected(player.play('pan_only'), Result.UNMAPPED_SERVO, 'does not drive: elbow')
    assert_rejected(player.play('with_wrist'), Result.UNMAPPED_SERVO,
                    'does not command (controller_joints): wrist_roll')
    player.side.spin_for(0.2)
    assert len(player.commands) == before


# --- joint_states mode ------------------------------------------------------------------------

def test_joint_states_mode_waits_for_the_robot_model_then_previews(module_launcher,
                                                                   motion_file):
    player = Player(module_launcher, 'motion_player_joint_states', motion_file,
                    'output_mode:=joint_states', 'stream_rate:=100.0',
                    publish_description=False, output=(JointState, 'joint_states', 1000))
    states = player.output
    assert_rejected(player.play('short'), Result.NO_ROBOT_MODEL, 'robot_description')
    player.publish_description()
    outcome = player.play('short')
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.message
    count = int(round(last_frame('short') * PERIOD * 100)) + 1
    player.side.spin_until(lambda: len(states) >= count, what='every joint state')
    joints = list(MOTIONS['short'])
    for k, msg in enumerate(states.messages):
        assert list(msg.name) == joints
        assert list(msg.position) == pytest.approx(
            expected_positions('short', k / 100 / PERIOD, joints), abs=1e-12), k
    assert list(states.last.velocity) == [0.0, 0.0]
    stamps = [m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 for m in states.messages]
    assert all(b > a for a, b in zip(stamps, stamps[1:]))


# --- action mode ------------------------------------------------------------------------------

def test_action_mode_plays_through_sim_controller_and_relays_its_feedback(module_launcher,
                                                                          motion_file):
    player = Player(module_launcher, 'motion_player_action', motion_file, 'output_mode:=action')
    player.companion(['-m', 'robot_formats.nodes.sim_controller', '--ros-args',
                      '-p', f'description_file:={ARM}', '-p', 'mode:=kinematic',
                      '-p', 'update_rate:=200.0', '-p', 'allow_partial_joints_goal:=true'],
                     'sim_controller_for_player')  # the motion drives 2 of the arm's 5 joints
    states = player.side.subscribe(JointState, 'joint_states', 100)
    feedback = []
    deadline = time.monotonic() + TIMEOUT
    while True:  # until sim_controller's action server is up (the player waits 5 s per goal)
        outcome = player.play('short', lambda msg: feedback.append(msg.feedback))
        if 'no FollowJointTrajectory server' not in outcome.result.message or \
                time.monotonic() > deadline:
            break
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.message
    assert (outcome.result.controller_error_code, outcome.result.controller_error_string) == (
        FollowJointTrajectory.Result.SUCCESSFUL, 'Goal successfully reached!')
    assert feedback, 'the controller feedback was not relayed'
    # relayed desired.time_from_start: the key frames sim_controller was moving towards
    assert {round(f.time / PERIOD, 6) for f in feedback} <= set(map(float, key_frames('short')))
    final = expected_positions('short', last_frame('short'), ['shoulder_pan', 'elbow'])
    player.side.spin_until(lambda: len(states) and [dict(zip(states.last.name,
                                                             states.last.position))[j]
                                                    for j in ('shoulder_pan', 'elbow')]
                           == pytest.approx(final, abs=1e-9), what='the final pose')
    handle = player.send('long')
    player.side.spin_until(lambda: len(states) and abs(dict(zip(
        states.last.name, states.last.position))['shoulder_pan']) > 0.05, what='motion')
    handle.cancel_goal_async()
    outcome = player.result(handle)
    assert outcome.status == GoalStatus.STATUS_CANCELED, outcome.result.message
    assert outcome.result.error_code == Result.CANCELED


def test_action_mode_relays_the_controller_error_code(module_launcher, motion_file):
    player = Player(module_launcher, 'motion_player_failing', motion_file, 'output_mode:=action',
                    'controller:=failing_controller')
    received = []

    def execute(goal_handle):
        received.append(goal_handle.request.trajectory)
        feedback = FollowJointTrajectory.Feedback()
        feedback.desired.time_from_start.nanosec = 250_000_000
        goal_handle.publish_feedback(feedback)
        goal_handle.abort()
        return FollowJointTrajectory.Result(
            error_code=FollowJointTrajectory.Result.PATH_TOLERANCE_VIOLATED,
            error_string='shoulder_pan left its path tolerance')

    answer = {'goal': GoalResponse.ACCEPT}
    ActionServer(player.side.node, FollowJointTrajectory,
                 'failing_controller/follow_joint_trajectory', execute,
                 goal_callback=lambda goal: answer['goal'])
    feedback = []
    outcome = player.play('short', lambda msg: feedback.append(msg.feedback))
    assert_rejected(outcome, Result.CONTROLLER_ERROR, 'error_code -4',
                    'shoulder_pan left its path tolerance')
    assert (outcome.result.controller_error_code
            == FollowJointTrajectory.Result.PATH_TOLERANCE_VIOLATED)
    assert outcome.result.controller_error_string == 'shoulder_pan left its path tolerance'
    assert len(received) == 1 and [ns_of(p.time_from_start) for p in received[0].points] == [
        expected_ns(f) for f in key_frames('short')]
    player.side.spin_until(lambda: feedback, what='the relayed feedback')
    assert feedback[0].time == pytest.approx(0.25) and feedback[0].frame == pytest.approx(25.0)
    assert_rejected(player.play('too_fast'), Result.VELOCITY_LIMIT, "'shoulder_pan'")
    assert len(received) == 1, 'a play that failed the checks reached the controller'
    answer['goal'] = GoalResponse.REJECT  # as joint_trajectory_controller refuses a bad goal
    assert_rejected(player.play('short'), Result.CONTROLLER_ERROR, 'rejected the trajectory')
    assert len(received) == 1 and player.process.alive()


# --- bad configuration ------------------------------------------------------------------------

@pytest.mark.parametrize('case', ['missing file', 'bad output mode', 'integer rate'])
def test_a_bad_configuration_ends_the_node_with_the_reason(module_launcher, tmp_path, case):
    missing = tmp_path / 'absent.xmdi'
    parameter, reason = {
        'missing file': (f'motion_files:=[{str(missing)!r}]', 'no such file or directory'),
        'bad output mode': ('output_mode:=bogus', "parameter output_mode is 'bogus', not one of"),
        'integer rate': ('stream_rate:=100', "parameter 'stream_rate'"),
    }[case]
    process, _ = module_launcher.command(
        ['-m', 'robot_formats.nodes.motion_player', '--ros-args', '-p', parameter],
        f'motion_player_{case.replace(" ", "_")}')
    assert process.proc.wait(timeout=TIMEOUT) == 1, process.describe()
    assert reason in process.log(), process.describe()
    assert 'Traceback' not in process.log()


if __name__ == '__main__':
    sys.exit(pytest.main([__file__, '-q']))
