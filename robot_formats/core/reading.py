"""The reading context: what every format reader holds while it reads one document.

One class for every format (docs/adding-a-format.md): the file being read (for error
locations), the warnings sink, the folder relative references resolve against, and the load's
budget; and the readers of the values every format has, which turn bad text into the typed
:class:`~robot_formats.core.errors.FormatError` family with file and line:

* :meth:`ReadingContext.warn`: an irregularity the document is read past (strict mode refuses
  the document for it), at a line;
* :meth:`ReadingContext.vector` and :meth:`ReadingContext.number`: whitespace-separated finite
  numbers of an element's text or of an attribute; ``bounded``, each within the magnitude a
  model may hold (:func:`~robot_formats.core.limits.in_range`), refused at its line;
* :meth:`ReadingContext.boolean`: ``true``/``false``/``1``/``0`` in any letter case, which is
  what urdfdom, libsdformat, DART and HEBI all accept.

A format keeps only its own rules. Where its reference tool reads text the strict reader
refuses (libsdformat and DART read ``0.5"`` as 0.5), the format subclasses the context and
overrides :meth:`ReadingContext.read_past`; where it needs state of its own for the whole
document (SDFormat's version, HRDF's include stack) the subclass holds it.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Literal, overload

from lxml import etree

from robot_formats.core.errors import Diagnostic, InvalidValueError, SchemaError
from robot_formats.core.limits import LoadBudget, in_range, within_range
from robot_formats.core.meshes import mesh_uri
from robot_formats.core.xmlsafe import floats, local_name, number, numbers

__all__ = ['NumberTables', 'ReadingContext']

#: The numbers of each text read so far: text -> a vector's numbers, text -> one number. A
#: context keeps its own, or the documents of one load share one pair (a world's included
#: files repeat each other's texts); what they hold is the strict reader's numbers of a text,
#: kept only when within range, the same for every document and format.
NumberTables = tuple[dict[str, tuple[float, ...]], dict[str, float]]

_TRUE = frozenset({'1', 'true'})
_FALSE = frozenset({'0', 'false'})
_INFINITE = {'inf': math.inf, '+inf': math.inf, 'infinity': math.inf, '+infinity': math.inf,
             '-inf': -math.inf, '-infinity': -math.inf}


class ReadingContext:
    """One document being read: its file, warnings sink, base folder and budget, and the
    readers of numbers, vectors and booleans with file and line in their errors."""

    __slots__ = ('file', 'warnings', 'budget', 'bounded', '_base_dir', '_vectors', '_numbers')

    #: The error code of a boolean that is not one (a format may name its reference's code).
    boolean_code = InvalidValueError.code
    #: Whether :meth:`number` reads ``inf`` and ``-inf`` everywhere (libsdformat does), not
    #: only where a reader asks for them.
    reads_infinity = False

    def __init__(self, file: str | None, warnings: list[Diagnostic],
                 budget: LoadBudget | None = None, *, bounded: bool = False,
                 tables: NumberTables | None = None) -> None:
        self.file = file
        self.warnings = warnings
        #: What the load may still read or copy (None: read outside a load, no budget).
        self.budget = budget
        #: Whether a number read is refused beyond ``±MAX_MAGNITUDE`` (VALUE_OUT_OF_RANGE, at
        #: its line), by default: for a format whose numbers reach the model as read (a read
        #: may say otherwise for a value the model does not keep).
        self.bounded = bounded
        self._base_dir: Path | None = None
        #: The numbers of each text read so far (a document repeats its texts: ``0 0 0``,
        #: ``1``; each distinct one is read once), the document's own or its load's.
        self._vectors, self._numbers = ({}, {}) if tables is None else tables

    @property
    def base_dir(self) -> Path | None:
        """The folder relative references resolve against (the file's, symlinks resolved);
        worked out on first use: most documents never need it, and it costs system calls."""
        if self._base_dir is None and self.file:
            self._base_dir = Path(os.path.dirname(os.path.realpath(self.file)))
        return self._base_dir

    def uri(self, filename: str) -> str:
        """The URI a reader keeps for a file the document names (a mesh, a texture):
        :func:`~robot_formats.core.meshes.mesh_uri`, with :attr:`base_dir` worked out only if
        ``filename`` is a relative path."""
        return mesh_uri(filename, self._folder)

    def _folder(self) -> Path | None:
        """:attr:`base_dir`, as the function :func:`mesh_uri` calls when it needs it."""
        return self.base_dir

    def warn(self, message: str, line: int | None, code: str = 'WARNING', *,
             file: str | None = None, note: bool = False) -> None:
        """Record an irregularity at ``line`` of the document (``file``: of another file the
        document includes). ``note``: information, not an irregularity (strict mode accepts
        the document)."""
        self.warnings.append(Diagnostic(message, self.file if file is None else file, line,
                                        code, 'note' if note else 'warning'))

    # --- numbers ----------------------------------------------------------------------------
    @overload
    def vector(self, element: etree._Element | None, count: Literal[3],
               default: tuple[float, float, float] | None = None, *,
               attribute: str | None = None, bounded: bool | None = None
               ) -> tuple[float, float, float]: ...

    @overload
    def vector(self, element: etree._Element | None, count: Literal[2],
               default: tuple[float, float] | None = None, *,
               attribute: str | None = None, bounded: bool | None = None
               ) -> tuple[float, float]: ...

    @overload
    def vector(self, element: etree._Element | None, count: Literal[4],
               default: tuple[float, float, float, float] | None = None, *,
               attribute: str | None = None, bounded: bool | None = None
               ) -> tuple[float, float, float, float]: ...

    @overload
    def vector(self, element: etree._Element | None, count: int | None,
               default: tuple[float, ...] | None = None, *,
               attribute: str | None = None, bounded: bool | None = None
               ) -> tuple[float, ...]: ...

    def vector(self, element: etree._Element | None, count: int | None,
               default: tuple[float, ...] | None = None, *,
               attribute: str | None = None, bounded: bool | None = None
               ) -> tuple[float, ...]:
        """``count`` (any number: None) finite numbers of the element's text, or of its
        ``attribute``; ``default`` when the element or attribute is absent (without a default:
        a SchemaError naming what is missing). Typed by the count. ``bounded``: refuse a value
        beyond ``±MAX_MAGNITUDE`` here (default: the context's :attr:`bounded`)."""
        if element is None or (text := self._text(element, attribute)) is None:
            return self._absent(element, default, attribute)
        return self.vector_of(text, element, count, attribute=attribute, bounded=bounded)

    @overload
    def vector_of(self, text: str, element: etree._Element, count: Literal[3], *,
                  attribute: str | None = None, bounded: bool | None = None
                  ) -> tuple[float, float, float]: ...

    @overload
    def vector_of(self, text: str, element: etree._Element, count: int | None, *,
                  attribute: str | None = None, bounded: bool | None = None
                  ) -> tuple[float, ...]: ...

    def vector_of(self, text: str, element: etree._Element, count: int | None, *,
                  attribute: str | None = None, bounded: bool | None = None
                  ) -> tuple[float, ...]:
        """:meth:`vector` of ``text``, which the caller took from ``element`` (its text or its
        ``attribute``) because it needs the text too (a key, a presence check): a document's
        attribute is then taken once."""
        values = self._vectors.get(text)
        if values is not None and (count is None or len(values) == count):
            return values  # (a text read before: its numbers are in range, checked then)
        return self._read_vector(element, text, count, attribute,
                                 self.bounded if bounded is None else bounded)

    def _read_vector(self, element: etree._Element, text: str, count: int | None,
                     attribute: str | None, bounded: bool) -> tuple[float, ...]:
        """:meth:`vector` of a text not read before (or of another count): read by the strict
        reader, kept for the document's next reads of the same text when every number is
        within the bound (so a repeated text is neither read nor checked again)."""
        try:
            values = numbers(text)
        except ValueError:
            values = None
        if values is None or (count is not None and len(values) != count):
            values = self.read_past(element, text, count, attribute)
        elif all(map(within_range, values)):
            self._vectors[text] = values
            return values
        if bounded:
            in_range(values, self.what(element, attribute), self.file, element.sourceline)
        return values

    def number(self, element: etree._Element | None, default: float | None = None, *,
               attribute: str | None = None, infinite: bool = False,
               bounded: bool | None = None) -> float:
        """One finite number (:meth:`vector` of one, read as one token); ``infinite``: ``inf``
        and ``-inf`` (any case, C's spellings) are read too, where the format gives them a
        meaning (no limit); a bounded read refuses them like any value beyond the bound, so a
        read that keeps them says ``bounded=False``."""
        if element is None or (text := self._text(element, attribute)) is None:
            return self._absent(element, None if default is None else (default,), attribute)[0]
        return self.number_of(text, element, attribute=attribute, infinite=infinite,
                              bounded=bounded)

    def number_of(self, text: str, element: etree._Element, *, attribute: str | None = None,
                  infinite: bool = False, bounded: bool | None = None) -> float:
        """:meth:`number` of ``text``, which the caller took from ``element`` (its text or its
        ``attribute``) because it needs the text too (as :meth:`vector_of`)."""
        value = self._numbers.get(text)
        if value is not None:
            return value  # (a text read before: a finite number in range, checked then)
        return self._read_number(element, text, attribute, infinite or self.reads_infinity,
                                 self.bounded if bounded is None else bounded)

    def _read_number(self, element: etree._Element, text: str, attribute: str | None,
                     infinite: bool, bounded: bool) -> float:
        """:meth:`number` of a text not read before: ``inf`` where ``infinite`` says so, else
        the strict reader's number, kept for the document's next reads of the same text when
        it is within the bound."""
        if infinite:
            infinity = _INFINITE.get(text.strip().lower())
            if infinity is not None:
                if bounded:  # (a bounded read refuses inf too: ask bounded=False to keep it)
                    in_range((infinity,), self.what(element, attribute), self.file,
                             element.sourceline)
                return infinity
        try:
            value = number(text)
        except ValueError:  # not one finite number: as :meth:`vector` finds it
            value = self.read_past(element, text, 1, attribute)[0]
        else:
            if within_range(value):
                self._numbers[text] = value
                return value
        if bounded:
            in_range((value,), self.what(element, attribute), self.file, element.sourceline)
        return value

    @staticmethod
    def _text(element: etree._Element, attribute: str | None) -> str | None:
        """The element's text ('' when it has none) or its ``attribute`` (None: absent)."""
        if attribute is None:
            return element.text or ''
        return element.get(attribute)

    def _absent(self, element: etree._Element | None, default: tuple[float, ...] | None,
                attribute: str | None) -> tuple[float, ...]:
        """``default`` for an absent element or attribute; without one, a SchemaError naming
        the missing attribute (a TypeError for a missing element: the caller's mistake)."""
        if default is not None:
            return default
        if element is None:
            raise TypeError('vector() or number() of no element needs a default')
        raise SchemaError(f'<{local_name(element)}> needs a {attribute!r} attribute',
                          self.file, element.sourceline)

    def read_past(self, element: etree._Element, text: str, count: int | None,
                  attribute: str | None) -> tuple[float, ...]:
        """The numbers of ``text`` (the element's text or ``attribute``), which the strict
        reader refuses or finds a wrong count in: here, the strict reader's error, naming the
        element (or attribute), file and line. A format whose reference tool reads past stray
        characters overrides this with that tool's rule (and a warning)."""
        return floats(text, self.file, element.sourceline, self.what(element, attribute),
                      count)

    @staticmethod
    def what(element: etree._Element, attribute: str | None = None) -> str:
        """How messages name the element (``<mass>``) or its attribute (``<mass value>``)."""
        name = local_name(element)
        return f'<{name}>' if attribute is None else f'<{name} {attribute}>'

    # --- booleans ---------------------------------------------------------------------------
    def boolean(self, element: etree._Element | None, default: bool | None = None, *,
                attribute: str | None = None) -> bool:
        """``true``/``false``/``1``/``0`` in any letter case (what every reference tool
        accepts) of the element's text or its ``attribute``; ``default`` when absent."""
        if element is None or (text := self._text(element, attribute)) is None:
            if default is None:
                raise TypeError('boolean() of something absent needs a default')
            return default
        value = text.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise InvalidValueError(f'{self.what(element, attribute)} must be true/false or 1/0, '
                                f'not {text.strip()!r}', self.file, element.sourceline,
                                code=self.boolean_code)
