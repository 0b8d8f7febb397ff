"""TMP problem semantics against closed-form math written here (not robot_formats.core.transforms).

Grasps: every sample of a continuous set is Rot(axis, θ_k) · template, i.e. G_k · T⁻¹ is a pure
rotation about the axis by 2πk/N; world grasps are X_W_object · G. Placements: the object's
centre is `distance` above a point inside the support region (mapped back into the support's
frame and tested against the region's own definition), oriented Rot(axis, θ) · template.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robot_formats.core.kinematics import KinematicTree
from robot_formats.formats import read_problem
from robot_formats.formats.tmp.semantics import (ProblemState, grasp_samples, placements,
                                                 problem_scene)

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / 'examples' / 'tmp'
DISCS = EXAMPLES / 'discs_and_pegs.xml'
KITCHEN = EXAMPLES / 'kitchen.xml'


# --- independent math -------------------------------------------------------------------------

def rodrigues(axis, angle) -> np.ndarray:
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx


def quat_matrix(q) -> np.ndarray:
    x, y, z, w = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def row_major(text: str) -> np.ndarray:
    m = np.eye(4)
    m[:3, :] = np.array([float(v) for v in text.split()]).reshape(3, 4)
    return m


def homogeneous(xyz, quat) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = quat_matrix(quat)
    m[:3, 3] = xyz
    return m


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'robot_formats.cli', *args], capture_output=True,
                          text=True, timeout=60)


@pytest.fixture(scope='module')
def discs():
    return read_problem(DISCS)


@pytest.fixture(scope='module')
def kitchen():
    return read_problem(KITCHEN)


# --- grasps -----------------------------------------------------------------------------------

def test_discrete_grasps_are_the_file_frames_in_the_object_frame(kitchen):
    cup = kitchen.objects['cup1']
    grasps = grasp_samples(cup, 3)
    assert [g.id for g in grasps] == ['gf0', 'gf1'] and [g.type for g in grasps] == ['side', 'top']
    expected = row_major('0.0 0.0 1.0 -0.09 0.0 1.0 0.0 0.0 -1.0 0.0 0.0 0.0')
    np.testing.assert_allclose(grasps[0].frame, expected, atol=1e-12)


@pytest.mark.parametrize('samples', [1, 7, 360])
def test_continuous_grasp_samples_rotate_the_template_about_the_axis(discs, samples):
    disc3 = discs.objects['disc3']
    template = row_major('1.0 0.0 0.0 0.025 0.0 -1.0 0.0 0.0 0.0 0.0 -1.0 0.0625')
    grasps = [g for g in grasp_samples(disc3, samples) if g.id.startswith('gc')]
    assert len(grasps) == samples
    for k, grasp in enumerate(grasps):
        assert grasp.id == f'gc0/{k}' and grasp.type == 'top'
        theta = 2 * math.pi * k / samples
        delta = grasp.frame @ np.linalg.inv(template)  # must be a pure rotation about z by θ
        np.testing.assert_allclose(delta[:3, 3], 0.0, atol=1e-12)
        np.testing.assert_allclose(delta[:3, :3], rodrigues((0, 0, 1), theta), atol=1e-12)
        np.testing.assert_allclose(delta[:3, :3] @ [0, 0, 1], [0, 0, 1], atol=1e-12)  # axis kept


def test_grasp_type_filter_and_world_frame(discs):
    disc3 = discs.objects['disc3']
    state = ProblemState(discs)
    pose = row_major('1.0 0.0 0.0 0.8 0.0 1.0 0.0 -0.2 0.0 0.0 1.0 0.8425')
    side = grasp_samples(disc3, 5, 'side', state.world_pose('disc3'))
    assert [g.id for g in side] == ['gf0']
    np.testing.assert_allclose(
        side[0].frame, pose @ row_major('0.0 0.0 1.0 -0.09 0.0 1.0 0.0 0.0 -1.0 0.0 0.0 0.0'),
        atol=1e-12)
    assert grasp_samples(disc3, 5, 'nonexistent') == []


def test_cli_grasps_json_in_world_frame(kitchen):
    done = cli('grasps', str(KITCHEN), '--object', 'glass1', '--samples', '12', '--type', 'side',
               '--json')
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document['frame'] == 'world' and len(document['grasps']) == 12
    glass = row_major('1.0 0.0 0.0 1.45 0.0 1.0 0.0 0.3 0.0 0.0 1.0 0.98')
    template = row_major('0.0 0.0 1.0 -0.085 0.0 1.0 0.0 0.0 -1.0 0.0 0.0 0.0')
    for k, grasp in enumerate(document['grasps']):
        assert set(grasp) == {'id', 'type', 'xyz', 'quat'} and grasp['type'] == 'side'
        rotation = np.eye(4)
        rotation[:3, :3] = rodrigues((0, 0, 1), 2 * math.pi * k / 12)
        expected = glass @ rotation @ template
        np.testing.assert_allclose(homogeneous(grasp['xyz'], grasp['quat']), expected,
                                   atol=1e-9)


def test_cli_grasps_unknown_object_and_bad_samples():
    done = cli('grasps', str(KITCHEN), '--object', 'teapot', '--json')
    assert done.returncode == 2 and "'teapot' is not an object" in done.stderr
    assert 'Traceback' not in done.stderr
    done = cli('grasps', str(KITCHEN), '--object', 'cup1', '--samples', '0')
    assert done.returncode == 2 and '--samples' in done.stderr


# --- placements -------------------------------------------------------------------------------

def in_counter_l(x: float, y: float) -> bool:
    """The counter's L-shaped top as the union of its two rectangles (kitchen.xml)."""
    return ((-0.3 <= x <= 0.3 and -0.6 <= y <= 0.6)
            or (-0.9 <= x <= -0.3 and 0.0 <= y <= 0.6))


def test_placements_on_a_rotated_polygon_lie_inside_it_at_the_right_height(kitchen):
    glass = kitchen.objects['glass1']
    counter = kitchen.objects['counter']
    counter_pose = row_major('0.0 -1.0 0.0 1.2 1.0 0.0 0.0 0.4 0.0 0.0 1.0 0.0')
    found = placements(glass, counter, counter_pose, 400, seed=3)
    assert len(found) == 400
    upside_down = np.diag([1.0, -1.0, -1.0])
    in_second_rectangle = 0
    for i, placement in enumerate(found):
        sop = i % 2
        assert placement.id == f'sop{sop}/{i // 2}' and placement.sop == sop
        frame = placement.frame
        # the point under the centre, in the counter's frame
        point = np.linalg.inv(counter_pose) @ np.append(frame[:3, 3] - [0, 0, 0.06], 1.0)
        assert abs(point[2] - 0.9) < 1e-9
        assert in_counter_l(point[0], point[1]), point
        in_second_rectangle += point[0] < -0.3
        theta = 2 * math.pi * (i // 2) / 200
        template = np.eye(3) if sop == 0 else upside_down
        np.testing.assert_allclose(frame[:3, :3], rodrigues((0, 0, 1), theta) @ template,
                                   atol=1e-12)
    # uniform over the area: the second rectangle holds 0.36 of the 1.08 m²
    assert abs(in_second_rectangle / 400 - 1 / 3) < 0.1


def test_placements_on_a_rectangle_and_a_point(discs):
    table_pose = row_major('1.0 0.0 0.0 0.8 0.0 1.0 0.0 0.0 0.0 0.0 1.0 0.0')
    found = placements(discs.objects['disc3'], discs.objects['table'], table_pose, 50)
    for placement in found:
        x, y, z = placement.frame[:3, 3] - table_pose[:3, 3]
        assert -0.38 <= x <= 0.38 and -0.33 <= y <= 0.33
        assert abs(z - (0.78 + 0.0125)) < 1e-12
    peg_pose = row_major('1.0 0.0 0.0 0.8 0.0 1.0 0.0 0.2 0.0 0.0 1.0 0.88')
    for placement in placements(discs.objects['disc1'], discs.objects['peg3'], peg_pose, 8):
        np.testing.assert_allclose(placement.frame[:3, 3], [0.8, 0.2, 0.88 - 0.1 + 0.0125],
                                   atol=1e-12)
    again = placements(discs.objects['disc3'], discs.objects['table'], table_pose, 50)
    assert all(np.array_equal(a.frame, b.frame) for a, b in zip(found, again))  # seeded


def test_cli_placements_json():
    done = cli('placements', str(KITCHEN), '--object', 'cup1', '--on', 'dining_table',
               '--samples', '9', '--json')
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document['frame'] == 'world' and len(document['placements']) == 9
    for k, item in enumerate(document['placements']):
        x, y, z = item['xyz']
        assert -0.35 <= x <= 0.75 and -1.55 <= y <= -0.85 and abs(z - 0.795) < 1e-12
        np.testing.assert_allclose(quat_matrix(item['quat']),
                                   rodrigues((0, 0, 1), 2 * math.pi * k / 9), atol=1e-9)
    done = cli('placements', str(KITCHEN), '--object', 'glass1', '--on', 'glass2')
    assert done.returncode == 2 and 'no support region' in done.stderr


# --- attachments and the scene ----------------------------------------------------------------

def test_scene_places_objects_at_their_file_poses_and_attaches_them(kitchen):
    tree = KinematicTree(problem_scene(kitchen))
    poses = tree.forward()
    for name, text in [('tray', '0.0 -1.0 0.0 1.5 1.0 0.0 0.0 0.4 0.0 0.0 1.0 0.91'),
                       ('glass1', '1.0 0.0 0.0 1.45 0.0 1.0 0.0 0.3 0.0 0.0 1.0 0.98'),
                       ('cup1', '1.0 0.0 0.0 1.57 0.0 1.0 0.0 0.4 0.0 0.0 1.0 0.965')]:
        np.testing.assert_allclose(poses[name], row_major(text), atol=1e-12)
    assert tree.edges['glass1'].parent == 'tray' and tree.edges['tray'].parent == 'world'
    np.testing.assert_allclose(poses['helper::base_link'],
                               row_major('0.0 -1.0 0.0 0.9 1.0 0.0 0.0 -1.2 0.0 0.0 1.0 0.0'),
                               atol=1e-12)
    # the helper's configuration tags went through kitchen.mapping.yaml
    q = dict(zip(tree.dof_names, tree.positions_vector()))
    assert q['helper::elbow'] == 0.6 and q['helper::finger_left'] == 0.02
    assert q['pr2::torso_lift_joint'] == 0.2 and q['pr2::l_elbow_flex_joint'] == -0.5


def test_attached_objects_move_with_their_parent_and_detach_in_place(kitchen):
    state = ProblemState(kitchen)
    glass_world = state.world_pose('glass1').copy()
    assert state.parents['glass1'] == 'tray'
    # move the tray: the glass follows (rigidly)
    lift = np.eye(4)
    lift[:3, 3] = [0.1, -0.2, 0.3]
    state.local['tray'] = lift @ state.local['tray']
    np.testing.assert_allclose(state.world_pose('glass1'), lift @ glass_world, atol=1e-12)
    state.detach('glass1')
    state.local['tray'] = np.linalg.inv(lift) @ state.local['tray']
    np.testing.assert_allclose(state.world_pose('glass1'), lift @ glass_world, atol=1e-12)
    state.attach('glass1', 'dining_table')
    assert state.parents['glass1'] == 'dining_table'
    with pytest.raises(Exception, match='cycle'):
        state.attach('tray', 'cup1')  # cup1 is on the tray
    state.reset()
    assert state.parents['glass1'] == 'tray'
    np.testing.assert_allclose(state.world_pose('glass1'), glass_world, atol=1e-12)


def test_cli_frames_json_names_objects_and_robot_bases():
    done = cli('frames', str(KITCHEN), '--json')
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document['format'] == 'tmp' and document['root'] == 'world'
    assert list(document['objects']) == ['counter', 'dining_table', 'tray', 'glass1', 'glass2',
                                         'cup1']
    np.testing.assert_allclose(document['objects']['cup1']['xyz'], [1.57, 0.4, 0.965])
    assert document['objects']['tray']['moveable'] is True
    helper = document['robots']['helper']
    assert helper['base_frame'] == 'helper::base_link' and helper['movebase'] is False
    np.testing.assert_allclose(quat_matrix(helper['quat']), rodrigues((0, 0, 1), math.pi / 2),
                               atol=1e-12)
