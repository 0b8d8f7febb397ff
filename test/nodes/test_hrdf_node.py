"""description_publisher serving HEBI HRDF kits over real DDS, against HEBI's own kinematics.

* a corpus arm (A-2085-06G, 6 DoF + parallel gripper) and the Daisy hexapod (18 DoF, 12
  includes): a JointState in HEBI's DoF order (names by the documented rule, docs/hrdf.md)
  makes /tf (composed with /tf_static from the root) place every output, input and
  end-effector frame where HEBI's goldens (hebi-py 2.16.1) put them, at HEBI's three
  configurations;
* a kit with gear-ratio joints (rotary and linear) and negative axes: the same against hebi-py
  run on that file in a subprocess;
* robot_description is a URDF check_urdf accepts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from .harness import run_check_urdf
from .test_description_publisher import Running

HRDF_TESTS = Path(__file__).resolve().parents[1] / 'formats' / 'hrdf'
if str(HRDF_TESTS) not in sys.path:
    sys.path.insert(0, str(HRDF_TESTS))

import hebi_oracle  # noqa: E402
from hrdf_goldens import (GOLDENS, element_names, end_effector_elements,  # noqa: E402
                          output_frame_names, source_of)

TOL = 1e-6  # HEBI's float32 constants (INDEX.md); the DDS path itself is exact to 1e-9

ARM_GOLDEN = GOLDENS / 'hebi_description/config/arms/hrdf/A-2085-06G.hrdf.json'
DAISY_GOLDEN = GOLDENS / 'hebi_description/config/daisy/hrdf/Daisy.hrdf.json'

GEARED_KIT = """<robot version="1.6.0" rot="Rz(0.4)" trans="0.1 -0.2 0.3">
  <actuator type="X8-9" tag="base_yaw"/>
  <bracket type="X5HeavyRightOutside"/>
  <joint axis="ry" gear_ratio="3" tag="reducer"/>
  <rigid-body mass="0.4" com_trans="0.05 0 0">
    <output trans="0.1 0 0" rot="Ry(pi/2)">
      <joint axis="-tx" gear_ratio="0.5" tag="slide"/>
      <end-effector type="Custom" output_trans="0 0 0.1" tag="tool"/>
    </output>
    <output trans="0 0.1 0">
      <joint axis="-rz" tag="spin"/>
      <actuator type="X5-4"/>
    </output>
  </rigid-body>
</robot>
"""
#: The kit's elements in HEBI's element order (depth first, output 0's subtree first), named
#: by tag or kind_index, and each element's output frame names (docs/hrdf.md).
GEARED_NAMES = ['base_yaw', 'bracket_1', 'reducer', 'rigid_body_3', 'slide', 'tool', 'spin',
                'actuator_7']
GEARED_OUTPUTS = ['base_yaw/output', 'bracket_1/output', 'reducer/output', 'rigid_body_3/output',
                  'slide/output', 'tool/output', 'rigid_body_3/output1', 'spin/output',
                  'actuator_7/output']
GEARED_DOFS = ['base_yaw', 'reducer', 'slide', 'spin', 'actuator_7']


def _hebi_frames(path: Path, configurations: list[list[float]], tmp: Path) -> list[dict]:
    """hebi-py's forward kinematics of ``path`` (in a subprocess: see hebi_oracle.py)."""
    answers = hebi_oracle.ask([{'path': str(path), 'q': q} for q in configurations], tmp, 120)
    assert all(a['ok'] for a in answers), answers
    return [a['frames'] for a in answers]


def _compare(running: Running, dofs: list[str], q: list[float], expected: dict[str, list],
             where: str) -> None:
    _, messages = running.send_until_tf(dofs, q)
    received = running.received_poses(messages)
    for name, matrix in expected.items():
        assert name in received, f'{where}: no TF frame {name!r}'
        error = float(np.max(np.abs(np.array(matrix) - received[name])))
        assert error <= TOL, f'{where} {name}: off by {error:.3g}'


def _golden_expectations(data: dict, config: dict) -> dict[str, list]:
    names = element_names(data)
    frames = config['frames']
    expected = dict(zip(output_frame_names(data), frames['output']))
    expected.update(zip(names, frames['input']))
    for matrix, index in zip(frames['endeffector'], end_effector_elements(data), strict=True):
        expected[f'{names[index]}/output'] = matrix
    return expected


def _golden_dofs(data: dict) -> list[str]:
    names = element_names(data)
    return [names[e['index']] for e in data['elements'] if e['is_dof']]


@pytest.fixture(scope='module')
def arm(module_launcher) -> Running:
    path = source_of(ARM_GOLDEN)
    process, ros = module_launcher.publisher('hrdf_arm', description_file=str(path),
                                             publish_frequency=0.0)
    return Running(process, ros, path, frequency=1000.0)


@pytest.fixture(scope='module')
def daisy(module_launcher) -> Running:
    path = source_of(DAISY_GOLDEN)
    process, ros = module_launcher.publisher('hrdf_daisy', description_file=str(path),
                                             publish_frequency=0.0)
    return Running(process, ros, path, frequency=1000.0)


@pytest.fixture(scope='module')
def geared(module_launcher, tmp_path_factory) -> Running:
    path = tmp_path_factory.mktemp('geared') / 'geared.hrdf'
    path.write_text(GEARED_KIT)
    process, ros = module_launcher.publisher('hrdf_geared', description_file=str(path),
                                             publish_frequency=0.0)
    return Running(process, ros, path, frequency=1000.0)


@pytest.mark.parametrize('which', ['arm', 'daisy'])
def test_tf_equals_hebi_goldens(which: str, request, tmp_path: Path) -> None:
    running: Running = request.getfixturevalue(which)
    data = json.loads((ARM_GOLDEN if which == 'arm' else DAISY_GOLDEN).read_text())
    running.wait_latched()
    result = run_check_urdf(running.description.last.data, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    dofs = _golden_dofs(data)
    assert len(dofs) == data['dof_count']
    for config in data['configurations']:
        _compare(running, dofs, config['q'], _golden_expectations(data, config),
                 f'{which} {config["name"]}')


def test_gear_ratio_joints_equal_hebi(geared: Running, tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    configurations = [[0.0] * 5, *(rng.uniform(-1.5, 1.5, 5).tolist() for _ in range(2))]
    hebi = _hebi_frames(geared.path, configurations, tmp_path)
    geared.wait_latched()
    result = run_check_urdf(geared.description.last.data, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'reducer/motor' in geared.description.last.data  # the gear ratio's motor link
    for number, (q, frames) in enumerate(zip(configurations, hebi)):
        assert len(frames['output']) == len(GEARED_OUTPUTS)
        expected = dict(zip(GEARED_OUTPUTS, frames['output']))
        expected.update(zip(GEARED_NAMES, frames['input'], strict=True))
        expected['tool/output'] = frames['endeffector'][0]
        _compare(geared, GEARED_DOFS, q, expected, f'configuration {number} {q}')


def test_partial_joint_state_moves_only_its_dof(geared: Running) -> None:
    """A JointState naming only the geared joint moves its output by q/g (g = 3), as HEBI's
    output = Ry(q/g)."""
    geared.wait_latched()
    _, messages = geared.send_until_tf(['reducer'], [0.9])
    moved = {t.child_frame_id: t for m in messages for t in m.transforms}
    assert 'reducer/output' in moved, sorted(moved)
    rotation = moved['reducer/output'].transform.rotation
    angle = 2 * np.arctan2(np.linalg.norm([rotation.x, rotation.y, rotation.z]), rotation.w)
    assert angle == pytest.approx(0.3, abs=1e-9)
    assert abs(rotation.y) == pytest.approx(np.sin(0.15), abs=1e-9)


@pytest.mark.parametrize('name, words', [('include_cycle.hrdf', 'include cycle'),
                                         ('two_actuators_in_a_row.hrdf', 'polarity'),
                                         ('formula_2_pi.hrdf', 'missing operator')])
def test_bad_hrdf_reload_is_refused_and_the_kit_keeps_being_served(arm: Running, name: str,
                                                                    words: str) -> None:
    """HEBI crashes (SIGSEGV) on the include cycle; the node answers with the sentence and
    keeps serving the arm it had."""
    from robot_formats_interfaces.srv import Reload

    from hrdf_goldens import INVALID
    arm.wait_latched()
    before = arm.description.last.data
    request = Reload.Request()
    request.path = str(INVALID / name)
    response = arm.ros.call(arm.reload, request, process=arm.process)
    assert not response.success, response.message
    assert words in response.message and '.hrdf:' in response.message, response.message
    assert arm.process.alive()
    data = json.loads(ARM_GOLDEN.read_text())
    config = data['configurations'][1]
    _compare(arm, _golden_dofs(data), config['q'], _golden_expectations(data, config),
             f'after refusing {name}')
    assert arm.description.last.data == before
