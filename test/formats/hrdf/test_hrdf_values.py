"""HRDF attribute values and element rules against independent references: translation
entries read as their leading numbers (C ``strtod``), Rx/Ry/Rz products vs the rotation
matrices multiplied in numpy, nine numbers near a rotation vs the nearest rotation (SVD), the
version gates vs the introduction table, the first refused attribute named, and the model
named after the file's stem (``Path.stem``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from robot_formats.core import errors as E
from robot_formats.formats import load
from robot_formats.formats.hrdf.formula import evaluate, is_plain_number, leading_number
from robot_formats.core.rotations import quat_rows
from robot_formats.formats.hrdf.values import Attrs, HrdfContext
from robot_formats.formats.hrdf.versions import INTRODUCED_IN, SUPPORTED, Version, parse_version


def _attrs(**values: str) -> tuple[Attrs, list]:
    element = etree.fromstring('<rigid-body/>')
    for key, value in values.items():
        element.set(key, value)
    warnings: list = []
    return Attrs(element, 'x.hrdf', Version(1, 6, 0), HrdfContext('x.hrdf', warnings)), warnings


@pytest.mark.parametrize('text', ['1 2 3', '+1 -0 .5', '1. 1e3 -2.5E-2', '0x10 1 1',
                                  '1,5 2 3', 'pi 0 0', '1e 2 3'])
def test_translations_read_plain_numbers_as_leading_numbers(text: str) -> None:
    attrs, warnings = _attrs(output_trans=text)
    got = attrs.translation('output_trans')
    expected = tuple(leading_number(part) for part in text.split())
    assert got == expected and all(math.copysign(1, a) == math.copysign(1, b)
                                   for a, b in zip(got, expected))
    assert len(warnings) == sum(not is_plain_number(part) for part in text.split())


@pytest.mark.parametrize('text', ['Rx(1.5)', 'Ry(-2)*Rz(3e-1)', 'Rz( 1 )', 'Rx(1.)*Rx(.5)',
                                  'Rz(7)'])
def test_rotation_terms_with_plain_angles_are_the_formula_angles(text: str) -> None:
    attrs, _ = _attrs(output_rot=text)
    expected = np.eye(3)
    for term in text.split('*'):
        axis, angle = term[1], evaluate(term[3:-1])
        c, s = math.cos(angle), math.sin(angle)
        expected = expected @ {'x': [[1, 0, 0], [0, c, -s], [0, s, c]],
                               'y': [[c, 0, s], [0, 1, 0], [-s, 0, c]],
                               'z': [[c, -s, 0], [s, c, 0], [0, 0, 1]]}[axis]
    assert np.allclose(quat_rows(attrs.rotation('output_rot')), expected, atol=1e-15)


def test_nine_numbers_near_a_rotation_are_its_nearest_rotation() -> None:
    exact = '0 -1 0 1 0 0 0 0 1'
    crooked = '0.000002 -1 0 1 0.000001 0 0 0 1.000001'
    attrs, _ = _attrs(output_rot=exact)
    assert np.allclose(quat_rows(attrs.rotation('output_rot')),
                       [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)
    attrs, _ = _attrs(output_rot=crooked)
    u, _, vt = np.linalg.svd(np.array(crooked.split(), dtype=float).reshape(3, 3))
    assert np.allclose(quat_rows(attrs.rotation('output_rot')), u @ vt, atol=1e-14)
    assert not np.allclose(u @ vt, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-7)


def test_version_features_are_the_introduction_table() -> None:
    for text in SUPPORTED:
        parsed = parse_version(text)
        assert parsed is not None
        version = parsed[0]
        number = tuple(int(p) for p in text.split('.'))
        for feature, first in INTRODUCED_IN.items():
            assert version.has(feature) is (number >= first), (text, feature)
        assert Version(*number) == version and hash(Version(*number)) == hash(version)
    assert parse_version(None) == (Version(1, 0, 0), False)
    assert parse_version('1.7.0') == (Version(1, 7, 0), True)
    assert parse_version('1.6') is None and parse_version('1.6.0 ') is None


def test_the_first_refused_attribute_is_named(tmp_path: Path) -> None:
    path = tmp_path / 'a.hrdf'
    path.write_text('<robot version="1.3.0"><actuator type="X5-1" tag="t" bogus="1"/></robot>')
    with pytest.raises(E.SchemaError, match="'tag' needs HRDF version 1.4.0") as info:
        load(path)
    assert info.value.code == 'HRDF_VERSION_GATE'
    path.write_text('<robot version="1.3.0"><actuator bogus="1" type="X5-1" tag="t"/></robot>')
    with pytest.raises(E.SchemaError, match="does not take the attribute 'bogus'") as info:
        load(path)
    assert info.value.code == 'ATTRIBUTE_INVALID'
    path.write_text('<robot version="1.4.0"><actuator type="X5-1" tag="t"/></robot>')
    assert 't' in load(path).tree.joints


@pytest.mark.parametrize('name, stem', [('arm.hrdf', 'arm'), ('a.b.hrdf', 'a.b'),
                                        ('a..hrdf', 'a.'), ('.hrdf', '.hrdf'),
                                        ('arm.HRDF', 'arm'), ('arm.xml', 'arm'),
                                        ('noext', 'noext')])
def test_model_is_named_after_the_file_stem(tmp_path: Path, name: str, stem: str) -> None:
    path = tmp_path / name
    path.write_text('<robot version="1.6.0"><actuator type="X5-1"/></robot>')
    from robot_formats.formats.hrdf import parse_hrdf_file
    assert parse_hrdf_file(path).models[0].name == stem == Path(path).stem
