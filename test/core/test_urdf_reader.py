"""The URDF reader's building blocks against independent references: the first child of each
name as urdfdom's ``FirstChildElement`` finds it (TinyXML2 matches the name as written, prefix
included), mesh names as ``urlparse`` classifies them (core.meshes.mesh_uri), and ``<origin>`` as
``Pose.from_xyz_rpy`` reads the numbers (signs of zeros included)."""

from __future__ import annotations

import math
import os
import random
from pathlib import Path
from urllib.parse import urlparse

import pytest
from lxml import etree

from robot_formats.core.model import Pose
from robot_formats.core.meshes import mesh_uri
from robot_formats.formats import load_text
from robot_formats.formats.urdf.reader import _first_children, _UrdfParser


def _written_first_child(element: etree._Element, name: str) -> etree._Element | None:
    """TinyXML2's ``FirstChildElement(name)``: the first element child whose name, as written
    in the file (``prefix:local``), is ``name``."""
    for child in element:
        if not isinstance(child.tag, str):
            continue
        local = etree.QName(child).localname
        written = f'{child.prefix}:{local}' if child.prefix else local
        if written == name:
            return child
    return None


def test_first_children_are_urdfdoms_first_child_elements() -> None:
    root = etree.fromstring(
        b'<robot xmlns:x="urn:x"><joint><!-- c --><x:origin/><origin a="1"/><origin a="2"/>'
        b'<axis xmlns="urn:default"/><limit/><x:limit/><?pi x?><parent/></joint></robot>')
    joint = root[0]
    found = _first_children(joint)
    for tag in ('origin', 'axis', 'limit', 'parent', 'child'):
        assert found.get(tag) is _written_first_child(joint, tag), tag
    assert 'x:origin' not in found and found['origin'].get('a') == '1'


@pytest.mark.parametrize('name', ['package://p/m.stl', 'file:///tmp/m.stl', 'package://[p/m',
                                  'package://pkg\u00e9/m.dae', 'm.stl', '/abs/m.stl',
                                  'http://host/m.stl', 'PACKAGE://p/m.stl'])
def test_mesh_uris_keep_what_urlparse_calls_a_uri(name: str, tmp_path: Path) -> None:
    """A name with a scheme stays as written; any other (text urlparse refuses too) is a
    path, made a file:// URI against the URDF's directory."""
    try:
        scheme = urlparse(name).scheme
    except ValueError:
        scheme = ''
    if scheme:
        assert mesh_uri(name, tmp_path) == name
    else:
        assert mesh_uri(name, tmp_path) == Path(os.path.realpath(tmp_path / name)).as_uri()


def test_origin_is_from_xyz_rpy() -> None:
    rng = random.Random(5)
    parser = _UrdfParser(None, [])
    texts = ['0 0 0', '0 -0 0', '-0 0 0', '1e-300 0 0', '1.5707963267949 0 0', '3 -2 1e5']
    texts += [' '.join(repr(rng.uniform(-7, 7)) for _ in range(3)) for _ in range(500)]
    for xyz, rpy in zip(texts, reversed(texts)):
        element = etree.fromstring(f'<origin xyz="{xyz}" rpy="{rpy}"/>')
        expected = Pose.from_xyz_rpy(tuple(map(float, xyz.split())),
                                     tuple(map(float, rpy.split())))
        got = parser.origin(element)
        assert got == expected and [math.copysign(1, v) for v in got.quat] == \
            [math.copysign(1, v) for v in expected.quat], (xyz, rpy)


def test_origins_written_alike_warn_and_fail_where_each_is() -> None:
    """Origins written alike are read once per document, yet each element's warnings and
    errors are its own: a malformed origin in two visuals leaves each out with a warning at
    its line, a quat_xyzw origin in a 1.0 document warns at every line, equal texts give
    equal poses."""
    sphere = '<geometry><sphere radius="1"/></geometry>'
    text = f'''<robot name="r">
  <link name="a">
    <visual><origin xyz="1 2 3" rpy="0 0 1"/>{sphere}</visual>
    <visual><origin xyz="1 2 x"/>{sphere}</visual>
    <visual><origin xyz="1 2 x"/>{sphere}</visual>
    <collision><origin xyz="1 2 3" rpy="0 0 1"/>{sphere}</collision>
    <collision><origin xyz="0 0 1" quat_xyzw="0 0 0 1"/>{sphere}</collision>
    <collision><origin xyz="0 0 1" quat_xyzw="0 0 0 1"/>{sphere}</collision>
    <collision><origin xyz="0 0 1"/>{sphere}</collision>
  </link>
</robot>'''
    result = load_text(text)
    link = result.scene.models[0].links[0]
    assert len(link.visuals) == 1 and len(link.collisions) == 4
    assert link.visuals[0].origin == link.collisions[0].origin == Pose.from_xyz_rpy(
        (1.0, 2.0, 3.0), (0.0, 0.0, 1.0))
    assert [c.origin for c in link.collisions[1:]] == [Pose((0.0, 0.0, 1.0))] * 3
    assert [(w.code, w.line) for w in result.warnings] == [
        ('URDF_MALFORMED_ELEMENT', 4), ('URDF_MALFORMED_ELEMENT', 5),
        ('URDF_VERSION_FEATURE', 7), ('URDF_VERSION_FEATURE', 8)]
