"""Random SKEL worlds generated here (skel_world_generator.py, seeded) read by robot_formats and
by dartpy 6.20 itself, all in ONE dartpy subprocess (dart_oracle.py; DART can segfault or hang,
so never in this process; a crash is reported against the world it happened on and the rest
are re-run).

Per world: DART's generalized coordinates (skeleton order, joint of every DoF, index in the
joint) are our DoF order and names (``<skeleton>::<joint>`` for 1-DoF joints, else
``<skeleton>::<joint>/<suffix>``, docs/skel.md); initial positions from init_pos/<dof initial>;
every body's world transform at the initial and two random configurations (1e-6); mass, local
COM and moment of inertia of every body (given, default, or computed from shapes); per DoF the
actuator, position/velocity/force limits, damping, friction, spring and initial velocity; per
body the gravity flag; soft bodies per skeleton; world time step and gravity. For every
second world, the URDF robot_formats writes, read by pinocchio, against the same DART answers.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robot_formats.core.errors import UnsupportedError
from robot_formats.formats import load
from robot_formats.core.model import JointType, Model, dof_names
from robot_formats.formats.urdf.writer import urdf_string
from skel_world_generator import JOINT_TYPES, PLANES, generate

HERE = Path(__file__).resolve().parent
if str(HERE.parents[1] / 'core') not in sys.path:  # rf_testlib: pinocchio and URDF helpers
    sys.path.insert(0, str(HERE.parents[1] / 'core'))
from rf_testlib import pinocchio_forward, urdf_joint_values  # noqa: E402

ORACLE = HERE / 'dart_oracle.py'
SEEDS = list(range(80))
TOL = 1e-6

#: Our documented coordinate suffixes, by DART joint class (docs/skel.md).
SUFFIXES = {'RevoluteJoint': ('',), 'PrismaticJoint': ('',), 'UniversalJoint': ('axis1', 'axis2'),
            'BallJoint': ('rot_x', 'rot_y', 'rot_z'), 'TranslationalJoint': ('x', 'y', 'z'),
            'PlanarJoint': ('trans1', 'trans2', 'rot'),
            'FreeJoint': ('rot_x', 'rot_y', 'rot_z', 'pos_x', 'pos_y', 'pos_z')}
DART_CLASS = {JointType.REVOLUTE: 'RevoluteJoint', JointType.CONTINUOUS: 'RevoluteJoint',
              JointType.PRISMATIC: 'PrismaticJoint', JointType.UNIVERSAL: 'UniversalJoint',
              JointType.BALL: 'BallJoint', JointType.EULER: 'EulerJoint',
              JointType.TRANSLATIONAL: 'TranslationalJoint', JointType.PLANAR: 'PlanarJoint',
              JointType.FLOATING: 'FreeJoint', JointType.FIXED: 'WeldJoint'}


def run_oracle(jobs: list[dict], folder: Path, timeout: float = 240.0) -> list[dict]:
    """dartpy's answer per job, in order. A job DART crashes or hangs on gets
    ``{"loaded": False, "crash": ...}`` and the remaining jobs run in a fresh subprocess."""
    answers: list[dict] = []
    remaining = list(jobs)
    round_index = 0
    while remaining:
        spec = folder / f'jobs_{round_index}.json'
        out = folder / f'answers_{round_index}.jsonl'
        spec.write_text(json.dumps(remaining))
        try:
            run = subprocess.run([sys.executable, str(ORACLE), str(spec), str(out)],
                                 capture_output=True, text=True, timeout=timeout)
            verdict = f'dartpy exited with {run.returncode}: {run.stderr[-1500:]}'
        except subprocess.TimeoutExpired:
            verdict = f'dartpy did not finish within {timeout:g} s'
        done = [json.loads(line) for line in out.read_text().splitlines()] \
            if out.exists() else []
        answers.extend(done)
        remaining = remaining[len(done):]
        if remaining:
            answers.append({'loaded': False, 'crash': verdict, 'path': remaining[0]['path']})
            remaining = remaining[1:]
        round_index += 1
    return answers


@pytest.fixture(scope='module')
def worlds(tmp_path_factory) -> dict[int, tuple]:
    folder = tmp_path_factory.mktemp('skel_random')
    generated = {seed: generate(seed) for seed in SEEDS}
    paths = {seed: world.write(folder / f'w{seed}') for seed, world in generated.items()}
    answers = run_oracle([{'path': str(paths[s]), 'seed': s} for s in SEEDS], folder)
    return {seed: (generated[seed], paths[seed], answer)
            for seed, answer in zip(SEEDS, answers)}


def _expected_dof_name(skeleton: str, dof: dict) -> str:
    prefix = f'{skeleton}::{dof["joint"]}'
    if dof['type'] == 'EulerJoint':
        return f'{prefix}/{dof["axis_order"][dof["index_in_joint"]]}'
    suffix = SUFFIXES[dof['type']][dof['index_in_joint']]
    return f'{prefix}/{suffix}' if suffix else prefix


def _assert_frames(poses: dict, frames: dict, where: str) -> None:
    assert set(frames) <= set(poses), f'{where}: missing {sorted(set(frames) - set(poses))}'
    for name, matrix in frames.items():
        error = float(np.max(np.abs(poses[name] - np.array(matrix))))
        assert error <= TOL, f'{where}: body {name} off by {error:.3g}'


def _bounds(pair: tuple) -> list[float]:
    return [-math.inf if pair[0] is None else pair[0], math.inf if pair[1] is None else pair[1]]


def _check_dof_properties(model: Model, skeleton: dict) -> None:
    """Per DoF: actuator, position/velocity/force limits, damping, friction, spring, initial
    velocity; per body: the gravity flag."""
    joints = {joint.name: joint for joint in model.joints}
    for dof in skeleton['dofs']:
        joint, index = joints[dof['joint']], dof['index_in_joint']
        where = f'{model.name}::{joint.name} DoF {index}'
        assert joint.actuator == dof['actuator'], where
        dynamics = joint.dof_dynamics[index]
        assert (dynamics.damping, dynamics.friction, dynamics.spring_stiffness,
                dynamics.rest_position) == pytest.approx(
            (dof['damping'], dof['friction'], dof['spring_stiffness'], dof['rest_position']),
            abs=1e-12), where
        assert _bounds(dynamics.velocity_limits) == dof['velocity_limits'], where
        assert _bounds(dynamics.force_limits) == dof['force_limits'], where
        limit = joint.limits[index] if joint.limits else None
        assert _bounds((limit.lower, limit.upper) if limit else (None, None)) == \
            dof['position_limits'], where
        velocity = model.initial_velocities[dof_names(joint)[index]]
        assert velocity == pytest.approx(dof['velocity'], abs=1e-12), where
    assert sum(link.soft is not None for link in model.links) == skeleton['soft_bodies']
    gravity = {body['name']: body['gravity'] for body in skeleton['bodies']}
    assert {link.name: link.gravity for link in model.links} == gravity


def assert_mass_properties(tree, skeletons: list[dict], where: str = '') -> None:
    """Every body's mass, centre of mass and inertia equal DART's."""
    for skeleton in skeletons:
        for body in skeleton['bodies']:
            name = f'{skeleton["name"]}::{body["name"]}'
            inertial = tree.links[name].inertial
            assert inertial.mass == pytest.approx(body['mass'], abs=1e-12), where + name
            assert np.allclose(inertial.origin.xyz, body['local_com'], atol=1e-12), where + name
            assert np.allclose(_inertia_matrix(inertial.inertia), body['moment'], atol=1e-9), \
                where + name


def _inertia_matrix(values: tuple) -> np.ndarray:
    ixx, ixy, ixz, iyy, iyz, izz = values
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])


@pytest.mark.parametrize('seed', SEEDS)
def test_random_world_matches_dartpy(worlds, seed: int) -> None:
    world, path, dart = worlds[seed]
    assert dart['loaded'], f'dartpy could not load generated world {seed}: {dart}\n{world.text}'
    result = load(path)
    tree, scene = result.tree, result.scene

    # skeletons, then DoFs: DART's generalized coordinates are our DoF order and names
    assert [m.name for m in scene.models] == [s['name'] for s in dart['skeletons']]
    expected_names = [_expected_dof_name(s['name'], d) for s in dart['skeletons']
                      for d in s['dofs']]
    assert list(tree.dof_names) == expected_names
    for skeleton in dart['skeletons']:
        for dof in skeleton['dofs']:
            joint = tree.joints[f'{skeleton["name"]}::{dof["joint"]}']
            assert DART_CLASS[joint.type] == dof['type'], joint.name
        model = next(m for m in scene.models if m.name == skeleton['name'])
        assert model.static == (not skeleton['mobile'])
    dart_initial = [q for s in dart['skeletons'] for q in s['positions']]
    assert np.allclose(tree.positions_vector(), dart_initial, atol=1e-12)

    # every body's world transform at the initial and at random configurations
    _assert_frames(tree.forward(), dart['initial_frames'], 'initial')
    assert len(tree.forward()) == len(dart['initial_frames']) + 1  # + the world frame
    for index, config in enumerate(dart['configurations']):
        _assert_frames(tree.forward(np.array(config['positions'])), config['frames'],
                       f'configuration {index}')

    # mass properties: given, DART's default, or computed from the shapes
    assert_mass_properties(tree, dart['skeletons'])

    # what joints and bodies say beyond kinematics
    for skeleton in dart['skeletons']:
        _check_dof_properties(next(m for m in scene.models if m.name == skeleton['name']),
                              skeleton)

    # world physics
    assert scene.physics['time_step'] == pytest.approx(dart['time_step'])
    assert np.allclose(scene.physics['gravity'], dart['gravity'])


def test_generated_worlds_cover_every_feature() -> None:
    """The seeds exercise every joint type, both euler orders, every plane type, trees,
    several trees and skeletons, shuffled joints, implicit roots, every inertia source."""
    features = set().union(*(generate(seed).features for seed in SEEDS))
    wanted = ({f'joint:{kind}' for kind in JOINT_TYPES} | {'euler:xyz', 'euler:zyx'}
              | {f'planar:{plane}' for plane in PLANES}
              | {'branch', 'several_trees', 'implicit_root', 'shuffled_joints', 'init_pos',
                 'dof_initial', 'named_skeleton', 'inertia:default', 'inertia:moments',
                 'inertia:from_shapes', 'actuator', 'axis_dynamics', 'init_vel', 'dof_bounds',
                 'no_gravity', 'soft_shape'}
              | {f'shape:{kind}' for kind in ('box', 'ellipsoid', 'sphere', 'cylinder',
                                              'capsule', 'cone', 'mesh', 'plane',
                                              'multi_sphere')})
    assert wanted <= features, sorted(wanted - features)
    assert generate(7).text == generate(7).text  # seeded, reproducible


def test_screw_joint_dart_cannot_build_is_refused(tmp_path: Path) -> None:
    """DART 6.20 reads ``screw`` but cannot build it: the joint (and everything below it) is
    missing from what dartpy loads, or dartpy crashes. robot_formats refuses the file."""
    path = tmp_path / 'screw.skel'
    path.write_text(
        '<?xml version="1.0"?><skel version="1.0"><world name="w"><skeleton name="s">'
        '<body name="a"/><body name="b"><transformation>0 0 1 0 0 0</transformation></body>'
        '<joint type="revolute" name="j0"><parent>world</parent><child>a</child>'
        '<axis><xyz>0 0 1</xyz></axis></joint>'
        '<joint type="screw" name="j1"><parent>a</parent><child>b</child>'
        '<axis><xyz>0 0 1</xyz><pitch>0.1</pitch></axis></joint>'
        '</skeleton></world></skel>\n')
    with pytest.raises(UnsupportedError, match='cannot build it'):
        load(path)
    dart = run_oracle([{'path': str(path), 'seed': 0}], tmp_path, timeout=60)[0]
    built = {d['joint'] for s in dart.get('skeletons', []) for d in s['dofs']}
    assert not dart['loaded'] or 'j1' not in built, dart


def _dart_mass_properties(skeletons: list[dict], frames: dict[str, list]
                          ) -> tuple[float, np.ndarray, np.ndarray]:
    """Total mass, centre of mass and inertia about it (world axes) of all DART bodies, from
    DART's masses, local COMs, moments and body transforms."""
    bodies = [(body, np.array(frames[f'{s["name"]}::{body["name"]}']))
              for s in skeletons for body in s['bodies']]
    mass = sum(body['mass'] for body, _ in bodies)
    centres = [pose[:3, :3] @ body['local_com'] + pose[:3, 3] for body, pose in bodies]
    com = sum(body['mass'] * c for (body, _), c in zip(bodies, centres)) / mass
    inertia = np.zeros((3, 3))
    for (body, pose), centre in zip(bodies, centres):
        d = centre - com
        inertia += (pose[:3, :3] @ np.array(body['moment']) @ pose[:3, :3].T
                    + body['mass'] * (d @ d * np.eye(3) - np.outer(d, d)))
    return mass, com, inertia


def _pinocchio_q(model, values: dict) -> np.ndarray:
    """pinocchio's configuration vector for URDF joint values (as rf_testlib.pinocchio_forward
    fills it: free flyers from rotation vector and translation, continuous as cos/sin)."""
    import pinocchio as pin
    q = pin.neutral(model)
    for jid in range(1, model.njoints):
        joint, value = model.joints[jid], values[model.names[jid]]
        i = joint.idx_q
        if joint.shortname() == 'JointModelFreeFlyer':
            rotation, position = value
            q[i:i + 3] = position
            q[i + 3:i + 7] = pin.Quaternion(pin.exp3(np.asarray(rotation, float))).coeffs()
        elif joint.nq == 2:
            q[i:i + 2] = (math.cos(value), math.sin(value))
        else:
            q[i] = value
    return q


@pytest.mark.parametrize('seed', SEEDS[::2])
def test_random_world_urdf_in_pinocchio_matches_dartpy(worlds, seed: int) -> None:
    """The URDF robot_formats writes (multi-DoF joints as chains and floating joints, helper
    links, masses, inertias), read by pinocchio: every body where DART puts it at DART's
    configurations, and the same total mass, centre of mass and inertia about it (which
    every body's mass, COM and inertia tensor enter)."""
    import pinocchio as pin

    world, path, dart = worlds[seed]
    result = load(path)
    text = urdf_string(result.scene, result.tree)
    model = pin.buildModelFromXML(text)
    data = model.createData()
    for index, config in enumerate(dart['configurations']):
        positions = dict(zip(result.tree.dof_names, config['positions']))
        values = urdf_joint_values(text.encode(), positions)
        poses = pinocchio_forward(text, values, list(config['frames']))
        _assert_frames(poses, config['frames'], f'pinocchio, configuration {index}')
        pin.forwardKinematics(model, data, _pinocchio_q(model, values))
        # every body, those pinocchio merged into the universe (welded to the world) included
        total = pin.Inertia.Zero()
        for jid in range(model.njoints):
            total += data.oMi[jid].act(model.inertias[jid])
        mass, com, inertia = _dart_mass_properties(dart['skeletons'], config['frames'])
        assert total.mass == pytest.approx(mass, rel=1e-9)
        assert np.allclose(total.lever, com, atol=1e-6)
        assert np.allclose(total.inertia, inertia, atol=1e-6), f'configuration {index}'
