"""Rotations in numpy and plain floats: quaternions (x, y, z, w), rotation matrices, roll-pitch-yaw,
axis-angle and rotation vectors. No robot model here: :mod:`robot_formats.core.model` builds on it,
and :mod:`robot_formats.core.transforms` adds the poses.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from robot_formats.core.lazy import numpy_on_first_use

if TYPE_CHECKING:
    import numpy as np
else:
    np = numpy_on_first_use(globals())

__all__ = ['normalized', 'quat_to_rotation', 'rotations_to_quats', 'rotation_to_quat',
           'entries_to_quat', 'translation', 'axis_angle', 'axis_angles', 'exp_rotvec', 'invert',
           'rotation_to_rpy', 'rpy_to_rotation', 'quat_to_rpy', 'Q_IDENTITY', 'axis_quat',
           'quat_multiply', 'rotate', 'quat_rows', 'z_to', 'rpy_rows', 'rpy_to_quat',
           'xyz_euler_entries']

#: The quaternion (x, y, z, w) of no rotation (one object: callers test ``q is Q_IDENTITY`` to
#: skip work).
Q_IDENTITY = (0.0, 0.0, 0.0, 1.0)


def normalized(vector: Sequence[float] | np.ndarray) -> np.ndarray:
    """Unit vector; a zero vector raises ValueError (callers turn it into a typed error)."""
    v = np.asarray(vector, dtype=float)
    norm = float(np.linalg.norm(v))
    if norm < 1e-12 or not math.isfinite(norm):
        raise ValueError('axis has zero length')
    return v / norm


def quat_to_rotation(quat: Sequence[float] | np.ndarray) -> np.ndarray:
    """Rotation matrix of a quaternion (x, y, z, w); the quaternion is normalised first."""
    x, y, z, w = (float(v) for v in quat)
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / norm, y / norm, z / norm, w / norm
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def rotations_to_quats(rotations: np.ndarray) -> np.ndarray:
    """Quaternions (n, 4) = (x, y, z, w) with w >= 0 of rotation matrices (n, 3, 3).

    Vectorised Shepperd's method: for each matrix, the largest of (w, x, y, z) is computed from
    the diagonal and the rest from off-diagonal sums, which is well conditioned everywhere.
    Only the case picked for each row is worked out: one look-up of :data:`_SHEPPERD` by the
    case gathers its terms from the row, so a few rotations cost few numpy calls (no mask or
    array per case). The arithmetic is :func:`entries_to_quat`'s, operation by operation.
    """
    flat = np.asarray(rotations, dtype=float).reshape(-1, 9)
    count = len(flat)
    # each row: trace, 0.0, -m01, -m12, its nine entries, -m20: (trace, m00, m11, m22) is a
    # strided slice, and each difference a sum
    terms = np.empty((count, 14))
    terms[:, 4:13] = flat
    terms[:, 0] = (flat[:, 0] + flat[:, 4]) + flat[:, 8]
    terms[:, 1] = 0.0
    terms[:, (2, 3, 13)] = -flat[:, (1, 5, 6)]
    case = np.asarray(_SHEPPERD)[np.argmax(terms[:, 0:13:4], axis=1)]
    rows = np.arange(count)
    picked = terms[rows[:, None], case[:, :11]]
    s = np.sqrt(np.maximum(((1.0 + picked[:, 0]) - picked[:, 1]) - picked[:, 2], 1e-300)) * 2.0
    q = (picked[:, 3:11:2] + picked[:, 4:11:2]) / s[:, None]
    q[rows, case[:, 11]] = s * 0.25
    q /= np.sqrt(np.add.reduce(q * q, axis=1, keepdims=True))  # (np.linalg.norm's sum)
    q[q[:, 3] < 0] *= -1.0
    return q


#: Per case of Shepperd's method (the largest component is w, x, y or z; the first largest of
#: trace, m00, m11, m22), columns of the terms :func:`rotations_to_quats` lays out for a row
#: (0: trace, 1: 0.0, 2: -m01, 3: -m12, 4 + 3i + j: m_ij, 13: -m20): the diagonal sum
#: ``((1 + first) - second) - third``, then x, y, z, w as sums of two entries (over ``s``),
#: then which of x, y, z, w is ``s / 4`` instead (its two columns are placeholders).
_SHEPPERD = (
    # w: 1 + trace; x = m21 - m12, y = m02 - m20, z = m10 - m01
    (0, 1, 1, 11, 3, 6, 13, 7, 2, 1, 1, 3),
    # x: 1 + m00 - m11 - m22; y = m01 + m10, z = m02 + m20, w = m21 - m12
    (4, 8, 12, 1, 1, 5, 7, 6, 10, 11, 3, 0),
    # y: 1 + m11 - m00 - m22; x = m01 + m10, z = m12 + m21, w = m02 - m20
    (8, 4, 12, 5, 7, 1, 1, 9, 11, 6, 13, 1),
    # z: 1 + m22 - m00 - m11; x = m02 + m20, y = m12 + m21, w = m10 - m01
    (12, 4, 8, 6, 10, 9, 11, 1, 1, 7, 2, 2),
)


def rotation_to_quat(rotation: np.ndarray) -> tuple[float, float, float, float]:
    """Quaternion (x, y, z, w), w >= 0, of one rotation matrix (Shepperd's method, scalar)."""
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = np.asarray(rotation, dtype=float).tolist()
    return entries_to_quat(m00, m01, m02, m10, m11, m12, m20, m21, m22)


def entries_to_quat(m00: float, m01: float, m02: float, m10: float, m11: float, m12: float,
                    m20: float, m21: float, m22: float) -> tuple[float, float, float, float]:
    """:func:`rotation_to_quat` of a rotation given as its nine entries, row by row, as floats
    (for callers that keep rotations as plain floats, e.g. the SKEL reader)."""
    trace = m00 + m11 + m22
    largest = max(trace, m00, m11, m22)
    if largest == trace:
        s = math.sqrt(max(1.0 + trace, 1e-300)) * 2.0
        w, x, y, z = s * 0.25, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s
    elif largest == m00:
        s = math.sqrt(max(1.0 + m00 - m11 - m22, 1e-300)) * 2.0
        w, x, y, z = (m21 - m12) / s, s * 0.25, (m01 + m10) / s, (m02 + m20) / s
    elif largest == m11:
        s = math.sqrt(max(1.0 + m11 - m00 - m22, 1e-300)) * 2.0
        w, x, y, z = (m02 - m20) / s, (m01 + m10) / s, s * 0.25, (m12 + m21) / s
    else:
        s = math.sqrt(max(1.0 + m22 - m00 - m11, 1e-300)) * 2.0
        w, x, y, z = (m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, s * 0.25
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    if w < 0:
        norm = -norm
    return (x / norm, y / norm, z / norm, w / norm)


def _rotation_entries(quat: Sequence[float] | np.ndarray) -> tuple[float, ...]:
    """The nine entries, row by row, of :func:`quat_to_rotation` (same arithmetic) as floats."""
    x, y, z, w = (float(v) for v in quat)
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / norm, y / norm, z / norm, w / norm
    return (1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
            2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
            2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y))


_NO_ROTATION = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def translation(vector: Sequence[float] | np.ndarray) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, 3] = vector
    return matrix


def axis_angle(axis: Sequence[float] | np.ndarray, angle: float) -> np.ndarray:
    """3×3 rotation by ``angle`` about the unit ``axis`` (Rodrigues)."""
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    return np.array([
        [t * x * x + c, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, t * z * z + c],
    ])


def axis_angles(axes: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Batched Rodrigues: rotations (n, 3, 3) about unit ``axes`` (n, 3) by ``angles`` (n,)."""
    c = np.cos(angles)
    s = np.sin(angles)
    t = 1.0 - c
    x, y, z = axes[:, 0], axes[:, 1], axes[:, 2]
    out = np.empty((axes.shape[0], 3, 3))
    out[:, 0, 0] = t * x * x + c
    out[:, 0, 1] = t * x * y - s * z
    out[:, 0, 2] = t * x * z + s * y
    out[:, 1, 0] = t * x * y + s * z
    out[:, 1, 1] = t * y * y + c
    out[:, 1, 2] = t * y * z - s * x
    out[:, 2, 0] = t * x * z - s * y
    out[:, 2, 1] = t * y * z + s * x
    out[:, 2, 2] = t * z * z + c
    return out


def exp_rotvec(rotvec: Sequence[float] | np.ndarray) -> np.ndarray:
    """Rotation matrix of a rotation vector (axis × angle): the SO(3) exponential map."""
    v = np.asarray(rotvec, dtype=float)
    angle = float(np.linalg.norm(v))
    if angle < 1e-12:
        k = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
        return np.eye(3) + k
    return axis_angle(v / angle, angle)


def invert(matrix: np.ndarray) -> np.ndarray:
    """Inverse of a rigid transform (faster and exacter than a general inverse)."""
    out = np.empty((4, 4))
    rotation_t = matrix[:3, :3].T
    out[:3, :3] = rotation_t
    out[:3, 3] = -rotation_t @ matrix[:3, 3]
    out[3] = (0.0, 0.0, 0.0, 1.0)
    return out


def rotation_to_rpy(rotation: np.ndarray) -> tuple[float, float, float]:
    """Roll, pitch, yaw (URDF convention) of a rotation matrix, exact to rounding everywhere.

    Pitch comes from atan2 (not asin, which loses ~1e-8 rad near ±π/2), and yaw is solved from
    what remains after roll and pitch, so roll's error near gimbal lock is absorbed.
    """
    r = np.asarray(rotation, dtype=float)
    cos_pitch = math.hypot(r[2, 1], r[2, 2])
    pitch = math.atan2(-r[2, 0], cos_pitch)
    roll = math.atan2(r[2, 1], r[2, 2]) if cos_pitch > 0.0 else 0.0
    rest = r @ axis_angle((1.0, 0.0, 0.0), roll).T @ axis_angle((0.0, 1.0, 0.0), pitch).T
    return (roll, pitch, math.atan2(rest[1, 0], rest[0, 0]))


def rpy_to_rotation(rpy: Sequence[float] | np.ndarray) -> np.ndarray:
    """Rz(yaw) · Ry(pitch) · Rx(roll), the URDF/SDFormat convention."""
    roll, pitch, yaw = rpy
    return (axis_angle((0, 0, 1), yaw) @ axis_angle((0, 1, 0), pitch)
            @ axis_angle((1, 0, 0), roll))



def _axis_angle_rows(axis: tuple[float, float, float], angle: float
                     ) -> tuple[tuple[float, ...], ...]:
    """:func:`axis_angle`'s matrix as rows of floats (the same arithmetic)."""
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    return ((t * x * x + c, t * x * y - s * z, t * x * z + s * y),
            (t * x * y + s * z, t * y * y + c, t * y * z - s * x),
            (t * x * z - s * y, t * y * z + s * x, t * z * z + c))


def quat_to_rpy(quat: Sequence[float]) -> tuple[float, float, float]:
    """``rotation_to_rpy(quat_to_rotation(quat))`` in plain floats (no numpy), by the same
    steps: rest = R · Rx(roll)ᵀ · Ry(pitch)ᵀ with :func:`axis_angle`'s entries, each product's
    sum in index order; only rest's first column is needed."""
    r00, r01, r02, r10, r11, r12, r20, r21, r22 = _rotation_entries(quat)
    cos_pitch = math.hypot(r21, r22)
    pitch = math.atan2(-r20, cos_pitch)
    roll = math.atan2(r21, r22) if cos_pitch > 0.0 else 0.0
    (x00, x01, x02), (x10, x11, x12), (x20, x21, x22) = _axis_angle_rows((1.0, 0.0, 0.0), roll)
    (y00, y01, y02), _, _ = _axis_angle_rows((0.0, 1.0, 0.0), pitch)
    # M = R · Rxᵀ: M[i][j] = Σ_k R[i][k] · Rx[j][k]
    m00 = r00 * x00 + r01 * x01 + r02 * x02
    m01 = r00 * x10 + r01 * x11 + r02 * x12
    m02 = r00 * x20 + r01 * x21 + r02 * x22
    m10 = r10 * x00 + r11 * x01 + r12 * x02
    m11 = r10 * x10 + r11 * x11 + r12 * x12
    m12 = r10 * x20 + r11 * x21 + r12 * x22
    # rest[i][0] = Σ_k M[i][k] · Ry[0][k]
    cosine = m00 * y00 + m01 * y01 + m02 * y02
    sine = m10 * y00 + m11 * y01 + m12 * y02
    sine = sine if sine != 0.0 else 0.0  # +0: yaw +π, as numpy's sums give it
    return (roll, pitch, math.atan2(sine, cosine))


# --- in plain floats (readers that keep rotations as tuples: HRDF, SDFormat poses) ----------

def axis_quat(axis: str, angle: float) -> tuple[float, float, float, float]:
    """Rx, Ry or Rz of ``angle`` radians (``axis`` 'x', 'y' or 'z') as a quaternion."""
    half = 0.5 * angle
    s, c = math.sin(half), math.cos(half)
    if axis == 'x':
        return (s, 0.0, 0.0, c)
    if axis == 'y':
        return (0.0, s, 0.0, c)
    return (0.0, 0.0, s, c)


def quat_multiply(a, b):
    """The Hamilton product ``a · b`` (b first, then a) of quaternions (x, y, z, w), as a tuple
    of its four components: of floats, or entry by entry of numpy arrays (many products at
    once)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def rotate(q: Sequence[float], v: Sequence[float]) -> tuple[float, float, float]:
    """``R(q) · v`` of a unit quaternion ``q`` and a vector ``v``."""
    x, y, z, w = q
    vx, vy, vz = v
    # t = 2 q_v × v;  v' = v + w t + q_v × t
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (vx + w * tx + (y * tz - z * ty),
            vy + w * ty + (z * tx - x * tz),
            vz + w * tz + (x * ty - y * tx))


def quat_rows(q: Sequence[float]) -> tuple[tuple[float, float, float], ...]:
    """The rotation matrix (rows of floats) of a unit quaternion (x, y, z, w)."""
    x, y, z, w = q
    return ((1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w)),
            (2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w)),
            (2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y)))


def z_to(direction: Sequence[float]) -> tuple[float, float, float, float]:
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


def rpy_rows(roll: float, pitch: float, yaw: float) -> list[list[float]]:
    """Rz(yaw) · Ry(pitch) · Rx(roll) (the URDF/SDFormat convention) in closed form, as rows
    of plain floats (a 4×4 pose is made from them in one ``np.array`` call)."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr]]


def rpy_to_quat(roll: float, pitch: float, yaw: float) -> tuple[float, float, float, float]:
    """The unit quaternion (x, y, z, w) of fixed-axis roll about X, then pitch about Y, then
    yaw about Z (the URDF/SDFormat convention; :meth:`Pose.from_xyz_rpy`'s rotation)."""
    roll, pitch, yaw = roll * 0.5, pitch * 0.5, yaw * 0.5
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return (sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
            cr * cp * cy + sr * sp * sy)


def xyz_euler_entries(rx: float, ry: float, rz: float
                      ) -> tuple[float, float, float, float, float, float, float, float, float]:
    """Rx(rx) · Ry(ry) · Rz(rz) (DART's XYZ Euler angles): its nine entries, row by row."""
    cx, sx, cy, sy = math.cos(rx), math.sin(rx), math.cos(ry), math.sin(ry)
    cz, sz = math.cos(rz), math.sin(rz)
    return (cy * cz, -cy * sz, sy,
            cx * sz + sx * sy * cz, cx * cz - sx * sy * sz, -sx * cy,
            sx * sz - cx * sy * cz, sx * cz + cx * sy * sz, cx * cy)
