"""The formula grammar, rotations and translations (HRDF 1.6.0 "Types", HEBI's GRAMMAR.md).

Valid and invalid examples are the spec's own, plus the cases HEBI's library was measured on
(goldens/hrdf/INDEX.md "Parsing facts"); expected values are computed by hand here, not by
the parser.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from lxml import etree

from robot_formats.core.errors import InvalidValueError
from robot_formats.formats.hrdf.formula import (FormulaError, evaluate, is_plain_number,
                                                leading_number)
from robot_formats.core.rotations import quat_rows
from robot_formats.formats.hrdf.values import Attrs, HrdfContext
from robot_formats.formats.hrdf.versions import Version

# --- the spec's "floating point" type ---------------------------------------------------------

SPEC_VALID_NUMBERS = {'3.24': 3.24, '0.324': 0.324, '.324': 0.324, '324': 324.0, '3.24e2': 324.0,
                      '-3.24E-2': -0.0324, '-3.24e+2': -324.0, '-32E4': -320000.0, '1.': 1.0}
SPEC_INVALID_NUMBERS = ['2.4.3', '2,000', '32,45', '3e2.4', '.', '- 1.3', '1. 02']


@pytest.mark.parametrize('text', SPEC_VALID_NUMBERS)
def test_spec_valid_floating_point(text: str) -> None:
    assert is_plain_number(text)
    assert evaluate(text) == pytest.approx(SPEC_VALID_NUMBERS[text], rel=1e-15)


@pytest.mark.parametrize('text', SPEC_INVALID_NUMBERS)
def test_spec_invalid_floating_point(text: str) -> None:
    assert not is_plain_number(text)


# --- formulas ---------------------------------------------------------------------------------

SPEC_VALID_FORMULAS = {
    'pi / 4': math.pi / 4, '1 + 4': 5.0, '32*45': 1440.0, '1 + 2 / 3 - 4 * 5': 1 + 2 / 3 - 20,
    '1 + 2 / (3 - 4) * 5': 1 + 2 / (3 - 4) * 5, '(100 + 45) / (3*pi)': 145 / (3 * math.pi),
    '32e-2*pi': 0.32 * math.pi,
}
MORE_VALID = {
    '- 1.3': -1.3, '1+-1': 0.0, '2--1': 3.0, '----1': 1.0, '2*(-1)': -2.0, '((2))': 2.0,
    ' \t\r\n7\n': 7.0, '2*3+4': 10.0, '2+3*4': 14.0, '8/2/2': 2.0, '8-2-2': 4.0,
    '-pi': -math.pi, '3*pi/4+0.1': 3 * math.pi / 4 + 0.1, '1.e1': 10.0, '5E+0': 5.0,
    '-(1+2)*3': -9.0, '0x10': 16.0, '+1': 1.0, '2*-1': -2.0,
}
INVALID_FORMULAS = ['2 pi', 'PI', '2.4.3', '1. 02', '2,000', '3e2.4', '.', '1+', '(1', '1)',
                    '0.3m', '', '   ', '*2', '2**3', '2^3', 'pi()', 'e', '1e', '()', 'Pi',
                    'sin(1)', '1 2', 'inf', 'nan', '2(3)', '(2)3', 'pipi', '1..2', '--', '1+*2']


@pytest.mark.parametrize('text', SPEC_VALID_FORMULAS)
def test_spec_valid_formula(text: str) -> None:
    assert evaluate(text) == pytest.approx(SPEC_VALID_FORMULAS[text], rel=1e-15)


@pytest.mark.parametrize('text', MORE_VALID)
def test_more_valid_formulas(text: str) -> None:
    assert evaluate(text) == pytest.approx(MORE_VALID[text], rel=1e-15, abs=1e-15)


@pytest.mark.parametrize('text', INVALID_FORMULAS)
def test_invalid_formula(text: str) -> None:
    with pytest.raises(FormulaError) as info:
        evaluate(text)
    assert 0 <= info.value.position <= len(text)


def test_division_by_zero_is_ieee_as_in_hebi() -> None:
    assert evaluate('1/0') == math.inf
    assert evaluate('-1/0') == -math.inf
    assert math.isnan(evaluate('0/0'))


def test_grammar_hebi_refuses_is_reported_as_a_quirk() -> None:
    for text in ('+1', '2*-1', '2/-1', '0x10'):
        quirks: list = []
        evaluate(text, quirks)
        assert quirks, text
    for text in ('1+-1', '2*(-1)', '- 1.3'):
        quirks = []
        evaluate(text, quirks)
        assert not quirks, text


def test_parser_is_not_eval() -> None:
    for text in ('__import__("os")', '1 if 1 else 2', '[1]', 'abs(1)', '1;2', '1#'):
        with pytest.raises(FormulaError):
            evaluate(text)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    assert evaluate('(' * 90 + '1' + ')' * 90) == 1.0
    for text in ('(' * 5000 + '1' + ')' * 5000, '-' * 5000 + '1'):
        with pytest.raises(FormulaError, match='nested'):
            evaluate(text)


@pytest.mark.parametrize('text, value', [('pi', 0.0), ('0.1+0.2', 0.1), ('(2)', 0.0),
                                         ('0x10', 16.0), (' -3e1x', -30.0), ('', 0.0),
                                         ('0.1,', 0.1)])
def test_leading_number_reads_like_strtod(text: str, value: float) -> None:
    assert leading_number(text) == value


# --- attributes: versions, rotations, translations, enums ----------------------------------

def _attrs(version: Version = Version(1, 6, 0),  # noqa: B008 - a frozen dataclass: shared as is
           **values: str) -> tuple[Attrs, list]:
    element = etree.fromstring('<rigid-body/>')
    for key, value in values.items():
        element.set(key, value)
    warnings: list = []
    return Attrs(element, 'x.hrdf', version, HrdfContext('x.hrdf', warnings)), warnings


def test_version_1_0_0_reads_leading_numbers_with_a_warning() -> None:
    attrs, warnings = _attrs(Version(1, 0, 0), mass='0.1+0.2', twist='pi')
    assert attrs.formula('mass') == 0.1
    assert attrs.formula('twist') == 0.0
    assert len(warnings) == 2


def test_formula_error_names_attribute_and_value() -> None:
    attrs, _ = _attrs(mass='2 pi')
    with pytest.raises(InvalidValueError) as info:
        attrs.formula('mass')
    assert "mass='2 pi'" in str(info.value) and info.value.file == 'x.hrdf'


def _rx(a: float) -> np.ndarray:
    return np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])


def _rz(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])


def _ry(a: float) -> np.ndarray:
    return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])


@pytest.mark.parametrize('text, expected', [
    ('Rz(pi/2)', _rz(math.pi / 2)),
    ('Rz(3 * pi/4 + 0.1)', _rz(3 * math.pi / 4 + 0.1)),
    ('Rx(pi/2)*Rz(-pi/4)*Ry(pi/2)', _rx(math.pi / 2) @ _rz(-math.pi / 4) @ _ry(math.pi / 2)),
    (' Rx(1) * Ry((2)) ', _rx(1) @ _ry(2)),
    ('1 0 0\n0 1 0\n0 0 1', np.eye(3)),
    ('0 -1 0 1 0 0 0 0 1', _rz(math.pi / 2)),
])
def test_rotations(text: str, expected: np.ndarray) -> None:
    attrs, _ = _attrs(output_rot=text)
    quat = attrs.rotation('output_rot')
    assert math.isclose(sum(v * v for v in quat), 1.0, abs_tol=1e-15)
    assert np.allclose(quat_rows(quat), expected, atol=1e-15)


@pytest.mark.parametrize('text', ['rx(1)', 'Rx(1)Ry(1)', '(Rx(1))', 'Rw(1)', 'Rx(1)*', 'Rx 1',
                                  'Rx(1', '1 0 0 0 1 0 0 0 2', '-1 0 0 0 1 0 0 0 1',
                                  '1 0 0 0 1 0 0 0', '1 0 0 0 1 0 0 0 pi/pi', 'Rx(2 pi)', ''])
def test_invalid_rotations(text: str) -> None:
    attrs, _ = _attrs(output_rot=text)
    with pytest.raises(InvalidValueError):
        attrs.rotation('output_rot')


def test_rotation_tolerance_matches_hebi() -> None:
    almost, _ = _attrs(output_rot='1.000001 0 0 0 1 0 0 0 1')
    assert np.allclose(quat_rows(almost.rotation('output_rot')), np.eye(3))
    off, _ = _attrs(output_rot='1.00001 0 0 0 1 0 0 0 1')
    with pytest.raises(InvalidValueError):
        off.rotation('output_rot')


def test_rotation_formulas_need_1_1_0() -> None:
    attrs, _ = _attrs(Version(1, 0, 0), output_rot='Rx(1)')
    with pytest.raises(InvalidValueError, match='1.1.0'):
        attrs.rotation('output_rot')


def test_translations_read_leading_numbers_like_hebi() -> None:
    attrs, warnings = _attrs(output_trans='0.1+0.1 pi 0x10')
    assert attrs.translation('output_trans') == (0.1, 0.0, 16.0)
    assert len(warnings) == 3
    for text in ('0.1 0.2', '1 2 3 4', ''):
        attrs, _ = _attrs(output_trans=text)
        with pytest.raises(InvalidValueError):
            attrs.translation('output_trans')


def test_enums_ignore_case_with_a_warning() -> None:
    attrs, warnings = _attrs(type='x5-1')
    assert attrs.enum('type', ('X5-1', 'X5-4')) == 'X5-1'
    assert len(warnings) == 1
    assert attrs.enum('type', ('X8-3',)) is None


@pytest.mark.parametrize('text', ['1 0 0 0 1 0 0 0 1e309', 'nan 0 0 0 1 0 0 0 1',
                                  '0 0 1 1e309 1 0 -1 0 0', 'Rx(1/0)', 'Ry(-1/0)*Rz(1)',
                                  'Rz(1e308*10)'])
def test_non_finite_rotations_are_errors(text: str) -> None:
    """Found by fuzzing: a NaN matrix passed the orthonormality test and hung LAPACK's SVD, and
    Rx(inf) raised ValueError from math.cos. HEBI refuses the matrices too; for Rx(1/0) it gives
    NaN frames, which no URDF or TF can carry: an error here (docs/hrdf.md)."""
    attrs, _ = _attrs(output_rot=text)
    with pytest.raises(InvalidValueError, match='infinite|finite|not a number'):
        attrs.rotation('output_rot')
