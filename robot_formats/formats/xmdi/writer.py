"""XMDI writer: the project's reconstruction (``<xmdi><motions><motion>...``), always.

Numbers are written with Python's shortest round-trip representation, so reading the output
gives back exactly the same floats; extra ``<motion>`` attributes are kept in order.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from robot_formats.core.files import atomic_write
from robot_formats.formats.xmdi.document import Motion, MotionDocument
from robot_formats.formats.xmdi.reader import CANONICAL

__all__ = ['xmdi_string', 'write_xmdi']


def _number(value: float) -> str:
    text = repr(float(value))
    return text[:-2] if text.endswith('.0') else text


def _motion_element(parent: etree._Element, motion: Motion) -> None:
    element = etree.SubElement(parent, CANONICAL['motion'])
    element.set('name', motion.name)
    for key, value in motion.attributes:
        element.set(key, value)
    for servo in motion.servos:
        servo_element = etree.SubElement(element, CANONICAL['servo'], name=servo.name)
        etree.SubElement(servo_element, CANONICAL['position']).text = ' '.join(
            _number(v) for v in servo.positions)
        etree.SubElement(servo_element, CANONICAL['frames']).text = ' '.join(
            str(int(f)) for f in servo.frames)


def xmdi_string(document: MotionDocument | list[Motion] | tuple[Motion, ...]) -> str:
    """The document (or just these motions) as XMDI text."""
    motions = document.motions if isinstance(document, MotionDocument) else tuple(document)
    root = etree.Element(CANONICAL['root'])
    container = etree.SubElement(root, CANONICAL['container'])
    for motion in motions:
        _motion_element(container, motion)
    body = etree.tostring(root, pretty_print=True, encoding='unicode')
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body


def write_xmdi(document: MotionDocument | list[Motion] | tuple[Motion, ...],
               path: str | Path) -> None:
    """Write XMDI text to ``path``, atomically (FileAccessError when it cannot be written; an
    existing file is then unchanged)."""
    atomic_write(path, xmdi_string(document))
