"""A resolved SDFormat world (or model file) as the neutral
:class:`~robot_formats.core.model.Scene`.

Every SDFormat frame becomes a frame of the scene, named from the world as libsdformat scopes it
(``M``, ``M::L``, ``M::N::L``, ``M::J``, ``W``): links are links, joints are joints (their
frame kept as a frame of the same name, so TF shows it), explicit frames and nested model
frames are frames attached to the link they move with, top-level model frames and world frames
are scene frames. Each top-level model is one neutral model whose members keep their nested
scope (``N::L``); a link no joint moves is fixed where the document puts it (the first one of a
model through ``Model.pose``, the others through a fixed world joint ``M::L/attach``).
"""

from __future__ import annotations

import struct
from dataclasses import replace
from typing import Any

import numpy as np

from robot_formats.core.errors import Diagnostic
from robot_formats.core.limits import MAX_MAGNITUDE, in_range
from robot_formats.core.model import (IDENTITY, WORLD, Collision, Frame, Joint, JointType,
                                      Limits, Link, Model, Pose, Scene, Visual)
from robot_formats.core.ranges import check_ranges
from robot_formats.core.rotations import rotations_to_quats
from robot_formats.core.transforms import invert, matrix_to_pose
from robot_formats.formats.sdformat.dom import (MODEL_FRAME, SdfAxis, SdfJoint, SdfLink, SdfModel,
                                                SdfWorld)
from robot_formats.formats.sdformat.frames import (ModelFrames, WorldFrames, compose,
                                                   resolve_world)

__all__ = ['to_scene']


def _local(model_name: str, scoped: str) -> str:
    """``M::N::L`` -> ``N::L`` inside top-level model ``M``; ``world`` stays."""
    prefix = model_name + '::'
    return scoped[len(prefix):] if scoped.startswith(prefix) else scoped


class _Builder:
    """Builds the scene from the checked frame graphs. Members of a model are computed in the
    model's own frame (X_L_F = X_M_L⁻¹ · X_M_F from the graph's memoized poses): no world pose
    per element and back. World poses are needed only for what hangs from the world (model
    frames, world frames and joints, links no joint moves, frames of link-less static models)."""

    def __init__(self, world: SdfWorld, warnings: list[Diagnostic]) -> None:
        self.world = world
        self.warnings = warnings
        if _has_reposture(world.models):
            # custom models' reposture callbacks receive every frame in the world
            self.graph = resolve_world(world)[0]
        else:
            self.graph = WorldFrames(world)
        self._by_shape: dict[object, _ModelBuild] = {}
        self.poses = _PoseBatch()
        self._world_links: dict[str, int] = {}  # world-scoped link -> its X_W_L in the batch
        self._placed: dict[str, str] = {}  # model -> the root link its pose was made for
        #: a pose made outside the batch (:meth:`place_roots`) is out of range (see
        #: :meth:`scene`)
        self.out_of_range = False

    def scene(self) -> Scene:
        builds = [self.shared_model(m) for m in self.world.models]
        self._by_shape.clear()  # the builds refer to this builder: no cycle left behind
        graph = self.graph
        # the world scope's frames, posed in the same batch: (name, attached, slot, line) each
        frames = [(model.name, *self.world_pose(model.name), graph.models[model.name].model.line)
                  for model in self.world.models]
        frames += [(frame.name, *self.world_pose(frame.name), graph.frames[frame.name].line)
                   for frame in self.world.frames]
        joints = []  # joint, parent, X_PJ slot, child, X_CJ slot of each world joint
        for joint in self.world.joints:
            frames.append((joint.name, *self.world_pose(joint.name),
                           graph.joints[joint.name].line))
            parent = _world_or(graph.link_of(joint.parent)) if joint.parent != WORLD else WORLD
            joints.append((joint, *self.world_pose(joint.name, parent),
                           *self.world_pose(joint.name)))
        poses = self.poses.solve()  # every pose of the scene, in one batch
        models = [build.result(poses) for build in builds]
        del builds
        scene_frames = [Frame(name, attached, poses[slot], line)
                        for name, attached, slot, line in frames]
        scene_joints = [self.joint(joint, joint.name, parent, child, poses[x_pj], poses[x_cj],
                                   graph, joint.name, joint.name)
                        for joint, parent, x_pj, child, x_cj in joints]
        models, scene_joints = self.break_loops(models, scene_joints)
        children = {j.child for j in scene_joints}
        models = [self.place_roots(m, children, scene_joints) for m in models]
        physics = {'gravity': self.world.gravity} if self.world.gravity is not None else {}
        scene = Scene(self.world.name, tuple(models), tuple(scene_frames), tuple(scene_joints),
                      is_world=True, physics=physics, source=self.world.file)
        if self.poses.out_of_range or self.out_of_range:
            # a composed pose no model may hold: refused by the rule itself, which names the
            # member and line that hold it (the reader checked what it read)
            check_ranges(scene)
        return scene

    def world_pose(self, name: str, link: str | None = None) -> tuple[str, int]:
        """(link, batch slot of X_L_F): the frame ``name`` of the world scope (a model frame, a
        world frame or joint) relative to ``link``, a world-scoped link or ``world`` (default:
        the link the frame is attached to)."""
        graph = self.graph
        if link is None:
            link = _world_or(graph.link_of(name))
        if link == WORLD:
            return link, self.poses.add(graph.pose(name))
        index = self._world_links.get(link)
        if index is None:
            index = self._world_links[link] = self.poses.add_link(graph.pose(link))
        return link, self.poses.add(graph.pose(name), index)

    # --- one top-level model -------------------------------------------------------------
    def shared_model(self, sdf: SdfModel) -> _ModelBuild:
        """``model(sdf)``, built once for copies of one included file (same ``shape``): their
        members are the same relative to the model, only the name differs. Not shared when a
        member is posed in the world (a joint to ``world``, a frame fixed to the world) or the
        first build warned (each copy then warns with its own names)."""
        if sdf.shape is None:
            return self.model(sdf)
        first = self._by_shape.get(sdf.shape)
        if first is not None:
            return first.copy(sdf)
        warned = len(self.warnings)
        build = self.model(sdf)
        if len(self.warnings) == warned and not build.world_posed:
            self._by_shape[sdf.shape] = build
        return build

    def model(self, sdf: SdfModel) -> _ModelBuild:
        build = _ModelBuild(self, sdf)
        build.scope(self.graph.models[sdf.name], '', None)
        build.root = self.root_pose(sdf, build.root_link())
        return build

    def shape_origins(self, owner: ModelFrames, sdf: SdfLink) -> tuple[int, ...]:
        """The batch slots of the origins of the visuals and collisions of ``sdf``, a link of
        ``owner``'s model, in the link frame (see :func:`_link`)."""
        slots = []
        for shape in sdf.shapes:
            matrix = shape.pose.matrix
            if shape.pose.relative_to:
                target = owner.pose(shape.pose.relative_to) if shape.pose.relative_to != \
                    MODEL_FRAME else np.eye(4)
                matrix = invert(owner.pose(sdf.name)) @ target @ matrix
            slots.append(self.poses.add(matrix))
        return tuple(slots)

    def axes(self, joint: SdfJoint, owner, local: str, scoped: str) -> tuple:
        """(axis, axis2, limits, dynamics) of the neutral joint: axes in the joint frame;
        ``local``: the joint's name in ``owner``, the scope its axes' ``expressed_in`` names
        frames of; ``scoped``: its name in the world (for warnings)."""
        axis = _axis_in_joint(joint.axis, owner, scoped, local, self.warnings)
        axis2 = _axis_in_joint(joint.axis2, owner, scoped, local, self.warnings)
        first, second = joint.axis, joint.axis2
        limits = tuple(a.limits or _NO_LIMITS for a in (first, second)
                       if a is not None)[:_dofs(joint.type)]
        if all(lim == _NO_LIMITS for lim in limits):
            limits = ()  # no limit given: all unlimited
        dynamics = joint.axis.dynamics if joint.axis is not None else None
        return axis if axis is not None else (0.0, 0.0, 1.0), axis2, limits, dynamics

    def joint(self, joint: SdfJoint, name: str, parent: str, child: str, x_pj: Pose,
              x_cj: Pose, owner, local: str, scoped: str) -> Joint:
        """The neutral joint: ``name``, ``parent`` and ``child`` as the model (or the world)
        names them, its frame in the parent and child links (see :meth:`axes`)."""
        axis, axis2, limits, dynamics = self.axes(joint, owner, local, scoped)
        return Joint(name, joint.type, parent, child, x_pj, axis, axis2, x_cj, limits,
                     dynamics, joint.mimic, joint.axis_order, joint.pitch, joint.line)

    def break_loops(self, models: list[Model], world_joints: list[Joint]
                    ) -> tuple[list[Model], list[Joint]]:
        """SDFormat allows kinematic loops; the neutral model is a tree. A joint whose child
        already has a parent, or is an ancestor of its parent, closes a loop: it is left out of
        the tree (its frame stays, attached to its child link), with a warning."""
        parent_of: dict[str, str] = {}

        def keep(joint: Joint, prefix: str) -> bool:
            child, parent = _scoped(prefix, joint.child), _scoped(prefix, joint.parent)
            ancestor = parent
            while ancestor in parent_of and ancestor != child:
                ancestor = parent_of[ancestor]
            if child in parent_of or ancestor == child:
                self.warnings.append(Diagnostic(
                    f'joint {_scoped(prefix, joint.name)!r} closes a kinematic loop; it is '
                    'left out of the kinematic tree (its frame is kept)', self.world.file,
                    joint.line, 'KINEMATIC_LOOP'))
                return False
            parent_of[child] = parent
            return True

        out = []
        for model in models:
            kept = tuple(j for j in model.joints if keep(j, model.name))
            out.append(model if len(kept) == len(model.joints) else replace(model, joints=kept))
        return out, [j for j in world_joints if keep(j, '')]

    def place_roots(self, model: Model, world_children: set[str], extra: list[Joint]) -> Model:
        """Fix every link no joint moves where the document puts it."""
        moved = {j.child for j in model.joints} | {
            _local(model.name, c) for c in world_children if c.startswith(model.name + '::')}
        roots = [link.name for link in model.links if link.name not in moved]
        if not roots:
            return model
        for name in roots[1:]:
            scoped = f'{model.name}::{name}'
            extra.append(Joint(f'{scoped}/attach', JointType.FIXED, WORLD, scoped,
                               matrix_to_pose(self._checked(self.graph.pose(scoped)))))
        if self._placed.get(model.name) == roots[0]:
            return model  # made with this root's pose (_ModelBuild.result)
        return replace(model, pose=matrix_to_pose(
            self._checked(self.graph.pose(f'{model.name}::{roots[0]}'))))

    def _checked(self, matrix: np.ndarray) -> np.ndarray:
        """``matrix``, noting whether the pose made of it is out of range (see
        :meth:`scene`)."""
        if _out_of_range(matrix):
            self.out_of_range = True
        return matrix

    def root_pose(self, sdf: SdfModel, link: str | None) -> int | None:
        """The batch slot of the pose :meth:`place_roots` gives a model whose first unmoved
        link ``link`` is fixed where the document puts it, X_W_M · X_M_L (as
        ``graph.pose('M::L')`` computes it), made with the model (no copy of it for the pose);
        None (identity) without such a link."""
        if link is None:
            return None
        self._placed[sdf.name] = link
        # the world graph's X_W_{M::L}, memoized there: the model's frame in the scene
        # (world_pose) is posed relative to this link
        return self.poses.add(self.graph.pose(f'{sdf.name}::{link}'))


class _ModelBuild:
    """The links, joints and frames of one top-level model, scope by scope in document order
    (links, joints, frames, then each nested model's frame and members), posed in the model
    frame M: X_M_x of a member of nested scope S is X_M_S · X_S_x. Poses are requested from
    the builder's :class:`_PoseBatch` and the model is made once they are solved
    (:meth:`result`)."""

    def __init__(self, builder: _Builder, sdf: SdfModel) -> None:
        self.builder = builder
        self.sdf = sdf
        #: name, SdfLink and shape origin slots of each link, one after the other (flat)
        self.links: list[Any] = []
        #: joint, name, parent, child, X_PJ slot, X_CJ slot, axis, axis2, limits, dynamics of
        #: each joint, one after the other (a flat list: no record object per member kept
        #: until the poses are solved)
        self.joints: list[Any] = []
        self.frames: list[Any] = []  # name, attached, slot, line of each frame, flat
        #: the initial joint positions of its scopes (models of other formats keep theirs),
        #: named within the model
        self.positions: dict[str, float] = {}
        self._links: dict[str, int] = {}  # local link name -> its X_M_L in the batch
        self._x_wm: np.ndarray | None = None
        self.world_posed = False  #: a member is posed in the world (not shareable)
        self._shared_from: tuple[_ModelBuild, SdfModel] | None = None
        self._model: Model | None = None
        self.root: int | None = None  #: the batch slot of the model's pose (None: identity)

    def copy(self, sdf: SdfModel) -> _ModelBuild:
        """The build of a copy of this model named as ``sdf`` (same members)."""
        out = _ModelBuild(self.builder, sdf)
        out._shared_from = (self, sdf)
        out.root = self.builder.root_pose(sdf, self.root_link())
        return out

    def root_link(self) -> str | None:
        """The first link no joint of the model moves (its name in the model), if any."""
        moved = set(self.joints[3::_JOINT_FIELDS])  # (each joint's child)
        for name in self.links[::3]:
            if name not in moved:
                return name
        return None

    def result(self, poses: list[Pose]) -> Model:
        pose = poses[self.root] if self.root is not None else IDENTITY
        if self._shared_from is not None:
            first, sdf = self._shared_from
            return replace(first.result(poses), name=sdf.name, source=sdf.file, pose=pose)
        if self._model is not None:
            return self._model
        sdf = self.sdf
        it = iter(self.joints)
        joints = tuple(Joint(name, joint.type, parent, child, poses[pj], axis, axis2,
                             poses[cj], limits, dynamics, joint.mimic, joint.axis_order,
                             joint.pitch, joint.line)
                       for joint, name, parent, child, pj, cj, axis, axis2, limits, dynamics
                       in zip(it, it, it, it, it, it, it, it, it, it))
        it = iter(self.frames)
        frames = tuple(Frame(name, attached, poses[slot], line)
                       for name, attached, slot, line in zip(it, it, it, it))
        it = iter(self.links)
        links = tuple(_link(name, link, slots, poses) for name, link, slots in zip(it, it, it))
        self._model = Model(sdf.name, links, joints, frames, pose=pose,
                            static=sdf.static, initial_positions=self.positions,
                            source=sdf.file)
        return self._model

    def world_pose(self, x_mf: np.ndarray) -> np.ndarray:
        if self._x_wm is None:
            self._x_wm = self.builder.graph.pose(self.sdf.name)
        return self._x_wm @ x_mf

    def relative(self, graph: ModelFrames, prefix: str, x_ms: np.ndarray | None, link: str,
                 x_mf: np.ndarray) -> int:
        """The batch slot of X_L_F, the frame at X_M_F attached to ``link`` (named within
        ``graph``'s scope, ``prefix`` and ``x_ms`` as in :meth:`scope`), or of X_W_F where the
        frame is attached to the world (``link`` names a model frame)."""
        batch = self.builder.poses
        scoped = prefix + link
        index = self._links.get(scoped)
        if index is None:
            if _is_world(link):
                self.world_posed = True
                return batch.add(self.world_pose(x_mf))
            x_ml = graph.pose(link)
            if x_ms is not None:
                x_ml = compose(x_ms, x_ml)
            index = self._links[scoped] = batch.add_link(x_ml)
        matrices = batch.matrices
        matrices.append(x_mf)
        batch.relative_to.append(index)
        return len(matrices) - 1

    def scope(self, graph: ModelFrames, prefix: str, x_ms: np.ndarray | None) -> None:
        """The members of ``graph``'s model, ``prefix`` (``N::``) naming its scope within the
        top-level model and ``x_ms`` its frame in the model frame (None: the model itself)."""
        builder, model = self.builder, graph.model
        top = self.sdf.name
        for link in model.links:
            self.links += (prefix + link.name, link,
                           builder.shape_origins(graph, link) if link.shapes else ())
        for joint in model.joints:
            local = joint.name
            x_mj = graph.joint_pose(joint)
            if x_ms is not None:
                x_mj = compose(x_ms, x_mj)
            child_link = graph.link_of(joint.child)
            x_cj = self.relative(graph, prefix, x_ms, child_link, x_mj)
            child = _world_or(prefix + child_link)
            if joint.has_frame:  # the joint frame, on the link it is attached to: its child
                self.frames += (prefix + local, child, x_cj, joint.line)
            if joint.parent == WORLD:
                self.world_posed = True
                parent, x_pj = WORLD, builder.poses.add(self.world_pose(x_mj))
            else:
                parent_link = graph.link_of(joint.parent)
                parent = _world_or(prefix + parent_link)
                x_pj = self.relative(graph, prefix, x_ms, parent_link, x_mj)
            scoped = f'{top}::{prefix}{local}'
            axis, axis2, limits, dynamics = builder.axes(joint, graph, local, scoped)
            self.joints += (joint, prefix + local, parent, child, x_pj, x_cj, axis, axis2,
                            limits, dynamics)
        for frame in model.frames:
            self.frame(graph, prefix, x_ms, frame.name, frame.line)
        if model.initial_positions:  # (before the nested models': outermost first)
            scope = prefix[:-2]  # (N::M:: -> N::M)
            self.positions.update({_scoped(scope, k): v
                                   for k, v in model.initial_positions.items()})
        for nested in model.models:
            x_mn = self.frame(graph, prefix, x_ms, nested.name, None)
            self.scope(graph.nested[nested.name], f'{prefix}{nested.name}::', x_mn)

    def frame(self, graph: ModelFrames, prefix: str, x_ms: np.ndarray | None, local: str,
              line: int | None) -> np.ndarray:
        """Adds the frame ``local`` of ``graph``'s scope; returns X_M_F."""
        x_mf = graph.pose(local)
        if x_ms is not None:
            x_mf = compose(x_ms, x_mf)
        link = graph.link_of(local)
        self.frames += (prefix + local, _world_or(prefix + link),
                        self.relative(graph, prefix, x_ms, link, x_mf), line)
        return x_mf


class _PoseBatch:
    """Poses requested while the models are walked (a frame's transform, optionally relative
    to a link: X_L_F = X_M_L⁻¹ · X_M_F), solved together in numpy and turned into
    :class:`Pose` objects at once: per pose, a matrix inverse, product and matrix-to-quaternion
    conversion in Python cost more than the whole batch does."""

    def __init__(self) -> None:
        self.matrices: list[np.ndarray] = []
        self.relative_to: list[int] = []   # index into links, or -1: the matrix itself
        self.links: list[np.ndarray] = []
        #: whether :meth:`solve` made a pose that is not finite or beyond ``±MAX_MAGNITUDE``
        self.out_of_range = False

    def add(self, matrix: np.ndarray, link: int = -1) -> int:
        self.matrices.append(matrix)
        self.relative_to.append(link)
        return len(self.matrices) - 1

    def add_link(self, matrix: np.ndarray) -> int:
        self.links.append(matrix)
        return len(self.links) - 1

    def solve(self) -> list[Pose]:
        if not self.matrices:
            return []
        frames = np.array(self.matrices)
        out = frames[:, :3, :]  # (n, 3, 4): rotation and translation
        relative = np.array(self.relative_to)
        rows = np.flatnonzero(relative >= 0)
        if rows.size:
            links = np.array(self.links)[relative[rows]]
            transposed = links[:, :3, :3].transpose(0, 2, 1)  # R_L^T
            out = out.copy()
            out[rows, :, :3] = transposed @ frames[rows, :3, :3]
            out[rows, :, 3] = (transposed @ (frames[rows, :3, 3] - links[:, :3, 3])[:, :, None]
                               )[:, :, 0]
        rotations = out[:, :, :3]
        # a rotation that is exactly the identity (no -0.0) is the identity quaternion, which
        # is what rotations_to_quats makes of it: only the others are converted
        plain = (rotations == _EYE[:3, :3]).all(axis=(1, 2)) & \
            ~np.signbit(rotations).any(axis=(1, 2))
        quats = np.empty((len(out), 4))
        quats[plain] = IDENTITY.quat
        if not plain.all():
            quats[~plain] = rotations_to_quats(rotations[~plain])
        values = np.concatenate((out[:, :, 3], quats), axis=1)
        self.out_of_range = _out_of_range(values)
        # poses equal bit for bit (a row's bytes: -0.0 is not 0.0) are one Pose (immutable),
        # made once from its row's bytes, the identity the shared IDENTITY: a bytes key per
        # row, and Python floats only for the distinct rows
        packed, width = values.tobytes(), _ROW.size
        keys = [packed[start:start + width] for start in range(0, len(packed), width)]
        made = {_IDENTITY_BYTES: IDENTITY}
        for key in dict.fromkeys(keys):  # (the distinct rows, in order)
            if key not in made:
                x, y, z, qx, qy, qz, qw = _ROW.unpack(key)
                made[key] = Pose((x, y, z), (qx, qy, qz, qw))
        return list(map(made.__getitem__, keys))


_EYE = np.eye(4)
_NO_LIMITS = Limits()
#: :data:`IDENTITY` as the batch writes a pose (x, y, z, qx, qy, qz, qw), in bytes.
_IDENTITY_BYTES = np.array((*IDENTITY.xyz, *IDENTITY.quat)).tobytes()
#: A row of the batch's values: seven doubles in the machine's byte order, as numpy holds them.
_ROW = struct.Struct('=7d')
#: The entries of a joint in :attr:`_ModelBuild.joints` (joint, name, parent, child, ...).
_JOINT_FIELDS = 10


def _out_of_range(values: np.ndarray) -> bool:
    """Whether an entry of ``values`` is not finite or beyond ``±MAX_MAGNITUDE`` (NaN compares
    false): one test of a whole batch, before core.ranges names the member holding it."""
    return not (np.abs(values) <= MAX_MAGNITUDE).all()


def _link(name: str, sdf: SdfLink, origins: tuple[int, ...], poses: list[Pose]) -> Link:
    """The neutral link of ``sdf`` named ``name``, the origins of its visuals and collisions
    solved (``origins``: their batch slots, see :meth:`_Builder.shape_origins`)."""
    if not origins:
        return Link(name, sdf.inertial, (), (), sdf.line)
    visuals: list[Visual] = []
    collisions: list[Collision] = []
    for shape, slot in zip(sdf.shapes, origins):
        item, origin = shape.item, poses[slot]
        if item.origin is not origin:  # (most shapes sit at their link's origin: no copy)
            item = replace(item, origin=origin)
        if isinstance(item, Visual):
            visuals.append(item)
        else:
            collisions.append(item)
    return Link(name, sdf.inertial, tuple(visuals), tuple(collisions), sdf.line)


def _is_world(link: str) -> bool:
    """Whether an attached_to resolution ended at the world or a (static, link-less) model
    frame."""
    return link == WORLD or link == MODEL_FRAME or link.endswith('::' + MODEL_FRAME)


def _has_reposture(models: list[SdfModel]) -> bool:
    """Whether one of ``models`` or of the models nested in them has a reposture callback
    (a custom parser's model), in one walk over them."""
    pending = list(models)
    while pending:
        model = pending.pop()
        if model.reposture is not None:
            return True
        pending += model.models
    return False


def _dofs(kind: JointType) -> int:
    if kind is JointType.FIXED or kind is JointType.BALL:
        return 0
    return 2 if kind is JointType.UNIVERSAL else 1


def _axis_in_joint(axis: SdfAxis | None, owner, name: str, local: str,
                   warnings: list[Diagnostic]) -> tuple[float, float, float] | None:
    """The axis in the joint frame (``expressed_in`` names a frame of the joint's scope).

    An unknown ``expressed_in`` is a warning, as in libsdformat (which only fails when the
    axis is resolved), and the axis is taken in the joint frame."""
    if axis is None:
        return None
    if not axis.expressed_in or axis.expressed_in == local:
        x, y, z = axis.xyz
        return (float(x), float(y), float(z))
    xyz = np.asarray(axis.xyz, dtype=float)
    if axis.expressed_in and not owner.knows(axis.expressed_in) and \
            axis.expressed_in != MODEL_FRAME:
        warnings.append(Diagnostic(f'joint {name!r}: axis expressed_in '
                                   f'{axis.expressed_in!r} is not a frame in its scope; the '
                                   'axis is taken in the joint frame', owner.file, axis.line,
                                   'POSE_RELATIVE_TO_INVALID'))
    else:
        x_me = owner.pose(axis.expressed_in) if axis.expressed_in != MODEL_FRAME else np.eye(4)
        x_mj = owner.pose(local)
        xyz = x_mj[:3, :3].T @ x_me[:3, :3] @ xyz
    x, y, z = (float(v) for v in xyz)
    in_range((x, y, z), f'joint {name!r}: the axis in the joint frame (<xyz expressed_in='
             f'{axis.expressed_in!r}>)', owner.file, axis.line)
    return x, y, z


def _world_or(link: str) -> str:
    return WORLD if link == WORLD or link.endswith('::' + MODEL_FRAME) or link == MODEL_FRAME \
        else link


def _scoped(prefix: str, name: str) -> str:
    return f'{prefix}::{name}' if prefix and name != WORLD else name


def to_scene(document: SdfWorld | SdfModel, warnings: list[Diagnostic]) -> Scene:
    """Resolve ``document`` and build its scene. A model file is the model in a world."""
    if isinstance(document, SdfModel):
        document = SdfWorld(document.name, document.file, document.line, document.version,
                            models=[document])
    return _Builder(document, warnings).scene()
