"""Two defects of the SDFormat frame graph, fixed (issue 16), on URDF models included in
SDFormat: URDF keeps joints and links in separate namespaces, so a joint may be named like a
link; its frame then has no name in the SDFormat scope (``SdfJoint.has_frame``).

1. After the first such joint, every later joint of the model lost its frame (the kind of the
   first leaked into the others): they vanished from the tree.
2. A joint named like its own child link was refused as "the joint is its own child".

The reference is the URDF itself, loaded directly, and pinocchio (urdfdom inside).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robot_formats.formats import load

from rf_testlib import pinocchio_forward, urdf_joint_values

#: joints named like links: 'upper' (its own child) comes first, then ordinary joints
URDF = '''<?xml version="1.0"?>
<robot name="arm">
  <link name="base"/>
  <link name="upper"/>
  <link name="lower"/>
  <link name="hand"/>
  <joint name="upper" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="lower"/>
    <origin xyz="0.4 0 0" rpy="0 0.2 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="base" type="prismatic"><parent link="lower"/><child link="hand"/>
    <origin xyz="0.3 0 0"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.2" effort="1" velocity="1"/></joint>
</robot>
'''
Q = {'upper': 0.7, 'elbow': -0.4, 'base': 0.1}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    urdf = tmp_path / 'arm.urdf'
    urdf.write_text(URDF)
    world = tmp_path / 'world.sdf'
    world.write_text('<?xml version="1.0"?>\n<sdf version="1.8"><world name="w">'
                     '<include><uri>arm.urdf</uri><name>arm</name>'
                     '<pose>1 2 0 0 0 0.5</pose></include></world></sdf>\n')
    return urdf, world


def test_every_joint_of_an_included_urdf_keeps_its_frame(files) -> None:
    urdf, world = files
    tree = load(world).tree
    assert set(tree.dof_names) == {'arm::upper', 'arm::elbow', 'arm::base'}
    poses = tree.forward({f'arm::{name}': value for name, value in Q.items()})
    # the joint frame of 'elbow' (a joint after the frameless 'upper'): at its child link, as
    # a URDF joint frame is; before the fix it was missing from the tree
    assert np.allclose(poses['arm::elbow'], poses['arm::lower'], atol=1e-12)
    direct = load(urdf).tree.forward(Q)
    placement = poses['arm::base']
    for link in ('upper', 'lower', 'hand'):
        relative = np.linalg.inv(placement) @ poses[f'arm::{link}']
        assert np.allclose(relative, direct[link], atol=1e-12), link
    oracle = pinocchio_forward(urdf.read_text(), urdf_joint_values(urdf.read_bytes(), Q),
                               ['base', 'upper', 'lower', 'hand'])
    for link in ('upper', 'lower', 'hand'):
        assert np.allclose(np.linalg.inv(oracle['base']) @ oracle[link], direct[link],
                           atol=1e-9), link


def test_a_joint_named_like_its_child_link_is_not_its_own_child(files) -> None:
    _, world = files
    result = load(world)  # refused before the fix: "the joint is its own child"
    assert 'arm::upper' in result.tree.joints
    assert result.tree.joints['arm::upper'].child == 'arm::upper'


def test_an_sdformat_joint_named_like_its_child_stays_refused(tmp_path: Path) -> None:
    """In SDFormat itself joints and links share one namespace: still an error."""
    path = tmp_path / 'bad.sdf'
    path.write_text('<sdf version="1.8"><model name="m"><link name="a"/><link name="b"/>'
                    '<joint name="b" type="fixed"><parent>a</parent><child>b</child></joint>'
                    '</model></sdf>')
    from robot_formats.core.errors import FormatError
    with pytest.raises(FormatError):
        load(path)
