"""SDFormat reader against libsdformat 12.3 goldens (shared/goldens/sdformat, INDEX.md).

Every corpus document the oracle classified is loaded through ``robot_formats.load`` (reader,
includes, frame graphs, neutral scene, kinematic tree): for valid and valid_newer documents every
golden frame (models, links, joints, frames, scoped from the world) must be in the tree at the
golden pose within 1e-6 m / 1e-6 rad, all joints at zero; invalid documents must be refused with
a FormatError whose code is one libsdformat reported; lenient documents either load with matching
frames or are refused. Include lookup is configured as the oracle's (INDEX.md): the corpus model
directories as model paths, the corpus as ROS package path.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import robot_formats.formats.sdformat as sdformat
from robot_formats.core.errors import FormatError
from robot_formats.formats import load as load_any
from robot_formats.core.transforms import quat_to_rotation
from shared_data import shared  # noqa: E402  (shared/ beside the clone)

GOLDENS = shared('goldens', 'sdformat')
CORPUS = shared('corpus', 'sdformat')
TOL = 1e-6
INDEX = json.loads((GOLDENS / 'index.json').read_text())['files']

#: libsdformat reports every document it cannot read as XML (malformed, empty, not <sdf>) as
#: FILE_READ; robot_formats says which of those it is, before any format reader runs.
_SAME_AS = {'XML_SYNTAX': 'FILE_READ', 'UNKNOWN_FORMAT': 'FILE_READ'}


def _of(category: str) -> list[str]:
    return sorted(rel for rel, info in INDEX.items() if info['category'] == category)


VALID = _of('valid') + _of('valid_newer')
INVALID = _of('invalid')
LENIENT = _of('lenient')


#: Include resolution as the oracle had it (SDF_PATH, ROS_PACKAGE_PATH of INDEX.md).
ORACLE_LOOKUP = sdformat.ResolverConfig(
    model_paths=[CORPUS / 'gazebosim_sdformat/test/integration/model',
                 CORPUS / 'drake/multibody/parsing/test/sdf_parser_test'],
    package_paths=[CORPUS], use_environment=False)


def load(path: Path):
    return load_any(path, sdf_config=ORACLE_LOOKUP)


def _check_frames(path: Path, frames: dict) -> None:
    tree = load(path).tree
    poses = tree.forward(np.zeros(len(tree.dof_names)))
    for name, expected in frames.items():
        assert name in poses, f'no frame {name!r}'
        got = poses[name]
        assert np.allclose(got[:3, 3], expected['xyz'], atol=TOL, rtol=0), \
            f'{name}: xyz {got[:3, 3]} != {expected["xyz"]}'
        rotation = quat_to_rotation(expected['quat'])
        angle = np.arccos(np.clip((np.trace(got[:3, :3].T @ rotation) - 1) / 2, -1, 1))
        assert angle < TOL, f'{name}: rotation differs by {angle} rad'


@pytest.mark.parametrize('rel', VALID)
def test_valid_document_matches_libsdformat(rel: str) -> None:
    golden = json.loads((GOLDENS / f'{rel}.json').read_text())
    _check_frames(CORPUS / rel, golden['frames'])


@pytest.mark.parametrize('rel', INVALID)
def test_invalid_document_is_refused_with_libsdformat_code(rel: str) -> None:
    with pytest.raises(FormatError) as info:
        load(CORPUS / rel)
    error = info.value
    codes = INDEX[rel]['error_codes']
    assert _SAME_AS.get(error.code, error.code) in codes, (error.code, codes, str(error))
    assert error.file and error.line, 'the error names no file or line'
    assert str(error).startswith(error.file)


#: The frame-semantics stages, each reporting every problem it finds (as libsdformat's do):
#: the attached_to graph (frames and joints), then the relative_to graph (poses).
_STAGES = ({'FRAME_ATTACHED_TO_INVALID', 'FRAME_ATTACHED_TO_CYCLE', 'JOINT_PARENT_LINK_INVALID',
            'JOINT_CHILD_LINK_INVALID', 'JOINT_PARENT_SAME_AS_CHILD'},
           {'POSE_RELATIVE_TO_INVALID', 'POSE_RELATIVE_TO_CYCLE'})


@pytest.mark.parametrize('rel', INVALID)
def test_a_stage_reports_every_problem_libsdformat_reports(rel: str) -> None:
    """Where the first problem is one of frame semantics, the other problems of its stage
    are reported too (each with file and line), all of kinds libsdformat reports for that
    stage. (libsdformat also reports a bad joint a second time as the attached_to graph's
    FRAME_ATTACHED_TO_INVALID; robot_formats reports each cause once.) Where libsdformat's
    stage has several independent causes, every one of their kinds is reported."""
    with pytest.raises(FormatError) as info:
        load(CORPUS / rel)
    problems = info.value.problems()
    reference = set(INDEX[rel]['error_codes'])
    ours = {_SAME_AS.get(p.code, p.code) for p in problems}
    assert all(p.file and p.line for p in problems)
    stage = next((s for s in _STAGES if info.value.code in s), None)
    if stage is None:
        return
    assert ours <= reference & stage, (sorted(ours), sorted(reference & stage))
    if rel.rsplit('/', 1)[-1] in _SEVERAL_CAUSES:
        assert ours == reference & stage and len(problems) >= 2, [str(p) for p in problems]


#: Invalid goldens whose first failing stage has two or more independent causes.
_SEVERAL_CAUSES = {'model_invalid_link_relative_to.sdf', 'model_invalid_joint_relative_to.sdf',
                   'world_frame_invalid_attached_to.sdf', 'model_frame_invalid_attached_to.sdf',
                   'model_frame_invalid_attached_to_cycle.sdf'}


@pytest.mark.parametrize('rel', LENIENT)
def test_lenient_document_is_refused_or_matches(rel: str) -> None:
    golden = json.loads((GOLDENS / f'{rel}.json').read_text())
    try:
        load(CORPUS / rel)
    except FormatError:
        return
    if 'frames' in golden:
        _check_frames(CORPUS / rel, golden['frames'])


def test_every_scored_golden_is_tested() -> None:
    """131 valid + 6 valid_newer + 55 invalid + 17 lenient = 209 of 250 (41 skipped)."""
    assert (len(VALID), len(INVALID), len(LENIENT)) == (137, 55, 17)
