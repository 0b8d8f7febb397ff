"""``.xacro`` files load as ROS users expand them (the xacro package), with arguments; what
xacro refuses is a FormatError naming the file, never a crash."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import robot_formats
from robot_formats.core import errors as E
from robot_formats.formats import expand_xacro, load, load_text, read_document

ROOT = Path(__file__).resolve().parents[2]
XACRO = ROOT / 'test' / 'fixtures' / 'xacro' / 'two_link.urdf.xacro'


@pytest.mark.parametrize('arguments, height', [(None, 0.5), ({'length': '0.8'}, 0.8)])
def test_xacro_file_expands_with_its_arguments(arguments, height) -> None:
    result = load(XACRO, arguments)
    assert result.format == 'urdf'
    assert np.isclose(result.tree.forward({'shoulder': 0.0})['arm'][2, 3], height)


def test_expansion_is_the_urdf_xacro_writes() -> None:
    text = expand_xacro(XACRO, {'length': '0.8'}).decode('utf-8')
    assert '<box size="0.05 0.05 0.8"/>' in text
    from_text = load_text(text)
    assert from_text.path == '<robot_description>'
    assert set(from_text.tree.links) == {'base', 'arm'}


def test_check_reads_xacro() -> None:
    assert read_document(XACRO).format == 'urdf'


@pytest.mark.parametrize('body', [
    '<xacro:include filename="missing.xacro"/>',
    '<link name="${undefined_property}"/>',
    '<xacro:macro name="m" params="a"><link name="${a}"/></xacro:macro><xacro:m/>',
])
def test_what_xacro_refuses_is_a_format_error(tmp_path, body) -> None:
    path = tmp_path / 'bad.urdf.xacro'
    path.write_text(f'<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">{body}</robot>')
    with pytest.raises(E.XacroError) as info:
        robot_formats.load(path)
    assert info.value.file == str(path)
    assert 'xacro could not expand the file' in info.value.message
    assert '\n' not in str(info.value)
