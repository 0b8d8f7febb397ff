"""``motion_player``: plays XMDI motions to the joint controllers ROS robots use.

Parameters (read-only; set them at start, e.g. ``--ros-args -p output_mode:=stream``):

==========================  ===============================  ====================================
``motion_files``            string[] (required for motions)  XMDI files and/or directories (every
                                                             ``*.xmdi`` in them, sorted by name)
``servo_map``               string, ``''``                   YAML servo -> joint mapping (scale,
                                                             offset); empty: servo = joint
``frame_period``            double, ``0.032``                seconds per XMDI frame
``interpolation``           string, ``linear``               ``linear`` (as Webots) or ``cubic``
``output_mode``             string, ``trajectory``           ``trajectory`` | ``action`` |
                                                             ``stream`` | ``joint_states``
``controller``              string,                          the controller's name: its topics
                            ``joint_trajectory_controller``  and action are under it
``controller_joints``       string[], motion's joints        stream mode: the controller's joints
                                                             in its order
``stream_rate``             double, ``100.0``                Hz of stream / joint_states output
``feedback_rate``           double, ``20.0``                 Hz of ``~/play`` feedback
``controller_timeout``      double, ``5.0``                  action mode: seconds to wait for the
                                                             controller's action server / answers
``realtime_priority``       int, ``0``                       stream / joint_states: SCHED_FIFO
                                                             priority of the play thread (if
                                                             permitted); 0: normal scheduling
``robot_description_topic`` string, ``robot_description``    the robot model (URDF, latched)
==========================  ===============================  ====================================

Interfaces:

* ``~/list_motions`` (robot_formats_interfaces/srv/ListMotions);
* ``~/play`` (robot_formats_interfaces/action/PlayMotion): motion, speed factor, loop count,
  reverse, start time; feedback time/frame/progress/loop; cancel stops and holds position;
  one goal at a time (a second one is aborted with INVALID_GOAL);
* ``output_mode`` targeting the controller named by ``controller``:
  - ``trajectory``: trajectory_msgs/JointTrajectory on ``<controller>/joint_trajectory``
    (joint_trajectory_controller's topic), one message per play; cancel sends a one-point
    trajectory holding the position reached;
  - ``action``: control_msgs/action/FollowJointTrajectory on
    ``<controller>/follow_joint_trajectory``, relaying the controller's feedback and error codes;
    cancel cancels the controller's goal (the controller holds);
  - ``stream``: std_msgs/Float64MultiArray on ``<controller>/commands`` at ``stream_rate``
    (forward_command_controller); cancel publishes the position reached, last;
  - ``joint_states``: sensor_msgs/JointState on ``joint_states`` at ``stream_rate`` (a preview
    in rviz through description_publisher).
* subscribes ``robot_description`` (std_msgs/String, transient local).

Before anything moves, the play is checked against the robot model received on
``robot_description`` (parsed by the library: :mod:`robot_formats.formats.xmdi.safety`): every servo
drives a commandable joint, positions and velocities within limits, the trajectory obeys
joint_trajectory_controller's rules. A failed check ends the goal (aborted) with success=false,
the reason and an error code (PlayMotion.Result constants), and nothing is sent.

Stream and joint_states output run on a dedicated thread with absolute deadlines (sleep until
0.5 ms before, then spin); the result message reports the measured publish instants against the
schedule (p50/p99/max). The node never parses XML itself and no bad request ends it.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass

from action_msgs.msg import GoalStatus
from builtin_interfaces.msg import Duration
from control_msgs.action import FollowJointTrajectory
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.action import ActionClient, ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.duration import Duration as RosDuration
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.publisher import Publisher
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.task import Future
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from robot_formats_interfaces.action import PlayMotion
from robot_formats_interfaces.msg import MotionInfo
from robot_formats_interfaces.srv import ListMotions

from robot_formats.core.errors import FormatError, InvalidValueError
from robot_formats.formats.xmdi.library import MotionLibrary
from robot_formats.formats.xmdi.mapping import ServoMapping
from robot_formats.formats.xmdi.playback import (MAX_PLAY_POINTS, MAX_PLAY_TIME, Interpolation,
                                                 Playback, PlayOptions, SampleTimes,
                                                 TrajectoryPoint)
from robot_formats.formats.xmdi.safety import MotionRejected, RobotJoints, check_play
from robot_formats.nodes.node_support import (LATCHED_QOS, PERIOD_RANGE, RATE_RANGE, choice,
                                              declare_array, guarded, positive, ranged,
                                              run_node)
from robot_formats.runtime.stream_timing import (StreamSamples, TickTiming, timing_thread_setup,
                                                 wait_until)

__all__ = ['MotionPlayer', 'main', 'OUTPUT_MODES', 'duration_msg', 'PLAY_SERVICE_QOS',
           'FEEDBACK_ACK_TIMEOUT', 'CONTROLLER_CHECK_PERIOD', 'GOAL_RESEND_PERIOD',
           'MAX_PLAY_TIME', 'MAX_PLAY_POINTS']

OUTPUT_MODES = ('trajectory', 'action', 'stream', 'joint_states')
#: Python's GIL hand-over interval while streaming (the default 5 ms would let another thread
#: hold the interpreter past a 1 kHz deadline).
STREAM_SWITCH_INTERVAL = 1e-4
#: ``~/play``'s goal, cancel and result services keep up to 1000 requests waiting: with ROS'
#: default of 10, a burst of goals lost all but the first ten, which were never answered.
PLAY_SERVICE_QOS = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1000,
                              reliability=ReliabilityPolicy.RELIABLE)
#: Seconds every ``~/play`` feedback reader gets to acknowledge a finished play's last feedback
#: (progress 1.0) before the result is sent (a reader that is gone or stalled is not waited for
#: longer).
FEEDBACK_ACK_TIMEOUT = 2.0
#: Action mode: how often (s) the player looks whether the controller's action server is still
#: on the ROS graph while it waits for the controller's result.
CONTROLLER_CHECK_PERIOD = 0.1
#: Action mode: a goal request the controller has not answered within this time (s) is sent
#: again, until ``controller_timeout`` (:meth:`MotionPlayer._send_goal`).
GOAL_RESEND_PERIOD = 0.5


def duration_msg(seconds: float) -> Duration:
    """builtin_interfaces/Duration of ``seconds``, rounded to the nanosecond."""
    total = round(seconds * 1e9)
    return Duration(sec=total // 1_000_000_000, nanosec=total % 1_000_000_000)


class _Stop(Exception):
    """A play ended early: (result code name, message)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class MotionPlayer(Node):
    """Serves a motion library; plays one motion at a time to the configured controller."""

    def __init__(self, node_name: str = 'motion_player', **kwargs) -> None:
        super().__init__(node_name, **kwargs)
        self._declare_parameters()
        self.mode = choice(self, 'output_mode', OUTPUT_MODES)
        self.controller = str(self.get_parameter('controller').value).rstrip('/')
        self.stream_rate = positive(self, 'stream_rate')
        self.feedback_period = 1.0 / positive(self, 'feedback_rate')
        self.frame_period = positive(self, 'frame_period', 's')
        self.interpolation = Interpolation.parse(str(self.get_parameter('interpolation').value))
        self.controller_timeout = positive(self, 'controller_timeout')
        self.realtime_priority = int(self.get_parameter('realtime_priority').value)
        self.controller_joints = tuple(self.get_parameter_or('controller_joints', None).value or ())
        self.library = self._load_library()
        self.robot: RobotJoints | None = None
        self._busy = threading.Lock()
        self._group = ReentrantCallbackGroup()
        self._create_output()
        self.create_subscription(String, str(self.get_parameter('robot_description_topic').value),
                                 self._description_callback, LATCHED_QOS,
                                 callback_group=self._group)
        self.create_service(ListMotions, '~/list_motions', self._list_callback,
                            callback_group=self._group)
        self._server = ActionServer(self, PlayMotion, '~/play', self._execute,
                                    goal_callback=lambda goal: GoalResponse.ACCEPT,
                                    cancel_callback=lambda handle: CancelResponse.ACCEPT,
                                    callback_group=self._group,
                                    goal_service_qos_profile=PLAY_SERVICE_QOS,
                                    result_service_qos_profile=PLAY_SERVICE_QOS,
                                    cancel_service_qos_profile=PLAY_SERVICE_QOS)
        # the feedback goes out on this writer, beside rcl_action's own (see _FeedbackChannel)
        self._feedback_pub = self.create_publisher(PlayMotion.Impl.FeedbackMessage,
                                                   '~/play/_action/feedback', QoSProfile(depth=10))
        if self.mode in ('stream', 'joint_states'):
            sys.setswitchinterval(min(sys.getswitchinterval(), STREAM_SWITCH_INTERVAL))
        self.get_logger().info(
            f'ready: {len(self.library.names)} motion(s) ({", ".join(self.library.names)}); '
            f'output {self.mode} -> {self._output_name()}')

    # --- configuration ----------------------------------------------------------------------
    def _declare_parameters(self) -> None:
        def text(description: str) -> ParameterDescriptor:
            return ParameterDescriptor(description=description, read_only=True)

        declare_array(self, 'motion_files', Parameter.Type.STRING_ARRAY, text(
            'XMDI files, or directories whose *.xmdi files are all loaded.'))
        self.declare_parameter('servo_map', '', text(
            'YAML servo -> joint mapping with scale and offset (empty: servos are joints).'))
        self.declare_parameter('frame_period', 0.032,
                               ranged(text('Seconds per XMDI frame.'), *PERIOD_RANGE))
        self.declare_parameter('interpolation', 'linear', text("'linear' (Webots) or 'cubic'."))
        self.declare_parameter('output_mode', 'trajectory', text(
            'trajectory | action | stream | joint_states.'))
        self.declare_parameter('controller', 'joint_trajectory_controller', text(
            'Controller name: topics and action live under it.'))
        declare_array(self, 'controller_joints', Parameter.Type.STRING_ARRAY, text(
            "stream mode: the controller's joints in its order (empty: the motion's joints)."))
        self.declare_parameter('stream_rate', 100.0, ranged(text(
            'Hz of the stream and joint_states modes.'), *RATE_RANGE))
        self.declare_parameter('feedback_rate', 20.0,
                               ranged(text('Hz of ~/play feedback.'), *RATE_RANGE))
        self.declare_parameter('controller_timeout', 5.0, text(
            "action mode: seconds to wait for the controller's action server and answers."))
        self.declare_parameter('realtime_priority', 0, text(
            'stream / joint_states: SCHED_FIFO priority (1-99) of the play thread if the '
            'system permits; 0: normal scheduling.'))
        self.declare_parameter('robot_description_topic', 'robot_description', text(
            'Where the robot model (URDF) comes from.'))

    def _load_library(self) -> MotionLibrary:
        files = list(self.get_parameter_or('motion_files', None).value or [])
        servo_map = str(self.get_parameter('servo_map').value)
        mapping = ServoMapping.from_yaml(servo_map) if servo_map else None
        library = MotionLibrary.load(files, mapping, self.frame_period, self.interpolation)
        for warning in library.warnings:
            self.get_logger().warning(str(warning))
        if not library.names:
            self.get_logger().warning('no motions loaded: set motion_files')
        return library

    def _topic(self, leaf: str) -> str:
        return f'{self.controller}/{leaf}' if self.controller else leaf

    def _output_name(self) -> str:
        return {'trajectory': self._topic('joint_trajectory'),
                'action': self._topic('follow_joint_trajectory'),
                'stream': self._topic('commands'), 'joint_states': 'joint_states'}[self.mode]

    def _create_output(self) -> None:
        self.trajectory_pub: Publisher | None = None
        self.stream_pub: Publisher | None = None
        self.joint_states_pub: Publisher | None = None
        self.action_client: ActionClient | None = None
        if self.mode == 'trajectory':
            self.trajectory_pub = self.create_publisher(JointTrajectory, self._output_name(), 10)
        elif self.mode == 'stream':
            self.stream_pub = self.create_publisher(Float64MultiArray, self._output_name(), 10)
        elif self.mode == 'joint_states':
            self.joint_states_pub = self.create_publisher(JointState, 'joint_states', 10)
        else:
            self.action_client = ActionClient(self, FollowJointTrajectory, self._output_name(),
                                              callback_group=self._group)

    # --- inputs -----------------------------------------------------------------------------
    @guarded(throttle_sec=0)
    def _description_callback(self, msg: String) -> None:
        try:
            robot = RobotJoints.from_urdf_text(msg.data)
        except FormatError as err:
            self.get_logger().error(f'robot_description is not a usable URDF: {err}; keeping '
                                    'the previous model')
            return
        self.robot = robot
        self.get_logger().info(f'robot model: {len(robot.limits)} commandable joint(s)')

    @guarded(throttle_sec=0)
    def _list_callback(self, request, response):
        for name, entry in self.library.entries.items():
            model = entry.model
            response.motions.append(MotionInfo(
                name=name, duration=model.duration, last_frame=model.motion.last_frame,
                servos=list(model.motion.servo_names), joints=list(model.joints),
                file=entry.file))
        response.frame_period = self.frame_period
        response.interpolation = self.interpolation.value
        return response

    # --- the play action --------------------------------------------------------------------
    async def _execute(self, goal_handle):
        """Check the goal here (nothing is sent if a check fails), then play it on a dedicated
        thread while this coroutine waits without blocking the executor: a bringup's
        single-threaded executor keeps serving every node while a motion plays."""
        result = PlayMotion.Result()
        if not self._busy.acquire(blocking=False):
            return self._finish(goal_handle, result, 'INVALID_GOAL', 'another motion is playing; '
                                'cancel it first')
        try:
            try:
                playback, points = self._prepare(goal_handle.request)
            except MotionRejected as err:
                return self._finish(goal_handle, result, err.code, err.message)
            self.get_logger().info(f'playing {playback.model.name!r} ({self.mode}, '
                                   f'{playback.total_time:.3f} s)')
            play = _Play(goal_handle, playback, points, result,
                         _FeedbackChannel(self._feedback_pub, goal_handle, playback))
            finished = Future(executor=self.executor)
            finished.add_done_callback(_wake)  # its task wakes the executor to resume us
            worker = threading.Thread(target=self._play_thread, name='motion_player_play',
                                      args=(play, finished), daemon=True)
            worker.start()
            code, message = await finished
            worker.join()
            return self._finish(goal_handle, result, code, message)
        except Exception as err:  # noqa: BLE001 - a bug ends this goal, never the node
            self.get_logger().error(f'internal error in ~/play: {type(err).__name__}: {err}')
            return self._finish(goal_handle, result, 'CONTROLLER_ERROR',
                                f'internal error: {type(err).__name__}: {err}')
        finally:
            self._busy.release()

    def _play_thread(self, play: _Play, finished) -> None:
        """Runs the output mode; always completes ``finished`` with (result code, message).
        A finished play's last feedback (progress 1.0) is delivered before the result."""
        try:
            message = getattr(self, f'_play_{self.mode}')(play)
            play.feedback.finish()
            outcome = ('SUCCESSFUL', message)
        except _Stop as stop:
            outcome = (stop.code, stop.message)
        except Exception as err:  # noqa: BLE001 - reported as the goal's result
            self.get_logger().error(f'internal error while playing: {type(err).__name__}: {err}')
            outcome = ('CONTROLLER_ERROR', f'internal error: {type(err).__name__}: {err}')
        play.feedback.close()
        finished.set_result(outcome)

    def _finish(self, goal_handle, result, code: str, message: str):
        result.error_code = getattr(PlayMotion.Result, code)
        result.success = code == 'SUCCESSFUL'
        result.message = message
        if result.success:
            goal_handle.succeed()
            self.get_logger().info(message)
        elif code == 'CANCELED' and goal_handle.is_cancel_requested:
            goal_handle.canceled()
            self.get_logger().info(message)
        else:
            goal_handle.abort()
            self.get_logger().warning(f'play refused or failed ({code}): {message}')
        return result

    def _prepare(self, goal) -> tuple[Playback, list[TrajectoryPoint]]:
        """Every check, before anything is sent (MotionRejected with a code and a reason):
        the goal's numbers and the play's size (:data:`MAX_PLAY_TIME`,
        :data:`MAX_PLAY_POINTS`), then the play against the robot model."""
        entry = self.library.get(goal.motion_name)
        if entry is None:
            raise MotionRejected('UNKNOWN_MOTION', f'no motion named {goal.motion_name!r} '
                                 f'(motions: {", ".join(self.library.names) or "none"})')
        options = PlayOptions(speed=goal.speed_factor or 1.0, loops=max(int(goal.loop_count), 1),
                              reverse=bool(goal.reverse), start_time=float(goal.start_time))
        try:
            playback = Playback(entry.model, options)
        except InvalidValueError as err:
            raise MotionRejected('INVALID_GOAL', err.message) from None
        points = check_play(playback, self.robot,
                            whole_trajectory=self.mode in ('trajectory', 'action'))
        if self.mode == 'stream' and self.controller_joints:
            self._check_controller_joints(entry.model.joints)
        return playback, points

    def _check_controller_joints(self, joints: tuple[str, ...]) -> None:
        """forward_command_controller takes every joint, in its order, in every command."""
        not_driven = [j for j in self.controller_joints if j not in joints]
        if not_driven:
            raise MotionRejected('UNMAPPED_SERVO', 'the controller commands joints the motion '
                                 f'does not drive: {", ".join(not_driven)}')
        not_commanded = [j for j in joints if j not in self.controller_joints]
        if not_commanded:
            raise MotionRejected('UNMAPPED_SERVO', 'the motion drives joints the controller does '
                                 f'not command (controller_joints): {", ".join(not_commanded)}')

    def _canceled(self, playback: Playback, tau: float) -> _Stop:
        state = playback.state(tau)
        return _Stop('CANCELED', f'canceled at motion time {state.motion_time:.9f} s (loop '
                     f'{state.loop}, play time {state.tau:.9f} s); holding position')

    # --- output modes (each runs on the play thread) ----------------------------------------
    def _trajectory_msg(self, joints, points: list[TrajectoryPoint]) -> JointTrajectory:
        msg = JointTrajectory(joint_names=list(joints))
        for point in points:
            msg.points.append(JointTrajectoryPoint(
                positions=list(point.positions),
                velocities=list(point.velocities) if point.velocities is not None else [],
                time_from_start=duration_msg(point.time)))
        return msg

    def _hold_msg(self, playback: Playback, tau: float) -> JointTrajectory:
        """One point: where the play is now, at rest, reached within one frame period (a new
        trajectory replaces the running one in joint_trajectory_controller)."""
        state = playback.state(tau)
        hold = TrajectoryPoint(self.frame_period, tuple(float(v) for v in state.positions),
                               tuple(0.0 for _ in state.positions))
        return self._trajectory_msg(playback.model.joints, [hold])

    def _play_trajectory(self, play: _Play) -> str:
        playback, publisher = play.playback, self.trajectory_pub
        assert publisher is not None  # made for the trajectory mode this play runs in
        publisher.publish(self._trajectory_msg(playback.model.joints, play.points))
        start = time.monotonic()
        while True:
            tau = time.monotonic() - start
            if play.goal.is_cancel_requested:
                publisher.publish(self._hold_msg(playback, tau))
                raise self._canceled(playback, tau)
            if tau >= playback.total_time:
                return (f'sent {len(play.points)} points to {self._output_name()}; played '
                        f'{playback.total_time:.3f} s')
            play.feedback.publish(tau)
            time.sleep(min(self.feedback_period, max(playback.total_time - tau, 0.0)) + 1e-4)

    def _play_stream(self, play: _Play) -> str:
        joints = play.playback.model.joints
        order = [joints.index(j) for j in self.controller_joints] if self.controller_joints \
            else list(range(len(joints)))

        def message(positions, velocities) -> Float64MultiArray:
            return Float64MultiArray(data=positions[order].tolist())
        timing = self._tick_loop(play, message, self.stream_pub)
        return (f'streamed {timing.count} commands at {self.stream_rate:g} Hz to '
                f'{self._output_name()}; {timing.summary()}')

    def _play_joint_states(self, play: _Play) -> str:
        joints = list(play.playback.model.joints)

        def message(positions, velocities) -> JointState:
            return JointState(name=joints, position=positions.tolist(),
                              velocity=velocities.tolist())
        timing = self._tick_loop(play, message, self.joint_states_pub, stamped=True)
        return (f'published {timing.count} joint states at {self.stream_rate:g} Hz; '
                f'{timing.summary()}')

    def _tick_loop(self, play: _Play, message, publisher, stamped: bool = False) -> TickTiming:
        """Publish the state at tau = k / rate (k = 0, 1, ...) and at the end, on an absolute
        schedule. Only ``publish`` happens at a deadline: the samples are computed ahead in
        vectorised chunks (the tick times too: memory stays bounded whatever the play's length)
        and the next message is built in the slack after a publish; the thread sleeps until
        shortly before each deadline and waits out the rest precisely. Returns the measured
        publish instants."""
        playback = play.playback
        problem = timing_thread_setup(self.realtime_priority)
        if problem:
            self.get_logger().warning(problem, once=True)
        taus = SampleTimes(playback.total_time, self.stream_rate)
        timing = TickTiming(len(taus))
        chunk = max(8, int(self.stream_rate * 0.05))
        samples = StreamSamples(playback, taus, chunk)
        next_feedback = 0.0
        pending = message(*samples.get(0))
        start = time.monotonic() + 0.002  # tick 0 is a deadline too
        for tick, tau in enumerate(taus):
            if play.goal.is_cancel_requested:
                now = min(time.monotonic() - start, playback.total_time)
                state = playback.state(now)
                publisher.publish(message(state.positions, state.velocities))  # hold here
                raise self._canceled(playback, now)
            deadline = start + tau
            if stamped:
                pending.header.stamp = self.get_clock().now().to_msg()
            wait_until(deadline)
            publisher.publish(pending)
            timing.record(tick, time.monotonic() - deadline)
            if tick + 1 < len(taus):
                pending = message(*samples.get(tick + 1))
            if tau >= next_feedback:
                play.feedback.publish(tau)
                next_feedback = tau + self.feedback_period
        return timing

    def _play_action(self, play: _Play) -> str:
        client, playback = self.action_client, play.playback
        assert client is not None  # made for the action mode this play runs in
        if not client.wait_for_server(timeout_sec=self.controller_timeout):
            raise _Stop('CONTROLLER_ERROR', f'no FollowJointTrajectory server at '
                        f'{self._output_name()} within {self.controller_timeout:g} s')
        goal = FollowJointTrajectory.Goal(
            trajectory=self._trajectory_msg(playback.model.joints, play.points))
        handle = self._send_goal(client, goal, play.feedback)
        if handle is None:
            raise _Stop('CONTROLLER_ERROR', f'the controller at {self._output_name()} did not '
                        f'answer the goal within {self.controller_timeout:g} s')
        if not handle.accepted:
            raise _Stop('CONTROLLER_ERROR', f'the controller at {self._output_name()} rejected '
                        'the trajectory (joint_trajectory_controller rejects goals that do not '
                        'name all its joints unless allow_partial_joints_goal is set; its log '
                        'says why)')
        wrapped = self._await_controller(play, handle)
        controller = wrapped.result
        play.result.controller_error_code = int(controller.error_code)
        play.result.controller_error_string = controller.error_string
        if (controller.error_code != FollowJointTrajectory.Result.SUCCESSFUL
                or wrapped.status != GoalStatus.STATUS_SUCCEEDED):
            raise _Stop('CONTROLLER_ERROR', f'the controller aborted the trajectory (status '
                        f'{_STATUS_NAMES.get(wrapped.status, wrapped.status)}, error_code '
                        f'{controller.error_code}: {controller.error_string or "no message"})')
        return f'{self._output_name()} executed {len(play.points)} points'

    def _send_goal(self, client: ActionClient, goal, channel: _FeedbackChannel):
        """The controller's goal handle for ``goal`` (its feedback relayed to ``channel``), or
        None when it has not answered within ``controller_timeout``.

        A request reaches only the action servers this node has matched. A controller
        restarted after it died (SIGKILL, a crash) stays on the ROS graph until its DDS lease
        ends (Fast DDS: 20 s), so the server looks ready at once, while the new controller may
        not be matched yet: a request sent then goes to the dead one only and is never
        answered. So a request not answered within :data:`GOAL_RESEND_PERIOD` is sent again,
        until ``controller_timeout``: the copy that reaches the new controller is answered.
        Each copy has a goal id of its own (rclcpp_action's server ends its process when it
        accepts a goal id it already has). A server takes and answers the copies that reach it
        in the order they were sent, and each goal it accepts replaces the one before (as
        joint_trajectory_controller and sim_controller do): the play follows the last copy
        accepted, the answers of later copies awaited for up to one more period, and cancels
        the other copies accepted; once it is chosen, only its feedback is relayed."""
        deadline = time.monotonic() + self.controller_timeout
        answered = threading.Event()
        followed: list[bytes] = []
        sent = []

        def relay(feedback_msg) -> None:
            if not followed or bytes(feedback_msg.goal_id.uuid) == followed[0]:
                self._relay_feedback(channel, feedback_msg)
        while not answered.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            future = client.send_goal_async(goal, feedback_callback=relay)
            future.add_done_callback(lambda _: answered.set())
            sent.append(future)
            answered.wait(min(GOAL_RESEND_PERIOD, remaining))
        first = next(index for index, future in enumerate(sent) if future.done())
        until = time.monotonic() + GOAL_RESEND_PERIOD
        for later in sent[first + 1:]:  # the same server's answers to them come next
            _wait(later, max(until - time.monotonic(), 0.0))
        answers = [handle for future in sent
                   if future.done() and (handle := future.result()) is not None]
        accepted = [handle for handle in answers if handle.accepted]
        if len(sent) > 1:
            self.get_logger().info(f'the controller at {self._output_name()} answered '
                                   f'{len(answers)} of {len(sent)} copies of the goal request')
        if not accepted:
            return answers[0]
        for replaced in accepted[:-1]:
            replaced.cancel_goal_async()
        followed.append(bytes(accepted[-1].goal_id.uuid))
        return accepted[-1]

    def _await_controller(self, play: _Play, handle):
        """The controller's result; a cancel is passed on (the controller holds). A controller
        that leaves the ROS graph, or has not answered ``controller_timeout`` after the
        trajectory's end, ends the play with CONTROLLER_ERROR (its goal is canceled, in case
        it is only slow): the next goal is served."""
        playback, client = play.playback, self.action_client
        assert client is not None  # made for the action mode this play runs in
        result_future = handle.get_result_async()
        done = threading.Event()
        result_future.add_done_callback(lambda _: done.set())
        start = time.monotonic()
        deadline = start + playback.total_time + self.controller_timeout
        next_graph_check = start
        while not done.wait(0.005):
            now = time.monotonic()
            if play.goal.is_cancel_requested:
                _wait(handle.cancel_goal_async(), self.controller_timeout)  # the controller holds
                _wait(result_future, self.controller_timeout)
                raise self._canceled(playback, now - start)
            if now >= next_graph_check:
                next_graph_check = now + CONTROLLER_CHECK_PERIOD
                if not client.server_is_ready():
                    raise _Stop('CONTROLLER_ERROR', f'the controller at {self._output_name()} '
                                f'left the ROS graph {now - start:.3f} s into the play; nothing '
                                'is moving it now')
            if now >= deadline:
                handle.cancel_goal_async()  # in case it is only slow: it stops and holds
                raise _Stop('CONTROLLER_ERROR', f'no result from the controller at '
                            f'{self._output_name()} {self.controller_timeout:g} s '
                            f'(controller_timeout) after the trajectory\'s end '
                            f'({playback.total_time:.3f} s); its goal was canceled')
        return result_future.result()

    @guarded(throttle_sec=0)
    def _relay_feedback(self, channel: _FeedbackChannel, feedback_msg) -> None:
        """The controller's progress (desired.time_from_start) as PlayMotion feedback."""
        desired = feedback_msg.feedback.desired.time_from_start
        channel.publish(desired.sec + desired.nanosec * 1e-9)


class _FeedbackChannel:
    """One play's ``~/play`` feedback. Every message goes out on one writer, so feedback arrives
    in order; :meth:`finish` publishes the final one (progress 1.0) and waits until every
    feedback reader has acknowledged it (at most :data:`FEEDBACK_ACK_TIMEOUT`), so a client
    has it before the result, which travels on another channel; after :meth:`finish` or
    :meth:`close` nothing more is published (a controller's feedback relayed late).

    The writer is the node's own publisher on the action's feedback topic
    (``<action>/_action/feedback``, where rcl_action's writer is): rclpy's action server
    offers no way to wait for its feedback to be acknowledged."""

    def __init__(self, publisher, goal_handle, playback: Playback) -> None:
        self._publisher, self._goal, self._playback = publisher, goal_handle, playback
        self._lock = threading.Lock()
        self._closed = False

    def _message(self, tau: float):
        motion_time, loop, progress = self._playback.where(tau)
        frame = motion_time / self._playback.model.frame_period
        return PlayMotion.Impl.FeedbackMessage(
            goal_id=self._goal.goal_id, feedback=PlayMotion.Feedback(
                time=float(motion_time), frame=float(frame), progress=float(progress),
                loop=int(loop)))

    def publish(self, tau: float) -> None:
        """Where the play is at play time ``tau``."""
        with self._lock:
            if not self._closed:
                self._publisher.publish(self._message(tau))

    def finish(self) -> None:
        """The play's end, acknowledged by the readers; then the channel is closed."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._publisher.publish(self._message(self._playback.total_time))
        self._publisher.wait_for_all_acked(RosDuration(seconds=FEEDBACK_ACK_TIMEOUT))

    def close(self) -> None:
        with self._lock:
            self._closed = True


@dataclass
class _Play:
    """One accepted goal being played: what the play thread works on."""

    goal: ServerGoalHandle
    playback: Playback
    points: list[TrajectoryPoint]
    result: PlayMotion.Result
    feedback: _FeedbackChannel

_STATUS_NAMES = {GoalStatus.STATUS_SUCCEEDED: 'SUCCEEDED', GoalStatus.STATUS_ABORTED: 'ABORTED',
                 GoalStatus.STATUS_CANCELED: 'CANCELED'}


def _wake(_future) -> None:
    """Done callback of the play thread's future: scheduling it wakes the executor."""


def _wait(future, timeout: float = 10.0):
    """A future's result, completed by an executor thread (None after ``timeout``)."""
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    if not done.wait(timeout):
        return None
    return future.result()


def main(args: list[str] | None = None) -> int:
    """Run the node until Ctrl-C / SIGTERM; exit 1 with the reason when the configuration or a
    motion file is bad."""
    return run_node('motion_player', MotionPlayer, args, refused=(FormatError, ValueError))


if __name__ == '__main__':
    raise SystemExit(main())
