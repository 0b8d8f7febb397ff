"""Rigid transforms of the SKEL reader as flat tuples of plain floats.

A SKEL world needs a handful of transforms per body (its frame, its shapes, its joint), each
built once and used in one or two products. numpy's overhead per call on a 4×4 outweighs the
arithmetic itself, so here a transform is the tuple
``(r00, r01, r02, r10, r11, r12, r20, r21, r22, x, y, z)`` (rotation row by row, then the
translation) and the few operations the reader needs are written out. The results are the same
products and the same quaternion formula as :mod:`robot_formats.core.transforms` (up to the rounding
order of a sum and the sign of a zero: a product with the shared identity is not computed, only
returned).
"""

from __future__ import annotations

from robot_formats.core.model import Pose
from robot_formats.core.rotations import entries_to_quat, xyz_euler_entries

__all__ = ['Rigid', 'IDENTITY', 'IDENTITY_POSE', 'from_xyz_euler', 'translation', 'compose',
           'inverse', 'to_pose', 'origin']

Rigid = tuple[float, float, float, float, float, float, float, float, float, float, float, float]

#: The identity, shared: callers skip work with ``transform is IDENTITY``.
IDENTITY: Rigid = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
IDENTITY_POSE = Pose()


def from_xyz_euler(x: float, y: float, z: float, rx: float, ry: float, rz: float) -> Rigid:
    """Translation (x, y, z) and rotation Rx(rx)·Ry(ry)·Rz(rz) (DART's XYZ Euler)."""
    return (*xyz_euler_entries(rx, ry, rz), x, y, z)


def translation(x: float, y: float, z: float) -> Rigid:
    return (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, x, y, z)


def compose(a: Rigid, b: Rigid) -> Rigid:
    """``a · b`` (an :data:`IDENTITY` factor returns the other one as it is)."""
    if a is IDENTITY:
        return b
    if b is IDENTITY:
        return a
    a00, a01, a02, a10, a11, a12, a20, a21, a22, ax, ay, az = a
    b00, b01, b02, b10, b11, b12, b20, b21, b22, bx, by, bz = b
    return (a00 * b00 + a01 * b10 + a02 * b20, a00 * b01 + a01 * b11 + a02 * b21,
            a00 * b02 + a01 * b12 + a02 * b22,
            a10 * b00 + a11 * b10 + a12 * b20, a10 * b01 + a11 * b11 + a12 * b21,
            a10 * b02 + a11 * b12 + a12 * b22,
            a20 * b00 + a21 * b10 + a22 * b20, a20 * b01 + a21 * b11 + a22 * b21,
            a20 * b02 + a21 * b12 + a22 * b22,
            a00 * bx + a01 * by + a02 * bz + ax, a10 * bx + a11 * by + a12 * bz + ay,
            a20 * bx + a21 * by + a22 * bz + az)


def inverse(a: Rigid) -> Rigid:
    """``a⁻¹`` of a rigid transform: (Rᵀ, −Rᵀ·p)."""
    r00, r01, r02, r10, r11, r12, r20, r21, r22, x, y, z = a
    return (r00, r10, r20, r01, r11, r21, r02, r12, r22,
            -(r00 * x + r10 * y + r20 * z), -(r01 * x + r11 * y + r21 * z),
            -(r02 * x + r12 * y + r22 * z))


def origin(a: Rigid) -> tuple[float, float, float]:
    """The translation part."""
    return (a[9], a[10], a[11])


def to_pose(a: Rigid) -> Pose:
    """The model :class:`Pose` (quaternion with w >= 0, as
    :func:`robot_formats.core.transforms.rotation_to_quat`)."""
    if a is IDENTITY:
        return IDENTITY_POSE
    return Pose((a[9], a[10], a[11]), entries_to_quat(*a[:9]))
