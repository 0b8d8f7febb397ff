"""A TMP problem as MoveIt sees a planning scene, and its grasps as MoveIt grasps: plain data.

MoveIt plans against one robot model (move_group's), whose frames are the description's bare
link names; everything else is a collision object in the world or attached to one of its
links. This module turns the problem's state (:class:`~robot_formats.formats.tmp.semantics.
ProblemState`'s snapshot) into that picture, and the difference between two pictures into the
operations of a ``moveit_msgs/PlanningScene`` diff. problem_server only turns the result into
moveit_msgs (docs/guide-planner.md, "With MoveIt"). No ROS here.

* **Frames.** World objects are posed in the *planning frame*: the MoveIt robot's root link
  (its URDF's root, which a fixed SRDF virtual joint keeps at the origin of MoveIt's model
  frame), so a pose is ``X_root_object = basepose⁻¹ · X_W_object``. An object carried, directly
  or through other objects, by a link of the MoveIt robot is attached to that link with its
  pose in the link (the product of the attachments' fixed poses: no forward kinematics).
* **Shapes.** TMP geometry is a mesh file. A mesh that is exactly an axis-aligned box (its
  vertices the 8 corners, its triangles closing the 6 faces) becomes a BOX primitive; any other
  stays a mesh, as read by :mod:`robot_formats.core.meshes` (an OBJ cylinder or sphere is a
  faceted solid, and a primitive would change it). An object without a readable mesh has no
  shape, and MoveIt holds no object without one: it is left out.
* **Support regions** are collision objects ``<object>/support`` (:func:`support_id`) beside
  their object, posed like it: a point or rectangle ``<sssp>`` a BOX spanning its bounds (a
  flat one has zero height, a point zero width and depth), a ``<pssp>`` polygon a flat mesh
  (ear clipping, so non-convex polygons are exact).
* **Hands.** Each AMmapping action moving the MoveIt robot is a planning group with a hand:
  its gripper frame is the deepest link the action's arm joints move; its gripper joints
  (:func:`~robot_formats.formats.tmp.mapping.is_gripper_joint`), with the joints that mimic
  them, open at their upper limits and close at their lower ones, and their child links and
  everything below are the touch links of an object attached at or below the link the gripper
  joints hang from (the palm).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from robot_formats.core.errors import InvalidValueError
from robot_formats.core.kinematics import KinematicTree
from robot_formats.core.meshes import MeshError, read_mesh
from robot_formats.core.transforms import invert
from robot_formats.formats.tmp.mapping import is_gripper_joint
from robot_formats.formats.tmp.problem import Problem, ProblemObject, SupportRegion
from robot_formats.formats.tmp.reader import polygon_normal
from robot_formats.formats.tmp.semantics import ObjectState

__all__ = ['Shape', 'MoveItRobot', 'Hand', 'SceneEntry', 'SceneDiff', 'GripperMove',
           'support_id', 'object_shapes', 'support_shapes', 'triangulate_polygon',
           'hands_of', 'touch_links', 'scene_entries', 'scene_diff', 'gripper_move',
           'SUPPORT_SUFFIX']

#: A support region's collision object is named ``<object>`` + this.
SUPPORT_SUFFIX = '/support'
#: Relative tolerance of the box test's face areas (the corners themselves must be exact).
_AREA_TOLERANCE = 1e-9


def support_id(name: str) -> str:
    """The collision object id of ``name``'s support region."""
    return name + SUPPORT_SUFFIX


@dataclass(frozen=True, eq=False)
class Shape:
    """One shape of a collision object, posed in the object's frame (``pose``, 4x4).

    ``kind`` ``box``: ``size`` (x, y, z), centred on ``pose``; ``mesh``: ``vertices`` (n, 3)
    and ``triangles`` (m, 3) vertex indices."""

    kind: str
    pose: np.ndarray
    size: tuple[float, float, float] = (0.0, 0.0, 0.0)
    vertices: np.ndarray | None = None
    triangles: np.ndarray | None = None


def _at(position: np.ndarray) -> np.ndarray:
    pose = np.eye(4)
    pose[:3, 3] = position
    return pose


def _box_shape(low: np.ndarray, high: np.ndarray) -> Shape:
    x, y, z = (float(v) for v in high - low)
    return Shape('box', _at((low + high) / 2.0), (x, y, z))


def object_shapes(obj: ProblemObject) -> tuple[Shape, ...]:
    """The object's geometry: () when it has no readable mesh."""
    if not obj.mesh_path:
        return ()
    try:
        vertices, triangles = _read_mesh(obj.mesh_path)
    except MeshError:
        return ()
    box = _box_bounds(vertices, triangles)
    if box is not None:
        return (_box_shape(*box),)
    return (Shape('mesh', np.eye(4), vertices=vertices, triangles=triangles),)


@functools.lru_cache(maxsize=64)
def _read_mesh(path: str) -> tuple[np.ndarray, np.ndarray]:
    """A mesh file's arrays, read once per path per process (problems share meshes)."""
    vertices, triangles = read_mesh(path)
    vertices.setflags(write=False)
    triangles.setflags(write=False)
    return vertices, triangles


def _box_bounds(vertices: np.ndarray, triangles: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """(low, high) when the mesh is exactly the surface of an axis-aligned box: every vertex a
    corner (exact coordinates), every triangle with area in a face, the faces' areas those of
    the box (1e-9 relative), and every edge shared by two triangles (closed: no face covered
    twice by halves that leave a hole)."""
    low, high = vertices.min(axis=0), vertices.max(axis=0)
    size = high - low
    if np.any(size <= 0.0):
        return None
    at_high = vertices == high
    if not np.all(at_high | (vertices == low)):
        return None
    corner = at_high @ np.array([1, 2, 4])  # which of the 8 corners each vertex is
    if len(set(corner.tolist())) != 8:
        return None
    corners = corner[triangles]  # (m, 3)
    points = vertices[triangles]
    areas = 0.5 * np.linalg.norm(np.cross(points[:, 1] - points[:, 0],
                                          points[:, 2] - points[:, 0]), axis=1)
    solid = areas > 0.0
    face_area = np.zeros((3, 2))
    edges: dict[tuple[int, int], int] = {}
    for triangle, corner_ids, area in zip(points[solid], corners[solid], areas[solid]):
        axes = np.flatnonzero((triangle[0] == triangle[1]) & (triangle[1] == triangle[2]))
        if len(axes) != 1:
            return None
        axis = int(axes[0])
        face_area[axis, int(triangle[0, axis] == high[axis])] += area
        for a, b in ((0, 1), (1, 2), (2, 0)):
            key = (min(corner_ids[a], corner_ids[b]), max(corner_ids[a], corner_ids[b]))
            edges[key] = edges.get(key, 0) + 1
    expected = np.array([size[1] * size[2], size[0] * size[2], size[0] * size[1]])
    if np.any(np.abs(face_area - expected[:, None]) > _AREA_TOLERANCE * expected[:, None]):
        return None
    if any(count != 2 for count in edges.values()):
        return None
    return low, high


def support_shapes(region: SupportRegion) -> tuple[Shape, ...]:
    """A support region's shape, in the supporting object's frame."""
    if region.kind == 'polygon':
        assert region.points is not None  # a polygon has its points
        triangles = triangulate_polygon(region.points)
        return (Shape('mesh', np.eye(4), vertices=np.array(region.points, dtype=float),
                      triangles=triangles),)
    assert region.low is not None and region.high is not None  # points and rectangles do
    return (_box_shape(region.low, region.high),)


def triangulate_polygon(points: np.ndarray) -> np.ndarray:
    """(n − 2, 3) vertex indices covering a planar simple polygon (convex or not), by ear
    clipping in its plane. A polygon that crosses itself has no ears at some point: the rest
    is closed as a fan."""
    normal = polygon_normal(points)
    assert normal is not None  # the reader refuses polygons without area
    u = points[1] - points[0]
    u = u / np.linalg.norm(u)
    v = np.cross(normal, u)
    flat = np.stack([(points - points[0]) @ u, (points - points[0]) @ v], axis=1)
    remaining = list(range(len(points)))  # counter-clockwise about the normal (Newell)
    # cross products below this are round-off: a straight corner is no ear
    tolerance = 1e-12 * float(np.ptp(flat, axis=0).max()) ** 2
    out: list[tuple[int, int, int]] = []
    while len(remaining) > 3:
        ear = next((k for k in range(len(remaining))
                    if _is_ear(flat, remaining, k, tolerance)), None)
        if ear is None:
            break
        count = len(remaining)
        out.append((remaining[ear - 1], remaining[ear], remaining[(ear + 1) % count]))
        del remaining[ear]
    out.extend((remaining[0], remaining[k], remaining[k + 1]) for k in range(1, len(remaining) - 1))
    return np.array(out, dtype=np.int64).reshape(-1, 3)


def _is_ear(flat: np.ndarray, remaining: list[int], k: int, tolerance: float) -> bool:
    """Whether corner ``k`` is convex and its triangle holds no other corner (not even on
    its edges)."""
    count = len(remaining)
    corners = (remaining[k - 1], remaining[k], remaining[(k + 1) % count])
    a, b, c = (flat[i] for i in corners)
    if _cross(a, b, c) <= tolerance:  # a reflex or straight corner
        return False
    for index in remaining:
        if index in corners:
            continue
        p = flat[index]
        if min(_cross(a, b, p), _cross(b, c, p), _cross(c, a, p)) >= -tolerance:
            return False
    return True


def _cross(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))


# --- the robot MoveIt plans for, and its hands --------------------------------------------------

@dataclass(frozen=True, eq=False)
class MoveItRobot:
    """The problem's robot that MoveIt's model describes: ``name`` (the problem's, its TF
    prefix), ``model_name`` (its URDF's ``<robot name>``), the URDF tree, and ``basepose``
    (X_W_root)."""

    name: str
    model_name: str
    tree: KinematicTree
    basepose: np.ndarray

    @property
    def root(self) -> str:
        """The planning frame: the URDF's root link."""
        return self.tree.root

    def link_of(self, frame: str) -> str | None:
        """The bare link of a TF frame ``<robot>/<link>`` of this robot, else None."""
        prefix = self.name + '/'
        if not frame.startswith(prefix):
            return None
        link = frame[len(prefix):]
        return link if link == self.tree.root or link in self.tree.edges else None

    def parent_link(self, link: str) -> str | None:
        edge = self.tree.edges.get(link)
        return edge.parent if edge is not None else None

    def depth(self, link: str) -> int:
        """How many joints and fixed edges lie between the root and ``link``."""
        depth, parent = 0, self.parent_link(link)
        while parent is not None:
            depth, parent = depth + 1, self.parent_link(parent)
        return depth

    def below(self, links: Iterable[str]) -> set[str]:
        """``links`` and every link of the tree under them."""
        found = set(links)
        for child in self.tree.order:
            parent = self.parent_link(child)
            if parent in found:
                found.add(child)
        return found


@dataclass(frozen=True)
class Hand:
    """What an AMmapping action moves on the MoveIt robot (see the module doc); an action
    without gripper joints has no posture, palm or touch links, only its gripper frame."""

    action: str
    joints: tuple[str, ...]       #: gripper joints of the action (posture order)
    open: tuple[float, ...]       #: their upper limits
    closed: tuple[float, ...]     #: their lower limits
    palm: str                     #: the link the gripper joints hang from ('' without any)
    links: tuple[str, ...]        #: touch links: the gripper joints' child links and below
    frame: str                    #: the gripper frame: the deepest link the arm joints move


def hands_of(problem: Problem, robot: MoveItRobot) -> dict[str, Hand]:
    """Action name -> its hand, for the actions that move joints of ``robot``."""
    hands = {}
    for action in problem.actions.values():
        joints = [robot.tree.joints[j] for j in action.joints if j in robot.tree.joints]
        if not joints:
            continue
        gripper = [j for j in joints if is_gripper_joint(j.name)]
        names = {j.name for j in gripper}
        moved = [j for j in robot.tree.joints.values()
                 if j.name in names or (j.mimic is not None and j.mimic.joint in names)]
        arm = [j.child for j in joints if j.name not in names]
        hands[action.name] = Hand(
            action.name, tuple(j.name for j in gripper),
            tuple(_limit(j, 'upper', robot) for j in gripper),
            tuple(_limit(j, 'lower', robot) for j in gripper),
            gripper[0].parent if gripper else '',
            tuple(sorted(robot.below(j.child for j in moved))),
            max(arm, key=robot.depth) if arm else gripper[0].parent)
    return hands


def _limit(joint, side: str, robot: MoveItRobot) -> float:
    """A gripper joint's ``lower``/``upper`` limit; its initial position when it has none."""
    value = getattr(joint.limits[0], side) if joint.limits else None
    if value is None:
        return float(robot.tree.initial_positions.get(joint.name, 0.0))
    return float(value)


def touch_links(robot: MoveItRobot, hands: Iterable[Hand], link: str) -> tuple[str, ...]:
    """The links an object attached to ``link`` may touch: the hand whose palm is ``link`` or
    the nearest link above it that is a palm (every hand on that palm); () outside hands."""
    by_palm: dict[str, set[str]] = {}
    for hand in hands:
        if hand.palm:
            by_palm.setdefault(hand.palm, set()).update(hand.links)
    node: str | None = link
    while node is not None:
        if node in by_palm:
            return tuple(sorted(by_palm[node]))
        node = robot.parent_link(node)
    return ()


# --- the scene ----------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class SceneEntry:
    """One collision object: in the world (``link`` '') posed in the planning frame, or
    attached to ``link`` posed in it; ``shapes`` in its own frame."""

    id: str
    link: str
    pose: np.ndarray
    shapes: tuple[Shape, ...]
    touch_links: tuple[str, ...] = ()

    def same_place(self, other: SceneEntry) -> bool:
        return (self.link == other.link and self.touch_links == other.touch_links
                and np.array_equal(self.pose, other.pose))


def scene_entries(snapshot: Sequence[ObjectState], shapes: Mapping[str, tuple[Shape, ...]],
                  robot: MoveItRobot | None, touch: Callable[[str], tuple[str, ...]],
                  last_world: Mapping[str, np.ndarray]) -> dict[str, SceneEntry]:
    """Every collision object now, in problem order (each object, then its support region).

    ``shapes``: collision object id -> shapes (ids without shapes are left out); ``touch``:
    the touch links of an object attached to a link; ``last_world``: the last known world pose
    of objects whose parent frame is not on TF now (those without one are left out)."""
    items = {item.name: item for item in snapshot}
    to_root = invert(robot.basepose) if robot is not None else np.eye(4)
    out: dict[str, SceneEntry] = {}
    for item in snapshot:
        carrier, in_carrier = _carrier(item.name, items, robot)
        if carrier is not None:
            link, pose = carrier, in_carrier
        else:
            world = item.world if item.world is not None else last_world.get(item.name)
            if world is None:
                continue
            link, pose = '', to_root @ world
        for entry_id in (item.name, support_id(item.name)):
            if shapes.get(entry_id):
                out[entry_id] = SceneEntry(entry_id, link, pose, shapes[entry_id],
                                           touch(link) if link else ())
    return out


def _carrier(name: str, items: Mapping[str, ObjectState], robot: MoveItRobot | None
             ) -> tuple[str | None, np.ndarray]:
    """(the robot link carrying ``name`` through its chain of parents, X_link_name), or
    (None, _) when the chain ends elsewhere (the world, another robot, another TF frame)."""
    pose = items[name].local
    parent = items[name].parent
    while parent in items:
        pose = items[parent].local @ pose
        parent = items[parent].parent
    link = robot.link_of(parent) if robot is not None else None
    return link, pose


@dataclass(frozen=True)
class SceneDiff:
    """The operations taking one scene to another, in MoveIt's order of applying a diff
    (attached objects first, then the world): ``attach`` (attached ADD with geometry: it also
    takes the object out of the world), ``detach`` (attached REMOVE: MoveIt puts the body back
    in the world), then ``add`` (world ADD with geometry, replacing any object of that id),
    ``move`` (world MOVE: pose only) and ``remove`` (world REMOVE)."""

    attach: tuple[SceneEntry, ...] = ()
    detach: tuple[str, ...] = ()
    add: tuple[SceneEntry, ...] = ()
    move: tuple[SceneEntry, ...] = ()
    remove: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.attach or self.detach or self.add or self.move or self.remove)


def scene_diff(old: Mapping[str, SceneEntry] | None, new: Mapping[str, SceneEntry]
               ) -> SceneDiff:
    """The diff from ``old`` to ``new``; ``old`` None (what the receiver holds is unknown, e.g.
    a subscriber that just joined): every entry again, world ones after detaching any body of
    that id, so applying it to any scene leaves this one's objects as ``new`` has them."""
    if old is None:
        world = [e for e in new.values() if not e.link]
        return SceneDiff(attach=tuple(e for e in new.values() if e.link),
                         detach=tuple(e.id for e in world), add=tuple(world))
    attach, detach, add, move, remove = [], [], [], [], []
    for entry in new.values():
        before = old.get(entry.id)
        if entry.link:
            if before is None or not before.same_place(entry):
                attach.append(entry)
        elif before is None or before.link:
            if before is not None:
                detach.append(entry.id)
            add.append(entry)
        elif not before.same_place(entry):
            move.append(entry)
    for entry in old.values():
        if entry.id not in new:
            if entry.link:
                detach.append(entry.id)
            remove.append(entry.id)
    return SceneDiff(tuple(attach), tuple(detach), tuple(add), tuple(move), tuple(remove))


# --- grasps -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GripperMove:
    """A gripper translation: ``direction`` (in the gripper frame, as given: not normalised),
    ``desired`` and ``minimum`` distances (m)."""

    direction: tuple[float, float, float]
    desired: float
    minimum: float


def gripper_move(name: str, direction: Sequence[float], desired: float, minimum: float
                 ) -> GripperMove:
    """A checked :class:`GripperMove`; InvalidValueError naming ``name`` (the parameters'
    prefix) for a direction that is not 3 finite numbers with a length, or distances that are
    not finite, negative, or a minimum above the desired distance."""
    values = [float(v) for v in direction]
    if len(values) != 3 or not all(math.isfinite(v) for v in values) or \
            math.hypot(*values) == 0.0:
        raise InvalidValueError(f'{name}.direction must be 3 finite numbers, not all zero; '
                                f'got {values}')
    if not (math.isfinite(desired) and math.isfinite(minimum)) or minimum < 0.0 \
            or minimum > desired:
        raise InvalidValueError(f'{name}: the distances must be finite with 0 <= min_distance '
                                f'<= desired_distance; got desired {desired}, min {minimum}')
    return GripperMove((values[0], values[1], values[2]), float(desired), float(minimum))
