"""Entity declarations are refused in a document of any encoding (robot_formats.core.xmlsafe),
UTF-16 and UTF-32 without a byte-order mark included, whose bytes hold no ``<!DOCTYPE``: the
parsed document's DTD is what is looked at, not its bytes."""

from __future__ import annotations

import pytest

from robot_formats.core.errors import UnsafeXmlError
from robot_formats.core.xmlsafe import parse_xml_bytes

UNUSED_ENTITY = ('<?xml version="1.0"?>\n<!DOCTYPE robot [\n<!ENTITY e "x">\n]>\n'
                 '<robot name="r"><link name="a"/></robot>\n')


@pytest.mark.parametrize('encoding', ['utf-8', 'utf-16', 'utf-16-le', 'utf-32'])
def test_an_entity_declaration_is_refused_in_any_encoding_even_unused(encoding: str) -> None:
    text = UNUSED_ENTITY.replace('"1.0"?', f'"1.0" encoding="{encoding}"?')
    with pytest.raises(UnsafeXmlError, match='entity declarations are not allowed') as raised:
        parse_xml_bytes(text.encode(encoding), 'r.urdf')
    assert raised.value.line == (2 if encoding == 'utf-8' else 1)  # (found in UTF-8 bytes)


def test_a_doctype_without_entities_or_an_external_dtd_is_read() -> None:
    data = b'<?xml version="1.0"?>\n<!DOCTYPE robot>\n<robot name="r"/>\n'
    assert parse_xml_bytes(data, 'r.urdf').get('name') == 'r'
    assert parse_xml_bytes(b'<robot name="r"/>', 'r.urdf').get('name') == 'r'
