"""Bad and dubious HRDF input (goldens/hrdf/invalid/, judged by hebi-py 2.16.1 in verdicts.json).

Every file HEBI rejects (or crashes on) is refused with a FormatError carrying the file, the
line and a sentence; every file HEBI accepts is accepted (with our warnings where the spec or
HEBI's reading deserves one). The CLI exits 1 with the sentence, never a traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hrdf_goldens import INVALID
from robot_formats.core import errors as E
from robot_formats.formats import load

VERDICTS = json.loads((INVALID / 'verdicts.json').read_text())
CASES = {case['file']: case for case in VERDICTS['cases']}
REFUSED = sorted(f for f, c in CASES.items() if c['hebi'] in ('reject', 'crash'))
ACCEPTED = sorted(f for f, c in CASES.items() if c['hebi'] in ('accept', 'warn'))
ROOT = Path(__file__).resolve().parents[3]

#: Error class and words the message must contain, for the cases where they say the most.
EXPECTED = {
    'unknown_actuator_type.hrdf': (E.InvalidValueError, ["'X5-2'", 'actuator']),
    'formula_2_pi.hrdf': (E.InvalidValueError, ['twist', 'missing operator']),
    'formula_PI.hrdf': (E.InvalidValueError, ["'pi', lower case"]),
    'formula_2.4.3.hrdf': (E.InvalidValueError, ["at most one '.'"]),
    'formula_dot.hrdf': (E.InvalidValueError, ['mass', "'.'"]),
    'rotation_lowercase_fn.hrdf': (E.InvalidValueError, ['case sensitive']),
    'rotation_reflection.hrdf': (E.InvalidValueError, ['determinant']),
    'include_cycle.hrdf': (E.CycleError, ['include cycle', 'cycle_a.hrdf']),
    'include_missing_file.hrdf': (E.FileAccessError, ['does_not_exist.hrdf']),
    'include_absolute_path.hrdf': (E.SchemaError, ['relative']),
    'duplicate_tags.hrdf': (E.DuplicateNameError, ["'a'", 'twice']),
    'two_actuators_in_a_row.hrdf': (E.StructureError, ['X-AH-A', 'X-AO-A', 'polarity']),
    'r25_on_r25r8_link.hrdf': (E.StructureError, ['R8-AH-B']),
    'element_after_end_effector.hrdf': (E.StructureError, ['end effector']),
    'element_after_outputs.hrdf': (E.StructureError, ['<output>']),
    'mass_and_mass_offset.hrdf': (E.SchemaError, ['mass_offset']),
    'gate_gear_ratio_1.4.0.hrdf': (E.SchemaError, ['1.5.0', '1.4.0']),
    'gate_r25_1.5.0.hrdf': (E.InvalidValueError, ['1.6.0', '1.5.0']),
    'version_two_part.hrdf': (E.UnsupportedError, ["'1.6'"]),
    'element_name_case.hrdf': (E.SchemaError, ['case sensitive']),
    'text_in_actuator.hrdf': (E.SchemaError, ['text']),
    'empty_file.hrdf': (E.XmlSyntaxError, ['empty']),
}


@pytest.fixture(scope='module', autouse=True)
def absolute_include_target() -> None:
    """include_absolute_path.hrdf names this file; it must exist so that only the path's
    absoluteness is judged (verdicts.json "abs_part")."""
    part = Path(VERDICTS['abs_part']['path'])
    part.parent.mkdir(parents=True, exist_ok=True)
    if not part.exists():
        part.write_text(VERDICTS['abs_part']['text'])


@pytest.mark.parametrize('name', REFUSED)
def test_refused_like_hebi(name: str) -> None:
    with pytest.raises(E.FormatError) as info:
        load(INVALID / name)
    error = info.value
    assert error.file and error.file.endswith('.hrdf')
    assert error.line is not None and error.line >= 1
    assert len(error.message) >= 15
    if name in EXPECTED:
        kind, words = EXPECTED[name]
        assert isinstance(error, kind), f'{type(error).__name__}: {error}'
        for word in words:
            assert word in str(error), str(error)


@pytest.mark.parametrize('name', ACCEPTED)
def test_accepted_like_hebi(name: str) -> None:
    result = load(INVALID / name)
    assert result.format == 'hrdf'
    if CASES[name]['hebi'] == 'warn':
        assert result.warnings, 'HEBI warns here; so must we'


def test_lowercase_enums_warn_once_per_attribute() -> None:
    result = load(INVALID / 'lowercase_enum_values.hrdf')
    ours = [w.message for w in result.warnings if w.code == 'HRDF_ENUM_CASE']
    assert len(ours) == 9  # nine enum attributes in the wrong case in that file
    pairs = {(m.split('>')[0].lstrip('<'), m.split('> ')[1].split('=')[0]) for m in ours}
    hebi = {(m.split('element of type ')[1].split(' has')[0],
             m.split('Attribute of type ')[1].split(' on')[0])
            for m in CASES['lowercase_enum_values.hrdf']['warnings']}
    assert pairs == hebi


def test_include_version_mismatch_is_a_warning_naming_both_versions() -> None:
    result = load(INVALID / 'include_version_mismatch.hrdf')
    [warning] = [w for w in result.warnings if w.code == 'HRDF_INCLUDE_VERSION']
    assert '1.5.0' in warning.message and '1.6.0' in warning.message
    assert warning.line is not None


@pytest.mark.parametrize('name', ['include_cycle.hrdf', 'formula_2_pi.hrdf'])
def test_cli_exits_1_with_the_sentence(name: str) -> None:
    run = subprocess.run([sys.executable, '-m', 'robot_formats.cli', 'check', str(INVALID / name)],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 1
    assert 'Traceback' not in run.stderr
    assert '.hrdf:' in run.stderr


# --- quirks/: what the spec allows and HEBI refuses (we follow the spec, with a warning) -------

QUIRKS = json.loads((INVALID.parent / 'quirks' / 'verdicts.json').read_text())['cases']


@pytest.mark.parametrize('case', QUIRKS, ids=[c['file'] for c in QUIRKS])
def test_spec_valid_inputs_hebi_refuses_load_with_a_warning(case: dict) -> None:
    assert case['spec'] == 'valid' and case['hebi'] == 'reject'
    result = load(INVALID.parent / 'quirks' / case['file'])
    assert any(w.code == 'HRDF_HEBI_DIFFERS' for w in result.warnings), result.warnings


@pytest.mark.parametrize('name, mass', [('unary_plus.hrdf', 1.0),
                                        ('unary_minus_after_times.hrdf', -2.0),
                                        ('unary_minus_after_divide.hrdf', -2.0)])
def test_unary_signs_as_the_grammar_says(name: str, mass: float) -> None:
    result = load(INVALID.parent / 'quirks' / name)
    inertial = result.tree.links['rigid_body_0'].inertial
    if mass > 0:
        assert inertial.mass == mass
    else:  # a negative mass is read (HEBI would too) but kept out of the model, with a warning
        assert inertial is None or inertial.mass == 0.0
        assert any(w.code == 'HRDF_UNPHYSICAL_MASS' and str(mass) in w.message
                   for w in result.warnings), result.warnings


def test_rigid_body_output_attributes_are_the_outputs_defaults() -> None:
    """The spec's own multi-output example and its comments: <output trans="1.5 0 0"/> 'defaults
    to the Rx(pi) rotation', <output/> 'defaults to the Rx(pi) rotation and (0,0,0)
    translation'; output_trans is likewise the default position of the outputs."""
    import numpy as np
    flip = np.diag([1.0, -1.0, -1.0])  # Rx(pi)
    c, s = np.cos(np.pi / 4), np.sin(np.pi / 4)
    quarter = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])  # Rx(pi/4)
    poses = load(INVALID.parent / 'quirks' / 'rigid_body_output_rot_with_outputs.hrdf'
                 ).tree.forward([])
    for name, rotation, position in (('rigid_body_0/output', quarter, (0.5, 0, 0)),
                                     ('rigid_body_0/output1', flip, (1.5, 0, 0)),
                                     ('rigid_body_0/output2', flip, (0, 0, 0))):
        assert np.allclose(poses[name][:3, :3], rotation, atol=1e-6), name
        assert np.allclose(poses[name][:3, 3], position, atol=1e-12), name
    poses = load(INVALID.parent / 'quirks' / 'rigid_body_output_trans_with_outputs.hrdf'
                 ).tree.forward([])
    assert np.allclose(poses['rigid_body_0/output'][:3, 3], (0.1, 0, 0))
    assert np.allclose(poses['rigid_body_0/output1'][:3, 3], (0.1, 0, 0))
    assert np.allclose(poses['rigid_body_0/output1'][:3, :3],
                       [[np.cos(1), -np.sin(1), 0], [np.sin(1), np.cos(1), 0], [0, 0, 1]])
