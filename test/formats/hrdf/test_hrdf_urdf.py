"""HRDF → URDF against the references: urdfdom's check_urdf accepts every converted kit, and
pinocchio's forward kinematics of that URDF equals HEBI's (corpus goldens, and hebi-py on random
kits with joints, gear ratios and trees), so the URDF — not just our model — is right.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hrdf_goldens import GOLDENS, corpus_goldens, element_names, output_frame_names, source_of
from rf_testlib import assert_check_urdf, pinocchio_forward, urdf_joint_values
from robot_formats.formats import load
from robot_formats.formats.urdf.writer import urdf_string

TOL = 1e-6
GOLDEN_FILES = corpus_goldens()


def _urdf(path: Path) -> tuple[str, object]:
    result = load(path)
    return urdf_string(result.scene, result.tree), result.tree


@pytest.mark.parametrize('golden', GOLDEN_FILES, ids=lambda p: str(p.relative_to(GOLDENS)))
def test_corpus_urdf_passes_check_urdf_and_pinocchio_matches_hebi(golden: Path,
                                                                  tmp_path: Path) -> None:
    data = json.loads(golden.read_text())
    text, tree = _urdf(source_of(golden))
    assert_check_urdf(text, tmp_path)
    names = element_names(data)
    outputs = output_frame_names(data)
    for config in data['configurations'][1:]:
        dofs = dict(zip(tree.dof_names, config['q']))
        values = urdf_joint_values(text.encode(), dofs)
        wanted = sorted(set(outputs) | set(names))
        poses = pinocchio_forward(text, values, wanted)
        for expected, name in [*zip(config['frames']['output'], outputs),
                               *zip(config['frames']['input'], names)]:
            error = float(np.max(np.abs(np.array(expected) - poses[name])))
            assert error <= TOL, f'{config["name"]} {name}: off by {error:.3g}'


def test_urdf_carries_mass_inertia_limits_and_visuals() -> None:
    golden = GOLDENS / 'hebi_description/config/arms/hrdf/A-2085-06G.hrdf.json'
    text, _ = _urdf(source_of(golden))
    from lxml import etree
    robot = etree.fromstring(text.encode())
    actuator = robot.find("link[@name='actuator_0']")
    assert actuator.find('inertial/mass').get('value') == '0.48'
    assert actuator.find('inertial/inertia').get('izz') == '0.000463'  # hebi_description X8
    assert actuator.find('visual/geometry/box') is not None
    joint = robot.find("joint[@name='actuator_0']")
    assert joint.get('type') == 'continuous'
    assert float(joint.find('limit').get('effort')) == 23.0
    assert robot.find("link[@name='end_effector_11/output']") is not None  # end effector frame
    masses = [float(m.get('value')) for m in robot.iter('mass')]
    assert sum(masses) == pytest.approx(json.loads(golden.read_text())['total_mass'], abs=1e-6)
