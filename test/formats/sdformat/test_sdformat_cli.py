"""The CLI on a composed SDFormat world: ``frames`` lists every model, link, joint and frame
with its scoped name under ``world``; ``convert`` flattens the world (nested models, included
URDF/SKEL/HRDF models, world joints) into one URDF tree.

References: urdfdom's check_urdf and pinocchio's forward kinematics of the converted URDF (so
``frames`` and ``convert`` are checked against each other through an independent FK), and
closed forms written from the SDF text.
"""

from __future__ import annotations

import json
import math
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / 'core'))
from rf_testlib import check_urdf, pinocchio_forward, quat_matrix, run_cli  # noqa: E402

WORLD_FILE = Path(__file__).parent / 'fixtures' / 'node' / 'composed_world.sdf'
SETTINGS = {'door::hinge': 0.7, 'rail': -0.3, 'station::base::pedestal::turn': 1.1,
            'station::hebi::actuator_0': -0.4, 'station::hebi::actuator_2': 0.9,
            'station::hebi::actuator_4': 0.2, 'station::gripper::left': 0.01,
            'station::gripper::right': 0.03}


def _frames_json(*extra: str) -> dict:
    result = run_cli('frames', '--json', WORLD_FILE, *extra)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _world_pose(entry: dict) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = quat_matrix(entry['quat'])
    out[:3, 3] = entry['xyz']
    return out


def test_frames_lists_every_scoped_element_under_world() -> None:
    frames = _frames_json()
    assert frames['format'] == 'sdf' and frames['root'] == 'world'
    names = set(frames['frames'])
    expected = {
        # models (the model frames), nested and included ones with their scope
        'cell', 'cell::arm', 'cell::gripper', 'station', 'station::base',
        'station::base::pedestal', 'station::hebi', 'station::gripper', 'door', 'door::leaf',
        'cart',
        # links of the SDF, SKEL, HRDF and URDF parts
        'cell::arm::body', 'station::base::pedestal::turntable', 'station::hebi::actuator_2',
        'station::gripper::palm', 'door::leaf::panel', 'cart::body',
        # joints (their frames) and explicit frames
        'cell::weld', 'station::mount', 'station::tool_weld', 'door::hinge', 'rail',
        'station::gripper::left', 'door::leaf::handle', 'cell::arm::gripper_mount',
        'cell::gripper::mount_point', 'station::hebi::end_effector_5/output'}
    assert expected <= names, sorted(expected - names)
    assert not any(name.startswith('::') or name.endswith('::') for name in names)


def test_frames_follow_set_values_like_closed_forms() -> None:
    frames = _frames_json(*[f'--set={k}={v}' for k, v in SETTINGS.items()])['frames']
    hinge = SETTINGS['door::hinge']
    handle = _world_pose(frames['door::leaf::handle'])
    assert np.allclose(handle[:3, 3], (0.5 + 0.4 * math.cos(hinge), 2 + 0.4 * math.sin(hinge),
                                       1), atol=1e-9)
    cart = _world_pose(frames['cart::body'])
    assert np.allclose(cart[:3, 3], (2 + SETTINGS['rail'], -1, 0.1), atol=1e-9)
    # station's pose says degrees="true": yaw 30 degrees, plus the turntable's 0.3 rad, plus
    # the turn joint
    turntable = _world_pose(frames['station::base::pedestal::turntable'])
    yaw = math.radians(30) + 0.3 + SETTINGS['station::base::pedestal::turn']
    assert np.allclose(turntable[:3, :3], [[math.cos(yaw), -math.sin(yaw), 0],
                                           [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]],
                       atol=1e-9)
    assert np.allclose(turntable[:3, 3], (-1, 0.5, 0.82), atol=1e-9)


def test_convert_is_one_urdf_tree_matching_frames_through_pinocchio(tmp_path: Path) -> None:
    out = tmp_path / 'composed.urdf'
    result = run_cli('convert', WORLD_FILE, '-o', out)
    assert result.returncode == 0, result.stderr
    checked = check_urdf(out)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert 'root Link: world' in checked.stdout
    root = ET.parse(out).getroot()
    links = [link.get('name') for link in root.findall('link')]
    moving = {j.get('name') for j in root.findall('joint') if j.get('type') != 'fixed'}
    assert moving == set(SETTINGS)
    frames = _frames_json(*[f'--set={k}={v}' for k, v in SETTINGS.items()])['frames']
    reference = pinocchio_forward(out, SETTINGS, links)
    # every URDF link is a frame `frames` knows, at the pose pinocchio computes for it
    for link in links:
        assert link in frames, link
        assert np.allclose(_world_pose(frames[link]), reference[link], atol=1e-9), link


def test_bad_composition_exits_1_with_the_sentence(tmp_path: Path) -> None:
    path = tmp_path / 'bad.sdf'
    path.write_text('<sdf version="1.8"><world name="w">\n'
                    '<include><uri>missing_model.sdf</uri></include>\n</world></sdf>\n')
    for command in (('frames', path), ('convert', path, '-o', tmp_path / 'x.urdf')):
        result = run_cli(*command)
        assert result.returncode == 1
        assert f'{path}:2:' in result.stderr and 'missing_model.sdf' in result.stderr
        assert 'Traceback' not in result.stderr
