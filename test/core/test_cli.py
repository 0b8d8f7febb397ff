"""The CLI contract (``python -m robot_formats.cli``): exit codes, stderr, and the JSON schema."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from rf_testlib import (FIXTURES, TOL, check_urdf, hom, pinocchio_forward, quat_matrix,
                        run_cli, urdf_joint_values)

ROBOT = FIXTURES / 'urdf' / 'roundtrip.urdf'
WARNINGS = FIXTURES / 'urdf' / 'warnings.urdf'
BAD = FIXTURES / 'bad' / 'urdf_invalid_unknown_link.urdf'
# typed from the fixture: document order, mimic joints have no DoF, floating has six
ROBOT_DOFS = ['shoulder', 'elbow', 'wrist_joint', 'slide', 'free/rot_x', 'free/rot_y',
              'free/rot_z', 'free/pos_x', 'free/pos_y', 'free/pos_z']
ROBOT_LINKS = {'base', 'upper_arm', 'forearm', 'wrist', 'slider', 'finger_left', 'finger_right',
               'floating_thing', 'tool'}
Q = [0.3, -1.2, 0.7, 0.05, 0.4, -0.2, 0.9, 1.5, -2.0, 0.25]


def frames_json(*args) -> dict:
    result = run_cli('frames', ROBOT, '--json', *args)
    assert result.returncode == 0, result.stderr
    assert 'Traceback' not in result.stderr
    return json.loads(result.stdout)


def pose(frame: dict) -> np.ndarray:
    return hom(quat_matrix(frame['quat']), frame['xyz'])


# --- check ------------------------------------------------------------------------------------

def test_check_valid_exits_0_quietly():
    result = run_cli('check', ROBOT)
    assert result.returncode == 0
    assert result.stderr == ''
    assert re.fullmatch(rf'{re.escape(str(ROBOT))}: valid urdf \(9 links, 8 joints, 10 DoF\)\n',
                        result.stdout), result.stdout


def test_check_invalid_exits_1():
    result = run_cli('check', BAD)
    assert result.returncode == 1
    assert f'{BAD}:9: ' in result.stderr and 'Traceback' not in result.stderr


def test_check_warnings_go_to_stderr_and_keep_exit_0():
    result = run_cli('check', WARNINGS)
    assert result.returncode == 0, result.stderr
    assert 'valid urdf' in result.stdout and 'warning:' not in result.stdout
    lines = result.stderr.splitlines()
    assert f'{WARNINGS}:7: warning: ' in lines[0] and 'limit' in lines[0]
    assert f'{WARNINGS}:13: warning: ' in lines[1] and '<calibration>' in lines[1]
    assert len(lines) == 2


def test_check_strict_turns_warnings_into_exit_1():
    assert run_cli('check', '--strict', WARNINGS).returncode == 1
    assert run_cli('check', '--strict', ROBOT).returncode == 0


def test_no_command_is_a_usage_error():
    assert run_cli().returncode == 2
    bad = run_cli('check')
    assert bad.returncode == 2 and 'Traceback' not in bad.stderr


# --- convert ----------------------------------------------------------------------------------

@pytest.mark.parametrize('source', [ROBOT, WARNINGS], ids=['robot', 'refused_by_urdfdom'])
def test_convert_writes_urdf_that_check_urdf_accepts(source: Path, tmp_path: Path):
    out = tmp_path / 'out.urdf'
    result = run_cli('convert', source, '-o', out)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ''
    assert check_urdf(out).returncode == 0, check_urdf(out).stdout
    again = run_cli('convert', source, '-o', '-')
    assert again.returncode == 0 and again.stdout == out.read_text()


def test_the_warning_fixture_is_really_refused_by_urdfdom():
    assert check_urdf(WARNINGS).returncode != 0


def test_convert_to_unwritable_path_exits_1(tmp_path: Path):
    result = run_cli('convert', ROBOT, '-o', tmp_path / 'no' / 'such' / 'dir' / 'x.urdf')
    assert result.returncode == 1 and 'Traceback' not in result.stderr
    assert 'cannot write' in result.stderr


# --- info -------------------------------------------------------------------------------------

def test_info_lists_dofs_in_order():
    result = run_cli('info', ROBOT)
    assert result.returncode == 0, result.stderr
    listed = re.findall(r'^\s+(\d+) (\S+) = (\S+)$', result.stdout, re.M)
    assert [name for _, name, _ in listed] == ROBOT_DOFS
    assert [int(i) for i, _, _ in listed] == list(range(len(ROBOT_DOFS)))
    assert 'degrees of freedom (10' in result.stdout
    for link in ROBOT_LINKS:
        assert re.search(rf'^\s+{link}\b', result.stdout, re.M), link


# --- frames -----------------------------------------------------------------------------------

def test_frames_json_schema():
    doc = frames_json()
    assert set(doc) == {'format', 'root', 'frames'}
    assert doc['format'] == 'urdf' and doc['root'] == 'base'
    assert set(doc['frames']) == ROBOT_LINKS
    for name, frame in doc['frames'].items():
        assert set(frame) == {'parent', 'xyz', 'quat'}, name
        assert len(frame['xyz']) == 3 and len(frame['quat']) == 4
        assert all(isinstance(v, float) for v in frame['xyz'] + frame['quat']), name
        assert abs(np.linalg.norm(frame['quat']) - 1.0) < 1e-12, name
        if name == doc['root']:
            assert frame['parent'] is None
            assert frame['xyz'] == [0.0, 0.0, 0.0]
        else:
            assert frame['parent'] in doc['frames'], name
    assert doc['frames']['finger_left']['parent'] == 'slider'


def test_frames_json_matches_pinocchio_at_positions():
    doc = frames_json('--positions', ','.join(map(str, Q)))
    dofs = dict(zip(ROBOT_DOFS, Q))
    theirs = pinocchio_forward(ROBOT, urdf_joint_values(ROBOT.read_bytes(), dofs), ROBOT_LINKS)
    for name in ROBOT_LINKS:
        assert np.max(np.abs(pose(doc['frames'][name]) - theirs[name])) < TOL, name


def test_positions_equal_set_and_change_poses():
    zero = frames_json()
    by_positions = frames_json('--positions', ','.join(map(str, Q)))
    sets = [arg for name, value in zip(ROBOT_DOFS, Q) for arg in ('--set', f'{name}={value}')]
    assert frames_json(*sets) == by_positions
    moved = [n for n in ROBOT_LINKS if zero['frames'][n] != by_positions['frames'][n]]
    assert set(moved) == ROBOT_LINKS - {'base'}


def test_set_moves_only_the_subtree():
    zero = frames_json()
    one = frames_json('--set', 'slide=0.05')
    moved = {n for n in ROBOT_LINKS if zero['frames'][n] != one['frames'][n]}
    assert moved == {'slider', 'finger_left', 'finger_right'}
    # the fixture's slide axis is +y of wrist; fingers mimic 0.5 and -0.5 times it
    delta = np.subtract(one['frames']['slider']['xyz'], zero['frames']['slider']['xyz'])
    assert abs(np.linalg.norm(delta) - 0.05) < 1e-12


def test_positions_with_wrong_count_is_usage_error():
    result = run_cli('frames', ROBOT, '--positions', '1,2')
    assert result.returncode == 2
    assert result.stdout == '' and 'Traceback' not in result.stderr
    assert '--positions has 2 values but the model has 10 degrees of freedom' in result.stderr
    assert 'shoulder' in result.stderr


@pytest.mark.parametrize('args,words', [
    (['--set', 'unknown=1'], ["'unknown' is not a degree of freedom"]),
    (['--set', 'free=1'], ['free/rot_x']),
    (['--set', 'shoulder'], ['JOINT=VALUE']),
    (['--set', 'shoulder=abc'], ['shoulder=abc']),
    (['--positions', '1,2,x,4,5,6,7,8,9,10'], ['--positions']),
    (['--set', 'shoulder=nan'], ['finite']),
])
def test_bad_positions_are_usage_errors(args, words):
    result = run_cli('frames', ROBOT, *args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == '' and 'Traceback' not in result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


def test_frames_text_output():
    result = run_cli('frames', ROBOT, '--set', 'shoulder=0.5')
    assert result.returncode == 0
    assert result.stdout.splitlines()[0] == 'root: base'
    assert len(result.stdout.splitlines()) == 1 + len(ROBOT_LINKS)
