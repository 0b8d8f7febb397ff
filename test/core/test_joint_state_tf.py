"""robot_formats.runtime.tf_solver.JointStateTf: the joint_states rules every TF-publishing node
shares (description_publisher, problem_server), without ROS.

On examples/urdf/arm_with_gripper.urdf (5 DoF; finger_right mimics finger_left): a message sets
the DoFs it names and moves the edges they drive (mimic followers included); a malformed
message changes nothing; under a rate cap a source publishes at most once per period, the
held-back last state is handed out once the period has passed, a newer state replaces it.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from robot_formats.runtime.description import Description
from robot_formats.runtime.tf_solver import JointStateRefused, JointStateTf

ARM = Path(__file__).resolve().parents[2] / 'examples' / 'urdf' / 'arm_with_gripper.urdf'


@pytest.fixture(scope='module')
def description() -> Description:
    return Description.load(ARM)


def follower(description: Description, frequency: float) -> tuple[JointStateTf, np.ndarray]:
    positions = description.initial_vector()
    return JointStateTf(description.solver, positions, frequency), positions


def test_a_message_sets_the_joints_it_names_and_moves_their_edges(description):
    joints, positions = follower(description, 0.0)
    plan = joints.update(['elbow', 'finger_left', 'not_a_joint'], [0.7, 0.03, 5.0])
    assert dict(zip(description.dof_names, positions)) == {
        'shoulder_pan': 0.0, 'shoulder_lift': 0.0, 'elbow': 0.7, 'wrist_roll': 0.0,
        'finger_left': 0.03}
    assert sorted(child for _, child in plan.pairs) == ['forearm_link', 'left_finger',
                                                       'right_finger']  # the mimic follows
    # the published transform of the elbow: origin (0 0 0.25, pitch 0.8) then 0.7 about y
    poses = description.solver.solve_plan(positions, plan)
    elbow = poses[[child for _, child in plan.pairs].index('forearm_link')]
    half = (0.8 + 0.7) / 2
    np.testing.assert_allclose(elbow, [0, 0, 0.25, 0, math.sin(half), 0, math.cos(half)],
                               atol=1e-12)
    assert joints.publish_now(plan, 'stamp', now=0.0)
    # names the model does not have move nothing
    assert joints.update(['gripper_of_nobody'], [1.0]).edges.size == 0


@pytest.mark.parametrize('names, values, why', [
    (['elbow', 'wrist_roll'], [0.1], '2 names but 1 positions'),
    (['elbow', 'wrist_roll'], [0.1, math.nan], 'non-finite positions'),
    (['elbow'], [math.inf], 'non-finite positions'),
])
def test_a_malformed_message_is_refused_whole(description, names, values, why):
    joints, positions = follower(description, 0.0)
    joints.update(['elbow', 'wrist_roll'], [0.2, 0.3])
    before = positions.copy()
    with pytest.raises(JointStateRefused, match=why):
        joints.update(names, values)
    np.testing.assert_array_equal(positions, before)


def test_the_rate_cap_holds_back_and_hands_out_the_last_state(description):
    joints, positions = follower(description, 10.0)  # at most every 0.0999 s per source
    names = list(description.dof_names)
    plan = joints.update(names, [0.1] * 5)
    assert joints.publish_now(plan, 'a', now=1.0)
    joints.published(plan, now=1.0)
    assert joints.due(now=1.05) == []
    for stamp, value, now in (('b', 0.2, 1.02), ('c', 0.3, 1.05)):
        plan = joints.update(names, [value] * 5)
        assert not joints.publish_now(plan, stamp, now=now)  # held back
    assert joints.due(now=1.09) == []                       # the period has not passed
    assert joints.due(now=1.0999) == [(plan, 'c')]          # the newest replaced the older
    assert positions[0] == 0.3
    joints.published(plan, now=1.0999)
    assert joints.due(now=5.0) == []
    # another source (other names) has its own period
    other = joints.update(['wrist_roll'], [1.0])
    assert other is not plan and joints.publish_now(other, 'd', now=1.1)


def test_without_a_cap_every_message_is_published(description):
    joints, _ = follower(description, 0.0)
    plan = joints.update(['elbow'], [0.1])
    for now in (0.0, 1e-6, 2e-6):
        assert joints.publish_now(plan, now, now=now)
        joints.published(plan, now=now)
    assert joints.due(now=1.0) == []


def test_forget_drops_held_states(description):
    joints, _ = follower(description, 1.0)
    plan = joints.update(['elbow'], [0.1])
    joints.published(plan, now=0.0)
    assert not joints.publish_now(joints.update(['elbow'], [0.2]), 'x', now=0.1)
    joints.forget()
    assert joints.due(now=10.0) == []
    assert joints.publish_now(plan, 'y', now=0.2)  # no history after forget
