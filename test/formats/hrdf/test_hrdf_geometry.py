"""The reader's plain-float rigid transforms (formats/hrdf/geometry.py) against numpy matrices
written out independently here: every pose of an HRDF model is composed with these."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from robot_formats.core.model import IDENTITY
from robot_formats.core.transforms import pose_to_matrix
from robot_formats.core.rotations import (Q_IDENTITY, axis_quat, entries_to_quat, quat_multiply,
                                          quat_rows, rotate, z_to)
from robot_formats.formats.hrdf.geometry import compose, pose


def _r(axis: str, a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return {'x': np.array([[1, 0, 0], [0, c, -s], [0, s, c]]),
            'y': np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]),
            'z': np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])}[axis]


def _random_quat(rng: random.Random):
    q = axis_quat('z', rng.uniform(-4, 4))
    q = quat_multiply(q, axis_quat('y', rng.uniform(-4, 4)))
    return quat_multiply(q, axis_quat('x', rng.uniform(-4, 4)))


@pytest.mark.parametrize('axis', 'xyz')
def test_axis_quaternions_are_the_axis_rotations(axis: str) -> None:
    for angle in (0.0, 0.3, -1.2, math.pi / 2, math.pi, 5.0):
        assert np.allclose(quat_rows(axis_quat(axis, angle)), _r(axis, angle), atol=1e-15)


def test_products_rotations_and_composition_match_matrices() -> None:
    rng = random.Random(18)
    for _ in range(200):
        a, b = _random_quat(rng), _random_quat(rng)
        ma, mb = np.array(quat_rows(a)), np.array(quat_rows(b))
        assert np.allclose(quat_rows(quat_multiply(a, b)), ma @ mb, atol=1e-14)
        v = (rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1))
        assert np.allclose(rotate(a, v), ma @ v, atol=1e-14)
        t1, t2 = v, (rng.uniform(-1, 1), 0.5, -0.25)
        t, q = compose(t1, a, t2, b)
        x1, x2 = np.eye(4), np.eye(4)
        x1[:3, :3], x1[:3, 3], x2[:3, :3], x2[:3, 3] = ma, t1, mb, t2
        assert np.allclose(pose_to_matrix(pose(t, q)), x1 @ x2, atol=1e-14)
        assert np.allclose(quat_rows(entries_to_quat(*(ma @ mb).ravel())), ma @ mb,
                           atol=1e-14)


def test_poses_are_canonical() -> None:
    assert pose(None, None) is IDENTITY and pose((0.0, 0.0, 0.0), Q_IDENTITY) is IDENTITY
    flipped = pose((1.0, 2.0, 3.0), (0.0, 0.0, -0.6, -0.8))  # w < 0: the same rotation, w > 0
    assert flipped.xyz == (1.0, 2.0, 3.0) and flipped.quat == pytest.approx((0, 0, 0.6, 0.8))
    assert pose(None, (0.0, 0.0, 0.0, 2.0)).quat == (0.0, 0.0, 0.0, 1.0)  # normalised


@pytest.mark.parametrize('direction', [(0, 0, 1), (0, 0, -1), (1, 0, 0), (0, -1, 0),
                                       (0.6, 0.0, -0.8), (0.48, 0.6, 0.64),
                                       (1e-9, 0, -1)])
def test_z_to_takes_z_to_the_direction(direction) -> None:
    d = np.array(direction, dtype=float)
    d /= np.linalg.norm(d)
    rotation = np.array(quat_rows(z_to(tuple(d))))
    assert np.allclose(rotation @ (0, 0, 1), d, atol=1e-12)
    assert np.allclose(rotation @ rotation.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(rotation) == pytest.approx(1.0)
