"""What a TMP problem means geometrically: grasp sets, stable placements, attachments, the scene.

Written down in docs/tmp.md; in short (X_AB = pose of B in A, 4×4):

* a discrete grasp ``<gf>`` is ``X_object_grasp``; in the world ``X_W_object · X_object_grasp``;
* a continuous grasp ``<gc>`` is the set ``{Rot(axis, θ) · template : θ ∈ [0, 2π)}`` with the
  axis through the object frame's origin, in the object frame; N samples take θ_k = 2πk/N;
* a stable pose of object O on support S is ``Rot(axis, θ) · template`` (world frame) with O's
  centre at ``distance`` along the support region's upward normal from a point p of S's
  SSSP/PSSP: position ``X_W_S · p + distance · n_W``; the samples spread θ evenly over each SOP
  in turn and draw p uniformly (seeded, so answers are reproducible) over the region;
* an attached object keeps its pose relative to its parent (a fixed joint), so it moves with it;
  the parent may be another object or any frame whose world pose is known (a robot link on TF).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

import numpy as np
from lxml import etree

from robot_formats.core.errors import Diagnostic, InvalidValueError, ReferenceError, StructureError
from robot_formats.core.files import is_regular_file
from robot_formats.core.kinematics import KinematicTree
from robot_formats.core.model import (WORLD, Frame, Joint, JointType, Link, Mesh, Model, Scene,
                                      Visual)
from robot_formats.core.rotations import quat_multiply
from robot_formats.core.transforms import (axis_angle, axis_angles, invert, matrix_to_pose,
                                           rotation_to_quat, rotations_to_quats)
from robot_formats.formats.tmp.problem import (ContinuousGrasp, Problem, ProblemObject,
                                               ProblemRobot, StablePose, SupportRegion)
from robot_formats.formats.tmp.reader import parse_problem_element, polygon_normal

if TYPE_CHECKING:
    from robot_formats.formats.spec import LoadContext

__all__ = ['read_element', 'GraspSample', 'GraspSet', 'Placement', 'continuous_grasp_frame',
           'grasp_set', 'grasp_samples', 'grasp_rows', 'pose_rows',
           'support_normal', 'sample_support_points', 'stable_object_pose', 'placements',
           'FrameUnavailable', 'ObjectState', 'ProblemState', 'problem_scene', 'robot_model',
           'robot_base_link', 'pose_document']

MAX_SAMPLES = 100_000


@dataclass(frozen=True, slots=True)
class GraspSample:
    """One grasp: ``gf<i>`` (i-th discrete grasp) or ``gc<j>/<k>`` (k-th sample of the j-th
    continuous set); ``frame`` is 4x4 in the frame it was asked in."""

    id: str
    type: str
    frame: np.ndarray


@dataclass(frozen=True, slots=True)
class Placement:
    """One stable pose ``sop<j>/<i>``: from SOP j, the i-th sample; ``frame`` in the world."""

    id: str
    sop: int
    theta: float
    point: np.ndarray   # the support point, in the world frame
    frame: np.ndarray   # the object's pose in the world frame


def _check_samples(samples: int) -> None:
    if not isinstance(samples, int) or samples < 1 or samples > MAX_SAMPLES:
        raise InvalidValueError(f'samples must be an integer from 1 to {MAX_SAMPLES}, not '
                                f'{samples!r}')


def continuous_grasp_frame(grasp: ContinuousGrasp, theta: float) -> np.ndarray:
    """``Rot(axis, θ) · template`` (object frame)."""
    rotation = np.eye(4)
    rotation[:3, :3] = axis_angle(grasp.axis, theta)
    return rotation @ grasp.template


@dataclass(frozen=True, eq=False)
class GraspSet:
    """The grasps of one question as arrays: ``ids[i]``, ``types[i]`` and ``frames[i]`` (4x4,
    object frame). Read-only, so one set can be shared by every request asking the same."""

    ids: tuple[str, ...]
    types: tuple[str, ...]
    frames: np.ndarray  # (n, 4, 4)
    rows: np.ndarray    # (n, 7): the same poses as x y z qx qy qz qw (w >= 0)


#: Questions with at most this many samples per set are remembered (64 of them, ≤ ~0.5 MB per
#: continuous set each); larger ones are computed every time.
CACHED_SAMPLES = 4096


def grasp_set(obj: ProblemObject, samples: int, grasp_type: str | None = None) -> GraspSet:
    """The discrete grasps plus ``samples`` of each continuous set (θ_k = 2πk/samples), of
    one type or all, in the object frame, with one batched Rodrigues per set. Remembered per
    question (objects are immutable, and planners ask the same questions again and again)."""
    _check_samples(samples)
    if samples <= CACHED_SAMPLES:
        return _remembered_grasp_set(obj, samples, grasp_type)
    return _compute_grasp_set(obj, samples, grasp_type)


@functools.lru_cache(maxsize=64)
def _remembered_grasp_set(obj: ProblemObject, samples: int, grasp_type: str | None
                          ) -> GraspSet:
    return _compute_grasp_set(obj, samples, grasp_type)


def _compute_grasp_set(obj: ProblemObject, samples: int, grasp_type: str | None) -> GraspSet:
    ids: list[str] = []
    types: list[str] = []
    blocks: list[np.ndarray] = []
    discrete = [(i, g) for i, g in enumerate(obj.grasps)
                if grasp_type is None or g.type == grasp_type]
    if discrete:
        ids.extend(f'gf{i}' for i, _ in discrete)
        types.extend(g.type for _, g in discrete)
        blocks.append(np.stack([g.frame for _, g in discrete]))
    thetas = 2.0 * math.pi * np.arange(samples) / samples
    for index, grasp in enumerate(obj.continuous_grasps):
        if grasp_type is not None and grasp.type != grasp_type:
            continue
        turns = np.zeros((samples, 4, 4))
        turns[:, :3, :3] = axis_angles(np.broadcast_to(grasp.axis, (samples, 3)), thetas)
        turns[:, 3, 3] = 1.0
        blocks.append(turns @ grasp.template)
        ids.extend(f'gc{index}/{k}' for k in range(samples))
        types.extend([grasp.type] * samples)
    frames = np.concatenate(blocks) if blocks else np.empty((0, 4, 4))
    rows = pose_rows(frames)
    frames.setflags(write=False)
    rows.setflags(write=False)
    return GraspSet(tuple(ids), tuple(types), frames, rows)


def grasp_rows(found: GraspSet, pose: np.ndarray | None = None) -> np.ndarray:
    """(n, 7) rows ``x y z qx qy qz qw`` of the set's grasps: in the object frame, or
    premultiplied by ``pose`` (X_W_object). One quaternion product per grasp instead of a
    matrix-to-quaternion conversion: the cheap way to move a remembered set."""
    if pose is None:
        return found.rows
    rotation = pose[:3, :3]
    xyz = found.rows[:, :3] @ rotation.T + pose[:3, 3]
    quats = np.stack(quat_multiply(rotation_to_quat(rotation), found.rows[:, 3:].T), axis=1)
    quats[quats[:, 3] < 0] *= -1.0
    return np.concatenate([xyz, quats], axis=1)


def grasp_samples(obj: ProblemObject, samples: int, grasp_type: str | None = None,
                  frame: np.ndarray | None = None) -> list[GraspSample]:
    """The discrete grasps plus ``samples`` of each continuous set, optionally of one type,
    in the object frame (``frame`` = None) or premultiplied by ``frame`` (X_W_object)."""
    found = grasp_set(obj, samples, grasp_type)
    frames = found.frames if frame is None else frame @ found.frames
    return [GraspSample(i, t, f) for i, t, f in zip(found.ids, found.types, frames)]


def pose_rows(frames: np.ndarray) -> np.ndarray:
    """(n, 7) rows ``x y z qx qy qz qw`` (w >= 0) of (n, 4, 4) poses, in one batch."""
    if len(frames) == 0:
        return np.empty((0, 7))
    return np.concatenate([frames[:, :3, 3], rotations_to_quats(frames[:, :3, :3])], axis=1)


def support_normal(region: SupportRegion) -> np.ndarray:
    """The region's upward unit normal in the support frame: +z for points and rectangles; a
    polygon's plane normal, turned to point along +z (or kept if the plane is vertical)."""
    if region.kind != 'polygon' or region.points is None:
        return np.array([0.0, 0.0, 1.0])
    normal = polygon_normal(region.points)
    assert normal is not None  # the reader refuses degenerate polygons
    return -normal if normal[2] < 0 else normal


def sample_support_points(region: SupportRegion, count: int, rng: np.random.Generator
                          ) -> np.ndarray:
    """``count`` points drawn uniformly over the region (support frame), shape (count, 3)."""
    low, high = region.low, region.high
    if region.kind == 'point' and low is not None:
        return np.repeat(low[None, :], count, axis=0)
    if region.kind == 'rectangle' and low is not None and high is not None:
        return low + rng.random((count, 3)) * (high - low)
    assert region.points is not None  # a polygon has its points
    return _sample_polygon(region.points, count, rng)


def _sample_polygon(points: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform points inside a planar (possibly non-convex) polygon, by rejection in its plane."""
    normal = polygon_normal(points)
    assert normal is not None  # the reader refuses degenerate polygons
    u = points[1] - points[0]
    u = u / np.linalg.norm(u)
    v = np.cross(normal, u)
    flat = np.stack([(points - points[0]) @ u, (points - points[0]) @ v], axis=1)
    low, high = flat.min(axis=0), flat.max(axis=0)
    chosen: list[np.ndarray] = []
    found = 0
    for _ in range(10_000):
        candidates = low + rng.random((max(2 * (count - found), 16), 2)) * (high - low)
        inside = candidates[points_in_polygon(candidates, flat)]
        chosen.append(inside[:count - found])
        found += len(chosen[-1])
        if found >= count:
            break
    else:  # pragma: no cover - needs a polygon of ~zero area, which the reader refuses
        raise InvalidValueError('could not sample the polygon (its area is too small)')
    flat_points = np.concatenate(chosen)
    return points[0] + flat_points[:, :1] * u + flat_points[:, 1:] * v


def points_in_polygon(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Even-odd rule, vectorised over the points (2-D)."""
    x, y = points[:, 0:1], points[:, 1:2]
    x1, y1 = polygon[:, 0], polygon[:, 1]
    x2, y2 = np.roll(x1, -1), np.roll(y1, -1)
    crosses = (y1 > y) != (y2 > y)
    with np.errstate(divide='ignore', invalid='ignore'):
        at = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
    return np.count_nonzero(crosses & (x < at), axis=1) % 2 == 1


def stable_object_pose(sop: StablePose, theta: float, point_world: np.ndarray,
                       normal_world: np.ndarray) -> np.ndarray:
    """``Rot(axis, θ) · template`` at ``point + distance · normal`` (world frame)."""
    pose = np.eye(4)
    pose[:3, :3] = axis_angle(sop.axis, theta) @ sop.template
    pose[:3, 3] = point_world + sop.distance * normal_world
    return pose


def placements(obj: ProblemObject, support: ProblemObject, support_pose: np.ndarray,
               samples: int, seed: int = 0) -> list[Placement]:
    """``samples`` stable poses of ``obj`` on ``support`` (whose world pose is given)."""
    _check_samples(samples)
    if not obj.stable_poses:
        raise InvalidValueError(f'object {obj.name!r} has no stable poses (<sop>)')
    if support.support is None:
        raise InvalidValueError(f'object {support.name!r} has no support region (<sssp> or '
                                '<pssp>)')
    if obj.name == support.name:
        raise InvalidValueError(f'object {obj.name!r} cannot be placed on itself')
    rng = np.random.default_rng(seed)
    local_points = sample_support_points(support.support, samples, rng)
    world_points = local_points @ support_pose[:3, :3].T + support_pose[:3, 3]
    normal = support_pose[:3, :3] @ support_normal(support.support)
    count = len(obj.stable_poses)
    per_sop = -(-samples // count)
    index = np.arange(samples)
    sop_of, step_of = index % count, index // count
    thetas = 2.0 * math.pi * step_of / per_sop
    frames = np.zeros((samples, 4, 4))
    frames[:, 3, 3] = 1.0
    for j, sop in enumerate(obj.stable_poses):  # stable_object_pose, one batch per SOP
        rows = sop_of == j
        turns = axis_angles(np.broadcast_to(sop.axis, (int(rows.sum()), 3)), thetas[rows])
        frames[rows, :3, :3] = turns @ sop.template
        frames[rows, :3, 3] = world_points[rows] + sop.distance * normal
    return [Placement(f'sop{j}/{step}', j, theta, point, frame) for j, step, theta, point, frame
            in zip(sop_of.tolist(), step_of.tolist(), thetas.tolist(), world_points, frames)]


def pose_document(matrix: np.ndarray) -> dict:
    """``{"xyz": [...], "quat": [x, y, z, w]}`` of a 4x4 pose (the CLI's JSON convention)."""
    return {'xyz': [_clean(v) for v in matrix[:3, 3]],
            'quat': [_clean(v) for v in rotation_to_quat(matrix[:3, :3])]}


def _clean(value: float) -> float:
    value = float(value)
    return 0.0 if abs(value) < 1e-15 else value


class FrameUnavailable(ReferenceError):
    """A frame that is neither an object nor a frame whose world pose is known now (a robot
    link not on TF yet, a misspelt frame)."""

    code = 'TMP_FRAME_UNAVAILABLE'


@dataclass(frozen=True, slots=True)
class ObjectState:
    """One object as it is now: its parent, its fixed pose in the parent, and its world pose
    (None when the parent frame's pose is unknown now)."""

    name: str
    moveable: bool
    parent: str
    local: np.ndarray
    world: np.ndarray | None
    attached: tuple[str, ...]
    unknown_reason: str = ''


class ProblemState:
    """The attachments and object poses while a plan executes (attach, detach, reset).

    Each object stores its pose relative to its parent: ``world``, another object, or another
    frame — a robot link such as ``arm/tool_frame``, or any frame of a TF tree. World poses are
    compositions, so an attached object moves with whatever carries it: a frame's world pose
    comes from ``frame_pose(name)`` (problem_server reads it from TF; it raises
    :class:`FrameUnavailable` for a frame it does not know) or from the fixed ``extra_frames``.
    Attaching and detaching keep the object where it is in the world at that moment: the pose
    relative to the new parent (for a gripper frame: the grasp) is fixed then.

    Refusals raise a FormatError subclass with a sentence and change nothing: an unknown object;
    attaching an object that is not moveable (it can still carry others); attaching to
    ``world`` (detach does that), to itself, to a frame whose world pose is unknown, or to an
    object it carries (a cycle). ``version`` counts the changes (attach, detach, reset).
    """

    def __init__(self, problem: Problem, extra_frames: Mapping[str, np.ndarray] | None = None,
                 frame_pose: Callable[[str], np.ndarray] | None = None) -> None:
        self.problem = problem
        self.extra_frames = dict(extra_frames or {})  #: fixed frames (robot links) in the world
        self.frame_pose = frame_pose
        self.version = 0
        self.reset()

    def reset(self) -> None:
        """Back to the file's initial attachments and poses."""
        self.parents: dict[str, str] = {name: WORLD for name in self.problem.objects}
        self.parents.update(self.problem.parent_of())
        self.local: dict[str, np.ndarray] = {}
        for name, obj in self.problem.objects.items():
            parent = self.parents[name]
            parent_pose = np.eye(4) if parent == WORLD else self.problem.objects[parent].pose
            self.local[name] = invert(parent_pose) @ obj.pose
        self.version += 1

    def object(self, name: str) -> ProblemObject:
        found = self.problem.objects.get(name)
        if found is None:
            known = ', '.join(self.problem.objects) or 'none'
            raise ReferenceError(f'no object named {name!r} (objects: {known})')
        return found

    def world_pose(self, name: str) -> np.ndarray:
        """X_W_name of an object, another frame (``frame_pose`` / ``extra_frames``) or the
        world. Raises FrameUnavailable when a frame on the way is unknown now. The objects
        carrying ``name`` are walked in a loop (a chain of 10,000 is no recursion)."""
        carried = []
        while name in self.problem.objects:
            carried.append(name)
            name = self.parents[name]
        pose = self._frame_pose(name)
        for item in reversed(carried):
            pose = pose @ self.local[item]
        return pose

    def _frame_pose(self, name: str) -> np.ndarray:
        """X_W_name of a frame that is not an object: the world, a fixed extra frame, or one
        ``frame_pose`` knows."""
        if name == WORLD:
            return np.eye(4)
        if name in self.extra_frames:
            return self.extra_frames[name]
        if self.frame_pose is not None:
            return self.frame_pose(name)
        known = ', '.join(self.problem.objects) or 'none'
        raise FrameUnavailable(f'no object or robot frame named {name!r} (objects: {known})')

    def attach(self, child: str, parent: str) -> None:
        """Fix ``child`` to ``parent`` (an object or another frame) where it is now."""
        obj = self.object(child)
        if not obj.moveable:
            raise StructureError(f'cannot attach {child!r}: it is not moveable '
                                 '(<moveable>false</moveable> in the problem); it can carry '
                                 'moveable objects, but nothing can carry it',
                                 code='TMP_NOT_MOVEABLE')
        if parent == WORLD:
            raise StructureError(f'cannot attach {child!r} to {WORLD!r}: use detach to put an '
                                 'object back in the world frame', code='TMP_ATTACH_TO_WORLD')
        try:
            parent_world = self.world_pose(parent)
        except FrameUnavailable as err:
            raise FrameUnavailable(f'cannot attach {child!r} to {parent!r}: {err.message}'
                                   ) from None
        node = parent
        while node in self.parents:
            if node == child:
                raise StructureError(f'attaching {child!r} to {parent!r} would make a cycle '
                                     f'({parent!r} is carried by {child!r})'
                                     if parent != child else
                                     f'cannot attach {child!r} to itself (a cycle)',
                                     code='TMP_ATTACHMENT_CYCLE')
            node = self.parents[node]
        try:
            world = self.world_pose(child)
        except FrameUnavailable as err:
            raise FrameUnavailable(f'cannot attach {child!r}: where it is now is unknown '
                                   f'({err.message})') from None
        self.parents[child] = parent
        self.local[child] = invert(parent_world) @ world
        self.version += 1

    def detach(self, child: str) -> None:
        """Free ``child`` from its parent; it stays where it is now (parent becomes the world).
        An object already in the world frame stays as it is."""
        self.object(child)
        try:
            world = self.world_pose(child)
        except FrameUnavailable as err:
            raise FrameUnavailable(f'cannot detach {child!r}: where it is now is unknown '
                                   f'({err.message})') from None
        self.parents[child] = WORLD
        self.local[child] = world
        self.version += 1

    def children_of(self, parent: str) -> list[str]:
        return [name for name, p in self.parents.items() if p == parent]

    def snapshot(self) -> list[ObjectState]:
        """Every object as it is now, in the problem's order (each frame resolved once, each
        chain of carriers walked once: linear in the objects)."""
        frames: dict[str, np.ndarray | FrameUnavailable] = {}
        children: dict[str, list[str]] = {}
        for name, parent in self.parents.items():
            children.setdefault(parent, []).append(name)
        out = []
        for name, obj in self.problem.objects.items():
            found = self._resolved(name, frames)
            pose, reason = ((None, found.message) if isinstance(found, FrameUnavailable)
                            else (found, ''))
            out.append(ObjectState(name, obj.moveable, self.parents[name], self.local[name],
                                   pose, tuple(children.get(name, ())), reason))
        return out

    def _resolved(self, name: str, frames: dict[str, np.ndarray | FrameUnavailable]
                  ) -> np.ndarray | FrameUnavailable:
        """X_W_name of an object, or why it is unknown, from and into ``frames`` (the poses
        resolved so far): up the carriers to a resolved one, then down."""
        carried = []
        while name not in frames and name in self.problem.objects:
            carried.append(name)
            name = self.parents[name]
        found = frames.get(name)
        if found is None:
            try:
                found = self._frame_pose(name)
            except FrameUnavailable as err:
                found = err
            frames[name] = found
        for item in reversed(carried):
            if not isinstance(found, FrameUnavailable):
                found = found @ self.local[item]
            frames[item] = found
        return found

    def edges(self) -> Iterable[tuple[str, str, np.ndarray]]:
        """(parent, child, X_parent_child) of every object, parents before children: in
        passes over the problem's order, each giving the objects whose carrier an earlier
        object gave (the pass of each computed once, then sorted: not a pass per level)."""
        objects = self.problem.objects
        position = {name: index for index, name in enumerate(objects)}
        passes: dict[str, int] = {}
        for name in objects:
            chain = []
            while name in objects and name not in passes:
                chain.append(name)
                name = self.parents[name]
            for item in reversed(chain):  # carriers first
                parent = self.parents[item]
                passes[item] = (0 if parent not in objects else
                                passes[parent] + (position[parent] > position[item]))
        for name in sorted(objects, key=lambda n: (passes[n], position[n])):
            yield self.parents[name], name, self.local[name]


# --- the problem as a robot_formats Scene ------------------------------------------------------

def robot_model(robot: ProblemRobot) -> Model:
    """The robot's description as one model placed at its base pose, configured by the
    problem's configuration tags. A description whose root is the world (an SDFormat or SKEL
    world, or a URDF/HRDF model with a ``world`` link) gets a ``base`` link standing for that
    world frame: the scene has one world, so the robot's own ``world`` link cannot stay."""
    tree = robot.tree
    assert isinstance(tree, KinematicTree)  # problems read with their robots
    positions = {**tree.initial_positions, **robot.joint_positions}
    links = [link if link.name == name else replace(link, name=name)
             for name, link in tree.links.items() if name != WORLD]
    joints = list(tree.joints.values())
    frames = list(tree.frames.values())
    if tree.root == WORLD:
        base = robot_base_link(tree)
        links.insert(0, Link(base))
        joints = [_reparent(j, base) for j in joints]
        frames = [Frame(f.name, base if f.attached_to == WORLD else f.attached_to, f.pose, f.line)
                  for f in frames]
        for name, edge in tree.edges.items():
            if edge.kind == 'model':
                joints.append(Joint(_free_name(f'{name}_placement', tree.joints.keys()),
                                    JointType.FIXED, base, name, matrix_to_pose(edge.origin)))
    return Model(robot.name, tuple(links), tuple(joints), tuple(frames),
                 matrix_to_pose(robot.basepose), initial_positions=positions,
                 source=robot.description_path)


def robot_base_link(tree: KinematicTree) -> str:
    """The robot's link placed at its base pose: its root link, or ``base`` for worlds."""
    if tree.root != WORLD:
        return tree.root
    return _free_name('base', tree.links.keys() | tree.frames.keys())


def _reparent(joint: Joint, base: str) -> Joint:
    if joint.parent != WORLD:
        return joint
    return replace(joint, parent=base)


def _free_name(wanted: str, taken) -> str:
    name, index = wanted, 0
    while name in taken:
        index += 1
        name = f'{wanted}_{index}'
    return name


def read_element(path: Path, root: etree._Element, warnings: list[Diagnostic],
                 context: LoadContext) -> Scene:
    """The registry's reader of TMP problems (``FormatSpec.reader``): the problem
    (:func:`~robot_formats.formats.tmp.reader.parse_problem_element`, its robots loaded through
    the context) as a scene (:func:`problem_scene`)."""
    return problem_scene(parse_problem_element(root, path, warnings,
                                               load_description=context.load_nested))


def problem_scene(problem: Problem) -> Scene:
    """The problem as a world scene: each object a link named like the object, fixed to the
    world (or to the object carrying it) at its initial pose; each robot a model named like
    the robot (its frames ``robot::link``) placed at its base pose."""
    links, joints = [], []
    parents = problem.parent_of()
    for obj in problem.objects.values():
        visuals: tuple[Visual, ...] = ()
        if obj.mesh_path and is_regular_file(obj.mesh_path):
            visuals = (Visual(Mesh(Path(obj.mesh_path).as_uri()), name=obj.name),)
        links.append(Link(obj.name, visuals=visuals, line=obj.line))
        parent = parents.get(obj.name, WORLD)
        parent_pose = np.eye(4) if parent == WORLD else problem.objects[parent].pose
        joints.append(Joint(f'{obj.name}_attachment', JointType.FIXED, parent, obj.name,
                            matrix_to_pose(invert(parent_pose) @ obj.pose), line=obj.line))
    models = [Model('', tuple(links), tuple(joints), source=problem.path)]
    models.extend(robot_model(r) for r in problem.robots.values() if r.tree is not None)
    return Scene(Path(problem.path).stem, tuple(models), is_world=True, source=problem.path)
