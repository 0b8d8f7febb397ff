"""Typed access to SDFormat element text: numbers, booleans, poses in every form real files use.

libsdformat reports unreadable values as ``ELEMENT_INVALID``; so do we, with file and line.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from lxml import etree

from robot_formats.core.errors import InvalidValueError, SchemaError
from robot_formats.core.reading import NumberTables, ReadingContext
from robot_formats.core.rotations import rpy_rows
from robot_formats.core.transforms import quat_to_rotation
from robot_formats.core.xmlsafe import leading_numbers, local_name, numbers, streamed_numbers
from robot_formats.formats.sdformat.dom import IDENTITY, PoseSpec

if TYPE_CHECKING:
    from robot_formats.core.limits import LoadBudget

__all__ = ['SdfContext', 'child', 'first_children', 'children', 'text', 'pose_of', 'pose_from',
           'parse_version']


class SdfContext(ReadingContext):
    """The reading context of an SDFormat document: its spec version (1.5/1.6 spell a pose's
    frame differently), and libsdformat's rules for numbers (:meth:`read_past`; ``inf`` is
    read wherever a number is) and for the error code of a bad value (``ELEMENT_INVALID``).

    Reads are bounded (core.ranges' rule, at the value's line): the format checks its own
    ranges (``FormatSpec.checks_ranges``). What the model does not keep as read is read with
    ``bounded=False`` and checked where it is kept or derived (limits, a screw's pitch, the
    composed poses of the scene)."""

    __slots__ = ('version', 'poses')

    boolean_code = 'ELEMENT_INVALID'
    reads_infinity = True

    def __init__(self, file: str | None, warnings: list, version: tuple[int, int],
                 budget: LoadBudget | None = None, poses: dict | None = None,
                 tables: NumberTables | None = None) -> None:
        super().__init__(file, warnings, budget, bounded=True, tables=tables)
        self.version = version
        #: The matrix of each distinct pose read so far (its text, rotation_format and degrees
        #: attributes -> the read-only matrix every pose written so shares; a loader hands
        #: all its documents one table): each is worked out once. Poses read with a warning
        #: are not kept (each one warns at its own line).
        self.poses: dict[tuple[str, str | None, str | None], np.ndarray] = \
            {} if poses is None else poses

    def read_past(self, element: etree._Element, text: str, count: int | None,
                  attribute: str | None) -> tuple[float, ...]:
        """Values and vectors as libsdformat streams them (:func:`_lenient`)."""
        return _lenient(self, element, text, count, streamed=True)


def child(element: etree._Element, tag: str) -> etree._Element | None:
    """The first child element named ``tag`` (namespace-free), or None."""
    for sub in element:
        if sub.tag == tag:
            return sub
    return None


def first_children(element: etree._Element) -> dict[str, etree._Element]:
    """Each child's tag → the first child with that tag, in one pass over the children (what
    :func:`child` returns, for elements asked about several tags)."""
    found: dict[str, etree._Element] = {}
    for sub in element:
        found.setdefault(sub.tag, sub)
    return found


def children(element: etree._Element, tag: str) -> list[etree._Element]:
    return [sub for sub in element if sub.tag == tag]


def text(element: etree._Element | None, default: str = '') -> str:
    if element is None:
        return default
    return (element.text or '').strip()


def _lenient(ctx: SdfContext, element: etree._Element, text: str, count: int | None,
             streamed: bool) -> tuple[float, ...]:
    """``count`` numbers, which the strict reader refuses, as libsdformat 12 reads them, with an
    ``SDF_NUMBER`` warning: values and vectors through a C++ stream (``0.5"`` is 0.5, and the
    stream stops after ``count`` values), pose and colour entries (any count: ``count`` None)
    each through ``std::stod`` (``0"`` is 0).
    Text libsdformat cannot read either raises the strict reader's error."""
    what = f'<{local_name(element)}>'
    values = (streamed_numbers(text, count) if streamed and count else
              leading_numbers(text))  # decimal: hexadecimal entries stay refused
    if values is None or (count is not None and len(values) != count):
        # libsdformat refuses it too: the strict reader's error
        return ReadingContext.read_past(ctx, element, text, count, None)
    ctx.warn(f'{what} {text.strip()!r} has characters libsdformat reads past; read as '
             f'{" ".join(f"{v:g}" for v in values)}', element.sourceline, 'SDF_NUMBER')
    return values


def pose_of(ctx: SdfContext, holder: etree._Element) -> PoseSpec:
    """The holder's ``<pose>``: identity when absent or empty; ``relative_to`` as written.

    Forms: ``x y z roll pitch yaw`` (radians, or degrees with ``degrees="true"``) and
    ``x y z qx qy qz qw`` with ``rotation_format="quat_xyzw"`` (normalized on input).
    """
    return pose_from(ctx, child(holder, 'pose'))


def pose_from(ctx: SdfContext, element: etree._Element | None) -> PoseSpec:
    """:func:`pose_of` for the ``<pose>`` element itself (None: absent), for readers that
    collect an element's children in one pass."""
    if element is None:
        return _ABSENT
    relative_to = element.get('relative_to', '')
    if not relative_to and ctx.version < (1, 7) and element.get('frame'):
        relative_to = element.get('frame', '')  # 1.5/1.6 //pose/@frame, same meaning
    return PoseSpec(_pose_matrix(ctx, element), relative_to, element.sourceline, True)


#: The pose of elements without one (see :data:`.dom.IDENTITY`).
_IDENTITY = IDENTITY

#: The pose of an element without ``<pose>`` (one for all: a PoseSpec is immutable).
_ABSENT = PoseSpec(_IDENTITY)


def _pose_matrix(ctx: SdfContext, element: etree._Element) -> np.ndarray:
    text = element.text or ''  # (lxml makes a new string per .text)
    if not text or text.isspace():
        return _IDENTITY
    key = (text, element.get('rotation_format'), element.get('degrees'))
    matrix = ctx.poses.get(key)
    if matrix is None:
        warned = len(ctx.warnings)
        rotation_format = 'euler_rpy' if key[1] is None else key[1]
        matrix = _read_pose_matrix(ctx, element, text, rotation_format)
        matrix.setflags(write=False)  # (shared: see dom.IDENTITY)
        if len(ctx.warnings) == warned:
            ctx.poses[key] = matrix
    return matrix


def _read_pose_matrix(ctx: SdfContext, element: etree._Element, text: str,
                      rotation_format: str) -> np.ndarray:
    """The matrix of a ``<pose>`` whose text is ``text`` (not empty)."""
    degrees = _degrees(ctx, element) if element.get('degrees') is not None else False
    if rotation_format == 'quat_xyzw':
        if degrees:
            raise InvalidValueError('<pose degrees="true"> cannot be used with '
                                    'rotation_format="quat_xyzw"', ctx.file, element.sourceline,
                                    code='ELEMENT_INVALID')
        values = _pose_numbers(ctx, element, text, 7)
        quat = np.asarray(values[3:], dtype=float)
        norm = float(np.linalg.norm(quat))
        if norm < 1e-12:
            raise InvalidValueError('<pose> quaternion has zero length', ctx.file,
                                    element.sourceline, code='ELEMENT_INVALID')
        out = np.eye(4)
        out[:3, :3] = quat_to_rotation(quat / norm)
        out[:3, 3] = values[:3]
        return out
    if rotation_format != 'euler_rpy':
        raise InvalidValueError(f'<pose rotation_format={rotation_format!r}>: expected '
                                "'euler_rpy' or 'quat_xyzw'", ctx.file, element.sourceline,
                                code='ELEMENT_INVALID')
    x, y, z, roll, pitch, yaw = _pose_numbers(ctx, element, text, 6)
    if degrees:
        roll, pitch, yaw = math.radians(roll), math.radians(pitch), math.radians(yaw)
    return _xyz_rpy_matrix(x, y, z, roll, pitch, yaw)


def _xyz_rpy_matrix(x: float, y: float, z: float, roll: float, pitch: float, yaw: float
                    ) -> np.ndarray:
    if not (roll or pitch or yaw):  # most poses of real files only translate
        if not (x or y or z):
            return _IDENTITY
        out = _IDENTITY.copy()
        out[0, 3], out[1, 3], out[2, 3] = x, y, z
        return out
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = rpy_rows(roll, pitch, yaw)
    return np.array((r00, r01, r02, x, r10, r11, r12, y, r20, r21, r22, z,
                     0.0, 0.0, 0.0, 1.0)).reshape(4, 4)


def _degrees(ctx: SdfContext, element: etree._Element) -> bool:
    value = element.get('degrees', 'false').strip().lower()
    if value in ('1', 'true'):
        return True
    if value in ('0', 'false'):
        return False
    raise InvalidValueError(f'<pose degrees={value!r}> must be true or false', ctx.file,
                            element.sourceline, code='ATTRIBUTE_INVALID')


def _pose_numbers(ctx: SdfContext, element: etree._Element, text: str, count: int
                  ) -> tuple[float, ...]:
    """The ``count`` numbers of the pose ``element``, whose text is ``text``."""
    try:
        strict: tuple[float, ...] | None = numbers(text)
    except ValueError:
        strict = None
    if strict is not None and len(strict) == count:
        return strict
    try:
        return _lenient(ctx, element, text, count, streamed=False)
    except InvalidValueError as err:
        raise InvalidValueError(err.message, ctx.file, element.sourceline,
                                code='ELEMENT_INVALID') from None


def parse_version(value: str | None, file: str | None, line: int | None) -> tuple[int, int]:
    """``"1.8"`` → (1, 8). A missing or unreadable version is libsdformat's FILE_READ."""
    if value is None:
        raise SchemaError('<sdf> needs a version attribute (e.g. version="1.8")', file, line,
                          code='FILE_READ')
    major, _, minor = value.strip().partition('.')
    if not (major.isdigit() and minor.isdigit()):
        raise InvalidValueError(f'<sdf version={value!r}> is not a version like "1.8"', file,
                                line, code='FILE_READ')
    version = (int(major), int(minor))
    if not (1, 0) <= version <= (1, 12):
        raise InvalidValueError(f'SDFormat version {value} is not one robot_formats reads '
                                '(1.0 to 1.12)', file, line, code='FILE_READ')
    return version
