"""An SDFormat scene holds no number out of range (core.ranges' rule): each place of a scene
the rule covers, fed a value out of range from an SDFormat document, is refused
(VALUE_OUT_OF_RANGE), read or derived (composed poses, an axis expressed in another frame, a
screw's pitch from its thread pitch); what the rule does not cover (a pose's angles, an
unlimited joint's limits, gravity) still loads.

The SDFormat reader checks them itself (its format declares ``checks_ranges``: the loader
does not walk its scenes again), so each is refused by the reader alone too, and so is what a
custom model parser returns (names and poses no reader saw)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from robot_formats.core.errors import FormatError, InvalidValueError
from robot_formats.core.model import Pose
from robot_formats.formats import load
from robot_formats.formats.builtin import SDF
from robot_formats.formats.sdformat import (InterfaceFrame, InterfaceLink, InterfaceModel,
                                            ResolverConfig, read_sdf)
from sdf_testlib import sdf, write


def _link(inner: str, name: str = 'l') -> str:
    return f'<link name="{name}">{inner}</link>'


def _model(body: str, pose: str = '') -> str:
    return sdf(f'<model name="m">{pose}{body}</model>')


def _two_links(joint: str, child_pose: str = '') -> str:
    """A model of links a and b, ``joint`` (its children) a revolute joint between them."""
    return _model(f'<link name="a"/><link name="b">{child_pose}</link>'
                  f'<joint name="j" type="revolute"><parent>a</parent><child>b</child>'
                  f'{joint}</joint>')


_AXIS = '<axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>'

_OUT_OF_RANGE = {
    'mass': _model(_link('<inertial><mass>1e19</mass></inertial>')),
    'mass -inf': _model(_link('<inertial><mass>-inf</mass></inertial>')),
    'inertia': _model(_link('<inertial><inertia><ixx>1e300</ixx></inertia></inertial>')),
    'inertial pose': _model(_link('<inertial><pose>0 0 1e19 0 0 0</pose></inertial>')),
    'box': _model(_link('<visual name="v"><geometry><box><size>1 1e19 1</size></box>'
                        '</geometry></visual>')),
    'sphere inf': _model(_link('<collision name="c"><geometry><sphere><radius>inf</radius>'
                               '</sphere></geometry></collision>')),
    'cylinder': _model(_link('<visual name="v"><geometry><cylinder><radius>1</radius>'
                             '<length>-1e300</length></cylinder></geometry></visual>')),
    'mesh scale': _model(_link('<visual name="v"><geometry><mesh><uri>m.stl</uri>'
                               '<scale>1 1 1e19</scale></mesh></geometry></visual>')),
    'colour': _model(_link('<visual name="v"><geometry><box><size>1 1 1</size></box>'
                           '</geometry><material><diffuse>1 0 1e300 1</diffuse></material>'
                           '</visual>')),
    'visual pose': _model(_link('<visual name="v"><pose>1e19 0 0 0 0 0</pose><geometry><box>'
                                '<size>1 1 1</size></box></geometry></visual>')),
    'collision pose': _model(_link('<collision name="c"><pose>0 0 0 0 0 0</pose><geometry>'
                                   '<box><size>1 1 1</size></box></geometry></collision>'
                                   ).replace('0 0 0 0 0 0', '0 -1e300 0 0 0 0')),
    'model pose': _model(_link(''), '<pose>1e19 0 0 0 0 0</pose>'),
    'composed model pose': sdf('<model name="m"><pose>6e17 0 0 0 0 0</pose><model name="n">'
                               '<pose>6e17 0 0 0 0 0</pose>' + _link('') + '</model></model>'),
    'second root link': _model(_link('') + _link('<pose>1e19 0 0 0 0 0</pose>', 'l2')),
    'frame pose': _model(_link('') + '<frame name="f" attached_to="l"><pose>0 1e19 0 0 0 0'
                         '</pose></frame>'),
    'world frame pose': sdf('<world name="w"><frame name="f"><pose>0 0 1e19 0 0 0</pose>'
                            '</frame></world>'),
    'child link pose': _two_links(_AXIS, '<pose>1e19 0 0 0 0 0</pose>'),
    'joint pose': _two_links('<pose>0 0 -1e19 0 0 0</pose>' + _AXIS),
    'axis': _two_links('<axis><xyz>1e19 0 1</xyz></axis>'),
    'axis expressed in the model': _two_links(
        '<pose>0 0 0 0.7 0 0</pose><axis><xyz expressed_in="__model__">0 1e18 1e18</xyz>'
        '</axis>'),
    'effort': _two_links('<axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper>'
                         '<effort>1e300</effort></limit></axis>'),
    'velocity': _two_links('<axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper>'
                           '<velocity>1e19</velocity></limit></axis>'),
    'damping': _two_links('<axis><xyz>0 0 1</xyz><dynamics><damping>1e300</damping>'
                          '</dynamics></axis>'),
    'friction': _two_links('<axis><xyz>0 0 1</xyz><dynamics><friction>-1e19</friction>'
                           '</dynamics></axis>'),
    'screw pitch': _two_links('<axis><xyz>0 0 1</xyz></axis><thread_pitch>1e-300'
                              '</thread_pitch>').replace('revolute', 'screw'),
}


@pytest.mark.parametrize('name', sorted(_OUT_OF_RANGE))
def test_a_number_out_of_range_is_refused(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, 'm.sdf', _OUT_OF_RANGE[name])
    with pytest.raises(InvalidValueError) as raised:
        load(path)
    assert raised.value.code == 'VALUE_OUT_OF_RANGE', raised.value
    assert raised.value.file == str(path), raised.value


@pytest.mark.parametrize('name', sorted(_OUT_OF_RANGE))
def test_the_reader_alone_refuses_a_number_out_of_range(tmp_path: Path, name: str) -> None:
    """The SDFormat reader alone (no check after it: the format declares ``checks_ranges``)
    refuses what it reads and what it derives."""
    assert SDF.checks_ranges
    path = write(tmp_path, 'm.sdf', _OUT_OF_RANGE[name])
    with pytest.raises(InvalidValueError) as raised:
        read_sdf(path)
    assert raised.value.code == 'VALUE_OUT_OF_RANGE', raised.value
    assert raised.value.file == str(path), raised.value


_IN_RANGE = {
    'angles beyond the range': _model(_link('<pose>0 0 0 1e19 -1e300 1e30</pose>')),
    'unlimited joint': _two_links('<axis><xyz>0 0 1</xyz><limit><lower>-inf</lower>'
                                  '<upper>inf</upper><effort>inf</effort><velocity>-1'
                                  '</velocity></limit></axis>'),
    'unlimited by the default': _two_links('<axis><xyz>0 0 1</xyz><limit><lower>-1e16</lower>'
                                           '<upper>1e300</upper></limit></axis>'),
    'gravity': sdf('<world name="w"><gravity>0 0 -1e300</gravity></world>'),
    'largest': _two_links('<pose>1e18 -1e18 0 0 0 0</pose><axis><xyz>1e18 0 0</xyz></axis>'),
}


@pytest.mark.parametrize('name', sorted(_IN_RANGE))
def test_what_the_rule_does_not_cover_loads(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, 'm.sdf', _IN_RANGE[name])
    load(path)
    read_sdf(path)


@pytest.mark.parametrize('links, frames, code', [
    ([InterfaceLink('')], [], 'NAME_EMPTY'),
    ([InterfaceLink('only')], [InterfaceFrame('', 'only')], 'NAME_EMPTY'),
    ([InterfaceLink('only'), InterfaceLink('far', Pose((0.0, 1e19, 0.0)))], [],
     'VALUE_OUT_OF_RANGE'),
    ([InterfaceLink('only')], [InterfaceFrame('f', 'only', Pose((math.inf, 0.0, 0.0)))],
     'VALUE_OUT_OF_RANGE'),
])
def test_a_custom_parsers_names_and_poses_are_checked(tmp_path: Path, links: list,
                                                      frames: list, code: str) -> None:
    """What a custom model parser returns reaches the scene without a reader seeing it: an
    empty link or frame name, a pose no model may hold, are refused as the rule refuses them."""
    config = ResolverConfig()
    config.register_custom_model_parser(
        lambda include, errors: InterfaceModel('custom', links[0].name, links=links,
                                               frames=frames))
    (tmp_path / 'thing.toy').write_text('toy')
    path = write(tmp_path, 'w.sdf', sdf('<world name="w"><include><uri>thing.toy</uri>'
                                        '</include></world>'))
    with pytest.raises(FormatError) as raised:
        read_sdf(path, config=config)
    assert raised.value.code == code, raised.value
