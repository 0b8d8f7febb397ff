"""``description_publisher``: robot_description and TF for any format robot_formats reads.

Like robot_state_publisher, for every format and for floating and multi-DoF joints too:

* ``robot_description`` (std_msgs/String, reliable, transient_local, depth 1): the URDF;
* ``/tf_static`` (transient_local): every fixed transform, once, and again after a reload;
* ``/tf``: moving joints, from ``joint_states`` (sensor_msgs/JointState); mimic joints follow;
  rate-capped by ``publish_frequency`` (0: no cap); messages whose name and position lengths
  differ are dropped with a throttled warning; unknown names are ignored;
* with ``publish_joint_states``, the current configuration (at first the initial one) on
  ``joint_states`` at ``publish_frequency``, so rviz shows the whole tree with no other node;
* with ``ros2_control`` (``mock``, ``gazebo`` or a hardware plugin name), the URDF carries a
  ``<ros2_control>`` block for its commandable joints (``robot-formats controllers`` writes the
  same block and the matching controllers file), so controller_manager reads it from
  ``robot_description``;
* ``~/reload`` (robot_formats_interfaces/srv/Reload): load a new (or the same) file; the new file
  is parsed completely first, and on failure the old model keeps being served.

Frame ids are the document's frame names (see docs/nodes.md) with ``frame_prefix`` prepended
literally. The node never parses XML itself: :class:`robot_formats.runtime.description.Description`.
"""

from __future__ import annotations

import time

import numpy as np
from rcl_interfaces.msg import ParameterDescriptor, ParameterType, SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from robot_formats_interfaces.srv import Reload

from robot_formats.runtime.description import Description, parse_positions
from robot_formats.runtime.ros2_control import ControlOptions
from robot_formats.core.errors import FormatError
from robot_formats.runtime.tf_solver import JointStateRefused, JointStateTf, SolvePlan
from robot_formats.nodes.node_support import (CAP_RANGE, LATCHED_QOS, StartupError, guarded,
                                              joint_states_qos, positive, ranged, run_node)
from robot_formats.nodes.tf_wire import TfMessageTemplate

__all__ = ['DescriptionPublisher', 'main', 'LATCHED_QOS', 'TF_QOS']

#: /tf as tf2_ros publishes it.
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                    durability=DurabilityPolicy.VOLATILE)


#: Parameters that shape publishers, subscriptions and timers: fixed once the node runs.
_READ_ONLY = ('frame_prefix', 'publish_frequency', 'publish_joint_states', 'joint_states_qos',
              'ros2_control', 'ros2_control_interface', 'ros2_control_joints',
              'controllers_file')


class DescriptionPublisher(Node):
    """Publishes one description; swaps it atomically on a successful reload."""

    def __init__(self, node_name: str = 'description_publisher', **kwargs) -> None:
        super().__init__(node_name, **kwargs)
        self._declare_parameters()
        self.description: Description | None = None
        self.positions = np.zeros(0)
        # joint_states -> positions and the rate cap per JointState source (robot_formats.
        # tf_solver.JointStateTf: the rules problem_server follows too); one per loaded model
        self.joint_tf: JointStateTf | None = None
        self._tf_frequency = self._frequency()
        self._frame_prefix = str(self.get_parameter('frame_prefix').value)
        self._control = self._control_options()
        self.joint_states_received = 0  #: counters, logged at shutdown (and read by benchmarks)
        self.tf_published = 0

        self.description_pub = self.create_publisher(String, 'robot_description', LATCHED_QOS)
        self.tf_static_pub = self.create_publisher(TFMessage, '/tf_static', LATCHED_QOS)
        self.tf_pub = self.create_publisher(TFMessage, '/tf', TF_QOS)
        self.joint_states_pub = None
        if self.get_parameter('publish_joint_states').value:
            self.joint_states_pub = self.create_publisher(JointState, 'joint_states', 10)
        self.create_subscription(JointState, 'joint_states', self.joint_states_callback,
                                 joint_states_qos(self))
        self.create_service(Reload, '~/reload', self.reload_callback)

        self._try_initial_load()
        self.add_on_set_parameters_callback(self.parameters_callback)
        frequency = self._tf_frequency
        # The timer publishes joint states and flushes a rate-capped /tf update; it need not
        # run faster than 100 Hz even when /tf may (joint_states-driven /tf is not timer-bound).
        self.create_timer(max(1.0 / frequency, 0.01) if frequency > 0 else 0.05,
                          self.timer_callback)

    # --- parameters -------------------------------------------------------------------------
    def _declare_parameters(self) -> None:
        def text(description: str) -> ParameterDescriptor:
            return ParameterDescriptor(description=description)

        self.declare_parameter('description_file', '', text(
            'Robot, world or problem file in any format robot_formats reads (.xacro expanded); '
            'takes precedence over robot_description.'))
        self.declare_parameter('robot_description', '', text(
            "The description as text, as robot_state_publisher's parameter of that name "
            '(URDF, or any format robot_formats reads); used when description_file is empty.'))
        self.declare_parameter('xacro_args', Parameter.Type.STRING_ARRAY, ParameterDescriptor(
            type=ParameterType.PARAMETER_STRING_ARRAY,
            description="Arguments of a .xacro description_file: ['name:=value', ...]."))
        self.declare_parameter('world', '', text(
            'The world to load from an SDFormat description_file holding several (empty: the '
            'first, with a warning, as Gazebo loads it).'))
        self.declare_parameter('strict', False, text(
            'Refuse a description that loads only with warnings (robot-formats check --strict).'))
        self.declare_parameter('frame_prefix', '', text(
            'Prepended literally to every TF frame id (robot_state_publisher semantics).'))
        self.declare_parameter('publish_frequency', 20.0, ranged(text(
            'Maximum rate (Hz) of /tf and of the joint states this node publishes; 0: /tf for '
            'every joint_states message (joint states at 20 Hz).'), *CAP_RANGE))
        self.declare_parameter('publish_joint_states', False, text(
            'Publish the current configuration (at first the initial one) on joint_states, '
            'for rviz without other nodes.'))
        self.declare_parameter('joint_states_qos', 'sensor_data', text(
            "QoS of the joint_states subscription: 'sensor_data' (best effort, accepts every "
            "publisher, as robot_state_publisher) or 'reliable' (no loss from reliable "
            'publishers; best-effort publishers cannot connect).'))
        self.declare_parameter(
            'initial_positions', Parameter.Type.STRING_ARRAY, ParameterDescriptor(
                type=ParameterType.PARAMETER_STRING_ARRAY,
                description="Overrides of the file's initial configuration: "
                            "['joint=value', ...]."))

        self.declare_parameter('ros2_control', '', text(
            "Add a <ros2_control> block to the served URDF: 'mock' (mock_components/"
            "GenericSystem), 'gazebo' (gz_ros2_control) or a hardware plugin name; empty: none."))
        self.declare_parameter('ros2_control_interface', 'position', text(
            "Command interface of the <ros2_control> joints: 'position', 'velocity' or "
            "'effort'."))
        self.declare_parameter(
            'ros2_control_joints', Parameter.Type.STRING_ARRAY, ParameterDescriptor(
                type=ParameterType.PARAMETER_STRING_ARRAY,
                description='Joints of the <ros2_control> block, in order (default: every '
                            'commandable joint).'))
        self.declare_parameter('controllers_file', '', text(
            "With ros2_control 'gazebo': the controllers file gz_ros2_control loads (the "
            '<parameters> of its plugin tag).'))

    def _control_options(self) -> ControlOptions | None:
        """The ros2_control parameters, checked at start-up (a value that cannot be used ends
        the node with the reason, as every parameter of this package)."""
        hardware = str(self.get_parameter('ros2_control').value).strip()
        if not hardware:
            return None
        joints = self.get_parameter_or('ros2_control_joints', None).value or []
        options = ControlOptions(hardware=hardware,
                                 interface=str(self.get_parameter('ros2_control_interface').value),
                                 joints=tuple(str(j) for j in joints),
                                 controllers_file=str(self.get_parameter(
                                     'controllers_file').value) or None)
        try:
            options.check()
        except FormatError as err:
            raise StartupError(f'ros2_control parameters: {err.message}') from None
        return options

    def _frequency(self) -> float:
        return positive(self, 'publish_frequency', allow_zero=True)  # 0: no cap

    def _initial_overrides(self) -> dict[str, float]:
        value = self.get_parameter_or('initial_positions', None).value
        try:
            return parse_positions(list(value or []))
        except ValueError as err:
            raise ValueError(f'initial_positions: {err}') from err

    def parameters_callback(self, parameters: list[Parameter]) -> SetParametersResult:
        """A new ``description_file`` must load completely, or the change is refused.

        Everything is checked before anything is loaded, and a ``description_file`` set in the
        same batch as ``initial_positions`` loads with the batch's (new) initial positions.
        """
        overrides = None
        for parameter in parameters:
            if parameter.name in _READ_ONLY:
                return SetParametersResult(successful=False, reason=f'{parameter.name} is '
                                           'read-only while running; restart the node to change '
                                           'it')
            if parameter.name == 'initial_positions':
                try:
                    overrides = parse_positions(list(parameter.value or []))
                except ValueError as err:
                    return SetParametersResult(successful=False,
                                               reason=f'initial_positions: {err}')
        for parameter in parameters:
            if parameter.name == 'description_file':
                error = self._load_and_swap(str(parameter.value), overrides)
            elif parameter.name == 'robot_description' and parameter.value:
                error = self._load_and_swap(str(parameter.value), overrides, as_text=True)
            else:
                continue
            if error:
                return SetParametersResult(successful=False, reason=error)
        return SetParametersResult(successful=True)

    # --- loading ----------------------------------------------------------------------------
    def _try_initial_load(self) -> None:
        path = str(self.get_parameter('description_file').value)
        text = str(self.get_parameter('robot_description').value)
        if path and text:
            self.get_logger().warning('both description_file and robot_description are set: '
                                      'serving description_file')
        if not path and not text:
            self.get_logger().error('parameters description_file and robot_description are '
                                    'empty; call ~/reload with a path to start publishing')
            return
        error = self._load_and_swap(path) if path else self._load_and_swap(text, as_text=True)
        if error:
            self.get_logger().error(f'{error}; still serving nothing - fix the file and call '
                                    '~/reload')

    def _load_and_swap(self, source: str, overrides: dict[str, float] | None = None,
                       as_text: bool = False) -> str | None:
        """Load the file ``source`` (or, ``as_text``, the description text ``source``); on
        success publish it and return None, else return the error."""
        where = 'robot_description' if as_text else source
        try:
            positions = self._initial_overrides() if overrides is None else overrides
            if as_text:
                description = Description.from_text(source, positions)
            else:
                description = Description.load(source, positions, self._xacro_args(),
                                               self.get_parameter('world').value)
            if self._control is not None:
                description = description.with_ros2_control(
                    self._control, 'parameter ros2_control_joints (read-only: restart the '
                    'node with a corrected list)')
        except FormatError as err:
            return str(err)
        except ValueError as err:  # bad initial_positions or xacro_args parameter
            return str(err)
        except Exception as err:  # noqa: BLE001 - a bug must not take the node down
            self.get_logger().error(f'internal error loading {where}: {err!r}')
            return f'internal error: {type(err).__name__}: {err}'
        if description.warnings and self.get_parameter('strict').value:
            first = description.warnings[0]
            return (f'{first} (strict: {len(description.warnings)} warning(s) refuse the '
                    'description)')
        for warning in description.warnings:
            self.get_logger().warning(str(warning))
        for note in description.notes:
            self.get_logger().info(f'note: {note}')
        self.description = description
        self.positions = description.initial_vector()
        # a capped /tf update of the old model must not outlive it: new rules, new history
        self.joint_tf = JointStateTf(description.solver, self.positions, self._tf_frequency)
        self._publish_description()
        self.get_logger().info(
            f'serving {where} ({description.format}, {len(description.urdf_tree.links)} frames, '
            f'{len(description.dof_names)} DoF)')
        return None

    def _xacro_args(self) -> dict[str, str]:
        """``xacro_args`` (``['name:=value', ...]``) as a mapping; ValueError when malformed."""
        out = {}
        for item in self.get_parameter_or('xacro_args', None).value or []:
            name, sep, value = str(item).partition(':=')
            if not sep or not name.strip():
                raise ValueError(f'xacro_args: {item!r} is not NAME:=VALUE')
            out[name.strip()] = value
        return out

    def _publish_description(self) -> None:
        assert self.description is not None
        self.description_pub.publish(String(data=self.description.urdf))
        static = self.description.static
        prefix = self._frame_prefix
        template = TfMessageTemplate([(prefix + t.parent, prefix + t.child) for t in static])
        poses = np.array([(*t.xyz, *t.quat) for t in static], dtype=float).reshape(-1, 7)
        now = self._now()
        self.tf_static_pub.publish(template.fill(now[0], now[1], poses))
        solver = self.description.solver
        self._publish_moving(solver.plan(np.arange(len(solver.moving), dtype=np.intp)), now)
        self._publish_joint_states()

    # --- joint states -> /tf ------------------------------------------------------------------
    def _now(self) -> tuple[int, int]:
        nanoseconds = self.get_clock().now().nanoseconds
        return nanoseconds // 1_000_000_000, nanoseconds % 1_000_000_000

    @guarded
    def joint_states_callback(self, msg: JointState) -> None:
        self.joint_states_received += 1
        joint_tf = self.joint_tf
        if self.description is None or joint_tf is None:
            return
        try:
            plan = joint_tf.update(msg.name, msg.position)
        except JointStateRefused as err:
            self.get_logger().warning(f'dropped {err}', throttle_duration_sec=10.0)
            return
        stamp = (msg.header.stamp.sec, msg.header.stamp.nanosec)
        if stamp == (0, 0):
            stamp = self._now()
        if joint_tf.publish_now(plan, stamp, time.monotonic()):
            self._publish_moving(plan, stamp)

    def _publish_moving(self, plan: SolvePlan, stamp: tuple[int, int]) -> None:
        description = self.description
        if description is None or plan.edges.size == 0:
            return
        if plan.wire is None:
            prefix = self._frame_prefix
            plan.wire = TfMessageTemplate([(prefix + parent, prefix + child)
                                           for parent, child in plan.pairs])
        poses = description.solver.solve_plan(self.positions, plan)
        self.tf_pub.publish(plan.wire.fill(stamp[0], stamp[1], poses))  # type: ignore[union-attr]
        self.tf_published += 1
        if self.joint_tf is not None:
            self.joint_tf.published(plan, time.monotonic())

    @guarded
    def timer_callback(self) -> None:
        if self.joint_tf is not None:
            for plan, stamp in self.joint_tf.due(time.monotonic()):
                self._publish_moving(plan, stamp)  # type: ignore[arg-type]
        self._publish_joint_states()

    def _publish_joint_states(self) -> None:
        if self.joint_states_pub is None or self.description is None:
            return
        msg = JointState()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.name = list(self.description.dof_names)
        # the current configuration (initially the initial one), so that joint states from
        # other sources are echoed rather than reset
        msg.position = self.positions.tolist()
        self.joint_states_pub.publish(msg)

    # --- services ---------------------------------------------------------------------------
    def reload_callback(self, request: Reload.Request, response: Reload.Response
                        ) -> Reload.Response:
        path = request.path or str(self.get_parameter('description_file').value)
        if not path:
            response.success, response.message = False, 'no path given and none loaded before'
            return response
        try:
            result = self.set_parameters([Parameter('description_file', value=path)])[0]
        except Exception as err:  # noqa: BLE001 - a service answers, it never raises
            response.success, response.message = False, f'{type(err).__name__}: {err}'
            return response
        response.success = bool(result.successful)
        if result.successful and self.description is not None:
            response.format = self.description.format
            response.message = (f'loaded {path} ({self.description.format}, '
                                f'{len(self.description.dof_names)} DoF)')
        else:
            response.message = result.reason or 'reload failed'
        return response

    def log_statistics(self) -> None:
        self.get_logger().info(f'statistics: {self.joint_states_received} joint_states messages '
                               f'received, {self.tf_published} /tf messages published')


def main(args: list[str] | None = None) -> int:
    """Run the node until Ctrl-C / SIGTERM; its statistics line is logged on the way out."""
    return run_node('description_publisher', DescriptionPublisher, args,
                    before_destroy=lambda node: node.log_statistics())


if __name__ == '__main__':
    raise SystemExit(main())
