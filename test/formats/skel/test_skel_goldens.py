"""SKEL reader against dartpy 6.20 goldens (shared/goldens/skel, see its INDEX.md).

Forward kinematics of every loadable corpus file and generated random world must equal DART's
body frames (initial and two random configurations, given in DART's generalized-coordinate
order, which must be our ``tree.dof_names`` order); every invalid variant is read as DART reads
it: loaded with a warning where DART loads it, refused with a FormatError where DART cannot.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from robot_formats.core.errors import (CycleError, FormatError, InvalidValueError, SchemaError,
                                  XmlSyntaxError)
from robot_formats.formats import load
from robot_formats.core.transforms import quat_to_rotation
from shared_data import shared  # noqa: E402  (shared/ beside the clone)

GOLDENS = shared('goldens', 'skel')
CORPUS = shared('corpus', 'skel')
TOL = 1e-6



def _goldens(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob('*.skel.json'))


CORPUS_GOLDENS = [p for p in _goldens(GOLDENS) if 'generated' not in p.parts]
LOADED = [p for p in CORPUS_GOLDENS if json.loads(p.read_text())['verdict'] == 'loaded']
NOT_LOADED = [p for p in CORPUS_GOLDENS if p not in LOADED]
RANDOM = _goldens(GOLDENS / 'generated' / 'random')
INVALID = sorted((GOLDENS / 'generated' / 'invalid').glob('*.skel'))


def _source(golden: Path) -> Path:
    rel = golden.relative_to(GOLDENS)
    skel = rel.with_name(rel.name[:-len('.json')])
    if 'generated' in rel.parts:
        return GOLDENS / skel
    return CORPUS / skel


def _check_frames(poses: dict, frames: dict, where: str) -> None:
    for name, expected in frames.items():
        assert name in poses, f'{where}: no frame {name!r}'
        got = poses[name]
        assert np.allclose(got[:3, 3], expected['xyz'], atol=TOL), \
            f'{where}: {name} xyz {got[:3, 3]} != {expected["xyz"]}'
        rotation = quat_to_rotation(expected['quat'])
        assert np.allclose(got[:3, :3], rotation, atol=TOL), f'{where}: {name} rotation'


def _check(golden: Path) -> None:
    data = json.loads(golden.read_text())
    result = load(_source(golden))
    tree = result.tree
    assert len(tree.dof_names) == data['num_dofs']
    assert [m.name for m in result.scene.models] == [s['name'] for s in data['skeletons']]
    assert np.allclose(tree.positions_vector(), data['initial_positions'], atol=1e-9)
    _check_frames(tree.forward(), data['initial_frames'], 'initial')
    for config in data['configurations']:
        poses = tree.forward(np.array(config['positions'], dtype=float))
        _check_frames(poses, config['frames'], f'seed {config["seed"]}')


@pytest.mark.parametrize('golden', LOADED, ids=lambda p: str(p.relative_to(GOLDENS)))
def test_corpus_matches_dart(golden: Path) -> None:
    _check(golden)


@pytest.mark.parametrize('golden', RANDOM, ids=lambda p: p.name)
def test_random_world_matches_dart(golden: Path) -> None:
    _check(golden)


#: Invalid variants DART loads (reporting an error and discarding the part, or reading a
#: prefix of a number): loaded here too, with the warning of their category (docs/real_world.md).
_WARNING_OF = {
    'unknown_parent_body': 'SKEL_UNKNOWN_BODY', 'unknown_child_body': 'SKEL_UNKNOWN_BODY',
    'unknown_joint_type': 'SKEL_UNKNOWN_JOINT_TYPE', 'malformed_number': 'SKEL_NUMBER',
    'duplicate_body_name': 'SKEL_DUPLICATE_NAME', 'duplicate_child_joint': 'SKEL_SECOND_PARENT',
    'init_pos_length_mismatch': 'SKEL_INITIAL_VECTOR', 'missing_required_element':
    'SKEL_MISSING_ELEMENT',
}
#: What DART cannot load at all (throws, returns nothing, loops forever, or crashes before it
#: builds anything readable): refused, with the typed error of the category.
_ERROR_OF = {
    'malformed_number': InvalidValueError, 'missing_required_element': SchemaError,
    'cycle': CycleError, 'not_well_formed_xml': XmlSyntaxError,
}
#: DART's verdicts (the variant's .json) under which the variant must load.
_DART_LOADS = ('loaded_silently', 'loaded_with_errors')


def _variant(path: Path) -> dict:
    return json.loads(path.with_suffix('.json').read_text())


@pytest.mark.parametrize('path', INVALID, ids=lambda p: p.name)
def test_invalid_variant_is_read_as_dart_reads_it(path: Path) -> None:
    """Loaded with its category's warning where DART loads it (and where DART crashes only
    after discarding the part: an unknown body); refused with a typed error, file and line
    where DART throws, loops or returns nothing."""
    variant = _variant(path)
    category, verdict = variant['category'], variant['dart_behaviour']
    if verdict in _DART_LOADS or category in ('unknown_child_body', 'unknown_parent_body'):
        result = load(path)
        assert _WARNING_OF[category] in {w.code for w in result.warnings}, result.warnings
        assert all(w.file == str(path) and w.line for w in result.warnings)
        return
    with pytest.raises(FormatError) as info:
        load(path)
    assert info.value.file and str(path.name) in info.value.file and info.value.line
    assert isinstance(info.value, _ERROR_OF[category]), (category, info.value)


@pytest.mark.parametrize('golden', NOT_LOADED, ids=lambda p: str(p.relative_to(GOLDENS)))
def test_files_dart_cannot_load_are_refused(golden: Path) -> None:
    """Old soft-body syntax and bare skeletons: DART throws or returns None; we refuse."""
    with pytest.raises(FormatError):
        load(_source(golden))


def test_counts() -> None:
    assert len(LOADED) == 74 and len(NOT_LOADED) == 4
    assert len(RANDOM) == 20 and len(INVALID) == 30
