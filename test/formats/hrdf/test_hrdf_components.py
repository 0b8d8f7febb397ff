"""Every HEBI component, one at a time, against HEBI's own library (goldens/hrdf/components.json,
measured with hebi-py 2.16.1): all 21 actuators, all 96 link variants (4 types × input/output
RightAngle/Inline × 6 extension/twist pairs, R25-R8 Inline outputs refused as HEBI refuses them),
all 18 brackets, the 3 end effectors, the 6 joint axes (with and without gear_ratio), the
default rigid body, and HEBI's verdict on all 361 element pairs (interface compatibility).

It also pins the inertia of every built-in component to its documented source (HebiRobotics/
hebi_description, urdf/components/*.xacro, commits cited below) as it appears in the URDF, and
checks that each component's simple-shape visual spans its input and output frames.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from hrdf_goldens import GOLDENS
from robot_formats.core import errors as E
from robot_formats.formats import load
from robot_formats.core.model import Box, Cylinder, Sphere
from robot_formats.core.transforms import pose_to_matrix
from robot_formats.formats.urdf.writer import urdf_string

COMPONENTS = json.loads((GOLDENS / 'components.json').read_text())
TOL = 1e-6

#: HebiRobotics/hebi_description urdf/components/actuator.xacro
#: @81cb88f4a671d6d0ee0d2c92329ef710a06f07a1, the <inertia> blocks (ixx ixy ixz iyy iyz izz); T5
#: carries the X5 block, T8 the X8 block.
HEBI_DESCRIPTION_ACTUATOR_INERTIA = {
    'X5': (0.00015, 0.0000341, 0.0000118, 0.000255, 0.00000229, 0.000350),
    'X8': (0.000246, 0.0000444, 0.0000266, 0.000380, 0.00000422, 0.000463),
    'R8': (0.000488, 0.00001297, 0.0000578, 0.001009, 0.00000494, 0.001186),
    'T5': (0.00015, 0.0000341, 0.0000118, 0.000255, 0.00000229, 0.000350),
    'T8': (0.000246, 0.0000444, 0.0000266, 0.000380, 0.00000422, 0.000463),
}


def _kit(tmp_path: Path, body: str, version: str = '1.6.0') -> Path:
    path = tmp_path / 'kit.hrdf'
    path.write_text(f'<robot version="{version}">{body}</robot>')
    return path


def _close(expected, got, where: str, tol: float = TOL) -> None:
    error = float(np.max(np.abs(np.asarray(expected, dtype=float) - np.asarray(got))))
    assert error <= tol, f'{where}: off by {error:.3g}'


def _com(tree, name: str, poses) -> np.ndarray:
    return poses[name] @ pose_to_matrix(tree.links[name].inertial.origin)


def _urdf_inertia(tree, scene, link: str) -> tuple[float, ...]:
    robot = etree.fromstring(urdf_string(scene, tree).encode())
    inertia = robot.find(f"link[@name='{link}']/inertial/inertia")
    return tuple(float(inertia.get(k)) for k in ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz'))


def _visual_box(tree, link: str) -> tuple[np.ndarray, np.ndarray]:
    """Axis-aligned bounds, in the link frame, of the link's simple-shape visuals."""
    corners = []
    for visual in tree.links[link].visuals:
        geometry = visual.geometry
        if isinstance(geometry, Box):
            half = np.array(geometry.size) / 2.0
        elif isinstance(geometry, Cylinder):
            half = np.array((geometry.radius, geometry.radius, geometry.length / 2.0))
        elif isinstance(geometry, Sphere):
            half = np.full(3, geometry.radius)
        else:
            raise AssertionError(f'{link}: unexpected visual {geometry}')
        place = pose_to_matrix(visual.origin)
        for signs in np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).T.reshape(-1, 3):
            corners.append((place @ np.append(signs * half, 1.0))[:3])
    corners = np.array(corners)
    return corners.min(axis=0), corners.max(axis=0)


def _spans(tree, link: str, points, slack: float = 0.01) -> None:
    low, high = _visual_box(tree, link)
    for point in points:
        assert np.all(point >= low - slack) and np.all(point <= high + slack), (
            f'{link}: visual {low}..{high} does not reach {point}')
    assert np.all(high - low < 0.5 + np.ptp(np.array(points), axis=0)), f'{link}: too big'


# --- actuators --------------------------------------------------------------------------------

@pytest.mark.parametrize('kind', sorted(COMPONENTS['actuators']))
def test_actuator_matches_hebi(kind: str, tmp_path: Path) -> None:
    golden = COMPONENTS['actuators'][kind]
    result = load(_kit(tmp_path, f'<actuator type="{kind}"/>'))
    tree = result.tree
    assert list(tree.dof_names) == ['actuator_0']
    for q, key in ((0.0, 'output_at_q0'), (0.5, 'output_at_q0.5')):
        poses = tree.forward([q])
        _close(golden[key], poses['actuator_0/output'], f'{kind} output q={q}')
        _close(golden['com'], _com(tree, 'actuator_0', poses), f'{kind} com q={q}')
        _close(golden['input'], poses['actuator_0'], f'{kind} input')
    assert tree.links['actuator_0'].inertial.mass == pytest.approx(golden['mass'], abs=TOL)
    [joint] = [j for j in tree.joints.values() if j.dof_count]
    assert joint.limits[0].velocity == pytest.approx(golden['max_speed'], abs=1e-4)
    assert joint.limits[0].effort == pytest.approx(golden['max_effort'], abs=1e-6)
    height = golden['output_height_decimal']
    _spans(tree, 'actuator_0', [np.zeros(3), np.array((0.0, 0.0, height))])


@pytest.mark.parametrize('kind', sorted(COMPONENTS['actuators']))
def test_actuator_inertia_has_its_documented_source(kind: str, tmp_path: Path) -> None:
    result = load(_kit(tmp_path, f'<actuator type="{kind}"/>'))
    inertia = _urdf_inertia(result.tree, result.scene, 'actuator_0')
    series = kind.split('-')[0]
    if series in HEBI_DESCRIPTION_ACTUATOR_INERTIA:
        assert inertia == pytest.approx(HEBI_DESCRIPTION_ACTUATOR_INERTIA[series], rel=1e-9)
    else:  # R25/T25: HEBI publishes none; docs/hrdf.md: solid box 0.150 x 0.110 x h
        mass = COMPONENTS['actuators'][kind]['mass']
        h = COMPONENTS['actuators'][kind]['output_height_decimal']
        a, b = 0.150, 0.110
        expected = (mass * (b * b + h * h) / 12, 0, 0, mass * (a * a + h * h) / 12, 0,
                    mass * (a * a + b * b) / 12)
        assert inertia == pytest.approx(expected, rel=1e-9, abs=1e-15)


# --- links ------------------------------------------------------------------------------------

LINKS = COMPONENTS['links']


def _link_id(variant: dict) -> str:
    return (f'{variant["type"]}-{variant["input"]}-{variant["output"]}-e{variant["extension"]}'
            f'-t{variant["twist"]}')


@pytest.mark.parametrize('variant', LINKS, ids=[_link_id(v) for v in LINKS])
def test_link_variant_matches_hebi(variant: dict, tmp_path: Path) -> None:
    body = (f'<link type="{variant["type"]}" input="{variant["input"]}" '
            f'output="{variant["output"]}" extension="{variant["extension"]}" '
            f'twist="{variant["twist"]}"/>')
    path = _kit(tmp_path, body)
    if not variant['accepted']:
        with pytest.raises(E.InvalidValueError) as info:
            load(path)
        assert 'output' in str(info.value) and 'Inline' in str(info.value)
        return
    tree = load(path).tree
    poses = tree.forward([])
    _close(variant['output_frame'], poses['link_0/output'], 'output')
    _close(variant['com'], _com(tree, 'link_0', poses), 'com')
    _close(variant['input_frame'], poses['link_0'], 'input')
    mass = tree.links['link_0'].inertial.mass
    assert mass == pytest.approx(variant['mass'], abs=TOL)
    # hebi_description link.xacro @c4620fa94cc85b5765f2761c3e7a1ae5504cb3a3, thin rod about x:
    # ixx = m d^2/2, iyy = izz = m (e^2 + 6 d^2)/12 (for an Inline input the rod runs along z)
    d = 0.02 if variant['type'] in ('X5', 'R8') else 0.0275
    e = variant['extension']
    along, across = mass * d * d / 2, mass * (e * e + 6 * d * d) / 12
    expected = ((across, 0, 0, across, 0, along) if variant['input'] == 'Inline'
                else (along, 0, 0, across, 0, across))
    assert tree.links['link_0'].inertial.inertia == pytest.approx(expected, rel=1e-9)
    if e > 0:  # the tube runs from the input interface to the end of the extension
        start = np.zeros(3) if variant['input'] == 'Inline' else np.array((0.0, 0.0, d))
        end = 2 * np.array(variant['com'])[:3, 3] - start
        _spans(tree, 'link_0', [start, end], slack=0.02)


def test_every_link_combination_is_covered() -> None:
    combos = {(v['type'], v['input'], v['output']) for v in LINKS}
    assert len(combos) == 16 and len(LINKS) == 96


# --- brackets ---------------------------------------------------------------------------------

@pytest.mark.parametrize('kind', sorted(COMPONENTS['brackets']))
def test_bracket_matches_hebi(kind: str, tmp_path: Path) -> None:
    golden = COMPONENTS['brackets'][kind]
    result = load(_kit(tmp_path, f'<bracket type="{kind}"/>'))
    tree = result.tree
    poses = tree.forward([])
    _close(golden['output'], poses['bracket_0/output'], f'{kind} output')
    _close(golden['com'], _com(tree, 'bracket_0', poses), f'{kind} com')
    assert tree.links['bracket_0'].inertial.mass == pytest.approx(golden['mass'], abs=TOL)
    # hebi_description bracket.xacro @c4620fa9...: "inertia is just modelled as small sphere",
    # 0.4 m 0.06^2 on the diagonal (we apply it with HEBI's library mass, also for R25)
    moment = 0.4 * golden['mass_decimal'] * 0.06 ** 2
    inertia = _urdf_inertia(tree, result.scene, 'bracket_0')
    assert inertia == pytest.approx((moment, 0, 0, moment, 0, moment), rel=1e-6, abs=1e-15)
    _spans(tree, 'bracket_0', [np.zeros(3), np.array(golden['output_decimal'])])
    assert golden['output_count'] == 1


def test_all_18_brackets_21_actuators_3_end_effectors() -> None:
    assert len(COMPONENTS['brackets']) == 18
    assert len(COMPONENTS['actuators']) == 21
    assert sorted(COMPONENTS['end_effectors']) == ['Custom', 'R8Parallel', 'X5Parallel']


# --- end effectors, joints, rigid body --------------------------------------------------------

@pytest.mark.parametrize('kind', sorted(COMPONENTS['end_effectors']))
def test_end_effector_matches_hebi(kind: str, tmp_path: Path) -> None:
    golden = COMPONENTS['end_effectors'][kind]
    result = load(_kit(tmp_path, f'<end-effector type="{kind}"/>'))
    tree = result.tree
    poses = tree.forward([])
    _close(golden['output'], poses['end_effector_0/output'], f'{kind} output')
    _close(golden['endeffector'], poses['end_effector_0/output'], f'{kind} end effector')
    _close(golden['com'], _com(tree, 'end_effector_0', poses), f'{kind} com')
    assert tree.links['end_effector_0'].inertial.mass == pytest.approx(golden['mass'], abs=TOL)
    robot = etree.fromstring(urdf_string(result.scene, tree).encode())
    frame = robot.find("joint[@type='fixed']/child[@link='end_effector_0/output']")
    assert frame is not None, 'the end-effector frame is a fixed URDF frame'
    if kind != 'Custom':
        _spans(tree, 'end_effector_0', [np.zeros(3), np.array(golden['output_decimal'])])


@pytest.mark.parametrize('kind', sorted(COMPONENTS['end_effectors']))
def test_end_effector_output_override(kind: str, tmp_path: Path) -> None:
    """output_trans replaces the library default, output_rot applies (INDEX.md)."""
    tree = load(_kit(tmp_path, f'<end-effector type="{kind}" output_trans="0.1 0.2 0.3" '
                                'output_rot="Rz(pi/2)"/>')).tree
    pose = tree.forward([])['end_effector_0/output']
    expected = np.array([[0, -1, 0, 0.1], [1, 0, 0, 0.2], [0, 0, 1, 0.3], [0, 0, 0, 1.0]])
    _close(expected, pose, kind, tol=1e-6)  # HEBI's pi is float32: 1e-7 off


@pytest.mark.parametrize('axis', sorted(COMPONENTS['joints']))
@pytest.mark.parametrize('ratio', [None, 2])
def test_joint_matches_hebi(axis: str, ratio: int | None, tmp_path: Path) -> None:
    golden = COMPONENTS['joints'][axis]
    gear = f' gear_ratio="{ratio}"' if ratio else ''
    result = load(_kit(tmp_path, f'<joint axis="{axis}"{gear}/>'))
    tree = result.tree
    assert list(tree.dof_names) == ['joint_0']
    key = 'output_at_q0.5_gear_ratio_2' if ratio else 'output_at_q0.5'
    _close(golden[key], tree.forward([0.5])['joint_0/output'], f'{axis} {key}')
    assert golden['com_frames'] == 0 and tree.links['joint_0'].inertial is None


def test_default_rigid_body_matches_hebi(tmp_path: Path) -> None:
    golden = COMPONENTS['rigid_body']['default_mass0']
    tree = load(_kit(tmp_path, '<rigid-body mass="0"/>')).tree
    poses = tree.forward([])
    _close(golden['output'], poses['rigid_body_0/output'], 'output')
    _close(golden['com'], _com(tree, 'rigid_body_0', poses), 'com')
    assert tree.links['rigid_body_0'].inertial.mass == golden['masses'][0]


# --- interface compatibility ------------------------------------------------------------------

def _element(spec: str, tag: str) -> str:
    kind, _, value = spec.partition(':')
    if kind == 'link':
        return f'<link type="{value}" extension="0.1" twist="0" tag="{tag}"/>'
    if kind == 'joint':
        return f'<joint axis="rz" tag="{tag}"/>'
    if kind == 'rigid-body':
        return f'<rigid-body mass="0.1" tag="{tag}"/>'
    return f'<{kind} type="{value}" tag="{tag}"/>'


PAIRS = COMPONENTS['compatibility']['pairs']


def test_all_361_pairs_as_hebi_judges_them(tmp_path: Path) -> None:
    assert len(PAIRS) == 361
    disagreements = []
    for number, pair in enumerate(PAIRS):
        path = tmp_path / f'pair{number}.hrdf'
        path.write_text(f'<robot version="1.6.0">{_element(pair["first"], "a")}'
                        f'{_element(pair["second"], "b")}</robot>')
        try:
            load(path)
            accepted = True
        except E.StructureError as error:
            accepted = False
            assert 'position' not in error.message or error.line, error
        if accepted != pair['hebi_accepts']:
            disagreements.append((pair['first'], pair['second'], pair['hebi_accepts']))
    assert not disagreements


# --- file-given inertia in the URDF, as pinocchio reads it -------------------------------------

def _rz(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


@pytest.mark.parametrize('element', [
    '<rigid-body mass="2" com_trans="0.1 0.2 0.3" com_rot="Rz(0.7)" ixx="0.01" iyy="0.02" '
    'izz="0.03" ixy="0.001" ixz="-0.002" iyz="0.003"/>',
    '<bracket type="X5LightLeft" mass="2" com_trans="0.1 0.2 0.3" com_rot="Rz(0.7)" ixx="0.01" '
    'iyy="0.02" izz="0.03" ixy="0.001" ixz="-0.002" iyz="0.003"/>',
])
def test_file_inertia_is_about_the_com_in_the_com_frame(element: str, tmp_path: Path) -> None:
    """Spec: ixx..iyz are 'relative to the COM frame' placed by com_trans/com_rot (also as
    overrides of a built-in). pinocchio, reading our URDF, must see the body's inertia in the
    joint frame as R·I·Rᵀ about com_trans, with R = Rz(0.7) (HEBI's float32 pi is not used)."""
    import pinocchio as pin
    result = load(_kit(tmp_path, f'<actuator type="X5-1"/>{element}'))
    text = urdf_string(result.scene, result.tree)
    model = pin.buildModelFromXML(text)
    [joint] = [j for j in range(1, model.njoints) if model.names[j] == 'actuator_0']
    body = model.inertias[joint]  # every link fixed after the actuator's joint, merged
    inertia = np.array([[0.01, 0.001, -0.002], [0.001, 0.02, 0.003], [-0.002, 0.003, 0.03]])
    rotation = _rz(0.7)
    assert body.mass == pytest.approx(2.0)
    assert np.allclose(body.lever, (0.1, 0.2, 0.3), atol=1e-12)
    assert np.allclose(body.inertia, rotation @ inertia @ rotation.T, atol=1e-12)
