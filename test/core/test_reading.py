"""The reading context every format reads through (robot_formats.core.reading)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lxml import etree

from robot_formats.core.errors import InvalidValueError, SchemaError
from robot_formats.core.reading import ReadingContext


def _element(text: str) -> etree._Element:
    return etree.fromstring(text)


def test_numbers_of_text_and_attributes_with_defaults() -> None:
    ctx = ReadingContext('r.xml', [])
    assert ctx.vector(_element('<size> 1 2\t3 </size>'), 3) == (1.0, 2.0, 3.0)
    assert ctx.vector(_element('<origin xyz="1 2 3"/>'), 3, attribute='xyz') == (1.0, 2.0, 3.0)
    assert ctx.vector(_element('<origin/>'), 3, (0.0, 0.0, 0.0), attribute='xyz') == (0, 0, 0)
    assert ctx.vector(None, 2, (4.0, 5.0)) == (4.0, 5.0)
    assert ctx.vector(_element('<v>1 2 3 4 5</v>'), None) == (1, 2, 3, 4, 5)
    assert ctx.number(_element('<mass value="2.5"/>'), attribute='value') == 2.5
    assert ctx.number(None, 7.0) == 7.0
    assert ctx.number(_element('<upper>-INF</upper>'), infinite=True) == float('-inf')


@pytest.mark.parametrize('xml, count, attribute, error, message', [
    ('<size>1 2</size>', 3, None, InvalidValueError, "<size>: expected 3 numbers, got 2"),
    ('<size>1 two 3</size>', 3, None, InvalidValueError, "<size>: 'two' is not a number"),
    ('<size>1 nan 2</size>', 3, None, InvalidValueError, "<size>: 'nan' is not a finite"),
    ('<size>1 inf 2</size>', 3, None, InvalidValueError, "<size>: 'inf' is not a finite"),
    ('<box size="1 1_0 1"/>', 3, 'size', InvalidValueError, "<box size>: '1_0' is not a number"),
    ('<box/>', 3, 'size', SchemaError, "<box> needs a 'size' attribute"),
])
def test_text_that_is_not_the_numbers_asked_for_is_refused_with_file_and_line(
        xml: str, count: int, attribute: str | None, error: type, message: str) -> None:
    ctx = ReadingContext('r.xml', [])
    with pytest.raises(error) as raised:
        ctx.vector(_element(f'<a>\n\n{xml}</a>')[0], count, attribute=attribute)
    assert raised.value.file == 'r.xml' and raised.value.line == 3
    assert message in raised.value.message


def test_bounded_numbers_are_refused_where_they_are_read() -> None:
    element = _element('<a>\n<mass value="1e300"/></a>')[0]
    assert ReadingContext('r.xml', []).number(element, attribute='value') == 1e300
    bounded = ReadingContext('r.xml', [], bounded=True)
    with pytest.raises(InvalidValueError) as raised:
        bounded.number(element, attribute='value')
    assert (raised.value.code, raised.value.line) == ('VALUE_OUT_OF_RANGE', 2)
    assert '<mass value>: 1e+300 is beyond the largest magnitude' in raised.value.message
    assert bounded.number(element, attribute='value', bounded=False) == 1e300
    assert bounded.vector(_element('<v>-1e18 1e18</v>'), 2) == (-1e18, 1e18)


def test_a_bounded_read_refuses_infinity_too_unless_it_asks_for_an_unbounded_one() -> None:
    """inf is read before the bound is looked at (it is no finite text): a bounded read must
    still refuse it, whether the format reads inf everywhere or the read asks for it."""

    class Everywhere(ReadingContext):
        reads_infinity = True

    element = _element('<a>\n\n<mass>-inf</mass></a>')[0]
    assert Everywhere('r.xml', []).number(element) == float('-inf')
    for ctx, infinite in ((Everywhere('r.xml', [], bounded=True), False),
                          (ReadingContext('r.xml', [], bounded=True), True)):
        with pytest.raises(InvalidValueError) as raised:
            ctx.number(element, infinite=infinite)
        assert (raised.value.code, raised.value.line) == ('VALUE_OUT_OF_RANGE', 3)
        assert '<mass>' in raised.value.message
        assert ctx.number(element, infinite=infinite, bounded=False) == float('-inf')


def test_booleans_as_every_reference_tool_reads_them() -> None:
    ctx = ReadingContext('r.xml', [])
    for text, value in (('true', True), (' TRUE ', True), ('1', True), ('false', False),
                        ('False', False), ('0', False)):
        assert ctx.boolean(_element(f'<static>{text}</static>')) is value
    assert ctx.boolean(None, True) is True
    assert ctx.boolean(_element('<link gravity="0"/>'), True, attribute='gravity') is False
    with pytest.raises(InvalidValueError) as raised:
        ctx.boolean(_element('<static>yes</static>'))
    assert raised.value.message == "<static> must be true/false or 1/0, not 'yes'"
    assert raised.value.code == InvalidValueError.code

    class Coded(ReadingContext):
        boolean_code = 'ELEMENT_INVALID'

    with pytest.raises(InvalidValueError) as raised:
        Coded('r.xml', []).boolean(_element('<static>2</static>'))
    assert raised.value.code == 'ELEMENT_INVALID'


def test_a_format_reads_past_what_its_reference_tool_reads_past() -> None:
    class Lenient(ReadingContext):
        def read_past(self, element, text, count, attribute):
            self.warn(f'read {text!r} as zeros', element.sourceline, 'TEST_NUMBER')
            return (0.0,) * (count or 1)

    warnings: list = []
    ctx = Lenient('r.xml', warnings)
    assert ctx.vector(_element('<v>1 2 3x</v>'), 3) == (0.0, 0.0, 0.0)
    assert ctx.vector(_element('<v>1 2 3</v>'), 3) == (1.0, 2.0, 3.0)  # strict text: as is
    assert [(w.code, w.file, w.line) for w in warnings] == [('TEST_NUMBER', 'r.xml', 1)]


def test_warnings_and_notes_name_the_file() -> None:
    warnings: list = []
    ctx = ReadingContext('r.xml', warnings)
    ctx.warn('irregular', 4, 'X_CODE')
    ctx.warn('for information', 5, 'X_NOTE', note=True)
    ctx.warn('in an included file', 6, 'X_CODE', file='part.xml')
    assert [(w.file, w.line, w.code, w.is_note) for w in warnings] == [
        ('r.xml', 4, 'X_CODE', False), ('r.xml', 5, 'X_NOTE', True),
        ('part.xml', 6, 'X_CODE', False)]


def test_a_text_read_again_is_checked_again_unless_it_was_in_range() -> None:
    """A document's texts are read once each, but a number beyond the bound read where the
    bound is waived (a value the model does not keep) is still refused where it applies,
    and numbers kept for one count are refused for another."""
    ctx = ReadingContext('r.xml', [], bounded=True)
    mass = _element('<a>\n<mass value="1e300"/></a>')[0]
    assert ctx.number(mass, attribute='value', bounded=False) == 1e300
    with pytest.raises(InvalidValueError) as raised:
        ctx.number(mass, attribute='value')
    assert (raised.value.code, raised.value.line) == ('VALUE_OUT_OF_RANGE', 2)
    far = _element('<v>1e300 0 0</v>')
    assert ctx.vector(far, 3, bounded=False) == (1e300, 0.0, 0.0)
    with pytest.raises(InvalidValueError, match='VALUE_OUT_OF_RANGE|beyond the largest'):
        ctx.vector(far, 3)
    assert ctx.vector(_element('<v>1 2 3</v>'), 3) == (1.0, 2.0, 3.0)
    with pytest.raises(InvalidValueError, match='expected 2 numbers, got 3'):
        ctx.vector(_element('<v>1 2 3</v>'), 2)
    assert ctx.number(_element('<v>4</v>')) == ctx.number(_element('<w>4</w>')) == 4.0


class _CountingFolder(ReadingContext):
    """Counts the times the document's folder is asked for."""

    def __init__(self, file: str) -> None:
        super().__init__(file, [])
        self.asked = 0

    @property
    def base_dir(self) -> Path | None:
        self.asked += 1
        return super().base_dir


def test_file_names_resolve_against_the_real_folder_worked_out_only_when_needed(
        tmp_path: Path) -> None:
    (tmp_path / 'real').mkdir()
    (tmp_path / 'link').symlink_to(tmp_path / 'real', target_is_directory=True)
    ctx = _CountingFolder(str(tmp_path / 'link' / 'robot.urdf'))
    assert ctx.uri('package://arm/meshes/base.stl') == 'package://arm/meshes/base.stl'
    assert ctx.uri('https://example.org/m.dae') == 'https://example.org/m.dae'
    assert ctx.uri('/meshes/base.stl') == 'file:///meshes/base.stl'
    assert ctx.asked == 0  # no relative name: no system call for the folder
    real = Path(os.path.realpath(tmp_path / 'real'))
    assert ctx.uri('meshes/base.stl') == (real / 'meshes' / 'base.stl').as_uri()
    assert ctx.uri('../real/m.stl') == (real / 'm.stl').as_uri()
    assert ctx.asked == 2 and ctx.base_dir == real
