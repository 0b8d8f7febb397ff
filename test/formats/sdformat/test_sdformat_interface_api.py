"""Models of other formats inside SDFormat: the interface API (proposal 1.5) and the built-in
URDF / SKEL / HRDF converters.

References: pinocchio's forward kinematics of the included URDF, DART's body frames of the
included SKEL world (shared/goldens/skel), HEBI's frames for the included HRDF kit (through the
HRDF reader, which test/formats/hrdf proves against hebi-py), and hand algebra for custom models.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import robot_formats.formats.sdformat as sdformat
from robot_formats.core.errors import FormatError
from robot_formats.formats import load
from robot_formats.core.model import Pose
from robot_formats.core.transforms import quat_to_rotation, rpy_to_rotation

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / 'core'))
from rf_testlib import pinocchio_forward  # noqa: E402  (pinocchio reference, shared helper)
from shared_data import shared  # noqa: E402  (shared/ beside the clone)

FIXTURES = Path(__file__).parent / 'fixtures'
SKEL = shared('corpus', 'skel', 'dartsim_dart', 'data', 'skel', 'test',
              'double_pendulum_with_ground.skel')
SKEL_GOLDEN = shared('goldens', 'skel', 'dartsim_dart', 'data', 'skel', 'test',
                     'double_pendulum_with_ground.skel.json')
HRDF = shared('corpus', 'hrdf', 'hebi_description', 'config', 'arms', 'hrdf', 'A-2085-03.hrdf')


def pose(x=0.0, y=0.0, z=0.0, roll=0.0, pitch=0.0, yaw=0.0) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = rpy_to_rotation((roll, pitch, yaw))
    out[:3, 3] = (x, y, z)
    return out


def assert_pose(got: np.ndarray, expected: np.ndarray, what: str = '') -> None:
    assert np.allclose(got, expected, atol=1e-9), f'{what}\n{got}\n!=\n{expected}'


X_W_ARM = pose(1, 2, 0.5, 0, 0, 0.4)
X_W_DART = pose(-1, 0, 0, math.pi / 2, 0, 0)
X_W_HEBI = pose(0, -2, 0, 0, 0, 1.0)


def assembly(tmp_path: Path) -> Path:
    """One world: a URDF arm with an SDF gripper welded to its tool, a DART SKEL world and a
    HEBI kit, each placed by its include pose."""
    text = f'''<?xml version="1.0"?>
<sdf version="1.8">
  <world name="assembly">
    <model name="robot">
      <include>
        <uri>file://{FIXTURES / 'assembly/arm.urdf'}</uri><name>arm</name>
        <pose>1 2 0.5 0 0 0.4</pose>
      </include>
      <include>
        <uri>file://{FIXTURES / 'assembly/gripper.sdf'}</uri>
        <placement_frame>mount</placement_frame>
        <pose relative_to="arm::tool"/>
      </include>
      <joint name="weld" type="fixed">
        <parent>arm::tool</parent><child>gripper::mount</child>
      </joint>
    </model>
    <include><uri>file://{SKEL}</uri><name>dart</name>
      <pose>-1 0 0 1.5707963267948966 0 0</pose></include>
    <include><uri>file://{HRDF}</uri><name>hebi</name><pose>0 -2 0 0 0 1.0</pose></include>
  </world>
</sdf>
'''
    path = tmp_path / 'assembly.sdf'
    path.write_text(text)
    return path


def test_urdf_arm_and_sdf_gripper_match_pinocchio(tmp_path: Path) -> None:
    result = load(assembly(tmp_path))
    tree = result.tree
    q = {'shoulder': 0.7, 'elbow': -0.4, 'slide': 0.15}
    ours = tree.forward({f'robot::arm::{k}': v for k, v in q.items()})
    reference = pinocchio_forward(FIXTURES / 'assembly/arm.urdf', q,
                                  ['base', 'upper', 'fore', 'tool'])
    for link, x_base_link in reference.items():
        assert_pose(ours[f'robot::arm::{link}'], X_W_ARM @ x_base_link, link)
    # the gripper moves with the tool: its mount frame stays on the tool frame
    x_w_tool = X_W_ARM @ reference['tool']
    assert_pose(ours['robot::gripper::mount'], x_w_tool, 'gripper mount on the tool')
    assert_pose(ours['robot::gripper::palm'], x_w_tool @ np.linalg.inv(pose(0, 0, -0.01)))
    # URDF limits came through the conversion
    assert result.tree.joints['robot::arm::elbow'].limits[0].upper == 2.0


def test_skel_world_matches_dart(tmp_path: Path) -> None:
    golden = json.loads(SKEL_GOLDEN.read_text())
    tree = load(assembly(tmp_path)).tree
    config = golden['skeletons'][0]['configurations'][0]
    positions = dict(zip(golden['skeletons'][0]['dof_names'], config['positions']))
    ours = tree.forward({f'dart::double_pendulum::{k}': v for k, v in positions.items()})
    for body, expected in config['body_world_transforms'].items():
        x_body = np.eye(4)
        x_body[:3, :3] = quat_to_rotation(expected['quat'])
        x_body[:3, 3] = expected['xyz']
        assert_pose(ours[f'dart::double_pendulum::{body}'], X_W_DART @ x_body, body)


def test_hrdf_kit_is_placed_by_its_include(tmp_path: Path) -> None:
    alone = load(HRDF).tree
    tree = load(assembly(tmp_path)).tree
    q = np.linspace(0.1, 0.5, len(alone.dof_names))
    reference = alone.forward(q)
    ours = tree.forward({f'hebi::{name}': value for name, value in zip(alone.dof_names, q)})
    for frame, x_root_frame in reference.items():
        if frame == alone.root:
            continue
        assert_pose(ours[f'hebi::{frame}'], X_W_HEBI @ reference[alone.root] @ x_root_frame,
                    frame)


def test_assembly_is_one_tree_under_world(tmp_path: Path) -> None:
    tree = load(assembly(tmp_path)).tree
    assert tree.root == 'world'
    assert tree.edges['robot::gripper::palm'].parent == 'robot::arm::tool'


# --- custom model parsers (interface API) ---------------------------------------------------------

def _toy_parser(seen: list):
    """A parser for ``.toy`` JSON files: {"canonical": ..., "links": {name: [x y z r p y]},
    "frames": {name: [attached_to, [x y z r p y]]}}."""

    def parse(include: sdformat.NestedInclude, errors: list):
        if not include.resolved_file_name.endswith('.toy'):
            return None
        data = json.loads(Path(include.resolved_file_name).read_text())
        if 'error' in data:
            errors.append(data['error'])
            return None
        seen.append(include)

        def as_pose(values):
            return Pose.from_xyz_rpy(values[:3], values[3:])

        links = {name: as_pose(v) for name, v in data['links'].items()}
        canonical = data['canonical']
        x_lc_m = _inverse_pose(links[canonical])
        model = sdformat.InterfaceModel(include.local_model_name or 'toy', canonical, x_lc_m,
                                        reposture=lambda graph: seen.append(graph))
        for name, link_pose in links.items():
            model.add_link(sdformat.InterfaceLink(name, link_pose))
        for name, (attached, values) in data.get('frames', {}).items():
            model.add_frame(sdformat.InterfaceFrame(name, attached, as_pose(values)))
        return model

    return parse


def _inverse_pose(p: Pose) -> Pose:
    from robot_formats.core.transforms import matrix_to_pose, pose_to_matrix
    return matrix_to_pose(np.linalg.inv(pose_to_matrix(p)))


@pytest.fixture
def toy(tmp_path: Path):
    seen: list = []
    parser = _toy_parser(seen)
    config = sdformat.ResolverConfig()
    config.register_custom_model_parser(parser)
    (tmp_path / 'thing.toy').write_text(json.dumps({
        'canonical': 'core',
        'links': {'core': [0, 0, 1, 0, 0, 0], 'arm': [1, 0, 1, 0, 0, 1.5707963267948966]},
        'frames': {'port': ['arm', [0, 0.5, 0, 0, 0, 0]]}}))
    yield tmp_path, seen, config


def test_custom_model_frames_join_the_graphs(toy) -> None:
    folder, seen, config = toy
    (folder / 'top.sdf').write_text('''<?xml version="1.0"?><sdf version="1.8">
      <world name="w"><model name="top">
        <link name="base"><pose>0 0 2 0 0 0</pose></link>
        <include><uri>thing.toy</uri><name>thing</name>
          <placement_frame>port</placement_frame>
          <pose relative_to="base">0 0 0 0 0 0</pose></include>
        <frame name="probe" attached_to="thing::arm"><pose>0 0 0 0 0 0</pose></frame>
        <joint name="fix" type="fixed"><parent>base</parent><child>thing::core</child></joint>
      </model></world></sdf>''')
    tree = load(folder / 'top.sdf', sdf_config=config).tree
    frames = tree.forward()
    # the custom model's port frame lands on the include pose (base): X_WM = X_WB · X_MP⁻¹
    x_mp = pose(1, 0, 1, 0, 0, math.pi / 2) @ pose(0, 0.5, 0)
    x_wm = pose(0, 0, 2) @ np.linalg.inv(x_mp)
    assert_pose(frames['top::thing'], x_wm)
    assert_pose(frames['top::thing::port'], pose(0, 0, 2))
    assert_pose(frames['top::probe'], x_wm @ pose(1, 0, 1, 0, 0, math.pi / 2))
    assert tree.edges['top::thing::core'].parent == 'top::base'
    include, graph = seen[0], seen[1]
    assert (include.local_model_name, include.absolute_model_name) == ('thing', 'top::thing')
    assert include.uri == 'thing.toy' and include.is_static is None
    # the reposture callback sees the resolved poses
    from robot_formats.core.transforms import pose_to_matrix
    assert_pose(pose_to_matrix(graph.model_pose_in_world()), x_wm)
    assert_pose(pose_to_matrix(graph.frame_pose('port', 'core')),
                np.linalg.inv(pose(0, 0, 1)) @ x_mp)


def test_latest_parser_first_and_none_falls_through(toy) -> None:
    folder, seen, config = toy
    calls = []

    def declines(include, errors):
        calls.append('declines')
        return None

    config.register_custom_model_parser(declines)
    try:
        assert config.custom_model_parsers()[0] is declines
        (folder / 'w.sdf').write_text('<sdf version="1.8"><world name="w"><include>'
                                      '<uri>thing.toy</uri></include></world></sdf>')
        assert 'toy::arm' in load(folder / 'w.sdf', sdf_config=config).tree.links
        assert calls == ['declines'] and len(seen) == 2
    finally:
        config.unregister_custom_model_parser(declines)
    assert config.custom_model_parsers()[0] is not declines


def test_custom_parser_errors_become_format_errors(toy) -> None:
    folder, _, config = toy
    (folder / 'bad.toy').write_text(json.dumps({'error': 'bad toy'}))
    (folder / 'w.sdf').write_text('<sdf version="1.8"><world name="w"><include>'
                                  '<uri>bad.toy</uri></include></world></sdf>')
    with pytest.raises(FormatError) as info:
        load(folder / 'w.sdf', sdf_config=config)
    assert 'bad toy' in info.value.message and info.value.file.endswith('bad.toy')


def test_custom_parsers_are_never_asked_for_sdf_and_win_over_urdf(toy) -> None:
    folder, seen, config = toy
    asked = []

    def everything(include, errors):
        asked.append(include.resolved_file_name)
        return sdformat.InterfaceModel('custom', 'only', links=[sdformat.InterfaceLink('only')])

    config.register_custom_model_parser(everything)
    try:
        (folder / 'w.sdf').write_text(f'''<sdf version="1.8"><world name="w">
          <include><uri>file://{FIXTURES / 'assembly/gripper.sdf'}</uri></include>
          <include><uri>file://{FIXTURES / 'assembly/arm.urdf'}</uri><name>arm</name></include>
          </world></sdf>''')
        tree = load(folder / 'w.sdf', sdf_config=config).tree
        assert asked == [str(FIXTURES / 'assembly/arm.urdf')]
        assert 'arm::only' in tree.links and 'gripper::palm' in tree.links
    finally:
        config.unregister_custom_model_parser(everything)


def test_hrdf_kit_is_a_free_model_that_can_be_welded() -> None:
    """HEBI's ``world`` is the kit's mounting frame, not the SDF world: an included kit has no
    joint to the world, so a weld puts it on a DART turntable without a kinematic loop."""
    world = FIXTURES / 'node' / 'composed_world.sdf'
    result = load(world)
    assert result.warnings == ()
    edge = result.tree.edges['station::hebi::base']
    assert edge.parent == 'station::base::pedestal::turntable'
    assert edge.joint is not None and edge.joint.name == 'station::mount'
    poses = result.tree.forward({'station::base::pedestal::turn': 0.8})
    on_turntable = np.linalg.inv(poses['station::base::pedestal::turntable']) @ \
        poses['station::hebi::base']
    assert_pose(on_turntable, pose(0, 0, 0.02))
