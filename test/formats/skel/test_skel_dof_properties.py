"""What a SKEL joint and body say beyond kinematics, against dartpy 6.20's goldens.

For every joint DART loaded (corpus and generated worlds): actuator type, initial positions and
velocities, damping, Coulomb friction, spring stiffness and rest position, and position,
velocity and force bounds per DoF; per body the gravity flag and whether it is soft. Plus the
cases the goldens do not pin (measured with dartpy while writing the reader: which joint kinds
read ``<axis*>``, ``<dof>`` overrides, the old ``<axis><damping>``, unknown actuators), the soft
skin parameters, init_vel checks, and what ``robot-formats info`` prints.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from robot_formats.core.errors import Diagnostic, InvalidValueError, SchemaError
from robot_formats.formats import load
from robot_formats.core.model import (Box, DofDynamics, Ellipsoid, JointType, Model, SoftBody,
                                 dof_names)
from robot_formats.formats.skel import read_skel
from shared_data import shared  # noqa: E402  (shared/ beside the clone)

GOLDENS = shared('goldens', 'skel')
CORPUS = shared('corpus', 'skel')
TEST_DIR = CORPUS / 'dart_tianyang9310_fork' / 'data' / 'skel' / 'test'


def _loaded() -> list[tuple[Path, Path]]:
    """(source, golden) of every file DART loaded."""
    out = []
    for golden in sorted(GOLDENS.rglob('*.skel.json')):
        if json.loads(golden.read_text())['verdict'] != 'loaded':
            continue
        rel = golden.relative_to(GOLDENS).with_name(golden.name[:-len('.json')])
        out.append((GOLDENS / rel if 'generated' in rel.parts else CORPUS / rel, golden))
    return out


LOADED = _loaded()


def _number(value: float | str) -> float:
    return float(value)  # the goldens write infinities as "inf" / "-inf"


def _bound(value: float | None, default: float) -> float:
    return default if value is None else value


def _check_joint(model: Model, expected: dict) -> None:
    joint = next(j for j in model.joints if j.name == expected['name'])
    where = f'{model.name}::{joint.name}'
    assert joint.actuator == expected['actuator_type'].lower(), where
    count = expected['num_dofs']
    assert len(joint.dof_dynamics) == count, where
    if not count:
        return  # weld: the goldens list no per-DoF data
    names = dof_names(joint)
    assert [model.initial_positions[n] for n in names] == pytest.approx(
        expected['initial_positions']), where
    assert [model.initial_velocities[n] for n in names] == pytest.approx(
        expected['initial_velocities']), where
    for index, dof in enumerate(joint.dof_dynamics):
        got = (dof.damping, dof.friction, dof.spring_stiffness, dof.rest_position,
               _bound(dof.velocity_limits[0], -math.inf), _bound(dof.velocity_limits[1], math.inf),
               _bound(dof.force_limits[0], -math.inf), _bound(dof.force_limits[1], math.inf))
        want = tuple(_number(expected[key][index]) for key in (
            'damping', 'friction', 'spring_stiffness', 'rest_position', 'velocity_lower_limits',
            'velocity_upper_limits', 'force_lower_limits', 'force_upper_limits'))
        assert got == pytest.approx(want), (where, index)
        limit = joint.limits[index] if joint.limits else None
        lower = _bound(limit.lower if limit else None, -math.inf)
        upper = _bound(limit.upper if limit else None, math.inf)
        assert (lower, upper) == pytest.approx((
            _number(expected['position_lower_limits'][index]),
            _number(expected['position_upper_limits'][index]))), (where, index)


@pytest.mark.parametrize('source, golden', LOADED, ids=lambda p: p.name)
def test_joint_and_body_properties_match_dart(source: Path, golden: Path) -> None:
    data = json.loads(golden.read_text())
    models = {m.name: m for m in load(source).scene.models}
    for skeleton in data['skeletons']:
        model = models[skeleton['name']]
        for joint in skeleton['joints']:
            _check_joint(model, joint)
        links = {link.name: link for link in model.links}
        for body in skeleton['bodies']:
            link = links[body['name']]
            assert link.gravity == body['gravity_mode'], body['name']
            assert (link.soft is not None) == body['soft'], body['name']


def test_the_goldens_exercise_every_property() -> None:
    """The comparison above is only as good as the variety of the files it runs on."""
    seen: dict[str, set] = {'actuator': set(), 'nonzero': set(), 'velocity_init': set(),
                            'gravity_off': set(), 'soft': set()}
    for source, _ in LOADED:
        for model in load(source).scene.models:
            for joint in model.joints:
                seen['actuator'].add(joint.actuator)
                for dof in joint.dof_dynamics:
                    for field in ('damping', 'friction', 'spring_stiffness', 'rest_position'):
                        if getattr(dof, field):
                            seen['nonzero'].add(field)
                    if dof.velocity_limits != (None, None):
                        seen['nonzero'].add('velocity_limits')
                    if dof.force_limits != (None, None):
                        seen['nonzero'].add('force_limits')
            if any(model.initial_velocities.values()):
                seen['velocity_init'].add(model.name)
            seen['gravity_off'].update(link.name for link in model.links if not link.gravity)
            seen['soft'].update(link.name for link in model.links if link.soft)
    assert seen['actuator'] >= {'force', 'passive', 'acceleration', 'velocity'}
    assert seen['nonzero'] == {'damping', 'friction', 'spring_stiffness', 'rest_position',
                               'velocity_limits', 'force_limits'}
    assert seen['velocity_init'] and seen['gravity_off'] and seen['soft']


# --- cases measured with dartpy that the goldens do not contain -------------------------------

def _doc(tmp_path: Path, joints: str, bodies: str = '') -> Path:
    path = tmp_path / 'doc.skel'
    path.write_text(f'''<?xml version="1.0"?><skel version="1.0"><world name="w">
<skeleton name="s">
  <body name="a"><transformation>0 0 1 0 0 0</transformation>{bodies}</body>
  <body name="b"/><body name="c"/><body name="d"/>
  {joints}
</skeleton></world></skel>''')
    return path


_MEASURED = '''
  <joint type="free" name="j0" actuator="servo"><parent>world</parent><child>a</child>
    <axis><dynamics><damping>1</damping></dynamics><limit><lower>-1</lower></limit></axis>
    <init_vel>1 2 3 4 5 6</init_vel>
    <dof local_index="4"><position lower="-2" upper="2" initial="0.5"/>
      <velocity lower="-1" upper="1" initial="0.25"/></dof></joint>
  <joint type="euler" name="j1" actuator="locked"><parent>a</parent><child>b</child>
    <axis_order>zyx</axis_order>
    <axis2><dynamics><damping>2</damping><spring_stiffness>3</spring_stiffness>
      <spring_rest_position>0.5</spring_rest_position></dynamics>
      <limit><lower>-1</lower></limit></axis2></joint>
  <joint type="universal" name="j2" actuator="torque"><parent>b</parent><child>c</child>
    <axis><xyz>1 0 0</xyz><damping>5</damping></axis>
    <axis2><xyz>0 1 0</xyz><dynamics><friction>2</friction></dynamics></axis2></joint>
  <joint type="revolute" name="j3" actuator="bogus"><parent>c</parent><child>d</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>
    <init_vel>0.5</init_vel>
    <dof><velocity lower="-3" upper="3" initial="0.7"/><acceleration lower="-4" upper="4"/>
      <force lower="-5" upper="6"/></dof></joint>'''


def test_values_dartpy_reads(tmp_path: Path) -> None:
    """Each value as dartpy 6.20 reported it for this document (getDampingCoefficient,
    getCoulombFriction, getInitialVelocity, get*Limit, getActuatorType)."""
    warnings: list[Diagnostic] = []
    model = read_skel(_doc(tmp_path, _MEASURED), warnings).models[0]
    joints = {j.name: j for j in model.joints}
    free = joints['j0']
    assert free.actuator == 'servo'
    # DART reads no <axis*> for free (and ball) joints: only <dof> sets their coordinates.
    assert free.dof_dynamics[0] == DofDynamics() and free.limits[0].lower is None
    assert free.limits[4].lower == -2 and free.dof_dynamics[4].velocity_limits == (-1, 1)
    assert [model.initial_velocities[f'j0/{s}'] for s in
            ('rot_x', 'rot_y', 'rot_z', 'pos_x', 'pos_y', 'pos_z')] == [1, 2, 3, 4, 0.25, 6]
    assert model.initial_positions['j0/pos_y'] == 0.5
    euler = joints['j1']
    assert euler.actuator == 'locked'
    assert euler.dof_dynamics[1] == DofDynamics(2.0, 0.0, 3.0, 0.5)
    assert euler.limits[1].lower == -1 and euler.limits[1].upper is None
    universal = joints['j2']
    assert universal.actuator == 'force'  # the spec's "torque"
    assert universal.dof_dynamics[0].damping == 5 and universal.dof_dynamics[1].friction == 2
    assert universal.dynamics is not None and universal.dynamics.damping == 5
    hinge = joints['j3']
    assert hinge.actuator == 'force' and model.initial_velocities['j3'] == 0.7
    assert hinge.dof_dynamics[0].velocity_limits == (-3, 3)
    assert hinge.dof_dynamics[0].acceleration_limits == (-4, 4)
    assert hinge.dof_dynamics[0].force_limits == (-5, 6)
    assert [w.message for w in warnings if 'actuator' in w.message] == [
        "joint 'j3': unknown actuator 'bogus', using force as DART does (known: force, torque, "
        'passive, servo, acceleration, velocity, locked)']


@pytest.mark.parametrize('init_vel, read', [('1 2', [1, 2, 0]), ('1 2 3 4', [1, 2, 3])])
def test_init_vel_of_another_length_is_completed_or_cut(tmp_path: Path, init_vel: str,
                                                        read: list) -> None:
    """DART drops extra values and reads undefined memory past a short vector: zeros here, with
    a warning at the <joint> line."""
    joint = (f'<joint type="ball" name="j"><parent>world</parent><child>a</child>'
             f'<init_vel>{init_vel}</init_vel></joint>')
    result = load(_doc(tmp_path, joint))
    assert [(w.code, w.line) for w in result.warnings] == [('SKEL_INITIAL_VECTOR', 5)]
    assert list(result.scene.models[0].initial_velocities.values()) == read


def test_an_empty_init_vel_is_refused_as_dart_refuses_it(tmp_path: Path) -> None:
    joint = ('<joint type="ball" name="j"><parent>world</parent><child>a</child>'
             '<init_vel></init_vel></joint>')
    with pytest.raises(SchemaError, match='empty <init_vel>') as info:
        load(_doc(tmp_path, joint))
    assert info.value.line == 5


def test_soft_skin_is_kept(tmp_path: Path) -> None:
    soft = '''<gravity>false</gravity><self_collide>true</self_collide>
      <inertia><mass>2</mass></inertia>
      <soft_shape><transformation>0 0 0.5 0 0 0</transformation><total_mass>0.5</total_mass>
        <geometry><box><size>0.1 0.2 0.3</size><frags>3 4 5</frags></box></geometry>
        <kv>100</kv><ke>10</ke><damp>2</damp></soft_shape>'''
    joint = '<joint type="free" name="j"><parent>world</parent><child>a</child></joint>'
    link = load(_doc(tmp_path, joint, soft)).scene.models[0].links[0]
    assert link.gravity is False and link.self_collide is True
    assert link.soft == SoftBody(Box((0.1, 0.2, 0.3)), link.soft.origin, 0.5, 100.0, 10.0, 2.0,
                                 (3, 4, 5))
    assert link.soft.origin.xyz == (0.0, 0.0, 0.5)
    assert link.inertial.mass == 2  # the rigid mass stays <inertia>'s, as in DART


def test_corpus_soft_ellipsoid() -> None:
    model = load(CORPUS / 'dart_tianyang9310_fork' / 'data' / 'skel' /
                 'softBodies.skel').scene.models[2]
    soft = model.links[0].soft
    assert isinstance(soft.geometry, Ellipsoid) and soft.resolution == (8, 8)
    assert (soft.total_mass, soft.vertex_stiffness, soft.edge_stiffness, soft.damping) == (
        0.5, 10000.0, 100.0, 50.0)


@pytest.mark.parametrize('body, message', [
    ('<soft_shape><geometry><box><size>1 1 1</size><frags>3 3 3</frags></box></geometry>'
     '</soft_shape>', 'needs a <total_mass>'),
    ('<soft_shape><total_mass>1</total_mass><geometry><box><size>1 1 1</size>'
     '<frags>3 0.5 3</frags></box></geometry></soft_shape>', 'positive whole numbers'),
    ('<gravity>maybe</gravity>', 'true/false'),
])
def test_bad_body_flags_and_soft_shapes(tmp_path: Path, body: str, message: str) -> None:
    joint = '<joint type="free" name="j"><parent>world</parent><child>a</child></joint>'
    with pytest.raises((SchemaError, InvalidValueError), match=message):
        load(_doc(tmp_path, joint, body))


def test_info_shows_what_is_kept(tmp_path: Path) -> None:
    from robot_formats.cli import main
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(['info', str(TEST_DIR / 'joint_dynamics_elements_test.skel')]) == 0
    text = out.getvalue()
    assert 'physics: time_step=0.001, gravity=(0.0, -9.81, 0.0), collision_detector=fcl_mesh' \
        in text
    assert 'skeleton 1::joint1/y = 0  (damping 2, friction 4, spring 2 rest 0.2)' in text
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(['info', str(TEST_DIR / 'joint_actuator_type_test.skel')]) == 0
    assert 'actuators: force 2, passive 1, acceleration 1, velocity 1' in out.getvalue()
    assert JointType.UNIVERSAL  # the actuator test file has a universal joint
