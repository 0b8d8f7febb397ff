"""SDFormat 1.8 composition rules of the proposal (shared/specs/sdformat-1.8-model-composition.txt).

Expected poses are computed here from the proposal's definitions with plain matrix algebra (the
placement frame lands on the include pose: X_PM = X_PPf · X_MPf⁻¹; a weld leaves both frames
coincident), independently of robot_formats' frame graphs.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

from robot_formats.core.errors import FormatError
from robot_formats.formats import load
from robot_formats.core.transforms import rpy_to_rotation
from sdf_testlib import sdf, write

FIXTURES = Path(__file__).parent / 'fixtures'


def pose(x=0.0, y=0.0, z=0.0, roll=0.0, pitch=0.0, yaw=0.0) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = rpy_to_rotation((roll, pitch, yaw))
    out[:3, 3] = (x, y, z)
    return out


def inv(matrix: np.ndarray) -> np.ndarray:
    return np.linalg.inv(matrix)


def frames_of(path: Path | str, sdf_config=None) -> dict[str, np.ndarray]:
    tree = load(path, sdf_config=sdf_config).tree
    return tree.forward(np.zeros(len(tree.dof_names)))


def assert_pose(got: np.ndarray, expected: np.ndarray, what: str = '') -> None:
    assert np.allclose(got, expected, atol=1e-9), f'{what}\n{got}\n!=\n{expected}'


# --- proposal example 1: weld arm and gripper -----------------------------------------------------

X_ACA = pose(0.5, 0, 0.2, 0, 0.3, 0)
X_GCG = pose(0, 0, -0.1, 0.2, 0, 1.0)


def test_weld_example_places_gripper_mount_on_arm_mount() -> None:
    frames = frames_of(FIXTURES / 'weld/arm_and_gripper.sdf')
    x_wm = np.eye(4)  # the file's model is placed at the world origin
    assert_pose(frames['arm_and_gripper::arm::gripper_mount'], x_wm @ X_ACA)
    assert_pose(frames['arm_and_gripper::gripper::mount_point'], x_wm @ X_ACA, 'Cg == Ca')
    assert_pose(frames['arm_and_gripper::gripper'], x_wm @ X_ACA @ inv(X_GCG), 'X_MG')
    assert_pose(frames['arm_and_gripper::gripper::body'], x_wm @ X_ACA @ inv(X_GCG))
    # the weld's frame defaults to its child frame, the gripper mount
    assert_pose(frames['arm_and_gripper::weld'], x_wm @ X_ACA)


def test_weld_example_is_one_tree_through_the_weld() -> None:
    tree = load(FIXTURES / 'weld/arm_and_gripper.sdf').tree
    edge = tree.edges['arm_and_gripper::gripper::body']
    assert edge.joint is not None and edge.joint.name == 'arm_and_gripper::weld'
    assert edge.parent == 'arm_and_gripper::arm::body'


def test_negative_weld_example_cannot_reach_outside_its_file() -> None:
    with pytest.raises(FormatError) as info:
        load(FIXTURES / 'weld/BAD_arm_and_gripper.sdf')
    assert info.value.code == 'JOINT_PARENT_LINK_INVALID'
    assert info.value.file.endswith('BAD_gripper_with_weld.sdf') and info.value.line == 6
    assert "'arm::body'" in info.value.message


# --- proposal example 2: arm, flange, gripper -----------------------------------------------------

def test_flange_example_chains_every_placement() -> None:
    frames = frames_of(FIXTURES / 'flange/super_armio_bros.sdf')
    x_ada = pose(0, 0, 1.0, 0, 0, 0.5)
    x_fdf = pose(0, 0, -0.05, math.pi, 0, 0)
    x_gcg = pose(0.02, 0, -0.03, 0, 0.1, 0)
    x_mr1 = pose(1, 2, 0, 0, 0, 0.7)
    x_r1r2 = pose(0, 3, 0, 0, 0, -0.4)
    for robot, x_mr, lift in (('robot_1', x_mr1, 0.1), ('robot_2', x_mr1 @ x_r1r2, 0.15)):
        x_fcf = pose(0, 0, lift, 0, 0, 0.25)
        x_ma = x_mr  # the arm model frame is the robot's frame (include without pose)
        x_mf = x_ma @ x_ada @ inv(x_fdf)
        x_mg = x_mf @ x_fcf @ inv(x_gcg)
        prefix = f'super_armio_bros::{robot}'
        assert_pose(frames[f'{prefix}'], x_mr, robot)
        assert_pose(frames[f'{prefix}::arm::link'], x_ma)
        assert_pose(frames[f'{prefix}::flange'], x_mf, f'{robot} flange')
        assert_pose(frames[f'{prefix}::flange::mount'], x_ma @ x_ada, 'Df == Da')
        assert_pose(frames[f'{prefix}::gripper'], x_mg, f'{robot} gripper')
        assert_pose(frames[f'{prefix}::gripper::mount'], x_mf @ x_fcf, 'Cg == Cf')
        assert_pose(frames[f'{prefix}::weld1'], x_ma @ x_ada)
        assert_pose(frames[f'{prefix}::weld2'], x_mf @ x_fcf)


# --- scoping (proposal 1.3) -----------------------------------------------------------------------

NESTED = '''<model name="top">
  <link name="top_link"/>
  <model name="mid">
    <pose>1 0 0 0 0 0</pose>
    <link name="mid_link"/>
    <frame name="mid_frame"><pose>0 1 0 0 0 0</pose></frame>
    <model name="low">
      <pose relative_to="mid_frame">0 0 1 0 0 0</pose>
      <link name="low_link"/>
    </model>
  </model>
  {extra}
</model>'''


@pytest.mark.parametrize('reference, expected', [
    ('mid', pose(1, 0, 0)),                         # a nested model frame by its name
    ('mid::__model__', pose(1, 0, 0)),              # ... or as name::__model__
    ('mid::mid_frame', pose(1, 1, 0)),              # down one level
    ('mid::low::low_link', pose(1, 1, 1)),          # down two levels
    ('mid::low', pose(1, 1, 1)),
    ('__model__', np.eye(4)),
])
def test_references_go_down_into_nested_models(tmp_path: Path, reference: str,
                                               expected: np.ndarray) -> None:
    extra = f'<frame name="probe"><pose relative_to="{reference}">0 0 0 0 0 0</pose></frame>'
    frames = frames_of(write(tmp_path, 'm.sdf', sdf(NESTED.format(extra=extra))))
    assert_pose(frames['top::probe'], expected)


@pytest.mark.parametrize('body, code', [
    # an outer scope's name is not visible inside a nested model (no shadowing)
    ('<model name="m"><link name="a"/><model name="n"><link name="b"/>'
     '<frame name="f" attached_to="a"/></model></model>', 'FRAME_ATTACHED_TO_INVALID'),
    ('<model name="m"><link name="a"/><model name="n"><link name="b">'
     '<pose relative_to="a"/></link></model></model>', 'POSE_RELATIVE_TO_INVALID'),
    # the include-file's model name is not a scope, only //include/name is
    ('<model name="m"><model name="n"><link name="b"/></model>'
     '<frame name="f" attached_to="x::b"/></model>', 'FRAME_ATTACHED_TO_INVALID'),
    # :: is reserved from 1.8
    ('<model name="m"><link name="a::b"/></model>', 'RESERVED_NAME'),
    ('<model name="m"><link name="__a__"/></model>', 'RESERVED_NAME'),
    ('<model name="m"><frame name="world"/><link name="a"/></model>', 'RESERVED_NAME'),
    ('<model name="m"><link name=""/></model>', 'ATTRIBUTE_MISSING'),
    ('<model name="m"><link name="a"/><frame name="a"/></model>', 'DUPLICATE_NAME'),
    ('<model name="m"><link name="a"/><model name="a"><link name="b"/></model></model>',
     'DUPLICATE_NAME'),
    ('<model name="m"><link name="a"/><joint name="j" type="fixed"><parent>a</parent>'
     '<child>a</child></joint></model>', 'JOINT_PARENT_SAME_AS_CHILD'),
    ('<model name="m"><link name="a"/><frame name="f1" attached_to="f2"/>'
     '<frame name="f2" attached_to="f1"/></model>', 'FRAME_ATTACHED_TO_CYCLE'),
    ('<model name="m"><link name="a"><pose relative_to="f"/></link>'
     '<frame name="f" attached_to="a"><pose relative_to="a"/></frame></model>',
     'POSE_RELATIVE_TO_CYCLE'),
    ('<model name="m"><frame name="f"/></model>', 'MODEL_WITHOUT_LINK'),
    ('<model name="m" canonical_link="nope"><link name="a"/></model>',
     'MODEL_CANONICAL_LINK_INVALID'),
    ('<model name="m" placement_frame="nope"><link name="a"/></model>',
     'POSE_RELATIVE_TO_INVALID'),
])
def test_rule_violations_carry_libsdformat_codes(tmp_path: Path, body: str, code: str) -> None:
    path = write(tmp_path, 'bad.sdf', sdf(body))
    with pytest.raises(FormatError) as info:
        load(path)
    assert info.value.code == code, str(info.value)
    assert info.value.file == str(path) and info.value.line


def test_double_colon_names_are_literal_before_1_8(tmp_path: Path) -> None:
    body = ('<model name="m"><link name="a::b"><pose>1 0 0 0 0 0</pose></link>'
            '<frame name="f" attached_to="a::b"/></model>')
    frames = frames_of(write(tmp_path, 'old.sdf', sdf(body, '1.7')))
    assert_pose(frames['m::f'], pose(1, 0, 0))


def test_frame_as_joint_parent_and_child_resolve_to_links(tmp_path: Path) -> None:
    body = '''<model name="m">
      <link name="a"/>
      <link name="b"><pose>2 0 0 0 0 0</pose></link>
      <frame name="fa" attached_to="a"><pose>0 1 0 0 0 0</pose></frame>
      <frame name="fb" attached_to="b"><pose>0 0 1 0 0 1.5707963267948966</pose></frame>
      <joint name="j" type="revolute">
        <parent>fa</parent><child>fb</child>
        <axis><xyz expressed_in="__model__">1 0 0</xyz></axis>
      </joint>
    </model>'''
    result = load(write(tmp_path, 'frames.sdf', sdf(body)))
    joint = result.tree.joints['m::j']
    assert (joint.parent, joint.child) == ('m::a', 'm::b')
    frames = result.tree.forward(np.zeros(1))
    x_mj = pose(2, 0, 1, 0, 0, math.pi / 2)  # the joint frame defaults to the child frame fb
    assert_pose(frames['m::j'], x_mj)
    # the axis, given in the model frame, is stored in the joint frame
    assert np.allclose(joint.axis, x_mj[:3, :3].T @ np.array([1.0, 0, 0]))
    moved = result.tree.forward(np.array([0.3]))
    rotation = np.eye(4)
    rotation[:3, :3] = rpy_to_rotation((0.3, 0, 0))  # about the model's x through the joint
    assert_pose(moved['m::b'], x_mj @ inv(x_mj) @ _about(x_mj, rotation) @ pose(2, 0, 0))


def _about(frame: np.ndarray, motion_in_world_axes: np.ndarray) -> np.ndarray:
    """The rigid motion rotating about ``frame``'s origin with world-aligned rotation."""
    to_origin = pose(*frame[:3, 3])
    return to_origin @ motion_in_world_axes @ inv(to_origin)


# --- //include ------------------------------------------------------------------------------------

CHILD = '''<model name="child" placement_frame="tip">
  <pose>0 0 5 0 0 0</pose>
  <link name="base"/>
  <frame name="tip"><pose>0 0 1 0 0 0</pose></frame>
</model>'''


@pytest.mark.parametrize('include, expected', [
    # no //include/pose: the model's own pose (with its own placement frame) stays
    ('', pose(0, 0, 4)),
    # //include/pose given: it places the placement frame of the model (attribute stays)
    ('<pose>1 0 0 0 0 0</pose>', pose(1, 0, -1)),
    # //include/placement_frame overrides the model's attribute
    ('<pose>1 0 0 0 0 0</pose><placement_frame>base</placement_frame>', pose(1, 0, 0)),
    # empty pose = identity, replacing the model's pose
    ('<pose/>', pose(0, 0, -1)),
    # relative_to in the enclosing scope
    ('<pose relative_to="anchor">0 0 0 0 0 0</pose><placement_frame>__model__</placement_frame>',
     pose(0, 7, 0)),
])
def test_include_pose_and_placement(tmp_path: Path, include: str, expected: np.ndarray) -> None:
    write(tmp_path, 'child.sdf', sdf(CHILD))
    body = f'''<model name="top"><link name="l"/><frame name="anchor"><pose>0 7 0 0 0 0</pose>
      </frame><include><uri>child.sdf</uri>{include}</include></model>'''
    frames = frames_of(write(tmp_path, 'top.sdf', sdf(body)))
    assert_pose(frames['top::child'], expected)


def test_placement_frame_needs_a_pose(tmp_path: Path) -> None:
    write(tmp_path, 'child.sdf', sdf(CHILD))
    body = ('<model name="top"><link name="l"/><include><uri>child.sdf</uri>'
            '<placement_frame>base</placement_frame></include></model>')
    with pytest.raises(FormatError) as info:
        load(write(tmp_path, 'top.sdf', sdf(body)))
    assert info.value.code == 'MODEL_PLACEMENT_FRAME_INVALID' and info.value.line


def test_include_name_static_frame_and_joint(tmp_path: Path) -> None:
    write(tmp_path, 'models/child.sdf', sdf(CHILD))
    body = '''<world name="w">
      <include>
        <uri>models/child.sdf</uri><name>renamed</name><static>true</static>
        <pose>0 0 0 0 0 0</pose>
        <frame name="added" attached_to="base"><pose>3 0 0 0 0 0</pose></frame>
      </include>
    </world>'''
    result = load(write(tmp_path, 'w.sdf', sdf(body)))
    model = next(m for m in result.scene.models if m.name == 'renamed')
    assert model.static
    frames = result.tree.forward()
    assert_pose(frames['renamed::added'], pose(3, 0, -1))


def test_include_resolves_relative_to_the_including_file(tmp_path: Path, monkeypatch) -> None:
    """libsdformat resolves relative URIs against the process's directory; we deliberately use
    the including file's directory, so a document means the same wherever it is loaded from."""
    write(tmp_path, 'a/b/child.sdf', sdf(CHILD))
    write(tmp_path, 'a/mid.sdf', sdf('<model name="mid"><include><uri>file://b/child.sdf</uri>'
                                     '</include></model>'))
    top = write(tmp_path, 'top.sdf', sdf('<world name="w"><include><uri>a/mid.sdf</uri>'
                                         '</include></world>'))
    monkeypatch.chdir('/')
    assert 'mid::child::base' in frames_of(top)


def test_model_uri_through_search_path_and_model_config(tmp_path: Path, monkeypatch) -> None:
    write(tmp_path, 'models/thing/model.config', '''<?xml version="1.0"?><model><name>thing</name>
      <sdf version="1.6">old.sdf</sdf><sdf version="1.8">new.sdf</sdf>
      <sdf version="2.0">future.sdf</sdf></model>''')
    write(tmp_path, 'models/thing/new.sdf', sdf('<model name="new"><link name="l"/></model>'))
    write(tmp_path, 'models/thing/old.sdf', sdf('<model name="old"><link name="l"/></model>'))
    top = write(tmp_path, 'w/top.sdf', sdf('<world name="w"><include><uri>model://thing</uri>'
                                           '</include></world>'))
    monkeypatch.setenv('GZ_SIM_RESOURCE_PATH', str(tmp_path / 'models'))
    assert 'new::l' in frames_of(top)  # highest version robot_formats reads
    monkeypatch.delenv('GZ_SIM_RESOURCE_PATH')
    monkeypatch.setenv('SDF_PATH', os.pathsep.join(['/nonexistent', str(tmp_path / 'models')]))
    assert 'new::l' in frames_of(top)


def test_package_uri_through_package_map(tmp_path: Path) -> None:
    import robot_formats.formats.sdformat as sdformat
    write(tmp_path, 'pkg/models/child.sdf', sdf(CHILD))
    top = write(tmp_path, 'top.sdf', sdf('<world name="w"><include><uri>package://my_pkg/models/'
                                         'child.sdf</uri></include></world>'))
    mapped = sdformat.ResolverConfig(package_map={'my_pkg': tmp_path / 'pkg'})
    assert 'child::base' in frames_of(top, mapped)
    with pytest.raises(FormatError) as info:
        load(top)
    assert info.value.code == 'URI_LOOKUP' and 'my_pkg' in info.value.message


@pytest.mark.parametrize('uri', ['https://fuel.gazebosim.org/1.0/OpenRobotics/models/x',
                                 'http://example.com/model.sdf'])
def test_network_uris_are_refused(tmp_path: Path, uri: str, monkeypatch) -> None:
    """Nothing is downloaded: a Fuel model must be in the local cache (test_real_world_sdf.py),
    any other web URI is refused."""
    monkeypatch.setenv('GZ_FUEL_CACHE_PATH', str(tmp_path / 'no_cache'))
    monkeypatch.setenv('HOME', str(tmp_path))
    top = write(tmp_path, 'top.sdf', sdf(f'<world name="w"><include><uri>{uri}</uri>'
                                         '</include></world>'))
    with pytest.raises(FormatError) as info:
        load(top)
    expected = 'not in the local Fuel cache' if 'fuel' in uri else 'network'
    assert info.value.code == 'URI_LOOKUP' and expected in info.value.message
    assert info.value.line == 3


def test_include_cycle_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, 'a.sdf', sdf('<model name="a"><link name="l"/><include><uri>b.sdf</uri>'
                                 '</include></model>'))
    write(tmp_path, 'b.sdf', sdf('<model name="b"><link name="l"/><include><uri>a.sdf</uri>'
                                 '</include></model>'))
    with pytest.raises(FormatError) as info:
        load(tmp_path / 'a.sdf')
    assert 'cycle' in info.value.message and 'a.sdf -> b.sdf -> a.sdf' in info.value.message


def test_include_depth_is_bounded(tmp_path: Path) -> None:
    import robot_formats.formats.sdformat as sdformat
    for level in range(6):
        write(tmp_path, f'm{level}.sdf', sdf(f'<model name="m{level}"><link name="l"/>'
                                             f'<include><uri>m{level + 1}.sdf</uri></include>'
                                             '</model>'))
    write(tmp_path, 'm6.sdf', sdf('<model name="m6"><link name="l"/></model>'))
    assert 'm0::m1::m2::m3::m4::m5::m6::l' in frames_of(tmp_path / 'm0.sdf')
    with pytest.raises(FormatError) as info:
        load(tmp_path / 'm0.sdf', sdf_config=sdformat.ResolverConfig(max_depth=4))
    assert 'deeper than 4' in info.value.message


def test_merge_include_joins_the_parent_model(tmp_path: Path) -> None:
    write(tmp_path, 'part.sdf', sdf('''<model name="part"><link name="body">
      <pose>0 0 1 0 0 0</pose></link><frame name="tip" attached_to="body">
      <pose>0 0 1 0 0 0</pose></frame></model>'''))
    body = '''<model name="robot"><include merge="true"><uri>part.sdf</uri>
      <pose>5 0 0 0 0 0</pose></include><frame name="probe" attached_to="tip"/></model>'''
    frames = frames_of(write(tmp_path, 'robot.sdf', sdf(body)))
    assert_pose(frames['robot::body'], pose(5, 0, 1))
    assert_pose(frames['robot::tip'], pose(5, 0, 2))
    assert_pose(frames['robot::_merged__part__model__'], pose(5, 0, 0))
    assert_pose(frames['robot::probe'], pose(5, 0, 2))


def test_world_joint_welds_two_models(tmp_path: Path) -> None:
    body = '''<world name="w">
      <model name="a"><pose>1 0 0 0 0 0</pose><link name="l"/></model>
      <model name="b"><pose>0 2 0 0 0 0</pose><link name="l"/></model>
      <joint name="weld" type="fixed"><parent>a::l</parent><child>b::l</child></joint>
    </world>'''
    result = load(write(tmp_path, 'w.sdf', sdf(body, '1.10')))
    edge = result.tree.edges['b::l']
    assert edge.parent == 'a::l' and edge.joint is not None and edge.joint.name == 'weld'
    assert_pose(result.tree.forward()['weld'], pose(0, 2, 0))


def test_undeclared_namespace_prefixes_are_accepted(tmp_path: Path) -> None:
    body = '''<model name="m"><link name="l"><custom:data value="1"/></link>
      <mysim:plugin mysim:name="x"/></model>'''
    assert 'm::l' in frames_of(write(tmp_path, 'ns.sdf', sdf(body)))
