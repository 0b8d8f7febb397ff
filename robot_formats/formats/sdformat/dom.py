"""The SDFormat document object model: what the XML says, before any frame is resolved.

The reader (:mod:`.reader`) fills these classes, with every ``//include`` already replaced by
the model it names; :mod:`.frames` builds the attached_to and relative_to graphs from them and
resolves every pose; :mod:`.scene` turns the result into the neutral
:class:`~robot_formats.core.model.Scene`. Poses are 4x4 homogeneous matrices (numpy) here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np

from robot_formats.core.model import Collision, Dynamics, Inertial, JointType, Limits, Mimic, Visual

__all__ = ['IDENTITY', 'PoseSpec', 'SdfLink', 'SdfAxis', 'SdfJoint', 'SdfFrame', 'SdfModel',
           'SdfWorld', 'SdfPlugin', 'MODEL_FRAME', 'WORLD_FRAME']

#: The implicit frame of the model being described, referenceable inside that model.
MODEL_FRAME = '__model__'
#: The implicit frame of a world.
WORLD_FRAME = 'world'

#: The pose of elements without one, shared by all of them (pose matrices are never changed in
#: place; the array is read-only so that stays true). Resolution skips the product with it.
IDENTITY = np.eye(4)
IDENTITY.setflags(write=False)


class PoseSpec(NamedTuple):
    """One ``<pose>`` element: the transform and the frame it is expressed in ('' = default).

    Immutable, so copies of an included model share their elements' poses, and the elements
    without a pose share one; what changes a pose (an include, a merge, unflattening) replaces
    it (``pose._replace(relative_to=...)``). (A named tuple stays tracked by the cyclic
    collector, unlike a plain tuple of untracked items.)"""

    matrix: np.ndarray = IDENTITY
    relative_to: str = ''
    line: int | None = None
    given: bool = False  #: whether the element was present at all (includes care)


@dataclass(slots=True)
class SdfVisualPose:
    """A visual or collision whose pose may name another frame of the model (``relative_to``)."""

    item: Visual | Collision
    pose: PoseSpec


@dataclass(slots=True)
class SdfLink:
    name: str
    pose: PoseSpec
    line: int | None = None
    inertial: Inertial | None = None
    #: a tuple (the links of real files mostly have none: no list each)
    shapes: tuple[SdfVisualPose, ...] = ()


@dataclass(slots=True)
class SdfAxis:
    """A joint axis as written: ``xyz`` in the frame ``expressed_in`` ('' = the joint frame)."""

    xyz: tuple[float, float, float] = (0.0, 0.0, 1.0)
    expressed_in: str = ''
    limits: Limits | None = None
    dynamics: Dynamics | None = None
    line: int | None = None


@dataclass(slots=True)
class SdfJoint:
    name: str
    type: JointType
    parent: str
    child: str
    pose: PoseSpec
    axis: SdfAxis | None = None
    axis2: SdfAxis | None = None
    pitch: float = 0.0           #: screw: translation per full turn (model.Joint convention)
    mimic: Mimic | None = None
    axis_order: str = 'xyz'      #: euler joints brought in from other formats
    sdf_type: str = ''           #: the type as written (revolute2, gearbox, ...)
    line: int | None = None
    #: False for joints of included non-SDFormat models whose name is also a link's (URDF and
    #: HRDF keep joints and links in separate namespaces): such a joint has no named frame.
    has_frame: bool = True


@dataclass(slots=True)
class SdfFrame:
    name: str
    attached_to: str
    pose: PoseSpec
    line: int | None = None


@dataclass(slots=True)
class SdfPlugin:
    """A ``//model/plugin`` or ``//include/plugin`` (simulator-specific; kept, not interpreted)."""

    name: str
    filename: str
    line: int | None = None


@dataclass(slots=True)
class SdfModel:
    """A ``<model>`` (or an included one, renamed and reposed by its ``<include>``)."""

    name: str
    pose: PoseSpec
    file: str | None = None
    line: int | None = None
    version: tuple[int, int] = (1, 8)
    static: bool = False
    canonical_link: str = ''
    placement_frame: str = ''
    placement_line: int | None = None
    links: list[SdfLink] = field(default_factory=list)
    joints: list[SdfJoint] = field(default_factory=list)
    frames: list[SdfFrame] = field(default_factory=list)
    models: list[SdfModel] = field(default_factory=list)
    #: Set for models returned by a custom parser (interface API): called after resolution.
    reposture: Callable[[Any], None] | None = None
    #: model frame pose in the canonical link frame (interface models only)
    interface_model_pose: np.ndarray | None = None
    initial_positions: dict[str, float] = field(default_factory=dict)
    #: ``//model/plugin`` and the plugins its ``//include`` added (spec 1.4)
    plugins: tuple[SdfPlugin, ...] = ()
    #: Identity of the content: models with the same (non-None) shape are copies of one
    #: included file with the same overrides, so their links, joints, frames and nested models
    #: are identical (name, pose and placement may differ). Lets a world of 1,000 copies of a
    #: robot resolve and convert the robot once. None: unique content.
    shape: object | None = None


@dataclass(slots=True)
class SdfWorld:
    name: str
    file: str | None = None
    line: int | None = None
    version: tuple[int, int] = (1, 8)
    models: list[SdfModel] = field(default_factory=list)
    frames: list[SdfFrame] = field(default_factory=list)
    joints: list[SdfJoint] = field(default_factory=list)
    gravity: tuple[float, float, float] | None = None
