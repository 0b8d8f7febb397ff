"""URDF as urdfdom reads it: every file urdfdom (check_urdf) loads is loaded, with a URDF_*
warning per irregularity at its line; what urdfdom refuses stays refused; frames equal
pinocchio's (urdfdom inside) on the original file; strict mode refuses every irregularity.

Mimic chains are resolved to the leading joint everywhere: forward kinematics, TF, the URDF
written, MuJoCo and the motion checks. Fixtures: test/fixtures/real_world/urdf_*.urdf.
"""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import robot_formats
from robot_formats import KinematicTree, cli
from robot_formats.core.errors import (DuplicateNameError, InvalidValueError, SchemaError,
                                  StructureError)
from robot_formats.core.model import Joint, JointType, Link, Mimic, Model, Scene
from robot_formats.runtime.tf_solver import TransformSolver

from rf_testlib import (FIXTURES, TOL, assert_check_urdf, check_urdf, max_error, pinocchio_forward,
                        quat_matrix, urdf_joint_values)

REAL = FIXTURES / 'real_world'

# fixture -> (warnings: (code, line), notes: (code, line)); nothing else may be reported
URDF_FIXTURES = {
    'urdf_geometry_urdfdom_ignores.urdf': (
        [('URDF_VERSION_FEATURE', 9), ('URDF_UNKNOWN_GEOMETRY', 12),
         ('URDF_UNKNOWN_GEOMETRY', 15), ('URDF_NO_GEOMETRY', 26), ('URDF_NO_GEOMETRY', 30),
         ('URDF_SEVERAL_SHAPES', 33), ('URDF_NEGATIVE_SIZE', 39)],
        [('URDF_EXTENSION_ELEMENT', 15)]),
    'urdf_capsule_quaternion_v1_1.urdf': ([], []),
    'urdf_mesh_scale.urdf': ([('URDF_MESH_SCALE', 5), ('URDF_MESH_SCALE', 8)], []),
    'urdf_mimic_chain.urdf': ([('URDF_MIMIC_IGNORED', 43)], []),
    'urdf_extension_elements.urdf': ([], [('URDF_EXTENSION_ELEMENT', line)
                                          for line in (6, 16, 19, 23, 24, 27)]),
    'urdf_limits_inverted.urdf': ([('URDF_LIMIT_ORDER', 9)], []),
    'urdf_inertial_urdfdom_ignores.urdf': ([('URDF_MALFORMED_ELEMENT', 12),
                                            ('URDF_MALFORMED_ELEMENT', 27),
                                            ('URDF_NEGATIVE_MASS', 39),
                                            ('URDF_MALFORMED_ELEMENT', 53)], []),
}

# Where robot_formats reads a part urdfdom cannot, or leaves out one urdfdom reads (documented in
# docs/urdf-representation.md): fixture -> {(element, link)}
KEPT_THOUGH_URDFDOM_FAILS = {
    'urdf_geometry_urdfdom_ignores.urdf': {('visual', 'base')},  # a capsule in URDF 1.0
    'urdf_mesh_scale.urdf': {('visual', 'base')},                # scale="0.001": uniform
}
DROPPED_THOUGH_URDFDOM_READS = {
    'urdf_inertial_urdfdom_ignores.urdf': {('inertial', 'c')},   # a negative mass
}
_URDFDOM_ORDER = {'inertial': 0, 'visual': 1, 'collision': 2}


@functools.lru_cache(maxsize=None)
def check_urdf_result(path: Path):
    return check_urdf(path)


def urdfdom_failures(path: Path) -> set[tuple[str, str]]:
    """(element, link) urdfdom could not parse, from check_urdf's messages: urdfdom stops
    reading a link at the first part it cannot parse, so one per link at most."""
    result = check_urdf_result(path)
    return set(re.findall(r'Could not parse (visual|collision|inertial) element for Link '
                          r'\[([^\]]*)\]', result.stdout + result.stderr))


def first_failures(parts: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Per link, the part urdfdom meets first (inertial, then visuals, then collisions)."""
    first: dict[str, str] = {}
    for kind, link in parts:
        if link not in first or _URDFDOM_ORDER[kind] < _URDFDOM_ORDER[first[link]]:
            first[link] = kind
    return {(kind, link) for link, kind in first.items()}


def our_failures(warnings) -> set[tuple[str, str]]:
    found = [re.match(r"<(visual|collision|inertial)> of link '([^']*)'", w.message)
             for w in warnings]
    return {m.groups() for m in found if m}


def write(tmp_path: Path, text: str, name: str = 'doc.urdf') -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_every_urdf_fixture_has_a_case():
    assert {p.name for p in REAL.glob('urdf_*')} == set(URDF_FIXTURES)


@pytest.mark.parametrize('name', URDF_FIXTURES)
def test_urdf_fixture_loads_as_urdfdom_loads_it(name: str):
    path = REAL / name
    assert check_urdf_result(path).returncode == 0, f'check_urdf refuses {name}'
    result = robot_formats.load(path)
    warnings, notes = URDF_FIXTURES[name]
    assert sorted((w.code, w.line) for w in result.warnings) == sorted(warnings), \
        [str(w) for w in result.warnings]
    assert sorted((n.code, n.line) for n in result.notes) == sorted(notes), \
        [str(n) for n in result.notes]
    for item in (*result.warnings, *result.notes):
        assert item.file == str(path) and '\n' not in item.message


@pytest.mark.parametrize('name', URDF_FIXTURES)
def test_the_parts_urdfdom_cannot_read_are_the_ones_warned_about(name: str):
    """Per link, the first visual, collision or inertial urdfdom says it cannot parse is the
    first one robot_formats warns about (but for the documented differences)."""
    path = REAL / name
    ours = our_failures(robot_formats.load(path).warnings)
    ours |= KEPT_THOUGH_URDFDOM_FAILS.get(name, set())
    ours -= DROPPED_THOUGH_URDFDOM_READS.get(name, set())
    assert first_failures(ours) == urdfdom_failures(path)


def pinocchio_geometry(path: Path) -> dict[str, Counter]:
    """urdfdom's model of each link's geometry as pinocchio builds it: kind -> link -> count."""
    import pinocchio as pin
    model = pin.buildModelFromUrdf(str(path))
    out = {}
    for kind, geometry in (('visual', pin.GeometryType.VISUAL),
                           ('collision', pin.GeometryType.COLLISION)):
        objects = pin.buildGeomFromUrdf(model, str(path), geometry).geometryObjects
        out[kind] = Counter(model.frames[o.parentFrame].name for o in objects)
    return out


def test_urdfdom_loses_a_links_other_geometry_where_robot_formats_keeps_it():
    """The documented difference: once urdfdom 6 cannot read one visual of a link, it stops
    reading the link (no visual, no collision is left); after a collision it cannot read, no
    collision is left. robot_formats leaves out only what it cannot read."""
    path = REAL / 'urdf_geometry_urdfdom_ignores.urdf'
    theirs = pinocchio_geometry(path)
    assert theirs['visual']['arm'] == 0 and theirs['collision']['arm'] == 0
    links = {link.name: link for link in robot_formats.load(path).scene.models[0].links}
    assert len(links['arm'].visuals) == 1 and len(links['arm'].collisions) == 1


def test_inertials_equal_urdfdoms():
    """Mass, centre of mass and inertia of every link as urdfdom reads them (pinocchio's model),
    a link whose mass is negative excepted (documented)."""
    import pinocchio as pin
    path = REAL / 'urdf_inertial_urdfdom_ignores.urdf'
    model = pin.buildModelFromUrdf(str(path))
    links = {link.name: link for link in robot_formats.load(path).scene.models[0].links}
    for joint_id, link in ((1, 'a'), (2, 'b'), (4, 'd')):
        theirs, inertial = model.inertias[joint_id], links[link].inertial
        mass = inertial.mass if inertial is not None else 0.0
        assert mass == pytest.approx(theirs.mass), link
        if inertial is not None and mass > 0:
            assert np.allclose(inertial.origin.xyz, theirs.lever), link
            ixx, ixy, ixz, iyy, iyz, izz = inertial.inertia
            assert np.allclose([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]],
                               theirs.inertia), link
    assert model.inertias[3].mass == pytest.approx(-0.3) and links['c'].inertial is None


@pytest.mark.parametrize('name', URDF_FIXTURES)
def test_urdf_fixture_frames_equal_pinocchio(name: str):
    path = REAL / name
    tree = robot_formats.load(path).tree
    data = path.read_bytes()
    rng = np.random.default_rng(len(name))
    for _ in range(4):
        dofs = {dof: float(rng.uniform(-1, 1)) for dof in tree.dof_names}
        theirs = pinocchio_forward(path, urdf_joint_values(data, dofs), list(tree.links))
        error, where = max_error(tree.forward(dofs), theirs, list(tree.links))
        assert error < TOL, f'{name}: FK differs from pinocchio by {error:.3g} at {where!r}'


@pytest.mark.parametrize('name', URDF_FIXTURES)
def test_strict_mode_refuses_each_urdf_irregularity(name: str, capsys):
    path = REAL / name
    warnings, notes = URDF_FIXTURES[name]
    assert cli.main(['check', str(path)]) == 0
    err = capsys.readouterr().err
    for _, line in notes:
        assert f'{path}:{line}: note: ' in err, err
    code = cli.main(['check', '--strict', str(path)])
    err = capsys.readouterr().err
    assert code == (1 if warnings else 0), err  # notes are no irregularity
    for _, line in warnings:
        assert f'{path}:{line}: warning: ' in err, err


def test_geometry_urdfdom_cannot_read_leaves_the_link():
    scene = robot_formats.load(REAL / 'urdf_geometry_urdfdom_ignores.urdf').scene
    links = {link.name: link for link in scene.models[0].links}
    assert [v.name for v in links['base'].visuals] == ['body', 'pill']
    assert type(links['base'].visuals[1].geometry).__name__ == 'Capsule'
    assert links['base'].collisions == ()
    assert [v.name for v in links['arm'].visuals] == ['two_shapes']
    assert type(links['arm'].visuals[0].geometry).__name__ == 'Cylinder'  # the first shape
    assert links['arm'].collisions[0].geometry.size == (0.1, 0.1, 0.4)


def test_mesh_scale_of_one_number_is_uniform():
    link = robot_formats.load(REAL / 'urdf_mesh_scale.urdf').scene.models[0].links[0]
    assert link.visuals[0].geometry.scale == (0.001, 0.001, 0.001)
    assert [c.name for c in link.collisions] == ['three_numbers']


def test_inverted_limits_are_read_in_order():
    joints = {j.name: j for j in
              robot_formats.load(REAL / 'urdf_limits_inverted.urdf').scene.models[0].joints}
    assert (joints['yaw'].limits[0].lower, joints['yaw'].limits[0].upper) == (-1.57, 1.57)


def test_extension_elements_are_never_read_as_urdf():
    result = robot_formats.load(REAL / 'urdf_extension_elements.urdf')
    assert set(result.tree.links) == {'base', 'cart'}      # no <drake:link> 'pendulum'
    assert set(result.tree.joints) == {'rail'}             # no <drake:joint> 'cart_ball'
    assert not result.warnings


def test_a_default_namespace_is_urdf(tmp_path: Path):
    """TinyXML2 ignores xmlns: a <robot xmlns="..."> document is plain URDF to urdfdom."""
    path = write(tmp_path, '<robot name="r" xmlns="http://www.ros.org"><link name="a"/>'
                           '<joint name="j" type="continuous"><parent link="a"/>'
                           '<child link="b"/></joint><link name="b"/></robot>')
    assert check_urdf(path).returncode == 0
    assert set(robot_formats.load(path).tree.links) == {'a', 'b'}


# --- mimic chains -------------------------------------------------------------------------------

CHAIN = REAL / 'urdf_mimic_chain.urdf'
# (leader, multiplier, offset) of each follower, composed by hand from the fixture:
# right_knuckle = f; right_inner = -1·f + 0.05; right_pad = 0.02·(-f + 0.05) - 0.001
RESOLVED = {'right_knuckle_joint': ('finger_joint', 1.0, 0.0),
            'right_inner_joint': ('finger_joint', -1.0, 0.05),
            'right_pad_joint': ('finger_joint', -0.02, 0.0)}


def test_mimic_chains_resolve_to_the_leading_joint():
    tree = robot_formats.load(CHAIN).tree
    assert tree.dof_names == ('finger_joint',)
    for name, (leader, multiplier, offset) in RESOLVED.items():
        mimic = tree.joints[name].mimic
        assert mimic.joint == leader
        assert mimic.multiplier == pytest.approx(multiplier, abs=1e-15)
        assert mimic.offset == pytest.approx(offset, abs=1e-15)
    assert tree.joints['camera_mount'].mimic is None  # a fixed joint follows nothing


def test_mimic_chain_tf_equals_forward_kinematics():
    tree = robot_formats.load(CHAIN).tree
    solver = TransformSolver(tree)
    for value in (0.0, 0.3, 0.77):
        q = tree.positions_vector({'finger_joint': value})
        plan = solver.select(['finger_joint'])
        assert len(plan.edges) == 4  # the leader moves its three followers too
        edges, translations, quats = solver.solve(q)
        frames = tree.forward(q)
        for edge, xyz, quat in zip(edges, translations, quats):
            child = solver.moving[edge]
            parent = tree.edges[child].parent
            local = np.linalg.inv(frames[parent]) @ frames[child]
            assert np.allclose(local[:3, 3], xyz, atol=1e-12)
            assert np.allclose(local[:3, :3], quat_matrix(quat), atol=1e-12)


def test_written_urdf_mimics_the_leader_directly(tmp_path: Path):
    tree = robot_formats.load(CHAIN).tree
    text = robot_formats.urdf_string(tree.scene, tree)
    assert_check_urdf(text, tmp_path)
    mimics = {j.get('name'): j.find('mimic') for j in ET.fromstring(text.encode()).iter('joint')}
    for name, (leader, multiplier, offset) in RESOLVED.items():
        assert mimics[name].get('joint') == leader
        assert float(mimics[name].get('multiplier')) == pytest.approx(multiplier)
        assert float(mimics[name].get('offset')) == pytest.approx(offset)
    assert mimics['camera_mount'] is None
    rng = np.random.default_rng(3)
    for _ in range(3):
        dofs = {'finger_joint': float(rng.uniform(0, 0.8))}
        theirs = pinocchio_forward(text.encode(), urdf_joint_values(text.encode(), dofs),
                                   list(tree.links))
        error, where = max_error(tree.forward(dofs), theirs, list(tree.links))
        assert error < TOL, f'written URDF: FK differs from pinocchio by {error:.3g} at {where}'


def test_mujoco_follows_the_leading_joint():
    from robot_formats.runtime.mujoco_sim import MujocoRobot
    tree = robot_formats.load(CHAIN).tree
    robot = MujocoRobot(CHAIN.read_text(), str(CHAIN))
    assert robot.joint_names == ['finger_joint']
    robot.set_exact(np.array([0.6]))
    positions = robot.all_positions()
    for name, (_, multiplier, offset) in RESOLVED.items():
        assert positions[name] == pytest.approx(multiplier * 0.6 + offset, abs=1e-12)
    frames = tree.forward({'finger_joint': 0.6})  # in the root link (palm) frame, as MuJoCo's
    poses = robot.body_poses()
    for name in ('right_knuckle', 'right_inner', 'right_pad'):
        assert np.allclose(frames[name], poses[name], atol=1e-9), name


def test_motion_checks_name_the_leading_joint():
    from robot_formats.formats.xmdi.safety import RobotJoints
    joints = RobotJoints.from_tree(robot_formats.load(CHAIN).tree)
    assert set(joints.limits) == {'finger_joint'}
    assert "'finger_joint'" in joints.others['right_pad_joint']


def test_mimic_loops_in_other_formats_are_refused():
    links = tuple(Link(n) for n in 'abc')
    joints = (Joint('j1', JointType.REVOLUTE, 'a', 'b', mimic=Mimic('j2')),
              Joint('j2', JointType.REVOLUTE, 'b', 'c', mimic=Mimic('j1')))
    scene = Scene('m', (Model('m', links, joints),), is_world=False)
    with pytest.raises(StructureError) as info:
        KinematicTree(scene)
    assert info.value.code == 'MIMIC_LOOP' and "'j1'" in info.value.message


# --- what urdfdom loads and robot_formats used to refuse ----------------------------------------

ROBOT = ('<robot name="r"{version}><link name="a">{link}</link><joint name="j" type="{kind}">'
         '{origin}<parent link="a"/><child link="b"/><axis xyz="{axis}"/>{limit}{extra}</joint>'
         '<link name="b"/>{more}</robot>')
LIMIT = '<limit lower="-1" upper="1" effort="1" velocity="1"/>'


def robot(version: str = '', link: str = '', kind: str = 'revolute', origin: str = '',
          axis: str = '0 0 1', limit: str = LIMIT, extra: str = '', more: str = '') -> str:
    return ROBOT.format(version=f' version="{version}"' if version else '', link=link, kind=kind,
                        origin=origin, axis=axis, limit=limit, extra=extra, more=more)


# case -> (document, the warning code it must give)
LOADED = {
    'mimic_itself': (robot(extra='<mimic joint="j"/>'), 'URDF_MIMIC_IGNORED'),
    'mimic_loop': (robot(extra='<mimic joint="k"/>', more=(
        '<link name="c"/><joint name="k" type="revolute"><parent link="b"/><child link="c"/>'
        f'{LIMIT}<mimic joint="j"/></joint>')), 'URDF_MIMIC_IGNORED'),
    'mimic_of_fixed': (robot(kind='fixed', limit='', more=(
        '<link name="c"/><joint name="k" type="revolute"><parent link="b"/><child link="c"/>'
        f'{LIMIT}<mimic joint="j"/></joint>')), 'URDF_MIMIC_IGNORED'),
    'mimic_on_planar': (robot(kind='planar', limit='', extra='<mimic joint="j"/>'),
                        'URDF_MIMIC_IGNORED'),
    'zero_axis_planar': (robot(kind='planar', limit='', axis='0 0 0'), 'URDF_ZERO_AXIS'),
    'negative_effort': (robot(limit='<limit lower="-1" upper="1" effort="-1" velocity="1"/>'),
                        'URDF_NEGATIVE_LIMIT'),
    'quat_in_urdf_1_0': (robot(origin='<origin quat_xyzw="0 0 1 0"/>'), 'URDF_VERSION_FEATURE'),
    'zero_quaternion': (robot(version='1.1', origin='<origin quat_xyzw="0 0 0 0"/>'),
                        'URDF_QUATERNION'),
    'visual_origin_malformed': (robot(link=(
        '<visual><origin xyz="1 2"/><geometry><box size="1 1 1"/></geometry></visual>')),
        'URDF_MALFORMED_ELEMENT'),
    'visual_material_without_name': (robot(link=(
        '<visual><geometry><box size="1 1 1"/></geometry><material><color rgba="1 0 0 1"/>'
        '</material></visual>')), 'URDF_MALFORMED_ELEMENT'),
    'material_colour_malformed': (robot(link=(
        '<visual><geometry><box size="1 1 1"/></geometry><material name="m"><color rgba="1 0"/>'
        '</material></visual>')), 'URDF_MALFORMED_ELEMENT'),
    'material_undefined': (robot(link=(
        '<visual><geometry><box size="1 1 1"/></geometry><material name="m"/></visual>')),
        'URDF_UNDEFINED_MATERIAL'),
    'top_level_material_without_name': (robot(more='<material><color rgba="1 0 0 1"/></material>'),
                                        'URDF_MALFORMED_ELEMENT'),
    'mesh_without_filename': (robot(link='<collision><geometry><mesh/></geometry></collision>'),
                              'URDF_MALFORMED_ELEMENT'),
    'sphere_radius_nan': (robot(link=(
        '<visual><geometry><sphere radius="nan"/></geometry></visual>')), 'URDF_MALFORMED_ELEMENT'),
    'capsule_radius_negative': (robot(version='1.1', link=(
        '<visual><geometry><capsule radius="-0.1" length="1"/></geometry></visual>')),
        'URDF_NEGATIVE_SIZE'),
    'inertia_not_a_number': (robot(link=(
        '<inertial><mass value="1"/><inertia ixx="a" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>'
        '</inertial>')), 'URDF_MALFORMED_ELEMENT'),
}


@pytest.mark.parametrize('case', LOADED)
def test_what_urdfdom_loads_is_loaded(case: str, tmp_path: Path, capsys):
    document, code = LOADED[case]
    path = write(tmp_path, document)
    assert check_urdf(path).returncode == 0, f'{case}: check_urdf refuses it'
    result = robot_formats.load(path)
    assert code in [w.code for w in result.warnings], [str(w) for w in result.warnings]
    assert cli.main(['check', '--strict', str(path)]) == 1
    capsys.readouterr()


def test_a_mimic_loop_leaves_both_joints_free(tmp_path: Path):
    tree = robot_formats.load(write(tmp_path, LOADED['mimic_loop'][0])).tree
    assert tree.dof_names == ('j', 'k')


# case -> (document, error class): urdfdom refuses these, and so does robot_formats
REFUSED = {
    'version_2_0': (robot(version='2.0'), InvalidValueError),
    'version_1': (robot(version='1'), InvalidValueError),
    'version_1_10': (robot(version='1.10'), InvalidValueError),
    'version_trailing_space': (robot(version='1.1 '), InvalidValueError),
    'inverted_limits_in_urdf_1_2': (robot(version='1.2', limit=(
        '<limit lower="1" upper="-1" effort="1" velocity="1"/>')), InvalidValueError),
    'missing_lower_in_urdf_1_2': (robot(version='1.2', limit=(
        '<limit upper="1" effort="1" velocity="1"/>')), SchemaError),
    'negative_velocity_in_urdf_1_2': (robot(version='1.2', limit=(
        '<limit lower="-1" upper="1" effort="1" velocity="-1"/>')), InvalidValueError),
    'rpy_and_quaternion': (robot(version='1.1', origin='<origin rpy="0 0 1" quat_xyzw="0 0 0 1"/>'),
                           SchemaError),
    'joint_origin_malformed': (robot(origin='<origin xyz="1 2"/>'), InvalidValueError),
    'axis_of_two_numbers': (robot(axis='0 1'), InvalidValueError),
    'mimic_without_joint': (robot(extra='<mimic multiplier="2"/>'), SchemaError),
    'duplicate_material': (robot(more='<material name="m"><color rgba="1 0 0 1"/></material>' * 2),
                           DuplicateNameError),
    'limit_not_a_number': (robot(limit='<limit lower="x" upper="1" effort="1" velocity="1"/>'),
                           InvalidValueError),
}


@pytest.mark.parametrize('case', REFUSED)
def test_what_urdfdom_refuses_is_refused(case: str, tmp_path: Path):
    document, kind = REFUSED[case]
    path = write(tmp_path, document)
    assert check_urdf(path).returncode != 0, f'{case}: check_urdf loads it'
    with pytest.raises(kind) as info:
        robot_formats.load(path)
    assert info.value.file == str(path) and info.value.line == 1


@pytest.mark.parametrize('version', ['1.0', '1.1', '1.2', '+1.1', '01.1', '1.01', ' 1.1'])
def test_versions_urdfdom_reads(version: str, tmp_path: Path):
    path = write(tmp_path, robot(version=version))
    assert check_urdf(path).returncode == 0
    assert not robot_formats.load(path).warnings


# Leniencies robot_formats has always had: urdfdom refuses these files; a warning, and strict
# mode refuses them.
LENIENT = {
    'revolute_without_limit': robot(limit=''),
    'limit_without_effort': robot(limit='<limit lower="-1" upper="1" velocity="1"/>'),
    'dynamics_without_values': robot(extra='<dynamics/>'),
    'safety_without_k_velocity': robot(extra='<safety_controller soft_lower_limit="0"/>'),
    'calibration_not_a_number': robot(extra='<calibration rising="x"/>'),
}


@pytest.mark.parametrize('case', LENIENT)
def test_lenient_cases_warn_that_urdfdom_refuses_them(case: str, tmp_path: Path, capsys):
    path = write(tmp_path, LENIENT[case])
    assert check_urdf(path).returncode != 0
    warnings = robot_formats.load(path).warnings
    assert any('urdfdom refuses this file' in w.message for w in warnings), warnings
    assert cli.main(['check', '--strict', str(path)]) == 1
    capsys.readouterr()

