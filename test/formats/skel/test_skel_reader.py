"""SKEL reader details the FK goldens do not pin: mass properties, shapes, limits, physics,
names, refusals with typed errors, and the CLI (check / frames / convert → check_urdf)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robot_formats.core.errors import (CycleError, FormatError, InvalidValueError, SchemaError,
                                  UnsupportedError)
from robot_formats.formats import load
from robot_formats.core.model import (Capsule, Cone, Ellipsoid, JointType, Limits, Mesh, Plane,
                                 Sphere)
from shared_data import shared  # noqa: E402  (shared/ beside the clone)

ROOT = Path(__file__).resolve().parents[3]
GOLDENS = shared('goldens', 'skel')
CORPUS = shared('corpus', 'skel')
TEST_DIR = CORPUS / 'dart_tianyang9310_fork' / 'data' / 'skel' / 'test'
SHAPES = CORPUS / 'dartsim_dart' / 'data' / 'skel' / 'test' / 'test_shapes.skel'


def _golden(path: Path) -> Path:
    if GOLDENS in path.parents:
        return path.with_name(path.name + '.json')
    return GOLDENS / path.relative_to(CORPUS).with_name(path.name + '.json')


def _loaded_sources() -> list[Path]:
    out = []
    for golden in sorted(GOLDENS.rglob('*.skel.json')):
        data = json.loads(golden.read_text())
        if data['verdict'] != 'loaded':
            continue
        rel = golden.relative_to(GOLDENS).with_name(golden.name[:-5])
        out.append(GOLDENS / rel if 'generated' in rel.parts else CORPUS / rel)
    return out


def _write(tmp_path: Path, body: str, name: str = 'doc.skel') -> Path:
    path = tmp_path / name
    path.write_text(f'<?xml version="1.0"?>\n<skel version="1.0"><world name="w">{body}'
                    '</world></skel>\n')
    return path


_TWO_BODIES = '''<skeleton name="s">
  <body name="a"><transformation>0 0 1 0 0 0</transformation></body>
  <body name="b"><transformation>0 0 2 0 0 0</transformation></body>
  <joint type="free" name="j0"><parent>world</parent><child>a</child></joint>
  {joint}
</skeleton>'''


def _joint_doc(tmp_path: Path, joint: str) -> Path:
    return _write(tmp_path, _TWO_BODIES.format(joint=joint))


# --- mass properties --------------------------------------------------------------------------

@pytest.mark.parametrize('source', _loaded_sources(), ids=lambda p: p.name)
def test_mass_properties_match_dart(source: Path) -> None:
    data = json.loads(_golden(source).read_text())
    models = {m.name: m for m in load(source).scene.models}
    for skeleton in data['skeletons']:
        links = {link.name: link for link in models[skeleton['name']].links}
        assert set(links) == {b['name'] for b in skeleton['bodies']}
        for body in skeleton['bodies']:
            inertial = links[body['name']].inertial
            moments = body['moment_of_inertia']
            expected = [moments[k] for k in ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz')]
            assert inertial.mass == pytest.approx(body['mass'])
            assert np.allclose(inertial.origin.xyz, body['local_com'], atol=1e-9)
            assert np.allclose(inertial.inertia, expected, atol=1e-7), body['name']


# --- scene-level facts ------------------------------------------------------------------------

def test_physics_names_and_mobile(tmp_path: Path) -> None:
    scene = load(TEST_DIR / 'double_pendulum_with_base.skel').scene
    names = [m.name for m in scene.models]
    assert len(names) == len(set(names)) and any(n.endswith('(1)') for n in names)
    assert scene.is_world and scene.physics['time_step'] > 0
    defaults = load(_write(tmp_path, '')).scene.physics
    assert defaults == {'time_step': 0.001, 'gravity': (0.0, 0.0, -9.81)}
    mobiles = [(m.name, m.static) for path in _loaded_sources()
               for m in load(path).scene.models if m.static]
    assert len(mobiles) >= 3  # <mobile>false</mobile> in the corpus and generated worlds


def test_shapes_are_dart_shapes() -> None:
    models = {m.name: m for m in load(SHAPES).scene.models}
    geometry = {name: [v.geometry for v in m.links[0].visuals] for name, m in models.items()}
    ellipsoid = next(g for gs in geometry.values() for g in gs if isinstance(g, Ellipsoid))
    assert all(r > 0 for r in ellipsoid.radii)
    multi = next(gs for gs in geometry.values() if len(gs) == 2 and all(
        isinstance(g, Sphere) for g in gs))
    assert sorted(g.radius for g in multi) == [0.05, 0.075]
    assert any(isinstance(g, Capsule) for gs in geometry.values() for g in gs)
    assert any(isinstance(g, Cone) for gs in geometry.values() for g in gs)
    mesh = next(g for gs in geometry.values() for g in gs if isinstance(g, Mesh))
    assert mesh.uri.startswith('file:///')


def test_ellipsoid_size_is_diameters_and_plane_offset(tmp_path: Path) -> None:
    doc = _write(tmp_path, '''<skeleton name="s"><body name="a">
      <visualization_shape><geometry><ellipsoid><size>0.2 0.4 0.6</size></ellipsoid></geometry>
      </visualization_shape>
      <collision_shape><geometry><plane><normal>0 0 2</normal><offset>0.5</offset></plane>
      </geometry></collision_shape>
      <visualization_shape><geometry><mesh><file_name>m/x.obj</file_name>
        <scale>2 2 2</scale></mesh></geometry></visualization_shape></body>
      <joint type="weld" name="j"><parent>world</parent><child>a</child></joint></skeleton>''')
    link = load(doc).scene.models[0].links[0]
    assert link.visuals[0].geometry == Ellipsoid((0.1, 0.2, 0.3))
    plane = link.collisions[0]
    assert plane.geometry == Plane((0.0, 0.0, 1.0)) and plane.origin.xyz == (0.0, 0.0, 0.5)
    assert link.visuals[1].geometry == Mesh((tmp_path / 'm' / 'x.obj').as_uri(), (2.0, 2.0, 2.0))
    assert link.inertial.mass == 1.0 and link.inertial.inertia == (1, 0, 0, 1, 0, 1)


def test_limits_dynamics_and_dof_elements() -> None:
    scene = load(TEST_DIR / 'dof_attribute_test.skel').scene
    joints = {j.name: j for j in scene.models[0].joints}
    assert joints['joint1'].limits == (Limits(-1.57, 1.57),)
    assert joints['joint2'].limits == (Limits(-1.0, 1.0),)
    assert joints['joint0'].type is JointType.CONTINUOUS and joints['joint0'].limits == ()
    assert joints['joint4'].limits[1] == Limits(None, None)
    assert scene.models[0].initial_positions['joint3/axis1'] == 5.0
    planar = {j.name: j for j in load(TEST_DIR / 'planar_joint.skel').scene.models[0].joints}
    assert planar['joint2'].axis == (0.0, 1.0, 0.0) and planar['joint2'].axis2 == (0.0, 0.0, 1.0)


def test_implicit_root_joint_and_creation_order(tmp_path: Path) -> None:
    doc = _write(tmp_path, '''<skeleton name="s">
      <body name="a"/><body name="b"/><body name="c"/><body name="unused"/>
      <joint type="revolute" name="bc"><parent>b</parent><child>c</child>
        <axis><xyz>0 0 2</xyz></axis></joint>
      <joint type="revolute" name="ab"><parent>a</parent><child>b</child>
        <axis><xyz>0 0 1</xyz></axis></joint></skeleton>''')
    result = load(doc)
    model = result.scene.models[0]
    assert [j.name for j in model.joints] == ['root', 'ab', 'bc']
    assert model.joints[0].type is JointType.FLOATING and model.joints[0].parent == 'world'
    assert model.joints[2].axis == (0.0, 0.0, 1.0)
    assert sorted(link.name for link in model.links) == ['a', 'b', 'c']
    assert result.tree.dof_names[:6] == tuple(f's::root/{s}' for s in
                                              ('rot_x', 'rot_y', 'rot_z', 'pos_x', 'pos_y',
                                               'pos_z'))


# --- refusals ---------------------------------------------------------------------------------

@pytest.mark.parametrize('joint, error', [
    ('<joint type="screw" name="j"><parent>a</parent><child>b</child></joint>',
     UnsupportedError),
    ('<joint type="translational2d" name="j"><parent>a</parent><child>b</child></joint>',
     UnsupportedError),
    ('<joint type="euler" name="j"><parent>a</parent><child>b</child></joint>', SchemaError),
    ('<joint type="revolute" name="j"><parent>a</parent><child>b</child><axis/></joint>',
     SchemaError),
    ('<joint type="revolute" name="j"><parent>b</parent><child>b</child>'
     '<axis><xyz>1 0 0</xyz></axis></joint>', CycleError),
    ('<joint type="ball" name="j"><parent>a</parent><child>b</child>'
     '<dof local_index="3"><position initial="1"/></dof></joint>', InvalidValueError),
    ('<joint type="weld" name="j"><parent>a</parent><child>b</child>'
     '<transformation>0 0 0 0 0</transformation></joint>', InvalidValueError),
])
def test_refusals(tmp_path: Path, joint: str, error: type) -> None:
    with pytest.raises(error) as info:
        load(_joint_doc(tmp_path, joint))
    assert info.value.line is not None and info.value.file


@pytest.mark.parametrize('joint, code', [
    ('<joint type="euler" name="j"><parent>a</parent><child>b</child>'
     '<axis_order>XYZ</axis_order></joint>', 'SKEL_AXIS_ORDER'),
    ('<joint type="revolute" name="j"><parent>a</parent><child>b</child></joint>',
     'SKEL_MISSING_AXIS'),
    ('<joint type="universal" name="j"><parent>a</parent><child>b</child>'
     '<axis><xyz>1 0 0</xyz></axis></joint>', 'SKEL_MISSING_AXIS'),
    ('<joint type="ball" name="j"><parent>a</parent><child>b</child>'
     '<init_pos>1 2</init_pos></joint>', 'SKEL_INITIAL_VECTOR'),
    ('<joint type="prismatic" name="j"><parent>a</parent><child>b</child>'
     '<axis><xyz>1 0 0x</xyz></axis></joint>', 'SKEL_NUMBER'),
    ('<joint type="planar" name="j"><parent>a</parent><child>b</child>'
     '<plane type="xz"/></joint>', 'SKEL_PLANE'),
    ('<joint type="bogus" name="j"><parent>a</parent><child>b</child></joint>',
     'SKEL_UNKNOWN_JOINT_TYPE'),
    ('<joint type="revolute" name="j"><parent>a</parent><axis><xyz>1 0 0</xyz></axis></joint>',
     'SKEL_MISSING_ELEMENT'),
])
def test_what_dart_reads_past_is_a_warning(tmp_path: Path, joint: str, code: str) -> None:
    """DART reports these and loads the file with its defaults (test_real_world_skel.py
    compares the frames with dartpy's): a warning at the joint's line."""
    result = load(_joint_doc(tmp_path, joint))
    assert [w.code for w in result.warnings] == [code]
    assert result.warnings[0].line is not None and result.warnings[0].file


def test_bare_skeleton_and_old_soft_syntax_are_explained() -> None:
    with pytest.raises(SchemaError, match='no <world>'):
        load(CORPUS / 'dart_tianyang9310_fork' / 'data' / 'skel' / 'ground.skel')
    with pytest.raises(SchemaError, match='old soft-body syntax'):
        load(TEST_DIR / 'test_single_body.skel')


def test_screw_message_says_dart_cannot_build_it(tmp_path: Path) -> None:
    doc = _joint_doc(tmp_path, '<joint type="screw" name="j"><parent>a</parent><child>b</child>'
                     '</joint>')
    with pytest.raises(FormatError, match='cannot build it'):
        load(doc)


# --- CLI --------------------------------------------------------------------------------------

def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get('PYTHONPATH',
                                                                                 '')]))
    return subprocess.run([sys.executable, '-m', 'robot_formats.cli', *args], capture_output=True,
                          text=True, timeout=120, env=env)


def _check_urdf() -> str:
    for candidate in (Path(sys.executable).parent / 'check_urdf', ROOT / '.venv' / 'bin' /
                      'check_urdf'):
        if candidate.exists():
            return str(candidate)
    found = shutil.which('check_urdf')
    assert found, 'check_urdf is missing'
    return found


@pytest.mark.parametrize('source', [SHAPES, TEST_DIR / 'planar_joint.skel',
                                    GOLDENS / 'generated' / 'random' / 'world_9.skel'],
                         ids=lambda p: p.name)
def test_cli_check_frames_convert(tmp_path: Path, source: Path) -> None:
    check = _cli('check', str(source))
    assert check.returncode == 0 and 'valid skel' in check.stdout, check.stderr
    frames = _cli('frames', '--json', str(source))
    assert frames.returncode == 0, frames.stderr
    got = json.loads(frames.stdout)['frames']
    for name, expected in json.loads(_golden(source).read_text())['initial_frames'].items():
        assert np.allclose(got[name]['xyz'], expected['xyz'], atol=1e-6)
    out = tmp_path / 'out.urdf'
    convert = _cli('convert', str(source), '-o', str(out))
    assert convert.returncode == 0, convert.stderr
    result = subprocess.run([_check_urdf(), str(out)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def _covering_sources() -> list[tuple[Path, object]]:
    """Few loadable worlds that together use every joint kind and shape kind (greedy), plus
    every tenth one."""
    features = {}
    for source in _loaded_sources():
        result = load(source)
        kinds = {j.type for j in result.tree.joints.values()}
        shapes = {type(v.geometry) for link in result.tree.links.values() for v in link.visuals}
        features[source] = (result, kinds | shapes)
    chosen = [(source, features[source][0]) for source in list(features)[::10]]
    covered: set = set()
    while True:
        source = max(features, key=lambda s: len(features[s][1] - covered))
        if not features[source][1] - covered:
            return chosen
        covered |= features[source][1]
        chosen.append((source, features[source][0]))


def test_worlds_with_every_joint_and_shape_pass_check_urdf(tmp_path: Path) -> None:
    """Worlds covering every joint and shape kind: one URDF each (multi-DoF chains, helper
    links, masses, shapes), accepted by urdfdom's check_urdf, with a link per DART body."""
    from robot_formats.formats.urdf import urdf_string
    for source, result in _covering_sources():
        out = tmp_path / 'world.urdf'
        out.write_text(urdf_string(result.scene, result.tree))
        checked = subprocess.run([_check_urdf(), str(out)], capture_output=True, text=True,
                                 timeout=60)
        assert checked.returncode == 0, f'{source}: {checked.stdout}{checked.stderr}'
        golden = json.loads(_golden(source).read_text())
        assert set(golden['initial_frames']) <= set(result.tree.links), source


def test_cli_check_invalid_exits_1() -> None:
    bad = GOLDENS / 'generated' / 'invalid' / 'invalid_15_cycle.skel'
    result = _cli('check', str(bad))
    assert result.returncode == 1 and 'Traceback' not in result.stderr


def test_cli_frames_positions_take_dart_order() -> None:
    """``frames --positions`` takes DART's generalized coordinates across skeletons."""
    source = GOLDENS / 'generated' / 'random' / 'world_9.skel'
    config = json.loads(_golden(source).read_text())['configurations'][1]
    values = ','.join(repr(v) for v in config['positions'])
    result = _cli('frames', '--json', f'--positions={values}', str(source))
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)['frames']
    for name, expected in config['frames'].items():
        assert np.allclose(got[name]['xyz'], expected['xyz'], atol=1e-6)


@pytest.mark.parametrize('inertia, shape', [
    ('<offset>1e308 1e308 1e308</offset>', '<box><size>1 1 1</size></box>'),
    ('', '<sphere><radius>1e200</radius></sphere>'),  # r ** 2 raised OverflowError
    ('', '<capsule><radius>1e200</radius><height>1</height></capsule>'),
])
def test_absurd_sizes_give_an_error_not_a_nan_inertia(tmp_path: Path, inertia: str,
                                                       shape: str) -> None:
    """Found by fuzzing: numbers near the float limit made the inertia computed from shapes
    NaN, or crashed with an OverflowError; such a body is refused."""
    doc = _write(tmp_path, f'<skeleton name="s"><body name="a"><inertia><mass>1</mass>{inertia}'
                 f'</inertia><collision_shape><geometry>{shape}</geometry></collision_shape>'
                 '</body><joint type="free" name="j"><parent>world</parent><child>a</child>'
                 '</joint></skeleton>')
    with pytest.raises(InvalidValueError, match='inertia computed from its shapes is not finite'):
        load(doc)


def test_huge_axis_components_are_normalised_without_overflow(tmp_path: Path) -> None:
    """Found by the mutation fuzzer: an axis of 1e308 components overflowed its norm and
    became the zero vector."""
    doc = _joint_doc(tmp_path, '<joint type="revolute" name="j"><parent>a</parent><child>b'
                     '</child><axis><xyz>1e308 1e308 0</xyz></axis></joint>')
    axis = next(j for j in load(doc).tree.joints.values() if j.name.endswith('::j')).axis
    assert np.allclose(axis, (2 ** -0.5, 2 ** -0.5, 0.0))
