"""sim_controller end to end over real DDS, plus its simulation against independent references.

* MuJoCo's body poses at random configurations equal pinocchio's forward kinematics of the
  bundled arm's URDF (test/core/rf_testlib's pinocchio helpers), to 1e-9;
* the spline segments meet their boundary conditions (positions, velocities, accelerations
  evaluated from the sampled polynomial, not from its coefficients);
* a kinematic-mode node (description_file) executes FollowJointTrajectory goals exactly, sends
  feedback, rejects what joint_trajectory_controller rejects, holds on cancel, and follows
  forward_command_controller commands while ignoring wrong sizes;
* a servo-mode node (fed by a robot_description publisher, ``invalid_goal_response: abort``)
  tracks a goal within 5 mrad, and ends bad goals with the FollowJointTrajectory error codes,
  including PATH_TOLERANCE_VIOLATED and GOAL_TOLERANCE_VIOLATED.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from builtin_interfaces.msg import Duration, Time
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTolerance
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from robot_formats.runtime import trajectory as jtc
from robot_formats.runtime.description import Description
from robot_formats.runtime.mujoco_sim import MujocoRobot

from .harness import (ARM, DESCRIPTION_QOS, ROOT, TIMEOUT, assert_ros2_controllers_file,
                      stamp_of)

sys.path.insert(0, str(ROOT / 'test' / 'core'))
from rf_testlib import pinocchio_forward, urdf_joint_values  # noqa: E402

JOINTS = ['shoulder_pan', 'shoulder_lift', 'elbow', 'wrist_roll', 'finger_left']
HOME = [0.0, 0.0, 0.0, 0.0, 0.0]
ACTION = 'joint_trajectory_controller/follow_joint_trajectory'
Result = FollowJointTrajectory.Result


def duration(seconds: float) -> Duration:
    return Duration(sec=int(seconds), nanosec=int(round((seconds % 1) * 1e9)))


def point(t: float, positions, velocities=(), accelerations=()) -> JointTrajectoryPoint:
    return JointTrajectoryPoint(positions=list(positions), velocities=list(velocities),
                                accelerations=list(accelerations), time_from_start=duration(t))


def goal_of(points, joints=JOINTS, **fields) -> FollowJointTrajectory.Goal:
    goal = FollowJointTrajectory.Goal(**fields)
    goal.trajectory.joint_names = list(joints)
    goal.trajectory.points = list(points)
    return goal


# --- without DDS: the simulation and the splines against independent references ---------------

def test_mujoco_body_poses_equal_pinocchio_forward_kinematics():
    description = Description.load(ARM)
    robot = MujocoRobot(description.urdf, str(ARM))
    rng = np.random.default_rng(7)
    urdf_bytes = ARM.read_bytes()
    for _ in range(4):
        q = np.array([rng.uniform(-3, 3), rng.uniform(-2, 2), rng.uniform(-2.5, 2.5),
                      rng.uniform(-6, 6), rng.uniform(0, 0.04)])
        robot.set_exact(q)
        mujoco_poses = robot.body_poses()
        assert set(mujoco_poses) == {'shoulder_link', 'upper_arm_link', 'forearm_link',
                                     'wrist_link', 'left_finger', 'right_finger'}
        reference = pinocchio_forward(urdf_bytes,
                                      urdf_joint_values(urdf_bytes, dict(zip(JOINTS, q))),
                                      list(mujoco_poses))
        for name, pose in mujoco_poses.items():
            error = float(np.max(np.abs(pose - reference[name])))
            assert error < 1e-9, f'{name}: MuJoCo differs from pinocchio by {error:.3g} at q={q}'
        assert robot.all_positions()['finger_right'] == pytest.approx(q[4], abs=1e-15)


def test_servo_mode_settles_on_its_set_points():
    robot = MujocoRobot(Description.load(ARM).urdf, str(ARM))
    target = np.array([0.5, -0.4, 0.8, 1.0, 0.02])
    robot.set_targets(target)
    robot.step_until(1.0, max_steps=2000)
    assert np.max(np.abs(robot.positions() - target)) < 1e-3


def _numeric_derivative(trajectory: jtc.Trajectory, t: float, h: float = 1e-6) -> np.ndarray:
    return (trajectory.sample(t + h).positions - trajectory.sample(t - h).positions) / (2 * h)


@pytest.mark.parametrize('kind', ['linear', 'cubic', 'quintic'])
def test_spline_segments_meet_their_boundary_conditions(kind: str):
    p0, p1, v0, v1 = [0.2, -1.0], [1.0, 0.5], [0.3, -0.2], [-0.4, 0.1]
    a0, a1 = [1.0, 0.0], [-2.0, 3.0]
    vel = {'linear': ((), ()), 'cubic': (v0, v1), 'quintic': (v0, v1)}[kind]
    acc = (a0, a1) if kind == 'quintic' else ((), ())
    points = [jtc.Point(1.0, p0, vel[0], acc[0]), jtc.Point(3.0, p1, vel[1], acc[1])]
    trajectory = jtc.Trajectory(points, start=10.0, time_before=10.0, positions_before=p0)
    start, end = trajectory.sample(11.0), trajectory.sample(13.0 - 1e-12)
    assert np.allclose(start.positions, p0) and np.allclose(end.positions, p1, atol=1e-9)
    middle = trajectory.sample(12.0)
    if kind == 'linear':
        assert np.allclose(middle.positions, (np.array(p0) + p1) / 2)
        assert np.allclose(middle.velocities, (np.array(p1) - p0) / 2.0)
    else:
        assert np.allclose(_numeric_derivative(trajectory, 11.0 + 1e-5), v0, atol=1e-4)
        assert np.allclose(_numeric_derivative(trajectory, 13.0 - 1e-5), v1, atol=1e-4)
        assert np.allclose(middle.velocities, _numeric_derivative(trajectory, 12.0), atol=1e-6)
    if kind == 'quintic':
        h = 1e-4
        for t, expected in ((11.0 + 2 * h, a0), (13.0 - 2 * h, a1)):
            second = (trajectory.sample(t + h).positions - 2 * trajectory.sample(t).positions
                      + trajectory.sample(t - h).positions) / h ** 2
            assert np.allclose(second, expected, atol=1e-2)
    past = trajectory.sample(20.0)
    assert past.past_end and np.allclose(past.positions, p1)
    assert trajectory.sample(9.0) is None


# --- kinematic-mode node over DDS --------------------------------------------------------------

class Controller:
    """A sim_controller process and the test side's client, subscriptions and helpers."""

    def __init__(self, launcher, name: str, *parameters: str, description_publisher=False):
        args = ['-m', 'robot_formats.nodes.sim_controller', '--ros-args']
        for parameter in parameters:
            args += ['-p', parameter]
        self.process, self.side = launcher.command(args, name)
        node = self.side.node
        if description_publisher:
            self.description_pub = node.create_publisher(String, 'robot_description',
                                                         DESCRIPTION_QOS)
            self.description_pub.publish(String(data=ARM.read_text()))
        self.states = self.side.subscribe(JointState, 'joint_states', 10)
        # the command publishers before the action client: endpoints are announced in order, so
        # once the node has answered a goal it has matched them too (our side's match, waited
        # for below, does not show that)
        self.trajectory_pub = node.create_publisher(
            JointTrajectory, 'joint_trajectory_controller/joint_trajectory', 10)
        self.commands_pub = node.create_publisher(
            Float64MultiArray, 'forward_position_controller/commands', 10)
        self.client = ActionClient(node, FollowJointTrajectory, ACTION)
        self.process.wait_for_log('ready')
        assert self.client.wait_for_server(timeout_sec=TIMEOUT), self.process.describe()
        self.side.spin_until(lambda: len(self.states) > 0, what='joint_states',
                             process=self.process)
        self.side.spin_until(lambda: self.trajectory_pub.get_subscription_count() > 0
                             and self.commands_pub.get_subscription_count() > 0,
                             what='the command subscriptions', process=self.process)

    def positions(self) -> dict[str, float]:
        msg = self.states.last
        return dict(zip(msg.name, msg.position))

    def vector(self) -> np.ndarray:
        values = self.positions()
        return np.array([values[j] for j in JOINTS])

    def send(self, goal, feedback=None):
        future = self.client.send_goal_async(goal, feedback_callback=feedback)
        self.side.spin_until(future.done, what='the goal response', process=self.process)
        return future.result()

    def result(self, handle, timeout: float = TIMEOUT):
        future = handle.get_result_async()
        self.side.spin_until(future.done, timeout, 'the goal result', self.process)
        return future.result()

    def run(self, goal, feedback=None):
        handle = self.send(goal, feedback)
        assert handle.accepted, self.process.log()
        return self.result(handle)

    def wait_at(self, target, tol: float, what: str, timeout: float = TIMEOUT) -> None:
        target = np.asarray(target, float)
        self.states.messages.clear()
        self.side.spin_until(lambda: len(self.states) and np.max(np.abs(
            self.vector() - target)) <= tol, timeout, what, self.process)

    def go_home(self, tol: float = 1e-3) -> None:
        """At HOME within ``tol``, with no command left in flight.

        A command still on its way when the next goal is accepted would cancel that goal (as in
        JTC), so one is published only when the arm is away from HOME, and then arriving there
        proves it was consumed.
        """
        self.states.messages.clear()
        self.side.spin_until(lambda: len(self.states) >= 2, what='fresh joint states',
                             process=self.process)
        if np.max(np.abs(self.vector() - HOME)) <= tol:
            return
        self.commands_pub.publish(Float64MultiArray(data=HOME))
        self.wait_at(HOME, tol, 'the home position')


@pytest.fixture(scope='module')
def kinematic(module_launcher):
    return Controller(module_launcher, 'sim_controller_kinematic', f'description_file:={ARM}',
                      'mode:=kinematic', 'update_rate:=200.0')


def test_goal_is_executed_exactly_with_feedback(kinematic):
    kinematic.go_home()
    final = [0.5, -0.4, 0.8, 1.0, 0.02]
    feedback = []
    result = kinematic.run(goal_of([point(0.3, [0.2, -0.1, 0.3, 0.5, 0.01]),
                                    point(0.6, final, [0.0] * 5)]),
                           lambda msg: feedback.append(msg.feedback))
    assert result.status == GoalStatus.STATUS_SUCCEEDED
    assert (result.result.error_code, result.result.error_string) == (
        Result.SUCCESSFUL, 'Goal successfully reached!')
    assert feedback, 'no feedback arrived'
    assert list(feedback[-1].joint_names) == JOINTS
    assert len(feedback[-1].desired.positions) == len(feedback[-1].actual.positions) == 5
    # desired.time_from_start: the point being moved towards (JTC's Trajectory::sample)
    towards = {(f.desired.time_from_start.sec, f.desired.time_from_start.nanosec)
               for f in feedback}
    assert towards <= {(0, 300_000_000), (0, 600_000_000)} and (0, 600_000_000) in towards, towards
    kinematic.wait_at(final, 1e-12, 'the final configuration')
    assert kinematic.positions()['finger_right'] == pytest.approx(0.02, abs=1e-12)  # mimic


@pytest.mark.parametrize('case', ['unknown joint', 'partial joints', 'non-increasing times',
                                  'wrong sizes', 'nonzero final velocity', 'old header',
                                  'no points'])
def test_invalid_goals_are_rejected_and_the_node_keeps_serving(kinematic, case: str):
    goal = _invalid_goal(case)
    handle = kinematic.send(goal)
    assert not handle.accepted, f'{case}: accepted'
    assert kinematic.process.alive()


def _invalid_goal(case: str) -> FollowJointTrajectory.Goal:
    good = [point(0.5, [0.1] * 5), point(1.0, [0.2] * 5)]
    if case == 'unknown joint':
        return goal_of(good, JOINTS[:4] + ['bogus'])
    if case == 'partial joints':
        return goal_of([point(1.0, [0.1] * 4)], JOINTS[:4])
    if case == 'non-increasing times':
        return goal_of([point(1.0, [0.1] * 5), point(1.0, [0.2] * 5)])
    if case == 'wrong sizes':
        return goal_of([point(1.0, [0.1] * 4)])
    if case == 'nonzero final velocity':
        return goal_of([point(1.0, [0.1] * 5, [0.0, 0.0, 0.3, 0.0, 0.0])])
    if case == 'old header':
        goal = goal_of(good)
        goal.trajectory.header.stamp = Time(sec=int(time.time()) - 100)
        return goal
    return goal_of([])


def test_cancel_holds_position(kinematic):
    kinematic.go_home()
    final = [1.5, 1.0, 1.5, 2.0, 0.04]
    handle = kinematic.send(goal_of([point(4.0, final)]))
    assert handle.accepted
    kinematic.side.spin_until(lambda: len(kinematic.states) and np.max(np.abs(
        kinematic.vector())) > 0.1, what='the arm moving', process=kinematic.process)
    cancel = handle.cancel_goal_async()
    kinematic.side.spin_until(cancel.done, what='the cancel response', process=kinematic.process)
    result = kinematic.result(handle)
    assert result.status == GoalStatus.STATUS_CANCELED
    # states stamped after the result: older ones, still moving, may be queued behind it
    after = divmod(kinematic.side.node.get_clock().now().nanoseconds, 1_000_000_000)
    kinematic.states.messages.clear()
    kinematic.side.spin_until(lambda: sum(stamp_of(m) > after for m in kinematic.states.messages)
                              >= 2, what='joint states after the result',
                              process=kinematic.process)
    held = kinematic.vector()
    kinematic.side.spin_for(0.5)  # bounded absence check: it must not move any more
    assert np.max(np.abs(kinematic.vector() - held)) < 1e-12
    assert 0.1 < np.max(np.abs(held)) and np.all(np.abs(held) < np.abs(final))


def test_a_command_cancels_the_running_goal_with_jtc_result(kinematic):
    kinematic.go_home()
    handle = kinematic.send(goal_of([point(4.0, [1.0, 0.5, 0.5, 0.5, 0.02])]))
    assert handle.accepted
    command = [0.1, 0.1, 0.1, 0.1, 0.02]  # (the finger's limits: 0 to 0.04 m)
    kinematic.commands_pub.publish(Float64MultiArray(data=command))
    result = kinematic.result(handle)
    assert result.status == GoalStatus.STATUS_CANCELED, kinematic.process.log()
    assert result.result.error_code == Result.INVALID_GOAL
    assert result.result.error_string == ('Current goal cancelled due to a command on '
                                          'forward_position_controller/commands.')
    kinematic.wait_at(command, 1e-12, 'the commanded positions')
    assert kinematic.process.alive()


def test_forward_commands_move_joints_and_wrong_sizes_are_ignored(kinematic):
    target = [-0.3, 0.4, -0.5, 0.6, 0.03]
    kinematic.commands_pub.publish(Float64MultiArray(data=target))
    kinematic.wait_at(target, 1e-12, 'the commanded positions')
    kinematic.commands_pub.publish(Float64MultiArray(data=[1.0, 1.0]))
    kinematic.commands_pub.publish(Float64MultiArray(data=[float('nan')] * 5))
    kinematic.process.wait_for_log('command size (2) does not match number of interfaces (5)')
    kinematic.process.wait_for_log('command ignored: non-finite values')
    kinematic.side.spin_for(0.3)  # bounded absence check: the bad commands changed nothing
    assert np.max(np.abs(kinematic.vector() - target)) < 1e-12
    kinematic.commands_pub.publish(Float64MultiArray(data=HOME))
    kinematic.wait_at(HOME, 1e-12, 'home after the bad commands')


def test_joint_trajectory_topic_moves_joints(kinematic):
    kinematic.go_home()
    msg = JointTrajectory(joint_names=list(reversed(JOINTS)))
    final = [0.01, -0.7, 0.6, 0.2, 0.3]  # reversed order
    msg.points = [point(0.4, final)]
    kinematic.trajectory_pub.publish(msg)
    kinematic.wait_at(list(reversed(final)), 1e-12, 'the topic trajectory end')


# --- servo-mode node, fed over robot_description, invalid goals aborted with codes -------------

@pytest.fixture(scope='module')
def servo(module_launcher):
    return Controller(module_launcher, 'sim_controller_servo', 'mode:=servo',
                      'invalid_goal_response:=abort', description_publisher=True)


def test_servo_mode_tracks_a_goal(servo):
    servo.go_home()
    final = [0.6, -0.5, 0.9, -1.0, 0.03]
    result = servo.run(goal_of([point(0.5, [0.3, -0.2, 0.4, -0.5, 0.015], [0.5] * 5),
                                point(1.0, final, [0.0] * 5)]))
    assert result.result.error_code == Result.SUCCESSFUL
    servo.wait_at(final, 5e-3, 'the servos settling within 5 mrad')


@pytest.mark.parametrize('case, code', [
    ('unknown joint', Result.INVALID_JOINTS), ('partial joints', Result.INVALID_JOINTS),
    ('non-increasing times', Result.INVALID_GOAL), ('wrong sizes', Result.INVALID_GOAL),
    ('nonzero final velocity', Result.INVALID_GOAL),
    ('old header', Result.OLD_HEADER_TIMESTAMP)])
def test_invalid_goals_abort_with_error_codes(servo, case: str, code: int):
    result = servo.run(_invalid_goal(case))
    assert result.status == GoalStatus.STATUS_ABORTED
    assert result.result.error_code == code, result.result.error_string
    assert result.result.error_string


def test_path_tolerance_violation_aborts_and_holds(servo):
    servo.go_home()
    tight = [JointTolerance(name=j, position=1e-5) for j in JOINTS]
    result = servo.run(goal_of([point(0.5, [1.0, 0.5, 0.5, 0.5, 0.02])], path_tolerance=tight))
    assert result.status == GoalStatus.STATUS_ABORTED
    assert (result.result.error_code, result.result.error_string) == (
        Result.PATH_TOLERANCE_VIOLATED, 'Aborted due to path tolerance violation')


def test_goal_tolerance_violation_after_goal_time(servo):
    servo.go_home()
    tight = [JointTolerance(name=j, position=1e-9) for j in JOINTS]
    result = servo.run(goal_of([point(0.2, [1.0, 0.5, 0.5, 0.5, 0.02])], goal_tolerance=tight,
                               goal_time_tolerance=duration(0.02)))
    assert result.status == GoalStatus.STATUS_ABORTED
    assert result.result.error_code == Result.GOAL_TOLERANCE_VIOLATED
    assert result.result.error_string.startswith('Aborted due to goal_time_tolerance exceeding')


# --- the shipped ros2_control / gz_ros2_control files --------------------------------------------

CONTROLLERS = ROOT / 'config' / 'controllers'
def _arm_joints() -> tuple[set[str], set[str]]:
    """(independent movable joints, mimic joints) of the bundled arm, read with ElementTree."""
    import xml.etree.ElementTree as ET
    root = ET.parse(ARM).getroot()
    movable = {j.get('name') for j in root.findall('joint') if j.get('type') != 'fixed'}
    mimics = {j.get('name') for j in root.findall('joint') if j.find('mimic') is not None}
    return movable - mimics, mimics


def _hebi_arm_joints() -> tuple[set[str], set[str]]:
    """The same for the bundled HEBI arm's URDF (HRDF lowered by the library, whose joints
    test/formats/xmdi/test_bundled_motions.py checks against hebi-py)."""
    import xml.etree.ElementTree as ET
    root = ET.fromstring(Description.load(ROOT / 'examples' / 'hrdf' / 'hebi_arm.hrdf').urdf)
    movable = {j.get('name') for j in root.findall('joint') if j.get('type') != 'fixed'}
    mimics = {j.get('name') for j in root.findall('joint') if j.find('mimic') is not None}
    return movable - mimics, mimics


@pytest.mark.parametrize('file, robot_joints', [
    ('arm_with_gripper_controllers.yaml', _arm_joints),
    ('hebi_arm_controllers.yaml', _hebi_arm_joints)], ids=['arm_with_gripper', 'hebi_arm'])
def test_controller_manager_yaml_names_real_parameters_and_robot_joints(file, robot_joints):
    import yaml
    config = yaml.safe_load((CONTROLLERS / file).read_text())
    independent, _ = robot_joints()
    joints = config['joint_trajectory_controller']['ros__parameters']['joints']
    assert set(joints) == independent
    assert_ros2_controllers_file(config, joints, 'forward_position_controller', 'position')


def test_gz_ros2_control_example_is_the_bundled_arm_with_valid_controls(tmp_path):
    import xml.etree.ElementTree as ET
    from robot_formats.runtime.mujoco_sim import robot_from_urdf
    from .harness import run_check_urdf
    text = (CONTROLLERS / 'arm_with_gripper_gz.urdf.xacro').read_text()
    root, arm = ET.fromstring(text), ET.parse(ARM).getroot()
    for element in [*root, *arm]:
        element.tail = None
    for tag in ('link', 'joint', 'material'):
        assert [ET.tostring(e) for e in root.findall(tag)] == [
            ET.tostring(e) for e in arm.findall(tag)], f'the {tag}s differ from the bundled arm'
    independent, mimics = _arm_joints()
    control = root.find('ros2_control')
    assert control.find('hardware/plugin').text == 'gz_ros2_control/GazeboSimSystem'
    controlled = [j.get('name') for j in control.findall('joint')]
    assert set(controlled) == independent and not set(controlled) & mimics
    for joint in control.findall('joint'):
        assert [c.get('name') for c in joint.findall('command_interface')] == ['position']
        assert {s.get('name') for s in joint.findall('state_interface')} == {'position',
                                                                           'velocity'}
    plugin = root.find('gazebo/plugin')
    assert (plugin.get('filename'), plugin.get('name')) == (
        'gz_ros2_control-system', 'gz_ros2_control::GazeboSimROS2ControlPlugin')
    assert plugin.find('parameters').text.endswith(
        '/config/controllers/arm_with_gripper_controllers.yaml')
    scene, tree, _ = robot_from_urdf(text)  # robot_formats reads past the foreign elements
    assert set(tree.dof_names) == independent
    result = run_check_urdf(text, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
