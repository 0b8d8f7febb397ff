"""Every number that reaches the model is finite and in range, and every name is a name.

Readers refuse text that is not a finite number, but a finite text can still overflow: HRDF's
formulas compute ``1e309`` (inf) from a file, an SDFormat ``<mass>`` says ``-inf``, an axis
``1e308 0 1`` has no norm in floating point, a mimic chain multiplies its multipliers. What
``check`` accepted then broke ``frames``, ``render`` or a node, and ``convert`` wrote ``inf``,
which check_urdf refuses. So every number a model holds is finite and at most
:data:`~robot_formats.core.limits.MAX_MAGNITUDE` in magnitude (the rule:
:func:`~robot_formats.core.limits.in_range`), small enough that the products forward
kinematics, inertia and rendering form stay finite, and each link, joint and frame has a
non-empty name (tf2 refuses an empty frame id; urdfdom reads one silently).

Where that is checked: a reader whose every number reaches the model as read checks each one
where it reads it (``ReadingContext(..., bounded=True)``, with the attribute's line) and each
name (:func:`check_name`), and its format says so (``FormatSpec.checks_ranges``: URDF; HRDF,
whose builder also checks each number it derives where it derives it: shapes, mass
overrides, gear ratios, rigid-body lengths; SDFormat, whose pose batch checks every pose it
solves in one call and whose reader checks the axes, pitches and inertial origins it
derives); a chain of mimics is checked where the kinematic tree composes it; a scene of any
other format (SKEL, TMP), whose reader derives numbers (composed poses, inertias of shapes),
passes :func:`check_ranges` once after it is read (:mod:`robot_formats.formats` calls it).
"""

from __future__ import annotations

import math
from typing import Iterable

from robot_formats.core.errors import InvalidValueError, SchemaError
from robot_formats.core.limits import in_range
from robot_formats.core.model import (Box, Capsule, Cone, Cylinder, Ellipsoid, Frame, Geometry,
                                      Joint, JointType, Link, Mesh, Model, Plane, Scene, Sphere)

__all__ = ['check_ranges', 'check_name']

#: Joints that move along or about an axis (their ``axis``, and ``axis2`` for two of them).
_AXIAL = frozenset({JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC,
                    JointType.SCREW, JointType.UNIVERSAL, JointType.PLANAR})
#: Joints with a second axis (``axis2``) that needs a direction too.
_TWO_AXES = (JointType.UNIVERSAL, JointType.PLANAR)


def check_ranges(scene: Scene) -> None:
    """Refuse a scene holding a number that is not finite or beyond ``±MAX_MAGNITUDE``, or a
    member without a name: InvalidValueError (code ``VALUE_OUT_OF_RANGE``) or SchemaError
    (``NAME_EMPTY``) with the member's file and line. (A chain of mimics, whose multipliers
    multiply, is checked where the kinematic tree composes it.)"""
    checked: set[int] = set()
    for model in scene.models:
        _model(model, model.source or scene.source, checked)
    for frame in scene.frames:
        _frame(frame, scene.source)
    for joint in scene.joints:
        _joint(joint, scene.source, checked)


def _model(model: Model, file: str | None, checked: set[int]) -> None:
    pose = model.pose
    in_range((*pose.xyz, *pose.quat), f'model {model.name!r}: the pose', file, None)
    for link in model.links:
        _link(link, file)
    for joint in model.joints:
        _joint(joint, file, checked)
    for frame in model.frames:
        _frame(frame, file)
    for values, what in ((model.initial_positions, 'initial positions'),
                         (model.initial_velocities, 'initial velocities')):
        if values:  # (the value refused is in the message, which names no coordinate)
            in_range(values.values(), f'model {model.name!r}: the {what}', file, None)


# Each part of a member (its mass properties, a visual, a joint's frames and axes) is checked by
# one in_range call over all of its numbers: a scene is walked on every load.

def _link(link: Link, file: str | None) -> None:
    what, line = f'link {link.name!r}', link.line
    check_name(link.name, 'link', file, line)
    inertial = link.inertial
    if inertial is not None:
        origin = inertial.origin
        in_range((inertial.mass, *inertial.inertia, *origin.xyz, *origin.quat),
                 f'{what}: the mass, inertia or inertial origin', file, line)
    for visual in link.visuals:
        origin, material = visual.origin, visual.material
        in_range((*origin.xyz, *origin.quat, *_sizes(visual.geometry),
                  *(material.rgba or () if material is not None else ())),
                 f'{what}: a visual (origin, geometry or colour)', file, line)
    for collision in link.collisions:
        origin = collision.origin
        in_range((*origin.xyz, *origin.quat, *_sizes(collision.geometry)),
                 f'{what}: a collision (origin or geometry)', file, line)
    soft = link.soft
    if soft is not None:
        origin = soft.origin
        in_range((*origin.xyz, *origin.quat, *_sizes(soft.geometry),
                  *_given((soft.total_mass, soft.vertex_stiffness, soft.edge_stiffness,
                           soft.damping))), f'{what}: the soft body', file, line)


def _joint(joint: Joint, file: str | None, checked: set[int]) -> None:
    """``checked``: the ids of the parts shared between joints checked so far (a reader gives
    most coordinates one shared :class:`DofDynamics`, which is checked once)."""
    what, line = f'joint {joint.name!r}', joint.line
    check_name(joint.name, 'joint', file, line)
    origin, offset = joint.origin, joint.child_offset
    in_range((*origin.xyz, *origin.quat, *offset.xyz, *offset.quat, *joint.axis,
              *(joint.axis2 or ()), joint.pitch),
             f'{what}: the origin, child offset or axis', file, line)
    if joint.type in _AXIAL:
        _direction(joint, what, file, line)
    for limit in joint.limits:
        in_range(_given((limit.lower, limit.upper, limit.effort, limit.velocity)),
                 f'{what}: a limit', file, line)
    if joint.dynamics is not None:
        in_range((joint.dynamics.damping, joint.dynamics.friction), f'{what}: the dynamics',
                 file, line)
    for dof in joint.dof_dynamics:
        if id(dof) in checked:
            continue
        checked.add(id(dof))
        in_range(_given((dof.damping, dof.friction, dof.spring_stiffness, dof.rest_position,
                         *dof.velocity_limits, *dof.acceleration_limits, *dof.force_limits)),
                 f'{what}: the dynamics of a coordinate', file, line)
    if joint.mimic is not None:
        in_range((joint.mimic.multiplier, joint.mimic.offset), f'{what}: the mimic', file, line)


def _direction(joint: Joint, what: str, file: str | None, line: int | None) -> None:
    """A joint that moves along or about its axis needs a direction: its axis, and its second
    axis (universal, planar), have a length (their numbers are finite, checked before); a
    plane's two axes are not parallel."""
    axis, axis2 = joint.axis, joint.axis2
    if any(axis) and (axis2 is None or joint.type not in _TWO_AXES or any(axis2) and (
            joint.type is not JointType.PLANAR or _apart(_unit(axis), _unit(axis2)))):
        return
    raise InvalidValueError(f'{what}: the axes {joint.axis} and {joint.axis2} give no '
                            'direction (a zero axis, or two parallel ones)', file, line,
                            code='VALUE_OUT_OF_RANGE')


def _apart(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two unit vectors are not parallel (their cross product has a length)."""
    return math.hypot(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                      a[0] * b[1] - a[1] * b[0]) > 1e-9


def _unit(vector: tuple[float, ...]) -> tuple[float, ...]:
    """A vector with a length scaled to length 1 (scaled by its largest entry first: no
    overflow or underflow on the way)."""
    largest = max(map(abs, vector))
    scaled = [v / largest for v in vector]
    norm = math.hypot(*scaled)
    return tuple(v / norm for v in scaled)


def _frame(frame: Frame, file: str | None) -> None:
    check_name(frame.name, 'frame', file, frame.line)
    pose = frame.pose
    in_range((*pose.xyz, *pose.quat), f'frame {frame.name!r}: the pose', file, frame.line)


def _sizes(geometry: Geometry) -> tuple[float, ...]:
    """The numbers of a shape (none for a shape of another kind, a reader's own)."""
    if isinstance(geometry, Box):
        return geometry.size
    if isinstance(geometry, (Cylinder, Capsule, Cone)):
        return (geometry.radius, geometry.length)
    if isinstance(geometry, Sphere):
        return (geometry.radius,)
    if isinstance(geometry, Ellipsoid):
        return geometry.radii
    if isinstance(geometry, Plane):
        return (*geometry.normal, *geometry.size)
    if isinstance(geometry, Mesh):
        return geometry.scale
    return ()


def _given(values: Iterable[float | None]) -> list[float]:
    return [value for value in values if value is not None]


def check_name(name: str, kind: str, file: str | None, line: int | None) -> None:
    """Refuse an empty name of a link, joint or frame (SchemaError ``NAME_EMPTY``)."""
    if not name:
        raise SchemaError(f'a {kind} has an empty name (TF and joint states name every frame '
                          'and joint)', file, line, code='NAME_EMPTY')
