"""problem_server's MoveIt view: the plain scene and grasps of
:mod:`robot_formats.runtime.moveit_scene` as moveit_msgs, and the parameters that shape them.

problem_server wires it: ``~/get_planning_scene`` (moveit_msgs/srv/GetPlanningScene),
``~/plan_grasps`` (moveit_msgs/srv/GraspPlanning) and, with ``publish_planning_scene``, diffs on
``planning_scene`` (docs/guide-planner.md, "With MoveIt").
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from geometry_msgs.msg import Point, Vector3
from moveit_msgs.msg import (AttachedCollisionObject, CollisionObject, GripperTranslation,
                             MoveItErrorCodes, PlanningScene, PlanningSceneComponents)
from moveit_msgs.msg import Grasp as MoveItGrasp
from rcl_interfaces.msg import IntegerRange, ParameterDescriptor
from rclpy.duration import Duration
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from shape_msgs.msg import Mesh, MeshTriangle, SolidPrimitive
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from robot_formats.core.errors import InvalidValueError
from robot_formats.formats.tmp.problem import Problem
from robot_formats.formats.tmp.problem import ProblemObject as CoreObject
from robot_formats.formats.tmp.semantics import MAX_SAMPLES, ObjectState, grasp_set
from robot_formats.nodes.node_support import declare_array
from robot_formats.nodes.pose_messages import pose_msg
from robot_formats.runtime.moveit_scene import (GripperMove, Hand, MoveItRobot, SceneDiff,
                                                SceneEntry, Shape, gripper_move, hands_of,
                                                object_shapes, scene_diff, scene_entries,
                                                support_id, support_shapes, touch_links)

__all__ = ['MoveItSettings', 'MoveItView', 'GraspRefused', 'declare_parameters',
           'read_settings', 'PLANNING_SCENE_QOS', 'PLANNING_SCENE_TOPIC']

#: Where move_group's planning scene monitor reads scene diffs (relative: the node's namespace).
PLANNING_SCENE_TOPIC = 'planning_scene'
#: Reliable and volatile, as move_group subscribes: a subscriber that joins gets the whole
#: scene as one diff when it matches (:meth:`MoveItView.sync`), not a replay of old diffs.
PLANNING_SCENE_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                                durability=DurabilityPolicy.VOLATILE)
_C = PlanningSceneComponents
_JOINTS = _C.ROBOT_STATE | _C.ROBOT_STATE_ATTACHED_OBJECTS


def _read_only(description: str, **kwargs: Any) -> ParameterDescriptor:
    return ParameterDescriptor(description=description, read_only=True, **kwargs)


def declare_parameters(node: Any) -> None:
    """The MoveIt view's parameters (on a node or a ParameterListing)."""
    node.declare_parameter('publish_planning_scene', False, _read_only(
        'Publish every change of the scene (load, reset, attach, detach, a moved object) as a '
        'moveit_msgs/PlanningScene diff on planning_scene, which move_group applies.'))
    node.declare_parameter('moveit_robot', '', _read_only(
        "The problem's robot MoveIt plans for: its joints are the scene's robot state, its "
        "links carry attached objects, its root link is the planning frame ('' = the first "
        'robot of the problem).'))
    declare_array(node, 'touch_links', Parameter.Type.STRING_ARRAY, _read_only(
        "Links an attached object may touch (bare link names); empty: the links of the hand "
        "it is attached to, from the problem's AMmapping gripper joints."))
    node.declare_parameter('grasp.samples', 16, _read_only(
        'Samples of each continuous grasp set in ~/plan_grasps (as get_grasps samples them).',
        integer_range=[IntegerRange(from_value=1, to_value=MAX_SAMPLES, step=1)]))
    node.declare_parameter('grasp.gripper_frame', '', _read_only(
        "The link whose frame is the TMP grasp frame (MoveIt's end-effector parent link), the "
        "frame of the approach and retreat directions ('' = the deepest link the planning "
        "group's AMmapping arm joints move)."))
    node.declare_parameter('grasp.posture_time', 0.5, _read_only(
        'time_from_start (s) of the open and closed gripper postures.'))
    for name, sign in (('approach', 1.0), ('retreat', -1.0)):
        node.declare_parameter(f'grasp.{name}.direction', [0.0, 0.0, sign], _read_only(
            f'Direction of the {name} in the gripper frame (the TMP grasp approaches along '
            'its z).'))
        node.declare_parameter(f'grasp.{name}.desired_distance', 0.1, _read_only(
            f'Desired length (m) of the {name}.'))
        node.declare_parameter(f'grasp.{name}.min_distance', 0.05, _read_only(
            f'Shortest {name} (m) a planner may accept.'))


@dataclass(frozen=True)
class MoveItSettings:
    publish: bool
    robot: str
    touch_links: tuple[str, ...] | None
    samples: int
    gripper_frame: str
    posture_time: float
    approach: GripperMove
    retreat: GripperMove


def read_settings(node: Any) -> MoveItSettings:
    """The declared parameters, checked (InvalidValueError says which is wrong)."""
    value = lambda name: node.get_parameter(name).value  # noqa: E731
    touch = tuple(node.get_parameter('touch_links').value) or None  # empty: the hand's
    posture_time = float(value('grasp.posture_time'))
    if not 0.0 <= posture_time < 2.0 ** 31:
        raise InvalidValueError(f'grasp.posture_time must be a duration of at least 0 s, '
                                f'not {posture_time}')
    moves = {name: gripper_move(f'grasp.{name}', value(f'grasp.{name}.direction'),
                                float(value(f'grasp.{name}.desired_distance')),
                                float(value(f'grasp.{name}.min_distance')))
             for name in ('approach', 'retreat')}
    return MoveItSettings(bool(value('publish_planning_scene')), str(value('moveit_robot')),
                          None if touch is None else tuple(touch), int(value('grasp.samples')),
                          str(value('grasp.gripper_frame')), posture_time,
                          moves['approach'], moves['retreat'])


class GraspRefused(Exception):
    """A ~/plan_grasps request answered with ``error_code`` (a MoveItErrorCodes value)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


@dataclass(frozen=True)
class _ShapeMessages:
    primitives: list
    primitive_poses: list
    meshes: list
    mesh_poses: list


class MoveItView:
    """The problem as MoveIt sees it (one robot: ``settings.robot``, or the problem's first).

    ``views``: problem robot name -> problem_server's RobotView (``description``,
    ``positions``). Raises InvalidValueError for a ``moveit_robot`` the problem does not have.
    """

    def __init__(self, problem: Problem, views: Mapping[str, Any], settings: MoveItSettings,
                 warn: Callable[[str], object]) -> None:
        self.problem, self.settings = problem, settings
        name = settings.robot or next(iter(problem.robots), '')
        if name and name not in views:
            raise InvalidValueError(f'parameter moveit_robot is {name!r}, not a robot of the '
                                    f'problem ({", ".join(problem.robots) or "none"})')
        self.view = views.get(name)
        self.robot: MoveItRobot | None = None
        self.hands: dict[str, Hand] = {}
        if self.view is not None:
            tree = self.view.description.urdf_tree
            self.robot = MoveItRobot(name, tree.scene.name, tree, problem.robots[name].basepose)
            self.hands = hands_of(problem, self.robot)
        self.frame = self.robot.root if self.robot is not None else 'world'
        given = settings.touch_links or ()
        self._touch: Callable[[str], tuple[str, ...]] = (
            (lambda _link: given) if settings.touch_links is not None or self.robot is None
            else functools.partial(touch_links, self.robot, tuple(self.hands.values())))
        self.shapes = self._shapes(problem, warn)
        self._messages = {entry_id: _shape_messages(shapes)
                          for entry_id, shapes in self.shapes.items()}
        #: what the last published diff left a subscriber with (None: nothing published yet)
        self.published: dict[str, SceneEntry] | None = None

    @staticmethod
    def _shapes(problem: Problem, warn: Callable[[str], object]) -> dict[str, tuple[Shape, ...]]:
        shapes: dict[str, tuple[Shape, ...]] = {}
        for obj in problem.objects.values():
            shapes[obj.name] = object_shapes(obj)
            if not shapes[obj.name]:
                warn(f'object {obj.name!r} has no readable mesh, so no shape: MoveIt holds no '
                     'object without one, and it is left out of the planning scene')
            if obj.support is not None:
                shapes[support_id(obj.name)] = support_shapes(obj.support)
        return shapes

    # --- the scene ------------------------------------------------------------------------
    def entries(self, snapshot: Sequence[ObjectState], last_world: Mapping[str, np.ndarray]
                ) -> dict[str, SceneEntry]:
        return scene_entries(snapshot, self.shapes, self.robot, self._touch, last_world)

    def scene(self, components: int, entries: Mapping[str, SceneEntry], stamp) -> PlanningScene:
        """The full scene (is_diff false) with the requested components (0: all)."""
        components = components or 0xFFFFFFFF
        scene = PlanningScene(is_diff=False)
        if components & _C.SCENE_SETTINGS:
            scene.name = Path(self.problem.path).stem
            scene.robot_model_name = self.robot.model_name if self.robot is not None else ''
        if components & _JOINTS and self.view is not None:
            state = scene.robot_state.joint_state
            state.header.stamp = stamp
            state.name = list(self.view.description.dof_names)
            state.position = [float(v) for v in self.view.positions]
        if components & _C.ROBOT_STATE_ATTACHED_OBJECTS:
            scene.robot_state.attached_collision_objects = [
                self._attached(e, CollisionObject.ADD) for e in entries.values() if e.link]
        if components & (_C.WORLD_OBJECT_NAMES | _C.WORLD_OBJECT_GEOMETRY):
            geometry = bool(components & _C.WORLD_OBJECT_GEOMETRY)
            scene.world.collision_objects = [
                self._object(e, CollisionObject.ADD, geometry) if geometry
                else CollisionObject(id=e.id) for e in entries.values() if not e.link]
        return scene

    def diff(self, entries: dict[str, SceneEntry]) -> PlanningScene | None:
        """The diff from what was last published to ``entries`` (None: no change); recorded
        as published."""
        diff = scene_diff(self.published, entries)
        self.published = entries
        return self._diff_message(diff) if diff else None

    def sync(self) -> PlanningScene | None:
        """The whole scene as one diff, for a subscriber that just joined (None before the
        first diff)."""
        if self.published is None:
            return None
        return self._diff_message(scene_diff(None, self.published))

    def _diff_message(self, diff: SceneDiff) -> PlanningScene:
        scene = PlanningScene(is_diff=True)
        scene.robot_state.is_diff = True
        scene.robot_state.attached_collision_objects = [
            *(self._attached(e, CollisionObject.ADD) for e in diff.attach),
            *(AttachedCollisionObject(object=CollisionObject(
                id=i, operation=CollisionObject.REMOVE)) for i in diff.detach)]
        scene.world.collision_objects = [
            *(self._object(e, CollisionObject.ADD, True) for e in diff.add),
            *(self._object(e, CollisionObject.MOVE, False) for e in diff.move),
            *(CollisionObject(id=i, operation=CollisionObject.REMOVE) for i in diff.remove)]
        return scene

    def _object(self, entry: SceneEntry, operation: bytes, geometry: bool) -> CollisionObject:
        msg = CollisionObject(id=entry.id, operation=operation, pose=pose_msg(entry.pose))
        msg.header.frame_id = entry.link or self.frame
        if geometry:
            shapes = self._messages[entry.id]
            msg.primitives = list(shapes.primitives)
            msg.primitive_poses = list(shapes.primitive_poses)
            msg.meshes, msg.mesh_poses = list(shapes.meshes), list(shapes.mesh_poses)
        return msg

    def _attached(self, entry: SceneEntry, operation: bytes) -> AttachedCollisionObject:
        return AttachedCollisionObject(link_name=entry.link,
                                       object=self._object(entry, operation, True),
                                       touch_links=list(entry.touch_links))

    # --- grasps -----------------------------------------------------------------------------
    def grasps(self, obj: CoreObject, group_name: str, stamp) -> list[MoveItGrasp]:
        """Every grasp of ``obj`` (discrete, then each continuous set sampled as get_grasps
        samples it), its pose the TMP grasp in the object's frame."""
        hand = self._hand(group_name)
        frame = self.settings.gripper_frame or (hand.frame if hand is not None else '')
        found = grasp_set(obj, self.settings.samples)
        template = MoveItGrasp(
            pre_grasp_posture=self._posture(hand, 'open'),
            grasp_posture=self._posture(hand, 'closed'),
            pre_grasp_approach=_translation(self.settings.approach, frame, stamp),
            post_grasp_retreat=_translation(self.settings.retreat, frame, stamp),
            post_place_retreat=_translation(self.settings.retreat, frame, stamp))
        out = []
        for grasp_id, row in zip(found.ids, found.rows.tolist()):
            msg = MoveItGrasp(id=grasp_id, pre_grasp_posture=template.pre_grasp_posture,
                              grasp_posture=template.grasp_posture,
                              pre_grasp_approach=template.pre_grasp_approach,
                              post_grasp_retreat=template.post_grasp_retreat,
                              post_place_retreat=template.post_place_retreat)
            msg.grasp_pose.header.frame_id = obj.name
            msg.grasp_pose.header.stamp = stamp
            pose = msg.grasp_pose.pose
            pose.position.x, pose.position.y, pose.position.z = row[:3]
            (pose.orientation.x, pose.orientation.y, pose.orientation.z,
             pose.orientation.w) = row[3:]
            out.append(msg)
        return out

    def _hand(self, group_name: str) -> Hand | None:
        """The hand of the planning group ``group_name`` (an AMmapping action moving the
        MoveIt robot; '' = the first such action, None when there is none)."""
        if not group_name:
            return next(iter(self.hands.values()), None)
        hand = self.hands.get(group_name)
        if hand is None:
            raise GraspRefused(MoveItErrorCodes.INVALID_GROUP_NAME, (
                f'group_name {group_name!r} is not an AMmapping action moving robot '
                f'{self.robot.name if self.robot else "(none)"!r} (actions: '
                f'{", ".join(self.hands) or "none"})'))
        return hand

    def _posture(self, hand: Hand | None, which: str) -> JointTrajectory:
        if hand is None or not hand.joints:
            return JointTrajectory()
        point = JointTrajectoryPoint(
            positions=list(getattr(hand, which)),
            time_from_start=Duration(seconds=self.settings.posture_time).to_msg())
        return JointTrajectory(joint_names=list(hand.joints), points=[point])


def _translation(move: GripperMove, frame: str, stamp) -> GripperTranslation:
    msg = GripperTranslation(desired_distance=move.desired, min_distance=move.minimum)
    msg.direction.header.frame_id = frame
    msg.direction.header.stamp = stamp
    msg.direction.vector = Vector3(x=move.direction[0], y=move.direction[1], z=move.direction[2])
    return msg


def _shape_messages(shapes: Sequence[Shape]) -> _ShapeMessages:
    """A collision object's shapes as shape_msgs, built once per object."""
    out = _ShapeMessages([], [], [], [])
    for shape in shapes:
        if shape.kind == 'box':
            out.primitives.append(SolidPrimitive(type=SolidPrimitive.BOX,
                                                 dimensions=list(shape.size)))
            out.primitive_poses.append(pose_msg(shape.pose))
        else:
            assert shape.vertices is not None and shape.triangles is not None
            out.meshes.append(Mesh(
                vertices=[Point(x=x, y=y, z=z) for x, y, z in shape.vertices.tolist()],
                triangles=[MeshTriangle(vertex_indices=t) for t in shape.triangles.tolist()]))
            out.mesh_poses.append(pose_msg(shape.pose))
    return out

