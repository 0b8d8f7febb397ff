"""The SKEL reader walks each element's children itself (one pass, no lxml tag matchers):
comments, processing instructions and namespaces must not change what it reads.

``load`` drops comments and processing instructions while parsing, but
``parse_skel_element`` takes any lxml tree, e.g. one parsed with lxml's defaults, which keeps
them as children whose ``tag`` is not a string. SKEL elements in a namespace are read by
their local names (DART's TinyXML2 ignores namespaces; the reader always has).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from robot_formats.formats.skel import parse_skel_element
from shared_data import shared  # noqa: E402  (shared/ beside the clone)

SOURCES = sorted((shared('corpus', 'skel') / 'dart_tianyang9310_fork' / 'data' / 'skel')
                 .rglob('*.skel')) + sorted(shared('goldens', 'skel', 'generated', 'random')
                                            .glob('*.skel'))[:5]


def _root(path: Path) -> etree._Element:
    parser = etree.XMLParser(remove_comments=False, remove_pis=False)
    return etree.parse(str(path), parser).getroot()


def _read(root: etree._Element, path: Path) -> tuple:
    warnings: list = []
    try:
        scene = parse_skel_element(root, str(path), warnings)
    except Exception as err:  # noqa: BLE001 - compared, not hidden
        return type(err).__name__, str(err)
    return scene, [(w.message, w.code) for w in warnings]


def _with_noise(root: etree._Element) -> etree._Element:
    """A comment and a processing instruction before and after every element's children."""
    for element in list(root.iter(etree.Element)):
        element.insert(0, etree.Comment(' first '))
        element.insert(0, etree.ProcessingInstruction('note', 'first'))
        element.append(etree.Comment(' last '))
        element.append(etree.ProcessingInstruction('note', 'last'))
    return root


def _namespaced(root: etree._Element) -> etree._Element:
    for element in root.iter(etree.Element):
        element.tag = '{urn:example:skel}' + element.tag
    return root


@pytest.mark.parametrize('source', SOURCES, ids=lambda p: p.name)
def test_comments_pis_and_namespaces_read_like_the_plain_document(source: Path) -> None:
    plain = _read(_root(source), source)
    assert _read(_with_noise(_root(source)), source) == plain
    assert _read(_namespaced(_root(source)), source) == plain
    assert _read(_namespaced(_with_noise(_root(source))), source) == plain
