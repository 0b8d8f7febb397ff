"""parse -> write -> parse keeps what a URDF says, and every frame's pose."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import robot_formats
from robot_formats import KinematicTree
from robot_formats.core.model import (Box, Cylinder, Dynamics, JointType, Limits, Material, Mesh,
                                 Mimic, Sphere)

from rf_testlib import CORPUS, FIXTURES, max_error, pose_h, random_positions

FIXTURE = FIXTURES / 'urdf' / 'roundtrip.urdf'
CORPUS_URDFS = [p for p in sorted(CORPUS.rglob('*.urdf')) if p.name != 'bad.urdf']
POSE_TOL = 1e-12


def roundtrip(path: Path, tmp_path: Path):
    first = robot_formats.load(path)
    out = tmp_path / 'written' / 'again.urdf'  # another directory: URIs must not be relative
    out.parent.mkdir(parents=True, exist_ok=True)
    robot_formats.write_urdf(first.scene, out)
    second = robot_formats.load(out)
    return first.scene.models[0], second.scene.models[0], out


@pytest.fixture
def models(tmp_path):
    return roundtrip(FIXTURE, tmp_path)


def same_pose(a, b) -> bool:
    return float(np.max(np.abs(pose_h(a) - pose_h(b)))) < POSE_TOL


def test_fixture_is_read_as_written():
    """Our reading of the fixture, against values typed from the file (not from a writer)."""
    model = robot_formats.load(FIXTURE).scene.models[0]
    links = {link.name: link for link in model.links}
    joints = {joint.name: joint for joint in model.joints}
    base = links['base']
    assert base.inertial.mass == 2.5
    assert base.inertial.inertia == (0.11, 0.001, -0.002, 0.12, 0.003, 0.13)
    assert base.visuals[0].material == Material('blue', (0.0, 0.0, 0.8, 1.0), None)
    mesh_dir = (FIXTURE.parent / 'meshes' / 'base.stl').resolve()
    assert base.visuals[0].geometry == Mesh(mesh_dir.as_uri(), (0.001, 0.001, 0.001))
    assert base.visuals[1].material == Material(
        'textured', (1.0, 1.0, 1.0, 0.5), (FIXTURE.parent / 'textures' / 'wood.png').as_uri())
    assert joints['shoulder'].limits == (Limits(-2.5, 2.25, 40.0, 1.5),)
    assert joints['shoulder'].dynamics == Dynamics(0.7, 0.05)
    assert joints['elbow'].type is JointType.CONTINUOUS
    assert joints['elbow'].limits == (Limits(None, None, 20.0, 3.0),)
    assert joints['finger_left_joint'].mimic == Mimic('slide', 0.5, 0.001)
    assert joints['finger_right_joint'].mimic == Mimic('slide', -0.5, 0.0)
    assert joints['free'].type is JointType.FLOATING


def test_roundtrip_keeps_links_and_joints_by_name(models):
    before, after, _ = models
    assert sorted(link.name for link in after.links) == sorted(link.name for link in before.links)
    assert sorted(j.name for j in after.joints) == sorted(j.name for j in before.joints)


def test_roundtrip_keeps_joint_attributes(models):
    before, after, _ = models
    again = {j.name: j for j in after.joints}
    for joint in before.joints:
        other = again[joint.name]
        assert (other.type, other.parent, other.child) == (joint.type, joint.parent, joint.child)
        assert same_pose(other.origin, joint.origin), joint.name
        if joint.type in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC):
            assert np.allclose(other.axis, joint.axis, atol=1e-15), joint.name
        assert other.limits == joint.limits, joint.name
        assert other.mimic == joint.mimic, joint.name
        assert other.dynamics == joint.dynamics, joint.name


def test_roundtrip_keeps_inertials_visuals_collisions(models):
    before, after, _ = models
    again = {link.name: link for link in after.links}
    for link in before.links:
        other = again[link.name]
        assert (other.inertial is None) == (link.inertial is None), link.name
        if link.inertial is not None:
            assert other.inertial.mass == link.inertial.mass
            assert other.inertial.inertia == link.inertial.inertia
            assert same_pose(other.inertial.origin, link.inertial.origin)
        for mine, theirs in ((link.visuals, other.visuals), (link.collisions, other.collisions)):
            assert len(theirs) == len(mine), link.name
            for a, b in zip(mine, theirs):
                assert b.geometry == a.geometry and b.name == a.name, link.name
                assert same_pose(b.origin, a.origin), link.name
                assert getattr(b, 'material', None) == getattr(a, 'material', None), link.name


def test_roundtrip_keeps_materials(models):
    _, after, _ = models
    materials = {v.material.name: v.material for link in after.links for v in link.visuals
                 if v.material is not None}
    assert materials['blue'].rgba == (0.0, 0.0, 0.8, 1.0)
    assert materials['red'].rgba == (0.8, 0.0, 0.0, 1.0)
    assert materials['textured'].texture == (FIXTURE.parent / 'textures' / 'wood.png').resolve(
    ).as_uri()


def test_roundtrip_geometry_kinds(models):
    _, after, _ = models
    kinds = {type(item.geometry) for link in after.links for item in (*link.visuals,
                                                                       *link.collisions)}
    assert kinds == {Box, Cylinder, Sphere, Mesh}


def test_mesh_uris_become_absolute_file_uris(models):
    _, after, written = models
    uris = {link.name: [i.geometry.uri for i in (*link.visuals, *link.collisions)
                        if isinstance(i.geometry, Mesh)] for link in after.links}
    expected_base = 'file://' + str((FIXTURE.parent / 'meshes' / 'base.stl').resolve())
    assert uris['base'] == [expected_base]
    assert uris['upper_arm'] == ['package://roundtrip_description/meshes/upper_arm.dae']
    assert uris['forearm'] == ['file:///opt/meshes/forearm.obj']
    text = written.read_text()
    assert 'filename="meshes/base.stl"' not in text
    assert f'filename="{expected_base}"' in text


def test_roundtrip_fk_identical(models):
    before, after, _ = models
    from robot_formats.core.model import Scene
    tree_a = KinematicTree(Scene('a', (before,)))
    tree_b = KinematicTree(Scene('b', (after,)))
    assert set(tree_a.dof_names) == set(tree_b.dof_names)
    rng = np.random.default_rng(3)
    for _ in range(4):
        q = random_positions(rng, tree_a.dof_names)
        error, where = max_error(tree_a.forward(q), tree_b.forward(q), tree_a.links)
        assert error < POSE_TOL, (where, error)


@pytest.mark.parametrize('path', CORPUS_URDFS, ids=lambda p: p.name)
def test_corpus_roundtrip(path: Path, tmp_path: Path):
    before, after, _ = roundtrip(path, tmp_path)
    assert sorted(link.name for link in after.links) == sorted(link.name for link in before.links)
    assert sorted(j.name for j in after.joints) == sorted(j.name for j in before.joints)
    types = {j.name: j.type for j in after.joints}
    for joint in before.joints:
        expected = joint.type
        if joint.type is JointType.REVOLUTE and not joint.limits:
            expected = JointType.CONTINUOUS  # documented: an unlimited revolute is continuous
        assert types[joint.name] is expected, joint.name
        assert {j.name: j.mimic for j in after.joints}[joint.name] == joint.mimic
    from robot_formats.core.model import Scene
    tree_a, tree_b = KinematicTree(Scene('a', (before,))), KinematicTree(Scene('b', (after,)))
    q = random_positions(np.random.default_rng(1), tree_a.dof_names)
    error, where = max_error(tree_a.forward(q), tree_b.forward(q), tree_a.links)
    assert error < POSE_TOL, (where, error)


GIMBAL_PITCHES = [np.pi / 2, -np.pi / 2, np.pi / 2 - 1e-7, -np.pi / 2 + 1e-9, np.pi / 2 - 1e-13,
                  np.pi / 2 - 1e-4]


@pytest.mark.parametrize('pitch', GIMBAL_PITCHES)
def test_origins_near_gimbal_lock_are_written_exactly(pitch: float, tmp_path: Path):
    """rpy extraction must stay exact near pitch = ±π/2 (asin there loses ~sqrt(eps))."""
    from robot_formats.core.model import Joint, Link, Model, Pose, Scene
    rng = np.random.default_rng(int(abs(pitch) * 1e6) % 1000)
    links = tuple(Link(f'l{i}') for i in range(9))
    joints = tuple(
        Joint(f'j{i}', JointType.FIXED, f'l{i - 1}', f'l{i}',
              Pose.from_xyz_rpy((0.1, 0.2, 0.3), (rng.uniform(-3, 3), pitch, rng.uniform(-3, 3))))
        for i in range(1, 9))
    scene = Scene('g', (Model('g', links, joints),))
    path = tmp_path / 'g.urdf'
    robot_formats.write_urdf(scene, path)
    ours, again = KinematicTree(scene), KinematicTree(robot_formats.load(path).scene)
    error, where = max_error(ours.forward(), again.forward(), ours.links)
    assert error < 1e-12, f'{where}: written pose off by {error:.3g}'
