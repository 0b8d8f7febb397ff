"""Checks a play must pass before anything moves: joints, limits, controller rules.

* every servo maps to a commandable joint of the robot model (a 1-DoF revolute, continuous or
  prismatic joint that is not a mimic);
* positions stay within the joint's position limits (the key values suffice: linear and
  monotone-cubic interpolation never leave the range of the key values around them);
* speeds (speed factor and loop transitions included) stay within the velocity limits;
* the trajectory obeys joint_trajectory_controller's rules: unique joint names, strictly
  increasing ``time_from_start``, one value per joint in every point, finite values, zero
  velocity at the last point.

A failed check raises :class:`MotionRejected` with a stable code and a sentence. No ROS here:
the robot model comes from URDF text (``robot_description``) through the library's reader.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NoReturn

from robot_formats.core.errors import Diagnostic, InvalidValueError
from robot_formats.core.kinematics import KinematicTree
from robot_formats.core.model import JointType
from robot_formats.formats.urdf.reader import parse_urdf_element
from robot_formats.core.xmlsafe import parse_xml_bytes
from robot_formats.formats.xmdi.playback import Playback, TrajectoryPoint

__all__ = ['JointLimit', 'RobotJoints', 'MotionRejected', 'check_play', 'check_trajectory',
           'REJECTION_CODES']

#: The codes a rejection carries (the motion_player's PlayMotion result codes mirror them).
REJECTION_CODES = ('UNKNOWN_MOTION', 'INVALID_GOAL', 'NO_ROBOT_MODEL', 'UNMAPPED_SERVO',
                   'POSITION_LIMIT', 'VELOCITY_LIMIT', 'INVALID_TRAJECTORY')
_TOLERANCE = 1e-9
_COMMANDABLE = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC)


class MotionRejected(Exception):
    """A play that must not be sent: ``code`` (one of :data:`REJECTION_CODES`) and why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class JointLimit:
    """Position and velocity limits of one commandable joint (None: unlimited)."""

    name: str
    kind: str
    lower: float | None = None
    upper: float | None = None
    velocity: float | None = None


class RobotJoints:
    """The commandable joints of a robot model, and why the others cannot be commanded."""

    def __init__(self, limits: dict[str, JointLimit], others: dict[str, str]) -> None:
        self.limits = limits
        self.others = others  #: joint name -> why a servo cannot drive it

    @classmethod
    def from_tree(cls, tree: KinematicTree) -> RobotJoints:
        limits: dict[str, JointLimit] = {}
        others: dict[str, str] = {}
        for name, joint in tree.joints.items():
            if joint.mimic is not None:
                others[name] = f'a mimic joint (it follows {joint.mimic.joint!r})'
            elif joint.type not in _COMMANDABLE:
                others[name] = f'a {joint.type.value} joint, not a single-axis one'
            else:
                limit = joint.limits[0] if joint.limits else None
                bounded = limit is not None and joint.type is not JointType.CONTINUOUS
                velocity = limit.velocity if limit is not None and limit.velocity else None
                lower = limit.lower if bounded and limit is not None else None
                upper = limit.upper if bounded and limit is not None else None
                limits[name] = JointLimit(name, joint.type.value, lower, upper, velocity)
        return cls(limits, others)

    @classmethod
    def from_urdf_text(cls, text: str, source: str = 'robot_description') -> RobotJoints:
        """Parse a URDF (FormatError family on bad input)."""
        warnings: list[Diagnostic] = []
        root = parse_xml_bytes(text.encode('utf-8'), source)
        return cls.from_tree(KinematicTree(parse_urdf_element(root, source, warnings)))


def check_play(playback: Playback, robot: RobotJoints | None, whole_trajectory: bool = True
               ) -> list[TrajectoryPoint]:
    """Every check; the trajectory points to send when they all pass.

    ``whole_trajectory``: the play is sent as one trajectory (its points are returned, at most
    :data:`~robot_formats.formats.xmdi.playback.MAX_PLAY_POINTS`); otherwise (streamed) the
    points of one loop are checked, as every loop repeats them, and none are returned."""
    if robot is None:
        raise MotionRejected('NO_ROBOT_MODEL', 'no robot model yet: waiting for '
                             'robot_description, so the joints and limits cannot be checked')
    _check_joints(playback, robot)
    _check_positions(playback, robot)
    _check_speeds(playback, robot)
    checked = playback if whole_trajectory else Playback(
        playback.model, replace(playback.options, loops=1))
    try:
        points = checked.trajectory_points()
    except InvalidValueError as err:  # more points than one trajectory may hold
        raise MotionRejected('INVALID_GOAL', err.message) from None
    check_trajectory(playback.model.joints, points)
    return points if whole_trajectory else []


def _check_joints(playback: Playback, robot: RobotJoints) -> None:
    for curve in playback.model.curves:
        if curve.joint in robot.limits:
            continue
        via = '' if curve.joint == curve.servo else f' (mapped to joint {curve.joint!r})'
        why = (f'it is {robot.others[curve.joint]}' if curve.joint in robot.others else
               'the robot model has no such joint; add the servo to the mapping file')
        raise MotionRejected('UNMAPPED_SERVO', f'servo {curve.servo!r}{via} cannot be '
                             f'played: {why}')


def _check_positions(playback: Playback, robot: RobotJoints) -> None:
    for curve in playback.model.curves:
        limit = robot.limits[curve.joint]
        for bound, worst, compare in ((limit.lower, float(curve.values.min()), 'below'),
                                      (limit.upper, float(curve.values.max()), 'above')):
            if bound is None:
                continue
            outside = worst < bound - _TOLERANCE if compare == 'below' else (
                worst > bound + _TOLERANCE)
            if outside:
                raise MotionRejected('POSITION_LIMIT', f'joint {curve.joint!r} would reach '
                                     f'{worst:.6g}, {compare} its limit {bound:.6g} '
                                     f'(servo {curve.servo!r})')


def _check_speeds(playback: Playback, robot: RobotJoints) -> None:
    for joint, speed in playback.max_speeds().items():
        limit = robot.limits[joint].velocity
        if limit is not None and speed > limit * (1 + _TOLERANCE):
            raise MotionRejected('VELOCITY_LIMIT', f'joint {joint!r} would move at '
                                 f'{speed:.6g}/s, above its velocity limit {limit:.6g}/s (speed '
                                 f'factor {playback.options.speed:g}); slow the motion down')


def check_trajectory(joints: tuple[str, ...], points: list[TrajectoryPoint]) -> None:
    """joint_trajectory_controller's acceptance rules for a JointTrajectory."""
    def reject(message: str) -> NoReturn:
        raise MotionRejected('INVALID_TRAJECTORY', message)

    if not joints or len(set(joints)) != len(joints):
        reject(f'joint names must be non-empty and unique: {list(joints)}')
    if not points:
        reject('the trajectory has no points')
    with_velocities = points[0].velocities is not None
    for index, point in enumerate(points):
        if index and not point.time > points[index - 1].time:
            reject(f'time_from_start is not strictly increasing at point {index} '
                   f'({points[index - 1].time!r} then {point.time!r})')
        if len(point.positions) != len(joints) or not all(map(math.isfinite, point.positions)):
            reject(f'point {index} needs {len(joints)} finite positions')
        velocities = point.velocities
        if (velocities is not None) != with_velocities or (
                velocities is not None and (len(velocities) != len(joints)
                                            or not all(map(math.isfinite, velocities)))):
            reject(f'point {index}: velocities must be given for every joint in every point, '
                   'or for none')
    last = points[-1].velocities
    if last is not None and any(abs(v) > _TOLERANCE for v in last):
        reject('the last point must have zero velocity')
