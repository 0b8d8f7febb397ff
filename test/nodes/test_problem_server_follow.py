"""problem_server follows the world, over real DDS: robots move with their joint states, attached
objects ride on the frames carrying them, detach freezes them, refusals change nothing.

The test side publishes the arm's joint states itself (so it knows every configuration
exactly), receives them back with its own subscriber, and reads TF through a tf2_ros Buffer, as
every TF client does. Expected poses come from tests/nodes/pick_place_reference.py: the arm's
forward kinematics in closed form from its URDF's numbers, the problem files' poses.

* TF from problem_server (``publish_tf`` all): at every received joint state, the block's world
  pose (tf2, at the joint state's stamp) equals FK(q) × the grasp fixed at attach to 1e-6, and
  the gripper's pose × the grasp get_object reports; get_object, get_grasps, get_problem and
  get_placements answer with the current poses; ``~/scene`` follows;
* detach leaves the block where it was, whatever the arm does next;
* refused attachments (not moveable, no such frame, world, itself, a cycle) answer
  success=false with the reason and change nothing (no /tf_static, no scene, same answers);
* ``publish_frequency`` caps the rate of /tf and the last state still reaches TF;
* TF from another node (``publish_tf`` base: description_publisher with ``frame_prefix
  arm/``): no frame is published twice, and the block rides on the gripper as that node
  publishes it (read by problem_server through its own tf2 Buffer); ``publish_tf`` none: no
  frame of the robot from problem_server, and attaching to a frame nobody publishes is refused.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import rclpy.time
from rclpy.duration import Duration
from rclpy.qos import QoSProfile, ReliabilityPolicy
import robot_formats_interfaces.srv as srv
from robot_formats_interfaces.msg import Scene
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage
from tf2_ros import Buffer, TransformListener

from .harness import (ARM, DESCRIPTION_QOS, TF_QOS, TF_STATIC_QOS, NodeProcess, transform_matrix)
from .pick_place_reference import (ARM_BASE, BLOCK, GLASS1, HAND, HELPER_BASE, JOINTS, KITCHEN,
                                   PROBLEM, Q_ABOVE, Q_HOME, Q_PICK, Q_PLACE, TRAY, arm_tool,
                                   largest, path, placement_violation, pose_matrix)
from .test_problem_server import Server

#: TF from the node that computed it from the joint state: exact up to float round-off.
EXACT = 1e-6
#: Poses that are copies (a frozen pose, a static transform): to this.
SAME = 1e-9
RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)


class Follower(Server):
    """A problem_server process (the clients of test_problem_server.Server), a joint state
    publisher and subscriber per robot, a tf2 Buffer, and the scene and /tf_static inboxes."""

    def __init__(self, launcher, problem, name: str, robots=('arm',), extra_nodes=(),
                 landmark: str = 'block', **parameters) -> None:
        self.landmark = landmark  # an object of the problem: in problem_server's /tf_static
        domain = launcher.allocate_domain()
        args = ['-m', 'robot_formats.nodes.problem_server', '--ros-args', '-p',
                f'problem_file:={problem}']
        for key, value in {'joint_states_qos': 'reliable', 'publish_frequency': 0.0,
                           **parameters}.items():
            args += ['-p', f'{key}:={value}']
        self.process = NodeProcess(args, domain, launcher.log_dir, name)
        launcher.processes.append(self.process)
        self.others = []
        for index, extra in enumerate(extra_nodes):
            other = NodeProcess(extra, domain, launcher.log_dir, f'{name}_extra{index}')
            launcher.processes.append(other)
            self.others.append(other)
        self.side = launcher.side(domain, name)
        self._create_clients(self.side.node)
        node = self.side.node
        self.publishers = {r: node.create_publisher(JointState, f'/{r}/joint_states', RELIABLE)
                           for r in robots}
        self.received = {r: self.side.subscribe(JointState, f'/{r}/joint_states', RELIABLE)
                         for r in robots}
        self.buffer = Buffer(cache_time=Duration(seconds=120))
        self.listener = TransformListener(self.buffer, node)
        self.scene = self.side.subscribe(Scene, '/problem_server/scene', DESCRIPTION_QOS)
        self.tf_static = self.side.subscribe(TFMessage, '/tf_static', TF_STATIC_QOS)
        self.tf = self.side.subscribe(TFMessage, '/tf', TF_QOS)
        self._nanoseconds = 0
        self.side.spin_until(lambda: len(self.scene) and self.static_message(),
                             what="the first ~/scene and problem_server's /tf_static",
                             process=self.process)
        for robot, publisher in self.publishers.items():  # ours, problem_server's, the others'
            self.side.spin_until(
                lambda publisher=publisher: (publisher.get_subscription_count()
                                             >= 2 + len(extra_nodes)),
                what=f'problem_server subscribing /{robot}/joint_states', process=self.process)

    def _create_clients(self, node) -> None:
        self.kinds = {'get_problem': srv.GetProblem, 'list_objects': srv.ListObjects,
                      'get_object': srv.GetObject, 'get_grasps': srv.GetGrasps,
                      'get_placements': srv.GetPlacements,
                      'get_action_joints': srv.GetActionJoints, 'attach': srv.AttachObject,
                      'detach': srv.DetachObject, 'reset': srv.ResetProblem}
        self.clients = {name: node.create_client(kind, f'/problem_server/{name}')
                        for name, kind in self.kinds.items()}

    def static_message(self) -> TFMessage | None:
        """problem_server's latest /tf_static (the one with the objects)."""
        return next((m for m in reversed(self.tf_static.messages)
                     if any(t.child_frame_id == self.landmark for t in m.transforms)), None)

    # --- joint states and TF -----------------------------------------------------------------
    def stamp(self) -> rclpy.time.Time:
        """A fresh stamp: now, and always later than the previous one."""
        now = self.side.node.get_clock().now().nanoseconds
        self._nanoseconds = max(now, self._nanoseconds + 1000)
        return rclpy.time.Time(nanoseconds=self._nanoseconds)

    def move(self, q, robot: str = 'arm', frame: str = HAND) -> rclpy.time.Time:
        """Publish one joint state; wait until TF has ``frame`` at its stamp, in our tf2
        Buffer and in our own /tf subscription (so both are matched with the publisher)."""
        stamp = self.stamp()
        self.publish(q, stamp, robot)
        self.wait_for_tf(frame, stamp)
        self.side.spin_until(
            lambda: any(nanoseconds(t.header.stamp) == stamp.nanoseconds
                        for m in self.tf.messages for t in m.transforms),
            what='our /tf subscription receiving the joint state\'s transforms',
            process=self.process)
        return stamp

    def publish(self, q, stamp: rclpy.time.Time, robot: str = 'arm') -> None:
        msg = JointState(name=list(JOINTS), position=[float(v) for v in q])
        msg.header.stamp = stamp.to_msg()
        self.publishers[robot].publish(msg)

    def stream(self, configurations, robot: str = 'arm', rate: float = 100.0) -> list:
        """Publish the configurations at ``rate``; the stamps, once TF has the last one."""
        stamps = []
        for q in configurations:
            stamps.append(self.stamp())
            self.publish(q, stamps[-1], robot)
            self.side.spin_for(1.0 / rate)  # paces the stream (not a readiness wait)
        return stamps

    def wait_for_tf(self, frame: str, stamp: rclpy.time.Time, source: str = 'world') -> None:
        self.side.spin_until(lambda: self.buffer.can_transform(source, frame, stamp),
                             what=f'TF {source} -> {frame} at {stamp.nanoseconds}',
                             process=self.process)

    def tf_pose(self, frame: str, stamp: rclpy.time.Time | None = None) -> np.ndarray:
        stamp = stamp or rclpy.time.Time()
        self.wait_for_tf(frame, stamp)
        return transform_matrix(self.buffer.lookup_transform('world', frame, stamp).transform)

    def received_at(self, stamps, robot: str = 'arm') -> list[JointState]:
        """Our joint states as our own subscriber received them (every one, in order)."""
        wanted = {s.nanoseconds for s in stamps}
        inbox = self.received[robot]
        self.side.spin_until(
            lambda: wanted <= {rclpy.time.Time.from_msg(m.header.stamp).nanoseconds
                               for m in inbox.messages},
            what=f'{len(wanted)} joint states back on /{robot}/joint_states',
            process=self.process)
        return [m for m in inbox.messages
                if rclpy.time.Time.from_msg(m.header.stamp).nanoseconds in wanted]

    def latest_scene(self, predicate, what: str) -> Scene:
        self.side.spin_until(lambda: len(self.scene) and predicate(self.scene.last),
                             what=what, process=self.process)
        return self.scene.last

    def reset(self) -> None:
        """~/reset, and wait until its /tf_static and scene have arrived."""
        statics, version = len(self.tf_static), self.scene.last.version
        assert self.call('reset').success
        self.side.spin_until(lambda: len(self.tf_static) > statics and
                             self.scene.last.version > version,
                             what="reset's /tf_static and scene", process=self.process)

    def object(self, name: str):
        answer = self.call('get_object', name=name)
        assert answer.success, answer.message
        return answer.object


def nanoseconds(stamp) -> int:
    """A builtin_interfaces/Time as nanoseconds."""
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def scene_object(scene: Scene, name: str):
    return next(o for o in scene.objects if o.name == name)


def configuration(msg: JointState) -> list[float]:
    values = dict(zip(msg.name, msg.position))
    return [values[j] for j in JOINTS]


@pytest.fixture(scope='module')
def follower(module_launcher):
    return Follower(module_launcher, PROBLEM, 'problem_server_follow')


def test_the_arm_starts_at_its_configuration_and_follows_its_joint_states(follower):
    np.testing.assert_allclose(follower.tf_pose(HAND), arm_tool(Q_HOME, ARM_BASE), atol=SAME)
    stamp = follower.move(Q_ABOVE)
    np.testing.assert_allclose(follower.tf_pose(HAND, stamp), arm_tool(Q_ABOVE, ARM_BASE),
                               atol=SAME)
    (robot,) = follower.call('get_problem').robots
    assert dict(zip(robot.joint_names, robot.joint_positions)) == pytest.approx(
        dict(zip(JOINTS, Q_ABOVE)), abs=1e-12)
    # a malformed message is dropped whole: the arm stays where it is
    follower.publishers['arm'].publish(JointState(name=list(JOINTS), position=[0.3]))
    stamp = follower.move(Q_ABOVE)
    (robot,) = follower.call('get_problem').robots
    assert list(robot.joint_positions) == pytest.approx(list(Q_ABOVE), abs=1e-12)
    follower.process.wait_for_log('dropped a joint_states message with 5 names but 1 positions')


def test_the_attached_block_rides_on_the_gripper_at_every_joint_state(follower):
    follower.reset()
    follower.move(Q_PICK)
    version = follower.scene.last.version
    answer = follower.call('attach', object='block', parent=HAND)
    assert answer.success, answer.message
    grasp = np.linalg.inv(arm_tool(Q_PICK, ARM_BASE)) @ BLOCK  # fixed at attach
    block = follower.object('block')
    assert block.parent == HAND
    np.testing.assert_allclose(pose_matrix(block.pose_in_parent), grasp, atol=EXACT)
    np.testing.assert_allclose(pose_matrix(block.pose), BLOCK, atol=EXACT)
    scene = follower.latest_scene(lambda s: s.version > version, 'the scene after attach')
    assert scene_object(scene, 'block').parent == HAND
    assert scene_object(scene, 'stand_a').attached == []

    transport = [*path(Q_PICK, Q_ABOVE, 15), *path(Q_ABOVE, (math.pi / 2, *Q_ABOVE[1:]), 25),
                 *path((math.pi / 2, *Q_ABOVE[1:]), Q_PLACE, 15)]
    stamps = follower.stream(transport)
    reported = pose_matrix(block.pose_in_parent)
    checked = 0
    for msg in follower.received_at(stamps):
        stamp = rclpy.time.Time.from_msg(msg.header.stamp)
        q = configuration(msg)
        world = follower.tf_pose('block', stamp)
        np.testing.assert_allclose(world, arm_tool(q, ARM_BASE) @ grasp, atol=EXACT)
        np.testing.assert_allclose(world, follower.tf_pose(HAND, stamp) @ reported, atol=EXACT)
        checked += 1
    assert checked == len(transport)

    # the answers are about where the block is now
    now = arm_tool(Q_PLACE, ARM_BASE) @ grasp
    np.testing.assert_allclose(pose_matrix(follower.object('block').pose), now, atol=EXACT)
    problem = follower.call('get_problem')
    np.testing.assert_allclose(pose_matrix(next(o for o in problem.objects
                                                 if o.name == 'block').pose), now, atol=EXACT)
    grasps = follower.call('get_grasps', object='block', type='top', frame='world').grasps
    gf0 = np.diag([-1.0, 1.0, -1.0, 1.0])
    gf0[2, 3] = 0.002684
    np.testing.assert_allclose(pose_matrix(grasps[0].pose), now @ gf0, atol=EXACT)
    scene = follower.latest_scene(
        lambda s: largest(pose_matrix(scene_object(s, 'block').pose), now) < EXACT,
        'the scene with the block at the place')
    assert scene_object(scene, 'block').pose_known

    # detach: the block stays where the gripper left it, whatever the arm does next
    assert follower.call('detach', object='block').success
    block = follower.object('block')
    assert block.parent == 'world'
    np.testing.assert_allclose(pose_matrix(block.pose), now, atol=EXACT)
    stamps = follower.stream(path(Q_PLACE, Q_HOME, 20))
    for msg in follower.received_at(stamps):
        stamp = rclpy.time.Time.from_msg(msg.header.stamp)
        np.testing.assert_allclose(follower.tf_pose('block', stamp), now, atol=EXACT)
        np.testing.assert_allclose(follower.tf_pose(HAND, stamp),
                                   arm_tool(configuration(msg), ARM_BASE), atol=EXACT)
    np.testing.assert_allclose(pose_matrix(follower.object('block').pose), now, atol=EXACT)
    # on stand_b: a stable placement of the block there
    placements = follower.call('get_placements', object='block', support='stand_b',
                               samples=8).placements
    outside, tilt = placement_violation(now, placements, follower.object('stand_b'))
    assert outside < 1e-5 and tilt < 1e-5, (outside, tilt)
    follower.reset()


@pytest.mark.parametrize('obj, parent, words', [
    ('stand_a', HAND, "cannot attach 'stand_a': it is not moveable"),
    ('bench', 'block', "cannot attach 'bench': it is not moveable"),
    ('block', 'arm/no_such_link', "no object or robot frame named 'arm/no_such_link', and TF "
                                  'has no transform from world to it'),
    ('block', 'gripper_of_nobody', "no object or robot frame named 'gripper_of_nobody'"),
    ('block', 'world', 'use detach'),
    ('block', 'block', "cannot attach 'block' to itself"),
    ('teapot', HAND, "no object named 'teapot'"),
])
def test_refused_attachments_say_why_and_change_nothing(follower, obj, parent, words):
    follower.reset()
    statics, scenes = len(follower.tf_static), len(follower.scene)
    before = {name: follower.object(name) for name in ('block', 'stand_a')}
    answer = follower.call('attach', object=obj, parent=parent)
    assert not answer.success and words in answer.message, answer.message
    follower.side.spin_for(0.5)  # bounded absence: nothing is re-sent after a refusal
    assert len(follower.tf_static) == statics and len(follower.scene) == scenes
    for name, was in before.items():
        now = follower.object(name)
        assert now.parent == was.parent and list(now.attached) == list(was.attached)
        assert largest(pose_matrix(now.pose), pose_matrix(was.pose)) == 0.0
    assert follower.process.alive()


def test_a_non_moveable_object_still_carries_others(follower):
    follower.reset()
    answer = follower.call('attach', object='block', parent='stand_b')
    assert answer.success, answer.message
    assert list(follower.object('stand_b').attached) == ['block']
    np.testing.assert_allclose(pose_matrix(follower.object('block').pose), BLOCK, atol=SAME)
    # a cycle through the carrier is refused too
    answer = follower.call('attach', object='block', parent='block')
    assert not answer.success
    follower.reset()


def test_the_scene_is_latched_and_counts_changes(follower):
    follower.reset()
    first = follower.scene.last.version
    late = follower.side.new_node('late_scene_reader')
    inbox = follower.side.subscribe(Scene, '/problem_server/scene', DESCRIPTION_QOS, node=late)
    follower.side.spin_until(lambda: len(inbox), what='the latched scene for a late joiner')
    scene = inbox.last
    assert scene.version == first and scene.header.frame_id == 'world'
    assert [o.name for o in scene.objects] == ['bench', 'stand_a', 'stand_b', 'block']
    block = scene_object(scene, 'block')
    assert block.parent == 'stand_a' and block.moveable and block.pose_known
    assert list(scene_object(scene, 'stand_a').attached) == ['block']
    np.testing.assert_allclose(pose_matrix(block.pose), BLOCK, atol=SAME)
    assert follower.call('detach', object='block').success
    assert follower.latest_scene(lambda s: s.version > first, 'the scene after detach'
                                 ).version == first + 1


def test_a_frame_another_node_hangs_below_the_gripper_carries_the_block(follower):
    """A camera on the gripper (a static transform arm/tool_frame -> camera from this test's
    node, as static_transform_publisher would send it): problem_server resolves 'camera'
    through its tf2 Buffer, across the arm frames it publishes itself."""
    from geometry_msgs.msg import TransformStamped
    camera = np.eye(4)
    camera[:3, 3] = (0.0, 0.05, -0.02)
    mount = TransformStamped(child_frame_id='camera')
    mount.header.frame_id = HAND
    mount.transform.translation.y, mount.transform.translation.z = 0.05, -0.02
    mount.transform.rotation.w = 1.0
    publisher = follower.side.node.create_publisher(TFMessage, '/tf_static', DESCRIPTION_QOS)
    publisher.publish(TFMessage(transforms=[mount]))
    follower.reset()
    follower.move(Q_PICK)
    follower.side.spin_until(  # problem_server has heard of the camera (DDS discovery)
        lambda: follower.call('attach', object='block', parent='camera').success,
        what='problem_server seeing the camera frame', process=follower.process)
    grasp = np.linalg.inv(arm_tool(Q_PICK, ARM_BASE) @ camera) @ BLOCK
    np.testing.assert_allclose(pose_matrix(follower.object('block').pose_in_parent), grasp,
                               atol=EXACT)
    stamps = follower.stream(path(Q_PICK, Q_PLACE, 10))
    for msg in follower.received_at(stamps):
        np.testing.assert_allclose(
            follower.tf_pose('block', rclpy.time.Time.from_msg(msg.header.stamp)),
            arm_tool(configuration(msg), ARM_BASE) @ camera @ grasp, atol=EXACT)
    now = arm_tool(Q_PLACE, ARM_BASE) @ camera @ grasp
    np.testing.assert_allclose(pose_matrix(follower.object('block').pose), now, atol=EXACT)
    follower.reset()
    follower.side.node.destroy_publisher(publisher)


# --- a rate cap ----------------------------------------------------------------------------------

def test_publish_frequency_caps_tf_and_the_last_state_arrives(module_launcher):
    capped = Follower(module_launcher, PROBLEM, 'problem_server_capped', publish_frequency=10.0)
    capped.move(Q_HOME)
    start = len(capped.tf)
    configurations = path(Q_HOME, Q_ABOVE, 100)
    stamps = capped.stream(configurations, rate=100.0)
    seconds = (stamps[-1].nanoseconds - stamps[0].nanoseconds) * 1e-9
    capped.wait_for_tf(HAND, stamps[-1])  # held back, then published by the timer
    np.testing.assert_allclose(capped.tf_pose(HAND, stamps[-1]),
                               arm_tool(configurations[-1], ARM_BASE), atol=SAME)
    ours = {s.nanoseconds for s in stamps}
    published = [m for m in capped.tf.messages[start:]
                 if any(rclpy.time.Time.from_msg(t.header.stamp).nanoseconds in ours
                        for t in m.transforms)]
    assert 3 <= len(published) <= 10 * seconds + 2, (len(published), seconds)


# --- a moving support: kitchen.xml's tray on the helper's gripper --------------------------------

def test_objects_on_a_carried_support_and_its_placements_follow(module_launcher):
    kitchen = Follower(module_launcher, KITCHEN, 'problem_server_kitchen_follow',
                       robots=('helper',), landmark='tray')
    helper_tool = 'helper/tool_frame'
    q0 = (0.0, 0.4, 0.6, 0.0, 0.02)  # the problem's configuration tags
    np.testing.assert_allclose(kitchen.tf_pose(helper_tool), arm_tool(q0, HELPER_BASE),
                               atol=SAME)
    assert kitchen.call('attach', object='tray', parent=helper_tool).success
    grasp = np.linalg.inv(arm_tool(q0, HELPER_BASE)) @ TRAY
    q = (0.7, 0.1, 0.3, -0.4, 0.0)
    kitchen.move(q, robot='helper', frame=helper_tool)
    tray = arm_tool(q, HELPER_BASE) @ grasp
    glass = tray @ np.linalg.inv(TRAY) @ GLASS1
    np.testing.assert_allclose(kitchen.tf_pose('glass1'), glass, atol=EXACT)
    np.testing.assert_allclose(pose_matrix(kitchen.object('glass1').pose), glass, atol=EXACT)
    placements = kitchen.call('get_placements', object='cup1', support='tray', samples=6,
                              seed=3).placements
    up = tray[:3, :3] @ np.array([0.0, 0.0, 1.0])
    for placement in placements:
        point = np.array([placement.support_point.x, placement.support_point.y,
                          placement.support_point.z])
        local = np.linalg.inv(tray) @ np.append(point, 1.0)
        assert abs(local[0]) <= 0.18 + 1e-9 and abs(local[1]) <= 0.13 + 1e-9  # the SSSP
        assert abs(local[2] - 0.01) < 1e-9
        np.testing.assert_allclose(pose_matrix(placement.pose)[:3, 3], point + 0.045 * up,
                                   atol=EXACT)  # cup1's <sop> distance above the tray
    assert kitchen.call('reset').success


# --- TF of the robot from another node ----------------------------------------------------------

def external_description_publisher() -> list[str]:
    """description_publisher publishing the arm's joints as frames arm/<link>, from
    /arm/joint_states (its own robot_description moved out of problem_server's way)."""
    return ['-m', 'robot_formats.nodes.description_publisher', '--ros-args',
            '-r', '__ns:=/arm', '-r', 'robot_description:=/arm/external_description',
            '-p', f'description_file:={ARM}', '-p', 'frame_prefix:=arm/',
            '-p', 'publish_frequency:=0.0', '-p', 'joint_states_qos:=reliable']


def test_an_external_tf_publisher_carries_the_block_and_nothing_is_published_twice(
        module_launcher):
    external = Follower(module_launcher, PROBLEM, 'problem_server_external',
                        extra_nodes=[external_description_publisher()],
                        **{'robots.arm.publish_tf': 'base'})
    # problem_server places the base only; description_publisher publishes every joint
    ours = external.static_message()
    robot_frames = {t.child_frame_id: t.header.frame_id for t in ours.transforms
                    if t.child_frame_id.startswith('arm/')}
    assert robot_frames == {'arm/base_link': 'world'}
    external.move(Q_HOME)
    # problem_server reads the gripper through its own tf2 Buffer, which may not have heard of
    # description_publisher yet (DDS discovery): a refusal changes nothing, so ask again while
    # the arm keeps reporting its joints, as a robot does. It has been nowhere but home, so
    # whatever TF problem_server has, the grasp is this one.
    external.side.spin_until(
        lambda: external.call('attach', object='block', parent=HAND).success,
        what='problem_server seeing the gripper on TF', process=external.process,
        every=lambda: external.publish(Q_HOME, external.stamp()), every_period=0.2)
    grasp = np.linalg.inv(arm_tool(Q_HOME, ARM_BASE)) @ BLOCK
    np.testing.assert_allclose(pose_matrix(external.object('block').pose_in_parent), grasp,
                               atol=EXACT)
    np.testing.assert_allclose(pose_matrix(external.object('block').pose), BLOCK, atol=EXACT)
    start = len(external.tf)
    stamps = external.stream(path(Q_HOME, Q_PLACE, 30))
    for msg in external.received_at(stamps):
        stamp = rclpy.time.Time.from_msg(msg.header.stamp)
        np.testing.assert_allclose(external.tf_pose('block', stamp),
                                   arm_tool(configuration(msg), ARM_BASE) @ grasp, atol=EXACT)
    external.side.spin_for(0.5)  # bounded absence: a second publisher's transforms would be here
    for stamp in stamps:
        publications = [t for m in external.tf.messages[start:] for t in m.transforms
                        if t.child_frame_id == 'arm/shoulder_link'
                        and nanoseconds(t.header.stamp) == stamp.nanoseconds]
        assert len(publications) == 1, f'arm/shoulder_link published {len(publications)} times'
    now = arm_tool(Q_PLACE, ARM_BASE) @ grasp
    # problem_server reads the gripper through its own tf2 Buffer: it answers where it is now
    external.side.spin_until(
        lambda: largest(pose_matrix(external.object('block').pose), now) < EXACT,
        what='get_object with the block at the place', process=external.process)
    assert external.call('detach', object='block').success
    stamps = external.stream(path(Q_PLACE, Q_HOME, 10))
    for msg in external.received_at(stamps):
        np.testing.assert_allclose(
            external.tf_pose('block', rclpy.time.Time.from_msg(msg.header.stamp)), now,
            atol=EXACT)


def test_without_robot_tf_the_robot_frames_are_left_alone_and_unknown_frames_refused(
        module_launcher):
    silent = Follower(module_launcher, PROBLEM, 'problem_server_no_robot_tf',
                      **{'robots.arm.publish_tf': 'none'})
    ours = silent.static_message()
    assert not [t for t in ours.transforms if t.child_frame_id.startswith('arm/')]
    # until problem_server follows Q_PICK: its reader may match ours after ours matched it and
    # miss a joint state, so one is sent again every second while waiting
    silent.side.spin_until(
        lambda: list(silent.call('get_problem').robots[0].joint_positions)
        == pytest.approx(list(Q_PICK), abs=1e-12),
        what='problem_server following the joint state', process=silent.process,
        every=lambda: silent.publish(Q_PICK, silent.stamp()))
    silent.side.spin_for(0.5)  # bounded absence: problem_server publishes no arm frame
    assert not [t for m in silent.tf.messages for t in m.transforms
                if t.child_frame_id.startswith('arm/')]
    answer = silent.call('attach', object='block', parent=HAND)
    assert not answer.success and 'TF has no transform from world to it' in answer.message
    (robot,) = silent.call('get_problem').robots  # its joint states are still followed
    assert list(robot.joint_positions) == pytest.approx(list(Q_PICK), abs=1e-12)


def test_a_bad_robot_setting_is_reported_and_every_service_says_so(module_launcher):
    process, side = module_launcher.command(
        ['-m', 'robot_formats.nodes.problem_server', '--ros-args', '-p',
         f'problem_file:={PROBLEM}', '-p', 'robots.arm.publish_tf:=sometimes',
         '-p', 'robots.robot_of_nobody.publish_tf:=base'], 'problem_server_bad_setting')
    process.wait_for_log("parameter robots.arm.publish_tf is 'sometimes', not one of all, base, "
                         'none; serving nothing')
    client = side.node.create_client(srv.ListObjects, '/problem_server/list_objects')
    answer = side.call(client, srv.ListObjects.Request(), process=process)
    assert not answer.success and 'no problem is loaded' in answer.message
    good, side = module_launcher.command(
        ['-m', 'robot_formats.nodes.problem_server', '--ros-args', '-p',
         f'problem_file:={PROBLEM}', '-p', 'robots.robot_of_nobody.publish_tf:=base'],
        'problem_server_unknown_robot_setting')
    good.wait_for_log('parameter robots.robot_of_nobody.publish_tf is not used: the problem has '
                      'no such robot setting (robots: arm;')
