"""core.ranges.check_ranges: every number of a scene finite and in range, every name a name.

The walk checks each part of a member with one in_range call over all of its numbers; these
tests put one number out of range in each part and expect the refusal naming the member and
the part, at the member's line."""

from __future__ import annotations

import math

import pytest

from robot_formats.core.errors import InvalidValueError, SchemaError
from robot_formats.core.model import (Box, Collision, Inertial, Joint, JointType, Limits, Link,
                                      Material, Mesh, Mimic, Model, Pose, Scene, Visual)
from robot_formats.core.ranges import check_ranges

_JOINT = Joint('j', JointType.REVOLUTE, 'a', 'b', axis=(0.0, 0.0, 1.0), line=7)
_LINK = Link('b', line=5)


def _scene(link: Link = _LINK, joint: Joint = _JOINT, *,
           initial_positions: dict[str, float] | None = None,
           initial_velocities: dict[str, float] | None = None) -> Scene:
    return Scene('s', (Model('m', (Link('a'), link), (joint,),
                             initial_positions=initial_positions or {},
                             initial_velocities=initial_velocities or {}),), source='s.urdf')


def test_a_scene_in_range_passes() -> None:
    check_ranges(_scene(Link('b', Inertial(2.0, Pose((0.0, 0.0, 1e18)), (1.0,) * 6),
                             (Visual(Mesh('m.stl', (2.0, 2.0, 2.0)), material=Material(
                                 'c', (1.0, 0.0, 0.0, 1.0))),), line=5),
                        initial_positions={'j': -1e18}))


@pytest.mark.parametrize('scene, member, part, line', [
    (_scene(Link('b', Inertial(1e19), line=5)), "link 'b'", 'the mass', 5),
    (_scene(Link('b', Inertial(1.0, Pose((0.0, math.inf, 0.0))), line=5)), "link 'b'",
     'inertial origin', 5),
    (_scene(Link('b', visuals=(Visual(Box((1.0, math.nan, 1.0))),), line=5)), "link 'b'",
     'a visual', 5),
    (_scene(Link('b', visuals=(Visual(Box((1.0, 1.0, 1.0)), material=Material(
        'c', (1.0, 0.0, -1e300, 1.0))),), line=5)), "link 'b'", 'colour', 5),
    (_scene(Link('b', collisions=(Collision(Box((1.0, 1.0, 1.0)), Pose((1e300, 0.0, 0.0))),),
                 line=5)), "link 'b'", 'a collision', 5),
    (_scene(joint=Joint('j', JointType.REVOLUTE, 'a', 'b', Pose((0.0, 0.0, -1e19)),
                        line=7)), "joint 'j'", 'the origin', 7),
    (_scene(joint=Joint('j', JointType.PRISMATIC, 'a', 'b', axis=(1.0, math.inf, 0.0),
                        line=7)), "joint 'j'", 'axis', 7),
    (_scene(joint=Joint('j', JointType.REVOLUTE, 'a', 'b', limits=(Limits(-1.0, 1e300),),
                        line=7)), "joint 'j'", 'a limit', 7),
    (_scene(joint=Joint('j', JointType.REVOLUTE, 'a', 'b', mimic=Mimic('k', 1e300),
                        line=7)), "joint 'j'", 'the mimic', 7),
    (_scene(initial_positions={'j': math.inf}), "model 'm'", 'the initial positions', None),
    (_scene(initial_velocities={'j': 0.0, 'k': -1e19}), "model 'm'",
     'the initial velocities', None),
])
def test_a_number_out_of_range_is_refused_naming_its_member_and_part(
        scene: Scene, member: str, part: str, line: int | None) -> None:
    with pytest.raises(InvalidValueError) as raised:
        check_ranges(scene)
    error = raised.value
    assert error.code == 'VALUE_OUT_OF_RANGE' and error.line == line, error
    assert member in str(error) and part in str(error) and error.file == 's.urdf', error


def test_a_joint_without_a_direction_and_an_empty_name_are_refused() -> None:
    with pytest.raises(InvalidValueError, match='no direction'):
        check_ranges(_scene(joint=Joint('j', JointType.REVOLUTE, 'a', 'b', axis=(0.0, 0.0, 0.0))))
    with pytest.raises(SchemaError) as raised:
        check_ranges(_scene(Link('', line=5)))
    assert raised.value.code == 'NAME_EMPTY'
