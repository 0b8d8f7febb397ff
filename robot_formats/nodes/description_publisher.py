"""``description_publisher``: robot_description and TF for any format robot_formats reads.

robot_state_publisher's contract (docs/nodes.md compares the two, with robot_state_publisher's
source lines), for every format and for floating and multi-DoF joints too:

* ``robot_description`` (std_msgs/String, reliable, transient_local, depth 1) and the parameter
  of that name hold the same text: a URDF document (file, ``.xacro`` expansion, or the
  parameter's text) exactly as given, any other format as robot_formats' URDF of it
  (:attr:`robot_formats.runtime.description.Description.robot_description`);
* ``/tf_static`` (transient_local): every fixed transform, once, and again after a reload or a
  new ``frame_prefix``;
* ``/tf``: moving joints, from ``joint_states`` (sensor_msgs/JointState); mimic joints follow;
  rate-capped by ``publish_frequency`` on the messages' ``header.stamp`` unless
  ``ignore_timestamp`` (:class:`robot_formats.runtime.tf_solver.JointStateTf`); messages whose
  name and position lengths differ are dropped with a throttled warning; unknown names are
  ignored; the subscription's QoS takes rclpy's ``qos_overrides`` parameters;
* with ``publish_joint_states``, the current configuration (at first the initial one) on
  ``joint_states`` at ``publish_frequency``, so rviz shows the whole tree with no other node;
* with ``ros2_control`` (``mock``, ``gazebo`` or a hardware plugin name), the description carries
  a ``<ros2_control>`` block for its commandable joints (``robot-formats controllers`` writes the
  same block and the matching controllers file), so controller_manager reads it from
  ``robot_description``;
* ``~/reload`` (robot_formats_interfaces/srv/Reload): load a new (or the same) file; the new file
  is parsed completely first, and on failure the old model keeps being served.

Setting ``robot_description`` or ``description_file`` loads; ``frame_prefix``,
``publish_frequency`` and ``ignore_timestamp`` take effect at once; the other parameters are
read at start-up only. Frame ids are the document's frame names (see docs/nodes.md) with
``frame_prefix`` prepended literally. The node never parses XML itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos_overriding_options import InvalidQosOverridesError, QoSOverridingOptions
from rclpy.subscription import MessageInfo
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from robot_formats.runtime.description import Description, parse_positions
from robot_formats.runtime.ros2_control import ControlOptions
from robot_formats.core.errors import FormatError
from robot_formats.runtime.tf_solver import JointStateRefused, JointStateTf, SolvePlan
from robot_formats.nodes.node_support import (CAP_RANGE, LATCHED_QOS, TF_QOS, StartupError,
                                              declare_array, guarded, joint_states_qos,
                                              positive, ranged, run_node)
from robot_formats.nodes.tf_wire import TfMessageTemplate, TfTemplates

if TYPE_CHECKING:
    from robot_formats_interfaces.srv import Reload

__all__ = ['DescriptionPublisher', 'main', 'LATCHED_QOS', 'TF_QOS']


#: Parameters that shape publishers, subscriptions and the served block: fixed once the node
#: runs.
_READ_ONLY = ('publish_joint_states', 'joint_states_qos', 'ros2_control',
              'ros2_control_interface', 'ros2_control_joints', 'controllers_file')
#: The two parameters that name the description; setting either loads it.
_SOURCES = ('description_file', 'robot_description')


@dataclass(frozen=True)
class _Load:
    """The outcome of loading what a parameter change names, between the callbacks of one
    ``set_parameters``: the description to serve, or why the change is refused."""

    description: Description | None = None
    error: str | None = None
    where: str = ''


class DescriptionPublisher(Node):
    """Publishes one description; swaps it atomically on a successful reload."""

    def __init__(self, node_name: str = 'description_publisher', **kwargs) -> None:
        super().__init__(node_name, **kwargs)
        self._declare_parameters()
        self.description: Description | None = None
        self.positions = np.zeros(0)
        # joint_states -> positions and the rate cap (robot_formats.runtime.tf_solver.
        # JointStateTf: the rules problem_server follows too); one per loaded model
        self.joint_tf: JointStateTf | None = None
        self._all_moving: SolvePlan | None = None  # every moving joint of the description
        self._tf_frequency = self._frequency()
        self._frame_prefix = str(self.get_parameter('frame_prefix').value)
        self._tf_templates = self._templates()  # the /tf message of each plan, by the plan
        self._control = self._control_options()
        self._pending: _Load | None = None
        self.joint_states_received = 0  #: counters, logged at shutdown (and read by benchmarks)
        self.tf_published = 0

        self.description_pub = self.create_publisher(String, 'robot_description', LATCHED_QOS)
        self.tf_static_pub = self.create_publisher(TFMessage, '/tf_static', LATCHED_QOS)
        self.tf_pub = self.create_publisher(TFMessage, '/tf', TF_QOS)
        self.joint_states_pub = None
        self._own_gid: bytes | None = None  # the joint_states publisher's, once the graph has it
        if self.get_parameter('publish_joint_states').value:
            self.joint_states_pub = self.create_publisher(JointState, 'joint_states', 10)
        self._subscribe_joint_states()
        self._timer = self.create_timer(self._timer_period(), self.timer_callback)
        self._try_initial_load()
        # after the first TF: nothing before it needs ~/reload (or its message module)
        from robot_formats_interfaces.srv import Reload
        self.create_service(Reload, '~/reload', self.reload_callback)
        self.add_pre_set_parameters_callback(self.load_before_set)
        self.add_on_set_parameters_callback(self.parameters_callback)
        self.add_post_set_parameters_callback(self.apply_after_set)

    # --- parameters -------------------------------------------------------------------------
    def _declare_parameters(self) -> None:
        def text(description: str) -> ParameterDescriptor:
            return ParameterDescriptor(description=description)

        self.declare_parameter('description_file', '', text(
            'Robot, world or problem file in any format robot_formats reads (.xacro expanded); '
            'takes precedence over robot_description at start-up. Setting it loads the file; '
            'emptied when robot_description is set.'))
        self.declare_parameter('robot_description', '', text(
            "The served description, as robot_state_publisher's parameter of that name: set it "
            '(URDF, or any format robot_formats reads) to load it; after a description_file '
            'load it holds what is published.'))
        declare_array(self, 'xacro_args', Parameter.Type.STRING_ARRAY, text(
            "Arguments of a .xacro description_file: ['name:=value', ...]."))
        self.declare_parameter('world', '', text(
            'The world to load from an SDFormat description_file holding several (empty: the '
            'first, with a warning, as Gazebo loads it).'))
        self.declare_parameter('strict', False, text(
            'Refuse a description that loads only with warnings (robot-formats check --strict).'))
        self.declare_parameter('frame_prefix', '', text(
            'Prepended literally to every TF frame id (robot_state_publisher semantics); a new '
            'value republishes /tf_static.'))
        self.declare_parameter('publish_frequency', 20.0, ranged(text(
            'Maximum rate (Hz) of /tf per joint, by header.stamp, and of the joint states this '
            'node publishes; 0: /tf for every joint_states message (joint states at 20 Hz).'),
            *CAP_RANGE))
        self.declare_parameter('ignore_timestamp', False, text(
            "Publish /tf for every joint_states message whatever its stamp (robot_state_"
            "publisher's parameter); false: the rate cap applies and older states are "
            'dropped.'))
        self.declare_parameter('publish_joint_states', False, text(
            'Publish the current configuration (at first the initial one) on joint_states, '
            'for rviz without other nodes.'))
        self.declare_parameter('joint_states_qos', 'sensor_data', text(
            "Base QoS of the joint_states subscription: 'sensor_data' (best effort, accepts "
            "every publisher, as robot_state_publisher) or 'reliable' (no loss from reliable "
            'publishers; best-effort publishers cannot connect); qos_overrides.<topic>.'
            'subscription.* parameters override its policies.'))
        declare_array(self, 'initial_positions', Parameter.Type.STRING_ARRAY, text(
            "Overrides of the file's initial configuration: ['joint=value', ...]."))

        self.declare_parameter('ros2_control', '', text(
            "Add a <ros2_control> block to the served description: 'mock' (mock_components/"
            "GenericSystem), 'gazebo' (gz_ros2_control) or a hardware plugin name; empty: none."))
        self.declare_parameter('ros2_control_interface', 'position', text(
            "Command interface of the <ros2_control> joints: 'position', 'velocity' or "
            "'effort'."))
        declare_array(self, 'ros2_control_joints', Parameter.Type.STRING_ARRAY, text(
            'Joints of the <ros2_control> block, in order (empty: every commandable joint).'))
        self.declare_parameter('controllers_file', '', text(
            "With ros2_control 'gazebo': the controllers file gz_ros2_control loads (the "
            '<parameters> of its plugin tag).'))

    def _subscribe_joint_states(self) -> None:
        """``joint_states`` with the ``joint_states_qos`` profile, whose history, depth and
        reliability rclpy's ``qos_overrides./<topic>.subscription.*`` parameters override (as
        robot_state_publisher's ``QosOverridingOptions::with_default_policies()``)."""
        try:
            self.create_subscription(
                JointState, 'joint_states', self.joint_state_arrived, joint_states_qos(self),
                qos_overriding_options=QoSOverridingOptions.with_default_policies())
        except (RuntimeError, ValueError, InvalidQosOverridesError) as err:
            raise StartupError(f'qos_overrides of joint_states: {err}') from None

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

    def _timer_period(self) -> float:
        """The timer publishes joint states and flushes a held /tf update; it need not run
        faster than 100 Hz even when /tf may (joint_states-driven /tf is not timer-bound)."""
        frequency = self._tf_frequency
        return max(1.0 / frequency, 0.01) if frequency > 0 else 0.05

    def _initial_overrides(self) -> dict[str, float]:
        value = self.get_parameter_or('initial_positions', None).value
        try:
            return parse_positions(list(value or []))
        except ValueError as err:
            raise ValueError(f'initial_positions: {err}') from err

    # Setting parameters runs three callbacks, in this order, inside one set_parameters call
    # (rclpy runs them for the node's own calls too, e.g. ~/reload's):
    # load_before_set (pre-set) loads what a changed description_file or robot_description
    # names and completes the change with the other one, so both are set together and
    # robot_description holds what will be published; parameters_callback (on-set) refuses
    # the change when that load failed or a read-only parameter is in it; apply_after_set
    # (post-set) serves the loaded description and applies frame_prefix, publish_frequency
    # and ignore_timestamp. The node's own parameter changes are made by load_before_set
    # within the same call, so no callback ever sets parameters and none recurses.

    def load_before_set(self, parameters: list[Parameter]) -> list[Parameter]:
        """Pre-set callback: load what a new ``description_file`` or ``robot_description``
        names; on success return the change with both set (``robot_description`` to the text
        that will be published, ``description_file`` to the file or ``''``), otherwise
        remember the error for :meth:`parameters_callback`, which refuses the change."""
        self._pending = None
        try:
            changed = [p for p in parameters if p.name in _SOURCES]
            if not changed:
                return parameters
            self._pending = self._load_change(parameters, changed)
            description = self._pending.description
            if description is None:
                return parameters
            source = changed[0]
            path = str(source.value) if source.name == 'description_file' else ''
            return [*(p for p in parameters if p.name not in _SOURCES),
                    Parameter('description_file', value=path),
                    Parameter('robot_description', value=description.robot_description)]
        except Exception as err:  # noqa: BLE001 - a parameter change must never raise
            self.get_logger().error(f'internal error in load_before_set: {err!r}')
            self._pending = _Load(error=f'internal error: {type(err).__name__}: {err}')
            return parameters

    def _load_change(self, parameters: list[Parameter], changed: list[Parameter]) -> _Load:
        """Load the description ``changed`` (the description_file or robot_description items
        of ``parameters``) names, with the batch's ``initial_positions`` if it has them."""
        if len(changed) > 1:
            return _Load(error='set description_file or robot_description, not both at once')
        (source,) = changed
        if source.type_ is not Parameter.Type.STRING:
            return _Load()  # rclpy refuses the type itself
        value = str(source.value)
        if not value:
            what = 'an empty robot_description' if source.name == 'robot_description' else \
                'an empty description_file'
            return _Load(error=f'{what} is not allowed; the current description stays')
        overrides = None
        for parameter in parameters:
            if parameter.name == 'initial_positions':
                try:
                    overrides = parse_positions(list(parameter.value or []))
                except ValueError:
                    return _Load()  # parameters_callback refuses it with the reason
        return self._load(value, overrides, as_text=source.name == 'robot_description')

    def parameters_callback(self, parameters: list[Parameter]) -> SetParametersResult:
        """On-set callback: refuse read-only parameters, a malformed ``initial_positions``, and
        a ``description_file`` or ``robot_description`` that did not load (the reason is the
        load's error; the served description stays)."""
        for parameter in parameters:
            if parameter.name in _READ_ONLY:
                return self._refuse(f'{parameter.name} is read-only while running; restart '
                                    'the node to change it')
            if parameter.name == 'initial_positions':
                try:
                    parse_positions(list(parameter.value or []))
                except ValueError as err:
                    return self._refuse(f'initial_positions: {err}')
        if self._pending is not None and self._pending.error is not None:
            return self._refuse(self._pending.error)
        return SetParametersResult(successful=True)

    def _refuse(self, reason: str) -> SetParametersResult:
        self._pending = None
        return SetParametersResult(successful=False, reason=reason)

    @guarded
    def apply_after_set(self, parameters: list[Parameter]) -> None:
        """Post-set callback: the new values take effect (a new description is served here,
        after its parameters hold it)."""
        pending, self._pending = self._pending, None
        values = {p.name: p.value for p in parameters}
        if 'publish_frequency' in values:
            self._tf_frequency = float(values['publish_frequency'])
            if self.joint_tf is not None:
                self.joint_tf.frequency = self._tf_frequency
            self.destroy_timer(self._timer)
            self._timer = self.create_timer(self._timer_period(), self.timer_callback)
        if 'ignore_timestamp' in values and self.joint_tf is not None:
            self.joint_tf.ignore_timestamp = bool(values['ignore_timestamp'])
        if 'frame_prefix' in values:
            self._frame_prefix = str(values['frame_prefix'])
            self._tf_templates = self._templates()
        if pending is not None and pending.description is not None and \
                any(name in values for name in _SOURCES):
            self._serve(pending.description, pending.where)
        elif 'frame_prefix' in values and self.description is not None:
            self._publish_tree()

    # --- loading ----------------------------------------------------------------------------
    def _try_initial_load(self) -> None:
        """Serve the start-up ``description_file`` (or ``robot_description``); the
        ``robot_description`` parameter then holds what is published."""
        path = str(self.get_parameter('description_file').value)
        text = str(self.get_parameter('robot_description').value)
        if path and text:
            self.get_logger().warning('both description_file and robot_description are set: '
                                      'serving description_file')
        if not path and not text:
            self.get_logger().error('parameters description_file and robot_description are '
                                    'empty; call ~/reload with a path to start publishing')
            return
        loaded = self._load(path, None) if path else self._load(text, None, as_text=True)
        if loaded.description is None:
            self.get_logger().error(f'{loaded.error}; still serving nothing - fix the file and '
                                    'call ~/reload')
            return
        # (no parameter callback is installed yet: this is no change to validate)
        self.set_parameters([Parameter('robot_description',
                                       value=loaded.description.robot_description)])
        self._serve(loaded.description, loaded.where)

    def _load(self, source: str, overrides: dict[str, float] | None, as_text: bool = False
              ) -> _Load:
        """Load the file ``source`` (or, ``as_text``, the description text ``source``) with the
        ros2_control block and the strict check applied; nothing is served here."""
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
            return _Load(error=str(err), where=where)
        except ValueError as err:  # bad initial_positions or xacro_args parameter
            return _Load(error=str(err), where=where)
        except Exception as err:  # noqa: BLE001 - a bug must not take the node down
            self.get_logger().error(f'internal error loading {where}: {err!r}')
            return _Load(error=f'internal error: {type(err).__name__}: {err}', where=where)
        if description.warnings and self.get_parameter('strict').value:
            first = description.warnings[0]
            return _Load(error=f'{first} (strict: {len(description.warnings)} warning(s) '
                               'refuse the description)', where=where)
        return _Load(description, where=where)

    def _serve(self, description: Description, where: str) -> None:
        """Swap to ``description`` and publish it all: robot_description, /tf_static, /tf."""
        for warning in description.warnings:
            self.get_logger().warning(str(warning))
        for note in description.notes:
            self.get_logger().info(f'note: {note}')
        self.description = description
        self.positions = description.initial_vector()
        solver = description.solver
        self._all_moving = solver.plan(np.arange(len(solver.moving), dtype=np.intp))
        self._tf_templates = self._templates()  # the old model's plans go
        # a held /tf update of the old model must not outlive it: new rules, new history
        self.joint_tf = JointStateTf(description.solver, self.positions, self._tf_frequency,
                                     bool(self.get_parameter('ignore_timestamp').value))
        self.description_pub.publish(String(data=description.robot_description))
        self._publish_tree()
        self.get_logger().info(
            f'serving {where} ({description.format}, {len(description.urdf_tree.links)} frames, '
            f'{len(description.dof_names)} DoF)')

    def _xacro_args(self) -> dict[str, str]:
        """``xacro_args`` (``['name:=value', ...]``) as a mapping; ValueError when malformed."""
        out = {}
        for item in self.get_parameter_or('xacro_args', None).value or []:
            name, sep, value = str(item).partition(':=')
            if not sep or not name.strip():
                raise ValueError(f'xacro_args: {item!r} is not NAME:=VALUE')
            out[name.strip()] = value
        return out

    def _templates(self) -> TfTemplates:
        """/tf message templates with the frame names under the current ``frame_prefix``."""
        prefix = self._frame_prefix
        return TfTemplates(lambda frame: prefix + frame)

    def _publish_tree(self) -> None:
        """/tf_static, then the current configuration (:meth:`_publish_configuration`)."""
        assert self.description is not None
        static = self.description.static
        prefix = self._frame_prefix
        template = TfMessageTemplate([(prefix + t.parent, prefix + t.child) for t in static])
        poses = np.array([(*t.xyz, *t.quat) for t in static], dtype=float).reshape(-1, 7)
        now = self._clock_now()
        self.tf_static_pub.publish(template.fill(*divmod(now, 1_000_000_000), poses))
        self._publish_configuration(now)

    # --- joint states -> /tf ------------------------------------------------------------------
    def _clock_now(self) -> int:
        """The node clock's now, in nanoseconds (ROS time: simulated with use_sim_time)."""
        return self.get_clock().now().nanoseconds

    @guarded
    def joint_state_arrived(self, msg: JointState, info: MessageInfo) -> None:
        """Every ``joint_states`` message. This node's own (``publish_joint_states``) are
        counted and left out: their configuration is on /tf already
        (:meth:`_publish_configuration`), and in the rate cap their stamps (the node's now)
        would make another source's states, stamped a moment earlier, look outdated."""
        if self.joint_states_pub is not None and self._is_own(info):
            self.joint_states_received += 1
            return
        self.joint_states_callback(msg)

    def _is_own(self, info: MessageInfo) -> bool:
        gid = info.get('publisher_gid')
        if gid is None:
            return False
        if self._own_gid is None and self.joint_states_pub is not None:
            topic = self.joint_states_pub.topic_name
            self._own_gid = next((bytes(endpoint.endpoint_gid) for endpoint
                                  in self.get_publishers_info_by_topic(topic)
                                  if endpoint.node_name == self.get_name()
                                  and endpoint.node_namespace == self.get_namespace()), None)
        return gid['data'] == self._own_gid

    def joint_states_callback(self, msg: JointState) -> None:
        """A joint state of another source -> /tf, under the rate cap."""
        self.joint_states_received += 1
        joint_tf = self.joint_tf
        if self.description is None or joint_tf is None:
            return
        clock = self._clock_now()
        if joint_tf.clock_moved_back(clock):
            self.get_logger().warning('the clock moved backwards: the /tf rate cap starts again',
                                      throttle_duration_sec=10.0)
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec or clock
        try:
            plan, publish = joint_tf.receive(msg.name, msg.position, stamp)
        except JointStateRefused as err:
            self.get_logger().warning(f'dropped {err}', throttle_duration_sec=10.0)
            return
        if publish:
            self._publish_moving(plan, stamp)

    def _publish_moving(self, plan: SolvePlan, stamp: int) -> None:
        description = self.description
        if description is None or plan.edges.size == 0:
            return
        poses = description.solver.solve_plan(self.positions, plan)
        self.tf_pub.publish(self._tf_templates[plan].fill(*divmod(stamp, 1_000_000_000), poses))
        self.tf_published += 1

    @guarded
    def timer_callback(self) -> None:
        if self.joint_tf is not None:
            for plan, stamp in self.joint_tf.due(self._clock_now()):
                self._publish_moving(plan, stamp)
        if self.joint_states_pub is not None and self.description is not None:
            self._publish_configuration(self._clock_now())

    def _publish_configuration(self, now: int) -> None:
        """Every moving joint at the current configuration on /tf, stamped ``now``, outside
        the rate cap; with ``publish_joint_states`` the same configuration (initially the
        initial one, then what other sources set: echoed, not reset) on ``joint_states`` with
        that stamp, as joint_state_publisher feeds robot_state_publisher."""
        assert self.description is not None and self._all_moving is not None
        self._publish_moving(self._all_moving, now)
        if self.joint_states_pub is None:
            return
        msg = JointState()
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(now, 1_000_000_000)
        msg.name = list(self.description.dof_names)
        msg.position = self.positions.tolist()
        self.joint_states_pub.publish(msg)

    # --- services ---------------------------------------------------------------------------
    def reload_callback(self, request: Reload.Request, response: Reload.Response
                        ) -> Reload.Response:
        path = request.path or str(self.get_parameter('description_file').value)
        if not path:
            response.success = False
            response.message = ('no path given and description_file is empty (nothing loaded '
                                'yet, or the description came from robot_description)')
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
