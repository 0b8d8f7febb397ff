"""The description publisher's hot path in-process (no DDS): every joint kind, and the wire format.

Only URDF is loadable from a file today, and a format registered in the test process cannot
reach a node subprocess; so this module registers a test-only format *in process* (a file that
names a Scene built here), runs the node's own pipeline — :meth:`Description.load`,
:meth:`TransformSolver.solve`, :class:`TfMessageTemplate` — and checks that the published local
transforms, composed along the published tree, equal ``KinematicTree(scene).forward`` for every
frame. The wire bytes are checked with rclpy's own (de)serialiser against tf2_msgs/TFMessage.
"""

from __future__ import annotations

import math
import random
import struct
from pathlib import Path

import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message
from geometry_msgs.msg import TransformStamped
from tf2_msgs.msg import TFMessage

from robot_formats import formats
from robot_formats.runtime.description import Description
from robot_formats.core.kinematics import KinematicTree
from robot_formats.core.model import (Frame, Joint, JointType, Limits, Link, Mimic, Model, Pose,
                                 Scene)
from robot_formats.nodes.tf_wire import TfMessageTemplate, TfTemplates

from .harness import TOL, assert_poses_equal, compose, quat_to_matrix

# --- scenes with every joint kind -----------------------------------------------------------------


def _random_pose(rng: random.Random, scale: float = 0.4) -> Pose:
    q = np.array([rng.gauss(0, 1) for _ in range(4)])
    q /= np.linalg.norm(q)
    return Pose(tuple(rng.uniform(-scale, scale) for _ in range(3)), tuple(float(v) for v in q))


def _random_axis(rng: random.Random) -> tuple[float, float, float]:
    a = np.array([rng.gauss(0, 1) for _ in range(3)])
    return tuple(float(v) for v in a / np.linalg.norm(a))


def every_kind_model(rng: random.Random, prefix: str = '', with_offsets: bool = True) -> Model:
    """One model with every JointType (planar with and without axis2, mimics of several kinds,
    screw, explicit frames), random origins, axes and child offsets (X_CJ != I)."""
    specs = [
        ('rev', JointType.REVOLUTE, {}),
        ('cont', JointType.CONTINUOUS, {}),
        ('pris', JointType.PRISMATIC, {}),
        ('fix', JointType.FIXED, {}),
        ('screw', JointType.SCREW, {'pitch': 0.37}),
        ('univ', JointType.UNIVERSAL, {'axis2': 'random'}),
        ('eul', JointType.EULER, {'axis_order': 'zyx'}),
        ('eul2', JointType.EULER, {'axis_order': 'yxz'}),
        ('ball', JointType.BALL, {}),
        ('trans', JointType.TRANSLATIONAL, {}),
        ('plan', JointType.PLANAR, {'axis2': 'random'}),
        ('plan0', JointType.PLANAR, {}),
        ('float', JointType.FLOATING, {}),
        ('mim_rev', JointType.REVOLUTE, {'mimic': Mimic('rev', -1.5, 0.2)}),
        ('mim_pris', JointType.PRISMATIC, {'mimic': Mimic('cont', 0.25, -0.1)}),
        ('mim_screw', JointType.SCREW, {'mimic': Mimic('pris', 2.0, 0.3), 'pitch': -0.5}),
        ('rev_offaxis', JointType.REVOLUTE, {}),
    ]
    links = [Link(f'{prefix}base')]
    joints = []
    for name, kind, extra in specs:
        child = f'{prefix}l_{name}'
        parent = rng.choice([link.name for link in links])
        links.append(Link(child))
        options = dict(extra)
        if options.get('axis2') == 'random':
            options['axis2'] = _random_axis(rng)
        limits = ()
        if kind in (JointType.REVOLUTE, JointType.PRISMATIC) and 'mimic' not in options:
            limits = (Limits(-1.0, 1.0, 1.0, 1.0),)
        offset = _random_pose(rng) if with_offsets and rng.random() < 0.7 else Pose()
        joints.append(Joint(f'{prefix}{name}', kind, parent, child, _random_pose(rng),
                            _random_axis(rng), child_offset=offset, limits=limits, **options))
    frames = (Frame(f'{prefix}tool', f'{prefix}l_float', _random_pose(rng)),
              Frame(f'{prefix}tool_tip', f'{prefix}tool', _random_pose(rng)),
              Frame(f'{prefix}cam', f'{prefix}l_ball', _random_pose(rng)))
    return Model('every_kind', tuple(links), tuple(joints), frames)


def robot_scene(seed: int) -> Scene:
    return Scene('every_kind', (every_kind_model(random.Random(seed)),), source='robot')


def world_scene(seed: int) -> Scene:
    rng = random.Random(seed)
    first = every_kind_model(rng)
    first = Model('alpha', first.links, first.joints, first.frames, pose=_random_pose(rng, 2.0))
    second = every_kind_model(rng, with_offsets=False)
    second = Model('beta', second.links, second.joints, second.frames, pose=_random_pose(rng, 2))
    rail = Joint('rail', JointType.PRISMATIC, 'world', 'beta::base', _random_pose(rng),
                 _random_axis(rng), limits=(Limits(-2.0, 2.0),))
    marker = Frame('marker', 'alpha::l_univ', _random_pose(rng))
    return Scene('two_robots', (first, second), frames=(marker,), joints=(rail,), is_world=True,
                 source='world')


SCENES = {'robot': robot_scene, 'world': world_scene}


@pytest.fixture
def load_scene(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """A test-only format (``.testscene``): ``<testscene kind=K seed=N/>`` is SCENES[K](N).

    Registered in this process only, and removed again afterwards.
    """
    def reader(path: Path, root, warnings, options) -> Scene:
        return SCENES[root.get('kind')](int(root.get('seed')))

    monkeypatch.setattr(formats, 'FORMATS', formats.FORMATS.with_format(formats.FormatSpec(
        'testscene', ('.testscene',), ('testscene',), reader, 'test-only scenes')))

    def load(kind: str, seed: int, initial: dict[str, float] | None = None) -> Description:
        path = tmp_path / f'{kind}_{seed}.testscene'
        path.write_text(f'<testscene kind="{kind}" seed="{seed}"/>\n', encoding='utf-8')
        return Description.load(path, initial)

    return load


def random_configuration(tree: KinematicTree, rng: random.Random) -> dict[str, float]:
    return {name: rng.uniform(-2.0, 2.0) for name in tree.dof_names}


def solver_poses(description: Description, q: np.ndarray,
                 edges: np.ndarray | None = None) -> dict[str, tuple[str, np.ndarray]]:
    """child -> (parent, X_parent_child) for the moving edges, from TransformSolver.solve."""
    solver = description.solver
    picked, translations, quaternions = solver.solve(q, edges)
    out = {}
    for index, t, quat in zip(picked, translations, quaternions):
        parent, child = solver.pairs[int(index)]
        assert abs(np.linalg.norm(quat) - 1.0) < 1e-12, (child, quat)
        matrix = np.eye(4)
        matrix[:3, :3] = quat_to_matrix(*quat)
        matrix[:3, 3] = t
        out[child] = (parent, matrix)
    return out


def static_poses(description: Description) -> dict[str, tuple[str, np.ndarray]]:
    out = {}
    for static in description.static:
        matrix = np.eye(4)
        matrix[:3, :3] = quat_to_matrix(*static.quat)
        matrix[:3, 3] = static.xyz
        out[static.child] = (static.parent, matrix)
    return out


# --- TransformSolver: every joint kind --------------------------------------------------------

@pytest.mark.parametrize('kind, seed', [('robot', 1), ('robot', 2), ('world', 3), ('world', 4)])
def test_solver_equals_forward_kinematics_for_every_joint_kind(load_scene, kind: str,
                                                                seed: int) -> None:
    description = load_scene(kind, seed)
    scene = SCENES[kind](seed)
    document = KinematicTree(scene)
    assert {j.type for j in document.joints.values()} == set(JointType)
    # the published tree is driven by the document's DoF names, mimics included
    assert set(description.dof_names) == set(document.dof_names)
    rng = random.Random(seed * 101)
    for trial in range(5):
        configuration = random_configuration(document, rng)
        q = description.urdf_tree.positions_vector(configuration)
        moving = solver_poses(description, q)
        static = static_poses(description)
        assert not set(moving) & set(static)
        received = compose({**static, **moving})
        # exactly the published (lowered) frames, each where the lowered tree puts it ...
        assert_poses_equal(received, description.urdf_tree.forward(q),
                           context=f'{kind} {seed} trial {trial} (lowered tree): ')
        # ... and the document's frames where the document's kinematics put them
        expected = document.forward(configuration)
        assert set(expected) <= set(received)
        assert_poses_equal({k: received[k] for k in expected}, expected,
                           context=f'{kind} {seed} trial {trial}: ')


def test_solver_subsets_match_the_full_solve(load_scene) -> None:
    description = load_scene('robot', 5)
    rng = random.Random(5)
    q = description.urdf_tree.positions_vector(random_configuration(description.tree, rng))
    full = solver_poses(description, q)
    count = len(description.solver.moving)
    for _ in range(20):
        edges = np.array(sorted(rng.sample(range(count), rng.randint(1, count))), dtype=np.intp)
        subset = solver_poses(description, q, edges)
        assert set(subset) == {description.solver.pairs[i][1] for i in edges}
        for child, (parent, matrix) in subset.items():
            assert parent == full[child][0]
            assert np.max(np.abs(matrix - full[child][1])) <= 1e-12


def test_select_maps_names_and_follows_mimics(load_scene) -> None:
    """JointState names (any order, unknown ones mixed in) pick the right DoFs and edges."""
    description = load_scene('robot', 6)
    solver = description.solver
    plan = solver.select(['nope', 'rev', 'ball/rot_y', 'also_nope'])
    edges = _plan_edges(plan)
    children = {solver.pairs[i][1] for i in edges}
    # the edges to publish: exactly those whose transform changes when these DoFs change
    tree = description.urdf_tree
    index = tree.dof_index
    q = tree.positions_vector()
    moved = q.copy()
    moved[[index['rev'], index['ball/rot_y']]] += 0.3
    expected = {child for child in tree.order
                if np.max(np.abs(tree.local_transform(child, q)
                                 - tree.local_transform(child, moved))) > 1e-9}
    assert children == expected
    # rev moves its own joint and its mimic follower (mim_rev), ball/rot_y the ball joint
    assert {tree.edges[c].joint.name for c in children} == {'rev', 'mim_rev', 'ball'}
    message_index, dof_index = _plan_mapping(plan)
    assert sorted(zip(message_index, dof_index)) == sorted(
        [(1, index['rev']), (2, index['ball/rot_y'])])
    assert _plan_edges(solver.select(['unknown'])).size == 0


def _plan_edges(plan) -> np.ndarray:
    return np.asarray(plan.edges)


def _plan_mapping(plan) -> tuple[list[int], list[int]]:
    """(positions in the message, DoF indices they set)."""
    return list(map(int, plan.message_index)), list(map(int, plan.dof_index))


# --- the wire format --------------------------------------------------------------------------

NAMES = ['', 'a', 'ab', 'abc', 'abcd', 'abcde', 'abcdef', 'abcdefg', 'abcdefgh', 'ü', 'üü',
         'ä_ö', '日本', '日本語のフレーム', 'robot1/base_link', 'x' * 61, '🤖',
         'tool frame']


def _poses(rng: random.Random, count: int) -> np.ndarray:
    poses = np.empty((count, 7))
    for row in range(count):
        q = np.array([rng.gauss(0, 1) for _ in range(4)])
        poses[row, :3] = [rng.uniform(-1e3, 1e3) for _ in range(3)]
        poses[row, 3:] = q / np.linalg.norm(q)
    return poses


def _fill(template: TfMessageTemplate, sec: int, nanosec: int, poses: np.ndarray) -> bytes:
    return template.fill(sec, nanosec, poses)


def _expected_message(pairs, sec: int, nanosec: int, poses: np.ndarray) -> TFMessage:
    msg = TFMessage()
    for (parent, child), pose in zip(pairs, poses):
        t = TransformStamped()
        t.header.stamp.sec, t.header.stamp.nanosec = sec, nanosec
        t.header.frame_id, t.child_frame_id = parent, child
        (t.transform.translation.x, t.transform.translation.y, t.transform.translation.z,
         t.transform.rotation.x, t.transform.rotation.y, t.transform.rotation.z,
         t.transform.rotation.w) = (float(v) for v in pose)
        msg.transforms.append(t)
    return msg


def _assert_same(received: TFMessage, expected: TFMessage) -> None:
    assert len(received.transforms) == len(expected.transforms)
    for got, want in zip(received.transforms, expected.transforms):
        assert got.header.frame_id == want.header.frame_id
        assert got.child_frame_id == want.child_frame_id
        assert (got.header.stamp.sec, got.header.stamp.nanosec) == (
            want.header.stamp.sec, want.header.stamp.nanosec)
        for part in ('translation', 'rotation'):
            a, b = getattr(got.transform, part), getattr(want.transform, part)
            for axis in ('x', 'y', 'z') + (('w',) if part == 'rotation' else ()):
                assert struct.pack('<d', getattr(a, axis)) == struct.pack('<d', getattr(b, axis))


@pytest.mark.parametrize('seed', range(6))
def test_tf_template_deserialises_to_the_transforms(seed: int) -> None:
    rng = random.Random(seed)
    count = rng.randint(1, 40)
    pairs = [(rng.choice(NAMES), rng.choice(NAMES)) for _ in range(count)]
    if seed == 0:  # every name in both positions, so every padding case is crossed
        pairs = [(a, b) for a in NAMES for b in NAMES[::-1][:3]]
        count = len(pairs)
    template = TfMessageTemplate(pairs)
    for sec, nanosec in ((0, 0), (1_700_000_000, 999_999_999), (-5, 1), (2**31 - 1, 0),
                         (0, 0), (12, 34)):
        poses = _poses(rng, count)
        data = _fill(template, sec, nanosec, poses)
        assert isinstance(data, bytes)
        expected = _expected_message(pairs, sec, nanosec, poses)
        _assert_same(deserialize_message(data, TFMessage), expected)
        # same layout as rclpy's serialiser (whose alignment padding bytes are not zeroed, so
        # only sizes can be compared bytewise)
        assert len(data) == len(serialize_message(expected))


def test_tf_template_results_are_independent_snapshots() -> None:
    template = TfMessageTemplate([('base', 'a'), ('a', 'b')])
    rng = random.Random(9)
    first_poses, second_poses = _poses(rng, 2), _poses(rng, 2)
    first = _fill(template, 1, 2, first_poses)
    second = _fill(template, 3, 4, second_poses)
    third = _fill(template, 1, 2, first_poses)
    _assert_same(deserialize_message(first, TFMessage),
                 _expected_message([('base', 'a'), ('a', 'b')], 1, 2, first_poses))
    _assert_same(deserialize_message(second, TFMessage),
                 _expected_message([('base', 'a'), ('a', 'b')], 3, 4, second_poses))
    assert first == third


def test_tf_template_empty() -> None:
    data = _fill(TfMessageTemplate([]), 5, 6, np.zeros((0, 7)))
    assert deserialize_message(data, TFMessage).transforms == []
    assert data == serialize_message(TFMessage())  # no padding here: bytewise equal


def test_tf_templates_are_made_once_per_plan_with_the_nodes_names(load_scene) -> None:
    """A node's templates: one per plan (the same object again on every message), its pairs
    named by the node's naming function, a new plan for other names gets its own; bounded."""
    solver = load_scene('robot', 9).solver
    templates = TfTemplates(lambda frame: 'left/' + frame)
    plan = solver.select(['rev'])
    template = templates[plan]
    assert templates[plan] is template and templates[solver.select(['rev'])] is template
    poses = solver.solve_plan(np.zeros(len(solver.tree.dof_names)), plan)
    message = deserialize_message(template.fill(1, 2, poses), TFMessage)
    assert [(t.header.frame_id, t.child_frame_id) for t in message.transforms] == [
        ('left/' + parent, 'left/' + child) for parent, child in plan.pairs]
    other = solver.select(['ball/rot_y'])
    assert templates[other] is not template and len(templates) == 2
    for _ in range(TfTemplates.LIMIT):
        templates[solver.plan(np.array([0], dtype=np.intp))]  # a new plan object each time
    assert len(templates) <= TfTemplates.LIMIT


@pytest.mark.parametrize('kind, seed', [('robot', 7), ('world', 8)])
def test_node_pipeline_wire_equals_forward_kinematics(load_scene, kind: str, seed: int) -> None:
    """select -> solve -> template -> bytes -> TFMessage, composed with the static transforms,
    is the document's forward kinematics (what a tf listener of the node would see)."""
    description = load_scene(kind, seed)
    document = KinematicTree(SCENES[kind](seed))
    solver = description.solver
    rng = random.Random(seed)
    configuration = random_configuration(document, rng)
    q = description.urdf_tree.positions_vector(configuration)
    edges, translations, quaternions = solver.solve(q)
    pairs = [('prefix/' + solver.pairs[i][0], 'prefix/' + solver.pairs[i][1]) for i in edges]
    data = _fill(TfMessageTemplate(pairs), 42, 7, np.concatenate([translations, quaternions], 1))
    message = deserialize_message(data, TFMessage)
    edges_received = {}
    for t in message.transforms:
        assert t.header.frame_id.startswith('prefix/') and t.child_frame_id.startswith('prefix/')
        assert (t.header.stamp.sec, t.header.stamp.nanosec) == (42, 7)
        matrix = np.eye(4)
        r = t.transform.rotation
        matrix[:3, :3] = quat_to_matrix(r.x, r.y, r.z, r.w)
        tr = t.transform.translation
        matrix[:3, 3] = (tr.x, tr.y, tr.z)
        edges_received[t.child_frame_id[7:]] = (t.header.frame_id[7:], matrix)
    received = compose({**static_poses(description), **edges_received})
    expected = document.forward(configuration)
    assert_poses_equal({k: received[k] for k in expected}, expected, tol=TOL)
    assert math.isfinite(sum(float(np.sum(v)) for v in received.values()))
