"""XMDI 1.0 reader: the documented reconstruction, and reasonable variants with a warning.

The copy of the specification lost its tags (see docs/xmdi.md). What survives fixes the
structure, not the names: one root container, a container of motions, motions (``name``
required, only servo children), servos (``name`` required, exactly one position object
followed by one frames object, equal counts). The project reads and writes::

    <xmdi><motions><motion name="..."><servo name="...">
      <position>0 -.7 .2</position><frames>0 10 40</frames>
    </servo></motion></motions></xmdi>

Elements are recognised by their depth (root, container, motion, servo, object), so a file
using other names or letter case for them still reads, with one warning per unexpected name.
A root whose children are motions themselves (no container) is accepted with a warning too.
Everything the specification requires is checked, with file and line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree

from robot_formats.core.errors import Diagnostic, DuplicateNameError, InvalidValueError, SchemaError
from robot_formats.core.reading import ReadingContext
from robot_formats.core.xmlsafe import floats, local_name, read_xml
from robot_formats.formats.xmdi.document import Motion, MotionDocument, ServoTrack

if TYPE_CHECKING:
    from robot_formats.formats.spec import LoadContext

__all__ = ['parse_xmdi_element', 'read_element', 'read_xmdi', 'CANONICAL']

#: The names the project writes, by role.
CANONICAL = {'root': 'xmdi', 'container': 'motions', 'motion': 'motion', 'servo': 'servo',
             'position': 'position', 'frames': 'frames'}
#: Other spellings of the two objects that are recognised by name (compared lower-case).
_POSITION_NAMES = ('position', 'positions', 'pos')
_FRAMES_NAMES = ('frames', 'frame', 'keyframes')
_INTEGER = re.compile(r'[+-]?[0-9]+\Z')


def read_xmdi(path: str | Path) -> tuple[MotionDocument, tuple[Diagnostic, ...]]:
    """Read an XMDI file: (document, warnings). Raises the FormatError family."""
    warnings: list[Diagnostic] = []
    document = parse_xmdi_element(read_xml(path, warnings), str(path), warnings)
    return document, tuple(warnings)


class _Reader(ReadingContext):
    """The reading context of an XMDI document, and the variant names already reported (each
    unexpected name is reported once, at its first occurrence)."""

    __slots__ = ('_reported',)

    def __init__(self, file: str | None, warnings: list[Diagnostic]) -> None:
        super().__init__(file, warnings)
        self._reported: set[tuple[str, str]] = set()

    def check_name(self, element: etree._Element, role: str) -> None:
        tag, expected = local_name(element), CANONICAL[role]
        if tag == expected or (role, tag) in self._reported:
            return
        self._reported.add((role, tag))
        how = 'differs in letter case from' if tag.lower() == expected else 'is not'
        self.warn(f'<{tag}> {how} <{expected}>; reading it as the XMDI {role} element (the '
                  f'project writes <{expected}>)', element.sourceline, 'XMDI_VARIANT')


def _elements(element: etree._Element) -> list[etree._Element]:
    return [child for child in element if isinstance(child.tag, str)]


def _motion_elements(root: etree._Element) -> tuple[list[etree._Element], bool]:
    """(motion elements, whether they sit directly under the root without a container)."""
    children = _elements(root)
    if children and all(local_name(c).lower() == 'motion' for c in children):
        return children, True
    return [motion for container in children for motion in _elements(container)], False


def read_element(path: Path, root: etree._Element, warnings: list[Diagnostic],
                 context: LoadContext) -> MotionDocument:
    """The registry's reader of XMDI (``FormatSpec.reader``, a ``'motion'`` document):
    :func:`parse_xmdi_element`."""
    return parse_xmdi_element(root, str(path), warnings)


def parse_xmdi_element(root: etree._Element, file: str | None,
                       warnings: list[Diagnostic]) -> MotionDocument:
    """Build a :class:`MotionDocument` from a parsed root element."""
    reader = _Reader(file, warnings)
    reader.check_name(root, 'root')
    children = _elements(root)
    if not children:
        raise SchemaError(f'<{local_name(root)}> contains no motions (an XMDI file holds a '
                          'container of <motion> elements)', file, root.sourceline)
    motions_elements, bare = _motion_elements(root)
    if bare:
        reader.warn(f'the <motion> elements sit directly in <{local_name(root)}>; XMDI puts '
                    'them in a <motions> container', children[0].sourceline, 'XMDI_VARIANT')
    else:
        for container in children:
            reader.check_name(container, 'container')
    motions: list[Motion] = []
    seen: dict[str, int | None] = {}
    for element in motions_elements:
        motion = _motion(reader, element)
        if motion.name in seen:
            raise DuplicateNameError(f'motion name {motion.name!r} is used twice (first on line '
                                     f'{seen[motion.name]}); motion names must be unique',
                                     file, element.sourceline)
        seen[motion.name] = element.sourceline
        motions.append(motion)
    if not motions:
        raise SchemaError('the file contains no <motion> elements', file, root.sourceline)
    return MotionDocument(tuple(motions), file)


def _required_name(reader: _Reader, element: etree._Element, role: str) -> str:
    name = element.get('name')
    if name is None or not name.strip():
        what = 'a' if name is None else 'a non-empty'
        raise SchemaError(f'<{local_name(element)}> needs {what} "name" attribute (every XMDI '
                          f'{role} is named)', reader.file, element.sourceline)
    return name


def _motion(reader: _Reader, element: etree._Element) -> Motion:
    reader.check_name(element, 'motion')
    name = _required_name(reader, element, 'motion')
    servos: list[ServoTrack] = []
    seen: dict[str, int | None] = {}
    for child in _elements(element):
        servo = _servo(reader, child)
        if servo.name in seen:
            raise DuplicateNameError(f'servo {servo.name!r} appears twice in motion {name!r} '
                                     f'(first on line {seen[servo.name]}); servo names must be '
                                     'unique within a motion', reader.file, child.sourceline)
        seen[servo.name] = child.sourceline
        servos.append(servo)
    if not servos:
        raise SchemaError(f'motion {name!r} contains no servo elements', reader.file,
                          element.sourceline)
    extra = tuple((key, value) for key, value in element.attrib.items() if key != 'name')
    return Motion(name, tuple(servos), extra, element.sourceline)


def _servo(reader: _Reader, element: etree._Element) -> ServoTrack:
    reader.check_name(element, 'servo')
    name = _required_name(reader, element, 'servo')
    objects = _elements(element)
    if len(objects) != 2:
        raise SchemaError(f'servo {name!r} has {len(objects)} child element(s); a servo holds '
                          'exactly one position object followed by one frames object',
                          reader.file, element.sourceline)
    position, frames = objects
    _check_object_order(reader, name, position, frames)
    for obj in objects:
        if obj.attrib:
            reader.warn(f'<{local_name(obj)}> has attributes ({", ".join(obj.attrib)}); XMDI '
                        'objects carry none: they are ignored', obj.sourceline, 'XMDI_VARIANT')
    values = floats(position.text, reader.file, position.sourceline,
                    f'servo {name!r} <{local_name(position)}>')
    keys = _frames(reader, name, frames)
    if len(values) != len(keys):
        raise InvalidValueError(f'servo {name!r} has {len(values)} position values but '
                                f'{len(keys)} frames; the counts must be equal', reader.file,
                                frames.sourceline)
    if not keys:
        raise InvalidValueError(f'servo {name!r} has no key frames (its position and frames '
                                'objects are empty)', reader.file, position.sourceline)
    return ServoTrack(name, values, keys, element.sourceline)


def _check_object_order(reader: _Reader, servo: str, first: etree._Element,
                        second: etree._Element) -> None:
    a, b = local_name(first).lower(), local_name(second).lower()
    if a in _FRAMES_NAMES and b in _POSITION_NAMES:
        raise SchemaError(f'servo {servo!r}: the position object must come before the frames '
                          f'object (found <{local_name(first)}> first)', reader.file,
                          first.sourceline)
    for element, role, names in ((first, 'position', _POSITION_NAMES),
                                 (second, 'frames', _FRAMES_NAMES)):
        if local_name(element).lower() not in names:
            reader.warn(f'<{local_name(element)}> in servo {servo!r} is read as the {role} '
                        f'object by its place (the project writes <{CANONICAL[role]}>)',
                        element.sourceline, 'XMDI_VARIANT')
        else:
            reader.check_name(element, role)


def _frames(reader: _Reader, servo: str, element: etree._Element) -> tuple[int, ...]:
    """Key frame indices: non-negative integers, strictly increasing."""
    line = element.sourceline
    keys: list[int] = []
    for token in (element.text or '').split():
        if not _INTEGER.match(token):
            floats(token, reader.file, line, f'servo {servo!r} <{local_name(element)}>')
            raise InvalidValueError(f'servo {servo!r}: frame {token!r} is not an integer (frames '
                                    'count 32 ms simulation steps)', reader.file, line)
        value = int(token)
        if value < 0:
            raise InvalidValueError(f'servo {servo!r}: frame {value} is negative', reader.file,
                                    line)
        if keys and value <= keys[-1]:
            raise InvalidValueError(f'servo {servo!r}: frames must be strictly increasing '
                                    f'({keys[-1]} then {value})', reader.file, line)
        keys.append(value)
    return tuple(keys)
