"""SE(3) in numpy: 4×4 homogeneous matrices of poses; the rotations themselves live in
:mod:`robot_formats.core.rotations` (re-exported here).

Frame notation as in libsdformat and Drake: ``X_AB`` is the pose of frame B in frame A, so
``X_AC = X_AB @ X_BC``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from robot_formats.core.lazy import numpy_on_first_use
from robot_formats.core.model import Pose
from robot_formats.core.rotations import (  # noqa: F401  (re-exported: this module's names)
    _NO_ROTATION, _rotation_entries, axis_angle, axis_angles, entries_to_quat, exp_rotvec,
    invert, normalized, quat_to_rotation, rotation_to_quat, rotation_to_rpy, rotations_to_quats,
    rpy_to_rotation, translation)

if TYPE_CHECKING:
    import numpy as np
else:
    np = numpy_on_first_use(globals())

__all__ = [
    'pose_to_matrix', 'pose_to_inverse_matrix', 'matrix_to_pose', 'quat_to_rotation',
    'rotation_to_quat', 'entries_to_quat', 'rotations_to_quats', 'axis_angle', 'axis_angles',
    'exp_rotvec', 'translation',
    'invert', 'rpy_to_rotation', 'rotation_to_rpy', 'normalized',
]


def pose_to_matrix(pose: Pose) -> np.ndarray:
    """4×4 matrix of a :class:`Pose` (built in one ``np.array`` call, with
    :func:`quat_to_rotation`'s arithmetic: every loaded joint and frame needs one)."""
    px, py, pz = (float(v) for v in pose.xyz)
    r00, r01, r02, r10, r11, r12, r20, r21, r22 = (
        _NO_ROTATION if pose.quat == (0.0, 0.0, 0.0, 1.0) else _rotation_entries(pose.quat))
    return np.array([[r00, r01, r02, px], [r10, r11, r12, py], [r20, r21, r22, pz],
                     [0.0, 0.0, 0.0, 1.0]])


def pose_to_inverse_matrix(pose: Pose) -> np.ndarray:
    """``invert(pose_to_matrix(pose))`` in one ``np.array`` call: (Rᵀ, −Rᵀ·p), the products
    and sums in numpy's order, so the result is bit-identical, for the child offset of every
    loaded joint."""
    px, py, pz = (float(v) for v in pose.xyz)
    r00, r01, r02, r10, r11, r12, r20, r21, r22 = (
        _NO_ROTATION if pose.quat == (0.0, 0.0, 0.0, 1.0) else _rotation_entries(pose.quat))
    return np.array([[r00, r10, r20, -r00 * px + -r10 * py + -r20 * pz],
                     [r01, r11, r21, -r01 * px + -r11 * py + -r21 * pz],
                     [r02, r12, r22, -r02 * px + -r12 * py + -r22 * pz],
                     [0.0, 0.0, 0.0, 1.0]])


def matrix_to_pose(matrix: np.ndarray) -> Pose:
    """:class:`Pose` of a 4×4 matrix (w >= 0)."""
    x, y, z = (float(v) for v in matrix[:3, 3])
    return Pose((x, y, z), rotation_to_quat(matrix[:3, :3]))
