"""``sim_controller``: ros2_control's joint controllers on a MuJoCo simulation of the robot.

The embedded target for machines without Gazebo or ros2_control. It loads the robot from the
``robot_description`` topic (or ``description_file``, read by any robot_formats reader), simulates
it in MuJoCo (:mod:`robot_formats.runtime.mujoco_sim`: position servos, or the exact ``kinematic``
mode) and offers the interfaces of the controllers a real robot runs, with their semantics:

* joint_trajectory_controller: ``<trajectory_controller>/joint_trajectory``
  (trajectory_msgs/JointTrajectory) and ``<trajectory_controller>/follow_joint_trajectory``
  (control_msgs/action/FollowJointTrajectory): the same validation and error text
  (:mod:`robot_formats.runtime.trajectory`), splines, tolerances, feedback, cancel = hold position;
* forward_command_controller: ``<forward_controller>/commands`` (std_msgs/Float64MultiArray,
  one value per joint, in ``joints`` order; any other size is ignored with a warning);
* ``joint_states`` (sensor_msgs/JointState) at ``publish_rate``: every simulated 1-DoF joint;
* ``<trajectory_controller>/controller_state`` (control_msgs/JointTrajectoryControllerState) at
  every update, as joint_trajectory_controller publishes it.

``controllers_file`` (the controller_manager file ``robot-formats controllers`` writes, or any
with ros2_controllers' parameter names) configures the joints, tolerances and rules from the
same file a real controller_manager or Gazebo reads.

See docs/controllers.md for parameters and every deviation from the real controllers.
The node never parses XML itself and no bad message ends it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
from builtin_interfaces.msg import Duration
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTrajectoryControllerState
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.publisher import Publisher
from rclpy.task import Future
from rclpy.time import Time
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from robot_formats.runtime import trajectory as jtc
from robot_formats.runtime.description import Description
from robot_formats.core.errors import FormatError
from robot_formats.runtime.mujoco_sim import (ModelBuilder, MujocoRobot, SimulationUnstable,
                                               description_size_problem)
from robot_formats.runtime.ros2_control import (TrajectoryControllerConfig,
                                                read_controllers_file)
from robot_formats.nodes.node_support import (LATCHED_QOS, PERIOD_RANGE, RATE_RANGE,
                                              StartupError, choice, declare_array, guarded,
                                              positive, ranged, run_node)

__all__ = ['SimController', 'main']

Result: TypeAlias = FollowJointTrajectory.Result
#: How problems of a description received on robot_description name it.
TOPIC_SOURCE = '<robot_description>'
#: Servo mode: how late (s) an update may come and still catch up with the updates it missed
#: (:meth:`SimController._advance`).
CATCH_UP_LIMIT = 1.0
#: How long (s) destroying the node waits for a robot being built (the process' exit waits
#: for the rest): a build is bounded by the description limits of runtime.mujoco_sim.
BUILD_STOP_WAIT = 3.0


def _seconds(duration) -> float:
    return duration.sec + duration.nanosec * 1e-9


def _duration(seconds: float) -> Duration:
    total = round(seconds * 1e9)
    return Duration(sec=total // 1_000_000_000, nanosec=total % 1_000_000_000)


def _points(msg: JointTrajectory) -> list[jtc.Point]:
    return [jtc.Point(_seconds(p.time_from_start), tuple(p.positions), tuple(p.velocities),
                      tuple(p.accelerations), tuple(p.effort)) for p in msg.points]


@dataclass
class _ActiveGoal:
    handle: ServerGoalHandle
    done: Future
    tolerances: jtc.SegmentTolerances
    last_feedback: float = -math.inf


@dataclass
class _Motion:
    """A trajectory being executed: pending until its first sample, as in JTC."""

    points: list[jtc.Point]
    stamp: float                      #: header.stamp in seconds; 0 = start at the first sample
    tolerances: jtc.SegmentTolerances
    goal: _ActiveGoal | None = None
    trajectory: jtc.Trajectory | None = None
    notes: list[str] = field(default_factory=list)


class SimController(Node):
    """MuJoCo robot + joint_trajectory_controller + forward_command_controller interfaces."""

    def __init__(self, node_name: str = 'sim_controller', **kwargs) -> None:
        super().__init__(node_name, **kwargs)
        self._declare_parameters()
        trajectory_ns = str(self.get_parameter('trajectory_controller').value).strip('/')
        forward_ns = str(self.get_parameter('forward_controller').value).strip('/')
        self.config = self._controllers_file(trajectory_ns, forward_ns)
        self.robot: MujocoRobot | None = None
        #: the time (s) the robot's joints were where they are: the last update's
        self._state_time: float | None = None
        self._published_time: float | None = None  #: the state time joint_states last had
        self.joints: list[str] = []          #: controller joints (parameter order)
        self._index = np.zeros(0, dtype=np.intp)  #: controller joint -> robot.joint_names index
        self.targets = np.zeros(0)           #: set points of every actuated joint
        self.motion: _Motion | None = None
        self.defaults = jtc.SegmentTolerances((), ())
        self.kinematic = self._mode() == 'kinematic'
        self.reject_invalid = self._invalid_goal_response() == 'reject'
        # what accepted_callback hands to execute_callback per goal: the goal started (a command
        # may end it before execute_callback runs) or why it is aborted
        self._accepted: dict[int, _ActiveGoal | jtc.TrajectoryRejected] = {}
        self._last_desired: jtc.Sample | None = None
        self._build_robot = functools.partial(
            MujocoRobot, kp=self._param('kp'), kv=self._param('kv') or None,
            armature=self._param('armature'),
            gravity_compensation=bool(self.get_parameter('gravity_compensation').value),
            timestep=self._param('timestep'))
        #: robot_description's robots are built here, off the executor (update() installs them)
        self._builder = ModelBuilder(self._build)

        self.joint_states_pub = self.create_publisher(JointState, 'joint_states', 10)
        self.state_pub = None
        if trajectory_ns:
            self.state_pub = self.create_publisher(
                JointTrajectoryControllerState, f'{trajectory_ns}/controller_state', 10)
            self.create_subscription(JointTrajectory, f'{trajectory_ns}/joint_trajectory',
                                     self.trajectory_callback, 10)
            self.action_server = ActionServer(
                self, FollowJointTrajectory, f'{trajectory_ns}/follow_joint_trajectory',
                execute_callback=self.execute_callback, goal_callback=self.goal_callback,
                handle_accepted_callback=self.accepted_callback,
                cancel_callback=self.cancel_callback)
        if forward_ns:
            self._commands_topic = f'{forward_ns}/commands'
            self.create_subscription(Float64MultiArray, self._commands_topic,
                                     self.commands_callback, 10)
        path = str(self.get_parameter('description_file').value)
        if path:
            self._load_file(path)
        else:
            self.create_subscription(String, 'robot_description', self.description_callback,
                                     LATCHED_QOS)
            self.get_logger().info('waiting for robot_description')
        self._update_period = 1.0 / self._rate('update_rate')
        self.create_timer(self._update_period, self.update)
        self.create_timer(1.0 / positive(self, 'publish_rate'), self.publish_joint_states)
        self._monitor_period = 1.0 / self._rate('action_monitor_rate')
        self.allow_partial_joints_goal = self._flag('allow_partial_joints_goal')
        self.allow_nonzero_velocity_at_trajectory_end = self._flag(
            'allow_nonzero_velocity_at_trajectory_end')

    def destroy_node(self) -> None:
        """Build no more robots, and let a build under way end before the node goes (the
        process' exit waits for it too: see :class:`ModelBuilder`)."""
        if not self._builder.close(BUILD_STOP_WAIT):
            self.get_logger().warning('a robot is still being built; the exit waits for it')
        super().destroy_node()

    # --- parameters -------------------------------------------------------------------------
    def _declare_parameters(self) -> None:
        def text(description: str) -> ParameterDescriptor:
            return ParameterDescriptor(description=description, read_only=True)

        declare = self.declare_parameter
        declare('description_file', '', text('Robot file in any format robot_formats reads; '
                                             'empty: use the robot_description topic.'))
        declare('controllers_file', '', text(
            "controller_manager parameter file (ros2_controllers' names, e.g. from "
            '`robot-formats controllers`): the trajectory controller\'s joints, tolerances and '
            'rules and the update rate come from it; empty: from these parameters.'))
        declare('trajectory_controller', 'joint_trajectory_controller', text(
            'Name (namespace) of the joint_trajectory_controller interfaces; empty: none.'))
        declare('forward_controller', 'forward_position_controller', text(
            'Name (namespace) of the forward_command_controller topic; empty: none.'))
        declare_array(self, 'joints', Parameter.Type.STRING_ARRAY, text(
            'Controlled joints, in command order; empty: every independent 1-DoF joint.'))
        declare('mode', 'servo', text("'servo' (MuJoCo position actuators) or 'kinematic' "
                                      '(positions written exactly)'))
        declare('update_rate', 100.0, ranged(text('Controller update rate, Hz.'), *RATE_RANGE))
        declare('publish_rate', 50.0, ranged(text('joint_states rate, Hz.'), *RATE_RANGE))
        declare('action_monitor_rate', 20.0,
                ranged(text('FollowJointTrajectory feedback rate, Hz.'), *RATE_RANGE))
        declare('kp', 500.0, text('Servo stiffness (N m/rad or N/m).'))
        declare('kv', 0.0, text('Servo damping; 0: critically damped from kp and armature.'))
        declare('armature', 0.05, text('Rotor inertia added to every actuated joint.'))
        declare('gravity_compensation', True, text('Compensate gravity on every body.'))
        declare('timestep', 0.001, ranged(text('MuJoCo time step, s.'), *PERIOD_RANGE))
        declare('allow_partial_joints_goal', False, text('As joint_trajectory_controller.'))
        declare('allow_nonzero_velocity_at_trajectory_end', False, text(
            'As joint_trajectory_controller.'))
        declare('constraints.goal_time', 0.0, text('As joint_trajectory_controller.'))
        declare('constraints.stopped_velocity_tolerance', 0.01, text(
            'As joint_trajectory_controller (velocity errors are not checked with a position '
            'command interface).'))
        declare('invalid_goal_response', 'reject', text(
            "'reject' (ros2_controllers: invalid goals are rejected) or 'abort' (accept, then "
            'abort with INVALID_GOAL / INVALID_JOINTS / OLD_HEADER_TIMESTAMP and the reason)'))

    def _declare_joint_parameters(self, joint: str) -> None:
        """``constraints.<joint>.trajectory`` / ``.goal``, declared once the joints are known
        (again after a new robot_description: only those not declared yet)."""
        for kind in ('trajectory', 'goal'):
            name = f'constraints.{joint}.{kind}'
            if not self.has_parameter(name):
                self.declare_parameter(name, 0.0, ParameterDescriptor(
                    description='As joint_trajectory_controller.', read_only=True))

    def _mode(self) -> str:
        return choice(self, 'mode', ('servo', 'kinematic'))

    def _invalid_goal_response(self) -> str:
        return choice(self, 'invalid_goal_response', ('reject', 'abort'))

    def _param(self, name: str) -> float:
        return float(self.get_parameter(name).value)

    def _stated(self, name: str):
        """What the controllers file says of the setting ``name`` (the parameter's name and
        the file's field alike), or None."""
        return None if self.config is None else getattr(self.config, name)

    def _rate(self, name: str) -> float:
        """A rate (Hz): the file's (its reader checks it is positive), else the parameter's,
        checked here."""
        stated = self._stated(name)
        return positive(self, name) if stated is None else stated

    def _flag(self, name: str) -> bool:
        stated = self._stated(name)
        return bool(self.get_parameter(name).value if stated is None else stated)

    def _controllers_file(self, trajectory_ns: str, forward_ns: str
                          ) -> TrajectoryControllerConfig | None:
        """Read ``controllers_file``; a file that cannot configure us stops the start-up."""
        path = str(self.get_parameter('controllers_file').value)
        if not path:
            return None
        try:
            config = read_controllers_file(path, trajectory_ns or 'joint_trajectory_controller',
                                           forward_ns or 'forward_position_controller')
        except FormatError as err:
            raise StartupError(f'controllers_file: {err}') from None
        if config.forward_joints is not None and config.forward_joints != config.joints:
            raise StartupError(
                f'controllers_file {path}: {forward_ns} joints ({", ".join(config.forward_joints)})'
                f' differ from {trajectory_ns} joints ({", ".join(config.joints)}); sim_controller '
                'drives one joint list for both')
        if config.command_interfaces != ('position',):
            self.get_logger().warning(
                f'controllers_file {path}: command interfaces '
                f'{", ".join(config.command_interfaces)}; the simulated servos are commanded in '
                'position')
        self.get_logger().info(f'controllers from {path}: joints {", ".join(config.joints)}')
        return config

    # --- loading ----------------------------------------------------------------------------
    def _load_file(self, path: str) -> None:
        try:
            description = Description.load(path)
            robot = self._build(description.urdf, path)
        except Exception as err:  # noqa: BLE001 - reported; the node keeps running
            self._refused(err)
            return
        self._install(robot)

    @guarded
    def description_callback(self, msg: String) -> None:
        """A description too large is refused at once; another is built off the executor
        (:class:`ModelBuilder`) and installed by :meth:`update` when it is ready."""
        problem = description_size_problem(msg.data)
        if problem is not None:
            self._refused(FormatError(problem, TOPIC_SOURCE))
            return
        self.get_logger().info('robot_description received: building its simulation')
        self._builder.submit(msg.data)

    def _build(self, urdf: str, source: str = TOPIC_SOURCE) -> MujocoRobot:
        return self._build_robot(urdf, source)

    def _refused(self, err: Exception) -> None:
        keeping = 'keeping the previous robot' if self.robot is not None else 'no robot to simulate'
        if isinstance(err, FormatError):
            self.get_logger().error(f'robot description refused: {err}; {keeping}')
        else:  # MuJoCo refusing a model must not end us
            self.get_logger().error(f'MuJoCo cannot simulate this robot: '
                                    f'{type(err).__name__}: {err}; {keeping}')

    def _install_built(self) -> None:
        """The robots built since the last update (the latest wins), or why they were not."""
        for outcome in self._builder.take():
            if isinstance(outcome, MujocoRobot):
                self._install(outcome)
            else:
                self._refused(outcome)

    def _install(self, robot: MujocoRobot) -> None:
        joints = list(self.get_parameter('joints').value
                      or (self.config.joints if self.config else robot.joint_names))
        unknown = [j for j in joints if j not in robot.index]
        if unknown or len(set(joints)) != len(joints):
            self.get_logger().error(
                f'{"controllers_file" if self.config else "parameter"} joints names '
                f'{", ".join(unknown) or "a joint twice"}, but the '
                f'simulated joints are {", ".join(robot.joint_names)}; not controlling')
            return
        for warning in robot.warnings:
            self.get_logger().warning(str(warning))
        self._abort_motion(jtc.INVALID_GOAL, 'Current goal cancelled: the robot description '
                           'changed.')
        robot.time = self._now()
        self._state_time = None
        self.robot, self.joints = robot, joints
        self._index = np.array([robot.index[j] for j in joints], dtype=np.intp)
        self.targets = robot.positions()
        self.defaults = self._default_tolerances()
        self.get_logger().info(
            f'simulating {robot.scene.models[0].name} ({self._mode()} mode); controlling '
            f'{", ".join(joints)}; ready')

    def _default_tolerances(self) -> jtc.SegmentTolerances:
        """constraints.<joint>.trajectory / .goal (declared once the joints are known), the
        controllers file's where it states them."""
        state, goal = [], []
        for joint in self.joints:
            stated = self.config.tolerance(joint) if self.config else (None, None)
            self._declare_joint_parameters(joint)
            values = []
            for kind, from_file in zip(('trajectory', 'goal'), stated):
                name = f'constraints.{joint}.{kind}'
                values.append(self._param(name) if from_file is None else from_file)
            state.append(jtc.StateTolerance(values[0]))
            goal.append(jtc.StateTolerance(values[1]))
        goal_time = self.config.goal_time if self.config else None
        return jtc.SegmentTolerances(tuple(state), tuple(goal), self._param(
            'constraints.goal_time') if goal_time is None else goal_time)

    # --- time and state ---------------------------------------------------------------------
    def _now(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _actual(self) -> tuple[np.ndarray, np.ndarray]:
        assert self.robot is not None
        return self.robot.positions()[self._index], self.robot.velocities()[self._index]

    def _hold(self) -> None:
        """Stay where the joints are now (JTC's set_hold_position)."""
        self.motion = None
        if self.robot is not None:
            self.targets[self._index] = self._actual()[0]

    # --- validation -------------------------------------------------------------------------
    def _check(self, msg: JointTrajectory) -> jtc.TrajectoryRejected | None:
        """JTC's validation, then (beyond JTC) every position within its joint's limits."""
        if self.robot is None:
            return jtc.TrajectoryRejected(jtc.INVALID_GOAL, 'No robot is loaded yet.')
        points = _points(msg)
        try:
            jtc.validate(list(msg.joint_names), points, self.joints,
                         start_time=msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9,
                         now=self._now(),
                         allow_partial_joints_goal=self.allow_partial_joints_goal,
                         allow_nonzero_velocity_at_trajectory_end=(
                             self.allow_nonzero_velocity_at_trajectory_end))
            jtc.check_limits(list(msg.joint_names), points, self.robot.limits)
        except jtc.TrajectoryRejected as rejection:
            return rejection
        return None

    def _motion(self, msg: JointTrajectory, tolerances: jtc.SegmentTolerances) -> _Motion:
        points = jtc.reorder(list(msg.joint_names), _points(msg), self.joints,
                             self.targets[self._index])
        stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
        return _Motion(points, stamp, tolerances)

    # --- joint_trajectory topic ---------------------------------------------------------------
    @guarded
    def trajectory_callback(self, msg: JointTrajectory) -> None:
        rejection = self._check(msg)
        if rejection is not None:
            self.get_logger().error(rejection.message)
            return
        self._abort_motion(jtc.INVALID_GOAL, 'Current goal cancelled due to a new trajectory '
                           'on the joint_trajectory topic.')
        self.motion = self._motion(msg, self.defaults)

    # --- FollowJointTrajectory ----------------------------------------------------------------
    def goal_callback(self, goal: FollowJointTrajectory.Goal) -> GoalResponse:
        try:
            rejection = self._check(goal.trajectory)
        except Exception as err:  # noqa: BLE001
            self.get_logger().error(f'internal error validating a goal: {err!r}')
            return GoalResponse.REJECT
        if rejection is not None:
            self.get_logger().error(rejection.message)
            if self.reject_invalid:
                return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    @guarded
    def accepted_callback(self, handle: ServerGoalHandle) -> None:
        goal = handle.request
        rejection = self._check(goal.trajectory)
        if rejection is not None:
            self._accepted[id(handle)] = rejection
            handle.execute()
            return
        self._abort_motion(jtc.INVALID_GOAL, 'Current goal cancelled due to new incoming '
                           'action.')
        tolerances = jtc.segment_tolerances(
            self.defaults, self.joints,
            [(t.name, t.position, t.velocity, t.acceleration) for t in goal.path_tolerance],
            [(t.name, t.position, t.velocity, t.acceleration) for t in goal.goal_tolerance],
            _seconds(goal.goal_time_tolerance))
        for note in tolerances.notes:
            self.get_logger().error(note)
        self.motion = self._motion(goal.trajectory, tolerances)
        self.motion.goal = self._accepted[id(handle)] = _ActiveGoal(handle, Future(), tolerances)
        handle.execute()

    async def execute_callback(self, handle: ServerGoalHandle) -> Result:
        goal = self._accepted.pop(id(handle), None)
        if isinstance(goal, jtc.TrajectoryRejected):
            handle.abort()
            return Result(error_code=goal.code, error_string=goal.message)
        if goal is None:  # accepted_callback failed before it started the goal
            handle.abort()
            return Result(error_code=jtc.INVALID_GOAL, error_string='internal error: the goal '
                          'was accepted but never started (see the log)')
        # Already done when a command or a newer goal replaced it before this ran: then its
        # result is the replacement's (CANCELED, 'Current goal cancelled due to ...').
        return await goal.done

    def cancel_callback(self, handle: ServerGoalHandle) -> CancelResponse:
        self.get_logger().info('Got request to cancel goal')
        return CancelResponse.ACCEPT

    def _finish(self, goal: _ActiveGoal, outcome: str, code: int, text: str) -> None:
        """End a goal: succeed / abort / canceled, and hand its result to execute_callback."""
        handle = goal.handle
        try:
            if outcome == 'succeed':
                handle.succeed()
            elif outcome == 'canceled':
                if not handle.is_cancel_requested:
                    # JTC marks a preempted goal CANCELED; the goal state machine needs the
                    # cancel request first.
                    handle._update_state(_rclpy.GoalEvent.CANCEL_GOAL)
                handle.canceled()
            else:
                handle.abort()
        except Exception:  # noqa: BLE001 - a state the goal cannot take: abort it instead
            if handle.is_active:
                handle.abort()
        if not goal.done.done():
            goal.done.set_result(Result(error_code=code, error_string=text))

    def _abort_motion(self, code: int, text: str) -> None:
        """A new command replaces the motion; its goal ends CANCELED with ``text`` (as JTC)."""
        if self.motion is not None and self.motion.goal is not None:
            self._finish(self.motion.goal, 'canceled', code, text)
        self.motion = None

    # --- forward_command_controller --------------------------------------------------------------
    @guarded
    def commands_callback(self, msg: Float64MultiArray) -> None:
        if self.robot is None:
            self.get_logger().warning('command ignored: no robot is loaded yet',
                                      throttle_duration_sec=5.0)
            return
        data = np.asarray(msg.data, dtype=float)
        if data.size != len(self.joints):
            self.get_logger().error(f'command size ({data.size}) does not match number of '
                                    f'interfaces ({len(self.joints)})',
                                    throttle_duration_sec=1.0)
            return
        if not np.isfinite(data).all():
            self.get_logger().error('command ignored: non-finite values',
                                    throttle_duration_sec=1.0)
            return
        problem = jtc.position_limit_problem(self.joints, data, self.robot.limits)
        if problem is not None:
            self.get_logger().error(f'command ignored: the {problem}', throttle_duration_sec=1.0)
            return
        self._abort_motion(jtc.INVALID_GOAL, 'Current goal cancelled due to a command on '
                           f'{self._commands_topic}.')
        self.targets[self._index] = data

    # --- the control loop -------------------------------------------------------------------
    @guarded
    def update(self) -> None:
        self._install_built()
        if self.robot is None:
            return
        try:
            self._update(self.robot)
        except SimulationUnstable as err:
            self._unstable(self.robot, err)

    def _unstable(self, robot: MujocoRobot, err: SimulationUnstable) -> None:
        """MuJoCo reset the robot: the running goal is aborted with why; the robot holds where
        the reset left it."""
        text = f'Aborted: {err}'
        self.get_logger().error(text, throttle_duration_sec=1.0)
        goal = self.motion.goal if self.motion is not None else None
        self.motion = None
        self.targets = robot.positions()
        self._state_time = self._now()  # the reset's state, published as any other
        if goal is not None:
            self._finish(goal, 'abort', jtc.PATH_TOLERANCE_VIOLATED, text)

    def _update(self, robot: MujocoRobot) -> None:
        now = self._now()
        if not self.kinematic:
            self._advance(robot, now)
        motion = self.motion
        if motion is not None and motion.goal is not None and \
                motion.goal.handle.is_cancel_requested:
            self.get_logger().info('Canceling active action goal because cancel callback '
                                   'received.')
            goal = motion.goal
            self._hold()
            self._finish(goal, 'canceled', jtc.SUCCESSFUL, '')
            motion = None
        self._last_desired = None
        if motion is not None:
            self._follow(robot, motion, now)
        if self.kinematic:
            robot.set_exact(self.targets)
        else:
            robot.set_targets(self.targets)
        # the joints are where they were at this update's time (servo mode: the simulation's
        # time, to which it has just advanced)
        self._state_time = now if self.kinematic else robot.time
        if self.state_pub is not None and self.state_pub.get_subscription_count():
            self._publish_state(robot, self.state_pub, now)  # (nobody listening: not built)

    def _publish_state(self, robot: MujocoRobot, publisher: Publisher, now: float) -> None:
        """JTC's ``~/controller_state``: reference (the sample followed this update, else the
        held set point), feedback (the joints), error, output (the position command sent)."""
        actual, velocity = self._actual()
        command = self.targets[self._index]
        desired = self._last_desired
        msg = JointTrajectoryControllerState()
        msg.header.stamp = Time(nanoseconds=round(now * 1e9)).to_msg()
        msg.joint_names = list(self.joints)
        reference = desired.positions if desired is not None else command
        msg.reference = JointTrajectoryPoint(
            positions=np.asarray(reference, dtype=float).tolist(),
            velocities=(desired.velocities.tolist() if desired is not None
                        else [0.0] * len(self.joints)),
            accelerations=(desired.accelerations.tolist() if desired is not None
                           else [0.0] * len(self.joints)))
        msg.feedback = JointTrajectoryPoint(positions=actual.tolist(),
                                            velocities=velocity.tolist())
        msg.error = JointTrajectoryPoint(
            positions=jtc.position_errors(np.asarray(reference, dtype=float), actual,
                                          robot.wraps[self._index]).tolist(),
            velocities=(np.asarray(msg.reference.velocities) - velocity).tolist())
        msg.output = JointTrajectoryPoint(positions=command.tolist())
        msg.speed_scaling_factor = 1.0  # trajectories run at their own speed, never scaled
        publisher.publish(msg)

    def _advance(self, robot: MujocoRobot, now: float) -> None:
        """Servo mode: the simulation advances to ``now``. An update that comes late (a
        loaded machine) catches up in update periods, each with the set points the followed
        trajectory has at its start, as the updates on time would have set them (for at most
        :data:`CATCH_UP_LIMIT` s; beyond, the simulation skips time: a starved process must not
        spiral). So the joints follow a motion as on time; only the states come later."""
        motion = self.motion
        trajectory = motion.trajectory if motion is not None else None
        if trajectory is not None and now - robot.time <= CATCH_UP_LIMIT:
            update = robot.time + self._update_period
            while update < now - self._update_period / 2:
                robot.step_until(update)
                desired = trajectory.sample(update)
                if desired is None:
                    break
                self.targets[self._index] = desired.positions
                robot.set_targets(self.targets)
                update += self._update_period
        robot.step_until(now)

    def _follow(self, robot: MujocoRobot, motion: _Motion, now: float) -> None:
        actual, velocity = self._actual()
        trajectory = motion.trajectory
        first_sample = trajectory is None
        if trajectory is None:
            trajectory = motion.trajectory = jtc.Trajectory(motion.points, motion.stamp or now,
                                                            now, actual, velocity)
        desired = trajectory.sample(now)
        if desired is None:
            return
        self._last_desired = desired
        if self.kinematic:
            actual = desired.positions  # written exactly this cycle
        error = jtc.position_errors(desired.positions, actual, robot.wraps[self._index])
        tolerances = motion.tolerances
        before_last = not desired.past_end
        path_violated = (before_last or first_sample) and not all(
            jtc.within_tolerance(t, e) for t, e in zip(tolerances.state, error))
        outside_goal = not before_last and not all(
            jtc.within_tolerance(t, e) for t, e in zip(tolerances.goal, error))
        late = now - trajectory.end_time
        within_goal_time = not (outside_goal and tolerances.goal_time != 0.0
                                and late > tolerances.goal_time)
        if not path_violated and within_goal_time:
            self.targets[self._index] = desired.positions
        goal = motion.goal
        if goal is not None:
            self._feedback(goal, now, desired, motion.points, actual, velocity, error)
        if path_violated:
            self.get_logger().warning('Aborted due to state tolerance violation' if goal else
                                      'Holding position due to state tolerance violation')
            self._hold()
            if goal is not None:
                self._finish(goal, 'abort', jtc.PATH_TOLERANCE_VIOLATED,
                             'Aborted due to path tolerance violation')
        elif not before_last and not outside_goal:
            self.motion = None  # the last point's positions stay the set point
            if goal is not None:
                self.get_logger().info('Goal reached, success!')
                self._finish(goal, 'succeed', jtc.SUCCESSFUL, 'Goal successfully reached!')
        elif not within_goal_time:
            text = f'Aborted due to goal_time_tolerance exceeding by {late:f} seconds'
            self.get_logger().warning(text)
            self._hold()
            if goal is not None:
                self._finish(goal, 'abort', jtc.GOAL_TOLERANCE_VIOLATED, text)

    def _feedback(self, goal: _ActiveGoal, now: float, desired: jtc.Sample,
                  points: list[jtc.Point], actual: np.ndarray, velocity: np.ndarray,
                  error: np.ndarray) -> None:
        if now - goal.last_feedback < self._monitor_period * 0.999:
            return
        goal.last_feedback = now
        feedback = FollowJointTrajectory.Feedback()
        feedback.header.stamp = self.get_clock().now().to_msg()
        feedback.joint_names = list(self.joints)
        # as JTC's Trajectory::sample: the time_from_start of the point being moved towards
        # (the last point once past the end)
        towards = points[min(desired.segment, len(points) - 1)].time
        feedback.desired = JointTrajectoryPoint(
            positions=desired.positions.tolist(), velocities=desired.velocities.tolist(),
            accelerations=desired.accelerations.tolist(),
            time_from_start=_duration(towards))
        feedback.actual = JointTrajectoryPoint(positions=np.asarray(actual).tolist(),
                                               velocities=velocity.tolist())
        feedback.error = JointTrajectoryPoint(positions=error.tolist(),
                                              velocities=(desired.velocities - velocity).tolist())
        goal.handle.publish_feedback(feedback)

    @guarded
    def publish_joint_states(self) -> None:
        if self.robot is None:
            return
        # stamped with the time the joints were there (the last update's), not the time of
        # publishing: a publish timer that fires late (a loaded machine) does not shift them;
        # a state is published once (no update since the last message: nothing new to say)
        state_time = self._state_time
        if state_time is not None and state_time == self._published_time:
            return
        self._published_time = state_time
        positions, velocities = self.robot.all_positions(), self.robot.all_velocities()
        msg = JointState()
        msg.header.stamp = (Time(nanoseconds=round(state_time * 1e9)).to_msg()
                            if state_time is not None else self.get_clock().now().to_msg())
        msg.name = list(positions)
        msg.position = list(positions.values())
        msg.velocity = [velocities[n] for n in positions]
        self.joint_states_pub.publish(msg)


def _declare_every_parameter(node: Any) -> None:
    """Every parameter the node takes, the per-joint ones as ``constraints.<joint>.…``
    (--help): on the node, or a :class:`ParameterListing` standing in for it."""
    SimController._declare_parameters(node)
    SimController._declare_joint_parameters(node, '<joint>')


def main(args: list[str] | None = None) -> int:
    return run_node('sim_controller', SimController, args, parameters=_declare_every_parameter)


if __name__ == '__main__':
    raise SystemExit(main())
