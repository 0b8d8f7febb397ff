"""Lowering any tree to URDF's vocabulary keeps every frame's pose; each joint kind moves as its
closed form says (computed here from scratch, not with robot_formats.core.transforms)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import robot_formats
from robot_formats import KinematicTree
from robot_formats.core.kinematics import joint_motion
from robot_formats.core.model import (IDENTITY, Joint, JointType, Link, Model, Pose, Scene,
                                      dof_names)
from robot_formats.formats.urdf import lower

from rf_testlib import (ALL_KINDS, ONE_DOF_CHAIN_KINDS, TOL, assert_check_urdf, hom, inv,
                        max_error, pinocchio_forward, pose_h, random_pose, random_positions,
                        random_scene, rot, rotvec, urdf_joint_values)

SEEDS = range(6)
KIND_SETS = {
    'all': ALL_KINDS,
    'one_dof_chains': (JointType.FIXED, *ONE_DOF_CHAIN_KINDS),
}


def lowered_tree(tree: KinematicTree) -> KinematicTree:
    lowered = lower(tree)
    return KinematicTree(Scene(lowered.name, (lowered,), is_world=False))


def configurations(rng, names, count=3):
    return [{n: 0.0 for n in names}] + [random_positions(rng, names) for _ in range(count)]


def make(seed: int, kinds, **kw):
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, kinds, n_links=len(kinds) + 3, **kw)
    return rng, scene, KinematicTree(scene)


# --- (a) the lowered tree has the same frames at the same poses ------------------------------

@pytest.mark.parametrize('kinds', KIND_SETS, ids=str)
@pytest.mark.parametrize('seed', SEEDS)
def test_lowering_keeps_every_frame_pose(seed: int, kinds: str):
    rng, scene, tree = make(seed, KIND_SETS[kinds])
    low = lowered_tree(tree)
    assert set(tree.frame_names()) <= set(low.frame_names())
    assert low.root == tree.root
    assert set(low.dof_names) == set(tree.dof_names), 'a JointState must drive both alike'
    non_identity = [j for j in tree.joints.values() if not j.child_offset.is_identity]
    assert len(non_identity) >= len(tree.joints) // 2  # the generator really offsets children
    for q in configurations(rng, tree.dof_names):
        error, where = max_error(tree.forward(q), low.forward(q), tree.frame_names())
        assert error < TOL, f'lowering moved {where!r} by {error:.3g}'


def test_lowering_a_world_with_two_models_and_a_world_joint():
    rng = np.random.default_rng(11)
    a = random_scene(rng, ALL_KINDS, n_links=6, name='a').models[0]
    b = random_scene(rng, ALL_KINDS, n_links=5, name='b').models[0]
    a = Model(a.name, a.links, a.joints, a.frames, pose=random_pose(rng))
    b = Model(b.name, b.links, b.joints, b.frames, pose=random_pose(rng))
    anchor = Joint('anchor', JointType.REVOLUTE, 'world', 'a::link0', random_pose(rng),
                   (0.0, 0.3, 1.0), child_offset=random_pose(rng))
    scene = Scene('w', (a, b), joints=(anchor,), is_world=True)
    tree = KinematicTree(scene)
    low = lowered_tree(tree)
    assert low.root == 'world'
    for q in configurations(rng, tree.dof_names):
        error, where = max_error(tree.forward(q), low.forward(q), tree.frame_names())
        assert error < TOL, f'lowering moved {where!r} by {error:.3g}'


# --- (b) urdfdom accepts the written document -------------------------------------------------

@pytest.mark.parametrize('seed', SEEDS)
def test_written_urdf_passes_check_urdf(seed: int, tmp_path: Path):
    _, scene, tree = make(seed, ALL_KINDS)
    text = robot_formats.urdf_string(scene)
    assert_check_urdf(text, tmp_path)
    reread = KinematicTree(robot_formats.load(_write(tmp_path / 'r.urdf', text)).scene)
    assert set(tree.frame_names()) <= set(reread.links)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding='utf-8')
    return path


# --- (c) pinocchio's FK of the written URDF equals our FK of the ORIGINAL ----------------------

@pytest.mark.parametrize('kinds', KIND_SETS, ids=str)
@pytest.mark.parametrize('seed', SEEDS)
def test_written_urdf_fk_matches_pinocchio(seed: int, kinds: str):
    """1-DoF chains by the brief; ball/floating too (URDF floating = pinocchio free-flyer with
    the same convention: rotation, then translation not rotated)."""
    rng, scene, tree = make(seed, KIND_SETS[kinds], mimics=2)
    data = robot_formats.urdf_string(scene).encode('utf-8')
    frames = list(tree.frame_names())
    for q in configurations(rng, tree.dof_names):
        theirs = pinocchio_forward(data, urdf_joint_values(data, q), frames)
        error, where = max_error(tree.forward(q), theirs, frames)
        assert error < TOL, f'pinocchio disagrees at {where!r} by {error:.3g}'


# --- mimic joints survive lowering ------------------------------------------------------------

def _screw_model(mimic_screw: bool) -> Scene:
    from robot_formats.core.model import Mimic
    links = tuple(Link(n) for n in ('base', 'a', 'b'))
    lead = Joint('lead', JointType.REVOLUTE, 'base', 'a', Pose((0.1, 0.0, 0.0)), (0.0, 0.0, 1.0))
    screw = Joint('screw', JointType.SCREW, 'a', 'b', Pose((0.0, 0.2, 0.0)), (0.0, 1.0, 1.0),
                  pitch=0.3, mimic=Mimic('lead', 2.0, 0.1) if mimic_screw else None)
    return Scene('s', (Model('s', links, (lead, screw)),))


@pytest.mark.parametrize('mimic_screw', [False, True], ids=['screw', 'screw_mimicking'])
def test_screw_lowering_and_mimic(mimic_screw: bool, tmp_path: Path):
    scene = _screw_model(mimic_screw)
    tree = KinematicTree(scene)
    low = lowered_tree(tree)
    text = robot_formats.urdf_string(scene)
    assert_check_urdf(text, tmp_path)
    for value in (0.0, 0.7, -2.0):
        q = {n: value for n in tree.dof_names}
        error, where = max_error(tree.forward(q), low.forward(q), tree.frame_names())
        assert error < TOL, f'{where}: {error}'
        theirs = pinocchio_forward(text, urdf_joint_values(text.encode(), q), tree.frame_names())
        assert max_error(tree.forward(q), theirs, tree.frame_names())[0] < TOL


# --- closed forms of each kind ----------------------------------------------------------------

def _unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


LETTER = {'x': (1, 0, 0), 'y': (0, 1, 0), 'z': (0, 0, 1)}
A1 = (0.3, -1.2, 0.5)            # deliberately not unit
A2 = (0.0, 0.2, 0.48)            # orthogonal to A1 (0 - 0.24 + 0.24 = 0), not unit


def closed_form(kind: JointType, q, axis_order='xyz', pitch=0.0) -> np.ndarray:
    a1, a2 = _unit(A1), _unit(A2)
    if kind is JointType.FIXED:
        return np.eye(4)
    if kind in (JointType.REVOLUTE, JointType.CONTINUOUS):
        return hom(rot(a1, q[0]))
    if kind is JointType.PRISMATIC:
        return hom(translation=a1 * q[0])
    if kind is JointType.SCREW:
        return hom(rot(a1, q[0])) @ hom(translation=a1 * pitch * q[0] / (2 * math.pi))
    if kind is JointType.UNIVERSAL:
        return hom(rot(a1, q[0]) @ rot(a2, q[1]))
    if kind is JointType.EULER:
        r = np.eye(3)
        for letter, angle in zip(axis_order, q):
            r = r @ rot(LETTER[letter], angle)
        return hom(r)
    if kind is JointType.BALL:
        return hom(rotvec(q))
    if kind is JointType.TRANSLATIONAL:
        return hom(translation=q)
    if kind is JointType.PLANAR:
        return hom(translation=q[0] * a1 + q[1] * a2) @ hom(rot(np.cross(a1, a2), q[2]))
    if kind is JointType.FLOATING:
        return hom(rotvec(q[:3]), q[3:6])  # translation in the joint frame, NOT rotated
    raise AssertionError(kind)


CASES = [(k, 'xyz') for k in ALL_KINDS if k is not JointType.EULER] + [
    (JointType.EULER, order) for order in ('xyz', 'zyx')]

EXPECTED_DOFS = {
    JointType.FIXED: (), JointType.REVOLUTE: ('j',), JointType.CONTINUOUS: ('j',),
    JointType.PRISMATIC: ('j',), JointType.SCREW: ('j',),
    JointType.UNIVERSAL: ('j/axis1', 'j/axis2'),
    JointType.BALL: ('j/rot_x', 'j/rot_y', 'j/rot_z'),
    JointType.TRANSLATIONAL: ('j/x', 'j/y', 'j/z'),
    JointType.PLANAR: ('j/trans1', 'j/trans2', 'j/rot'),
    JointType.FLOATING: ('j/rot_x', 'j/rot_y', 'j/rot_z', 'j/pos_x', 'j/pos_y', 'j/pos_z'),
}


@pytest.mark.parametrize('kind,order', CASES, ids=lambda v: getattr(v, 'value', v))
def test_joint_kind_matches_closed_form(kind: JointType, order: str):
    """X_PC = X_PJ · M(q) · X_CJ⁻¹ for one joint with random origin and child offset."""
    rng = np.random.default_rng(5)
    origin, offset = random_pose(rng), random_pose(rng)
    joint = Joint('j', kind, 'p', 'c', origin, A1, A2, offset, axis_order=order, pitch=0.37)
    names = dof_names(joint)
    if kind is JointType.EULER:
        assert names == tuple(f'j/{c}' for c in order)
    else:
        assert names == EXPECTED_DOFS[kind]
    tree = KinematicTree(Scene('s', (Model('s', (Link('p'), Link('c')), (joint,)),)))
    assert tree.dof_names == names
    for _ in range(4):
        q = rng.uniform(-2.5, 2.5, len(names))
        expected = pose_h(origin) @ closed_form(kind, q, order, 0.37) @ inv(pose_h(offset))
        got = tree.forward(dict(zip(names, q)))['c']
        assert np.max(np.abs(got - expected)) < TOL, (kind, q)
        motion = joint_motion(joint, q)
        assert np.max(np.abs(motion - closed_form(kind, q, order, 0.37))) < TOL


def test_euler_zyx_is_rz_ry_rx():
    joint = Joint('hip', JointType.EULER, 'p', 'c', axis_order='zyx')
    z, y, x = 0.3, -0.7, 1.1
    expected = rot((0, 0, 1), z) @ rot((0, 1, 0), y) @ rot((1, 0, 0), x)
    assert np.allclose(joint_motion(joint, [z, y, x])[:3, :3], expected, atol=1e-12)
    assert dof_names(joint) == ('hip/z', 'hip/y', 'hip/x')


def test_floating_translation_is_not_rotated():
    joint = Joint('f', JointType.FLOATING, 'p', 'c')
    motion = joint_motion(joint, [0.0, 0.0, math.pi / 2, 1.0, 0.0, 0.0])
    assert np.allclose(motion[:3, 3], [1.0, 0.0, 0.0], atol=1e-12)
    assert np.allclose(motion[:3, :3] @ [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], atol=1e-12)


def test_ball_rotation_vector_small_and_large_angles():
    joint = Joint('b', JointType.BALL, 'p', 'c')
    for v in ([1e-9, -2e-9, 3e-10], [0.0, 0.0, 0.0], [2.0, -1.0, 2.5], [0.0, math.pi, 0.0]):
        assert np.allclose(joint_motion(joint, v)[:3, :3], rotvec(v), atol=1e-12), v


def test_planar_default_second_axis_is_in_plane_and_right_handed():
    joint = Joint('p', JointType.PLANAR, 'a', 'b', axis=(0.0, 0.0, 2.0))
    motion = joint_motion(joint, [0.0, 0.0, 0.5])
    # rotation about the normal t1 x t2, with t1 the unit first axis
    t = joint_motion(joint, [0.0, 1.0, 0.0])[:3, 3]
    assert abs(np.dot(t, [0, 0, 1])) < 1e-12 and abs(np.linalg.norm(t) - 1) < 1e-12
    normal = np.cross([0, 0, 1.0], t)
    assert np.allclose(motion[:3, :3], rot(normal, 0.5), atol=1e-12)


def test_lowering_a_urdf_shaped_tree_adds_no_helper_links():
    links = tuple(Link(n) for n in ('a', 'b'))
    joint = Joint('j', JointType.REVOLUTE, 'a', 'b', Pose((1.0, 0.0, 0.0)), (0.0, 0.0, 1.0),
                  child_offset=IDENTITY)
    lowered = lower(KinematicTree(Scene('s', (Model('s', links, (joint,)),))))
    assert [link.name for link in lowered.links] == ['a', 'b']
    assert [j.name for j in lowered.joints] == ['j']
