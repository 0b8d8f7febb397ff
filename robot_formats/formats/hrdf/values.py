"""HRDF attribute types: formulas, rotation matrices, translation vectors, enums.

Every reader of an attribute goes through :class:`Attrs`, which knows the element, its file
and line, and the warnings sink, so a bad value becomes an
:class:`~robot_formats.core.errors.InvalidValueError` naming the element, the attribute and why.

Rotation matrices (spec "rotation matrix"): either 9 plain numbers, row major, separated by
whitespace, that form a proper rotation (HEBI tolerates a deviation of about 1e-6 from
orthonormality and refuses 1e-5; we accept a deviation up to 5e-6 and re-orthonormalise), or
``Rx(f)``/``Ry(f)``/``Rz(f)`` terms joined by ``*`` (case sensitive), where ``f`` is a formula.

Translation vectors (spec "translation vector"): exactly 3 whitespace-separated values.
HEBI reads each as its *leading* number (``pi`` → 0, ``0.1+0.1`` → 0.1, ``0.1,`` → 0.1); so do
we, with a warning whenever a value is not a plain number.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable

from lxml import etree

from robot_formats.core.errors import Diagnostic, InvalidValueError
from robot_formats.core.limits import LoadBudget, in_range
from robot_formats.core.reading import ReadingContext
from robot_formats.core.rotations import Q_IDENTITY, axis_quat, entries_to_quat, quat_multiply
from robot_formats.core.xmlsafe import local_name
from robot_formats.formats.hrdf.formula import (FormulaError, Quirk, evaluate,
                                                is_plain_number, leading_number)
from robot_formats.formats.hrdf.geometry import Quat, Vec
from robot_formats.formats.hrdf.versions import Version

__all__ = ['HrdfContext', 'Attrs', 'ROTATION_TOLERANCE']

#: Largest |R·Rᵀ − I| entry accepted for a 9-number rotation (HEBI: 1e-6 accepted, 1e-5 not).
ROTATION_TOLERANCE = 5e-6
_AXES = ('x', 'y', 'z')


class HrdfContext(ReadingContext):
    """The reading context of an HRDF document and the files it includes: the include chain
    (for cycles), each included file parsed once, and each formula evaluated once."""

    __slots__ = ('stack', 'parsed', 'formulas', 'tags')

    budget: LoadBudget  #: always one (the load's, or a budget of its own)

    def __init__(self, file: str | None, warnings: list[Diagnostic],
                 budget: LoadBudget | None = None) -> None:
        super().__init__(file, warnings, LoadBudget() if budget is None else budget)
        #: The include chain, for cycles (the root file's real path added at the first include).
        self.stack: list[Path] = []
        #: (including file, path text) -> (resolved target, parsed root, its size in bytes): a
        #: part included several times (a hexapod's six legs) is resolved and parsed once.
        self.parsed: dict[tuple[str | None, str], tuple[Path, etree._Element | None, int]] = {}
        #: formula text -> its value and quirks, for every element of the document (see
        #: :class:`Attrs`): the same few formulas (``pi``, a link's extension) recur
        self.formulas: dict[str, tuple[float, tuple[Quirk, ...]]] = {}
        #: The elements' tags, includes too (gathered as the elements are read): a default
        #: name (``actuator_0``) steps aside for a tag anywhere in the robot.
        self.tags: set[str] = set()


class Attrs:
    """Typed, version-aware access to one element's attributes."""

    __slots__ = ('element', 'file', 'line', 'version', 'ctx', 'kind', 'names', 'get')

    def __init__(self, element: etree._Element, file: str | None, version: Version,
                 ctx: HrdfContext, kind: str | None = None) -> None:
        """``file``: the element's (the document's, or a file it includes); ``kind``: the
        element's local name, when the caller knows it already."""
        self.element = element
        self.file = file
        self.line = element.sourceline
        self.version = version
        self.ctx = ctx
        self.kind = local_name(element) if kind is None else kind
        #: The attribute names, in document order (read once: lxml builds them per access).
        self.names: list[str] = element.keys()
        #: ``get(name)``: an attribute's text, or None when the element has none: the
        #: element's own ``get`` (a read of an attribute is one call, and there are many)
        self.get: Callable[[str], str | None] = element.get

    # --- helpers ----------------------------------------------------------------------------
    def warn(self, message: str, code: str = 'HRDF_WARNING') -> None:
        """:meth:`~robot_formats.core.reading.ReadingContext.warn` at this element."""
        self.ctx.warn(message, self.line, code, file=self.file)

    def invalid(self, name: str, value: str, reason: str) -> InvalidValueError:
        return InvalidValueError(f'<{self.kind}> {name}={value!r}: {reason}', self.file,
                                 self.line)

    def _quirks(self, name: str, quirks: tuple[Quirk, ...]) -> None:
        for quirk in quirks:
            self.warn(f'<{self.kind}> {name}: {quirk.message}', 'HRDF_HEBI_DIFFERS')

    def _evaluate(self, text: str) -> tuple[float, tuple[Quirk, ...]]:
        """:func:`~.formula.evaluate` of ``text`` and the quirks it noted, once per document
        (FormulaError as it raises)."""
        formulas = self.ctx.formulas
        found = formulas.get(text)
        if found is None:
            quirks: list[Quirk] = []
            found = formulas[text] = (evaluate(text, quirks), tuple(quirks))
        return found

    # --- scalars ----------------------------------------------------------------------------
    def formula(self, name: str, default: float | None = None) -> float | None:
        """A "floating point formula" attribute (``default`` when absent)."""
        text = self.get(name)
        if text is None:
            return default
        if not self.version.has_formulas:
            value = leading_number(text)
            if not is_plain_number(text.strip()):
                self.warn(f'<{self.kind}> {name}={text!r}: version {self.version} has no '
                          f'formulas; read as its leading number {value!r}, as HEBI does',
                          'HRDF_VERSION_1_0_NUMBER')
            return value
        try:
            value, quirks = self._evaluate(text)
        except FormulaError as err:
            raise self.invalid(name, text, f'not a formula: {err.reason} at character '
                               f'{err.position + 1} (formulas use numbers, pi, + - * / '
                               'and parentheses)') from None
        if quirks:
            self._quirks(name, quirks)
        return value

    # --- vectors ----------------------------------------------------------------------------
    def translation(self, name: str) -> Vec | None:
        """A "translation vector": 3 whitespace-separated values, each read as HEBI does, and
        within the magnitude a model may hold (every translation reaches the model)."""
        text = self.get(name)
        if text is None:
            return None
        parts = text.split()
        if len(parts) != 3:
            raise self.invalid(name, text, f'a translation needs 3 numbers, got {len(parts)}')
        x, y, z = (self._leading_number(name, part) for part in parts)
        in_range((x, y, z), f'<{self.kind}> {name}', self.file, self.line)
        return (x, y, z)

    def _leading_number(self, name: str, part: str) -> float:
        """One entry of a translation vector: its leading number, as HEBI reads it, with a
        warning when the entry is not a plain number."""
        value = leading_number(part)
        if not is_plain_number(part):
            self.warn(f'<{self.kind}> {name}: {part!r} is not a plain number; read as '
                      f'{value!r} (its leading number), as HEBI does — translations are '
                      'not formulas', 'HRDF_TRANSLATION_NOT_NUMBER')
        return value

    def rotation(self, name: str) -> Quat | None:
        """A "rotation matrix": 9 numbers or a product of Rx/Ry/Rz(formula), as a unit
        quaternion (x, y, z, w)."""
        text = self.get(name)
        if text is None:
            return None
        stripped = text.strip(' \t\r\n')
        if stripped[:2] in ('rx', 'ry', 'rz', 'rX', 'rY', 'rZ', 'RX', 'RY', 'RZ'):
            raise self.invalid(name, text, 'the rotation functions are written Rx, Ry and Rz '
                               '(case sensitive)')
        if stripped.startswith('R') or stripped.startswith('('):
            if not self.version.has_formulas:
                raise self.invalid(name, text, f'rotation formulas need version 1.1.0 or '
                                   f'later (this file is {self.version}); give 9 numbers')
            return self._rotation_product(name, text)
        return self._rotation_matrix(name, text)

    def _rotation_matrix(self, name: str, text: str) -> Quat:
        parts = text.split()
        if len(parts) != 9:
            raise self.invalid(name, text, f'a rotation matrix needs 9 numbers (row major) or '
                               f'Rx/Ry/Rz(...) terms joined by *, got {len(parts)} values')
        for part in parts:
            if not is_plain_number(part):
                raise self.invalid(name, text, f'{part!r} is not a number (the 9 matrix '
                                   'entries must be plain numbers, not formulas)')
        m = [float(p) for p in parts]
        if not all(math.isfinite(v) for v in m):  # (NaN would also pass the checks below and
            raise self.invalid(name, text, 'not a rotation matrix: an entry is infinite or '
                               'not a number')  # hang LAPACK's SVD: found by fuzzing)
        rows = (m[0:3], m[3:6], m[6:9])
        deviation = max(abs(sum(a * b for a, b in zip(rows[i], rows[j])) - (i == j))
                        for i in range(3) for j in range(3))
        if deviation > ROTATION_TOLERANCE:
            raise self.invalid(name, text, f'not a rotation matrix: its rows are not '
                               f'orthonormal (deviation {deviation:.2g})')
        (a, b, c), (d, e, f), (g, h, i) = rows
        if a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) < 0:
            raise self.invalid(name, text, 'not a rotation matrix: its determinant is -1 '
                               '(a reflection)')
        if deviation > 0.0:  # the nearest rotation (polar decomposition), as HEBI tolerates
            import numpy as np
            u, _, vt = np.linalg.svd(np.array(m).reshape(3, 3))
            m = (u @ vt).ravel().tolist()
        return entries_to_quat(*m)

    def _rotation_product(self, name: str, text: str) -> Quat:
        result = Q_IDENTITY
        i, n = 0, len(text)
        expect_term = True
        while True:
            while i < n and text[i] in ' \t\r\n':
                i += 1
            if i == n:
                if expect_term:
                    raise self.invalid(name, text, 'the rotation ends where Rx/Ry/Rz(...) '
                                       'was expected')
                return result
            if not expect_term:
                if text[i] != '*':
                    raise self.invalid(name, text, f'expected * between rotation terms at '
                                       f'character {i + 1}')
                i += 1
                expect_term = True
                continue
            axis = text[i + 1:i + 2]
            if text[i] != 'R' or axis not in _AXES or text[i + 2:i + 3] != '(':
                raise self.invalid(name, text, f'expected Rx(, Ry( or Rz( at character '
                                   f'{i + 1} (case sensitive)')
            close = _matching_paren(text, i + 2)
            if close < 0:
                raise self.invalid(name, text, f"missing ')' for the term at character "
                                   f'{i + 1}')
            inner = text[i + 3:close]
            try:
                angle, quirks = self._evaluate(inner)
            except FormulaError as err:
                raise self.invalid(name, text, f'R{axis}(...): {err.reason} at character '
                                   f'{i + 4 + err.position}') from None
            self._quirks(name, quirks)
            if not math.isfinite(angle):
                raise self.invalid(name, text, f'R{axis}(...): the angle {inner.strip()!r} is '
                                   f'{angle} (a rotation needs a finite angle)')
            term = axis_quat(axis, angle)
            result = term if result is Q_IDENTITY else quat_multiply(result, term)
            i = close + 1
            expect_term = False

    # --- enums ------------------------------------------------------------------------------
    def enum(self, name: str, choices: tuple[str, ...], default: str | None = None
             ) -> str | None:
        """One of ``choices``, compared without case (a warning when the case differs)."""
        text = self.get(name)
        if text is None:
            return default
        if text in choices:
            return text
        for choice in choices:
            if choice.lower() == text.lower():
                self.warn(f'<{self.kind}> {name}={text!r} has non-matching case; read as '
                          f'{choice!r}', 'HRDF_ENUM_CASE')
                return choice
        return None


def _matching_paren(text: str, open_index: int) -> int:
    depth = 0
    for i in range(open_index, len(text)):
        if text[i] == '(':
            depth += 1
        elif text[i] == ')':
            depth -= 1
            if depth == 0:
                return i
    return -1


def relative_path_is_absolute(path: str) -> bool:
    """Absolute on POSIX or Windows (``/x``, ``\\x``, ``C:/x``)."""
    return path.startswith(('/', '\\')) or (len(path) > 1 and path[1] == ':') or \
        Path(path).is_absolute()
