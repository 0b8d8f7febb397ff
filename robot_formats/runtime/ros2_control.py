"""ros2_control configuration for any robot robot_formats reads: the ``<ros2_control>`` block of
its URDF and the controller_manager file for its joints. No ROS here: text in, text out.

What ros2_control drives is the URDF that description_publisher serves (the document lowered by
:mod:`robot_formats.formats.urdf.lowering`), so the joints are that URDF's joints:

* every revolute, continuous and prismatic joint that mimics no other is *commandable*: it gets
  the chosen command interface (with the URDF limits as ``min``/``max``: position limits for
  ``position``, ±velocity for ``velocity``, ±effort for ``effort``) and the ``position`` and
  ``velocity`` state interfaces (and ``effort`` with an effort command), ``initial_value`` from
  the document's initial configuration;
* a mimic joint gets state interfaces only: ros2_control (Jazzy and later) reads the mimic
  relation from the URDF's own ``<mimic>`` tag, as gz_ros2_control's gripper example does;
* a universal, euler, planar or translational joint of the source was lowered to a chain of
  1-DoF joints (``hip/x``, ...), each of which is a joint here like any other; a ball or free
  (floating) joint stays one URDF ``floating`` joint, which ros2_control cannot command: it is
  left out (and named, :attr:`JointSelection.uncommandable`);
* a world of several models is one robot, joint names scoped ``model::joint``, in one
  ``<ros2_control>`` system.

The controllers file declares joint_state_broadcaster, joint_trajectory_controller and a
forward_command_controller (``forward_<interface>_controller``) over the same joints, with
the parameter names Kilted's ros2_controllers declare and per-joint tolerances derived from the
limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import yaml

from robot_formats.core.errors import FileAccessError, InvalidValueError
from robot_formats.core.files import read_input
from robot_formats.core.kinematics import KinematicTree
from robot_formats.core.limits import MAX_YAML_BYTES
from robot_formats.core.model import Joint, JointType

__all__ = ['HARDWARE_PLUGINS', 'INTERFACES', 'ControlJoint', 'ControlOptions', 'control_joints',
           'ros2_control_block', 'urdf_with_ros2_control', 'with_block', 'controllers_yaml',
           'forward_controller_name', 'GZ_SYSTEM_PLUGIN', 'JointSelection',
           'TrajectoryControllerConfig', 'read_controllers_text', 'read_controllers_file']

#: ``--hardware`` short names and the hardware plugins they stand for.
HARDWARE_PLUGINS = {
    'mock': 'mock_components/GenericSystem',
    'gazebo': 'gz_ros2_control/GazeboSimSystem',
}
#: gz_ros2_control's Gazebo system plugin (loaded from the URDF's ``<gazebo>`` tag).
GZ_SYSTEM_PLUGIN = ('gz_ros2_control-system', 'gz_ros2_control::GazeboSimROS2ControlPlugin')
#: Command interfaces a generated system offers (one per joint, the same for all).
INTERFACES = ('position', 'velocity', 'effort')
_COMMANDABLE = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC)


@dataclass(frozen=True, slots=True)
class ControlJoint:
    """One URDF joint as ros2_control sees it."""

    name: str
    prismatic: bool
    lower: float | None         #: position limits; None: unlimited (continuous)
    upper: float | None
    velocity: float | None      #: velocity limit; None: not stated
    effort: float | None
    initial: float = 0.0
    mimics: str | None = None   #: the leader joint's name: state interfaces only


@dataclass(frozen=True, slots=True)
class ControlOptions:
    """What the user chose: hardware plugin (short name or full), command interface, joints."""

    hardware: str = 'mock'
    interface: str = 'position'
    joints: tuple[str, ...] = ()          #: commanded joints; empty: every commandable joint
    controllers_file: str | None = None   #: gazebo: the file gz_ros2_control loads
    update_rate: int = 100

    @property
    def plugin(self) -> str:
        return HARDWARE_PLUGINS.get(self.hardware, self.hardware)

    @property
    def gazebo(self) -> bool:
        return self.plugin == HARDWARE_PLUGINS['gazebo']

    def check(self) -> None:
        if self.interface not in INTERFACES:
            raise InvalidValueError(f'command interface {self.interface!r} is not one of '
                                    f'{", ".join(INTERFACES)}')
        if not self.plugin.strip() or any(c.isspace() or c in '<>&"' for c in self.plugin):
            raise InvalidValueError(f'hardware {self.hardware!r} is neither mock, gazebo nor a '
                                    'plugin name such as my_robot_driver/MyRobotSystem')
        if not 1 <= self.update_rate <= 100_000:
            raise InvalidValueError(f'update rate {self.update_rate} Hz is out of range')


def _limit(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _control_joint(joint: Joint, initial: float) -> ControlJoint:
    limits = joint.limits[0] if joint.limits else None
    bounded = joint.type is not JointType.CONTINUOUS and limits is not None
    return ControlJoint(
        joint.name, joint.type is JointType.PRISMATIC,
        _limit(limits.lower) if bounded and limits else None,
        _limit(limits.upper) if bounded and limits else None,
        _limit(limits.velocity) if limits else None, _limit(limits.effort) if limits else None,
        initial, joint.mimic.joint if joint.mimic is not None else None)


@dataclass(frozen=True, slots=True)
class JointSelection:
    """The joints of a ``<ros2_control>`` block, and the moving joints it cannot hold."""

    commanded: tuple[ControlJoint, ...]
    mimics: tuple[ControlJoint, ...]      #: state interfaces only
    uncommandable: tuple[str, ...]        #: floating joints (no 1-DoF interface)


def control_joints(urdf_tree: KinematicTree, chosen: Sequence[str] = (),
                   option: str = '--joints') -> JointSelection:
    """The commanded and mimic joints of the lowered URDF tree, in document order.

    ``chosen`` restricts and orders the commanded joints; a name that is no commandable joint
    is refused (the message names ``option``, where the list came from, and the joints there
    are). Mimic joints whose leader is commanded follow.
    """
    model = urdf_tree.scene.models[0]
    initial = urdf_tree.initial_positions
    joints = [j for j in model.joints if j.type in _COMMANDABLE]
    commandable = {j.name: _control_joint(j, initial.get(j.name, 0.0))
                   for j in joints if j.mimic is None}
    if chosen:
        unknown = [name for name in chosen if name not in commandable]
        if unknown or len(set(chosen)) != len(chosen):
            raise InvalidValueError(
                f'{option} names {", ".join(map(repr, unknown)) or "a joint twice"}; the '
                f'commandable joints are {", ".join(commandable) or "none"}',
                urdf_tree.scene.source)
        commanded = [commandable[name] for name in chosen]
    else:
        commanded = list(commandable.values())
    if not commanded:
        raise InvalidValueError('the robot has no commandable joint (revolute, continuous or '
                                'prismatic, not a mimic): nothing for ros2_control to drive',
                                urdf_tree.scene.source)
    names = {j.name for j in commanded}
    mimics = tuple(_control_joint(j, 0.0) for j in joints
                   if j.mimic is not None and j.mimic.joint in names)
    floating = tuple(j.name for j in model.joints if j.type is JointType.FLOATING)
    return JointSelection(tuple(commanded), mimics, floating)


def _number(value: float) -> str:
    text = repr(float(value))
    return text[:-2] if text.endswith('.0') else text


def _command_range(joint: ControlJoint, interface: str) -> tuple[float, float] | None:
    if interface == 'position':
        if joint.lower is None or joint.upper is None:
            return None
        return joint.lower, joint.upper
    bound = joint.velocity if interface == 'velocity' else joint.effort
    return (-bound, bound) if bound is not None and bound > 0 else None


def _joint_block(joint: ControlJoint, interface: str, indent: str) -> list[str]:
    from xml.sax.saxutils import quoteattr  # here: the module imports urllib.request (see below)
    inner, param = indent + '  ', indent + '    '
    lines = [f'{indent}<joint name={quoteattr(joint.name)}>']
    if joint.mimics is None:
        bounds = _command_range(joint, interface)
        if bounds is None:
            lines.append(f'{inner}<command_interface name="{interface}"/>')
        else:
            lines += [f'{inner}<command_interface name="{interface}">',
                      f'{param}<param name="min">{_number(bounds[0])}</param>',
                      f'{param}<param name="max">{_number(bounds[1])}</param>',
                      f'{inner}</command_interface>']
        lines += [f'{inner}<state_interface name="position">',
                  f'{param}<param name="initial_value">{_number(joint.initial)}</param>',
                  f'{inner}</state_interface>']
    else:
        lines.append(f'{inner}<state_interface name="position"/>')
    lines.append(f'{inner}<state_interface name="velocity"/>')
    if interface == 'effort':
        lines.append(f'{inner}<state_interface name="effort"/>')
    lines.append(f'{indent}</joint>')
    return lines


def ros2_control_block(robot: str, commanded: Sequence[ControlJoint],
                       mimics: Sequence[ControlJoint], options: ControlOptions) -> str:
    """The ``<ros2_control>`` element (and for Gazebo the ``<gazebo>`` plugin tag) as text."""
    # Imported only here: xml.sax.saxutils imports urllib.request (http, email, ssl), which a
    # node that serves no <ros2_control> block would otherwise load before its first TF.
    from xml.sax.saxutils import escape, quoteattr
    options.check()
    system = 'GazeboSimSystem' if options.gazebo else f'{robot}_system'
    lines = [f'  <ros2_control name={quoteattr(system)} type="system">',
             '    <hardware>', f'      <plugin>{escape(options.plugin)}</plugin>',
             '    </hardware>']
    for joint in (*commanded, *mimics):
        lines += _joint_block(joint, options.interface, '    ')
    lines.append('  </ros2_control>')
    if options.gazebo:
        filename, name = GZ_SYSTEM_PLUGIN
        lines += ['  <gazebo>', f'    <plugin filename="{filename}" name="{name}">']
        if options.controllers_file:
            lines.append(f'      <parameters>{escape(options.controllers_file)}</parameters>')
        lines += ['    </plugin>', '  </gazebo>']
    return '\n'.join(lines) + '\n'


def urdf_with_ros2_control(urdf: str, urdf_tree: KinematicTree, options: ControlOptions,
                           option: str = '--joints') -> str:
    """``urdf`` (robot_formats' own URDF text of ``urdf_tree``) with the block added
    (``option``: where ``options.joints`` came from, for the message refusing them)."""
    selection = control_joints(urdf_tree, options.joints, option)
    return with_block(urdf, ros2_control_block(urdf_tree.scene.models[0].name,
                                               selection.commanded, selection.mimics, options))


def with_block(urdf: str, block: str) -> str:
    """``urdf`` (robot_formats' own URDF text) with ``block`` (:func:`ros2_control_block`)
    as the last children of ``<robot>``."""
    end = urdf.rfind('</robot>')
    if end < 0:
        raise InvalidValueError('not a URDF document: no </robot>')
    return urdf[:end] + block + urdf[end:]


def forward_controller_name(interface: str) -> str:
    return f'forward_{interface}_controller'


def _tolerances(joint: ControlJoint) -> dict[str, float]:
    """Path (``trajectory``) and ``goal`` tolerances: 0.2 / 0.02 rad (0.02 / 0.002 m for a
    prismatic joint), at most a quarter / a twentieth of the joint's range."""
    trajectory, goal = (0.02, 0.002) if joint.prismatic else (0.2, 0.02)
    if joint.lower is not None and joint.upper is not None and joint.upper > joint.lower:
        span = joint.upper - joint.lower
        trajectory, goal = min(trajectory, span / 4), min(goal, span / 20)
    return {'trajectory': float(f'{trajectory:.6g}'), 'goal': float(f'{goal:.6g}')}


class _PlainDumper(yaml.SafeDumper):
    """No anchors and aliases: ROS' parameter file parser does not read them."""

    def ignore_aliases(self, data: object) -> bool:
        return True


_HEADER = """\
# ros2_control controllers for {robot}, written by `robot-formats controllers`
# from {source}.
# Parameter names are those Kilted's ros2_controllers declare (joint_trajectory_controller,
# forward_command_controller, joint_state_broadcaster). Commanded joints: {count};
# command interface: {interface}. joint_trajectory_controller and {forward} claim the same
# command interfaces: spawn one of them --inactive. sim_controller reads this file too
# (its controllers_file parameter). See docs/controllers.md.
"""


def controllers_yaml(robot: str, commanded: Sequence[ControlJoint], options: ControlOptions,
                     source: str = '') -> str:
    """controller_manager's parameter file for ``commanded`` (the names ros2_controllers use)."""
    options.check()
    names = [j.name for j in commanded]
    forward = forward_controller_name(options.interface)
    constraints: dict[str, object] = {'stopped_velocity_tolerance': 0.01, 'goal_time': 0.5}
    constraints.update({j.name: _tolerances(j) for j in commanded})
    jtc: dict[str, object] = {
        # JTC reads positions and velocities (its state interfaces are a subset of position,
        # velocity and acceleration); joint_state_broadcaster publishes the efforts
        'joints': names, 'command_interfaces': [options.interface],
        'state_interfaces': ['position', 'velocity'],
        # motions often drive some joints only: the others hold their position
        'allow_partial_joints_goal': True,
        'allow_nonzero_velocity_at_trajectory_end': False,
        'action_monitor_rate': 20.0, 'interpolation_method': 'splines',
        'constraints': constraints,
    }
    if options.interface != 'position':
        # JTC closes the position loop with a PID per joint when it commands velocities or
        # efforts (starting values, to be tuned on the robot). No integral term, so no bound
        # on it: who sets i sets i_clamp_max / i_clamp_min too (Kilted's names)
        gains = ({'p': 100.0, 'i': 0.0, 'd': 10.0}
                 if options.interface == 'effort' else
                 {'p': 5.0, 'i': 0.0, 'd': 0.0, 'ff_velocity_scale': 1.0})
        jtc['gains'] = {name: dict(gains) for name in names}
    document = {
        'controller_manager': {'ros__parameters': {
            'update_rate': options.update_rate,
            'joint_state_broadcaster': {'type': 'joint_state_broadcaster/JointStateBroadcaster'},
            'joint_trajectory_controller': {
                'type': 'joint_trajectory_controller/JointTrajectoryController'},
            forward: {'type': 'forward_command_controller/ForwardCommandController'},
        }},
        'joint_trajectory_controller': {'ros__parameters': jtc},
        forward: {'ros__parameters': {'joints': names, 'interface_name': options.interface}},
    }
    header = _HEADER.format(robot=robot, source=source or 'a robot_formats load',
                            count=len(names), interface=options.interface, forward=forward)
    return header + yaml.dump(document, Dumper=_PlainDumper, sort_keys=False,
                              default_flow_style=False, allow_unicode=True, width=100)


# --- reading a controllers file back (sim_controller) ----------------------------------------

@dataclass(frozen=True, slots=True)
class TrajectoryControllerConfig:
    """What sim_controller takes from a controller_manager file: the trajectory controller's
    joints and rules, the forward controller's joints, the manager's update rate. None: the
    file does not say (the node's parameter applies)."""

    joints: tuple[str, ...]
    forward_joints: tuple[str, ...] | None = None
    command_interfaces: tuple[str, ...] = ('position',)
    allow_partial_joints_goal: bool | None = None
    allow_nonzero_velocity_at_trajectory_end: bool | None = None
    action_monitor_rate: float | None = None
    goal_time: float | None = None
    stopped_velocity_tolerance: float | None = None
    #: joint -> (trajectory, goal) tolerance, as stated
    tolerances: tuple[tuple[str, float | None, float | None], ...] = ()
    update_rate: float | None = None
    source: str | None = None

    def tolerance(self, joint: str) -> tuple[float | None, float | None]:
        for name, trajectory, goal in self.tolerances:
            if name == joint:
                return trajectory, goal
        return None, None


def _section(document: dict, name: str, file: str) -> dict | None:
    node = document.get(name)
    if node is None:
        return None
    params = node.get('ros__parameters') if isinstance(node, dict) else None
    if not isinstance(params, dict):
        raise InvalidValueError(f'{name}: expected a mapping with ros__parameters', file)
    return params


def _typed(params: dict, key: str, kind: type, what: str, file: str):
    if key not in params:
        return None
    value = params[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (isinstance(value, float) and not math.isfinite(value)):
        raise InvalidValueError(f'{what}.{key} is {value!r}, not a {kind.__name__}', file)
    return value


def _rate(params: dict, key: str, what: str, file: str) -> float | None:
    """A rate in Hz, if stated: a positive number."""
    rate = _typed(params, key, float, what, file)
    if rate is not None and rate <= 0:
        raise InvalidValueError(f'{what}.{key} must be positive, not {rate}', file)
    return rate


def _names(params: dict, key: str, what: str, file: str) -> tuple[str, ...] | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InvalidValueError(f'{what}.{key} must be a list of names', file)
    if len(set(value)) != len(value):
        raise InvalidValueError(f'{what}.{key} names a joint twice', file)
    return tuple(value)


def read_controllers_text(text: str, trajectory_controller: str = 'joint_trajectory_controller',
                          forward_controller: str = 'forward_position_controller',
                          file: str = '<controllers>') -> TrajectoryControllerConfig:
    """Parse a controller_manager parameter file (as written by :func:`controllers_yaml`, or by
    hand with ros2_controllers' parameter names). Raises InvalidValueError with the file (and
    the line for YAML syntax errors)."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, 'problem_mark', None)
        raise InvalidValueError(f'not valid YAML: {getattr(err, "problem", None) or err}',
                                file, mark.line + 1 if mark else None) from None
    except RecursionError:
        raise InvalidValueError('the file nests lists/mappings too deeply to read', file) from None
    if not isinstance(document, dict):
        raise InvalidValueError('expected a mapping of node names to ros__parameters', file)
    jtc = _section(document, trajectory_controller, file)
    if jtc is None:
        controllers = ', '.join(k for k in document if k != 'controller_manager') or 'none'
        raise InvalidValueError(f'no {trajectory_controller} section (the file configures: '
                                f'{controllers})', file)
    what = trajectory_controller
    joints = _names(jtc, 'joints', what, file)
    if not joints:
        raise InvalidValueError(f'{what}.joints is missing or empty', file)
    constraints = jtc.get('constraints') or {}
    if not isinstance(constraints, dict):
        raise InvalidValueError(f'{what}.constraints must be a mapping', file)
    tolerances = []
    for joint in joints:
        entry = constraints.get(joint) or {}
        if not isinstance(entry, dict):
            raise InvalidValueError(f'{what}.constraints.{joint} must be a mapping', file)
        tolerances.append((joint, _typed(entry, 'trajectory', float, f'{what}.constraints.'
                                         f'{joint}', file),
                           _typed(entry, 'goal', float, f'{what}.constraints.{joint}', file)))
    forward = _section(document, forward_controller, file)
    manager = _section(document, 'controller_manager', file) or {}
    rate = _rate(manager, 'update_rate', 'controller_manager', file)
    return TrajectoryControllerConfig(
        joints=joints,
        forward_joints=_names(forward, 'joints', forward_controller, file) if forward else None,
        command_interfaces=_names(jtc, 'command_interfaces', what, file) or ('position',),
        allow_partial_joints_goal=_typed(jtc, 'allow_partial_joints_goal', bool, what, file),
        allow_nonzero_velocity_at_trajectory_end=_typed(
            jtc, 'allow_nonzero_velocity_at_trajectory_end', bool, what, file),
        action_monitor_rate=_rate(jtc, 'action_monitor_rate', what, file),
        goal_time=_typed(constraints, 'goal_time', float, f'{what}.constraints', file),
        stopped_velocity_tolerance=_typed(constraints, 'stopped_velocity_tolerance', float,
                                          f'{what}.constraints', file),
        tolerances=tuple(tolerances), update_rate=rate, source=file)


def read_controllers_file(path: str, trajectory_controller: str = 'joint_trajectory_controller',
                          forward_controller: str = 'forward_position_controller'
                          ) -> TrajectoryControllerConfig:
    """:func:`read_controllers_text` of a file, read by the guarded reader (FileAccessError
    when it cannot be read or is not a regular file, LimitError beyond
    :data:`~robot_formats.core.limits.MAX_YAML_BYTES`)."""
    try:
        text = read_input(path, MAX_YAML_BYTES).decode('utf-8')
    except UnicodeDecodeError:
        raise FileAccessError('the controllers file is not UTF-8 text', path) from None
    return read_controllers_text(text, trajectory_controller, forward_controller, path)
