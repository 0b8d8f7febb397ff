"""SDFormat 1.8 frame semantics: the attached_to and relative_to graphs, checked and resolved.

Model stages 3-8 and world stages 3-7 of the composition proposal, as libsdformat implements
them. Each model is resolved on its own (its nested models first, bottom-up): encapsulation
means nothing inside a model can name a frame outside it, so a model's graphs are complete in
themselves, and a parent reaches into a nested model ``N`` only through ``N::name``. The two
graphs are kept explicitly as edge maps (``attached_to``: element -> the frame it is attached
to; ``relative_to``: element -> the frame its pose is expressed in, with the pose) and walked
with cycle detection; results are memoised, so every vertex is visited once.

Names inside a model: ``__model__`` (the model frame), sibling links, joints, frames and nested
models, and ``N::...`` down into nested model ``N`` (``N`` and ``N::__model__`` are ``N``'s
model frame). Inside a world: ``world``, models, world frames and joints, ``M::...``.
Errors carry libsdformat's codes (FRAME_ATTACHED_TO_INVALID, POSE_RELATIVE_TO_CYCLE, ...).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from robot_formats.core.errors import (CycleError, FormatError, ProblemCollector, ReferenceError,
                                       StructureError)
from robot_formats.core.transforms import invert
from robot_formats.formats.sdformat.dom import (IDENTITY, MODEL_FRAME, WORLD_FRAME, SdfFrame,
                                                SdfJoint, SdfLink, SdfModel, SdfWorld)

__all__ = ['ModelFrames', 'WorldFrames', 'ResolvedFrame', 'resolve_world', 'is_model_sink']

#: The nested scopes of a model without nested models (shared: never changed).
_NO_SCOPES: dict = {}


def compose(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``first · second``; either one being the shared :data:`.dom.IDENTITY` (an absent pose,
    a scope's own frame) is no product: the other is the result, shared too (pose matrices are
    never changed in place)."""
    if second is IDENTITY:
        return first
    if first is IDENTITY:
        return second
    return first @ second


def split_scope(name: str, scopes: dict) -> tuple[str, str] | None:
    """``N::rest`` -> (N, rest) for a nested scope ``N``. Before 1.8 a name may itself contain
    ``::`` (``M1::M2`` in flattened files), so every ``::`` is tried, the first match wins."""
    start = 0
    while True:
        index = name.find('::', start)
        if index < 0:
            return None
        if name[:index] in scopes and index + 2 < len(name):
            return name[:index], name[index + 2:]
        start = index + 2


def is_model_sink(link: str) -> bool:
    """Whether an attached_to resolution ended at a (static, link-less) model frame."""
    return link == MODEL_FRAME or link.endswith('::' + MODEL_FRAME)


#: One edge of the relative_to graph: (target, pose, line), the ``pose`` expressed in frame
#: ``target``; a plain tuple (of a string, an array and a number: the collector stops
#: tracking it), one per frame of every model.
_Edge = tuple[str, np.ndarray, 'int | None']

#: How a validation stage runs one of its checks: ``run(function, *args)`` (see :func:`_stage`).
_Run = Callable[..., None]


class _Scope:
    """One scope of the frame graph, a model or a world: its frame kinds, its two graphs
    (attached_to: frame -> what it is attached to; relative_to: frame -> the frame its pose is
    expressed in) and the resolvers over them, shared by models and worlds. Nested scopes (a
    model's nested models, a world's models) are :class:`ModelFrames` in ``scopes``; a scoped
    name ``N::rest`` is resolved in scope ``N``."""

    what = 'scope'      #: 'model' or 'world', for messages
    root = MODEL_FRAME  #: the scope's own frame: ``__model__`` or ``world``

    def _setup(self, name: str, file: str | None, line: int | None,
               scopes: dict[str, ModelFrames], scope_elements: dict[str, SdfModel]) -> None:
        self.name, self.file, self.line = name, file, line
        self.scopes = scopes
        self.scope_elements = scope_elements
        self.kinds: dict[str, str] = {}
        self.attached_to: dict[str, str] = {}
        self.relative_to: dict[str, _Edge] = {}
        self._attached: dict[str, str] = {}
        #: (the scope's own frame is the shared identity: poses relative to it need no product)
        self._poses: dict[str, np.ndarray] = {self.root: IDENTITY}
        #: ``N::rest`` names found to be frames of nested scopes, split as (N, rest)
        self._splits: dict[str, tuple[str, str]] = {}

    def _root_link(self) -> str:
        """What the scope's own frame is attached to."""
        raise NotImplementedError

    def _item_line(self, name: str) -> int | None:
        """The line of a frame or joint of this scope (for cycle messages)."""
        raise NotImplementedError

    # --- lookups --------------------------------------------------------------------------
    def reference(self, name: str) -> tuple[str, str] | None:
        """(kind, name) for a local name, ('nested', name) for ``N::...``, None if unknown."""
        kind = self.kinds.get(name)
        if kind is not None:
            return kind, name
        if name == self.root:
            return self.root, name
        if name in self._splits:
            return 'nested', name
        split = split_scope(name, self.scopes)
        if split is not None and self.scopes[split[0]].reference(split[1]):
            self._splits[name] = split  # (the scopes are complete: the answer stays)
            return 'nested', name
        return None

    def knows(self, name: str) -> bool:
        return name in self.kinds or self.reference(name) is not None

    def split(self, name: str) -> tuple[str, str]:
        split = self._splits.get(name) or split_scope(name, self.scopes)
        assert split is not None
        return split

    # --- attached_to ----------------------------------------------------------------------
    def link_of(self, name: str, stack: tuple[str, ...] = ()) -> str:
        """The link the frame ``name`` is attached to (scoped within this scope; ``world`` or
        a static model's frame where the chain ends there). A chain of frames each attached to
        the next is followed in a loop, not by recursion (10,000 frames deep is a file)."""
        # the frames whose link waits for this one, in order and as a set: made when a chain
        # is followed (a link's or a nested frame's answer needs none)
        waiting: list[str] | None = None
        pending: set[str]
        chain: list[str] = []  # this call's frames attached to the next, in order
        while True:
            result = self._attached.get(name)
            if result is not None:
                break
            kind = self.kinds.get(name)
            ref = (kind, name) if kind is not None else self.reference(name)
            if ref is None:
                raise ReferenceError(f'{self.what} {self.name!r}: no frame named {name!r} to be '
                                     'attached to', self.file, self.line,
                                     code='FRAME_ATTACHED_TO_INVALID')
            kind = ref[0]
            if kind == self.root:
                result = self._root_link()
            elif kind == 'link':
                result = name
            elif kind == 'nested':
                head, rest = self.split(name)
                result = f'{head}::{self.scopes[head].link_of(rest)}'
            elif kind == 'model':
                result = f'{name}::{self.scopes[name].canonical()}'
            else:
                if waiting is None:
                    waiting, pending = list(stack), set(stack)
                if name in pending:
                    raise CycleError(f'{self.what} {self.name!r}: the attached_to graph has a '
                                     f'cycle: {" -> ".join((*waiting, name))}', self.file,
                                     self._item_line(name), code='FRAME_ATTACHED_TO_CYCLE')
                waiting.append(name)
                pending.add(name)
                chain.append(name)
                name = self.attached_to[name]
                continue
            self._attached[name] = result
            break
        for frame in chain:
            self._attached[frame] = result
        return result

    # --- relative_to ----------------------------------------------------------------------
    def pose(self, name: str, stack: tuple[str, ...] = ()) -> np.ndarray:
        """X_S_name: the pose of frame ``name`` in this scope's frame (resolved once). A chain
        of frames each relative_to the next is followed in a loop, then resolved back from its
        end, not by recursion (10,000 frames deep is a file)."""
        cached = self._poses.get(name)
        if cached is not None:
            return cached
        # the frames whose pose waits for this one, in order and as a set: made when a chain
        # is followed (most frames are posed in one resolved already, in document order)
        waiting: list[str] | None = None
        pending: set[str]
        chain: list[str] = []  # this call's frames posed relative_to the next, in order
        while True:
            if self.kinds.get(name) is None:  # N::rest, in nested scope N
                if self.reference(name) is None:
                    raise ReferenceError(f'{self.what} {self.name!r}: no frame named {name!r}',
                                         self.file, self.line, code='POSE_RELATIVE_TO_INVALID')
                head, rest = self.split(name)
                self._poses[name] = compose(self.pose(head, stack if waiting is None else
                                                      tuple(waiting)),
                                            self.scopes[head].pose(rest))
                break
            chain.append(name)
            target, _, line = self.relative_to[name]
            if target in self._poses:
                break
            if waiting is None:
                waiting, pending = list(stack), set(stack)
            self._check_relative_to(name, target, line, waiting, pending)
            waiting.append(name)
            pending.add(name)
            name = target
        for frame in reversed(chain):
            target, matrix, _ = self.relative_to[frame]
            result = compose(self._poses[target], matrix)
            if self.kinds[frame] == 'model' and self.scope_elements[frame].placement_frame:
                result = result @ invert(placement_pose(self.scopes[frame],
                                                        self.scope_elements[frame]))
            self._poses[frame] = result
        return self._poses[chain[0] if chain else name]

    def _check_relative_to(self, name: str, target: str, line: int | None,
                           waiting: list[str], pending: set[str]) -> None:
        """Refuse a pose relative to itself, to no frame, or closing a cycle (``waiting``: the
        frames whose poses wait for this one, in order; ``pending``: the same as a set)."""
        if name in pending:
            raise CycleError(f'{self.what} {self.name!r}: the relative_to graph has a '
                             f'cycle: {" -> ".join((*waiting, name))}', self.file, line,
                             code='POSE_RELATIVE_TO_CYCLE')
        if target == name or not self.knows(target):
            itself = target == name
            raise ReferenceError(
                f'the pose of {self.kinds[name]} {name!r} is relative_to {target!r} '
                f'({"itself" if itself else "not a frame"} of {self.what} {self.name!r})',
                self.file, line,
                code='POSE_RELATIVE_TO_CYCLE' if itself else 'POSE_RELATIVE_TO_INVALID')


class ModelFrames(_Scope):
    """The checked and resolved frame graphs of one model; names relative to the model."""

    what = 'model'
    root = MODEL_FRAME

    def __init__(self, model: SdfModel) -> None:
        self.model = model
        if model.models:
            self._setup(model.name, model.file, model.line, _model_graphs(model.models),
                        {nested.name: nested for nested in model.models})
        else:  # (most models: the tables of nested scopes shared, empty, never changed)
            self._setup(model.name, model.file, model.line, _NO_SCOPES, _NO_SCOPES)
        self.nested = self.scopes  # the nested models' graphs, by name
        self._canonical: str | None = None
        self._graphs()
        self._check()

    @functools.cached_property
    def links(self) -> dict[str, SdfLink]:
        return {link.name: link for link in self.model.links}

    @functools.cached_property
    def joints(self) -> dict[str, SdfJoint]:
        return {joint.name: joint for joint in self.model.joints}

    @functools.cached_property
    def frames(self) -> dict[str, SdfFrame]:
        return {frame.name: frame for frame in self.model.frames}

    # --- graphs ---------------------------------------------------------------------------
    def _graphs(self) -> None:
        """The frame kinds (the first of a name wins), and in one pass over the elements
        stage 6's attached_to graph (joint -> child, frame -> attached_to or __model__; nested
        models and __model__ -> the canonical link, resolved lazily: it may lie in a nested
        model) and stage 8's relative_to graph (every link, joint, frame and nested model ->
        the frame of its pose)."""
        kinds, attached, relative = self.kinds, self.attached_to, self.relative_to
        model = self.model
        for link in model.links:
            kinds.setdefault(link.name, 'link')
            pose = link.pose
            relative[link.name] = (pose.relative_to or MODEL_FRAME, pose.matrix,
                                   pose.line or link.line)
        for joint in model.joints:
            if joint.has_frame:
                kinds.setdefault(joint.name, 'joint')
                attached[joint.name] = joint.child
                pose = joint.pose
                relative[joint.name] = (pose.relative_to or joint.child, pose.matrix,
                                        pose.line or joint.line)
        for frame in model.frames:
            kinds.setdefault(frame.name, 'frame')
            attached[frame.name] = frame.attached_to or MODEL_FRAME
            pose = frame.pose
            relative[frame.name] = (pose.relative_to or frame.attached_to or MODEL_FRAME,
                                    pose.matrix, pose.line or frame.line)
        for nested in model.models:
            kinds.setdefault(nested.name, 'model')
            pose = nested.pose
            relative[nested.name] = (pose.relative_to or MODEL_FRAME, pose.matrix,
                                     pose.line or nested.line)

    def _check(self) -> None:
        """Stages 3-8 in libsdformat's order: canonical link, then the attached_to graph
        (frames and joints), then the relative_to graph (poses); each stage reports every
        problem it finds (the first raised, the others as its ``related``), and a stage with
        problems ends the validation: the next ones build on it."""
        model = self.model
        if not model.static or model.links or model.models:
            self.canonical()
        _stage(self._attached_to_checks)
        _stage(self._relative_to_checks)

    def _attached_to_checks(self, run: _Run) -> None:
        for frame in self.model.frames:
            run(self._check_frame, frame.name, frame.attached_to, frame.line)
        for joint in self.model.joints:
            run(self._check_joint, joint)

    def _relative_to_checks(self, run: _Run) -> None:
        for name in self.relative_to:
            run(self.pose, name)
        for nested in self.model.models:
            if nested.placement_frame:
                run(self.pose, nested.name)

    # --- attached_to ----------------------------------------------------------------------
    def canonical(self) -> str:
        """The canonical link (scoped within this model), or ``__model__`` for a static model
        without links (its frames are fixed to the world)."""
        if self._canonical is not None:
            return self._canonical
        model = self.model
        wanted = model.canonical_link
        if wanted:
            ref = self.reference(wanted)
            if ref is None or (ref[0] != 'link' and not self._is_nested_link(wanted)):
                if not model.static:
                    raise ReferenceError(
                        f'model {model.name!r}: canonical_link {wanted!r} is not a link of the '
                        'model or of a model nested in it', self.file, model.line,
                        code='MODEL_CANONICAL_LINK_INVALID')
                wanted = ''
        if not wanted and model.links:
            wanted = model.links[0].name
        if not wanted and model.models:  # no links: the first nested model's canonical link
            first = model.models[0].name
            wanted = f'{first}::{self.nested[first].canonical()}'
        if not wanted:
            if not model.static:
                raise StructureError(f'model {model.name!r} has no link (a model that is not '
                                     'static needs at least one link, directly or in a nested '
                                     'model)', self.file, model.line, code='MODEL_WITHOUT_LINK')
            wanted = MODEL_FRAME
        self._canonical = wanted
        return wanted

    def _is_nested_link(self, name: str) -> bool:
        split = split_scope(name, self.nested)
        if split is None:
            return False
        head, rest = split
        nested = self.nested[head]
        ref = nested.reference(rest)
        return ref is not None and (ref[0] == 'link' or nested._is_nested_link(rest))

    def _check_frame(self, name: str, attached_to: str, line: int | None) -> None:
        if attached_to == name:
            raise CycleError(f'frame {name!r} is attached to itself', self.file, line,
                             code='FRAME_ATTACHED_TO_CYCLE')
        if attached_to and not self.knows(attached_to):
            raise ReferenceError(f'frame {name!r} is attached_to {attached_to!r}, which is not '
                                 f'a link, joint, frame or nested model of model '
                                 f'{self.model.name!r}', self.file, line,
                                 code='FRAME_ATTACHED_TO_INVALID')
        self.link_of(name)

    def _check_joint(self, joint: SdfJoint) -> None:
        check_joint(self, joint, self.model.name, allow_world_parent=True)

    # --- relative_to ----------------------------------------------------------------------
    def joint_pose(self, joint: SdfJoint) -> np.ndarray:
        """X_M_J of any joint, framed (named) or not."""
        if joint.has_frame:
            return self.pose(joint.name)
        return compose(self.pose(joint.pose.relative_to or joint.child), joint.pose.matrix)

    def _root_link(self) -> str:
        return self.canonical()

    def _item_line(self, name: str) -> int | None:
        item = self.joints.get(name) or self.frames.get(name)
        return item.line if item is not None else self.model.line

    # --- enumeration ----------------------------------------------------------------------
    def elements(self, prefix: str):
        """(scoped name, kind, local name, owner ModelFrames, owner's scoped name) of every
        frame-bearing element, by kind in document order, nested models after the others."""
        for kind, items in (('link', self.model.links), ('joint', self.model.joints),
                            ('frame', self.model.frames)):
            for item in items:
                # a joint whose frame has no name (see SdfJoint.has_frame); per item: the
                # joints after it keep their own kind
                frameless = kind == 'joint' and not getattr(item, 'has_frame', True)
                item_kind = 'unnamed joint' if frameless else kind
                yield f'{prefix}::{item.name}', item_kind, item.name, self, prefix
        for nested in self.model.models:
            scoped = f'{prefix}::{nested.name}'
            yield scoped, 'model', nested.name, self, prefix
            yield from self.nested[nested.name].elements(scoped)


def placement_pose(frames: ModelFrames, model: SdfModel) -> np.ndarray:
    """X_M_P: the model's placement frame in its model frame (identity without one)."""
    if not model.placement_frame:
        return IDENTITY
    if not frames.knows(model.placement_frame):
        raise ReferenceError(f'model {model.name!r}: placement_frame '
                             f'{model.placement_frame!r} is not a frame of the model',
                             model.file, model.placement_line or model.line,
                             code='POSE_RELATIVE_TO_INVALID')
    return frames.pose(model.placement_frame)


def check_joint(scope, joint: SdfJoint, scope_name: str, allow_world_parent: bool) -> None:
    """Stages 3 and 6.8 for one joint of a model or world ``scope``."""
    if joint.child == WORLD_FRAME:
        raise ReferenceError(f'{_where(joint, scope_name)}: the child cannot be "world"',
                             scope.file, joint.line, code='JOINT_CHILD_LINK_INVALID')
    if joint.child == joint.name and joint.has_frame:  # a frameless joint names no frame
        raise CycleError(f'{_where(joint, scope_name)}: the joint is its own child', scope.file,
                         joint.line, code='FRAME_ATTACHED_TO_CYCLE')
    if not scope.knows(joint.child):
        raise ReferenceError(f'{_where(joint, scope_name)}: child {joint.child!r} is not a '
                             'frame in this scope', scope.file, joint.line,
                             code='JOINT_CHILD_LINK_INVALID')
    parent_is_world = joint.parent == WORLD_FRAME and allow_world_parent
    if not parent_is_world and not scope.knows(joint.parent):
        raise ReferenceError(f'{_where(joint, scope_name)}: parent {joint.parent!r} is not a '
                             'frame in this scope', scope.file, joint.line,
                             code='JOINT_PARENT_LINK_INVALID')
    if joint.parent == joint.child:
        raise StructureError(f'{_where(joint, scope_name)}: parent and child are both '
                             f'{joint.child!r}', scope.file, joint.line,
                             code='JOINT_PARENT_SAME_AS_CHILD')
    child = scope.link_of(joint.child, (joint.name,))
    parent = WORLD_FRAME if parent_is_world else scope.link_of(joint.parent)
    if child == parent:
        raise StructureError(f'{_where(joint, scope_name)}: parent {joint.parent!r} and child '
                             f'{joint.child!r} are both attached to {child!r}', scope.file,
                             joint.line, code='JOINT_PARENT_SAME_AS_CHILD')


def _where(joint: SdfJoint, scope_name: str) -> str:
    """How :func:`check_joint`'s messages name the joint (made only for a message)."""
    return f'joint {joint.name!r} in {scope_name!r}'


def _stage(checks: Callable[[_Run], None]) -> None:
    """Run one validation stage: ``checks(run)`` calls ``run(function, *args)`` for each of
    its checks (no list of them is made). A stage with a problem is run again with
    :meth:`ProblemCollector.check` as ``run``, which reports every problem it finds (the first
    raised, the others as its ``related``); the checks only memoise what they resolve, so the
    second run finds what a collecting first run would have. Valid documents, nearly all, pay
    no collector."""
    try:
        checks(_call)
    except FormatError:
        stage = ProblemCollector()
        checks(stage.check)
        stage.raise_any()
        raise  # (not reached: the same checks fail again)


def _call(function: Callable[..., object], *args: object) -> None:
    """A check run as it is (a stage's first run)."""
    function(*args)


def _model_graphs(models: list[SdfModel]) -> dict[str, ModelFrames]:
    """The frame graphs of a world's models; copies of one included file (same ``shape``)
    share one graph: their frames are the same, relative to their model frames."""
    by_shape: dict[object, ModelFrames] = {}
    out = {}
    for model in models:
        graph = by_shape.get(model.shape) if model.shape is not None else None
        if graph is None:
            graph = ModelFrames(model)
            if model.shape is not None:
                by_shape[model.shape] = graph
        out[model.name] = graph
    return out


class WorldFrames(_Scope):
    """World stages 3-7: models, world frames and world joints in the world frame."""

    what = 'world'
    root = WORLD_FRAME

    def __init__(self, world: SdfWorld) -> None:
        self.world = world
        self._setup(world.name, world.file, world.line, _model_graphs(world.models),
                    {m.name: m for m in world.models})
        self.models = self.scopes  # the models' graphs, by name
        for kind, items in (('model', world.models), ('frame', world.frames),
                            ('joint', world.joints)):
            for item in items:
                self.kinds.setdefault(item.name, kind)
        self.frames = {frame.name: frame for frame in world.frames}
        self.joints = {joint.name: joint for joint in world.joints}
        self.attached_to = {f.name: f.attached_to or WORLD_FRAME for f in world.frames}
        self.attached_to.update({j.name: j.child for j in world.joints})
        for model in world.models:
            self.relative_to[model.name] = (model.pose.relative_to or WORLD_FRAME,
                                            model.pose.matrix, model.pose.line or model.line)
        for frame in world.frames:
            self.relative_to[frame.name] = (
                frame.pose.relative_to or frame.attached_to or WORLD_FRAME, frame.pose.matrix,
                frame.pose.line or frame.line)
        for joint in world.joints:
            self.relative_to[joint.name] = (joint.pose.relative_to or joint.child,
                                            joint.pose.matrix, joint.pose.line or joint.line)
        self._check()

    def _check(self) -> None:
        """World stages as the model's (see :meth:`ModelFrames._check`): the attached_to
        graph (frames, joints), then poses, each stage reporting all its problems."""
        _stage(self._attached_to_checks)
        _stage(self._relative_to_checks)

    def _attached_to_checks(self, run: _Run) -> None:
        for frame in self.world.frames:
            run(self._check_frame, frame)
        for joint in self.world.joints:
            run(check_joint, self, joint, self.world.name, True)

    def _relative_to_checks(self, run: _Run) -> None:
        for name in self.relative_to:
            run(self.pose, name)

    def _check_frame(self, frame: SdfFrame) -> None:
        if frame.attached_to == frame.name:
            raise CycleError(f'world frame {frame.name!r} is attached to itself', self.file,
                             frame.line, code='FRAME_ATTACHED_TO_CYCLE')
        if frame.attached_to and not self.knows(frame.attached_to):
            raise ReferenceError(f'world frame {frame.name!r} is attached_to '
                                 f'{frame.attached_to!r}, which is not a model or frame of '
                                 f'world {self.world.name!r}', self.file, frame.line,
                                 code='FRAME_ATTACHED_TO_INVALID')
        self.link_of(frame.name)

    def _root_link(self) -> str:
        return WORLD_FRAME

    def _item_line(self, name: str) -> int | None:
        item = self.frames.get(name) or self.joints.get(name)
        return item.line if item is not None else self.world.line


@dataclass
class ResolvedFrame:
    """One frame of the composed scene, in the world."""

    name: str             #: scoped from the world: ``M``, ``M::L``, ``M::N::F``, ``W``
    kind: str             #: 'model', 'link', 'joint', 'frame'
    pose: np.ndarray      #: X_W_frame, all joints at zero
    attached_to: str      #: world-scoped link it moves with, or ``world``
    relative_to: str      #: world-scoped frame its pose is expressed in (after defaults)
    owner: ModelFrames | WorldFrames
    local: str            #: name within ``owner``


def resolve_world(world: SdfWorld) -> tuple[WorldFrames, dict[str, ResolvedFrame]]:
    """Check every rule and resolve every frame of the world, in document order."""
    frames = WorldFrames(world)
    out: dict[str, ResolvedFrame] = {}
    for model in world.models:
        graph = frames.models[model.name]
        out[model.name] = ResolvedFrame(model.name, 'model', frames.pose(model.name),
                                        _world_link(frames.link_of(model.name)),
                                        _scoped_target('', frames.relative_to[model.name][0]),
                                        frames, model.name)
        model_pose = out[model.name].pose
        for scoped, kind, local, owner, prefix in graph.elements(model.name):
            if kind == 'unnamed joint':
                continue
            within = scoped[len(model.name) + 2:]
            link = graph.link_of(within)
            out[scoped] = ResolvedFrame(
                scoped, kind, model_pose @ graph.pose(within),
                _world_link(f'{model.name}::{link}'),
                _scoped_target(prefix, owner.relative_to[local][0]), owner, local)
    for kind, items in (('frame', world.frames), ('joint', world.joints)):
        for item in items:
            out[item.name] = ResolvedFrame(item.name, kind, frames.pose(item.name),
                                           _world_link(frames.link_of(item.name)),
                                           _scoped_target('', frames.relative_to[item.name][0]),
                                           frames, item.name)
    _reposture(world, out)
    return frames, out


def _world_link(link: str) -> str:
    return WORLD_FRAME if is_model_sink(link) else link


def _scoped_target(prefix: str, target: str) -> str:
    if target.endswith('::' + MODEL_FRAME):
        target = target[:-len(MODEL_FRAME) - 2]
    if target == MODEL_FRAME:
        return prefix or WORLD_FRAME
    if target == WORLD_FRAME:
        return WORLD_FRAME
    return f'{prefix}::{target}' if prefix else target


def _reposture(world: SdfWorld, frames: dict[str, ResolvedFrame]) -> None:
    """Call the reposture callbacks of custom (interface API) models, outermost first."""
    from robot_formats.formats.sdformat.interface import NestedModelFramePoseGraph
    poses = {name: frame.pose for name, frame in frames.items()}

    def visit(model: SdfModel, scoped: str) -> None:
        if model.reposture is not None:
            try:
                model.reposture(NestedModelFramePoseGraph(scoped, poses))
            except FormatError:
                raise
            except Exception as err:  # a user callback: report it as a document problem
                raise FormatError(f'the reposture callback of model {scoped!r} failed: {err}',
                                  model.file, model.line, code='CUSTOM_PARSER') from err
        for nested in model.models:
            visit(nested, f'{scoped}::{nested.name}')

    for model in world.models:
        visit(model, model.name)
