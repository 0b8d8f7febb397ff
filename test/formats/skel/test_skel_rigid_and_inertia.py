"""The SKEL reader's transforms, inertias and child look-ups against independent
computations: numpy 4×4 products and the core quaternion of a rotation matrix, R·diag·Rᵀ plus
the parallel-axis term with the textbook principal moments, and lxml's own
``iterchildren('{*}tag')``; on random inputs, rotated and not, one shape and several.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from lxml import etree

from robot_formats.core.model import Box, Capsule, Cylinder, Ellipsoid, Sphere
from robot_formats.core.rotations import rotation_to_quat
from robot_formats.formats.skel.reader import _composite_inertia
from robot_formats.formats.skel.rigid import (IDENTITY, compose, from_xyz_euler, inverse,
                                              to_pose, translation)
from robot_formats.formats.skel.shapes import shape_inertia, shape_volume
from robot_formats.formats.skel.values import child, index

CASES = 300


def _matrix(rigid: tuple[float, ...]) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = np.reshape(rigid[:9], (3, 3))
    out[:3, 3] = rigid[9:]
    return out


def _random_rigid(rng: random.Random) -> tuple[float, ...]:
    """Rotated, rotation-free or the identity, about evenly."""
    kind = rng.randrange(3)
    xyz = [rng.uniform(-2, 2) for _ in range(3)]
    if kind == 0:
        return IDENTITY
    if kind == 1:
        return from_xyz_euler(*xyz, 0.0, 0.0, 0.0)
    return from_xyz_euler(*xyz, *(rng.uniform(-math.pi, math.pi) for _ in range(3)))


def test_products_inverses_and_poses_are_the_matrices() -> None:
    rng = random.Random(18)
    for _ in range(CASES):
        a, b = _random_rigid(rng), _random_rigid(rng)
        assert np.allclose(_matrix(compose(a, b)), _matrix(a) @ _matrix(b), atol=1e-12)
        assert np.allclose(_matrix(compose(inverse(a), b)),
                           np.linalg.inv(_matrix(a)) @ _matrix(b), atol=1e-12)
        pose = to_pose(compose(a, b))
        matrix = _matrix(a) @ _matrix(b)
        assert np.allclose(pose.xyz, matrix[:3, 3], atol=1e-12)
        assert np.allclose(pose.quat, rotation_to_quat(matrix[:3, :3]), atol=1e-12)
    assert to_pose(translation(1.0, 2.0, 3.0)).quat == (0.0, 0.0, 0.0, 1.0)


def _principal(geometry: object, mass: float) -> tuple[float, float, float]:
    """Principal moments about the shape origin (textbook formulas, written out again)."""
    if isinstance(geometry, Box):
        x, y, z = geometry.size
        return (mass / 12 * (y * y + z * z), mass / 12 * (x * x + z * z),
                mass / 12 * (x * x + y * y))
    if isinstance(geometry, Sphere):
        return (0.4 * mass * geometry.radius ** 2,) * 3  # type: ignore[return-value]
    assert isinstance(geometry, Cylinder)
    r, h = geometry.radius, geometry.length
    return (mass * (3 * r * r + h * h) / 12, mass * (3 * r * r + h * h) / 12, mass * r * r / 2)


def _reference(geometry: object, mass: float, placement: tuple[float, ...],
               com: tuple[float, float, float]) -> np.ndarray:
    rotation = np.reshape(placement[:9], (3, 3))
    moments = rotation @ np.diag(_principal(geometry, mass)) @ rotation.T
    d = np.asarray(placement[9:]) - np.asarray(com)
    moments = moments + mass * (d @ d * np.eye(3) - np.outer(d, d))
    return moments[[0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2]]


def _random_solid(rng: random.Random) -> object:
    kind = rng.randrange(3)
    if kind == 0:
        return Box(tuple(rng.uniform(0.05, 2) for _ in range(3)))  # type: ignore[arg-type]
    if kind == 1:
        return Sphere(rng.uniform(0.05, 1))
    return Cylinder(rng.uniform(0.05, 1), rng.uniform(0.05, 2))


def test_shape_inertia_rotated_or_not() -> None:
    rng = random.Random(5)
    for _ in range(CASES):
        solid, placement = _random_solid(rng), _random_rigid(rng)
        mass = rng.uniform(0.1, 10)
        com = tuple(rng.uniform(-1, 1) for _ in range(3))
        got = shape_inertia(solid, mass, placement, com)  # type: ignore[arg-type]
        assert np.allclose(got, _reference(solid, mass, placement, com),  # type: ignore
                           rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('count', [1, 2, 3])
def test_composite_inertia_of_one_and_of_several_shapes(count: int) -> None:
    rng = random.Random(count)
    for _ in range(CASES // 3):
        solids = [(_random_solid(rng), _random_rigid(rng)) for _ in range(count)]
        mass = rng.uniform(0.1, 10)
        com = tuple(rng.uniform(-1, 1) for _ in range(3))
        volumes = [shape_volume(solid) for solid, _ in solids]
        expected = sum(_reference(solid, mass * v / sum(volumes), placement, com)  # type: ignore
                       for (solid, placement), v in zip(solids, volumes))
        got = _composite_inertia(solids, mass, com, {})  # type: ignore[arg-type]
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert _composite_inertia([], 1.0, (0.0, 0.0, 0.0), {}) is None
    assert _composite_inertia([(Box((1.0, 1.0, 1.0)), IDENTITY)], 0.0, (0.0, 0.0, 0.0), {}) \
        is None
    assert _composite_inertia([(Capsule(0.1, 0.5), IDENTITY), (Ellipsoid((0.1, 0.2, 0.3)),
                                                                IDENTITY)],
                              2.0, (0.0, 0.0, 0.0), {}) is not None


TAGS = ['body', 'joint', 'axis', 'xyz', 'limit', 'lower', 'upper', 'geometry', 'box', 'size']


def _random_children(rng: random.Random) -> etree._Element:
    parent = etree.Element('parent')
    for _ in range(rng.randrange(8)):
        kind = rng.randrange(5)
        if kind == 0:
            parent.append(etree.Comment('c'))
        elif kind == 1:
            parent.append(etree.ProcessingInstruction('pi', 'x'))
        elif kind == 2:
            etree.SubElement(parent, '{urn:ns%d}%s' % (rng.randrange(2), rng.choice(TAGS)))
        else:
            etree.SubElement(parent, rng.choice(TAGS)).text = str(rng.random())
    return parent


def test_child_and_index_find_what_lxml_finds() -> None:
    rng = random.Random(7)
    for _ in range(CASES):
        parent = _random_children(rng)
        kids = index(parent)
        for tag in TAGS:
            expected = next(parent.iterchildren('{*}' + tag), None)
            assert child(parent, tag) is expected
            assert kids.get(tag) is expected
        assert set(kids) <= set(TAGS)
