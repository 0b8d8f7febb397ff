"""URDF against the references: urdfdom's check_urdf accepts what we write, and pinocchio's
forward kinematics (of the ORIGINAL document wherever urdfdom accepts it) equals ours."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import robot_formats
from robot_formats import FormatError, KinematicTree
from robot_formats.core.errors import XmlSyntaxError

from rf_testlib import (CORPUS, TOL, assert_check_urdf, check_urdf, corpus_check_urdf_ok,
                        max_error, pinocchio_forward, urdf_joint_values)

CORPUS_URDFS = sorted(CORPUS.rglob('*.urdf'))
MALFORMED = {'bad.urdf'}
GOOD_URDFS = [p for p in CORPUS_URDFS if p.name not in MALFORMED]


def _id(path: Path) -> str:
    return str(path.relative_to(CORPUS))


def test_corpus_is_there():
    assert len(GOOD_URDFS) >= 20, f'expected the sdformat corpus URDFs under {CORPUS}'
    assert any(p.name == 'bad.urdf' for p in CORPUS_URDFS)


# --- generated documents --------------------------------------------------------------------

def _origin(rng) -> str:
    xyz = ' '.join(f'{v:.6f}' for v in rng.uniform(-1, 1, 3))
    rpy = ' '.join(f'{v:.6f}' for v in rng.uniform(-math.pi, math.pi, 3))
    return f'<origin xyz="{xyz}" rpy="{rpy}"/>'


def _axis(rng) -> str:
    return ' '.join(f'{v:.6f}' for v in rng.normal(size=3) * rng.uniform(0.5, 2))


def generated_urdf(seed: int, n_links: int = 9, planar_floating: bool = True) -> str:
    """A random URDF: every URDF joint kind, random origins and non-unit axes, mimic joints
    (chains of them too), joints listed before their links and in random order."""
    rng = np.random.default_rng(seed)
    kinds = ['revolute', 'continuous', 'prismatic', 'fixed']
    if planar_floating:
        kinds += ['planar', 'floating']
    parts = []
    one_dof = []
    for i in range(1, n_links):
        kind = kinds[(i - 1) % len(kinds)] if i <= len(kinds) else str(rng.choice(kinds[:4]))
        parent = f'l{int(rng.integers(i))}'
        body = [_origin(rng), f'<parent link="{parent}"/>', f'<child link="l{i}"/>']
        if kind in ('revolute', 'continuous', 'prismatic'):
            body.append(f'<axis xyz="{_axis(rng)}"/>')
        if kind == 'planar':
            body.append('<axis xyz="0 0 1"/>')  # pinocchio's planar joint is the XY plane
        if kind in ('revolute', 'prismatic'):
            body.append('<limit lower="-2" upper="2" effort="5" velocity="1"/>')
        if kind in ('revolute', 'continuous', 'prismatic') and one_dof and rng.random() < 0.4:
            # the leader may itself be a mimic joint: chains resolve to the leading joint
            lead = one_dof[int(rng.integers(len(one_dof)))]
            body.append(f'<mimic joint="{lead}" multiplier="{rng.uniform(-2, 2):.4f}" '
                        f'offset="{rng.uniform(-0.5, 0.5):.4f}"/>')
        if kind in ('revolute', 'continuous', 'prismatic'):
            one_dof.append(f'j{i}')
        parts.append(f'<joint name="j{i}" type="{kind}">' + ''.join(body) + '</joint>')
    parts += [f'<link name="l{i}"/>' for i in range(n_links)]
    order = rng.permutation(len(parts))
    return ('<?xml version="1.0"?>\n<robot name="gen">\n'
            + '\n'.join(parts[i] for i in order) + '\n</robot>\n')


# 15 and 50: mimic chains (j7 -> j3 -> j2; j8 -> j3 -> j2 -> j1)
GENERATED = [0, 1, 2, 3, 4, 15, 50]


def test_generated_documents_hold_mimic_chains():
    """The comparisons below meet chains of mimics, not only single mimics."""
    chained = 0
    for seed in GENERATED:
        root = ET.fromstring(generated_urdf(seed))
        leads = {j.get('name'): j.find('mimic').get('joint') for j in root.iter('joint')
                 if j.find('mimic') is not None}
        chained += sum(lead in leads for lead in leads.values())
    assert chained >= 3


@pytest.fixture(scope='module')
def pinocchio():
    import pinocchio as pin  # a test requirement: never skipped
    return pin


def random_dofs(tree: KinematicTree, rng) -> dict[str, float]:
    out = {}
    for name in tree.dof_names:
        out[name] = float(rng.uniform(-math.pi, math.pi))
    return out


def compare_with_pinocchio(reference, reference_bytes: bytes, tree: KinematicTree, seed: int,
                           frames) -> None:
    """Zero and three random configurations; ``reference`` is what pinocchio loads."""
    rng = np.random.default_rng(seed)
    configurations = [{name: 0.0 for name in tree.dof_names}]
    configurations += [random_dofs(tree, rng) for _ in range(3)]
    for dofs in configurations:
        ours = tree.forward(dofs)
        theirs = pinocchio_forward(reference, urdf_joint_values(reference_bytes, dofs), frames)
        error, where = max_error(ours, theirs, frames)
        assert error < TOL, f'FK differs from pinocchio by {error:.3g} at {where!r}, q={dofs}'


# --- corpus ---------------------------------------------------------------------------------

@pytest.mark.parametrize('path', GOOD_URDFS, ids=_id)
def test_corpus_written_urdf_passes_check_urdf(path: Path, tmp_path: Path):
    scene = robot_formats.load(path).scene
    assert_check_urdf(robot_formats.urdf_string(scene), tmp_path)


@pytest.mark.parametrize('path', GOOD_URDFS, ids=_id)
def test_corpus_fk_matches_pinocchio(path: Path, tmp_path: Path, pinocchio):
    scene = robot_formats.load(path).scene
    tree = KinematicTree(scene)
    if corpus_check_urdf_ok(path):
        reference, data = path, path.read_bytes()  # the original document: the strongest check
    else:  # urdfdom refuses the original (e.g. a revolute joint without <limit>): ours
        data = robot_formats.urdf_string(scene).encode('utf-8')
        reference = data
    compare_with_pinocchio(reference, data, tree, seed=len(path.name), frames=list(tree.links))


@pytest.mark.parametrize('path', GOOD_URDFS, ids=_id)
def test_corpus_written_urdf_fk_matches_pinocchio(path: Path, pinocchio):
    """pinocchio on what we WRITE equals our FK of what we READ (every link kept)."""
    tree = KinematicTree(robot_formats.load(path).scene)
    data = robot_formats.urdf_string(tree.scene, tree).encode('utf-8')
    compare_with_pinocchio(data, data, tree, seed=7, frames=list(tree.links))


def test_corpus_original_is_used_where_urdfdom_accepts_it():
    accepted = [p for p in GOOD_URDFS if corpus_check_urdf_ok(p)]
    assert len(accepted) >= len(GOOD_URDFS) - 2, 'urdfdom should accept almost all of them'


def test_malformed_corpus_urdf_is_rejected_by_both():
    bad = next(p for p in CORPUS_URDFS if p.name == 'bad.urdf')
    assert check_urdf(bad).returncode != 0
    with pytest.raises(XmlSyntaxError) as info:
        robot_formats.load(bad)
    assert isinstance(info.value, FormatError)
    assert info.value.file == str(bad) and info.value.line == 1


# --- generated ------------------------------------------------------------------------------

@pytest.mark.parametrize('seed', GENERATED)
def test_generated_urdf_is_valid_for_urdfdom(seed: int, tmp_path: Path):
    assert_check_urdf(generated_urdf(seed), tmp_path, 'original.urdf')


@pytest.mark.parametrize('seed', GENERATED)
def test_generated_written_urdf_passes_check_urdf(seed: int, tmp_path: Path):
    path = tmp_path / 'gen.urdf'
    path.write_text(generated_urdf(seed))
    assert_check_urdf(robot_formats.urdf_string(robot_formats.load(path).scene), tmp_path)


@pytest.mark.parametrize('seed', GENERATED)
def test_generated_fk_matches_pinocchio_on_original(seed: int, tmp_path: Path, pinocchio):
    text = generated_urdf(seed)
    path = tmp_path / 'gen.urdf'
    path.write_text(text)
    tree = KinematicTree(robot_formats.load(path).scene)
    assert sorted(tree.links) == sorted(f'l{i}' for i in range(9))
    compare_with_pinocchio(path, text.encode(), tree, seed, list(tree.links))


@pytest.mark.parametrize('seed', GENERATED)
def test_generated_fk_matches_pinocchio_on_written(seed: int, tmp_path: Path, pinocchio):
    path = tmp_path / 'gen.urdf'
    path.write_text(generated_urdf(seed))
    tree = KinematicTree(robot_formats.load(path).scene)
    data = robot_formats.urdf_string(tree.scene).encode()
    compare_with_pinocchio(data, data, tree, seed + 100, list(tree.links))


def test_pinocchio_comparison_can_fail(tmp_path: Path, pinocchio):
    """The oracle is not vacuous: a wrong angle sign is caught."""
    path = tmp_path / 'gen.urdf'
    path.write_text(generated_urdf(3, planar_floating=False))
    tree = KinematicTree(robot_formats.load(path).scene)
    dofs = {name: 0.4 for name in tree.dof_names}
    flipped = {name: -v for name, v in dofs.items()}
    theirs = pinocchio_forward(path, urdf_joint_values(path.read_bytes(), flipped),
                               list(tree.links))
    assert max_error(tree.forward(dofs), theirs, list(tree.links))[0] > 1e-3
