"""The benchmarks' floor (benchmarks/floor.py) does what its lines say: reads every element and
attribute of the file, and makes exactly the model's links, joints and frames. A floor that
skipped part of either would make a missed target look closer to reach than it is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from lxml import etree

import robot_formats

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / 'shared'
FILES = [
    SHARED / 'corpus' / 'sdformat' / 'gazebosim_sdformat' / 'test' / 'performance'
    / 'parser_urdf_atlas.urdf',
    SHARED / 'corpus' / 'hrdf' / 'hebi_description' / 'config' / 'arms' / 'hrdf'
    / 'A-2240-06G.hrdf',
    SHARED / 'corpus' / 'skel' / 'dart_tianyang9310_fork' / 'data' / 'skel' / 'test'
    / 'chainwhipa.skel',
    ROOT / 'examples' / 'sdf' / 'workcell.sdf',
]


@pytest.fixture(scope='module')
def floor_module():
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import floor
    finally:
        sys.path.remove(str(ROOT))
    return floor


@pytest.mark.parametrize('path', FILES, ids=lambda p: p.name)
def test_the_floor_reads_every_element_and_attribute(floor_module, path: Path) -> None:
    assert path.is_file(), f'{path} is missing: ../shared must be beside the repository'
    scene = robot_formats.load(path).scene
    read = floor_module.Floor(path, scene).read()
    parser = etree.XMLParser(remove_comments=True, remove_pis=True)  # (as load() reads them)
    elements = list(etree.parse(str(path), parser).getroot().iter())
    assert len(read) == len(elements) > 1
    for (tag, text, attributes), element in zip(read, elements):
        assert tag == element.tag and text == element.text
        assert attributes == element.items()
    assert sum(len(attributes) for _, _, attributes in read) > 0


@pytest.mark.parametrize('path', FILES, ids=lambda p: p.name)
def test_the_floor_makes_the_models_links_joints_and_frames(floor_module, path: Path) -> None:
    scene = robot_formats.load(path).scene
    made = floor_module.Floor(path, scene).make()
    expected = [member for model in scene.models
                for member in (*model.links, *model.joints, *model.frames)]
    # (made: all links, then all joints, then all frames)
    expected.sort(key=lambda member: ('Link', 'Joint', 'Frame').index(type(member).__name__))
    assert len(made) == len(expected) > 2
    for new, old in zip(made, expected):
        assert type(new) is type(old) and new is not old
        assert new.name == old.name and new.line == old.line
    assert any(type(member).__name__ == 'Joint' for member in made)
