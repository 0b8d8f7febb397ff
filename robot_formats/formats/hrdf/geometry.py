"""Rigid transforms of the HRDF reader in plain floats: a translation (x, y, z) and a unit
quaternion (x, y, z, w), the model's own :class:`~robot_formats.core.model.Pose` form.

An HRDF robot is a chain of a few constant transforms (interface offsets, Rx/Ry/Rz terms,
output translations); composing them as quaternions gives every pose of the model directly,
with no 4×4 matrices and no matrix → quaternion conversions in between.
"""

from __future__ import annotations

import math

from robot_formats.core.model import IDENTITY, Pose
from robot_formats.core.rotations import entries_to_quat

__all__ = ['Quat', 'Vec', 'Q_IDENTITY', 'axis_quat', 'quat_mul', 'rotate', 'compose', 'pose',
           'matrix_quat', 'quat_matrix', 'z_to']

Vec = tuple[float, float, float]
Quat = tuple[float, float, float, float]
Q_IDENTITY: Quat = (0.0, 0.0, 0.0, 1.0)
_ZERO: Vec = (0.0, 0.0, 0.0)


def axis_quat(axis: str, angle: float) -> Quat:
    """Rx, Ry or Rz of ``angle`` radians (``axis`` 'x', 'y' or 'z')."""
    half = 0.5 * angle
    s, c = math.sin(half), math.cos(half)
    if axis == 'x':
        return (s, 0.0, 0.0, c)
    if axis == 'y':
        return (0.0, s, 0.0, c)
    return (0.0, 0.0, s, c)


def quat_mul(a: Quat, b: Quat) -> Quat:
    """The rotation ``a · b`` (b first, then a)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def rotate(q: Quat, v: Vec) -> Vec:
    """``R(q) · v``."""
    x, y, z, w = q
    vx, vy, vz = v
    # t = 2 q_v × v;  v' = v + w t + q_v × t
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (vx + w * tx + (y * tz - z * ty),
            vy + w * ty + (z * tx - x * tz),
            vz + w * tz + (x * ty - y * tx))


def compose(t1: Vec, q1: Quat, t2: Vec, q2: Quat) -> tuple[Vec, Quat]:
    """``(t1, q1) · (t2, q2)``."""
    rx, ry, rz = rotate(q1, t2) if q1 is not Q_IDENTITY else t2
    return (t1[0] + rx, t1[1] + ry, t1[2] + rz), quat_mul(q1, q2)


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


def matrix_quat(m: list[float]) -> Quat:
    """Quaternion (w >= 0) of a rotation matrix given as 9 floats, row major (Shepperd's
    method: :func:`robot_formats.core.rotations.entries_to_quat`)."""
    return entries_to_quat(*m)


def quat_matrix(q: Quat) -> tuple[Vec, Vec, Vec]:
    """The rotation matrix (rows) of a unit quaternion."""
    x, y, z, w = q
    return ((1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w)),
            (2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w)),
            (2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y)))


def z_to(direction: Vec) -> Quat:
    """A rotation taking +z to the unit vector ``direction`` (cylinders along a segment): about
    z × direction by the angle between them (atan2 of sine and cosine, exact near ±z too);
    Rx(pi) when ``direction`` is -z."""
    dx, dy, dz = direction
    sine = math.hypot(dx, dy)           # |z × direction|, z × direction = (-dy, dx, 0)
    if sine < 1e-12:
        return Q_IDENTITY if dz > 0 else (1.0, 0.0, 0.0, 0.0)
    half = 0.5 * math.atan2(sine, dz)
    s = math.sin(half) / sine
    return (-dy * s, dx * s, 0.0, math.cos(half))
