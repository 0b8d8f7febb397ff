"""The parsed content of a TMP problem file: plain, immutable data (no parsing, no sampling).

Conventions (docs/tmp.md has the full semantics):

* every pose is a 4×4 homogeneous matrix (numpy, read-only); the file's 3x4 row-major
  12-tuples are its first three rows;
* object and robot base poses are in the world frame (also for attached objects: the
  attachment keeps the relative pose the two initial world poses give);
* grasp frames and continuous-grasp axes are in the object's frame; SOP templates and axes are
  in the world frame; SSSP coordinates are in the supporting object's frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping

import numpy as np

if TYPE_CHECKING:
    from robot_formats.core.kinematics import KinematicTree

__all__ = ['DiscreteGrasp', 'ContinuousGrasp', 'SupportRegion', 'StablePose', 'ProblemObject',
           'ProblemRobot', 'Action', 'Problem']


def frozen_array(values) -> np.ndarray:
    """A read-only float array (data shared between threads must not change under them)."""
    array = np.array(values, dtype=float)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class DiscreteGrasp:
    """``<gf type>``: one grasp frame ``X_object_grasp``."""

    type: str
    frame: np.ndarray  # 4x4 in the object frame
    line: int | None = None


@dataclass(frozen=True, eq=False)
class ContinuousGrasp:
    """``<gc type>``: the grasp frames ``Rot(axis, θ) · template``, θ in [0, 2π)."""

    type: str
    template: np.ndarray  # 4x4 in the object frame
    axis: np.ndarray      # unit vector in the object frame
    line: int | None = None


@dataclass(frozen=True, eq=False)
class SupportRegion:
    """``<sssp>`` (kind ``point`` or ``rectangle``) or ``<pssp>`` (kind ``polygon``).

    ``low``/``high`` are the (x, y, z) bounds of a rectangle or point; ``points`` (n, 3) the
    polygon's vertices, in order. All in the supporting object's frame.
    """

    kind: str
    low: np.ndarray | None = None
    high: np.ndarray | None = None
    points: np.ndarray | None = None
    line: int | None = None


@dataclass(frozen=True, eq=False)
class StablePose:
    """``<sop>``: orientations ``Rot(axis, θ) · template`` (world frame), centre ``distance``
    above the support region."""

    template: np.ndarray  # 3x3 rotation in the world frame
    axis: np.ndarray      # unit vector in the world frame
    distance: float
    line: int | None = None


@dataclass(frozen=True, eq=False)
class ProblemObject:
    name: str
    geom: str | None            #: mesh path as written in the file
    mesh_path: str | None       #: absolute path of the mesh (resolved against the problem file)
    pose: np.ndarray            #: initial pose in the world frame (4x4)
    moveable: bool
    grasps: tuple[DiscreteGrasp, ...] = ()
    continuous_grasps: tuple[ContinuousGrasp, ...] = ()
    support: SupportRegion | None = None
    stable_poses: tuple[StablePose, ...] = ()
    attachments: tuple[str, ...] = ()   #: names of the objects attached to this one
    line: int | None = None


@dataclass(frozen=True, eq=False)
class ProblemRobot:
    name: str
    description: str            #: the file as written in <urdf>
    description_path: str       #: resolved absolute path
    basepose: np.ndarray        #: 4x4 in the world frame
    movebase: bool
    configurations: Mapping[str, tuple[float, ...]]  #: tag (torso, left_arm, ...) → values
    joint_positions: Mapping[str, float] = field(default_factory=dict)  #: after the mapping
    format: str = ''            #: the description's format (urdf, sdf, hrdf, ...)
    dof_names: tuple[str, ...] = ()
    joint_names: tuple[str, ...] = ()
    line: int | None = None
    tree: KinematicTree | None = None  #: the description's (None if robots not loaded)


@dataclass(frozen=True, eq=False)
class Action:
    """``<AMmapping><action>``: the joints an action may move."""

    name: str
    joints: tuple[str, ...]
    line: int | None = None


@dataclass(frozen=True, eq=False)
class Problem:
    path: str
    objects: Mapping[str, ProblemObject]   #: in document order
    robots: Mapping[str, ProblemRobot]     #: in document order
    actions: Mapping[str, Action]          #: in document order

    def parent_of(self) -> dict[str, str]:
        """The initial attachments as child → parent."""
        return {child: obj.name for obj in self.objects.values() for child in obj.attachments}
