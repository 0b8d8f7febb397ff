"""Random kits (every element kind, versions 1.0.0–1.6.0, trees, includes, gear ratios,
overrides) read by us and by hebi-py 2.16.1 itself in one subprocess: same DoF count, every
output, input, COM and end-effector frame within 1e-6 at a random configuration, same masses.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hebi_oracle
from kit_generator import generate
from robot_formats.formats import load
from robot_formats.core.transforms import pose_to_matrix

TOL = 1e-6
VERSIONS = ['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0', '1.6.0']
KITS = [(seed, VERSIONS[seed % 7] if seed < 70 else '1.6.0', seed % 3 == 0)
        for seed in range(160)]


@pytest.fixture(scope='module')
def oracle(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp('kits')
    jobs, kits = [], {}
    for seed, version, include in KITS:
        kit = generate(seed, version, include)
        kit_dir = folder / f'k{seed}'
        kit_dir.mkdir()
        path = kit.write(kit_dir, 'kit.hrdf')
        q = np.random.default_rng(seed).uniform(-2, 2, kit.dofs)
        jobs.append({'path': str(path), 'q': q.tolist()})
        kits[seed] = (kit, path, q)
    answers = hebi_oracle.ask(jobs, folder)
    return {seed: (*kits[seed], answer) for (seed, _, _), answer in zip(KITS, answers)}


def _close(expected, got: np.ndarray, where: str) -> None:
    error = float(np.max(np.abs(np.array(expected) - got)))
    assert error <= TOL, f'{where}: off by {error:.3g}'


@pytest.mark.parametrize('seed, version, include', KITS,
                         ids=[f'{s}-v{v}{"-include" if i else ""}' for s, v, i in KITS])
def test_random_kit_matches_hebi(oracle, seed: int, version: str, include: bool) -> None:
    kit, path, q, hebi = oracle[seed]
    assert hebi['ok'], f'hebi refused the generated kit: {hebi["error"]}\n{kit.text}'
    result = load(path)
    tree = result.tree
    assert hebi['dof'] == len(tree.dof_names) == kit.dofs
    poses = tree.forward(q)
    frames = hebi['frames']
    assert len(frames['output']) == len(kit.outputs), kit.text
    for expected, name in zip(frames['output'], kit.outputs):
        _close(expected, poses[name], f'output {name}\n{kit.text}')
    names = [name for name, _ in kit.elements]
    for expected, name in zip(frames['input'], names, strict=True):
        _close(expected, poses[name], f'input {name}')
    massive = [name for name, kind in kit.elements if kind != 'joint']
    for expected, name in zip(frames['com'], massive, strict=True):
        _close(expected, poses[name] @ pose_to_matrix(tree.links[name].inertial.origin),
               f'com {name}')
    effectors = [name for name, kind in kit.elements if kind == 'end-effector']
    for expected, name in zip(frames['endeffector'], effectors, strict=True):
        _close(expected, poses[f'{name}/output'], f'end effector {name}')
    masses = [tree.links[name].inertial.mass for name in massive]
    assert np.allclose(masses, hebi['masses'], atol=TOL, rtol=0)


URDF_KITS = [kit for kit in KITS if kit[0] % 4 == 1]


@pytest.mark.parametrize('seed, version, include', URDF_KITS,
                         ids=[f'{s}-v{v}{"-include" if i else ""}' for s, v, i in URDF_KITS])
def test_random_kit_urdf_matches_hebi_in_pinocchio(oracle, tmp_path: Path, seed: int,
                                                   version: str, include: bool) -> None:
    """The URDF (gear ratios as mimic joints, prismatic joints, trees) passes check_urdf and
    pinocchio places every output frame where hebi-py does."""
    from rf_testlib import assert_check_urdf, pinocchio_forward, urdf_joint_values
    from robot_formats.formats.urdf.writer import urdf_string

    kit, path, q, hebi = oracle[seed]
    result = load(path)
    text = urdf_string(result.scene, result.tree)
    assert_check_urdf(text, tmp_path)
    values = urdf_joint_values(text.encode(), dict(zip(result.tree.dof_names, q)))
    poses = pinocchio_forward(text, values, sorted(set(kit.outputs)))
    for expected, name in zip(hebi['frames']['output'], kit.outputs):
        _close(expected, poses[name], f'pinocchio {name}\n{kit.text}')
