"""description_publisher serving a composed SDFormat world over real DDS (issue 3, "To ROS").

The world (test/formats/sdformat/fixtures/node/composed_world.sdf) assembles models of four formats:
an included SDFormat composition (the proposal's arm/gripper weld), a DART SKEL pedestal with a
turntable, a HEBI HRDF arm welded on the turntable, a URDF gripper welded to the arm's output
(placed with placement_frame and a quat_xyzw pose), a model with a nested model moved by a
revolute joint, and a cart on a world joint. The node must publish it as ONE URDF tree rooted at
``world`` with libsdformat's scoped names (``station::hebi::actuator_2``), and /tf_static + /tf
must follow /joint_states.

References: urdfdom's check_urdf on the received robot_description, pinocchio's forward
kinematics of that received URDF (independent of our URDF reader and FK), closed forms written
from the SDF file for the door and the cart, and the library's ``KinematicTree.forward``.
"""

from __future__ import annotations

import math
import random
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import robot_formats

from .harness import ROOT, TOL, assert_poses_equal, canonical_xml, run_check_urdf, urdf_names
from .test_description_publisher import (FREQUENCY, Running, library_tree, moving_and_fixed,
                                         random_configuration)

sys.path.insert(0, str(ROOT / 'test' / 'core'))
from rf_testlib import pinocchio_forward  # noqa: E402  (pinocchio reference, shared helper)

WORLD_FILE = ROOT / 'test' / 'formats' / 'sdformat' / 'fixtures' / 'node' / 'composed_world.sdf'

#: Links every format contributed, with the scope libsdformat would give them.
SCOPED_LINKS = {
    'cell::arm::body', 'cell::gripper::body',                   # included SDF composition
    'station::base::pedestal::column', 'station::base::pedestal::turntable',   # SKEL
    'station::hebi::base', 'station::hebi::actuator_2', 'station::hebi::end_effector_5',  # HRDF
    'station::gripper::palm', 'station::gripper::left_finger',   # URDF
    'door::frame', 'door::leaf::panel', 'cart::body',            # nested model, world joint
}
#: Explicit frames, joint frames and model frames kept as fixed links.
SCOPED_FRAMES = {'cell::arm::gripper_mount', 'cell::gripper::mount_point', 'cell::weld',
                 'door::leaf::handle', 'door::leaf', 'door', 'station::hebi', 'station::mount',
                 'station::tool_weld', 'rail', 'station::hebi::end_effector_5/output'}


@pytest.fixture(scope='module')
def composed(module_launcher) -> Running:
    process, ros = module_launcher.publisher(
        'sdf_world', description_file=str(WORLD_FILE), publish_frequency=FREQUENCY)
    return Running(process, ros, WORLD_FILE)


def _parents(urdf: str) -> dict[str, str]:
    root = ET.fromstring(urdf.encode('utf-8'))
    return {j.find('child').get('link'): j.find('parent').get('link')
            for j in root.findall('joint')}


def test_robot_description_is_one_urdf_tree_with_scoped_names(composed: Running,
                                                              tmp_path: Path) -> None:
    composed.wait_latched()
    received = composed.description.last.data
    expected = robot_formats.urdf_string(robot_formats.load(WORLD_FILE).scene)
    assert canonical_xml(received) == canonical_xml(expected)
    result = run_check_urdf(received, tmp_path)
    assert result.returncode == 0, f'check_urdf refused it:\n{result.stdout}\n{result.stderr}'
    assert 'root Link: world' in result.stdout
    links, _ = urdf_names(received)
    assert SCOPED_LINKS | SCOPED_FRAMES <= set(links)
    parents = _parents(received)
    # one tree: every link but world has exactly one parent and reaches world
    assert set(parents) == set(links) - {'world'}
    for link in links:
        seen, node = set(), link
        while node != 'world':
            assert node not in seen, f'loop through {node!r}'
            seen.add(node)
            node = parents[node]
    # the welds of the assembly are edges of that tree
    assert parents['station::hebi::base'] == 'station::base::pedestal::turntable'
    assert parents['station::gripper::palm'] == 'station::hebi::end_effector_5'
    assert parents['cell::gripper::body'] == 'cell::arm::body'
    assert parents['door::leaf::panel'] == 'door::frame'
    assert parents['cart::body'] == 'world'


def _door_and_cart_closed_forms(hinge: float, rail: float) -> dict[str, np.ndarray]:
    """From the SDF text: the door frame at (0 2 0); the leaf's panel 0.5 0 1 from it, turned
    about z by the hinge (whose frame is the panel's); the handle 0.4 along the panel's x; the
    cart body at (2 -1 0.1), slid along world x by the rail."""
    c, s = math.cos(hinge), math.sin(hinge)
    turned = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    out = {}
    for name, xyz, rotation in (('door::frame', (0, 2, 0), np.eye(3)),
                                ('door::leaf::panel', (0.5, 2, 1), turned),
                                ('door::leaf::handle', (0.5 + 0.4 * c, 2 + 0.4 * s, 1), turned),
                                ('cart::body', (2 + rail, -1, 0.1), np.eye(3))):
        pose = np.eye(4)
        pose[:3, :3], pose[:3, 3] = rotation, xyz
        out[name] = pose
    return out


def test_tf_follows_joint_states_like_library_and_pinocchio(composed: Running) -> None:
    composed.wait_latched()
    tree = library_tree(WORLD_FILE)
    assert tree.root == 'world'
    moving, fixed = moving_and_fixed(tree)
    assert {t.child_frame_id for t in composed.tf_static.last.transforms} == fixed
    assert {'station::base::pedestal::turntable', 'station::hebi::actuator_2/output',
            'station::gripper::left_finger', 'door::leaf::panel', 'cart::body'} <= moving
    urdf = composed.description.last.data
    links, _ = urdf_names(urdf)
    rng = random.Random(3)
    for trial in range(4):
        configuration = random_configuration(tree, rng)
        names = sorted(configuration)
        rng.shuffle(names)
        _, messages = composed.send_until_tf(names, [configuration[n] for n in names])
        received = composed.received_poses(messages)
        context = f'configuration {trial} {configuration}: '
        assert_poses_equal(received, tree.forward(configuration), context=context)
        reference = pinocchio_forward(urdf, configuration, links)
        assert_poses_equal(received, reference, tol=1e-9, context='pinocchio, ' + context)
        closed = _door_and_cart_closed_forms(configuration['door::hinge'],
                                             configuration['rail'])
        for name, pose in closed.items():
            assert np.max(np.abs(received[name] - pose)) <= 1e-9, (context, name)


def test_welded_parts_keep_their_mounts_in_every_configuration(composed: Running) -> None:
    """The HEBI base stays on the turntable 0.02 above it, the URDF palm on the HEBI output
    turned 45 degrees about z and 5 mm out (the include's quat_xyzw pose), whatever moves."""
    composed.wait_latched()
    tree = library_tree(WORLD_FILE)
    configuration = random_configuration(tree, random.Random(11))
    names = sorted(configuration)
    _, messages = composed.send_until_tf(names, [configuration[n] for n in names])
    received = composed.received_poses(messages)
    on_turntable = np.linalg.inv(received['station::base::pedestal::turntable']) @ \
        received['station::hebi::base']
    assert np.allclose(on_turntable, _translation(0, 0, 0.02), atol=TOL)
    c = s = math.sqrt(0.5)
    palm_on_output = _translation(0, 0, 0.005)
    palm_on_output[:3, :3] = [[c, -s, 0], [s, c, 0], [0, 0, 1]]
    got = np.linalg.inv(received['station::hebi::end_effector_5/output']) @ \
        received['station::gripper::palm']
    assert np.allclose(got, palm_on_output, atol=TOL)


def _translation(x: float, y: float, z: float) -> np.ndarray:
    out = np.eye(4)
    out[:3, 3] = (x, y, z)
    return out
