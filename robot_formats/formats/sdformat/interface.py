"""The interface API (SDFormat 1.8 proposal, section 1.5): models from other formats in an SDF.

An ``//include`` whose file is not SDFormat is handed to *custom model parsers*: Python
callables registered here that receive a :class:`NestedInclude` and return an
:class:`InterfaceModel` (name, canonical link, model frame pose, links, frames, nested
interface models, reposture callback), or None to let the next parser try. The interface model
becomes a nested model of the including model: its links and frames can be used in poses,
``attached_to``, joints and ``placement_frame`` like any SDFormat element. After every pose is
resolved, the reposture callback receives a :class:`NestedModelFramePoseGraph` to place the
custom model's own objects.

Precedence, as specified: the latest registered parser is asked first; custom parsers are never
asked for ``.sdf`` or ``.world`` files. When no custom parser takes a file, robot_formats'
built-in converters (:mod:`.foreign`) read ``.urdf``, ``.skel`` and ``.hrdf`` into full models
(links, joints with their kinds and limits, frames), so one SDFormat world can weld models of
every format robot_formats reads into one tree. See docs/sdformat.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from lxml import etree

from robot_formats.core.model import IDENTITY, Pose
from robot_formats.core.transforms import matrix_to_pose, pose_to_matrix

__all__ = ['NestedInclude', 'InterfaceFrame', 'InterfaceLink', 'InterfaceModel',
           'NestedModelFramePoseGraph', 'CustomModelParser']


@dataclass(frozen=True)
class NestedInclude:
    """What a custom parser learns about the ``//include`` it is asked to read."""

    uri: str                      #: ``//include/uri`` as written
    resolved_file_name: str       #: the file the URI resolved to (test its extension)
    absolute_model_name: str      #: e.g. ``top_model::middle_model::my_new_model``
    local_model_name: str         #: ``//include/name`` (empty when not given)
    is_static: bool | None        #: ``//include/static``: None when not given
    #: The ``<include>`` element itself, with every element robot_formats does not interpret
    #: (custom elements, plugins) for the parser to read. Read-only by convention.
    virtual_custom_elements: etree._Element | None = None


@dataclass(frozen=True)
class InterfaceFrame:
    """A frame the custom model exposes: ``attached_to`` a link, frame or ``__model__``."""

    name: str
    attached_to: str
    pose_in_attached_to: Pose = IDENTITY


@dataclass(frozen=True)
class InterfaceLink:
    """A link the custom model exposes, posed in the model frame."""

    name: str
    pose_in_model: Pose = IDENTITY


@dataclass
class InterfaceModel:
    """A custom model as the including SDFormat model sees it.

    ``model_pose_in_canonical_link`` is X_LcM: it must agree with the canonical link's
    ``pose_in_model`` (checked). ``pose_in_parent`` places a *nested* interface model's frame in
    its parent interface model's frame (ignored for the model an include returns: the include's
    pose places it).
    """

    name: str
    canonical_link: str
    model_pose_in_canonical_link: Pose = IDENTITY
    reposture: Callable[[NestedModelFramePoseGraph], None] | None = None
    links: list[InterfaceLink] = field(default_factory=list)
    frames: list[InterfaceFrame] = field(default_factory=list)
    models: list[InterfaceModel] = field(default_factory=list)
    pose_in_parent: Pose = IDENTITY

    def add_link(self, link: InterfaceLink) -> None:
        self.links.append(link)

    def add_frame(self, frame: InterfaceFrame) -> None:
        self.frames.append(frame)

    def add_nested_model(self, model: InterfaceModel) -> None:
        self.models.append(model)


class NestedModelFramePoseGraph:
    """What a reposture callback may ask: poses of the custom model's frames, resolved."""

    def __init__(self, model_name: str, world_poses: dict[str, np.ndarray]) -> None:
        self._model = model_name
        self._poses = world_poses

    def model_pose_in_world(self) -> Pose:
        """The custom model's frame in the world (or top model) frame."""
        return matrix_to_pose(self._poses[self._model])

    def frame_pose(self, frame: str, relative_to: str = 'world') -> Pose:
        """Pose of a frame of the custom model (``link``, ``nested::frame``, ``__model__``)
        in ``world`` or in another frame of the same model."""
        target = self._pose(frame)
        if relative_to == 'world':
            return matrix_to_pose(target)
        return matrix_to_pose(np.linalg.inv(self._pose(relative_to)) @ target)

    def _pose(self, frame: str) -> np.ndarray:
        name = self._model if frame == '__model__' else f'{self._model}::{frame}'
        if name not in self._poses:
            raise KeyError(f'{frame!r} is not a frame of model {self._model!r}')
        return self._poses[name]


#: (NestedInclude, errors list) -> InterfaceModel or None. Append messages to ``errors`` (and
#: return None) to refuse the file.
CustomModelParser = Callable[[NestedInclude, list], 'InterfaceModel | None']

def pose_matrix(pose: Pose) -> np.ndarray:
    return pose_to_matrix(pose)
