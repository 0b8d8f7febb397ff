"""Safe recovery from the TMP spec page's own XML mistakes.

The wiki page that defines the format (see docs/tmp.md) has two mistakes that make a document
copied from it non-well-formed XML, so no XML parser can read it as written:

* ``<xmin>-0.25<xmax><xmin>0.25<xmax>`` where ``<xmin>-0.25</xmin><xmax>0.25</xmax>`` is meant
  (the same for y and z);
* a leaf element closed by a misspelt tag, ``<torso>0.15</tordo>``.

:func:`repair_known_quirks` rewrites exactly these two patterns in the raw text — nothing else,
never by guessing at general XML — keeps every line where it was (so later errors still name
the right line) and returns a warning naming file and line for each repair. The repaired text
is then parsed by :mod:`robot_formats.core.xmlsafe` like any other document: no DTD, no entities.
A document where neither pattern occurs is returned unchanged, and its syntax error stands.
"""

from __future__ import annotations

import re
from pathlib import Path

from robot_formats.core.errors import Diagnostic

__all__ = ['QUIRK_MINMAX', 'QUIRK_CLOSING_TAG', 'QUIRK_STRAY_PAREN', 'repair_known_quirks']

QUIRK_MINMAX = 'TMP_QUIRK_MINMAX'
QUIRK_CLOSING_TAG = 'TMP_QUIRK_CLOSING_TAG'
QUIRK_STRAY_PAREN = 'TMP_QUIRK_STRAY_PAREN'

_NUMBER = rb'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?'
#: <xmin>A<xmax><xmin>B<xmax>  (x, y or z), any whitespace between the pieces
_MINMAX = re.compile(rb'<(?P<axis>[xyz])min>\s*(?P<low>' + _NUMBER + rb')\s*<(?P=axis)max>\s*'
                     rb'<(?P=axis)min>\s*(?P<high>' + _NUMBER + rb')\s*<(?P=axis)max>')
#: <name attrs>text</other> with text free of markup and other != name: a misspelt closing tag
_NAME = rb'[A-Za-z_][A-Za-z0-9_.-]*'
_MISCLOSED = re.compile(rb'<(?P<open>' + _NAME + rb')(?P<attrs>\s[^<>]*[^/<>])?>'
                        rb'(?P<text>[^<>]*)</(?P<close>' + _NAME + rb')\s*>')


def repair_known_quirks(data: bytes, file: str | Path | None
                        ) -> tuple[bytes, list[Diagnostic]]:
    """The document with the spec page's two syntax mistakes corrected, and one warning each."""
    repairs: list[Diagnostic] = []

    segment = {'start': 0}  # offset in ``data`` of the text being rewritten

    def line_of(offset: int) -> int:
        return data.count(b'\n', 0, segment['start'] + offset) + 1

    def fix_minmax(match: re.Match) -> bytes:
        axis = match['axis'].decode()
        repairs.append(Diagnostic(
            f'<{axis}min>{match["low"].decode()}<{axis}max><{axis}min>{match["high"].decode()}'
            f'<{axis}max> (the spec page\'s typo) read as <{axis}min>{match["low"].decode()}'
            f'</{axis}min><{axis}max>{match["high"].decode()}</{axis}max>',
            str(file) if file else None, line_of(match.start()), QUIRK_MINMAX))
        newlines = b'\n' * match.group(0).count(b'\n')  # keep later lines where they were
        return (b'<%smin>%s</%smin><%smax>%s</%smax>' % (
            match['axis'], match['low'], match['axis'], match['axis'], match['high'],
            match['axis'])) + newlines

    def fix_closing(match: re.Match) -> bytes:
        if match['open'] == match['close']:
            return match.group(0)
        opened, closed = match['open'].decode(), match['close'].decode()
        repairs.append(Diagnostic(
            f'<{opened}> is closed by </{closed}> (a misspelt closing tag, as on the spec '
            f'page); read as </{opened}>', str(file) if file else None,
            line_of(match.start()), QUIRK_CLOSING_TAG))
        return (b'<' + match['open'] + (match['attrs'] or b'') + b'>' + match['text'] + b'</'
                + match['open'] + b'>')

    # Comments are left alone (a comment may quote the typos); the min/max rewrite keeps every
    # line where it was, so line_of() stays right on its output.
    data = _outside_comments(data, segment, lambda text: _MINMAX.sub(fix_minmax, text))
    repaired = _outside_comments(data, segment, lambda text: _MISCLOSED.sub(fix_closing, text))
    repairs.sort(key=lambda d: d.line or 0)
    return repaired, repairs


_COMMENT = re.compile(rb'<!--.*?-->', re.DOTALL)


def _outside_comments(data: bytes, segment: dict, rewrite) -> bytes:
    """``rewrite`` applied to the text between comments; comments kept as they are.

    The rewrites only match within markup-free stretches, so splitting at comments never
    hides a match that spans one.
    """
    out, position = [], 0
    for comment in _COMMENT.finditer(data):
        segment['start'] = position
        out.append(rewrite(data[position:comment.start()]))
        out.append(comment.group(0))
        position = comment.end()
    segment['start'] = position
    out.append(rewrite(data[position:]))
    return b''.join(out)
