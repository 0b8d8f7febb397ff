"""Forward kinematics of any scene, for any configuration and any joint kind.

:class:`KinematicTree` flattens a :class:`~robot_formats.core.model.Scene` into one tree of named
frames (links, explicit frames, the world root), with the scoped names the formats use
(``model::link`` in worlds, bare names in URDF). It is built once per loaded document and is
immutable; :meth:`KinematicTree.forward` and :func:`joint_motion` are stateless.

Configurations are mappings from DoF names (:func:`robot_formats.core.model.dof_names`) to values,
or vectors in :attr:`KinematicTree.dof_names` order (the tree's natural order: joints in
document order, each joint's coordinates contiguous).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Mapping, NamedTuple, NoReturn, Sequence

from robot_formats.core.errors import (CycleError, DuplicateNameError, InvalidValueError,
                                       ReferenceError, StructureError)
from robot_formats.core.lazy import numpy_on_first_use
from robot_formats.core.limits import in_range
from robot_formats.core.model import (IDENTITY, WORLD, Frame, Joint, JointType, Link, Mimic, Model,
                                      Pose, Scene, dof_names, scoped)
from robot_formats.core.transforms import (axis_angle, exp_rotvec, normalized,
                                           pose_to_inverse_matrix, pose_to_matrix)

if TYPE_CHECKING:
    import numpy as np
else:
    np = numpy_on_first_use(globals())

__all__ = ['Edge', 'KinematicTree', 'joint_motion', 'scoped']

_ONE_DOF = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC, JointType.SCREW)
#: The kinds a tree's build asks about for every joint (a module constant is read quicker than
#: an Enum member through its class).
_EULER, _SCREW = JointType.EULER, JointType.SCREW
_ROTATION_LETTERS = {'x': (1.0, 0.0, 0.0), 'y': (0.0, 1.0, 0.0), 'z': (0.0, 0.0, 1.0)}


def joint_motion(joint: Joint, q: Sequence[float]) -> np.ndarray:
    """The joint's motion ``M(q)`` (4×4, joint frame at q to joint frame at 0)."""
    kind = joint.type
    out = np.eye(4)
    if kind is JointType.FIXED:
        return out
    if kind in (JointType.REVOLUTE, JointType.CONTINUOUS):
        out[:3, :3] = axis_angle(normalized(joint.axis), q[0])
    elif kind is JointType.PRISMATIC:
        out[:3, 3] = normalized(joint.axis) * q[0]
    elif kind is JointType.SCREW:
        axis = normalized(joint.axis)
        out[:3, :3] = axis_angle(axis, q[0])
        out[:3, 3] = axis * (joint.pitch * q[0] / (2.0 * math.pi))
    elif kind is JointType.UNIVERSAL:
        assert joint.axis2 is not None
        out[:3, :3] = axis_angle(normalized(joint.axis), q[0]) @ axis_angle(
            normalized(joint.axis2), q[1])
    elif kind is JointType.EULER:
        rotation = np.eye(3)
        for letter, angle in zip(joint.axis_order, q):
            rotation = rotation @ axis_angle(_ROTATION_LETTERS[letter], angle)
        out[:3, :3] = rotation
    elif kind is JointType.BALL:
        out[:3, :3] = exp_rotvec(q[:3])
    elif kind is JointType.TRANSLATIONAL:
        out[:3, 3] = q[:3]
    elif kind is JointType.PLANAR:
        t1, t2 = planar_axes(joint)
        out[:3, 3] = q[0] * t1 + q[1] * t2
        out[:3, :3] = axis_angle(np.cross(t1, t2), q[2])
    elif kind is JointType.FLOATING:
        out[:3, :3] = exp_rotvec(q[:3])
        out[:3, 3] = q[3:6]
    else:  # pragma: no cover - every JointType is handled above
        raise AssertionError(kind)
    return out


def planar_axes(joint: Joint) -> tuple[np.ndarray, np.ndarray]:
    """Orthonormal in-plane axes of a planar joint (Gram-Schmidt on axis, axis2)."""
    t1 = normalized(joint.axis)
    a2 = np.asarray(joint.axis2 if joint.axis2 is not None else _default_second_axis(t1))
    t2 = normalized(a2 - (a2 @ t1) * t1)
    return t1, t2


def _default_second_axis(t1: np.ndarray) -> tuple[float, float, float]:
    helper = np.array([0.0, 1.0, 0.0]) if abs(t1[1]) < 0.9 else np.array([0.0, 0.0, 1.0])
    second = helper - (helper @ t1) * t1
    return tuple(second / np.linalg.norm(second))


class Edge(NamedTuple):
    """How ``child`` hangs from ``parent``: through ``joint``, or rigidly.

    ``X_parent_child(q) = X_PJ · M(q) · X_JC``. :attr:`pose` is X_PJ (the joint's origin; for
    an edge without a joint, X_parent_child itself) and :attr:`child_offset` is X_CJ (the joint
    frame in the child, :attr:`Joint.child_offset`; identity without a joint), as the model's
    poses. :attr:`origin` (X_PJ) and :attr:`offset` (X_JC = X_CJ⁻¹) are the same as 4×4 numpy
    matrices, made on each use (a tree keeps its own, see :meth:`KinematicTree.local_transform`;
    building a tree makes no matrix, so a load imports no numpy).
    """

    child: str
    parent: str
    joint: Joint | None
    kind: str = 'link'  #: 'link', 'frame' or 'model' (a model's root link placed in the world)
    pose: Pose = IDENTITY
    child_offset: Pose = IDENTITY

    @property
    def origin(self) -> np.ndarray:
        """X_PJ (joints) or X_parent_child (edges without a joint), 4×4."""
        return pose_to_matrix(self.pose)

    @property
    def offset(self) -> np.ndarray:
        """X_JC = X_CJ⁻¹ (joints) or identity, 4×4."""
        if self.child_offset.is_identity:
            return np.eye(4)
        return pose_to_inverse_matrix(self.child_offset)

    @property
    def moving(self) -> bool:
        return self.joint is not None and self.joint.type is not JointType.FIXED

    def with_joint(self, joint: Joint) -> Edge:
        """The same edge through ``joint``."""
        return self._replace(joint=joint)


class KinematicTree:
    """One tree of named frames built from a scene. Immutable after construction."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.root: str = WORLD if scene.is_world else ''
        #: scene name -> the model's link (in a world its own ``name`` is the one within its
        #: model: ``tree.links['m::base'].name == 'base'``)
        self.links: dict[str, Link] = {}
        self.joints: dict[str, Joint] = {}
        self.frames: dict[str, Frame] = {}
        self.edges: dict[str, Edge] = {}
        self.initial_positions: dict[str, float] = {}
        #: each edge's (origin, offset) matrices, made on first use by local_transform
        self._matrices: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._build(scene)
        self.order: tuple[str, ...] = self._topological_order()
        self.dof_names: tuple[str, ...] = ()
        self.dof_index: dict[str, int] = {}
        self._index_coordinates()
        self._check_mimics()

    # --- construction -----------------------------------------------------------------------
    def _build(self, scene: Scene) -> None:
        if not scene.is_world and len(scene.models) != 1:
            raise StructureError('a document that is not a world holds exactly one model',
                                 scene.source)
        for model in scene.models:
            self._add_model(model, model.name if scene.is_world else '')
        for frame in scene.frames:
            self._add_frame(frame, scene.source)
        for joint in scene.joints:
            self._add_joint(joint, scene.source)
        self._resolve_frames(scene)
        if scene.is_world:
            self._place_model_roots(scene)
        else:
            self.root = self._single_root(scene)

    def _claim(self, name: str, line: int | None, source: str | None) -> None:
        if name in self.links or name in self.frames or (self.root and name == self.root):
            raise DuplicateNameError(f'the name {name!r} is used by more than one link or frame',
                                     source, line)

    def _add_model(self, model: Model, prefix: str) -> None:
        """The model's members, named within the scene (``prefix::name``; bare without a
        prefix): links as they are, frames and joints as scoped copies (their ``scoped``
        methods) when there is a prefix."""
        for link in model.links:
            name = scoped(prefix, link.name)
            self._claim(name, link.line, model.source)
            self.links[name] = link
        for frame in model.frames:
            self._add_frame(frame.scoped(prefix) if prefix else frame, model.source)
        for joint in model.joints:
            self._add_joint(joint.scoped(prefix) if prefix else joint, model.source)
        for dof, value in model.initial_positions.items():
            self.initial_positions[scoped(prefix, dof)] = value

    def _add_frame(self, frame: Frame, source: str | None) -> None:
        self._claim(frame.name, frame.line, source)
        self.frames[frame.name] = frame

    def _add_joint(self, joint: Joint, source: str | None) -> None:
        name, parent, child, links = joint.name, joint.parent, joint.child, self.links
        if name in self.joints:
            raise DuplicateNameError(f'two joints are named {name!r}', source, joint.line)
        if child == WORLD and self.scene.is_world:  # the root has no parent joint
            raise StructureError(f'joint {name!r}: the child cannot be "world", the root '
                                 'of the scene', source, joint.line,
                                 code='JOINT_CHILD_LINK_INVALID')
        if parent not in links or child not in links:  # (else both ends are known links)
            self._check_ends(joint, source)
        if joint.type is _EULER and (
                len(joint.axis_order) != 3 or set(joint.axis_order) - set('xyz')):
            raise InvalidValueError(f'euler joint {name!r} has axis order '
                                    f'{joint.axis_order!r}; expected three of x, y, z',
                                    source, joint.line)
        if parent == child:
            raise StructureError(f'joint {name!r} has the same parent and child {child!r}',
                                 source, joint.line, code='JOINT_PARENT_SAME_AS_CHILD')
        if child in self.edges:
            other = self.edges[child].joint
            raise StructureError(
                f'link {child!r} is the child of two joints ({other.name if other else "?"!r}'
                f' and {name!r}); a kinematic tree gives each link one parent', source, joint.line)
        self.joints[name] = joint
        self.edges[child] = Edge(child, parent, joint, 'link', joint.origin, joint.child_offset)

    def _check_ends(self, joint: Joint, source: str | None) -> None:
        """Each end of ``joint`` is a link, or the root of a world."""
        for end in (joint.parent, joint.child):
            if end not in self.links and not (end == WORLD and self.scene.is_world):
                raise ReferenceError(f'joint {joint.name!r} refers to unknown link {end!r}',
                                     source, joint.line)

    def _resolve_frames(self, scene: Scene) -> None:
        for name, frame in self.frames.items():
            target = frame.attached_to
            known = target in self.links or target in self.frames or (
                target == WORLD and scene.is_world)
            if not known:
                raise ReferenceError(f'frame {name!r} is attached to unknown frame {target!r}',
                                     scene.source, frame.line)
            if target == name:
                raise CycleError(f'frame {name!r} is attached to itself', scene.source,
                                 frame.line, code='FRAME_ATTACHED_TO_CYCLE')
            self.edges[name] = Edge(name, target, None, 'frame', frame.pose)

    def _place_model_roots(self, scene: Scene) -> None:
        for model in scene.models:
            for link in model.links:
                name = scoped(model.name, link.name)
                if name not in self.edges:
                    self.edges[name] = Edge(name, WORLD, None, 'model', model.pose)

    def _single_root(self, scene: Scene) -> str:
        roots = [name for name in self.links if name not in self.edges]
        if not roots:
            # Point at a joint of the loop: the parent joint of the first link.
            first = next(iter(self.links), None)
            joint = self.edges[first].joint if first is not None else None
            raise CycleError('every link has a parent joint, so the joints form a loop',
                             scene.source, joint.line if joint is not None else None)
        if len(roots) > 1:
            shown = ', '.join(repr(r) for r in roots[:5])
            raise StructureError(f'the model has {len(roots)} root links ({shown}); '
                                 'joints must connect every link into one tree', scene.source,
                                 self.links[roots[1]].line)
        return roots[0]

    def _topological_order(self) -> tuple[str, ...]:
        """Every non-root frame, parents before children, otherwise in document order (each
        parent's children in the order of the links, then the frames: stable and readable);
        raises CycleError on loops."""
        edges = self.edges
        # each parent's children, last first: the order in which a depth-first walk stacks
        # them, so that it takes the first one first
        children: dict[str, list[str]] = {}
        for names in (self.frames, self.links):  # every edge is a link's or a frame's
            for name in reversed(names):
                edge = edges.get(name)
                if edge is not None:
                    siblings = children.get(edge.parent)
                    if siblings is None:
                        children[edge.parent] = [name]
                    else:
                        siblings.append(name)
        order: list[str] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            order.append(node)
            below = children.get(node)
            if below:
                stack.extend(below)
        del order[0]  # the root
        if len(order) != len(edges):
            reached = set(order)
            stuck = next(n for n in edges if n not in reached)
            edge = edges[stuck]
            line = edge.joint.line if edge.joint else self.frames[stuck].line
            what = 'joints' if edge.joint else 'frames'
            raise CycleError(f'{stuck!r} is part of a loop of {what} and never reaches '
                             f'{self.root!r}', self.scene.source, line,
                             code='FRAME_ATTACHED_TO_CYCLE' if what == 'frames' else 'CYCLE')
        return tuple(order)

    def _index_coordinates(self) -> None:
        """:attr:`dof_names` and :attr:`dof_index`, in one pass over the joints, and the checks
        of the coordinates' names: no two alike, and no joint named like another joint's
        coordinate. That second check can only find something when a coordinate is not named
        like its own joint (``j/x`` of a multi-DoF joint) or a screw (a mimic one too) names
        its translation (``j/translation``): a 1-DoF joint's coordinate is its own name, and
        joint names are unique; so it runs only then (most models have neither)."""
        names: list[str] = []
        owners: list[Joint] = []  # each coordinate's joint
        renamed = False  # a coordinate not named like its joint, or a screw (mimic too)
        for joint in self.joints.values():
            own = dof_names(joint) if joint.dof_count else ()  # (most joints are fixed)
            if own:
                names += own
                owners += [joint] * len(own)
            if joint.type is _SCREW or (own and own[0] != joint.name):
                renamed = True
        self.dof_names = tuple(names)
        self.dof_index = {name: i for i, name in enumerate(names)}
        if len(self.dof_index) != len(names):
            self._refuse_duplicate_dofs()
        if renamed:
            self._refuse_joint_names_of_coordinates(owners)

    def _refuse_duplicate_dofs(self) -> None:
        seen: dict[str, Joint] = {}
        for joint in self.joints.values():
            for name in dof_names(joint):
                if name in seen:
                    raise DuplicateNameError(
                        f'joints {seen[name].name!r} and {joint.name!r} both have a degree of '
                        f'freedom named {name!r} (a multi-DoF joint j names its coordinates '
                        'j/<axis>); rename one of them', self.scene.source, joint.line)
                seen[name] = joint

    def _refuse_joint_names_of_coordinates(self, owners: list[Joint]) -> None:
        """A joint may not be named like another joint's coordinate (``j/x``, ...) or a screw's
        translation (``j/translation``): in URDF these become joints, in one namespace.
        ``owners``: the joint of each coordinate, in :attr:`dof_names` order."""
        for name, joint in self.joints.items():
            index = self.dof_index.get(name)
            if index is not None and owners[index] is not joint:
                self._refuse_coordinate_name(name, owners[index])
            if joint.type is _SCREW and f'{name}/translation' in self.joints:
                self._refuse_coordinate_name(f'{name}/translation', joint)

    def _refuse_coordinate_name(self, name: str, owner: Joint) -> NoReturn:
        raise DuplicateNameError(
            f'joint {name!r} is named like a coordinate of {owner.type.value} joint '
            f'{owner.name!r}, whose URDF form uses that name; rename it', self.scene.source,
            self.joints[name].line)

    def _check_mimics(self) -> None:
        """Check every mimic and resolve chains to the joint that leads them.

        A joint following a joint that itself follows another (``c`` mimics ``b`` mimics
        ``a``) follows the leader directly, multipliers and offsets composed:
        q_c = m_c·(m_b·q_a + o_b) + o_c. The tree's joints and edges carry the resolved mimic,
        so forward kinematics, TF, the URDF written, MuJoCo and motion checks all see one
        level, as URDF tools expect.
        """
        resolved: dict[str, Joint] = {}
        for name, joint in self.joints.items():
            if joint.mimic is None:
                continue
            if joint.type not in _ONE_DOF:
                raise StructureError(f'{joint.type.value} joint {joint.name!r} cannot mimic '
                                     'another joint; only one-degree-of-freedom joints can',
                                     self.scene.source, joint.line)
            mimic = self._leading_mimic(joint)
            if mimic != joint.mimic:  # a chain: its multipliers multiplied
                in_range((mimic.multiplier, mimic.offset), f'joint {joint.name!r}: the mimic '
                         'multiplier and offset (the chain of mimics followed)',
                         self.scene.source, joint.line)
                resolved[name] = replace(joint, mimic=mimic)
        for name, joint in resolved.items():
            self.joints[name] = joint
            self.edges[joint.child] = self.edges[joint.child].with_joint(joint)

    def _leading_mimic(self, joint: Joint) -> Mimic:
        """``joint``'s mimic expressed in the coordinate of the chain's leading joint."""
        assert joint.mimic is not None
        multiplier, offset = joint.mimic.multiplier, joint.mimic.offset
        chain, target = [joint.name], joint.mimic.joint
        leader = self.joints.get(target)
        while leader is not None and leader.mimic is not None and leader.type in _ONE_DOF:
            if leader.name in chain:
                loop = chain[chain.index(leader.name):] + [leader.name]
                raise StructureError(f'the joints {" -> ".join(repr(n) for n in loop)} mimic '
                                     'each other in a loop', self.scene.source, joint.line,
                                     code='MIMIC_LOOP')
            chain.append(leader.name)
            offset += multiplier * leader.mimic.offset
            multiplier *= leader.mimic.multiplier
            target = leader.mimic.joint
            leader = self.joints.get(target)
        if leader is None or leader.dof_count != 1:
            through = f' (through {", ".join(repr(n) for n in chain[1:])})' if chain[1:] else ''
            raise ReferenceError(f'joint {joint.name!r} mimics {target!r}{through}, which is not '
                                 'a one-degree-of-freedom joint of this model',
                                 self.scene.source, joint.line)
        return Mimic(leader.name, multiplier, offset)

    # --- queries ----------------------------------------------------------------------------
    def frame_names(self) -> tuple[str, ...]:
        """The root, then every frame parents-first."""
        return (self.root, *self.order)

    def positions_vector(self, positions: Mapping[str, float] | None = None) -> np.ndarray:
        """A DoF vector: the initial configuration overridden by ``positions``."""
        q = np.zeros(len(self.dof_names))
        for source in (self.initial_positions, positions or {}):
            for name, value in source.items():
                index = self.dof_index.get(name)
                if index is not None:
                    q[index] = value
        return q

    def joint_values(self, joint: Joint, q: np.ndarray) -> list[float]:
        """The coordinates of ``joint`` in the DoF vector ``q`` (mimic joints follow leaders)."""
        if joint.mimic is not None:
            lead = q[self.dof_index[joint.mimic.joint]]
            return [joint.mimic.multiplier * lead + joint.mimic.offset]
        return [float(q[self.dof_index[name]]) for name in dof_names(joint)]

    def local_transform(self, name: str, q: np.ndarray) -> np.ndarray:
        """X_parent_child of frame ``name`` at configuration ``q``."""
        edge = self.edges[name]
        matrices = self._matrices.get(name)
        if matrices is None:
            matrices = self._matrices[name] = (edge.origin, edge.offset)
        origin, offset = matrices
        if edge.joint is None or edge.joint.type is JointType.FIXED:
            return origin @ offset
        motion = joint_motion(edge.joint, self.joint_values(edge.joint, q))
        return origin @ motion @ offset

    def forward(self, positions: Mapping[str, float] | Sequence[float] | np.ndarray | None = None
                ) -> dict[str, np.ndarray]:
        """Pose of every frame in the root frame (``X_root_frame``), root included."""
        if positions is None or isinstance(positions, Mapping):
            q = self.positions_vector(positions)
        else:
            q = np.asarray(positions, dtype=float)
            if q.shape != (len(self.dof_names),):
                raise ValueError(f'expected {len(self.dof_names)} positions, got {q.size}')
        poses = {self.root: np.eye(4)}
        for name in self.order:
            poses[name] = poses[self.edges[name].parent] @ self.local_transform(name, q)
        return poses

