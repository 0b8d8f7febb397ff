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

from dataclasses import replace

import numpy as np

from robot_formats.core.errors import Diagnostic
from robot_formats.core.model import (WORLD, Collision, Frame, Joint, JointType, Limits, Link,
                                      Model, Pose, Scene, Visual)
from robot_formats.core.transforms import invert, rotation_to_quat
from robot_formats.formats.sdformat.dom import MODEL_FRAME, SdfAxis, SdfJoint, SdfModel, SdfWorld
from robot_formats.formats.sdformat.frames import ModelFrames, ResolvedFrame, resolve_world

__all__ = ['to_scene']


def matrix_to_pose(matrix: np.ndarray) -> Pose:
    """``transforms.matrix_to_pose`` with a fast path for unrotated frames (most frames of a
    composed world sit on their links without rotation): the scene converts every frame."""
    (r0, r1, r2, r3) = matrix.tolist()
    xyz = (r0[3], r1[3], r2[3])
    if r0[0] == 1.0 and r1[1] == 1.0 and r2[2] == 1.0:
        return Pose(xyz)
    return Pose(xyz, rotation_to_quat(matrix[:3, :3]))


def _local(model_name: str, scoped: str) -> str:
    """``M::N::L`` -> ``N::L`` inside top-level model ``M``; ``world`` stays."""
    prefix = model_name + '::'
    return scoped[len(prefix):] if scoped.startswith(prefix) else scoped


class _Builder:
    def __init__(self, world: SdfWorld, warnings: list[Diagnostic]) -> None:
        self.world = world
        self.warnings = warnings
        self.graph, self.frames = resolve_world(world)
        self._inverses: dict[str, np.ndarray] = {}
        self._by_shape: dict[object, Model] = {}

    def inverse(self, name: str) -> np.ndarray:
        """X_name_W (memoized: many frames and joints hang from the same link)."""
        found = self._inverses.get(name)
        if found is None:
            found = self._inverses[name] = invert(self.frames[name].pose)
        return found

    def scene(self) -> Scene:
        models = [self.shared_model(m) for m in self.world.models]
        scene_frames: list[Frame] = []
        scene_joints: list[Joint] = []
        for model in self.world.models:
            scene_frames.append(self.frame(self.frames[model.name], model.name, ''))
        for frame in self.world.frames:
            scene_frames.append(self.frame(self.frames[frame.name], frame.name, ''))
        for joint in self.world.joints:
            resolved = self.frames[joint.name]
            scene_frames.append(self.frame(resolved, joint.name, ''))
            parent = self.graph.link_of(joint.parent) if joint.parent != WORLD else WORLD
            scene_joints.append(self.joint(joint, resolved, _world_or(parent), '', self.graph))
        models, scene_joints = self.break_loops(models, scene_joints)
        children = {j.child for j in scene_joints}
        models = [self.place_roots(m, children, scene_joints) for m in models]
        physics = {'gravity': self.world.gravity} if self.world.gravity is not None else {}
        return Scene(self.world.name, tuple(models), tuple(scene_frames), tuple(scene_joints),
                     is_world=True, physics=physics, source=self.world.file)

    # --- one top-level model -------------------------------------------------------------
    def shared_model(self, sdf: SdfModel) -> Model:
        """``model(sdf)``, built once for copies of one included file (same ``shape``): their
        members are the same relative to the model, only the name differs. Not shared when a
        member is posed in the world (a joint to ``world``, a frame fixed to the world) or the
        first build warned (each copy then warns with its own names)."""
        if sdf.shape is None:
            return self.model(sdf)
        first = self._by_shape.get(sdf.shape)
        if first is not None:
            return replace(first, name=sdf.name, source=sdf.file)
        warned = len(self.warnings)
        model = self.model(sdf)
        if len(self.warnings) == warned and not any(
                j.parent == WORLD for j in model.joints) and not any(
                f.attached_to == WORLD for f in model.frames):
            self._by_shape[sdf.shape] = model
        return model

    def model(self, sdf: SdfModel) -> Model:
        links: list[Link] = []
        joints: list[Joint] = []
        frames: list[Frame] = []
        positions: dict[str, float] = {}
        graph = self.graph.models[sdf.name]
        for scoped, kind, local, owner, owner_scope in graph.elements(sdf.name):
            name = _local(sdf.name, scoped)
            if kind == 'unnamed joint':
                resolved = self.unnamed_joint(owner, local, scoped, owner_scope)
            else:
                resolved = self.frames[scoped]
            if kind == 'link':
                links.append(self.link(owner, local, name, resolved))
                continue
            if kind != 'unnamed joint':
                frames.append(self.frame(resolved, name, sdf.name))
            if kind in ('joint', 'unnamed joint'):
                joint = owner.joints[local]
                scope = _local(sdf.name, owner_scope) if owner_scope != sdf.name else ''
                parent = (WORLD if joint.parent == WORLD
                          else _scoped(scope, owner.link_of(joint.parent)))
                parent = _world_or(f'{sdf.name}::{parent}' if parent != WORLD else WORLD)
                joints.append(self.joint(joint, resolved, parent, sdf.name, owner))
        for prefix, nested in _all_models(sdf, ''):
            positions.update({_scoped(prefix, k): v for k, v in nested.initial_positions.items()})
        return Model(sdf.name, tuple(links), tuple(joints), tuple(frames), static=sdf.static,
                     initial_positions=positions, source=sdf.file)

    def unnamed_joint(self, owner: ModelFrames, local: str, scoped: str, owner_scope: str
                      ) -> ResolvedFrame:
        """The joint frame of a joint without a frame name (see SdfJoint.has_frame)."""
        joint = owner.joints[local]
        x_w_owner = self.frames[owner_scope].pose
        child = owner_scope + '::' + owner.link_of(joint.child)
        return ResolvedFrame(scoped, 'joint', x_w_owner @ owner.joint_pose(joint),
                             _world_or(child), '', owner, local)

    def link(self, owner: ModelFrames, local: str, name: str, resolved: ResolvedFrame) -> Link:
        sdf = owner.links[local]
        visuals: list[Visual] = []
        collisions: list[Collision] = []
        for shape in sdf.shapes:
            matrix = shape.pose.matrix
            if shape.pose.relative_to:
                target = owner.pose(shape.pose.relative_to) if shape.pose.relative_to != \
                    MODEL_FRAME else np.eye(4)
                matrix = invert(owner.pose(local)) @ target @ matrix
            item = shape.item.__class__(**{**_fields(shape.item),
                                           'origin': matrix_to_pose(matrix)})
            if isinstance(item, Visual):
                visuals.append(item)
            else:
                collisions.append(item)
        return Link(name, sdf.inertial, tuple(visuals), tuple(collisions), sdf.line)

    def frame(self, resolved: ResolvedFrame, name: str, model_name: str) -> Frame:
        attached = resolved.attached_to
        local = resolved.pose if attached == WORLD else self.inverse(attached) @ resolved.pose
        line = getattr(_element(resolved), 'line', None)
        return Frame(name, _local(model_name, attached) if model_name else attached,
                     matrix_to_pose(local), line)

    def joint(self, joint: SdfJoint, resolved: ResolvedFrame, parent: str, model_name: str,
              owner) -> Joint:
        child = resolved.attached_to
        x_wj = resolved.pose
        x_pj = x_wj if parent == WORLD else self.inverse(parent) @ x_wj
        x_cj = self.inverse(child) @ x_wj
        axis = _axis_in_joint(joint.axis, owner, resolved, self.warnings)
        axis2 = _axis_in_joint(joint.axis2, owner, resolved, self.warnings)
        limits = tuple(a.limits or Limits() for a in (joint.axis, joint.axis2)
                       if a is not None)[:_dofs(joint.type)]
        if all(lim == Limits() for lim in limits):
            limits = ()
        dynamics = joint.axis.dynamics if joint.axis is not None else None
        return Joint(_local(model_name, resolved.name) if model_name else resolved.name,
                     joint.type, _local(model_name, parent) if model_name else parent,
                     _local(model_name, child) if model_name else child,
                     matrix_to_pose(x_pj),
                     axis if axis is not None else (0.0, 0.0, 1.0), axis2,
                     matrix_to_pose(x_cj), limits, dynamics, joint.mimic,
                     joint.axis_order, joint.pitch, joint.line)

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
        first = self.frames[f'{model.name}::{roots[0]}'].pose
        for name in roots[1:]:
            scoped = f'{model.name}::{name}'
            extra.append(Joint(f'{scoped}/attach', JointType.FIXED, WORLD, scoped,
                               matrix_to_pose(self.frames[scoped].pose)))
        return replace(model, pose=matrix_to_pose(first))


def _element(resolved: ResolvedFrame):
    owner, local = resolved.owner, resolved.local
    for table in ('links', 'joints', 'frames', 'models', 'model_elements'):
        items = getattr(owner, table, None)
        if items and local in items:
            item = items[local]
            return getattr(item, 'model', item)
    return None


def _fields(item) -> dict:
    return {name: getattr(item, name) for name in item.__slots__}


def _dofs(kind: JointType) -> int:
    return {JointType.FIXED: 0, JointType.UNIVERSAL: 2, JointType.BALL: 0}.get(kind, 1)


def _axis_in_joint(axis: SdfAxis | None, owner, resolved: ResolvedFrame,
                   warnings: list[Diagnostic]) -> tuple[float, float, float] | None:
    """The axis in the joint frame (``expressed_in`` names a frame of the joint's scope).

    An unknown ``expressed_in`` is a warning, as in libsdformat (which only fails when the
    axis is resolved), and the axis is taken in the joint frame."""
    if axis is None:
        return None
    xyz = np.asarray(axis.xyz, dtype=float)
    if axis.expressed_in and not owner.knows(axis.expressed_in) and \
            axis.expressed_in != MODEL_FRAME:
        warnings.append(Diagnostic(f'joint {resolved.name!r}: axis expressed_in '
                                   f'{axis.expressed_in!r} is not a frame in its scope; the '
                                   'axis is taken in the joint frame', owner.file, axis.line,
                                   'POSE_RELATIVE_TO_INVALID'))
    elif axis.expressed_in and axis.expressed_in != resolved.local:
        x_me = owner.pose(axis.expressed_in) if axis.expressed_in != MODEL_FRAME else np.eye(4)
        x_mj = owner.pose(resolved.local)
        xyz = x_mj[:3, :3].T @ x_me[:3, :3] @ xyz
    return tuple(float(v) for v in xyz)  # type: ignore[return-value]


def _world_or(link: str) -> str:
    return WORLD if link == WORLD or link.endswith('::' + MODEL_FRAME) or link == MODEL_FRAME \
        else link


def _scoped(prefix: str, name: str) -> str:
    return f'{prefix}::{name}' if prefix and name != WORLD else name


def _all_models(model: SdfModel, prefix: str):
    yield prefix, model
    for nested in model.models:
        yield from _all_models(nested, _scoped(prefix, nested.name))


def to_scene(document: SdfWorld | SdfModel, warnings: list[Diagnostic]) -> Scene:
    """Resolve ``document`` and build its scene. A model file is the model in a world."""
    if isinstance(document, SdfModel):
        document = SdfWorld(document.name, document.file, document.line, document.version,
                            models=[document])
    return _Builder(document, warnings).scene()
