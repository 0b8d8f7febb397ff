"""Safe XML reading shared by every format parser.

Robot descriptions come from strangers' repositories, so the parser is locked down: no DTD
loading, no entity expansion (billion laughs), no external entities, no network access, and a
bound on input size. A document that declares entities or points at an external DTD is refused
with :class:`~robot_formats.core.errors.UnsafeXmlError` rather than parsed partially.

Real files are read as the reference tools read them: a document libxml2 refuses but TinyXML2
(the parser of urdfdom and libsdformat) reads (``--`` in a comment, an odd or misplaced XML
declaration, an undeclared namespace prefix, ...) is read as TinyXML2 reads it, with a warning
per irregularity (:mod:`robot_formats.core.xmlrepair`).

Also the text-to-number rules every reader builds on (:func:`floats`, :func:`leading_numbers`,
...), which :class:`~robot_formats.core.reading.ReadingContext` uses to turn bad text into
:class:`~robot_formats.core.errors.InvalidValueError` with file and line.
"""

from __future__ import annotations

import codecs
import math
import re
import threading
from collections.abc import Collection
from typing import Literal, overload
from pathlib import Path

from lxml import etree

from robot_formats.core.errors import (Diagnostic, FormatError, InvalidValueError, LimitError,
                                       SchemaError, UnsafeXmlError, XmlSyntaxError)
from robot_formats.core.files import read_input

__all__ = [
    'MAX_XML_BYTES',
    'parse_xml_bytes',
    'read_xml',
    'read_bytes',
    'local_name',
    'floats',
    'leading_numbers',
    'streamed_numbers',
    'required_attr',
]

#: Largest document accepted. Real robot files are far below this (atlas URDF: 64 kB).
MAX_XML_BYTES = 64 * 1024 * 1024


class _ExternalResource(Exception):
    """Raised by :class:`_RefuseExternal` when libxml2 asks for an external resource."""


class _RefuseExternal(etree.Resolver):
    """Refuses every external DTD or entity libxml2 tries to load (defence in depth: some
    option combinations, e.g. ``collect_ids=False``, make libxml2 read the external subset
    and external parameter entities even with ``load_dtd=False``)."""

    def resolve(self, url, pubid, context):  # noqa: ARG002 - lxml's signature
        raise _ExternalResource(url or pubid or '(unnamed)')


def _parser() -> etree.XMLParser:
    """This thread's locked-down parser (made once per thread: lxml parsers are not
    thread-safe, and nodes may load in threads; a parser is reusable, and a new one per
    document cost a third of an empty document's parse)."""
    parser = getattr(_THREAD, 'parser', None)
    if parser is None:
        parser = _THREAD.parser = _new_parser()
    return parser


_THREAD = threading.local()


def _new_parser() -> etree.XMLParser:
    # Do not pass collect_ids=False: with it libxml2 opens the DOCTYPE's SYSTEM file.
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
        huge_tree=False, remove_comments=True, remove_pis=True)
    parser.resolvers.add(_RefuseExternal())
    return parser


#: First bytes of a document whose '&' is the byte 0x26 (UTF-8, ASCII and Latin supersets).
_ASCII_STARTS = (b'<', b' ', b'\t', b'\r', b'\n', b'\xef')


def _doctype_line(data: bytes) -> int | None:
    index = data.find(b'<!DOCTYPE')
    return data.count(b'\n', 0, index) + 1 if index >= 0 else None


def read_bytes(path: str | Path, limit: int | None = None) -> bytes:
    """A document's bytes, read by the guarded reader of every input file
    (:func:`robot_formats.core.files.read_input`: regular files only, at most ``limit`` bytes).

    ``limit`` defaults to the module's current :data:`MAX_XML_BYTES` (read at call time, so a
    changed limit is checked before the file is read).
    """
    return read_input(path, MAX_XML_BYTES if limit is None else limit)


def parse_xml_bytes(data: bytes, file: str | Path | None = None,
                    warnings: list[Diagnostic] | None = None,
                    roots: Collection[str] = ()) -> etree._Element:
    """Parse a document safely and return its root element.

    A document libxml2 refuses but TinyXML2 (urdfdom's and libsdformat's parser) reads is read
    as TinyXML2 reads it (:mod:`robot_formats.core.xmlrepair`), with one warning per kind of
    irregularity appended to ``warnings`` (code ``XML_*``; pass a list whenever the document
    is a user's: strict mode refuses what those warnings name). ``roots``: the top-level element
    names a reader looks for, when a document has several top-level elements.

    A message never quotes the text before the document's first element or bytes that are not
    text (a file that is no XML document, e.g. one an include names by mistake or by malice,
    is refused without showing its content).

    Raises:
        LimitError: the document is larger than :data:`MAX_XML_BYTES`.
        UnsafeXmlError: the document declares entities or references a DTD.
        XmlSyntaxError: the document is not XML even as TinyXML2 reads it.
    """
    if len(data) > MAX_XML_BYTES:
        raise LimitError(f'document is {len(data)} bytes; the limit is {MAX_XML_BYTES}', file)
    if not data or data.isspace():  # (data.strip() would copy the document)
        raise XmlSyntaxError('the file is empty', file, 1)
    try:
        root = etree.fromstring(data, _parser())
    except _ExternalResource as err:
        raise _external_resource(err, data, file) from None
    except etree.XMLSyntaxError as err:
        root = _parse_as_tinyxml2(data, file, err, warnings, roots)
    # An entity reference needs an '&' (any ASCII-compatible or UTF-16/32 text has the byte)
    references = b'&' in data or data[:1] not in _ASCII_STARTS
    _refuse_dtd(root, file, _doctype_line(data) or 1, references)
    return root


def _external_resource(err: _ExternalResource, data: bytes, file: str | Path | None
                       ) -> UnsafeXmlError:
    return UnsafeXmlError(f'the document asks to load {err} (an external DTD or entity); '
                          'external resources are not allowed', file, _doctype_line(data))


def _parse_as_tinyxml2(data: bytes, file: str | Path | None, err: etree.XMLSyntaxError,
                       warnings: list[Diagnostic] | None, roots: Collection[str]
                       ) -> etree._Element:
    """The document as TinyXML2 reads it, repaired into XML and parsed by the same locked-down
    parser; the repairs become warnings. TinyXML2's refusals raise XmlSyntaxError."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise _syntax_error(err, file) from err  # TinyXML2 reads UTF-8 only
    from robot_formats.core import xmlrepair  # only for documents libxml2 refuses
    repaired = xmlrepair.repair(data, file, roots)
    if not repaired.repairs:  # nothing TinyXML2 reads differently: libxml2's verdict stands
        raise _syntax_error(err, file) from err
    try:
        root = etree.fromstring(repaired.data, _parser())
    except _ExternalResource as resource:
        raise _external_resource(resource, data, file) from None
    except etree.XMLSyntaxError as second:
        raise _syntax_error(second, file) from err
    if warnings is not None:
        where = str(file) if file is not None else None
        warnings.extend(Diagnostic(r.sentence(), where, r.line, r.code) for r in repaired.repairs)
    return root


def _syntax_error(err: etree.XMLSyntaxError, file: str | Path | None) -> FormatError:
    """The typed error for a failed parse: entities are unsafe, anything else is syntax."""
    line = err.lineno if err.lineno and err.lineno > 0 else None
    message = _clean_lxml_message(err.msg or str(err))
    if 'entity' in message.lower() or 'doctype' in message.lower():
        return UnsafeXmlError(f'XML entities are not allowed: {message}', file, line)
    return XmlSyntaxError(f'malformed XML: {message}', file, line)


def read_xml(path: str | Path, warnings: list[Diagnostic] | None = None,
             roots: Collection[str] = ()) -> etree._Element:
    """Read and safely parse the XML file at ``path`` (see :func:`parse_xml_bytes`)."""
    return parse_xml_bytes(read_bytes(path), path, warnings, roots)


def _clean_lxml_message(message: str) -> str:
    """libxml2's message without ", line N, column M" (FormatError.line says it) and without
    the bytes it quotes from a file that is not text (``Bytes: 0x.. 0x..``)."""
    head, _, _ = message.partition(', line ')
    head, _, _ = head.partition(' Bytes:')
    return head.strip().rstrip(' !,') or 'not well-formed XML'


def _refuse_dtd(root: etree._Element, file: str | Path | None, line: int = 1,
                references: bool = True) -> None:
    """Refuse DTDs and entities; ``references`` False: the text has no ``&``, so no entity
    reference to look for."""
    docinfo = root.getroottree().docinfo
    if docinfo.system_url or docinfo.public_id:
        raise UnsafeXmlError('external DTDs are not allowed (the DOCTYPE names '
                             f'{docinfo.system_url or docinfo.public_id!r})', file, line)
    dtd = docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise UnsafeXmlError('XML entity declarations are not allowed (they can expand without '
                             'bound or read other files); remove the <!ENTITY> declarations',
                             file, line)
    if not references:
        return
    for node in root.iter(etree.Entity):
        raise UnsafeXmlError(f'entity reference {node.text} is not allowed', file, node.sourceline)


def local_name(element: etree._Element) -> str:
    """Tag without namespace; '' for comments and other non-elements."""
    tag = element.tag
    if not isinstance(tag, str):
        return ''
    return tag.rpartition('}')[2]


#: The number at the start of a text, as C++ reads it (``std::stod``, ``stream >> double``),
#: white space before it skipped: decimal, and hexadecimal (which ``std::stod`` also reads).
#: Compiled at the first lenient read (by ``re``'s cache), not when the module is imported.
_DECIMAL_PREFIX = r'\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)'
_HEX_PREFIX = (r'\s*([+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)'
               r'(?:[pP][+-]?\d+)?)')


def _leading_number(text: str, position: int, hexadecimal: bool
                    ) -> tuple[float, int] | None:
    """(the finite number at ``text[position:]``'s start, where it ends), or None."""
    match = re.compile(_HEX_PREFIX).match(text, position) if hexadecimal else None
    try:
        if match is not None:
            value = float.fromhex(match.group(1))
        else:
            match = re.compile(_DECIMAL_PREFIX).match(text, position)
            if match is None:
                return None
            value = float(match.group(1))
    except OverflowError:
        return None
    return (value, match.end()) if math.isfinite(value) else None


def leading_numbers(text: str, hexadecimal: bool = False) -> tuple[float, ...] | None:
    """``std::stod`` of each whitespace-separated token: the number at its start, stray
    characters after it ignored (``0.5"`` is 0.5; with ``hexadecimal``, ``0x1g`` is 1); None
    when a token starts with no number or a number is not finite. What C++ readers (DART,
    libsdformat) make of text :func:`floats` refuses."""
    values = []
    for token in text.split():
        found = _leading_number(token, 0, hexadecimal)
        if found is None:
            return None
        values.append(found[0])
    return tuple(values)


def streamed_numbers(text: str, count: int) -> tuple[float, ...] | None:
    """What ``stream >> v`` ``count`` times reads from ``text`` (decimal; the stream stops at
    the first character that continues no number, so ``0 1x 0`` fails at the ``x``), or None
    where a read fails."""
    values, position = [], 0
    for _ in range(count):
        found = _leading_number(text, position, False)
        if found is None:
            return None
        values.append(found[0])
        position = found[1]
    return tuple(values)


def number(text: str) -> float:
    """One finite float, written as XML number formats write it: what ``float`` reads, less the
    digit separator ``_`` (``float('1_0')`` is 10; no XML reader takes it). ValueError saying
    why otherwise."""
    if '_' in text:
        raise ValueError(f'{text!r} is not a number')
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f'{text!r} is not a number') from None
    if not math.isfinite(value):
        raise ValueError(f'{text!r} is not a finite number')
    return value


def numbers(text: str) -> tuple[float, ...]:
    """The whitespace-separated :func:`number` s of ``text``; ValueError for the first entry
    that is not one."""
    return tuple(map(number, text.split()))


@overload
def floats(text: str | None, file: str | Path | None, line: int | None, what: str,
           count: Literal[3]) -> tuple[float, float, float]: ...


@overload
def floats(text: str | None, file: str | Path | None, line: int | None, what: str,
           count: Literal[4]) -> tuple[float, float, float, float]: ...


@overload
def floats(text: str | None, file: str | Path | None, line: int | None, what: str,
           count: int | None = None) -> tuple[float, ...]: ...


def floats(text: str | None, file: str | Path | None, line: int | None, what: str,
           count: int | None = None) -> tuple[float, ...]:
    """:func:`numbers`, with an exact count if given; an InvalidValueError naming ``what``
    (the element or attribute), the file and the line otherwise. Typed by the count: three
    numbers are a 3-tuple, four a 4-tuple."""
    try:
        values = numbers(text or '')
    except ValueError as error:
        raise InvalidValueError(f'{what}: {error}', file, line) from None
    if count is not None and len(values) != count:
        raise InvalidValueError(f'{what}: expected {count} numbers, got {len(values)} '
                                f'({(text or "").strip()!r})', file, line)
    return values


def required_attr(element: etree._Element, name: str, file: str | Path | None) -> str:
    """The attribute's value, or a SchemaError naming the element and attribute."""
    value = element.get(name)
    if value is None:
        raise SchemaError(f'<{local_name(element)}> needs a {name!r} attribute', file,
                          element.sourceline)
    return value
