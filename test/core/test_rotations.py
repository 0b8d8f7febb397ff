"""Rotations in plain floats against the numpy matrices they stand for."""

from __future__ import annotations

import itertools
import math
import random

from robot_formats.core.model import Pose
from robot_formats.core.rotations import quat_to_rotation, quat_to_rpy, rotation_to_rpy


def test_quat_to_rpy_is_the_rpy_of_the_rotation_matrix() -> None:
    rng = random.Random(3)
    quats = [tuple(rng.gauss(0, 1) for _ in range(4)) for _ in range(20000)]
    values = (0.0, -0.0, 1.0, -1.0, 0.5, -0.5, math.sqrt(0.5), -math.sqrt(0.5))
    quats += [q for q in itertools.product(values, repeat=4) if any(q)]
    angles = (0.0, math.pi / 2, -math.pi / 2, math.pi, -math.pi, 0.3, 1e-9)
    quats += [Pose.from_xyz_rpy((0, 0, 0), rpy).quat for rpy in itertools.product(angles, repeat=3)]
    for quat in quats:
        expected = rotation_to_rpy(quat_to_rotation(quat))
        got = quat_to_rpy(quat)
        assert max(abs(a - b) for a, b in zip(got, expected)) < 1e-14, (quat, got, expected)
