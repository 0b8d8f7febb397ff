"""Typed access to SKEL element text, read as DART reads it.

DART reads numbers with ``std::stod``, which accepts a number followed by stray characters
(``1.0x`` is 1.0, ``0"`` is 0). Real files carry such typos and DART loads them, so they load
here too, with an ``SKEL_NUMBER`` warning naming the text (strict mode refuses them); text that
does not start with a number (``abc``) DART refuses, and so does this reader.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterator, Literal, overload

from lxml import etree

from robot_formats.core.errors import Diagnostic, InvalidValueError, SchemaError
from robot_formats.core.xmlsafe import floats, leading_numbers, local_name, numbers
from robot_formats.formats.skel.rigid import IDENTITY, Rigid, from_xyz_euler

__all__ = ['Ctx', 'IDENTITY', 'child', 'children', 'index', 'tagged_children', 'require',
           'number', 'vector', 'transformation', 'boolean', 'warn']


class Ctx:
    """The file being read (for error locations), its warnings sink, and the mesh bounds read
    so far (each mesh file is read once per document)."""

    def __init__(self, file: str | None, warnings: list) -> None:
        self.file = file
        self.warnings = warnings
        self.meshes: dict = {}
        self._base_dir: Path | None = None

    @property
    def base_dir(self) -> Path | None:
        """The folder relative mesh paths are resolved against (the file's, symlinks resolved);
        worked out on first use: resolving costs file-system calls most worlds never need."""
        if self._base_dir is None and self.file:
            self._base_dir = Path(self.file).resolve().parent
        return self._base_dir


def warn(ctx: Ctx, message: str, line: int | None, code: str) -> None:
    """Record an irregularity DART reads past (strict mode refuses the document for it)."""
    ctx.warnings.append(Diagnostic(message, ctx.file, line, code))


def tagged_children(element: etree._Element) -> Iterator[tuple[str, etree._Element]]:
    """(local name, child) of each child element, in document order: comments and processing
    instructions skipped, a namespace dropped from the name (DART reads any)."""
    for sub in element:
        if isinstance(sub.tag, str):  # not a comment or processing instruction
            yield sub.tag.rpartition('}')[2], sub


def child(element: etree._Element, tag: str) -> etree._Element | None:
    """The first child element named ``tag`` in any or no namespace, or None."""
    for name, sub in tagged_children(element):
        if name == tag:
            return sub
    return None


def index(element: etree._Element) -> dict[str, etree._Element]:
    """Each child element's local name → the first child of that name, in one pass over the
    children (what :func:`child` returns, for elements asked about several tags: a dict lookup
    per tag instead of a scan per tag)."""
    kids: dict[str, etree._Element] = {}
    for tag, sub in tagged_children(element):
        if tag not in kids:
            kids[tag] = sub
    return kids


def children(element: etree._Element, tag: str) -> Iterator[etree._Element]:
    """The child elements named ``tag`` in any or no namespace, in document order."""
    return (sub for name, sub in tagged_children(element) if name == tag)


def require(ctx: Ctx, element: etree._Element, tag: str, what: str = '') -> etree._Element:
    """The child ``tag``; a SchemaError naming the parent when it is missing (DART throws,
    segfaults or silently substitutes a default for most of these)."""
    sub = child(element, tag)
    if sub is None:
        owner = what or f'<{local_name(element)}>'
        raise SchemaError(f'{owner} needs a <{tag}> element', ctx.file, element.sourceline)
    return sub


def number(ctx: Ctx, element: etree._Element, allow_inf: bool = False) -> float:
    """The element's text as one finite float (``inf``/``-inf`` too when ``allow_inf``)."""
    text = (element.text or '').strip()
    if allow_inf and text.lower() in ('inf', '+inf', '-inf', 'infinity', '-infinity'):
        return -math.inf if text.startswith('-') else math.inf
    return vector(ctx, element, 1)[0]


@overload
def vector(ctx: Ctx, element: etree._Element, count: Literal[3] = 3
           ) -> tuple[float, float, float]: ...


@overload
def vector(ctx: Ctx, element: etree._Element, count: int | None) -> tuple[float, ...]: ...


def vector(ctx: Ctx, element: etree._Element, count: int | None = 3) -> tuple[float, ...]:
    """``count`` (any number if None) whitespace-separated finite floats; text after a number
    is read past as DART reads it (``std::stod``), with a warning."""
    text = element.text or ''
    try:
        values: tuple[float, ...] | None = numbers(text)
    except ValueError:
        values = None
    if values is not None and (count is None or len(values) == count):
        return values
    return _read_as_dart(ctx, element, text, count)


def _read_as_dart(ctx: Ctx, element: etree._Element, text: str, count: int | None
                  ) -> tuple[float, ...]:
    """Text :func:`vector` does not read as ``count`` numbers: DART's ``std::stod`` reading
    of it, with a warning, or the error that it is not numbers."""
    what = f'<{local_name(element)}>'
    values = leading_numbers(text, hexadecimal=True)
    if values is None or (count is not None and len(values) != count):
        # DART refuses it too: the strict reader's error (floats raises it)
        return floats(text, ctx.file, element.sourceline, what, count)
    warn(ctx, f'{what} {text.strip()!r} has characters after a number; read as '
         f'{" ".join(f"{v:g}" for v in values)}, as DART reads it', element.sourceline,
         'SKEL_NUMBER')
    return values


def boolean(ctx: Ctx, element: etree._Element) -> bool:
    text = (element.text or '').strip().lower()
    if text in ('1', 'true'):
        return True
    if text in ('0', 'false'):
        return False
    raise InvalidValueError(f'<{local_name(element)}> must be true/false or 1/0, not {text!r}',
                            ctx.file, element.sourceline)


def transformation(ctx: Ctx, element: etree._Element | None) -> Rigid:
    """``x y z rx ry rz`` → the transform with R = Rx(rx)·Ry(ry)·Rz(rz) (DART's XYZ Euler);
    the shared :data:`~.rigid.IDENTITY` if None or all zeros."""
    if element is None:
        return IDENTITY
    values = vector(ctx, element, 6)
    if not any(values):  # written out as zeros: the identity too (common in DART's files)
        return IDENTITY
    return from_xyz_euler(*values)
