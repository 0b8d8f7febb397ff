"""``motion_recorder``: what a robot did, recorded as an XMDI motion the player can replay.

Between ``~/start`` (std_srvs/Trigger) and ``~/stop`` (robot_formats_interfaces/StopRecording)
it records ``joint_states`` (sensor_msgs/JointState, or with ``source: controller_state`` a
joint_trajectory_controller's ``<controller>/controller_state``, its ``feedback``) into XMDI key
frames at ``frame_period``: joints written as the servos of ``servo_map`` (scale and offset
inverted), frames kept only where linear interpolation would miss them by more than
``tolerance`` (:mod:`robot_formats.runtime.recording`). ``~/stop`` writes the file and answers
with what was recorded; a file that cannot be written is an error answer and the recording is
kept for another ``~/stop`` with another ``output_file``. Files are written only inside
``output_directory`` (any peer on the network can call ``~/stop``): a name that leaves it is
refused, and a write is atomic (a failure leaves an existing file whole). Without ``joints``,
it records the commandable joints of ``robot_description`` (mimic joints left out: a player
cannot drive them) when a description was received, else every joint of the first message.

Samples are placed at their header stamps (the receive time when a stamp is zero), so delays
on the way do not distort the motion. The recorded topic's queue keeps every message until the
node takes it, and ``~/stop`` first records what already waits there, so a node that falls
behind (a loaded machine) loses no sample of a reliable publisher. Memory holds key frames
only, not messages.
``robot-formats record`` runs the same node from the command line (:func:`run_record`).
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Any, Callable

from control_msgs.msg import JointTrajectoryControllerState
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.qos_overriding_options import InvalidQosOverridesError, QoSOverridingOptions
from rclpy.subscription import Subscription
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger

from robot_formats_interfaces.srv import StopRecording

from robot_formats.core.errors import FormatError
from robot_formats.core.files import path_inside
from robot_formats.formats.xmdi.mapping import ServoMapping
from robot_formats.formats.xmdi.safety import RobotJoints
from robot_formats.formats.xmdi.writer import write_xmdi
from robot_formats.nodes.node_support import (LATCHED_QOS, StartupError, choice, declare_array,
                                              guarded,
                                              joint_states_qos, positive, run_node)
from robot_formats.runtime.recording import DEFAULT_TOLERANCE, MotionRecorder

__all__ = ['MotionRecorderNode', 'main', 'run_record']

SOURCES = ('joint_states', 'controller_state')
#: ~/stop records at most this many messages still waiting in the queue (a flood that keeps
#: coming does not hold the answer back).
MAX_TAKEN_AT_STOP = 10_000


class MotionRecorderNode(Node):
    """Records joint states between ~/start and ~/stop into an XMDI file."""

    def __init__(self, node_name: str = 'motion_recorder', **kwargs) -> None:
        super().__init__(node_name, **kwargs)
        self._declare_parameters()
        self.frame_period = positive(self, 'frame_period', 's')
        self.tolerance = float(self.get_parameter('tolerance').value)
        if not (math.isfinite(self.tolerance) and self.tolerance >= 0):
            raise StartupError(f'parameter tolerance must be a finite number >= 0, not '
                               f'{self.tolerance}')
        path = str(self.get_parameter('servo_map').value)
        try:
            self.mapping = ServoMapping.from_yaml(path) if path else ServoMapping.identity()
        except FormatError as err:
            raise StartupError(f'servo_map: {err}') from None
        self.joints = tuple(self.get_parameter('joints').value) or None
        #: the commandable joints of robot_description (mimic joints left out: the player
        #: cannot drive them), used when ``joints`` is not set
        self.description_joints: tuple[str, ...] | None = None
        self.create_subscription(String, 'robot_description', self.description_callback,
                                 LATCHED_QOS)
        self.output_directory = self._output_directory()
        self.recorder: MotionRecorder | None = None
        self.recording = False
        self.topic, self._recorded, self._record = self._subscribe_recorded(
            choice(self, 'source', SOURCES))
        self.create_service(Trigger, '~/start', self.start_callback)
        self.create_service(StopRecording, '~/stop', self.stop_callback)
        if self.get_parameter('autostart').value:
            self._start()
            self.get_logger().info(f'ready: recording {self.topic} now')
        else:
            self.get_logger().info(f'ready: recording {self.topic} on ~/start')

    def _declare_parameters(self) -> None:
        def text(description: str) -> ParameterDescriptor:
            return ParameterDescriptor(description=description, read_only=True)

        declare = self.declare_parameter
        declare('source', 'joint_states', text(
            "'joint_states' (sensor_msgs/JointState) or 'controller_state' (a "
            "joint_trajectory_controller's controller_state, its feedback)."))
        declare('controller', 'joint_trajectory_controller', text(
            "With source 'controller_state': the controller's name (namespace)."))
        declare_array(self, 'joints', Parameter.Type.STRING_ARRAY, text(
            'Joints to record, in servo order (empty: the commandable joints of '
            'robot_description when one was received, else every joint of the first '
            'message).'))
        declare('servo_map', '', text('Servo map YAML (as motion_player): joints are written as '
                                      'their servos, scale and offset inverted.'))
        declare('frame_period', 0.032, text('Seconds per XMDI frame (0.032: a Webots step).'))
        declare('tolerance', DEFAULT_TOLERANCE, text(
            'Key-frame reduction: a frame linear interpolation reproduces within this (rad or '
            'm) is dropped; 0 keeps every change of slope.'))
        declare('motion_name', 'recording', text('Name of the recorded motion.'))
        declare('output_directory', '', text(
            'The only directory ~/stop writes into (created when needed); empty: '
            '$ROS_HOME/robot_formats/recordings ($ROS_HOME defaults to ~/.ros).'))
        declare('output_file', '', text('XMDI file ~/stop writes (unless its request names '
                                        'one), relative to output_directory.'))
        declare('autostart', False, text('Start recording at once, without ~/start.'))
        declare('joint_states_qos', 'sensor_data', text(
            "Reliability of the joint_states subscription: 'sensor_data' (best effort, accepts "
            "every publisher) or 'reliable' (no loss from reliable publishers; best-effort "
            'publishers cannot connect); it keeps every message until taken (KEEP_ALL); '
            'qos_overrides.<topic>.subscription.* parameters override its policies.'))

    def _subscribe_recorded(self, source: str
                            ) -> tuple[str, Subscription, Callable[[Any], None]]:
        """The recorded topic, its subscription and its callback. The subscription keeps every
        message until the node takes it (history KEEP_ALL; reliability: ``joint_states_qos``,
        reliable for controller_state), with rclpy's ``qos_overrides.<topic>.subscription.*``
        on top (as description_publisher).

        A recording needs every sample: with a bounded queue, a node that fell that many
        messages behind (a loaded machine, a fast publisher) lost samples. Kept, they wait in
        the middleware (its resource limits bound them), and a reliable publisher is not
        acknowledged beyond them: it waits, or its own history drops its oldest samples."""
        if source == 'joint_states':
            topic = 'joint_states'
            msg_type, callback = JointState, self.joint_states_callback
            qos = joint_states_qos(self)
        else:
            controller = str(self.get_parameter('controller').value).strip('/')
            topic = f'{controller}/controller_state'
            msg_type, callback = JointTrajectoryControllerState, self.controller_state_callback
            qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
        qos.history = HistoryPolicy.KEEP_ALL
        try:
            return topic, self.create_subscription(
                msg_type, topic, callback, qos,
                qos_overriding_options=QoSOverridingOptions.with_default_policies()), callback
        except (RuntimeError, ValueError, InvalidQosOverridesError) as err:
            raise StartupError(f'qos_overrides of {topic}: {err}') from None

    def _take_waiting(self) -> None:
        """Record the messages already waiting in the recorded topic's queue (at most
        :data:`MAX_TAKEN_AT_STOP`). ~/stop calls it before it ends the recording: the executor
        takes one message per subscription per round, so a stop request behind a queue (a
        loaded machine) would otherwise cut off what arrived before it, the end of a motion."""
        subscription = self._recorded
        for _ in range(MAX_TAKEN_AT_STOP):
            with subscription.handle:
                taken = subscription.handle.take_message(subscription.msg_type,
                                                         subscription.raw)
            if taken is None:
                return
            self._record(taken[0])

    def _output_directory(self) -> Path:
        configured = str(self.get_parameter('output_directory').value)
        if configured:
            return Path(configured).expanduser().absolute()
        ros_home = os.environ.get('ROS_HOME') or os.path.join('~', '.ros')
        return Path(ros_home).expanduser().absolute() / 'robot_formats' / 'recordings'

    @guarded
    def description_callback(self, msg: String) -> None:
        try:
            robot = RobotJoints.from_urdf_text(msg.data)
        except FormatError as err:
            self.get_logger().warning(f'robot_description ignored: {err}')
            return
        self.description_joints = tuple(robot.limits)
        if self.joints is None:
            self.get_logger().info(f'robot_description: the next recording takes '
                                   f'{", ".join(self.description_joints)}')

    # --- samples ------------------------------------------------------------------------------
    def _stamp(self, header) -> float:
        stamp = header.stamp.sec + header.stamp.nanosec * 1e-9
        return stamp if stamp > 0 else self.get_clock().now().nanoseconds * 1e-9

    @guarded
    def joint_states_callback(self, msg: JointState) -> None:
        if self.recording and self.recorder is not None:
            self.recorder.add(self._stamp(msg.header), msg.name, msg.position)

    @guarded
    def controller_state_callback(self, msg: JointTrajectoryControllerState) -> None:
        if self.recording and self.recorder is not None:
            self.recorder.add(self._stamp(msg.header), msg.joint_names, msg.feedback.positions)

    # --- services -----------------------------------------------------------------------------
    def _start(self) -> None:
        joints = self.joints or self.description_joints
        self.recorder = MotionRecorder(joints, self.mapping, self.frame_period, self.tolerance)
        self.recording = True

    def start_callback(self, request: Trigger.Request, response: Trigger.Response
                       ) -> Trigger.Response:
        if self.recording:
            response.success, response.message = False, 'already recording: call ~/stop first'
            return response
        self._start()
        response.success = True
        response.message = f'recording {self.topic}'
        self.get_logger().info(response.message)
        return response

    def stop_callback(self, request: StopRecording.Request, response: StopRecording.Response
                      ) -> StopRecording.Response:
        try:
            if self.recording:
                self._take_waiting()
            return self._stop(request, response)
        except Exception as err:  # noqa: BLE001 - a bad request must not end the node
            self.get_logger().error(f'internal error on ~/stop: {err!r}')
            response.success, response.message = False, f'internal error: {err!r}'
            return response

    def _stop(self, request: StopRecording.Request, response: StopRecording.Response,
              keeps: bool = True) -> StopRecording.Response:
        """End the recording and write it; ``keeps``: a recording that cannot be written
        stays for another ~/stop (the node), else it is dropped (the command line)."""
        recorder = self.recorder
        if recorder is None:
            response.success, response.message = False, 'nothing recorded: call ~/start first'
            return response
        self.recording = False  # the recording ends here; it is kept until written
        name = request.motion_name or str(self.get_parameter('motion_name').value)
        path = request.output_file or str(self.get_parameter('output_file').value)
        stats = recorder.stats()
        response.samples, response.dropped = stats.samples, stats.dropped
        response.frames, response.key_frames = stats.frames, stats.key_frames
        response.duration = stats.duration
        if not path:
            response.success = False
            response.message = 'no output_file: name one in the request or the parameter'
            return response
        target = path_inside(self.output_directory, path)
        try:
            if target is None:
                raise FormatError(f'output_file {path!r} is outside output_directory '
                                  f'{str(self.output_directory)!r}; the recorder writes only '
                                  'there')
            target.parent.mkdir(parents=True, exist_ok=True)
            write_xmdi([recorder.motion(name)], target)
        except (FormatError, OSError) as err:
            text = _reason(err)
            response.success = False
            response.message = f'{text} (the recording is kept)' if keeps else text
            self.get_logger().error(response.message)
            return response
        self.recorder = None
        response.success = True
        response.output_file = str(target)
        response.message = (f'wrote motion {name!r} to {response.output_file}: '
                            f'{stats.duration:.3f} s, {stats.frames} frames, {stats.key_frames} '
                            f'key frames from {stats.samples} samples ({stats.dropped} dropped)')
        self.get_logger().info(response.message)
        return response


def _reason(err: FormatError | OSError) -> str:
    """One line: a FormatError as ``file: message`` (or its message when it names no file),
    an OSError of creating the directory with its path."""
    if isinstance(err, OSError):
        return f'{err.filename}: cannot create the directory: {err.strerror or err}'
    return str(err) if err.file else err.message


def main(args: list[str] | None = None) -> int:
    return run_node('motion_recorder', MotionRecorderNode, args)


def run_record(output: str, duration: float | None, parameters: dict[str, object],
               args: list[str] | None = None) -> int:
    """``robot-formats record``: record from now until ``duration`` seconds of samples (None:
    until Ctrl-C), then write ``output``. Returns the exit code (1: nothing written)."""
    overrides = [Parameter(k, value=v) for k, v in parameters.items()]
    overrides.append(Parameter('autostart', value=True))
    # the command line names the file: its directory is the one the node may write into
    overrides.append(Parameter('output_directory', value=os.path.dirname(os.path.abspath(output))))

    def make_node() -> MotionRecorderNode:
        node = MotionRecorderNode('robot_formats_record', parameter_overrides=overrides)
        print(f'recording {node.topic} (Ctrl-C to stop)' if duration is None else
              f'recording {node.topic} for {duration:g} s', file=sys.stderr, flush=True)
        return node

    def recorded_enough(node: MotionRecorderNode) -> bool:
        recorder = node.recorder
        return duration is not None and recorder is not None and recorder.duration >= duration

    def write(node: MotionRecorderNode) -> int:
        request = StopRecording.Request(output_file=os.path.abspath(output))
        response = node._stop(request, StopRecording.Response(), keeps=False)
        print(response.message, file=sys.stdout if response.success else sys.stderr)
        return 0 if response.success else 1

    return run_node('robot-formats record', make_node, args, before_destroy=write,
                    until=recorded_enough)


if __name__ == '__main__':
    raise SystemExit(main())
