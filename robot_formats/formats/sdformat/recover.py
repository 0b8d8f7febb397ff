"""The one XML mistake libsdformat forgives that libxml2 does not: stray end tags after the root.

TinyXML2 stops at the end of the root element, so ``...</sdf></sdf>`` loads in libsdformat. We
drop such trailing end tags (and only those), say so in a warning, and parse the rest with the
same locked-down parser; any other syntax error stands.
"""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from robot_formats.core.errors import Diagnostic, FormatError
from robot_formats.core.xmlsafe import parse_xml_bytes

__all__ = ['recover_sdf']

_TRAILING_END_TAG = re.compile(rb'\s*</[A-Za-z_][\w.:-]*\s*>\s*$')


def recover_sdf(data: bytes, path: Path, warnings: list[Diagnostic]) -> etree._Element | None:
    """The root of ``data`` without stray trailing end tags, or None if that is not the fault."""
    if b'<sdf' not in data[:4096]:
        return None
    trimmed, dropped = data, 0
    while dropped < 8:
        match = _TRAILING_END_TAG.search(trimmed)
        if match is None:
            return None
        trimmed, dropped = trimmed[:match.start()], dropped + 1
        try:
            root = parse_xml_bytes(trimmed, path)
        except FormatError:
            continue
        if root.tag != 'sdf':
            return None
        line = trimmed.count(b'\n') + 1
        warnings.append(Diagnostic(f'ignored {dropped} stray end tag(s) after the root element '
                                   '(libsdformat ignores them too)', str(path), line,
                                   'XML_TRAILING_CONTENT'))
        return root
    return None
