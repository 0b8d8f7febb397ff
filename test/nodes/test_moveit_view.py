"""problem_server's MoveIt view, as a MoveIt user meets it: ``ros2 launch robot_formats
problem.launch.py rviz:=false publish_planning_scene:=true problem_file:=...`` for every bundled
problem, read through moveit_msgs only.

The scene is rebuilt here from ``~/get_planning_scene`` with plain numpy on the messages (no
robot_formats code) and compared with the problem file as the TMP reader reads it (the reference
of the file's content), the OBJ files read by a parser of this file, the robot's URDF from its
``robot_description`` topic and the robot's frames through a tf2_ros Buffer (1e-9):

* after load: every object with its shape (BOX where the OBJ is exactly a box, else its
  triangles) at its pose in the planning frame (the robot's root link), every support region
  as ``<object>/support``, the robot's joint values;
* after an attach to the robot's deepest link (the object and every object it carries, as
  AttachedCollisionObjects on the bare link name with the hand's touch links), a motion of the
  robot (joint_states published here) and a detach (back in the world where the link left it);
* a subscriber applying the ``/planning_scene`` diffs with MoveIt's semantics
  (PlanningScene::usePlanningSceneMsg: attached objects first, then ADD/REMOVE/MOVE/APPEND on
  the world) holds that same scene after every step, and so does one that joins late;
* every grasp of ``~/plan_grasps`` puts the gripper frame at the TMP grasp, with the approach,
  retreat and gripper postures configured (defaults under ros2 launch, set values under
  ``ros2 run``).
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
import rclpy.time
from moveit_msgs.msg import CollisionObject, MoveItErrorCodes, PlanningScene
from moveit_msgs.msg import PlanningSceneComponents as Components
from moveit_msgs.srv import GetPlanningScene, GraspPlanning
from rclpy.duration import Duration
from rclpy.qos import QoSProfile, ReliabilityPolicy
from robot_formats_interfaces.srv import AttachObject, DetachObject
from sensor_msgs.msg import JointState
from shape_msgs.msg import SolidPrimitive
from tf2_ros import Buffer, TransformListener

from robot_formats.formats import read_problem

from .harness import ROOT, subprocess_env, transform_matrix
from .pick_place_reference import pose_matrix as matrix
from .test_launch_files import SHARE, LaunchRun, ros2
from .test_problem_server import rodrigues

PROBLEMS = sorted((SHARE / 'examples' / 'tmp').glob('*.xml'))
TOL = 1e-9
RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
#: The gripper frame and gripper joints of each problem's first AMmapping action on its first
#: robot (docs/guide-planner.md, "With MoveIt"): the deepest link its arm joints move, its
#: *gripper*/*finger* joints. Read off the AMmapping and the robot files.
HANDS = {
    'discs_and_pegs': ('r_wrist_roll_link', ['r_gripper_motor_slider_joint']),
    'hebi_sorting': ('wrist2/output', []),
    'kitchen': ('l_wrist_roll_link', ['l_gripper_motor_slider_joint']),
    'pick_and_place': ('wrist_link', ['finger_left']),
    'scara_packing': ('scara::tool', []),
}


# --- plain numpy on messages ----------------------------------------------------------------------

def shapes_of(co) -> list[tuple]:
    """A CollisionObject's shapes: ('box', size, pose) and ('mesh', corners (m, 3, 3), pose)."""
    out: list[tuple] = []
    for primitive, pose in zip(co.primitives, co.primitive_poses):
        assert primitive.type == SolidPrimitive.BOX, primitive
        out.append(('box', np.array(primitive.dimensions), matrix(pose)))
    for mesh, pose in zip(co.meshes, co.mesh_poses):
        vertices = np.array([(p.x, p.y, p.z) for p in mesh.vertices]).reshape(-1, 3)
        triangles = np.array([list(t.vertex_indices) for t in mesh.triangles]).reshape(-1, 3)
        out.append(('mesh', vertices[triangles], matrix(pose)))
    return out


def same_shapes(a: list[tuple], b: list[tuple]) -> bool:
    return len(a) == len(b) and all(
        x[0] == y[0] and x[1].shape == y[1].shape and np.array_equal(x[1], y[1])
        and np.array_equal(x[2], y[2]) for x, y in zip(a, b))


class Picture:
    """A scene as plain data: world id -> (pose in the planning frame, shapes); attached id ->
    (link, pose in the link, shapes, touch links)."""

    def __init__(self) -> None:
        self.world: dict[str, tuple[np.ndarray, list]] = {}
        self.attached: dict[str, tuple[str, np.ndarray, list, tuple[str, ...]]] = {}

    @classmethod
    def of(cls, scene: PlanningScene, planning_frame: str) -> Picture:
        picture = cls()
        for co in scene.world.collision_objects:
            assert co.header.frame_id == planning_frame, (co.id, co.header.frame_id)
            assert co.operation == CollisionObject.ADD
            picture.world[co.id] = (matrix(co.pose), shapes_of(co))
        for aco in scene.robot_state.attached_collision_objects:
            assert aco.object.header.frame_id == aco.link_name  # as MoveIt answers them
            picture.attached[aco.object.id] = (aco.link_name, matrix(aco.object.pose),
                                               shapes_of(aco.object),
                                               tuple(sorted(aco.touch_links)))
        return picture

    def differences(self, other: Picture, tol: float = TOL) -> list[str]:
        out = []
        if set(self.world) != set(other.world):
            out.append(f'world ids {sorted(self.world)} != {sorted(other.world)}')
        if set(self.attached) != set(other.attached):
            out.append(f'attached ids {sorted(self.attached)} != {sorted(other.attached)}')
        for name in set(self.world) & set(other.world):
            (p, s), (q, t) = self.world[name], other.world[name]
            if np.max(np.abs(p - q)) > tol or not same_shapes(s, t):
                out.append(f'world {name}: pose or shapes differ')
        for name in set(self.attached) & set(other.attached):
            a, b = self.attached[name], other.attached[name]
            if a[0] != b[0] or a[3] != b[3] or np.max(np.abs(a[1] - b[1])) > tol \
                    or not same_shapes(a[2], b[2]):
                out.append(f'attached {name}: {a[0]} {a[3]} vs {b[0]} {b[3]} or pose/shapes')
        return out


class MoveItMirror:
    """move_group's planning scene as the /planning_scene diffs change it, with MoveIt's rules
    (moveit_core PlanningScene::setPlanningSceneDiffMsg, processAttachedCollisionObjectMsg,
    processCollisionObjectMsg): the robot state's attached objects first, then the world.
    ``link_pose(link)`` is the robot's link in the planning frame now (MoveIt's robot state)."""

    def __init__(self, side, planning_frame: str, link_pose, node=None) -> None:
        self.frame, self.link_pose = planning_frame, link_pose
        self.picture = Picture()
        self.received = 0
        self.errors: list[str] = []
        (node or side.node).create_subscription(PlanningScene, '/planning_scene', self.apply,
                                                RELIABLE)

    def frame_pose(self, frame: str) -> np.ndarray:
        if frame == self.frame:
            return np.eye(4)
        if frame in self.picture.world:
            return self.picture.world[frame][0]
        return self.link_pose(frame)

    def apply(self, msg: PlanningScene) -> None:
        self.received += 1
        if not msg.is_diff:  # a whole scene replaces everything
            self.picture = Picture()
        state = msg.robot_state
        if state.joint_state.name or state.attached_collision_objects:
            if not state.is_diff:
                self.picture.attached.clear()
            for aco in state.attached_collision_objects:
                if not state.is_diff and aco.object.operation != CollisionObject.ADD:
                    self.errors.append(f'{aco.object.id}: not ADD in a robot state that is no diff')
                    continue
                self._attached(aco)
        for co in msg.world.collision_objects:
            self._world(co)

    def _attached(self, aco) -> None:
        obj, world, attached = aco.object, self.picture.world, self.picture.attached
        if obj.operation in (CollisionObject.ADD, CollisionObject.APPEND):
            link_to_planning = np.linalg.inv(self.link_pose(aco.link_name))
            if obj.operation == CollisionObject.ADD and not shapes_of(obj):
                if obj.id not in world:
                    self.errors.append(f'attach {obj.id}: no geometry and not in the world')
                    return
                pose, shapes = link_to_planning @ world[obj.id][0], world[obj.id][1]
            else:
                pose = link_to_planning @ self.frame_pose(obj.header.frame_id) @ matrix(obj.pose)
                shapes = shapes_of(obj)
            world.pop(obj.id, None)
            touch = tuple(sorted(aco.touch_links))
            if obj.operation == CollisionObject.APPEND and obj.id in attached:
                old = attached[obj.id]
                pose = old[1] if _empty(obj.pose) else pose
                shapes = shapes + old[2]
                touch = tuple(sorted(set(touch) | set(old[3])))
            attached[obj.id] = (aco.link_name, pose, shapes, touch)
        elif obj.operation == CollisionObject.REMOVE:
            names = [obj.id] if obj.id else [n for n, a in attached.items()
                                              if not aco.link_name or a[0] == aco.link_name]
            for name in names:
                if name not in attached:
                    continue
                link, pose, shapes, _ = attached.pop(name)
                if name not in world:
                    world[name] = (self.link_pose(link) @ pose, shapes)
        else:
            self.errors.append(f'{obj.id}: MOVE of an attached object')

    def _world(self, co) -> None:
        world = self.picture.world
        if co.operation in (CollisionObject.ADD, CollisionObject.APPEND):
            if not shapes_of(co):
                self.errors.append(f'add {co.id}: no shapes')
                return
            pose = self.frame_pose(co.header.frame_id) @ matrix(co.pose)
            if co.operation == CollisionObject.APPEND and co.id in world:
                world[co.id] = (world[co.id][0], world[co.id][1] + shapes_of(co))
            else:
                world[co.id] = (pose, shapes_of(co))
        elif co.operation == CollisionObject.REMOVE:
            if not co.id:
                world.clear()
            elif world.pop(co.id, None) is None:
                self.errors.append(f'remove {co.id}: not in the world')
        elif co.operation == CollisionObject.MOVE:
            if co.id not in world:
                self.errors.append(f'move {co.id}: not in the world')
                return
            world[co.id] = (self.frame_pose(co.header.frame_id) @ matrix(co.pose), world[co.id][1])


def _empty(pose) -> bool:
    o, p = pose.orientation, pose.position
    return not any((p.x, p.y, p.z, o.x, o.y, o.z, o.w))


# --- the references -------------------------------------------------------------------------------

def read_obj(path: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, triangles) of a Wavefront OBJ: ``v`` lines, ``f`` polygons cut into fans."""
    vertices, faces = [], []
    for line in Path(path).read_text().splitlines():
        words = line.split()
        if words[:1] == ['v']:
            vertices.append([float(w) for w in words[1:4]])
        elif words[:1] == ['f']:
            corners = [int(w.split('/')[0]) - 1 for w in words[1:]]
            faces += [(corners[0], corners[k], corners[k + 1]) for k in range(1, len(corners) - 1)]
    return np.array(vertices), np.array(faces)


def expected_shapes(mesh_path: str) -> list[tuple]:
    """An OBJ as the scene must hold it: a box when its vertices are exactly the 8 corners of
    their bounds (the bundled meshes that are boxes are written so), else its triangles."""
    vertices, triangles = read_obj(mesh_path)
    low, high = vertices.min(axis=0), vertices.max(axis=0)
    corners = {tuple(v) for v in vertices.tolist()}
    on_corners = all(all(c in (lo, hi) for c, lo, hi in zip(v, low, high)) for v in corners)
    if len(corners) == 8 and on_corners:
        pose = np.eye(4)
        pose[:3, 3] = (low + high) / 2
        return [('box', high - low, pose)]
    return [('mesh', vertices[triangles], np.eye(4))]


def support_check(shapes: list[tuple], region) -> None:
    """A support region's collision object: the BOX over an <sssp>'s bounds, or a flat mesh
    tiling a <pssp> polygon (same area, corners among its points)."""
    if region.kind in ('point', 'rectangle'):
        ((kind, size, pose),) = shapes
        assert kind == 'box'
        assert np.max(np.abs(size - (region.high - region.low))) <= TOL
        assert np.max(np.abs(pose[:3, 3] - (region.high + region.low) / 2)) <= TOL
        assert np.array_equal(pose[:3, :3], np.eye(3))
        return
    ((kind, corners, pose),) = shapes
    assert kind == 'mesh' and np.array_equal(pose, np.eye(4))
    points = region.points
    assert all(any(np.array_equal(c, p) for p in points) for c in corners.reshape(-1, 3))
    area = sum(np.linalg.norm(np.cross(t[1] - t[0], t[2] - t[0])) / 2 for t in corners)
    newell = 0.5 * np.linalg.norm(sum(np.cross(a, b)
                                      for a, b in zip(points, np.roll(points, -1, 0))))
    assert abs(area - newell) <= TOL * max(1.0, newell)
    assert len(corners) == len(points) - 2


class Urdf:
    """The robot as its robot_description says: links, joints, root, model name."""

    def __init__(self, text: str) -> None:
        root = ET.fromstring(text)
        self.name = root.get('name')
        self.links = [link.get('name') for link in root.findall('link')]
        self.parent = {j.find('child').get('link'): j.find('parent').get('link')
                       for j in root.findall('joint')}
        self.joints = {j.get('name'): j for j in root.findall('joint')}
        (self.root,) = [link for link in self.links if link not in self.parent]

    def depth(self, link: str) -> int:
        return 0 if link == self.root else 1 + self.depth(self.parent[link])

    def deepest(self) -> str:
        return max(self.links, key=self.depth)

    def limits(self, joint: str) -> tuple[float, float]:
        limit = self.joints[joint].find('limit')
        return float(limit.get('upper')), float(limit.get('lower'))

    def below(self, links: set[str]) -> set[str]:
        found = set(links)
        while True:
            more = {c for c, p in self.parent.items() if p in found} - found
            if not more:
                return found
            found |= more


def touch_links(urdf: Urdf, problem, link: str) -> tuple[str, ...]:
    """The documented rule: the AMmapping's *gripper*/*finger* joints of this robot and the
    joints mimicking them; their child links and below, for the hand whose palm (the gripper
    joints' parent link) is ``link`` or above it."""
    gripper = {j for a in problem.actions.values() for j in a.joints
               if j in urdf.joints and ('gripper' in j or 'finger' in j)}
    mimics = {n for n, j in urdf.joints.items()
              if j.find('mimic') is not None and j.find('mimic').get('joint') in gripper}
    hands: dict[str, set[str]] = {}
    for joint in gripper:
        palm = urdf.joints[joint].find('parent').get('link')
        hands.setdefault(palm, set())
        for name in gripper | mimics:
            element = urdf.joints[name]
            if element.find('parent').get('link') == palm:
                hands[palm].add(element.find('child').get('link'))
    node = link
    while True:
        if node in hands:
            return tuple(sorted(urdf.below(hands[node])))
        if node == urdf.root:
            return ()
        node = urdf.parent[node]


# --- the launched problem -------------------------------------------------------------------------

class Launched:
    """``ros2 launch robot_formats problem.launch.py`` of one problem, the MoveIt clients, a
    tf2 Buffer, a joint state publisher for the first robot and a diff-applying mirror."""

    def __init__(self, launcher, problem: Path) -> None:
        self.problem = read_problem(problem, [], strict=False)  # the file's content
        self.run = LaunchRun(launcher, 'problem.launch.py', {
            'problem_file': str(problem), 'publish_planning_scene': 'true',
            'publish_frequency': '0.0'}, f'moveit_{problem.stem}')
        self.side = self.run.side
        node = self.side.node
        self.robot = next(iter(self.problem.robots))
        self.urdf = Urdf(self.run.description(f'/{self.robot}/robot_description'))
        self.basepose = self.problem.robots[self.robot].basepose
        self.buffer = Buffer(cache_time=Duration(seconds=120))
        self.listener = TransformListener(self.buffer, node)
        self.clients = {name: node.create_client(kind, f'/problem_server/{name}') for name, kind in
                        [('get_planning_scene', GetPlanningScene), ('plan_grasps', GraspPlanning),
                         ('attach', AttachObject), ('detach', DetachObject)]}
        self.joint_states = node.create_publisher(JointState, f'/{self.robot}/joint_states',
                                                  RELIABLE)
        self.mirror = MoveItMirror(self.side, self.urdf.root, self.link_pose_now)
        self.nanoseconds = 0
        self.wait_for_robot_tf()

    def wait_for_robot_tf(self) -> None:
        """Readiness: TF holds every link of the robot (problem_server re-sends the initial
        configuration until joint states come), so the mirror's lookups in its callback find
        them; under load the listener can match /tf seconds after the node started."""
        root = f'{self.robot}/{self.urdf.root}'
        links = [f'{self.robot}/{link}' for link in self.urdf.links]
        self.side.spin_until(
            lambda: all(self.buffer.can_transform(root, link, rclpy.time.Time())
                        for link in links),
            what=f'TF of every link of {self.robot}', process=self.run.process)

    def call(self, name: str, request):
        return self.side.call(self.clients[name], request, process=self.run.process)

    def scene(self, components: int = 0) -> PlanningScene:
        request = GetPlanningScene.Request()
        request.components.components = components
        return self.call('get_planning_scene', request).scene

    def tf(self, frame: str, target: str = 'world', stamp=None) -> np.ndarray:
        stamp = stamp or rclpy.time.Time()
        self.side.spin_until(lambda: self.buffer.can_transform(target, frame, stamp),
                             what=f'TF {target} -> {frame}', process=self.run.process)
        return transform_matrix(self.buffer.lookup_transform(target, frame, stamp).transform)

    def link_pose_now(self, link: str) -> np.ndarray:
        """The robot's link in the planning frame (its root link), as TF has it now (for the
        mirrors, in a subscription callback: no waiting; TF has the robot long before)."""
        found = self.buffer.lookup_transform(f'{self.robot}/{self.urdf.root}',
                                             f'{self.robot}/{link}', rclpy.time.Time())
        return transform_matrix(found.transform)

    def move(self, names: list[str], positions: list[float]) -> rclpy.time.Time:
        """Publish a joint state until problem_server reports it; TF then has it at its stamp."""
        now = self.side.node.get_clock().now().nanoseconds
        self.nanoseconds = max(now, self.nanoseconds + 1000)
        stamp = rclpy.time.Time(nanoseconds=self.nanoseconds)
        msg = JointState(name=names, position=positions)
        msg.header.stamp = stamp.to_msg()

        def reported() -> bool:
            state = self.scene(Components.ROBOT_STATE).robot_state.joint_state
            return dict(zip(state.name, state.position)) == dict(zip(names, positions))

        self.side.spin_until(reported, what='the scene reporting the joint state',
                             process=self.run.process,
                             every=lambda: self.joint_states.publish(msg))
        self.tf(f'{self.robot}/{self.urdf.deepest()}', stamp=stamp)
        return stamp

    def mirror_holds(self, picture: Picture, mirror: MoveItMirror | None = None) -> None:
        mirror = mirror or self.mirror
        self.side.spin_until(lambda: not mirror.picture.differences(picture),
                             what='the diff-applied scene to equal ~/get_planning_scene',
                             process=self.run.process)
        assert not mirror.errors, mirror.errors


@pytest.fixture(scope='module', params=PROBLEMS, ids=[p.stem for p in PROBLEMS])
def launched(request, module_launcher):
    return Launched(module_launcher, request.param)


def carried_by(problem, name: str) -> list[str]:
    """``name`` and every object it carries (the file's attachments), depth first."""
    out = [name]
    for child in problem.objects[name].attachments:
        out += carried_by(problem, child)
    return out


def with_supports(problem, names: list[str]) -> list[str]:
    return [i for n in names for i in (n, f'{n}/support')
            if i == n or problem.objects[n].support is not None]


# --- the tests ------------------------------------------------------------------------------------

def test_every_grasp_puts_the_gripper_frame_at_the_tmp_grasp(launched) -> None:
    problem, urdf = launched.problem, launched.urdf
    frame, joints = HANDS[Path(problem.path).stem]
    for name, obj in problem.objects.items():
        request = GraspPlanning.Request()
        request.target.id = name
        answer = launched.call('plan_grasps', request)
        assert answer.error_code.val == MoveItErrorCodes.SUCCESS, answer.error_code.message
        expected = {f'gf{i}': g.frame for i, g in enumerate(obj.grasps)}
        for j, grasp in enumerate(obj.continuous_grasps):  # 16 samples: the default
            expected.update({f'gc{j}/{k}': rodrigues(grasp.axis, 2 * math.pi * k / 16)
                             @ grasp.template for k in range(16)})
        assert [g.id for g in answer.grasps] == list(expected), name
        object_in_world = launched.tf(name)
        assert np.max(np.abs(object_in_world - obj.pose)) <= TOL
        for grasp in answer.grasps:
            stamped = grasp.grasp_pose
            gripper = launched.tf(stamped.header.frame_id) @ matrix(stamped.pose)
            assert np.max(np.abs(gripper - obj.pose @ expected[grasp.id])) <= TOL, grasp.id
            for move, sign in ((grasp.pre_grasp_approach, 1.0), (grasp.post_grasp_retreat, -1.0),
                               (grasp.post_place_retreat, -1.0)):
                vector = move.direction.vector
                assert move.direction.header.frame_id == frame
                assert (vector.x, vector.y, vector.z) == (0.0, 0.0, sign)
                assert (move.desired_distance, move.min_distance) == pytest.approx((0.1, 0.05),
                                                                                   rel=1e-7)
            for posture, which in ((grasp.pre_grasp_posture, 0), (grasp.grasp_posture, 1)):
                assert list(posture.joint_names) == joints
                if joints:
                    (point,) = posture.points
                    assert list(point.positions) == [urdf.limits(j)[which] for j in joints]
                    assert (point.time_from_start.sec, point.time_from_start.nanosec) == \
                        (0, 500_000_000)
                else:
                    assert not posture.points
    request = GraspPlanning.Request()
    request.target.id = 'no_such_object'
    answer = launched.call('plan_grasps', request)
    assert answer.error_code.val == MoveItErrorCodes.INVALID_OBJECT_NAME
    assert 'no_such_object' in answer.error_code.message
    request.target.id, request.group_name = next(iter(problem.objects)), 'no_such_group'
    answer = launched.call('plan_grasps', request)
    assert answer.error_code.val == MoveItErrorCodes.INVALID_GROUP_NAME
    assert 'no_such_group' in answer.error_code.message and not answer.grasps


def test_the_scene_follows_load_attach_motion_and_detach(launched) -> None:
    problem, urdf, robot = launched.problem, launched.urdf, launched.robot
    to_root = np.linalg.inv(launched.basepose)

    # load
    scene = launched.scene()
    assert scene.robot_model_name == urdf.name and scene.name == Path(problem.path).stem
    loaded = Picture.of(scene, urdf.root)
    assert not loaded.attached
    expected_ids = with_supports(problem, list(problem.objects))
    assert list(loaded.world) == expected_ids
    for name, obj in problem.objects.items():
        pose, shapes = loaded.world[name]
        assert np.max(np.abs(launched.basepose @ pose - obj.pose)) <= TOL, name
        assert same_shapes(shapes, expected_shapes(obj.mesh_path)), name
        if obj.support is not None:
            support_pose, support_shapes = loaded.world[f'{name}/support']
            assert np.array_equal(support_pose, pose)
            support_check(support_shapes, obj.support)
    state = scene.robot_state.joint_state
    values = dict(zip(state.name, state.position))
    for joint, value in problem.robots[robot].joint_positions.items():
        assert values[joint] == value, joint
    launched.mirror_holds(loaded)

    # attach the first moveable object (with what it carries) to the robot's deepest link
    link = urdf.deepest()
    first = next(n for n, o in problem.objects.items() if o.moveable)
    answer = launched.call('attach', AttachObject.Request(object=first,
                                                          parent=f'{robot}/{link}'))
    assert answer.success, answer.message
    link_in_world = launched.tf(f'{robot}/{link}')
    carried = with_supports(problem, carried_by(problem, first))
    attached = Picture.of(launched.scene(), urdf.root)
    assert list(attached.attached) == carried
    touch = touch_links(urdf, problem, link)
    for name in carried:
        got_link, pose, shapes, got_touch = attached.attached[name]
        obj = problem.objects[name.split('/')[0]]
        assert got_link == link and got_touch == touch, name
        assert np.max(np.abs(link_in_world @ pose - obj.pose)) <= TOL, name
        assert same_shapes(shapes, loaded.world[name][1])
    assert not attached.differences(_without(loaded, carried, attached))
    launched.mirror_holds(attached)

    # a motion of the robot: new joint values; what it carries keeps its pose in the link
    names = list(state.name)
    moved_to = [v + 0.05 for v in state.position]
    stamp = launched.move(names, moved_to)
    moving = launched.scene()
    joint_state = moving.robot_state.joint_state
    assert list(joint_state.name) == names and list(joint_state.position) == moved_to
    after_motion = Picture.of(moving, urdf.root)
    assert not after_motion.differences(attached, tol=0.0)
    launched.mirror_holds(after_motion)

    # detach: the object (and what it carries) back in the world, where the link left it
    answer = launched.call('detach', DetachObject.Request(object=first))
    assert answer.success, answer.message
    link_now = launched.tf(f'{robot}/{link}', stamp=stamp)
    detached = Picture.of(launched.scene(), urdf.root)
    assert not detached.attached and list(detached.world) == expected_ids
    for name in carried:
        expected = to_root @ link_now @ attached.attached[name][1]
        assert np.max(np.abs(detached.world[name][0] - expected)) <= TOL, name
    for name in set(expected_ids) - set(carried):
        assert np.array_equal(detached.world[name][0], loaded.world[name][0]), name
    launched.mirror_holds(detached)

    # a subscriber joining now (move_group started late) gets the whole scene at once
    late = MoveItMirror(launched.side, urdf.root, launched.link_pose_now,
                        node=launched.side.new_node('late_move_group'))
    launched.mirror_holds(detached, late)
    assert launched.mirror.received >= 3  # load (or the first match), attach, detach


def _without(loaded: Picture, carried: list[str], attached: Picture) -> Picture:
    """``loaded`` with the carried objects moved into ``attached``'s attachments."""
    out = Picture()
    out.world = {n: v for n, v in loaded.world.items() if n not in carried}
    out.attached = {n: attached.attached[n] for n in carried}
    return out


def test_components_select_parts_of_the_scene(launched) -> None:
    names = launched.scene(Components.WORLD_OBJECT_NAMES)
    assert [co.id for co in names.world.collision_objects] == \
        with_supports(launched.problem, list(launched.problem.objects))
    assert not any(co.primitives or co.meshes for co in names.world.collision_objects)
    assert not names.robot_state.joint_state.name and not names.robot_model_name
    settings = launched.scene(Components.SCENE_SETTINGS)
    assert settings.robot_model_name == launched.urdf.name
    assert not settings.world.collision_objects and not settings.robot_state.joint_state.name
    joints = launched.scene(Components.ROBOT_STATE)
    assert joints.robot_state.joint_state.name and not joints.world.collision_objects


# --- a robot MoveIt does not plan for, and settings -----------------------------------------------

def test_an_object_on_another_robot_moves_in_the_world_by_move_diffs(module_launcher) -> None:
    """kitchen.xml: MoveIt plans for pr2; a glass carried by the helper arm is a world object
    that follows the helper with MOVE diffs."""
    kitchen = Launched(module_launcher, SHARE / 'examples' / 'tmp' / 'kitchen.xml')
    to_root = np.linalg.inv(kitchen.basepose)
    answer = kitchen.call('attach', AttachObject.Request(object='glass2',
                                                         parent='helper/tool_frame'))
    assert answer.success, answer.message
    before = Picture.of(kitchen.scene(), kitchen.urdf.root)
    assert 'glass2' in before.world and not before.attached
    held = np.linalg.inv(kitchen.tf('helper/tool_frame')) @ kitchen.problem.objects['glass2'].pose
    kitchen.mirror_holds(before)
    helper = kitchen.side.node.create_publisher(JointState, '/helper/joint_states', RELIABLE)
    names = ['shoulder_pan', 'shoulder_lift', 'elbow', 'wrist_roll', 'finger_left']
    msg = JointState(name=names, position=[0.4, 0.1, 0.3, 0.2, 0.01])
    received = kitchen.mirror.received

    def publish_now() -> None:
        # stamped now each time: problem_server re-sends the initial configuration, stamped
        # when sent, until the helper's first joint state, and TF's latest must be this one
        msg.header.stamp = kitchen.side.node.get_clock().now().to_msg()
        helper.publish(msg)

    still = kitchen.tf('helper/tool_frame')
    kitchen.side.spin_until(
        lambda: np.max(np.abs(kitchen.tf('helper/tool_frame') - still)) > TOL,
        what='the helper at its new joint state on TF', process=kitchen.run.process,
        every=publish_now)
    expected = to_root @ kitchen.tf('helper/tool_frame') @ held

    def glass_moved() -> bool:
        pose = Picture.of(kitchen.scene(), kitchen.urdf.root).world['glass2'][0]
        return np.max(np.abs(pose - expected)) <= TOL

    kitchen.side.spin_until(glass_moved, what='glass2 where the helper took it',
                            process=kitchen.run.process)
    kitchen.mirror_holds(Picture.of(kitchen.scene(), kitchen.urdf.root))
    assert kitchen.mirror.received > received


def test_configured_grasps_robot_and_touch_links_under_ros2_run(launcher) -> None:
    """``ros2 run robot_formats problem_server`` with the MoveIt parameters set: kitchen.xml for
    the helper arm (moveit_robot), every grasp's approach, retreat, gripper frame, sample count
    and posture time as configured, the helper's own planning group, touch links given."""
    kitchen = SHARE / 'examples' / 'tmp' / 'kitchen.xml'
    parameters = {
        'problem_file': str(kitchen), 'moveit_robot': 'helper',
        'touch_links': "['left_finger']", 'grasp.samples': '5',
        'grasp.gripper_frame': 'tool_frame', 'grasp.posture_time': '1.25',
        'grasp.approach.direction': '[1.0,0.0,0.0]', 'grasp.approach.desired_distance': '0.125',
        'grasp.approach.min_distance': '0.0625', 'grasp.retreat.direction': '[0.0,-2.0,0.5]',
        'grasp.retreat.desired_distance': '0.25', 'grasp.retreat.min_distance': '0.0'}
    args = [ros2(), 'run', 'robot_formats', 'problem_server', '--ros-args']
    for key, value in parameters.items():
        args += ['-p', f'{key}:={value}']
    process, side = launcher.command(args, 'moveit_ros2_run')
    node = side.node
    grasps = node.create_client(GraspPlanning, '/problem_server/plan_grasps')
    scenes = node.create_client(GetPlanningScene, '/problem_server/get_planning_scene')
    attach = node.create_client(AttachObject, '/problem_server/attach')
    problem = read_problem(kitchen, [], strict=False)
    request = GraspPlanning.Request(group_name='hand-over')
    request.target.id = 'glass1'
    answer = side.call(grasps, request, process=process)
    assert answer.error_code.val == MoveItErrorCodes.SUCCESS, answer.error_code.message
    obj = problem.objects['glass1']
    assert len(answer.grasps) == 5 * len(obj.continuous_grasps) + len(obj.grasps)
    for grasp in answer.grasps:
        approach, retreat = grasp.pre_grasp_approach, grasp.post_grasp_retreat
        for move, vector, desired, minimum in ((approach, (1.0, 0.0, 0.0), 0.125, 0.0625),
                                               (retreat, (0.0, -2.0, 0.5), 0.25, 0.0),
                                               (grasp.post_place_retreat, (0.0, -2.0, 0.5),
                                                0.25, 0.0)):
            v = move.direction.vector
            assert move.direction.header.frame_id == 'tool_frame'
            assert (v.x, v.y, v.z) == vector
            assert (move.desired_distance, move.min_distance) == (desired, minimum)
        assert list(grasp.grasp_posture.joint_names) == ['finger_left']
        assert list(grasp.pre_grasp_posture.points[0].positions) == [0.04]  # its upper limit
        assert list(grasp.grasp_posture.points[0].positions) == [0.0]
        duration = grasp.grasp_posture.points[0].time_from_start
        assert (duration.sec, duration.nanosec) == (1, 250_000_000)
    request.group_name = 'pick-left'  # pr2's action: not a group of the helper
    assert side.call(grasps, request, process=process).error_code.val == \
        MoveItErrorCodes.INVALID_GROUP_NAME
    answer = side.call(attach, AttachObject.Request(object='cup1', parent='helper/tool_frame'),
                       process=process)
    assert answer.success, answer.message
    scene = side.call(scenes, GetPlanningScene.Request(), process=process).scene
    assert scene.robot_model_name == 'arm_with_gripper'
    assert scene.robot_state.joint_state.name == \
        ['shoulder_pan', 'shoulder_lift', 'elbow', 'wrist_roll', 'finger_left']
    (cup,) = scene.robot_state.attached_collision_objects
    assert cup.object.id == 'cup1' and cup.link_name == 'tool_frame'
    assert list(cup.touch_links) == ['left_finger']
    assert {co.header.frame_id for co in scene.world.collision_objects} == {'base_link'}


def test_a_moveit_robot_the_problem_lacks_is_refused_and_the_node_keeps_serving(
        launcher, tmp_path) -> None:
    args = ['-m', 'robot_formats.nodes.problem_server', '--ros-args', '-p',
            f'problem_file:={SHARE / "examples" / "tmp" / "pick_and_place.xml"}', '-p',
            'moveit_robot:=nobody']
    process, side = launcher.command(args, 'moveit_no_robot')
    process.wait_for_log("parameter moveit_robot is 'nobody', not a robot of the problem (arm)")
    grasps = side.node.create_client(GraspPlanning, '/problem_server/plan_grasps')
    request = GraspPlanning.Request()
    request.target.id = 'block'
    answer = side.call(grasps, request, process=process)
    assert answer.error_code.val == MoveItErrorCodes.FAILURE
    assert 'no problem is loaded' in answer.error_code.message
    scenes = side.node.create_client(GetPlanningScene, '/problem_server/get_planning_scene')
    empty = side.call(scenes, GetPlanningScene.Request(), process=process).scene
    assert not empty.world.collision_objects and not empty.robot_state.joint_state.name
    assert process.alive()



def test_the_planner_guides_moveit_loop_runs_as_written(launcher, tmp_path) -> None:
    """docs/guide-planner.md's MoveIt planner loop, as written, against the launch it shows;
    afterwards the block is a world object again where it was let go (here: where it was)."""
    guide = (ROOT / 'docs' / 'guide-planner.md').read_text(encoding='utf-8')
    (code,) = [block for block in re.findall(r'```python\n(.*?)```', guide, re.S)
               if 'GraspPlanning' in block]
    script = tmp_path / 'moveit_planner.py'
    script.write_text(code, encoding='utf-8')
    problem = SHARE / 'examples' / 'tmp' / 'pick_and_place.xml'
    run = LaunchRun(launcher, 'problem.launch.py', {'problem_file': str(problem),
                                                    'publish_planning_scene': 'true'},
                    'moveit_guide')
    mirror = MoveItMirror(run.side, 'base_link', lambda link: np.eye(4))
    run.side.spin_until(lambda: mirror.received, what='the first /planning_scene diff',
                        process=run.process)
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env=subprocess_env(run.process.domain_id,
                                                                     tmp_path))
    assert done.returncode == 0, f'{done.stdout}\n{done.stderr}\n{run.process.describe()}'
    assert "'block'" in done.stdout
    run.side.spin_until(lambda: mirror.received >= 3 and not mirror.picture.attached
                        and 'block' in mirror.picture.world,
                        what='the attach and detach diffs', process=run.process)
