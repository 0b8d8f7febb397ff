"""Read a document libxml2 refuses the way TinyXML2 reads it, or refuse it as TinyXML2 does.

urdfdom and libsdformat parse with TinyXML2, which accepts documents that are not well-formed
XML and that real robot files contain: ``--`` inside comments, odd or misplaced ``<?xml ...?>``
declarations, text before the root element (a declaration that lost its ``<``), namespace
prefixes nobody declared, a bare ``&`` or a ``<`` inside an attribute value, a second top-level
element. lxml (libxml2) refuses all of them. :func:`repair` walks the bytes with TinyXML2's
grammar and returns an equivalent well-formed document, which the caller parses with the same
locked-down lxml parser as any other, plus one :class:`Repair` per kind of irregularity it met.
What TinyXML2 refuses (an unclosed or mismatched element, an unterminated comment, text after
the root element that no markup follows, a declaration after other content, a duplicate
attribute, ...) raises :class:`~robot_formats.core.errors.XmlSyntaxError` with the line.

Every repair keeps each byte on its line (removed text becomes spaces, newlines stay), so the
line numbers lxml reports for the repaired document are the original file's.

Nothing here makes the parser less safe: DOCTYPEs are passed through untouched, so the caller's
parser still refuses entity declarations and external DTDs.
"""

from __future__ import annotations

import bisect
import codecs
import re
from typing import NoReturn
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from robot_formats.core.errors import XmlSyntaxError

__all__ = ['Repair', 'Repaired', 'repair', 'UNDECLARED_NAMESPACE']

#: Namespace URI given to a prefix the document uses without declaring it.
UNDECLARED_NAMESPACE = 'urn:robot-formats:undeclared:'

_BOM = codecs.BOM_UTF8
_SPACE = re.compile(rb'[ \t\n\r\x0b\x0c]*')
# TinyXML2's names: a letter, '_', ':' or any byte >= 0x80, then also digits, '.' and '-'.
_NAME = re.compile(rb'[A-Za-z_:\x80-\xff][A-Za-z0-9_:.\-\x80-\xff]*')
_WELL_FORMED_DECLARATION = re.compile(
    rb'<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(["\'])1\.[0-9]+\1'
    rb'(?:[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(["\'])[A-Za-z][A-Za-z0-9._-]*\2)?'
    rb'(?:[ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(["\'])(?:yes|no)\3)?[ \t\r\n]*\?>')
_DECLARED_ENCODING = re.compile(rb'encoding[ \t\r\n]*=[ \t\r\n]*(["\'])([A-Za-z][A-Za-z0-9._-]*)\1')
_VERSION = re.compile(rb'version[ \t\r\n]*=[ \t\r\n]*(["\'])(.*?)\1')
# In text and attribute values: references, a bare '&', and characters XML does not allow.
_TEXT_HAZARD = re.compile(
    rb'&(?:#[0-9]+;|#x[0-9A-Fa-f]+;|[A-Za-z_:][A-Za-z0-9_:.\-]*;)?'
    rb'|\]\]>|<|[\x00-\x08\x0b\x0c\x0e-\x1f]')
_PREDEFINED_ENTITIES = {b'amp', b'lt', b'gt', b'quot', b'apos'}
_UTF8_NAMES = {'utf-8', 'utf8'}


@dataclass(frozen=True, slots=True)
class Repair:
    """One kind of irregularity, where it first occurs, and how often."""

    line: int
    code: str
    message: str
    count: int = 1

    def sentence(self) -> str:
        if self.count == 1:
            return self.message
        return f'{self.message} ({self.count} times; first here)'


@dataclass(slots=True)
class Repaired:
    """The well-formed equivalent of a document, and what was repaired."""

    data: bytes
    repairs: list[Repair] = field(default_factory=list)


def repair(data: bytes, file: str | Path | None = None, roots: Collection[str] = ()
           ) -> Repaired:
    """The document TinyXML2 reads in ``data``, as well-formed XML with the same line numbers.

    ``roots``: element names a reader looks for at the top level (urdfdom takes the first
    ``<robot>``, libsdformat the first ``<sdf>``); when the document has several top-level
    elements, the first of these is kept, else the first one.

    Raises:
        XmlSyntaxError: TinyXML2 refuses the document too.
    """
    return _Lexer(data, file, roots).run()


@dataclass(slots=True)
class _Element:
    name: bytes
    start: int
    prefixes: frozenset[bytes]


@dataclass(slots=True)
class _TopElement:
    name: bytes
    start: int
    end: int
    name_end: int
    edits: tuple[int, int]      # slice of _Lexer.edits made inside it
    notes: tuple[int, int]      # slice of _Lexer.notes made inside it
    undeclared: dict[bytes, int]


class _Lexer:
    """TinyXML2's document grammar over bytes, recording edits that make it well-formed."""

    def __init__(self, data: bytes, file: str | Path | None, roots: Collection[str]) -> None:
        self.file = file
        self.roots = {name.encode() for name in roots}
        self.notes: list[tuple[int, str, str]] = []        # (line, code, message)
        self.edits: list[tuple[int, int, bytes]] = []      # (start, end, replacement)
        self.undeclared: dict[bytes, int] = {}             # prefix -> first use line
        self.declarations = 0                              # <?xml ...?> seen so far
        self.data = self._readable(data)
        self._newlines: list[int] | None = None

    # --- helpers -----------------------------------------------------------------------------
    def line(self, position: int) -> int:
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer(b'\n', self.data)]
        return bisect.bisect_left(self._newlines, position) + 1

    def refuse(self, message: str, position: int) -> NoReturn:
        raise XmlSyntaxError(f'malformed XML: {message}', self.file, self.line(position))

    def note(self, position: int, code: str, message: str) -> None:
        self.notes.append((self.line(position), code, message))

    def blank(self, start: int, end: int) -> None:
        """Replace data[start:end] by spaces, keeping its line breaks."""
        segment = self.data[start:end]
        self.edits.append((start, end, bytes(c if c in b'\r\n' else 32 for c in segment)))

    def skip_space(self, position: int) -> int:
        match = _SPACE.match(self.data, position)  # white space or none: always a match
        return match.end() if match is not None else position

    def find(self, token: bytes, position: int, what: str, start: int) -> int:
        index = self.data.find(token, position)
        if index < 0:
            self.refuse(f'{what} is never closed (no {token.decode()!r} follows)', start)
        return index

    # --- the whole document --------------------------------------------------------------------
    def _readable(self, data: bytes) -> bytes:
        """TinyXML2 stops at a NUL byte and reads any bytes as UTF-8: do the same."""
        nul = data.find(b'\0')
        if nul >= 0:
            self.notes.append((data.count(b'\n', 0, nul) + 1, 'XML_INVALID_CHARACTER',
                               'the file holds a NUL byte: everything after it is ignored, as '
                               'TinyXML2 does'))
            data = data[:nul]
        if self._declared_encoding(data) in _UTF8_NAMES:
            try:
                data.decode('utf-8')
            except UnicodeDecodeError as err:
                self.notes.append((data.count(b'\n', 0, err.start) + 1, 'XML_INVALID_CHARACTER',
                                   'bytes that are not UTF-8 replaced by U+FFFD (the document '
                                   'declares no other encoding)'))
                data = data.decode('utf-8', 'replace').encode('utf-8')
        return data

    @staticmethod
    def _declared_encoding(data: bytes) -> str:
        if data.startswith(_BOM):
            return 'utf-8'
        head = data[:data.find(b'?>') + 2] if data.lstrip().startswith(b'<?') else b''
        found = _DECLARED_ENCODING.search(head)
        return found.group(2).decode('ascii').lower() if found else 'utf-8'

    def run(self) -> Repaired:
        data = self.data
        position = self.skip_space(0)
        if position and data.startswith(_BOM, position):  # TinyXML2 reads past it silently
            self.note(position, 'XML_DECLARATION', 'a byte order mark after white space is '
                      'ignored')
            self.edits.append((position, position + len(_BOM), b''))
        if data.startswith(_BOM, position):
            position = self.skip_space(position + len(_BOM))
        self.body_start = len(_BOM) if data.startswith(_BOM) else 0
        self.declarations_only = True
        self.kept_declaration = False
        self.lost_encoding: bytes | None = None
        tops: list[_TopElement] = []
        while position < len(data):
            position = self.top_level_node(position, tops)
            position = self.skip_space(position)
        if not tops:
            self.refuse('the document has no root element', len(data))
        self.keep_one_root(tops)
        return Repaired(self.apply(), self.summary())

    def top_level_node(self, position: int, tops: list[_TopElement]) -> int:
        data = self.data
        if data.startswith(b'<?', position):
            return self.prolog_instruction(position)
        self.declarations_only = False
        if data.startswith(b'<!--', position):
            return self.comment(position)
        if data.startswith(b'<![CDATA[', position):
            end = self.find(b']]>', position, 'a CDATA section', position) + 3
            self.note(position, 'XML_TEXT_OUTSIDE_ROOT', 'a CDATA section outside the root '
                      'element is ignored')
            self.blank(position, end)
            return end
        if data.startswith(b'<!', position):
            return self.markup_declaration(position, top_level=True, first=not tops)
        if data.startswith(b'</', position):
            return self.stray_end_tag(position)
        if data.startswith(b'<', position):
            return self.top_element(position, tops)
        return self.stray_text(position, tops)

    def stray_end_tag(self, position: int) -> int:
        """A closing tag outside any element: TinyXML2 stops reading the document there."""
        tag = self.data[position:self.data.find(b'>', position) + 1 or len(self.data)]
        self.note(position, 'XML_TRAILING_CONTENT', f'a closing tag {_quote(tag)} outside any '
                  'element: the rest of the file is ignored, as TinyXML2 stops reading there')
        self.blank(position, len(self.data))
        return len(self.data)

    def stray_text(self, position: int, tops: list[_TopElement]) -> int:
        """Text outside the root element: TinyXML2 keeps it if markup follows. The text is
        never quoted: a file that is no XML document (a secret an include names) must not
        show up in a message."""
        end = self.data.find(b'<', position)
        if end < 0:
            self.refuse('text after the last element' if tops else
                        'no XML element, only text: this is not an XML document', position)
        text = self.data[position:end]
        if text.lstrip().startswith(b'?xml'):
            self.note(position, 'XML_DECLARATION', 'the XML declaration lacks its "<"; ignored')
        else:
            self.note(position, 'XML_TEXT_OUTSIDE_ROOT',
                      'text outside the root element is ignored')
        self.blank(position, end)
        return end

    def prolog_instruction(self, position: int) -> int:
        """``<?...?>`` at the top level: TinyXML2 allows declarations only before anything else."""
        end = self.find(b'?>', position + 2, 'an XML declaration', position) + 2
        target = _NAME.match(self.data, position + 2)
        name = target.group() if target else b''
        is_declaration = name.lower() == b'xml'
        well_formed_pi = (target is not None and not is_declaration
                          and self.data[target.end():target.end() + 1] in b' \t\r\n?')
        if not self.declarations_only:
            if well_formed_pi:  # a valid processing instruction: XML allows it anywhere
                return end
            self.refuse('an XML declaration must come before any other content (TinyXML2 '
                        'refuses it too)', position)
        if well_formed_pi:
            return end
        text = self.data[position:end]
        self.declarations += 1
        if (is_declaration and position == self.body_start and self.declarations == 1
                and _WELL_FORMED_DECLARATION.fullmatch(text)):
            self.kept_declaration = True
            return end
        self.note(position, 'XML_DECLARATION', f'{self.declaration_fault(text, position)}; '
                  'ignored, as TinyXML2 does')
        found = _DECLARED_ENCODING.search(text)
        if found and self.declarations == 1:
            self.lost_encoding = found.group(2)
        self.blank(position, end)
        return end

    def declaration_fault(self, text: bytes, position: int) -> str:
        if self.declarations > 1:
            return f'a second XML declaration {_quote(text)}'
        version = _VERSION.search(text)
        if not text[2:5].lower() == b'xml' or not version:
            return f'a malformed XML declaration {_quote(text)}'
        if not re.fullmatch(rb'1\.[0-9]+', version.group(2)):
            return f'the XML declaration gives version {_quote(version.group(2))} (XML is 1.0)'
        if position != self.body_start:
            return 'the XML declaration is not at the very start of the file'
        return f'a malformed XML declaration {_quote(text)}'

    def markup_declaration(self, position: int, top_level: bool, first: bool) -> int:
        """``<!DOCTYPE ...>`` (with an internal subset in brackets) or other ``<!...>``."""
        data = self.data
        close = self.find(b'>', position, 'a <!...> declaration', position)
        bracket = data.find(b'[', position, close)
        if bracket >= 0:
            inner = self.find(b']', bracket, 'a DOCTYPE internal subset', position)
            close = self.find(b'>', inner, 'a DOCTYPE', position)
        end = close + 1
        if top_level and first and data.startswith(b'<!DOCTYPE', position):
            return end  # lxml reads it (and the caller refuses entities and external DTDs)
        self.note(position, 'XML_UNKNOWN_MARKUP', f'{_quote(data[position:end])} is not '
                  'allowed here in XML; ignored, as TinyXML2 does')
        self.blank(position, end)
        return end

    def comment(self, position: int) -> int:
        close = self.find(b'-->', position + 4, 'a comment', position)
        body = self.data[position + 4:close]
        if b'--' in body or body.endswith(b'-'):
            self.note(position, 'XML_COMMENT', 'a comment contains "--" (XML forbids it); '
                      'read past it, as TinyXML2 does')
            self.blank(position, close + 3)
        return close + 3

    # --- elements ------------------------------------------------------------------------------
    def top_element(self, position: int, tops: list[_TopElement]) -> int:
        name = _NAME.match(self.data, position + 1)
        if name is None:
            self.refuse("'<' is not followed by an element name", position)
        edits, notes = len(self.edits), len(self.notes)
        self.undeclared = {}
        name_end = name.end()
        end = self.element(position)
        tops.append(_TopElement(self.data[position + 1:name_end], position, end, name_end,
                                (edits, len(self.edits)), (notes, len(self.notes)),
                                self.undeclared))
        return end

    def element(self, position: int) -> int:
        """One element and its content, without recursion (documents may nest deeply)."""
        data = self.data
        stack: list[_Element] = []
        position = self.start_tag(position, stack)
        while stack:
            lt = data.find(b'<', position)
            if lt < 0:
                open_element = stack[-1]
                self.refuse(f'<{open_element.name.decode(errors="replace")}> is never closed',
                            open_element.start)
            if lt > position:
                self.text(position, lt, attribute=False)
            position = self.content_node(lt, stack)
        return position

    def content_node(self, position: int, stack: list[_Element]) -> int:
        data = self.data
        if data.startswith(b'</', position):
            return self.end_tag(position, stack)
        if data.startswith(b'<!--', position):
            return self.comment(position)
        if data.startswith(b'<![CDATA[', position):
            return self.find(b']]>', position, 'a CDATA section', position) + 3
        if data.startswith(b'<?', position):
            end = self.find(b'?>', position, 'a processing instruction', position) + 2
            target = _NAME.match(data, position + 2)
            if target is None or target.group().lower() == b'xml':
                self.refuse('an XML declaration inside an element', position)
            return end  # a valid processing instruction: lxml reads past it
        if data.startswith(b'<!', position):
            return self.markup_declaration(position, top_level=False, first=False)
        if _NAME.match(data, position + 1):
            return self.start_tag(position, stack)
        return self.refuse("'<' is not followed by an element name (write &lt; for a "
                           "literal '<')", position)

    def end_tag(self, position: int, stack: list[_Element]) -> int:
        name = _NAME.match(self.data, position + 2)
        if name is None:
            self.refuse('a closing tag without a name', position)
        close = self.skip_space(name.end())
        if self.data[close:close + 1] != b'>':
            self.refuse(f'the closing tag </{name.group().decode(errors="replace")}> is not '
                        "closed by '>'", position)
        open_element = stack.pop()
        if name.group() != open_element.name:
            self.refuse(f'the closing tag </{name.group().decode(errors="replace")}> does not '
                        f'match <{open_element.name.decode(errors="replace")}> of line '
                        f'{self.line(open_element.start)}', position)
        return close + 1

    def start_tag(self, position: int, stack: list[_Element]) -> int:
        data = self.data
        name = _NAME.match(data, position + 1)
        if name is None:
            self.refuse("'<' is not followed by an element name", position)
        tag = name.group()
        cursor = name.end()
        seen: set[bytes] = set()
        declared: set[bytes] = set()
        prefixed: list[tuple[bytes, int]] = [(tag, position)]
        while True:
            after_space = self.skip_space(cursor)
            char = data[after_space:after_space + 1]
            if char == b'>' or data.startswith(b'/>', after_space):
                end = after_space + (1 if char == b'>' else 2)
                break
            attribute = _NAME.match(data, after_space)
            if attribute is None:
                self.refuse(f'the start tag <{tag.decode(errors="replace")}> is malformed',
                            after_space)
            if after_space == cursor:
                self.note(after_space, 'XML_ATTRIBUTE_SPACING', 'attributes not separated by '
                          'white space; read as TinyXML2 does')
                self.edits.append((after_space, after_space, b' '))
            cursor = self.attribute(attribute, tag, seen, declared, prefixed)
        scope = frozenset(declared).union(*(e.prefixes for e in stack[-1:]))
        for qualified, where in prefixed:
            self.check_prefix(qualified, where, scope)
        if char == b'>':
            stack.append(_Element(tag, position, scope))
        return end

    def attribute(self, match: re.Match, tag: bytes, seen: set[bytes], declared: set[bytes],
                  prefixed: list[tuple[bytes, int]]) -> int:
        data = self.data
        name = match.group()
        equals = self.skip_space(match.end())
        if data[equals:equals + 1] != b'=':
            self.refuse(f'attribute {name.decode(errors="replace")!r} of '
                        f'<{tag.decode(errors="replace")}> has no value', match.start())
        quote_at = self.skip_space(equals + 1)
        quote = data[quote_at:quote_at + 1]
        if quote not in (b'"', b"'"):
            self.refuse(f'the value of attribute {name.decode(errors="replace")!r} is not in '
                        'quotes', quote_at)
        close = self.find(quote, quote_at + 1, 'an attribute value', quote_at)
        if name in seen:
            self.refuse(f'attribute {name.decode(errors="replace")!r} appears twice in '
                        f'<{tag.decode(errors="replace")}>', match.start())
        seen.add(name)
        if name.startswith(b'xmlns:'):
            declared.add(name[6:])
        elif name != b'xmlns':
            prefixed.append((name, match.start()))
        self.text(quote_at + 1, close, attribute=True)
        return close + 1

    def check_prefix(self, qualified: bytes, position: int, scope: frozenset[bytes]) -> None:
        prefix, colon, local = qualified.partition(b':')
        if not colon or not prefix or not local or prefix in (b'xml', b'xmlns'):
            return
        if prefix not in scope and prefix not in self.undeclared:
            self.undeclared[prefix] = self.line(position)

    def text(self, start: int, end: int, attribute: bool) -> None:
        """Escape what TinyXML2 reads literally and drop characters XML cannot hold."""
        for hazard in _TEXT_HAZARD.finditer(self.data, start, end):
            token = hazard.group()
            if token == b'<':
                if attribute:
                    self.edits.append((hazard.start(), hazard.end(), b'&lt;'))
                    self.note(hazard.start(), 'XML_UNESCAPED', "'<' inside an attribute value "
                              "read as a literal '<', as TinyXML2 does")
            elif token == b']]>':
                if not attribute:
                    self.edits.append((hazard.start(), hazard.end(), b']]&gt;'))
                    self.note(hazard.start(), 'XML_UNESCAPED', "']]>' in text read literally")
            elif token.startswith(b'&'):
                self.reference(hazard)
            else:
                self.edits.append((hazard.start(), hazard.end(), b''))
                self.note(hazard.start(), 'XML_INVALID_CHARACTER', 'a control character XML '
                          'does not allow is dropped')

    def reference(self, hazard: re.Match) -> None:
        token = hazard.group()
        if token == b'&':
            self.edits.append((hazard.start(), hazard.end(), b'&amp;'))
            self.note(hazard.start(), 'XML_UNESCAPED', "'&' starting no reference read as a "
                      "literal '&', as TinyXML2 does")
        elif token.startswith(b'&#'):
            digits = token[2:-1]
            value = int(digits[1:], 16) if digits.startswith(b'x') else int(digits)
            if not _xml_character(value):
                self.edits.append((hazard.start(), hazard.end(), b''))
                self.note(hazard.start(), 'XML_INVALID_CHARACTER', 'a character reference to '
                          'a character XML does not allow is dropped')
        elif token[1:-1] not in _PREDEFINED_ENTITIES:
            self.edits.append((hazard.start(), hazard.start() + 1, b'&amp;'))
            self.note(hazard.start(), 'XML_UNESCAPED', 'an undefined entity reference is read '
                      'as literal text (TinyXML2 expands no entities)')

    # --- result --------------------------------------------------------------------------------
    def keep_one_root(self, tops: list[_TopElement]) -> None:
        """Keep the first element a reader looks for (else the first) and ignore the others."""
        root = next((top for top in tops if top.name in self.roots), tops[0])
        edits, notes = [], []
        previous_edit = previous_note = 0
        for top in tops:
            edits += self.edits[previous_edit:top.edits[0]]
            notes += self.notes[previous_note:top.notes[0]]
            previous_edit, previous_note = top.edits[1], top.notes[1]
            if top is root:
                edits += self.edits[top.edits[0]:top.edits[1]]
                notes += self.notes[top.notes[0]:top.notes[1]]
                continue
            notes.append((self.line(top.start), 'XML_EXTRA_ELEMENT', f'a second top-level element '
                          f'<{top.name.decode(errors="replace")}> is ignored (the document is '
                          f'<{root.name.decode(errors="replace")}> of line '
                          f'{self.line(root.start)})'))
            segment = self.data[top.start:top.end]
            edits.append((top.start, top.end, bytes(c if c in b'\r\n' else 32 for c in segment)))
        edits += self.edits[previous_edit:]
        notes += self.notes[previous_note:]
        for prefix, where in sorted(root.undeclared.items(), key=lambda item: item[1]):
            notes.append((where, 'XML_UNDECLARED_PREFIX', f'namespace prefix '
                          f'{prefix.decode(errors="replace")!r} is used but never declared '
                          f'(xmlns:{prefix.decode(errors="replace")}); its elements and '
                          'attributes are read as extensions, as TinyXML2 does'))
        declarations = b''.join(b' xmlns:%s="%s%s"' % (prefix, UNDECLARED_NAMESPACE.encode(),
                                                       prefix)
                                for prefix in sorted(root.undeclared))
        if declarations:
            edits.append((root.name_end, root.name_end, declarations))
        if self.lost_encoding is not None and not self.kept_declaration and \
                not self.data.startswith(_BOM):
            edits.append((0, 0, b'<?xml version="1.0" encoding="%s"?>' % self.lost_encoding))
        self.edits, self.notes = edits, notes

    def apply(self) -> bytes:
        pieces, cursor = [], 0
        for start, end, replacement in sorted(self.edits, key=lambda edit: (edit[0], edit[1])):
            assert start >= cursor, 'overlapping repairs'
            pieces += [self.data[cursor:start], replacement]
            cursor = end
        pieces.append(self.data[cursor:])
        return b''.join(pieces)

    def summary(self) -> list[Repair]:
        """One :class:`Repair` per distinct message, at its first place, in document order."""
        grouped: dict[tuple[str, str], list[int]] = {}
        for line, code, message in self.notes:
            grouped.setdefault((code, message), []).append(line)
        repairs = [Repair(min(lines), code, message, len(lines))
                   for (code, message), lines in grouped.items()]
        return sorted(repairs, key=lambda r: r.line)


def _xml_character(value: int) -> bool:
    return (value in (0x9, 0xA, 0xD) or 0x20 <= value <= 0xD7FF or 0xE000 <= value <= 0xFFFD
            or 0x10000 <= value <= 0x10FFFF)


def _quote(text: bytes, limit: int = 40) -> str:
    """A short, one-line, quoted excerpt of ``text``."""
    shown = ' '.join(text.decode('utf-8', 'replace').split())
    return repr(shown if len(shown) <= limit else shown[:limit - 3] + '...')
