"""The kinematic tree's own behaviour: its edges (poses and the matrices made from them), copies
and pickles, coordinate names, the order of its frames and the errors its checks raise. The
matrices are checked against the closed forms of rf_testlib, not robot_formats' transforms."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import pickle
import random

import numpy as np
import pytest

import robot_formats
from robot_formats.core.errors import FormatError
from robot_formats.core.kinematics import Edge, KinematicTree
from robot_formats.core.model import (DOF_SUFFIXES, IDENTITY, Frame, Joint, JointType, Link,
                                      Mimic, Model, Scene, dof_count, dof_names)

from rf_testlib import FIXTURES, ROOT, inv, pose_h, random_pose

EXAMPLE = ROOT / 'examples' / 'urdf' / 'arm_with_gripper.urdf'


def _trees() -> list[KinematicTree]:
    files = [EXAMPLE, FIXTURES / 'urdf' / 'roundtrip.urdf', ROOT / 'examples' / 'sdf' /
             'workcell.sdf']
    return [robot_formats.load(path).tree for path in files]  # type: ignore[misc]


# --- edges --------------------------------------------------------------------------------

def test_edge_matrices_are_the_poses_matrices() -> None:
    for tree in _trees():
        for edge in tree.edges.values():
            assert edge.pose == (edge.joint.origin if edge.joint else edge.pose)
            assert np.allclose(edge.origin, pose_h(edge.pose), atol=1e-15)
            assert np.allclose(edge.offset, inv(pose_h(edge.child_offset)), atol=1e-15)


def test_edges_are_immutable_and_make_their_matrices() -> None:
    rng = np.random.default_rng(7)
    pose, offset = random_pose(rng), random_pose(rng)
    edge = Edge('c', 'p', None, 'frame', pose, offset)
    assert np.allclose(edge.origin, pose_h(pose), atol=1e-15)
    assert np.allclose(edge.offset, inv(pose_h(offset)), atol=1e-15)
    assert edge.kind == 'frame' and not edge.moving
    with pytest.raises(AttributeError):
        edge.child = 'x'  # type: ignore[misc]
    plain = Edge('c', 'p', None)
    assert plain.pose == IDENTITY and np.array_equal(plain.offset, np.eye(4))
    assert np.array_equal(plain.origin, np.eye(4))
    joint = Joint('j', JointType.REVOLUTE, 'p', 'c')
    moved = plain.with_joint(joint)
    assert moved.joint is joint and moved.moving and moved.child == 'c' and plain.joint is None


def test_trees_copy_and_pickle() -> None:
    for tree in _trees():
        for copied in (copy.deepcopy(tree), pickle.loads(pickle.dumps(tree))):
            assert copied.order == tree.order
            poses, expected = copied.forward(), tree.forward()
            assert all(np.array_equal(poses[name], expected[name]) for name in expected)
            edge = next(iter(copied.edges.values()))
            assert edge.pose == tree.edges[edge.child].pose


# --- coordinate names ---------------------------------------------------------------------

def test_dof_counts_mimics_and_repeated_euler_letters() -> None:
    """(Each kind's names: test_lowering's EXPECTED_DOFS.)"""
    for kind in JointType:
        joint = Joint('j', kind, 'a', 'b', axis_order='zyx')
        names = dof_names(joint)
        assert dof_count(joint) == joint.dof_count == len(names) == len(DOF_SUFFIXES[kind])
        follower = Joint('j', kind, 'a', 'b', mimic=Mimic('lead', 2.0))
        assert dof_names(follower) == () and follower.dof_count == 0
    repeated = Joint('hip', JointType.EULER, 'a', 'b', axis_order='zxz')
    assert dof_names(repeated) == ('hip/z0', 'hip/x1', 'hip/z2')
    assert dof_names(Joint('arm/elbow', JointType.FLOATING, 'a', 'b'))[3] == 'arm/elbow/pos_x'


def _chain(kinds: list[JointType], names: list[str], world: bool = False) -> Scene:
    links = tuple(Link(f'l{i}') for i in range(len(kinds) + 1))
    joints = tuple(Joint(name, kind, f'l{i}', f'l{i + 1}', line=10 + i)
                   for i, (kind, name) in enumerate(zip(kinds, names)))
    return Scene('s', (Model('m', links, joints),), is_world=world)


def _message(scene: Scene) -> str | None:
    try:
        KinematicTree(scene)
    except FormatError as err:
        return f'{type(err).__name__}: {err}'
    return None


def test_joints_named_like_coordinates_are_refused() -> None:
    cases = {
        'translational then its coordinate': ([JointType.TRANSLATIONAL, JointType.FIXED],
                                              ['j', 'j/x']),
        'coordinate first': ([JointType.FIXED, JointType.BALL], ['b/rot_y', 'b']),
        'screw translation': ([JointType.SCREW, JointType.PRISMATIC], ['s', 's/translation']),
        'euler letters': ([JointType.EULER, JointType.FIXED], ['e', 'e/z']),
    }
    for what, (kinds, names) in cases.items():
        message = _message(_chain(kinds, names))
        assert message is not None and 'is named like a coordinate' in message, what
    mimic_screw = _chain([JointType.REVOLUTE, JointType.SCREW, JointType.PRISMATIC],
                         ['lead', 's', 's/translation'])
    joints = list(mimic_screw.models[0].joints)
    joints[1] = Joint('s', JointType.SCREW, 'l1', 'l2', mimic=Mimic('lead'), line=11)
    model = Model('m', mimic_screw.models[0].links, tuple(joints))
    assert 'is named like a coordinate' in (_message(Scene('s', (model,))) or '')
    assert _message(_chain([JointType.REVOLUTE, JointType.FIXED], ['j', 'j/x'])) is None


def test_a_coordinate_name_given_twice_is_refused() -> None:
    message = _message(_chain([JointType.TRANSLATIONAL, JointType.UNIVERSAL], ['a/x', 'a']))
    assert message is None  # a/x/x, a/x/y, a/x/z, a/axis1, a/axis2: no clash
    clash = _message(_chain([JointType.BALL, JointType.REVOLUTE], ['b', 'b/rot_x']))
    assert clash is not None and clash.startswith('DuplicateNameError') and 'b/rot_x' in clash


# --- checks -------------------------------------------------------------------------------

def test_tree_errors_name_the_problem() -> None:
    base = _chain([JointType.REVOLUTE], ['j'])
    model = base.models[0]
    unknown = Model('m', model.links, (Joint('j', JointType.REVOLUTE, 'l0', 'nowhere', line=3),))
    assert "joint 'j' refers to unknown link 'nowhere'" in (_message(Scene('s', (unknown,))) or '')
    parent_unknown = Model('m', model.links,
                           (Joint('j', JointType.REVOLUTE, 'gone', 'l1', line=3),))
    assert "refers to unknown link 'gone'" in (_message(Scene('s', (parent_unknown,))) or '')
    world_parent = Model('m', model.links, (Joint('j', JointType.REVOLUTE, 'world', 'l0'),
                                            Joint('k', JointType.REVOLUTE, 'l0', 'l1')))
    assert _message(Scene('s', (world_parent,), is_world=True)) is None
    assert "refers to unknown link 'world'" in (_message(Scene('s', (world_parent,))) or '')
    cases = [
        (Model('m', (Link('a'), Link('a', line=7)), ()), False,
         "the name 'a' is used by more than one link or frame"),
        (Model('m', (Link('world', line=4),), ()), True, "the name 'world' is used"),
        (Model('m', (Link('a'),), (), (Frame('a', 'a'),)), False, "the name 'a' is used"),
        (Model('m', model.links, (Joint('j', JointType.FIXED, 'l0', 'l0'),)), False,
         'has the same parent and child'),
        (Model('m', model.links, (Joint('j', JointType.FIXED, 'l0', 'l1'),
                                  Joint('k', JointType.FIXED, 'l0', 'l1'))), False,
         "link 'l1' is the child of two joints ('j' and 'k')"),
        (Model('m', model.links, (Joint('e', JointType.EULER, 'l0', 'l1', axis_order='xy'),)),
         False, "euler joint 'e' has axis order 'xy'"),
    ]
    for bad, world, words in cases:
        assert words in (_message(Scene('s', (bad,), is_world=world)) or ''), words


def test_a_world_joint_whose_child_is_the_world_is_refused_not_looped_on() -> None:
    """Readers refuse it first (SDFormat: 'the child cannot be "world"'; SKEL ignores the
    joint, as DART); a scene built in Python used to make the frame-order walk loop forever."""
    scene = Scene('w', (Model('m', (Link('a'),), (Joint('j', JointType.FIXED, 'a', 'world'),)),),
                  is_world=True)
    with pytest.raises(FormatError) as raised:
        KinematicTree(scene)
    assert raised.value.code == 'JOINT_CHILD_LINK_INVALID'
    assert 'the child cannot be "world"' in raised.value.message


def test_world_members_are_scoped_with_their_references() -> None:
    model = Model('m', (Link('a'), Link('b'), Link('c')),
                  (Joint('j', JointType.REVOLUTE, 'a', 'b'),
                   Joint('k', JointType.REVOLUTE, 'a', 'c', mimic=Mimic('j', 2.0))),
                  (Frame('f', 'b'),), initial_positions={'j': 0.5})
    tree = KinematicTree(Scene('w', (model,), is_world=True))
    assert set(tree.links) == {'m::a', 'm::b', 'm::c'} and tree.links['m::a'] is model.links[0]
    assert (tree.joints['m::k'].parent, tree.joints['m::k'].child) == ('m::a', 'm::c')
    assert tree.joints['m::k'].mimic == Mimic('m::j', 2.0)
    assert tree.frames['m::f'].attached_to == 'm::b'
    assert tree.initial_positions == {'m::j': 0.5} and tree.dof_names == ('m::j',)
    assert tree.edges['m::a'].parent == 'world' and tree.edges['m::a'].kind == 'model'
    assert tree.joints['m::k'] == model.joints[1].scoped('m')
    assert tree.frames['m::f'] == model.frames[0].scoped('m')


def _filled(cls, **names):
    """An instance of ``cls`` whose fields each hold an object of their own (no default is
    one of them), but for the ``names`` given: whatever fields ``cls`` has now or later."""
    return cls(**{field.name: names.get(field.name, object()) for field in dataclasses.fields(cls)})


def test_scoped_copies_keep_every_field_and_scope_the_names() -> None:
    """Joint, Frame and Mimic.scoped call their constructors with every field (cheaper than
    replace): a field they drop, or one added to the class and not passed, fails here."""
    mimic = _filled(Mimic, joint='j')
    joint = _filled(Joint, name='k', parent='world', child='b', mimic=mimic)
    frame = _filled(Frame, name='f', attached_to='k')
    cases = [(mimic, {'joint': 'm::j'}),
             (joint, {'name': 'm::k', 'parent': 'world', 'child': 'm::b',
                      'mimic': Mimic('m::j', mimic.multiplier, mimic.offset)}),
             (frame, {'name': 'm::f', 'attached_to': 'm::k'})]
    for original, scoped_names in cases:
        scoped_copy = original.scoped('m')
        assert type(scoped_copy) is type(original) and original.scoped('') == original
        for field in dataclasses.fields(original):
            if field.name in scoped_names:
                assert getattr(scoped_copy, field.name) == scoped_names[field.name], field.name
            else:
                assert getattr(scoped_copy, field.name) is getattr(original, field.name), field.name


# --- frame order --------------------------------------------------------------------------

def _reference_order(tree: KinematicTree) -> tuple[str, ...]:
    """Depth first from the root, each parent's children in the order of the links, then the
    frames."""
    position = {name: i for i, name in enumerate([*tree.links, *tree.frames])}
    children: dict[str, list[str]] = {}
    for name, edge in tree.edges.items():
        children.setdefault(edge.parent, []).append(name)
    order, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(sorted(children.get(node, []), key=position.__getitem__, reverse=True))
    return tuple(order[1:])


def test_frame_order_is_parents_first_in_document_order() -> None:
    rng = random.Random(7)
    branched = 0
    for _ in range(200):  # random trees: links and frames attached anywhere, listed shuffled
        count = rng.randint(1, 12)
        links = [Link(f'l{i}') for i in range(count)]
        joints = [Joint(f'j{i}', JointType.REVOLUTE, f'l{rng.randrange(i)}', f'l{i}')
                  for i in range(1, count)]
        frames = [Frame(f'f{i}', rng.choice([f'l{rng.randrange(count)}', f'f{i - 1}']
                                            if i else [f'l{rng.randrange(count)}']))
                  for i in range(rng.randint(0, 5))]
        rng.shuffle(links)
        rng.shuffle(joints)
        world = rng.random() < 0.5
        tree = KinematicTree(Scene('s', (Model('m', tuple(links), tuple(joints),
                                                tuple(frames)),), is_world=world))
        assert tree.order == _reference_order(tree)
        done = {tree.root}
        for name in tree.order:
            assert tree.edges[name].parent in done
            done.add(name)
        parents = [edge.parent for edge in tree.edges.values()]
        branched += any(parents.count(p) > 1 for p in set(parents))
    assert branched > 100


def test_a_loop_of_frames_is_refused() -> None:
    model = Model('m', (Link('a'),), (), (Frame('f', 'g', line=3), Frame('g', 'f', line=4)))
    with pytest.raises(FormatError) as raised:
        KinematicTree(Scene('s', (model,)))
    assert raised.value.code == 'FRAME_ATTACHED_TO_CYCLE'


@pytest.mark.parametrize('kinds', list(itertools.combinations(
    [JointType.REVOLUTE, JointType.BALL, JointType.EULER, JointType.FLOATING], 2)))
def test_dof_names_of_a_tree_follow_its_joints(kinds) -> None:
    tree = KinematicTree(_chain(list(kinds), ['a', 'b']))
    assert tree.dof_names == tuple(n for j in tree.joints.values() for n in dof_names(j))
    assert tree.dof_index == {name: i for i, name in enumerate(tree.dof_names)}
