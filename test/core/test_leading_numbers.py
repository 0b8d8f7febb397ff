"""How C++ readers (DART's std::stod, libsdformat's streams) read numbers robot_formats' strict
reader refuses: core.xmlsafe.leading_numbers and streamed_numbers, which the SKEL and SDFormat
readers share."""

from __future__ import annotations

import pytest

from robot_formats.core.xmlsafe import leading_numbers, streamed_numbers


@pytest.mark.parametrize('text, hexadecimal, read', [
    ('0.5" 1x 2', False, (0.5, 1.0, 2.0)),
    ('1.5e3kg -.25', False, (1500.0, -0.25)),
    ('0x1g', True, (1.0,)),
    ('0x1g', False, (0.0,)),           # decimal: the 0 before the x
    ('-0X.8p1', True, (-1.0,)),
    ('abc', False, None),              # no number at the start: refused
    ('1 two', True, None),
    ('1e999', False, None),            # not finite
    ('0x1p99999', True, None),         # too large for a double: refused, never raised
])
def test_leading_numbers_as_std_stod(text, hexadecimal, read) -> None:
    assert leading_numbers(text, hexadecimal) == read


@pytest.mark.parametrize('text, count, read', [
    ('0 0 1"', 3, (0.0, 0.0, 1.0)),
    ('1 2 3 4', 3, (1.0, 2.0, 3.0)),   # the stream stops after the values it needs
    ('0 1x 0', 3, None),               # the x stops the stream: the third value is unread
    ('2.5kg', 1, (2.5,)),
    ('', 1, None),
])
def test_streamed_numbers_as_a_cpp_stream(text, count, read) -> None:
    assert streamed_numbers(text, count) == read
