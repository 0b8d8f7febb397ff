"""ProblemState with frames that move (what problem_server builds on, without ROS): objects
attached to a frame whose world pose comes from a callable (a robot link as TF reports it) ride
on it with the pose fixed at attach; detach leaves them where they are; refusals raise with a
sentence and change nothing; snapshot() says when a parent frame is unknown.

Expected poses are products of matrices written here (examples/tmp/pick_and_place.xml's numbers).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from robot_formats.core.errors import FormatError
from robot_formats.formats import read_problem
from robot_formats.formats.tmp.semantics import FrameUnavailable, ProblemState

PROBLEM = Path(__file__).resolve().parents[3] / 'examples' / 'tmp' / 'pick_and_place.xml'


def pose(x: float, y: float, z: float, yaw: float = 0.0) -> np.ndarray:
    out = np.eye(4)
    out[:2, :2] = [[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]]
    out[:3, 3] = (x, y, z)
    return out


BLOCK = pose(0.249374, 0.0, 0.845)
STAND_A = pose(0.249374, 0.0, 0.72)


class Gripper:
    """A frame that moves: its world pose is whatever the test last set (None: unknown)."""

    def __init__(self) -> None:
        self.pose: np.ndarray | None = pose(0.2, 0.0, 0.9)

    def __call__(self, name: str) -> np.ndarray:
        if name != 'hand' or self.pose is None:
            raise FrameUnavailable(f'no frame {name!r} on TF now')
        return self.pose


@pytest.fixture
def moving():
    gripper = Gripper()
    return ProblemState(read_problem(PROBLEM), frame_pose=gripper), gripper


def test_an_attached_object_rides_on_its_frame_and_stays_where_detached(moving):
    state, gripper = moving
    assert state.parents['block'] == 'stand_a'
    version = state.version
    state.attach('block', 'hand')
    grasp = np.linalg.inv(gripper.pose) @ BLOCK
    np.testing.assert_allclose(state.local['block'], grasp, atol=1e-12)
    np.testing.assert_allclose(state.world_pose('block'), BLOCK, atol=1e-12)
    for step in range(5):
        gripper.pose = pose(0.1 * step, 0.2, 1.0, yaw=0.4 * step)
        np.testing.assert_allclose(state.world_pose('block'), gripper.pose @ grasp, atol=1e-12)
    left = gripper.pose @ grasp
    state.detach('block')
    gripper.pose = pose(-1.0, 0.0, 0.0)
    np.testing.assert_allclose(state.world_pose('block'), left, atol=1e-12)
    assert state.parents['block'] == 'world' and state.version == version + 2
    state.reset()
    np.testing.assert_allclose(state.world_pose('block'), BLOCK, atol=1e-12)
    assert state.parents['block'] == 'stand_a' and state.version == version + 3


@pytest.mark.parametrize('child, parent, words', [
    ('stand_a', 'hand', "cannot attach 'stand_a': it is not moveable"),
    ('bench', 'block', 'not moveable'),
    ('block', 'world', 'use detach'),
    ('block', 'block', "cannot attach 'block' to itself"),
    ('block', 'elbow', "cannot attach 'block' to 'elbow': no frame 'elbow' on TF now"),
    ('teapot', 'hand', "no object named 'teapot'"),
])
def test_refusals_say_why_and_change_nothing(moving, child, parent, words):
    state, _ = moving
    before = (dict(state.parents), {k: v.copy() for k, v in state.local.items()}, state.version)
    with pytest.raises(FormatError, match=words):
        state.attach(child, parent)
    assert state.parents == before[0] and state.version == before[2]
    for name, local in before[1].items():
        np.testing.assert_array_equal(state.local[name], local)


def test_a_cycle_through_a_carrier_is_refused(moving):
    state, _ = moving
    state.attach('block', 'hand')
    with pytest.raises(FormatError, match='TMP_ATTACHMENT_CYCLE|cycle') as caught:
        state.attach('block', 'block')
    assert caught.value.code == 'TMP_ATTACHMENT_CYCLE'


def test_an_unknown_parent_frame_is_reported_not_guessed(moving):
    state, gripper = moving
    state.attach('block', 'hand')
    gripper.pose = None  # the frame left TF
    with pytest.raises(FrameUnavailable, match="no frame 'hand' on TF now"):
        state.world_pose('block')
    with pytest.raises(FrameUnavailable, match="cannot detach 'block'"):
        state.detach('block')
    assert state.parents['block'] == 'hand'
    items = {item.name: item for item in state.snapshot()}
    assert items['block'].world is None and 'hand' in items['block'].unknown_reason
    np.testing.assert_allclose(items['stand_a'].world, STAND_A, atol=1e-12)
    assert items['stand_a'].attached == () and not items['stand_a'].moveable


def test_without_a_frame_source_only_objects_and_fixed_frames_exist():
    state = ProblemState(read_problem(PROBLEM), extra_frames={'fixed': pose(1, 2, 3)})
    state.attach('block', 'fixed')
    np.testing.assert_allclose(state.world_pose('block'), BLOCK, atol=1e-12)
    with pytest.raises(FrameUnavailable, match="no object or robot frame named 'hand'"):
        state.attach('block', 'hand')
