"""The one error family of robot_formats, and the warnings that travel with a result.

Every failure to read a document is a :class:`FormatError` subclass carrying the file, the line
(when one applies) and a sentence a person can act on. ``str(error)`` is the ``file:line: message``
form the CLI prints. Warnings are never printed by the library: loaders collect them as
:class:`Diagnostic` records and return them with the result.

Codes follow libsdformat's names where one applies (``DUPLICATE_NAME``,
``FRAME_ATTACHED_TO_CYCLE``, ...), so a user who knows one tool recognises the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    'Diagnostic',
    'FormatError',
    'XmlSyntaxError',
    'UnsafeXmlError',
    'FileAccessError',
    'LimitError',
    'UnknownFormatError',
    'SchemaError',
    'InvalidValueError',
    'ReferenceError',
    'CycleError',
    'DuplicateNameError',
    'StructureError',
    'UnsupportedError',
    'location',
    'one_line',
    'ProblemCollector',
]

#: A line break with the indentation around it (:func:`one_line` folds each into a space).
_LINE_BREAK = r'\s*[\r\n]+\s*'


def one_line(text: str) -> str:
    """``text`` with its line breaks (and the indentation around them) folded into one space.

    Messages are printed as ``file:line: message``, one per line, and tools (editors, CI
    annotations, grep) read them that way; an XML parser's message may quote a multi-line
    comment or attribute, which must not break that form."""
    return re.sub(_LINE_BREAK, ' ', text).strip() if '\n' in text or '\r' in text else text


def location(file: str | Path | None, line: int | None) -> str:
    """Render ``file:line`` (or whichever part is known) for messages."""
    where = str(file) if file else '<input>'
    return f'{where}:{line}' if line else where


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A warning (or, inside collecting validators, an error) with its place in the source.

    ``severity`` is ``'warning'`` (the document is irregular: strict mode refuses it) or
    ``'note'`` (information only, e.g. another tool's extension element that was read past;
    strict mode accepts it). The message is always one line.
    """

    message: str
    file: str | None = None
    line: int | None = None
    code: str = 'WARNING'
    severity: str = 'warning'

    def __post_init__(self) -> None:
        if '\n' in self.message or '\r' in self.message:
            object.__setattr__(self, 'message', one_line(self.message))

    @property
    def is_note(self) -> bool:
        return self.severity == 'note'

    def __str__(self) -> str:
        return f'{location(self.file, self.line)}: {self.message}'


class FormatError(Exception):
    """Base of every error robot_formats raises for a document it cannot use.

    Attributes:
        message: one human sentence saying what is wrong (and, where possible, what to do).
        file: the document the problem is in, or None for in-memory input.
        line: 1-based line of the offending element, or None when no line applies.
        code: a stable upper-case name of the kind of problem (libsdformat's where one exists).
        related: the other problems found in the same validation stage (as libsdformat
            collects a stage's errors), each a FormatError with its own file and line; this
            one is the first. The CLI prints them all, one line each.
    """

    code = 'FORMAT_ERROR'
    related: tuple[FormatError, ...] = ()

    def __init__(self, message: str, file: str | Path | None = None, line: int | None = None,
                 code: str | None = None) -> None:
        self.message = one_line(message)
        self.file = str(file) if file is not None else None
        self.line = line
        if code is not None:
            self.code = code
        super().__init__(str(self))

    def __str__(self) -> str:
        return f'{location(self.file, self.line)}: {self.message}'

    def __reduce__(self):  # keep pickling (multiprocessing) working with keyword-ish state
        return (type(self), (self.message, self.file, self.line, self.code))

    def problems(self) -> tuple[FormatError, ...]:
        """This error and the related ones, in the order they were found."""
        return (self, *self.related)


class ProblemCollector:
    """Runs the checks of one validation stage, collecting every FormatError instead of
    stopping at the first (libsdformat's stages report all their errors); :meth:`raise_any`
    ends the stage with the first error, the others attached as ``related``."""

    def __init__(self) -> None:
        self.errors: list[FormatError] = []
        self._seen: set[tuple[str | None, int | None, str]] = set()

    def check(self, function, *args) -> None:
        try:
            function(*args)
        except FormatError as err:
            for problem in err.problems():  # one cause reached twice: once
                key = (problem.file, problem.line, problem.message)
                if key not in self._seen:
                    self._seen.add(key)
                    self.errors.append(problem)

    def raise_any(self) -> None:
        if self.errors:
            first, *rest = self.errors
            first.related = tuple(rest)
            raise first


class XmlSyntaxError(FormatError):
    """The document is not well-formed XML."""

    code = 'XML_SYNTAX'


class XacroError(FormatError):
    """xacro could not expand a ``.xacro`` file."""

    code = 'XACRO_ERROR'


class UnsafeXmlError(FormatError):
    """The document uses XML features refused for safety: DTDs, entities, oversize input."""

    code = 'XML_UNSAFE'


class FileAccessError(FormatError):
    """A file could not be found or read."""

    code = 'FILE_READ'


class LimitError(FormatError):
    """The input goes beyond one of the documented limits (docs/limits.md): a file too large,
    includes too many or too deep, an expansion (xacro, sampling) too long or too large. It is
    refused whole rather than read without bound."""

    code = 'LIMIT_EXCEEDED'


class UnknownFormatError(FormatError):
    """Neither the file extension nor the root element names a format robot_formats reads."""

    code = 'UNKNOWN_FORMAT'


class SchemaError(FormatError):
    """A required element or attribute is missing, or an element is not allowed where it is."""

    code = 'ELEMENT_INVALID'


class InvalidValueError(FormatError):
    """A value could not be read: not a number, not finite, out of range, wrong count."""

    code = 'ELEMENT_INCORRECT_TYPE'


class ReferenceError(FormatError):  # noqa: A001 - deliberate: the format-level meaning
    """A name refers to a link, joint or frame that does not exist."""

    code = 'REFERENCE_INVALID'


class CycleError(FormatError):
    """Links, joints or frames form a loop where a tree is required."""

    code = 'CYCLE'


class DuplicateNameError(FormatError):
    """Two siblings share a name that must be unique."""

    code = 'DUPLICATE_NAME'


class StructureError(FormatError):
    """The kinematic structure is not a usable tree (several roots, several parents, ...)."""

    code = 'STRUCTURE_INVALID'


class UnsupportedError(FormatError):
    """The document is valid but asks for something robot_formats does not do."""

    code = 'UNSUPPORTED'
