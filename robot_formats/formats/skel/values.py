"""Typed access to SKEL element text, read as DART reads it.

DART reads numbers with ``std::stod``, which accepts a number followed by stray characters
(``1.0x`` is 1.0, ``0"`` is 0). Real files carry such typos and DART loads them, so they load
here too, with an ``SKEL_NUMBER`` warning naming the text (strict mode refuses them); text that
does not start with a number (``abc``) DART refuses, and so does this reader.
"""

from __future__ import annotations

from typing import Iterator

from lxml import etree

from robot_formats.core.errors import SchemaError
from robot_formats.core.reading import ReadingContext
from robot_formats.core.xmlsafe import leading_numbers, local_name
from robot_formats.formats.skel.rigid import IDENTITY, Rigid, from_xyz_euler

__all__ = ['SkelContext', 'IDENTITY', 'child', 'children', 'index', 'tagged_children',
           'require', 'transformation']


class SkelContext(ReadingContext):
    """The reading context of a SKEL document: DART's rule for numbers (:meth:`read_past`), and
    the mesh bounds read so far (each mesh file is read once per document)."""

    __slots__ = ('meshes',)

    def __init__(self, file: str | None, warnings: list) -> None:
        super().__init__(file, warnings)
        self.meshes: dict = {}

    def read_past(self, element: etree._Element, text: str, count: int | None,
                  attribute: str | None) -> tuple[float, ...]:
        """Text the strict reader refuses, read as DART reads it (``std::stod`` of each entry:
        a number followed by stray characters, hexadecimal too), with a warning; or, where
        DART refuses it too, the strict reader's error."""
        what = self.what(element, attribute)
        values = leading_numbers(text, hexadecimal=True)
        if values is None or (count is not None and len(values) != count):
            # DART refuses it too: the strict reader's error
            return super().read_past(element, text, count, attribute)
        self.warn(f'{what} {text.strip()!r} has characters after a number; read as '
                  f'{" ".join(f"{v:g}" for v in values)}, as DART reads it', element.sourceline,
                  'SKEL_NUMBER')
        return values


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


def require(ctx: SkelContext, element: etree._Element, tag: str, what: str = '') -> etree._Element:
    """The child ``tag``; a SchemaError naming the parent when it is missing (DART throws,
    segfaults or silently substitutes a default for most of these)."""
    sub = child(element, tag)
    if sub is None:
        owner = what or f'<{local_name(element)}>'
        raise SchemaError(f'{owner} needs a <{tag}> element', ctx.file, element.sourceline)
    return sub


def transformation(ctx: SkelContext, element: etree._Element | None) -> Rigid:
    """``x y z rx ry rz`` → the transform with R = Rx(rx)·Ry(ry)·Rz(rz) (DART's XYZ Euler);
    the shared :data:`~.rigid.IDENTITY` if None or all zeros."""
    if element is None:
        return IDENTITY
    values = ctx.vector(element, 6)
    if not any(values):  # written out as zeros: the identity too (common in DART's files)
        return IDENTITY
    return from_xyz_euler(*values)
