"""robot_formats.runtime.tf_solver.JointStateTf: the joint_states rules every TF-publishing node
shares (description_publisher, problem_server), without ROS.

On examples/urdf/arm_with_gripper.urdf (5 DoF; finger_right mimics finger_left): a message sets
the DoFs it names and moves the edges they drive (mimic followers included); a malformed
message changes nothing; the rate cap is robot_state_publisher's (callbackJointState), on the
messages' stamps: a message is published when its stamp is at least 1000/f whole milliseconds
after the oldest last-published stamp of its joints, an older or repeated state is dropped, a
newer one that comes too soon is held and handed out once the node's clock allows it;
``ignore_timestamp`` publishes every message; a clock that moves backwards restarts the cap.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from robot_formats.runtime.description import Description
from robot_formats.runtime.tf_solver import JointStateRefused, JointStateTf

ARM = Path(__file__).resolve().parents[2] / 'examples' / 'urdf' / 'arm_with_gripper.urdf'
MS = 1_000_000  #: nanoseconds
S = 1_000_000_000


@pytest.fixture(scope='module')
def description() -> Description:
    return Description.load(ARM)


def follower(description: Description, frequency: float, ignore_timestamp: bool = False
             ) -> tuple[JointStateTf, np.ndarray]:
    positions = description.initial_vector()
    return JointStateTf(description.solver, positions, frequency, ignore_timestamp), positions


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
    assert joints.receive(['elbow'], [0.7], 5 * S)[1]  # a first message is published
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


def test_the_interval_is_robot_state_publishers_whole_milliseconds(description):
    for frequency, interval in ((20.0, 50 * MS), (30.0, 33 * MS), (0.5, 2000 * MS),
                                (1000.0, 1 * MS), (1500.0, 0), (0.0, 0)):
        joints, _ = follower(description, frequency)
        assert joints.interval == interval, frequency
    joints.frequency = 7.0  # changed at run time
    assert joints.interval == 142 * MS


def test_the_cap_follows_the_stamps_not_the_clock(description):
    """A burst received at one instant whose stamps are a period apart is published whole;
    messages whose stamps are closer than the period are not, however far apart they come."""
    joints, positions = follower(description, 10.0)  # 100 ms
    names = list(description.dof_names)
    for k in range(5):
        plan, publish = joints.receive(names, [0.1 * k] * 5, 1000 * S + k * 100 * MS)
        assert publish, k
    assert joints.due(clock=0) == []
    # 50 ms of stamp later: held (the clock is irrelevant to the decision) ...
    plan, publish = joints.receive(names, [0.9] * 5, 1000 * S + 450 * MS)
    assert not publish and positions[0] == 0.9
    # ... and handed out once the node's clock has passed the cap
    assert joints.due(clock=1000 * S + 499 * MS) == []
    assert joints.due(clock=1000 * S + 500 * MS) == [(plan, 1000 * S + 450 * MS)]
    assert joints.due(clock=2000 * S) == []


def test_older_and_repeated_states_are_dropped(description):
    joints, positions = follower(description, 10.0)
    plan, publish = joints.receive(['elbow'], [0.5], 7 * S)
    assert publish
    for stamp in (7 * S, 6 * S, 7 * S - 1):  # repeated, older, older
        assert joints.receive(['elbow'], [0.25], stamp) == (plan, False)
    assert positions[description.dof_names.index('elbow')] == 0.5  # changed nothing
    assert joints.due(clock=100 * S) == []


def test_the_rate_cap_holds_back_and_hands_out_the_last_state(description):
    joints, positions = follower(description, 10.0)  # 100 ms
    names = list(description.dof_names)
    plan, publish = joints.receive(names, [0.1] * 5, 1 * S)
    assert publish
    for value, stamp in ((0.2, 1 * S + 20 * MS), (0.3, 1 * S + 50 * MS)):
        assert joints.receive(names, [value] * 5, stamp) == (plan, False)  # held back
    assert joints.due(clock=1 * S + 90 * MS) == []          # the period has not passed
    assert joints.due(clock=1 * S + 100 * MS) == [(plan, 1 * S + 50 * MS)]  # the newest
    assert positions[0] == 0.3
    assert joints.due(clock=5 * S) == []
    # a held state that a newer published one overtook is not handed out
    assert joints.receive(names, [0.4] * 5, 1 * S + 60 * MS)[1] is False
    assert joints.receive(names, [0.5] * 5, 1 * S + 150 * MS)[1] is True
    assert joints.due(clock=10 * S) == []


def test_the_cap_is_per_joint(description):
    """As robot_state_publisher: a message is judged by the oldest last-published stamp of
    the joints it names; another source naming other joints is not held back by the first."""
    joints, _ = follower(description, 10.0)
    assert joints.receive(['elbow'], [0.1], 1 * S)[1]
    assert joints.receive(['wrist_roll'], [0.1], 1 * S + 10 * MS)[1]   # other joint
    assert not joints.receive(['elbow'], [0.2], 1 * S + 50 * MS)[1]     # too soon
    # a message naming a joint never published is due at once
    assert joints.receive(['elbow', 'shoulder_pan'], [0.3, 0.1], 1 * S + 60 * MS)[1]


def test_ignore_timestamp_publishes_every_message(description):
    joints, positions = follower(description, 10.0, ignore_timestamp=True)
    for stamp in (5 * S, 5 * S, 4 * S, 5 * S + 1):
        assert joints.receive(['elbow'], [stamp / S], stamp)[1]
    assert positions[description.dof_names.index('elbow')] == (5 * S + 1) / S
    joints.ignore_timestamp = False  # changed at run time
    assert not joints.receive(['elbow'], [0.0], 4 * S)[1]


def test_without_a_cap_every_newer_message_is_published(description):
    joints, _ = follower(description, 0.0)
    for stamp in (1, 2, 3, 3):
        assert joints.receive(['elbow'], [0.1], stamp)[1]  # equal stamps too (interval 0)
    assert not joints.receive(['elbow'], [0.1], 2)[1]     # but not an older one
    assert joints.due(clock=10 * S) == []


def test_a_clock_that_moves_backwards_restarts_the_cap(description):
    joints, _ = follower(description, 10.0)
    assert not joints.clock_moved_back(100 * S)
    assert joints.receive(['elbow'], [0.1], 100 * S)[1]
    assert not joints.receive(['elbow'], [0.2], 100 * S + 10 * MS)[1]  # held
    assert not joints.clock_moved_back(101 * S)
    assert joints.clock_moved_back(3 * S)                               # a restarted simulation
    assert joints.due(clock=200 * S) == []                              # the held one is gone
    assert joints.receive(['elbow'], [0.3], 3 * S)[1]                   # and 3 s is new again


def test_update_applies_without_the_cap(description):
    joints, positions = follower(description, 10.0)
    joints.receive(['elbow'], [0.1], 10 * S)
    joints.update(['elbow'], [0.7])
    assert positions[description.dof_names.index('elbow')] == 0.7
    assert joints.due(clock=100 * S) == []
