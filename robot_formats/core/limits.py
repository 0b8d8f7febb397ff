"""The limits that keep hostile input from hanging a reader or filling memory (docs/limits.md).

Every input is bounded before it is expanded: a file's bytes (:data:`MAX_YAML_BYTES`,
:data:`MAX_MESH_BYTES`, and ``core.xmlsafe.MAX_XML_BYTES`` for XML documents), the nesting of
includes, and what one load may expand to (:class:`LoadBudget`): a world whose every file
includes the next one twice asks for 2^25 models in 25 levels, each level harmless alone.
Going beyond a limit is a :class:`~robot_formats.core.errors.LimitError` naming the file, the
line where one applies, and the limit.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from robot_formats.core.errors import CycleError, InvalidValueError, LimitError

__all__ = ['MAX_YAML_BYTES', 'MAX_MESH_BYTES', 'MAX_INCLUDE_DEPTH', 'MAX_NESTED_LOADS',
           'MAX_LOAD_DOCUMENTS', 'MAX_LOAD_BYTES', 'MAX_MAGNITUDE', 'LoadBudget', 'in_range',
           'within_range']

#: Largest YAML side file (a TMP configuration mapping, an XMDI servo mapping, a controllers
#: file, a file xacro's ``load_yaml`` reads). Real ones are a few kilobytes.
MAX_YAML_BYTES = 1 << 20
#: Largest mesh file read (rendering, simulation boxes, SKEL inertia), checked before it is
#: decoded. A 128 MiB binary STL holds 2.7 million triangles: more than any robot part needs.
MAX_MESH_BYTES = 128 << 20
#: Deepest include nesting of one format's files (HRDF ``<include>``; SDFormat's
#: ``ResolverConfig.max_depth`` defaults to it).
MAX_INCLUDE_DEPTH = 64
#: Deepest nesting of loads of one format from another (a TMP problem's robot file, an
#: SDFormat ``<include>`` of a URDF, HRDF or SKEL file, which may name further files).
MAX_NESTED_LOADS = 8
#: Most documents one load reads or copies, each counted every time it is included (the
#: document named first included). A world of 1,000 included robots is well inside.
MAX_LOAD_DOCUMENTS = 10_000
#: Most bytes of documents one load reads or copies, counted like :data:`MAX_LOAD_DOCUMENTS`.
MAX_LOAD_BYTES = 512 << 20
#: Largest magnitude of a number in a model (lengths in metres, masses, inertias, limits,
#: multipliers): far beyond any robot or world (SDFormat writes unbounded joint limits as
#: ±1e16), and small enough that products of a few of them stay finite.
MAX_MAGNITUDE = 1e18


def within_range(value: float) -> bool:
    """Whether a model may hold ``value``: finite and at most ``MAX_MAGNITUDE`` in magnitude
    (false for nan too). The one statement of the rule :func:`in_range` enforces."""
    return -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE


def in_range(values: Iterable[float], what: str, file: str | None, line: int | None) -> None:
    """Refuse (InvalidValueError VALUE_OUT_OF_RANGE naming ``what``) a value that is not finite
    or beyond ``±MAX_MAGNITUDE``: the rule for every number a model holds, applied where a
    reader reads it (``ReadingContext`` with ``bounded``), where a value is derived from
    others (a chain of mimics), and by :func:`robot_formats.core.ranges.check_ranges`."""
    for value in values:
        if not within_range(value):
            reason = ('beyond the largest magnitude a model may hold, '
                      f'{MAX_MAGNITUDE:g} (docs/limits.md)' if value == value
                      and abs(value) != float('inf') else 'not a finite number')
            raise InvalidValueError(f'{what}: {value!r} is {reason}', file, line,
                                    code='VALUE_OUT_OF_RANGE')


class LoadBudget:
    """What one load may still read or copy; shared by the loads it nests (handed down in the
    :class:`~robot_formats.formats.spec.LoadContext`), never between two loads.

    Readers call :meth:`charge` for every document they read or copy (an include read once and
    copied 1,000 times is charged 1,000 times) and wrap a nested load in :meth:`nested`."""

    __slots__ = ('documents', 'bytes', '_nesting')

    def __init__(self) -> None:
        self.documents = 0
        self.bytes = 0
        self._nesting: list[str | Path] = []  # the files being loaded, outermost first

    def charge(self, size: int, file: str | Path | None, line: int | None = None,
               documents: int = 1) -> None:
        """Count ``documents`` more documents of ``size`` bytes in all; LimitError (at
        ``file``:``line``, where the include that asked for them is) beyond a limit."""
        self.documents += documents
        self.bytes += size
        if self.documents > MAX_LOAD_DOCUMENTS:
            raise LimitError(f'the includes expand to more than {MAX_LOAD_DOCUMENTS} documents '
                             '(each counted every time it is included), the limit of one load',
                             file, line)
        if self.bytes > MAX_LOAD_BYTES:
            raise LimitError(f'the includes expand to more than {MAX_LOAD_BYTES >> 20} MiB of '
                             'documents (each counted every time it is included), the limit of '
                             'one load', file, line)

    def enter(self, path: str | Path) -> None:
        """Start the nested load of ``path`` (end it with :meth:`leave`): CycleError when the
        file is already being loaded, LimitError beyond :data:`MAX_NESTED_LOADS`. Files are
        told apart by their real paths, worked out only for a load nested in another (the
        only one that can close a cycle; resolving a path costs a system call per directory)."""
        if self._nesting:
            key = os.path.realpath(path)
            loading = [os.path.realpath(p) for p in self._nesting]
            if key in loading:
                chain = ' -> '.join(Path(p).name for p in [*loading[loading.index(key):], key])
                raise CycleError(f'the file is loaded from within its own load ({chain})',
                                 str(path), code='INCLUDE_CYCLE')
            if len(self._nesting) > MAX_NESTED_LOADS:
                raise LimitError(f'files of other formats nest more than {MAX_NESTED_LOADS} '
                                 'deep (a problem naming a world including a robot ...), the '
                                 'limit', str(path))
        self._nesting.append(path)

    def leave(self) -> None:
        self._nesting.pop()
