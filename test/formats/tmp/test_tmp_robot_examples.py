"""The TMP examples whose robot is not a URDF: hebi_sorting.xml (an HRDF kit) and
scara_packing.xml (an SDFormat model).

References, all independent of robot_formats: the file's numbers through plain matrix products
(row-major 3x4 poses, Rodrigues), hebi-py's forward kinematics of the HRDF kit (in a
subprocess, as test/formats/hrdf does), and the SCARA's forward kinematics written out by hand
from its SDF file.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robot_formats.core import errors
from robot_formats.formats import read_problem

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / 'examples' / 'tmp'
HEBI = EXAMPLES / 'hebi_sorting.xml'
SCARA = EXAMPLES / 'scara_packing.xml'
HEBI_ORACLE = ROOT / 'test' / 'formats' / 'hrdf' / 'hebi_oracle.py'
TOL = 1e-9

HEBI_BASE = '1.0 0.0 0.0 0.2 0.0 1.0 0.0 0.0 0.0 0.0 1.0 0.72'
HEBI_ARM = [-0.5, 0.9, 1.8, 0.8, 0.0]  # <arm> of hebi_sorting.xml
SCARA_BASE = '1.0 0.0 0.0 -0.35 0.0 1.0 0.0 0.0 0.0 0.0 1.0 0.72'


def row_major(text: str) -> np.ndarray:
    m = np.eye(4)
    m[:3, :] = np.array([float(v) for v in text.split()]).reshape(3, 4)
    return m


def rotation(axis, angle) -> np.ndarray:
    """4x4 rotation about an axis (Rodrigues)."""
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    out = np.eye(4)
    out[:3, :3] = np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx
    return out


def translation(x, y, z) -> np.ndarray:
    out = np.eye(4)
    out[:3, 3] = (x, y, z)
    return out


def homogeneous(item: dict) -> np.ndarray:
    x, y, z, w = np.asarray(item['quat'], float) / np.linalg.norm(item['quat'])
    out = np.eye(4)
    out[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                   [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                   [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    out[:3, 3] = item['xyz']
    return out


def cli_json(*args: str) -> dict:
    done = subprocess.run([sys.executable, '-m', 'robot_formats.cli', *args, '--json'],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def scara_tool_frame(q_shoulder, q_elbow, lift, q_wrist) -> np.ndarray:
    """models/scara.sdf by hand: shoulder 0.3 above the base, elbow 0.3 out and 0.06 up, quill
    0.25 out, lift along z, wrist 0.05 below the quill, tool frame 0.02 below turned by pi
    about x; every revolute joint turns about z."""
    return (translation(0, 0, 0.3) @ rotation((0, 0, 1), q_shoulder)
            @ translation(0.3, 0, 0.06) @ rotation((0, 0, 1), q_elbow)
            @ translation(0.25, 0, lift) @ translation(0, 0, -0.05)
            @ rotation((0, 0, 1), q_wrist) @ translation(0, 0, -0.02)
            @ rotation((1, 0, 0), math.pi))


@pytest.fixture(scope='module')
def hebi_frames() -> dict:
    return cli_json('frames', str(HEBI))


@pytest.fixture(scope='module')
def scara_frames() -> dict:
    return cli_json('frames', str(SCARA))


# --- loading and the configuration mapping ----------------------------------------------------

def test_both_examples_load_cleanly_and_map_their_configuration_tags():
    warnings: list = []
    hebi = read_problem(HEBI, warnings).robots['hebi']
    assert hebi.format == 'hrdf' and hebi.dof_names == ('base_yaw', 'shoulder', 'elbow',
                                                        'wrist1', 'wrist2')
    assert hebi.joint_positions == dict(zip(hebi.dof_names, HEBI_ARM))  # via the mapping YAML
    packer = read_problem(SCARA, warnings).robots['packer']
    assert packer.format == 'sdf'
    assert packer.joint_positions == {'scara::shoulder': 0.3, 'scara::elbow': -0.6,
                                      'scara::wrist': 0.3, 'scara::lift': -0.12}
    assert warnings == []


def test_ammapping_names_must_be_the_models_joints(tmp_path):
    """The SDF model's joints are scoped: an unscoped name is not one of its joints."""
    broken = tmp_path / 'scara_packing.xml'
    broken.write_text(SCARA.read_text().replace('models/scara.sdf', str(EXAMPLES / 'models' /
                                                                         'scara.sdf'))
                      .replace('<joints>scara::shoulder', '<joints>shoulder', 1))
    (tmp_path / 'scara_packing.mapping.yaml').write_text(
        (EXAMPLES / 'scara_packing.mapping.yaml').read_text())
    with pytest.raises(errors.ReferenceError, match="names joint 'shoulder', which no robot"):
        read_problem(broken)


# --- frames --json: objects, robot bases, the robots' own kinematics -------------------------

def test_frames_json_of_the_hrdf_problem(hebi_frames):
    assert list(hebi_frames['objects']) == ['bench', 'bin', 'block1', 'block2', 'can']
    block2 = hebi_frames['objects']['block2']
    assert block2['parent'] == 'block1' and block2['moveable'] is True
    np.testing.assert_allclose(
        homogeneous(block2),
        row_major('0.0 -1.0 0.0 0.55 1.0 0.0 0.0 -0.1 0.0 0.0 1.0 0.795'), atol=TOL)
    robot = hebi_frames['robots']['hebi']
    assert robot['format'] == 'hrdf' and robot['movebase'] is False
    np.testing.assert_allclose(homogeneous(robot), row_major(HEBI_BASE), atol=TOL)


def test_the_hrdf_arm_is_where_hebi_py_puts_it(hebi_frames, tmp_path):
    spec = tmp_path / 'spec.json'
    spec.write_text(json.dumps([{'path': str(EXAMPLES / 'models' / 'hebi_arm.hrdf'),
                                 'q': HEBI_ARM}]))
    done = subprocess.run([sys.executable, str(HEBI_ORACLE), str(spec)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (hebi,) = json.loads(done.stdout)
    assert hebi['ok'], hebi.get('error')
    end_effector = row_major(HEBI_BASE) @ np.array(hebi['frames']['endeffector'][0])
    np.testing.assert_allclose(homogeneous(hebi_frames['frames']['hebi::gripper/output']),
                               end_effector, atol=1e-6)
    wrist2_output = row_major(HEBI_BASE) @ np.array(hebi['frames']['output'][-2])
    np.testing.assert_allclose(homogeneous(hebi_frames['frames']['hebi::wrist2/output']),
                               wrist2_output, atol=1e-6)


def test_frames_json_of_the_sdf_problem(scara_frames):
    assert list(scara_frames['objects']) == ['bench', 'fixture', 'parts_box', 'peg1',
                                             'washer1', 'washer2']
    assert scara_frames['objects']['peg1']['parent'] == 'fixture'
    robot = scara_frames['robots']['packer']
    assert robot['format'] == 'sdf' and robot['base_frame'] == 'packer::base'
    np.testing.assert_allclose(homogeneous(robot), row_major(SCARA_BASE), atol=TOL)
    expected = row_major(SCARA_BASE) @ scara_tool_frame(0.3, -0.6, -0.12, 0.3)
    np.testing.assert_allclose(homogeneous(scara_frames['frames']['packer::scara::tool_frame']),
                               expected, atol=TOL)


# --- grasps and placements against plain matrix products -------------------------------------

def test_grasps_of_the_hrdf_problem():
    document = cli_json('grasps', str(HEBI), '--object', 'block2')
    block2 = row_major('0.0 -1.0 0.0 0.55 1.0 0.0 0.0 -0.1 0.0 0.0 1.0 0.795')
    frames = ['1.0 0.0 0.0 0.0 0.0 -1.0 0.0 0.0 0.0 0.0 -1.0 0.02',
              '0.0 1.0 0.0 0.0 1.0 0.0 0.0 0.0 0.0 0.0 -1.0 0.02']
    assert [g['id'] for g in document['grasps']] == ['gf0', 'gf1']
    for grasp, frame in zip(document['grasps'], frames):
        np.testing.assert_allclose(homogeneous(grasp), block2 @ row_major(frame), atol=TOL)
    document = cli_json('grasps', str(HEBI), '--object', 'can', '--samples', '36',
                        '--type', 'side')
    can = row_major('1.0 0.0 0.0 0.5 0.0 1.0 0.0 0.12 0.0 0.0 1.0 0.77')
    template = row_major('0.0 0.0 1.0 -0.03 0.0 1.0 0.0 0.0 -1.0 0.0 0.0 0.0')
    assert len(document['grasps']) == 36
    for k, grasp in enumerate(document['grasps']):
        assert grasp['id'] == f'gc0/{k}' and grasp['type'] == 'side'
        expected = can @ rotation((0, 0, 1), 2 * math.pi * k / 36) @ template
        np.testing.assert_allclose(homogeneous(grasp), expected, atol=TOL)


def test_placements_in_the_turned_bin_and_on_a_block():
    bin_pose = row_major('0.0 -1.0 0.0 0.8 1.0 0.0 0.0 0.2 0.0 0.0 1.0 0.72')
    document = cli_json('placements', str(HEBI), '--object', 'block2', '--on', 'bin',
                        '--samples', '10')
    on_side = np.eye(4)
    on_side[:3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
    for i, item in enumerate(document['placements']):
        pose = homogeneous(item)
        point = np.linalg.inv(bin_pose) @ (pose[:, 3] - [0, 0, 0.025, 0])  # under the centre
        assert -0.12 <= point[0] <= 0.12 and -0.09 <= point[1] <= 0.09
        assert abs(point[2] - 0.01) < TOL
        template = np.eye(4) if i % 2 == 0 else on_side
        np.testing.assert_allclose(pose[:3, :3],
                                   (rotation((0, 0, 1), 2 * math.pi * (i // 2) / 5)
                                    @ template)[:3, :3], atol=TOL)
    document = cli_json('placements', str(HEBI), '--object', 'can', '--on', 'block1',
                        '--samples', '2')
    for item in document['placements']:  # block1's SSSP is the point on top of it
        np.testing.assert_allclose(item['xyz'], [0.55, -0.1, 0.745 + 0.025 + 0.05], atol=TOL)


def test_grasps_and_placements_of_the_sdf_problem():
    document = cli_json('grasps', str(SCARA), '--object', 'peg1', '--samples', '4')
    peg = row_major('1.0 0.0 0.0 0.05 0.0 1.0 0.0 -0.15 0.0 0.0 1.0 0.77')
    template = row_major('0.0 0.0 1.0 -0.012 0.0 1.0 0.0 0.0 -1.0 0.0 0.0 0.0')
    assert [g['id'] for g in document['grasps']] == ['gf0', 'gc0/0', 'gc0/1', 'gc0/2', 'gc0/3']
    np.testing.assert_allclose(
        homogeneous(document['grasps'][0]),
        peg @ row_major('1.0 0.0 0.0 0.0 0.0 -1.0 0.0 0.0 0.0 0.0 -1.0 0.025'), atol=TOL)
    for k, grasp in enumerate(document['grasps'][1:]):
        np.testing.assert_allclose(homogeneous(grasp),
                                   peg @ rotation((0, 0, 1), math.pi / 2 * k) @ template,
                                   atol=TOL)
    document = cli_json('placements', str(SCARA), '--object', 'washer1', '--on', 'fixture',
                        '--samples', '40')
    fixture = row_major('1.0 0.0 0.0 0.05 0.0 1.0 0.0 -0.15 0.0 0.0 1.0 0.73')
    apothem = 0.09 * math.cos(math.pi / 6)
    for item in document['placements']:
        x, y, z, _ = np.linalg.inv(fixture) @ (homogeneous(item)[:, 3] - [0, 0, 0.005, 0])
        assert abs(z - 0.01) < TOL
        for k in range(6):  # inside the regular hexagon: within the apothem of every edge
            normal_angle = math.pi / 6 + k * math.pi / 3
            assert x * math.cos(normal_angle) + y * math.sin(normal_angle) <= apothem + 1e-9
