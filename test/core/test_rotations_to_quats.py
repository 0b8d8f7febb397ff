"""The batched matrix-to-quaternion conversion against the quaternions the matrices are made
of, and against the scalar conversion, in each of Shepperd's four cases (w, x, y or z the
largest component) and with the four mixed in one batch."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from robot_formats.core.rotations import quat_rows, rotation_to_quat, rotations_to_quats


def _quats(largest: int, count: int, rng: random.Random) -> list[tuple[float, ...]]:
    """Unit quaternions (x, y, z, w), w >= 0, whose component ``largest`` (0..3 of x, y, z,
    w) is the largest in magnitude, so that Shepperd's method picks that case; some near the
    boundaries (components almost equal, a half turn)."""
    out: list[tuple[float, ...]] = []
    while len(out) < count:
        q = [rng.gauss(0.0, 1.0) for _ in range(4)]
        q[largest] = max(abs(v) for v in q) * (1.0 + rng.choice((1e-9, 0.01, 1.0)))
        norm = math.sqrt(sum(v * v for v in q))
        q = [v / norm for v in q]
        if q[3] < 0:
            q = [-v for v in q]
        out.append(tuple(q))
    half_turn = [0.0, 0.0, 0.0, 0.0]
    half_turn[largest] = 1.0  # w = 1: no rotation; x, y or z = 1: a half turn about it
    out.append(tuple(half_turn))
    return out


def _case(matrix: np.ndarray) -> int:
    """The case Shepperd's method picks: 0 (trace, w largest), 1, 2, 3 (m00, m11, m22)."""
    return int(np.argmax([np.trace(matrix), matrix[0, 0], matrix[1, 1], matrix[2, 2]]))


@pytest.mark.parametrize('largest', [3, 0, 1, 2], ids=['w', 'x', 'y', 'z'])
def test_each_case_gives_back_the_quaternion_of_the_matrix(largest: int) -> None:
    quats = _quats(largest, 2000, random.Random(largest))
    matrices = np.array([quat_rows(q) for q in quats])
    assert {_case(m) for m in matrices} == {(largest + 1) % 4}  # the case under test
    got = rotations_to_quats(matrices)
    for q, row in zip(quats, got):
        sign = 1.0 if row[3] > 0 or (row[3] == 0 and np.dot(row, q) > 0) else -1.0
        assert np.allclose(row, np.multiply(q, sign), rtol=0, atol=1e-15), (q, row)
        assert row[3] >= 0.0


def test_a_batch_of_every_case_is_the_scalar_conversion_bit_for_bit() -> None:
    rng = random.Random(7)
    quats = [q for largest in range(4) for q in _quats(largest, 500, rng)]
    rng.shuffle(quats)  # the four cases interleaved: each row picks its own
    matrices = np.array([quat_rows(q) for q in quats])
    matrices = np.concatenate((matrices, np.eye(3)[None], -np.zeros((1, 3, 3))))
    assert {_case(m) for m in matrices} == {0, 1, 2, 3}
    got = rotations_to_quats(matrices)
    expected = np.array([rotation_to_quat(m) for m in matrices])
    assert got.shape == (len(matrices), 4)
    assert np.array_equal(got.view(np.int64), expected.view(np.int64))


def test_one_matrix_and_none() -> None:
    assert rotations_to_quats(np.eye(3)).tolist() == [[0.0, 0.0, 0.0, 1.0]]
    assert rotations_to_quats(np.zeros((0, 3, 3))).shape == (0, 4)
