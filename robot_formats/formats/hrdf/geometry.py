"""Rigid transforms of the HRDF reader in plain floats: a translation (x, y, z) and a unit
quaternion (x, y, z, w), the model's own :class:`~robot_formats.core.model.Pose` form (the
rotation maths is :mod:`robot_formats.core.rotations`').

An HRDF robot is a chain of a few constant transforms (interface offsets, Rx/Ry/Rz terms,
output translations); composing them as quaternions gives every pose of the model directly,
with no 4×4 matrices and no matrix → quaternion conversions in between.
"""

from __future__ import annotations

import math

from robot_formats.core.model import IDENTITY, Pose
from robot_formats.core.rotations import Q_IDENTITY, quat_multiply, rotate

__all__ = ['Quat', 'Vec', 'compose', 'pose']

Vec = tuple[float, float, float]
Quat = tuple[float, float, float, float]
_ZERO: Vec = (0.0, 0.0, 0.0)


def compose(t1: Vec, q1: Quat, t2: Vec, q2: Quat) -> tuple[Vec, Quat]:
    """``(t1, q1) · (t2, q2)`` (no rotation by, or product with, :data:`Q_IDENTITY`: most
    interfaces of a chain do not turn)."""
    rx, ry, rz = rotate(q1, t2) if q1 is not Q_IDENTITY else t2
    q = q2 if q1 is Q_IDENTITY else q1 if q2 is Q_IDENTITY else quat_multiply(q1, q2)
    return (t1[0] + rx, t1[1] + ry, t1[2] + rz), q


def pose(t: Vec | None, q: Quat | None) -> Pose:
    """The model's Pose (unit quaternion with w >= 0, as the rest of the package writes it)."""
    if q is None or q is Q_IDENTITY:
        if t is None or t == _ZERO:
            return IDENTITY
        return Pose(t)
    x, y, z, w = q
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    if w < 0.0:
        norm = -norm
    return Pose(_ZERO if t is None else t, (x / norm, y / norm, z / norm, w / norm))
