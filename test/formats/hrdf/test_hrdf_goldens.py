"""HRDF reader against HEBI's own forward kinematics (hebi-py 2.16.1 goldens).

For every corpus kit: the DoF order is HEBI's, and every output, input, centre-of-mass and
end-effector frame at the three golden configurations, every mass, and every actuator's speed
and effort limits equal HEBI's within 1e-6. Frames are matched by the documented naming rule
(hrdf_goldens.py), in the frame where <robot rot trans> places the base (the scene root).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hrdf_goldens import (GOLDENS, com_elements, corpus_goldens, element_names,
                          end_effector_elements, matrix, output_frame_names, source_of)
from robot_formats.formats import load
from robot_formats.core.transforms import pose_to_matrix

TOL = 1e-6
GOLDEN_FILES = corpus_goldens()


def test_the_whole_corpus_is_here() -> None:
    assert len(GOLDEN_FILES) == json.loads((GOLDENS / 'corpus_summary.json').read_text())['files']


def _close(expected, got: np.ndarray, where: str) -> None:
    error = float(np.max(np.abs(matrix(expected) - got)))
    assert error <= TOL, f'{where}: off by {error:.3g}'


@pytest.mark.parametrize('golden', GOLDEN_FILES, ids=lambda p: str(p.relative_to(GOLDENS)))
def test_kit_matches_hebi(golden: Path) -> None:
    data = json.loads(golden.read_text())
    result = load(source_of(golden))
    assert result.format == 'hrdf'
    assert not result.warnings and not data['warnings']  # HEBI warns about none of them either
    tree = result.tree
    names = element_names(data)
    dofs = [names[e['index']] for e in data['elements'] if e['is_dof']]
    assert list(tree.dof_names) == dofs
    assert len(dofs) == data['dof_count']
    outputs = output_frame_names(data)
    coms = com_elements(data)
    for config in data['configurations']:
        poses = tree.forward(np.array(config['q']))
        frames = config['frames']
        where = f'{config["name"]}'
        assert len(frames['output']) == len(outputs)
        for expected, name in zip(frames['output'], outputs):
            _close(expected, poses[name], f'{where} output {name}')
        for expected, name in zip(frames['input'], names):
            _close(expected, poses[name], f'{where} input {name}')
        for expected, index in zip(frames['com'], coms, strict=True):
            inertial = tree.links[names[index]].inertial
            _close(expected, poses[names[index]] @ pose_to_matrix(inertial.origin),
                   f'{where} com {names[index]}')
        for expected, index in zip(frames['endeffector'], end_effector_elements(data),
                                   strict=True):
            _close(expected, poses[f'{names[index]}/output'], f'{where} end effector')
    masses = [tree.links[names[i]].inertial.mass for i in coms]
    assert np.allclose(masses, data['masses'], atol=TOL, rtol=0)
    speeds = [j.limits[0].velocity if j.limits else 0.0 for j in tree.joints.values()
              if j.dof_count]
    efforts = [j.limits[0].effort if j.limits else 0.0 for j in tree.joints.values()
               if j.dof_count]
    assert np.allclose(speeds, data['max_speeds'], atol=1e-4)
    assert np.allclose(efforts, data['max_efforts'], atol=1e-6)
