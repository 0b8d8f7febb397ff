"""description_publisher over real DDS: robot_description, /tf_static, /tf from joint_states.

Each module-scoped node runs in a subprocess on its own domain (see conftest.py); the test side
subscribes and publishes like rviz2 / a joint state source would. Everything received is compared
with the library (``robot_formats.load``, ``urdf_string``, ``KinematicTree.forward``) and, where
cheap, with closed forms written here.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pytest
from robot_formats_interfaces.srv import Reload
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

import robot_formats
from robot_formats.runtime.description import Description
from robot_formats.core.model import JointType, dof_names

from .harness import (ARM, DESCRIPTION_QOS, ROOT, TF_QOS, TF_STATIC_QOS, TIMEOUT, TOL,
                      NodeProcess, RosSide, any_tf_with_stamp, assert_poses_equal, compose,
                      edges_of, quat_to_matrix, run_check_urdf, stamp_of, subprocess_env,
                      tf_with_stamp, urdf_names)

#: publish_frequency given to the nodes of this module (the /tf rate cap).
FREQUENCY = 20.0
_STAMPS = itertools.count(1)


class Running:
    """A node under test plus the test side's standing subscriptions to it."""

    def __init__(self, process: NodeProcess, ros: RosSide, path: Path,
                 frequency: float = FREQUENCY) -> None:
        self.process, self.ros, self.path, self.frequency = process, ros, path, frequency
        self.reload = ros.node.create_client(Reload, '/description_publisher/reload')
        # Readiness: the reload service is discovered and the node says it is serving.
        assert self.reload.wait_for_service(timeout_sec=TIMEOUT), (
            'reload service never appeared; ' + process.describe())
        process.wait_for_log('serving ')
        # Created only now: late joiners, like an rviz2 started after the robot.
        self.description = ros.subscribe(String, 'robot_description', DESCRIPTION_QOS)
        self.tf_static = ros.subscribe(TFMessage, '/tf_static', TF_STATIC_QOS)
        self.tf = ros.subscribe(TFMessage, '/tf', TF_QOS)
        self.joint_states = ros.node.create_publisher(JointState, 'joint_states', 10)

    def wait_latched(self) -> None:
        self.ros.spin_until(lambda: len(self.description) and len(self.tf_static),
                            what='robot_description and /tf_static', process=self.process)

    def send(self, names: Sequence[str], positions: Sequence[float],
             stamp: tuple[int, int] | None = None) -> tuple[int, int]:
        """Publish one JointState once (after the node's subscription has matched us)."""
        stamp = stamp or next_stamp()
        self.ros.spin_until(lambda: self.joint_states.get_subscription_count() >= 1,
                            what='the node subscribing to joint_states', process=self.process)
        self.joint_states.publish(joint_state(names, positions, stamp))
        return stamp

    def send_until_tf(self, names: Sequence[str], positions: Sequence[float]
                      ) -> tuple[tuple[int, int], list[TFMessage]]:
        """Publish a JointState (again every second until it is answered); its /tf messages."""
        stamp = next_stamp()
        msg = joint_state(names, positions, stamp)
        self.ros.spin_until(lambda: self.joint_states.get_subscription_count() >= 1,
                            what='the node subscribing to joint_states', process=self.process)
        self.ros.spin_until(lambda: tf_with_stamp(self.tf, stamp),
                            what=f'/tf stamped {stamp} for {dict(zip(names, positions))}',
                            process=self.process, every=lambda: self.joint_states.publish(msg))
        return stamp, tf_with_stamp(self.tf, stamp)

    def received_poses(self, tf_messages: list[TFMessage]) -> dict[str, np.ndarray]:
        """The latest /tf_static plus ``tf_messages``, composed up to the root."""
        return compose({**edges_of(self.tf_static.messages[-1:]), **edges_of(tf_messages)})

    def listener_poses(self, stamp: tuple[int, int]) -> dict[str, np.ndarray]:
        """What a tf listener knows right after the /tf stamped ``stamp``: the latest transform
        of every frame received so far (partial joint states move only some frames)."""
        last = max(i for i, m in enumerate(self.tf.messages)
                   if m.transforms and all(stamp_of(t) == stamp for t in m.transforms))
        return compose({**edges_of(self.tf_static.messages[-1:]),
                        **edges_of(self.tf.messages[:last + 1])})



def next_stamp() -> tuple[int, int]:
    k = next(_STAMPS)
    return (1_700_000_000 + k, (k * 7_919_993) % 1_000_000_000)


def joint_state(names: Sequence[str], positions: Sequence[float], stamp: tuple[int, int]
                ) -> JointState:
    msg = JointState()
    msg.header.stamp.sec, msg.header.stamp.nanosec = stamp
    msg.header.frame_id = ''
    msg.name = list(names)
    msg.position = [float(v) for v in positions]
    return msg


def random_configuration(tree: robot_formats.KinematicTree, rng: random.Random
                         ) -> dict[str, float]:
    """A value for every DoF, inside its limits where it has any."""
    out = {}
    for joint in tree.joints.values():
        for index, name in enumerate(dof_names(joint)):
            limit = joint.limits[index] if index < len(joint.limits) else None
            if limit is not None and limit.lower is not None and limit.upper is not None and (
                    limit.upper > limit.lower):
                out[name] = rng.uniform(limit.lower, limit.upper)
            elif joint.type is JointType.PRISMATIC:
                out[name] = rng.uniform(-0.5, 0.5)
            else:
                out[name] = rng.uniform(-math.pi, math.pi)
    return out


def library_tree(path: Path) -> robot_formats.KinematicTree:
    return robot_formats.KinematicTree(robot_formats.load(path).scene)


def moving_and_fixed(tree: robot_formats.KinematicTree) -> tuple[set[str], set[str]]:
    moving = {c for c, e in tree.edges.items() if e.moving}
    return moving, set(tree.edges) - moving


# --- a generated robot ------------------------------------------------------------------------

def generated_urdf(seed: int, count: int = 30) -> str:
    """A random tree of ``count`` joints: revolute, continuous, prismatic, fixed and mimic
    (revolute or prismatic followers of any earlier one-DoF joint), random origins and axes,
    link names of many lengths (CDR string padding) and a few non-ASCII ones."""
    rng = random.Random(seed)
    links = ['base']
    leaders: list[str] = []
    out = ['<?xml version="1.0" encoding="utf-8"?>', f'<robot name="generated_{seed}">',
           '  <link name="base"/>']
    kinds = ['revolute', 'continuous', 'prismatic', 'fixed', 'mimic'] * (count // 5 + 1)
    kinds = kinds[:count]
    rng.shuffle(kinds)
    first_leader = next(i for i, k in enumerate(kinds) if k in ('revolute', 'prismatic'))
    kinds[0], kinds[first_leader] = kinds[first_leader], kinds[0]  # mimics need a leader
    decorations = ['', 'x', 'xy', 'xyz', '_ä', 'ü_ö', '_日本', 'abcdefg']

    def num(value: float) -> str:
        return repr(float(value))

    for i, kind in enumerate(kinds):
        child = f'l{i}{decorations[i % len(decorations)]}'
        parent = rng.choice(links)
        links.append(child)
        xyz = ' '.join(num(rng.uniform(-0.5, 0.5)) for _ in range(3))
        rpy = ' '.join(num(rng.uniform(-math.pi, math.pi)) for _ in range(3))
        axis = np.array([rng.gauss(0, 1) for _ in range(3)])
        axis /= np.linalg.norm(axis)
        body = [f'<parent link="{parent}"/>', f'<child link="{child}"/>',
                f'<origin xyz="{xyz}" rpy="{rpy}"/>']
        name = f'j{i}'
        if kind == 'mimic':
            urdf_kind = rng.choice(['revolute', 'prismatic'])
            leader = rng.choice(leaders)
            body.append(f'<mimic joint="{leader}" multiplier="{num(rng.uniform(-2, 2))}" '
                        f'offset="{num(rng.uniform(-0.3, 0.3))}"/>')
        else:
            urdf_kind = kind
        if urdf_kind != 'fixed':
            body.append(f'<axis xyz="{" ".join(num(v) for v in axis)}"/>')
        if urdf_kind == 'revolute':
            body.append('<limit lower="-2.5" upper="2.5" effort="1" velocity="1"/>')
        elif urdf_kind == 'prismatic':
            body.append('<limit lower="-0.4" upper="0.4" effort="1" velocity="1"/>')
        if kind in ('revolute', 'continuous', 'prismatic'):
            leaders.append(name)
        out.append(f'  <link name="{child}"/>')
        out.append(f'  <joint name="{name}" type="{urdf_kind}">{"".join(body)}</joint>')
    out.append('</robot>')
    return '\n'.join(out) + '\n'


# --- fixtures -----------------------------------------------------------------------------------

@pytest.fixture(scope='module')
def arm(module_launcher) -> Running:
    process, ros = module_launcher.publisher(
        'arm', description_file=str(ARM), publish_frequency=FREQUENCY)
    return Running(process, ros, ARM)


@pytest.fixture(scope='module')
def generated(module_launcher, tmp_path_factory) -> Running:
    path = tmp_path_factory.mktemp('generated') / 'generated_30.urdf'
    path.write_text(generated_urdf(seed=30), encoding='utf-8')
    process, ros = module_launcher.publisher(
        'generated', description_file=str(path), publish_frequency=FREQUENCY)
    return Running(process, ros, path)


MULTI_DOF_URDF = """<?xml version="1.0"?>
<robot name="multi_dof">
  <link name="world_anchor"/>
  <link name="body"/>
  <link name="sled"/>
  <link name="arm"/>
  <link name="tip"/>
  <joint name="float" type="floating">
    <parent link="world_anchor"/><child link="body"/>
    <origin xyz="0.1 -0.2 0.3" rpy="0.3 -0.2 0.9"/>
  </joint>
  <joint name="plane" type="planar">
    <parent link="body"/><child link="sled"/>
    <origin xyz="0 0.05 0.2" rpy="0.1 0.2 0.3"/><axis xyz="0.2 0.3 0.9"/>
  </joint>
  <joint name="hinge" type="revolute">
    <parent link="sled"/><child link="arm"/>
    <origin xyz="0.3 0 0" rpy="0 0.4 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/>
  </joint>
  <joint name="tip_fixed" type="fixed">
    <parent link="arm"/><child link="tip"/><origin xyz="0 0 0.25" rpy="0.5 0 0"/>
  </joint>
</robot>
"""


@pytest.fixture(scope='module')
def multi_dof(module_launcher, tmp_path_factory) -> Running:
    path = tmp_path_factory.mktemp('multi_dof') / 'multi_dof.urdf'
    path.write_text(MULTI_DOF_URDF, encoding='utf-8')
    process, ros = module_launcher.publisher(
        'multi_dof', description_file=str(path), publish_frequency=FREQUENCY)
    return Running(process, ros, path)


# --- 1. late subscribers ------------------------------------------------------------------------

def test_late_subscriber_gets_description_and_static_tf(arm: Running, tmp_path: Path) -> None:
    arm.wait_latched()
    received = arm.description.last.data
    assert received == ARM.read_text(encoding='utf-8'), 'a URDF is served as given'
    result = run_check_urdf(received, tmp_path)
    assert result.returncode == 0, f'check_urdf refused robot_description:\n{result.stdout}\n' \
                                   f'{result.stderr}'

    tree = library_tree(ARM)
    _, fixed = moving_and_fixed(tree)
    static = arm.tf_static.last
    children = [t.child_frame_id for t in static.transforms]
    assert sorted(children) == sorted(fixed) == ['tool_frame']
    (tool,) = static.transforms
    assert tool.header.frame_id == 'wrist_link'
    assert stamp_of(tool) != (0, 0)
    local = edges_of([static])['tool_frame'][1]
    poses = tree.forward()
    expected_local = np.linalg.inv(poses['wrist_link']) @ poses['tool_frame']
    assert np.max(np.abs(local - expected_local)) <= TOL
    # and the file's own numbers: xyz 0 0 0.09, rpy pi 0 0 (a half turn about x)
    assert np.allclose(local[:3, 3], (0, 0, 0.09), atol=1e-12)
    assert np.allclose(local[:3, :3], np.diag([1.0, -1.0, -1.0]), atol=1e-12)


def test_tf_echo_prints_the_tree_tf2_resolves(arm: Running, tmp_path: Path) -> None:
    """`robot-formats tf-echo --json` (the nodes layer's program, run in the CLI's place) waits
    for robot_description and the whole tree, then prints every frame at the configuration
    published, as a tf2 Buffer resolves it (exit 0)."""
    arm.wait_latched()
    tree = library_tree(ARM)
    configuration = {name: 0.1 * (k + 1) for k, name in enumerate(tree.dof_names)}
    frames = tree.frame_names()
    echo = subprocess.Popen(
        [sys.executable, '-m', 'robot_formats.cli', 'tf-echo', '--json', '--min-frames',
         str(len(frames)), '--timeout', str(TIMEOUT)], cwd=ROOT, text=True,
        env=subprocess_env(arm.process.domain_id, tmp_path), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    try:
        arm.ros.spin_until(lambda: echo.poll() is not None, what='tf-echo to print the tree',
                           process=arm.process, every_period=0.1, every=lambda: arm.send(
                               list(configuration), list(configuration.values())))
        out, err = echo.communicate(timeout=TIMEOUT)
    finally:
        if echo.poll() is None:
            echo.kill()
            echo.communicate()
    assert echo.returncode == 0, err
    printed = json.loads(out)
    assert printed['roots'] == [tree.root] and set(printed['frames']) == set(frames)
    assert printed['description_bytes'] == len(ARM.read_text(encoding='utf-8'))
    expected = tree.forward(configuration)
    for name, frame in printed['frames'].items():
        pose = np.eye(4)
        pose[:3, :3] = quat_to_matrix(*frame['quat'])
        pose[:3, 3] = frame['xyz']
        assert np.max(np.abs(pose - expected[name])) <= TOL, name


# --- 2. /tf equals forward kinematics -----------------------------------------------------------

def _check_configurations(running: Running, seed: int, count: int) -> None:
    running.wait_latched()
    tree = library_tree(running.path)
    moving, fixed = moving_and_fixed(tree)
    assert {t.child_frame_id for t in running.tf_static.last.transforms} == fixed
    rng = random.Random(seed)
    for trial in range(count):
        configuration = random_configuration(tree, rng)
        names = list(configuration)
        rng.shuffle(names)  # the node must map by name, not by position
        stamp, messages = running.send_until_tf(names, [configuration[n] for n in names])
        received_children = {t.child_frame_id for m in messages for t in m.transforms}
        assert received_children == moving, f'configuration {trial}: /tf frames'
        for message in messages:
            for transform in message.transforms:
                assert stamp_of(transform) == stamp
                assert transform.header.frame_id == tree.edges[transform.child_frame_id].parent
        assert_poses_equal(running.received_poses(messages), tree.forward(configuration),
                           context=f'configuration {trial} {configuration}: ')


def test_tf_equals_forward_kinematics_arm(arm: Running) -> None:
    _check_configurations(arm, seed=1, count=6)


def test_tf_mimic_joint_follows_leader(arm: Running) -> None:
    arm.wait_latched()
    for value in (0.0, 0.013, 0.04):
        configuration = {'shoulder_pan': 0.2, 'shoulder_lift': -0.4, 'elbow': 1.1,
                         'wrist_roll': 2.0, 'finger_left': value}
        _, messages = arm.send_until_tf(list(configuration), list(configuration.values()))
        edges = edges_of(messages)
        # closed forms from the file: left at (0, 0.01 + q, 0.03), right (mimic, axis -y) at
        # (0, -0.01 - q, 0.03), both unrotated in wrist_link
        for child, expected in (('left_finger', (0, 0.01 + value, 0.03)),
                                ('right_finger', (0, -0.01 - value, 0.03))):
            parent, local = edges[child]
            assert parent == 'wrist_link'
            assert np.allclose(local[:3, 3], expected, atol=1e-12), (child, local[:3, 3])
            assert np.allclose(local[:3, :3], np.eye(3), atol=1e-12)


def test_tf_equals_forward_kinematics_generated_robot(generated: Running, tmp_path: Path
                                                      ) -> None:
    tree = library_tree(generated.path)
    kinds = {j.type for j in tree.joints.values()}
    assert {JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC,
            JointType.FIXED} <= kinds
    assert sum(j.mimic is not None for j in tree.joints.values()) >= 4
    assert len(tree.joints) == 30
    generated.wait_latched()
    result = run_check_urdf(generated.description.last.data, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    _check_configurations(generated, seed=2, count=5)


def test_tf_multi_dof_urdf_joints(multi_dof: Running) -> None:
    """floating and planar URDF joints: the node computes their full motion itself."""
    multi_dof.wait_latched()
    tree = library_tree(multi_dof.path)
    lowered = Description.load(multi_dof.path).urdf_tree
    rng = random.Random(3)
    for trial in range(4):
        configuration = random_configuration(tree, rng)
        assert {'float/rot_x', 'float/pos_z', 'plane/trans1', 'plane/rot'} <= set(configuration)
        names = list(configuration)
        stamp, messages = multi_dof.send_until_tf(names, [configuration[n] for n in names])
        received = multi_dof.received_poses(messages)
        # every frame of the published (lowered) tree arrives, helper links included ...
        assert set(received) == set(lowered.frame_names())
        # ... and the document's frames sit exactly where the library puts them
        expected = tree.forward(configuration)
        assert_poses_equal({k: received[k] for k in expected}, expected,
                           context=f'configuration {trial}: ')


# --- 4. dropped and partial messages --------------------------------------------------------------

ARM_DOFS = ('shoulder_pan', 'shoulder_lift', 'elbow', 'wrist_roll', 'finger_left')
ARM_MOVING = {'shoulder_link', 'upper_arm_link', 'forearm_link', 'wrist_link', 'left_finger',
              'right_finger'}


def test_mismatched_lengths_dropped_and_node_keeps_working(arm: Running) -> None:
    arm.wait_latched()
    tree = library_tree(ARM)
    good = dict(zip(ARM_DOFS, (0.1, 0.2, 0.3, 0.4, 0.01)))
    arm.send_until_tf(list(good), list(good.values()))
    bad_messages = [
        (list(ARM_DOFS), [0.5, 0.5, 0.5, 0.5]),            # fewer positions than names
        (list(ARM_DOFS[:3]), [0.7, 0.7, 0.7, 0.7, 0.7]),   # more positions than names
        (list(ARM_DOFS), []),                               # names only
    ]
    for names, positions in bad_messages:
        bad_stamp = arm.send(names, positions)
        after = dict(zip(ARM_DOFS, (-0.3, 0.6, -0.9, 1.2, 0.03)))
        _, messages = arm.send_until_tf(list(after), list(after.values()))
        assert not any_tf_with_stamp(arm.tf, bad_stamp), (
            f'a JointState with {len(names)} names and {len(positions)} positions produced /tf')
        assert_poses_equal(arm.received_poses(messages), tree.forward(after))
    assert arm.process.alive(), arm.process.describe()
    assert 'dropped a joint_states message' in arm.process.log()


def test_partial_and_unknown_names(arm: Running) -> None:
    arm.wait_latched()
    tree = library_tree(ARM)
    base = dict(zip(ARM_DOFS, (0.5, -0.5, 0.25, -1.0, 0.02)))
    arm.send_until_tf(list(base), list(base.values()))
    # unknown names are ignored; only the known joint's frame is published, others keep values
    stamp, messages = arm.send_until_tf(['no_such_joint', 'elbow', 'finger_right', 'tool'],
                                        [9.0, -1.25, 9.0, 9.0])
    assert {t.child_frame_id for m in messages for t in m.transforms} == {'forearm_link'}
    assert_poses_equal(arm.listener_poses(stamp), tree.forward({**base, 'elbow': -1.25}))
    # a leader alone publishes its mimic follower too
    _, messages = arm.send_until_tf(['finger_left'], [0.035])
    assert {t.child_frame_id for m in messages for t in m.transforms} == {
        'left_finger', 'right_finger'}
    # only unknown names: nothing moves, nothing is published
    unknown_stamp = arm.send(['nothing', 'here'], [1.0, 2.0])
    stamp, _ = arm.send_until_tf(['wrist_roll'], [0.5])
    assert not any_tf_with_stamp(arm.tf, unknown_stamp)
    assert_poses_equal(arm.listener_poses(stamp),
                       tree.forward({**base, 'elbow': -1.25, 'finger_left': 0.035,
                                     'wrist_roll': 0.5}))
    assert arm.process.alive(), arm.process.describe()


def test_non_finite_positions_never_reach_tf(arm: Running) -> None:
    """NaN/inf positions are refused (the message is dropped, or just those values ignored):
    /tf never carries a non-finite number and the node keeps working."""
    arm.wait_latched()
    tree = library_tree(ARM)
    base = dict(zip(ARM_DOFS, (0.3, 0.3, 0.3, 0.3, 0.01)))
    arm.send_until_tf(list(base), list(base.values()))
    bad_stamp = arm.send(list(ARM_DOFS), [float('nan'), 0.9, float('inf'), 0.1, -float('inf')])
    after = dict(zip(ARM_DOFS, (-0.2, 0.4, 0.6, -0.8, 0.02)))
    stamp, messages = arm.send_until_tf(list(after), list(after.values()))
    assert_poses_equal(arm.received_poses(messages), tree.forward(after))
    for message in arm.tf.messages:
        for t in message.transforms:
            tr, rot = t.transform.translation, t.transform.rotation
            values = (tr.x, tr.y, tr.z, rot.x, rot.y, rot.z, rot.w)
            assert all(math.isfinite(v) for v in values), (stamp_of(t), values)
    for message in tf_with_stamp(arm.tf, bad_stamp):  # if the finite values were applied ...
        expected = tree.forward({**base, 'shoulder_lift': 0.9, 'wrist_roll': 0.1})
        assert_poses_equal(arm.received_poses([message]), expected)  # ... only those
    assert arm.process.alive(), arm.process.describe()


# --- 5. publish_joint_states ---------------------------------------------------------------------

@pytest.fixture(scope='module')
def self_publishing(module_launcher) -> tuple[NodeProcess, RosSide]:
    return module_launcher.publisher('self_publishing', description_file=str(ARM),
                                     publish_joint_states=True,
                                     initial_positions=['elbow=0.5'],
                                     publish_frequency=FREQUENCY)


def test_publish_joint_states_initial_configuration(self_publishing) -> None:
    process, ros = self_publishing
    states = ros.subscribe(JointState, 'joint_states', 10)
    tf_static = ros.subscribe(TFMessage, '/tf_static', TF_STATIC_QOS)
    tf = ros.subscribe(TFMessage, '/tf', TF_QOS)

    def tf_matching_a_state() -> Any:
        stamps = {stamp_of(m) for m in states.messages}
        full = [m for m in tf.messages if m.transforms and stamp_of(m.transforms[0]) in stamps
                and {t.child_frame_id for t in m.transforms} == ARM_MOVING]
        return full and tf_static.messages and full[-1]

    message = ros.spin_until(tf_matching_a_state, what='joint_states and the /tf they cause',
                             process=process)
    state = next(m for m in states.messages if stamp_of(m) == stamp_of(message.transforms[0]))
    assert list(state.name) == list(ARM_DOFS)
    assert dict(zip(state.name, state.position)) == {
        'shoulder_pan': 0.0, 'shoulder_lift': 0.0, 'elbow': 0.5, 'wrist_roll': 0.0,
        'finger_left': 0.0}
    assert len(state.position) == len(state.name)
    tree = library_tree(ARM)
    poses = compose({**edges_of(tf_static.messages[-1:]), **edges_of([message])})
    assert_poses_equal(poses, tree.forward({'elbow': 0.5}))
    # it keeps publishing (rviz needs a steady stream), at about publish_frequency
    count = len(states)
    ros.spin_until(lambda: len(states) >= count + 3, what='more joint_states', process=process)


# --- 6. frame_prefix -----------------------------------------------------------------------------

@pytest.fixture(scope='module')
def prefixed(module_launcher) -> tuple[NodeProcess, RosSide]:
    return module_launcher.publisher('prefixed', description_file=str(ARM),
                                     frame_prefix='robot1/', publish_joint_states=True,
                                     initial_positions=['shoulder_pan=-0.7', 'finger_left=0.03'],
                                     publish_frequency=FREQUENCY)


def test_frame_prefix_on_every_frame(prefixed) -> None:
    process, ros = prefixed
    description = ros.subscribe(String, 'robot_description', DESCRIPTION_QOS)
    tf_static = ros.subscribe(TFMessage, '/tf_static', TF_STATIC_QOS)
    tf = ros.subscribe(TFMessage, '/tf', TF_QOS)
    ros.spin_until(lambda: len(tf) >= 2 and len(tf_static) and len(description),
                   what='/tf, /tf_static and robot_description', process=process)
    ids = [i for m in [*tf.messages, *tf_static.messages] for t in m.transforms
           for i in (t.header.frame_id, t.child_frame_id)]
    assert ids
    assert all(i.startswith('robot1/') for i in ids), sorted(set(ids))
    assert not any(i.startswith('/') for i in ids)
    assert not any(i.startswith('robot1//') for i in ids)
    # the URDF itself is not prefixed (robot_state_publisher semantics)
    links, _ = urdf_names(description.last.data)
    assert 'base_link' in links and not any(n.startswith('robot1/') for n in links)
    # and the tree is the arm's, at the initial configuration
    full = [m for m in tf.messages
            if {t.child_frame_id for t in m.transforms} == {f'robot1/{c}' for c in ARM_MOVING}]
    assert full, 'no /tf message with every moving frame'
    poses = compose({**edges_of(tf_static.messages[-1:]), **edges_of(full[-1:])})
    expected = library_tree(ARM).forward({'shoulder_pan': -0.7, 'finger_left': 0.03})
    assert_poses_equal(poses, {f'robot1/{k}': v for k, v in expected.items()})


# --- time stamps and the rate cap ---------------------------------------------------------------

def test_zero_stamp_is_replaced_by_now(arm: Running) -> None:
    arm.wait_latched()
    angle = 1.2345678
    msg = joint_state(['wrist_roll'], [angle], (0, 0))

    def answered() -> Any:
        for message in arm.tf.messages:
            (t, *rest) = message.transforms or [None]
            if t is not None and not rest and t.child_frame_id == 'wrist_link' and abs(
                    t.transform.rotation.w - math.cos(angle / 2)) < 1e-12:
                return t
        return None

    arm.ros.spin_until(lambda: arm.joint_states.get_subscription_count() >= 1,
                       what='the node subscribing to joint_states', process=arm.process)
    transform = arm.ros.spin_until(answered, what='/tf for a zero-stamped joint state',
                                   process=arm.process, every=lambda: arm.joint_states.publish(msg))
    stamp = transform.header.stamp.sec + transform.header.stamp.nanosec * 1e-9
    assert stamp != 0.0
    assert abs(stamp - time.time()) < 60.0, stamp


@pytest.fixture(scope='module')
def capped(module_launcher) -> Running:
    process, ros = module_launcher.publisher('capped', description_file=str(ARM),
                                             publish_frequency=2.0, joint_states_qos='reliable')
    return Running(process, ros, ARM, frequency=2.0)


def test_rate_cap_holds_updates_and_publishes_the_latest(capped: Running) -> None:
    """At 2 Hz (500 ms of stamps), ten states stamped 10 ms apart: the first is published at
    once, the others are held (each replacing the one before), and the last reaches TF once
    the node's clock allows it (the stamps are in the past, so at the node's next tick)."""
    capped.wait_latched()
    tree = library_tree(ARM)
    capped.send_until_tf(list(ARM_DOFS), [0.0] * 5)
    rng = random.Random(11)
    configurations = [random_configuration(tree, rng) for _ in range(10)]
    second = next_stamp()[0] + 1  # at least a second of stamps after the last published one
    stamps = [(second, k * 10_000_000) for k in range(10)]
    for stamp, c in zip(stamps, configurations):
        capped.send(list(ARM_DOFS), [c[n] for n in ARM_DOFS], stamp)
    capped.ros.spin_until(lambda: tf_with_stamp(capped.tf, stamps[-1]),
                          what='the held /tf of the latest joint state', process=capped.process)
    published = [s for s in stamps if any_tf_with_stamp(capped.tf, s)]
    assert published[0] == stamps[0], 'the first message 500 ms of stamps after must go out'
    assert published[-1] == stamps[-1], 'the latest state must not be lost'
    assert len(published) <= 3, f'{len(published)} of 10 messages within 90 ms published at 2 Hz'
    assert_poses_equal(capped.received_poses(tf_with_stamp(capped.tf, stamps[-1])),
                       tree.forward(configurations[-1]))


@pytest.fixture(scope='module')
def uncapped(module_launcher) -> Running:
    process, ros = module_launcher.publisher('uncapped', description_file=str(ARM),
                                             publish_frequency=0.0, joint_states_qos='reliable')
    return Running(process, ros, ARM, frequency=1000.0)


def test_no_rate_cap_publishes_every_message(uncapped: Running) -> None:
    uncapped.wait_latched()
    tree = library_tree(ARM)
    uncapped.send_until_tf(list(ARM_DOFS), [0.0] * 5)
    rng = random.Random(12)
    configurations = [random_configuration(tree, rng) for _ in range(25)]
    stamps = [uncapped.send(list(ARM_DOFS), [c[n] for n in ARM_DOFS]) for c in configurations]
    uncapped.ros.spin_until(lambda: all(tf_with_stamp(uncapped.tf, s) for s in stamps),
                            what='a /tf for each of 25 joint states', process=uncapped.process)
    for stamp, configuration in zip(stamps, configurations):
        assert_poses_equal(uncapped.received_poses(tf_with_stamp(uncapped.tf, stamp)),
                           tree.forward(configuration))


# --- namespaces ---------------------------------------------------------------------------------

@pytest.fixture(scope='module')
def namespaced(module_launcher) -> tuple[NodeProcess, RosSide]:
    return module_launcher.publisher('namespaced', ros_args=['-r', '__ns:=/robot1'],
                                     description_file=str(ARM), frame_prefix='robot1/',
                                     publish_frequency=FREQUENCY)


def test_namespace_applies_to_description_joint_states_and_reload(namespaced) -> None:
    """A multi-robot setup: the namespace moves robot_description, joint_states and ~/reload;
    /tf and /tf_static stay global, told apart by frame_prefix."""
    process, ros = namespaced
    client = ros.node.create_client(Reload, '/robot1/description_publisher/reload')
    assert client.wait_for_service(timeout_sec=TIMEOUT), process.describe()
    description = ros.subscribe(String, '/robot1/robot_description', DESCRIPTION_QOS)
    tf_static = ros.subscribe(TFMessage, '/tf_static', TF_STATIC_QOS)
    tf = ros.subscribe(TFMessage, '/tf', TF_QOS)
    publisher = ros.node.create_publisher(JointState, '/robot1/joint_states', 10)
    ros.spin_until(lambda: len(description) and len(tf_static) and
                   publisher.get_subscription_count() >= 1,
                   what='the namespaced topics', process=process)
    node = ros.node
    assert node.count_publishers('/robot1/robot_description') == 1
    assert node.count_publishers('/robot_description') == 0
    assert node.count_subscribers('/joint_states') == 0
    configuration = dict(zip(ARM_DOFS, (0.4, -0.3, 0.2, -0.1, 0.015)))
    stamp = next_stamp()
    msg = joint_state(list(configuration), list(configuration.values()), stamp)
    ros.spin_until(lambda: tf_with_stamp(tf, stamp), what='/tf from /robot1/joint_states',
                   process=process, every=lambda: publisher.publish(msg))
    poses = compose({**edges_of(tf_static.messages[-1:]), **edges_of(tf_with_stamp(tf, stamp))})
    expected = library_tree(ARM).forward(configuration)
    assert_poses_equal(poses, {f'robot1/{k}': v for k, v in expected.items()})
    request = Reload.Request()
    request.path = ''
    assert ros.call(client, request, process=process).success
