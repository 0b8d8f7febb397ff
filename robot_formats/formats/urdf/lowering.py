"""Lower any kinematic tree to what URDF can say, without changing a single frame's pose.

URDF knows one-DoF joints whose child frame *is* the joint frame. The neutral model knows more:
multi-DoF joints, joint frames offset from the child link, explicit frames, several models in a
world. This module rewrites a :class:`~robot_formats.core.kinematics.KinematicTree` into a single
URDF-shaped :class:`~robot_formats.core.model.Model`:

* every frame of the tree becomes a URDF link of the same name (explicit frames and the world
  root become massless links joined by fixed joints), so TF shows the same frames;
* universal, euler, translational, planar and screw joints become exact chains of one-DoF
  joints through massless links; the chain's joints carry the DoF names of the original joint
  (``j/axis1``, ``j/z``, ``j/x``, ``j/trans1``, ...), so a JointState drives both alike. A screw
  is a revolute ``j`` plus a prismatic ``j/translation`` that mimics it with multiplier
  pitch / 2π;
* ball and floating joints stay single joints (written as URDF ``floating``); their true
  motion is computed by robot_formats' description publisher from ``j/rot_x`` ... ``j/pos_z``;
* a joint frame offset from its child link is folded into the joint's origin and axis where
  that is exact (fixed, prismatic, and revolute joints whose axis passes through the child
  origin), and otherwise kept as a massless ``<joint>/frame`` link plus a fixed joint.

Generated link and joint names use ``/`` suffixes of the original names; if one would collide
with an existing name, ``~2``, ``~3``... is appended (deterministically). Link names (= TF frame
ids) never start with ``/``: a leading slash is dropped, with the same collision rule.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from robot_formats.core.kinematics import Edge, KinematicTree, planar_axes
from robot_formats.core.lazy import numpy_on_first_use
from robot_formats.core.model import (IDENTITY, Joint, JointType, Limits, Link, Mimic, Model,
                                      Pose, dof_names)
from robot_formats.core.transforms import matrix_to_pose, normalized, pose_to_matrix

if TYPE_CHECKING:
    import numpy as np
else:
    np = numpy_on_first_use(globals())

__all__ = ['lower', 'URDF_NATIVE']

#: Joint kinds a lowered model may contain (ball and floating are written as URDF floating).
URDF_NATIVE = frozenset({JointType.FIXED, JointType.REVOLUTE, JointType.CONTINUOUS,
                         JointType.PRISMATIC, JointType.BALL, JointType.FLOATING})
_AXES = {'x': (1.0, 0.0, 0.0), 'y': (0.0, 1.0, 0.0), 'z': (0.0, 0.0, 1.0)}


class _Namer:
    """Hands out unique names per namespace (links and joints are separate in URDF)."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = set(taken)

    def __call__(self, wanted: str) -> str:
        name, counter = wanted, 1
        while name in self.taken:
            counter += 1
            name = f'{wanted}~{counter}'
        self.taken.add(name)
        return name


def lower(tree: KinematicTree, name: str | None = None) -> Model:
    """A URDF-shaped model with exactly the tree's frames (plus helper links)."""
    return _Lowering(tree).run(name or tree.scene.name)


class _Lowering:
    def __init__(self, tree: KinematicTree) -> None:
        self.tree = tree
        self.links: list[Link] = []
        self.joints: list[Joint] = []
        self.joint_names = _Namer(set(tree.joints))
        # Frame ids may not start with '/' (tf2 refuses them): strip it, keep names unique.
        plain = {name for name in tree.frame_names() if not name.startswith('/')}
        self.link_names = _Namer(plain)
        self.frame_link = {name: name if name in plain else self.link_names(name.lstrip('/') or '_')
                           for name in tree.frame_names()}

    def run(self, name: str) -> Model:
        tree = self.tree
        for frame in tree.frame_names():
            link = tree.links.get(frame)
            self.links.append(_replace(link, name=self.frame_link[frame]) if link
                              else Link(self.frame_link[frame]))
        for child in tree.order:
            edge = tree.edges[child]
            if edge.joint is None:
                self.joints.append(Joint(self.joint_names(f'{self.frame_link[child]}/attach'),
                                         JointType.FIXED, self.frame_link[edge.parent],
                                         self.frame_link[child], _canonical(edge.pose)))
            else:
                joint = _replace(edge.joint, parent=self.frame_link[edge.joint.parent],
                                 child=self.frame_link[edge.joint.child])
                self.lower_joint(joint, edge)
        return Model(name, tuple(self.links), tuple(self.joints),
                     initial_positions=dict(tree.initial_positions), source=tree.scene.source)

    def helper_link(self, wanted: str) -> str:
        name = self.link_names(wanted)
        self.links.append(Link(name))
        return name

    def lower_joint(self, joint: Joint, edge: Edge) -> None:
        """Emit the chain for ``joint``, which ``edge`` places (X_PJ, and X_JC: joint frame →
        child link)."""
        steps = _chain(joint)
        parent = joint.parent
        origin_pose = _canonical(edge.pose)
        for index, step in enumerate(steps):
            last = index == len(steps) - 1
            step_origin = origin_pose if index == 0 else IDENTITY
            if not last:
                child = self.helper_link(step.name)
                self.joints.append(_replace(step, parent=parent, child=child, origin=step_origin))
                parent = child
                continue
            self.finish(_replace(step, parent=parent, child=joint.child, origin=step_origin),
                        edge)

    def finish(self, step: Joint, edge: Edge) -> None:
        """Emit the joint that ends at the real child, folding X_JC into it where exact."""
        if edge.child_offset.is_identity or _is_identity(edge.offset):
            self.joints.append(step)
            return
        offset = edge.offset
        folded = _fold(step, offset)
        if folded is not None:
            self.joints.append(folded)
            return
        frame_link = self.helper_link(f'{step.name}/frame')
        self.joints.append(_replace(step, child=frame_link))
        self.joints.append(Joint(self.joint_names(f'{step.name}/offset'), JointType.FIXED,
                                 frame_link, step.child, matrix_to_pose(offset)))


def _replace(obj, **changes):  # noqa: ANN001, ANN201 - as dataclasses.replace
    """``dataclasses.replace``, or ``obj`` itself when every change is already its value (the
    usual case: a URDF's names and poses pass through lowering unchanged)."""
    for name, value in changes.items():
        current = getattr(obj, name)
        if current is not value and current != value:
            return replace(obj, **changes)
    return obj


def _canonical(pose: Pose) -> Pose:
    """``pose`` with w >= 0, as :func:`matrix_to_pose` gives poses (the same rotation)."""
    x, y, z, w = pose.quat
    return pose if w >= 0.0 else Pose(pose.xyz, (-x, -y, -z, -w))


def _is_identity(matrix: np.ndarray) -> bool:
    return bool(np.allclose(matrix, np.eye(4), atol=1e-12, rtol=0.0))


def _fold(joint: Joint, offset: np.ndarray) -> Joint | None:
    """``joint`` with X_JC folded in: origin' = X_PJ·X_JC, axis' = R_JCᵀ·axis; None if inexact."""
    rotation_jc, translation_jc = offset[:3, :3], offset[:3, 3]
    origin = pose_to_matrix(joint.origin) @ offset
    axis = rotation_jc.T @ np.asarray(joint.axis, dtype=float)
    if joint.type in (JointType.REVOLUTE, JointType.CONTINUOUS):
        joint_origin_in_child = -rotation_jc.T @ translation_jc
        if np.linalg.norm(np.cross(joint_origin_in_child, normalized(axis))) > 1e-12:
            return None
    elif joint.type not in (JointType.FIXED, JointType.PRISMATIC):
        return None
    return _replace(joint, origin=matrix_to_pose(origin),
                    axis=(float(axis[0]), float(axis[1]), float(axis[2])), child_offset=IDENTITY)


def _one_dof(name: str, axis: tuple[float, ...], rotational: bool, limit: Limits | None,
             template: Joint, mimic: Mimic | None = None) -> Joint:
    bounded = limit is not None and limit.lower is not None and limit.upper is not None
    if rotational:
        kind = JointType.REVOLUTE if bounded else JointType.CONTINUOUS
    else:
        kind = JointType.PRISMATIC
    x, y, z = (float(v) for v in axis)
    return Joint(name, kind, template.parent, template.child, IDENTITY, (x, y, z),
                 limits=(limit,) if limit is not None else (), dynamics=template.dynamics,
                 mimic=mimic, line=template.line)


def _chain(joint: Joint) -> list[Joint]:
    """The one-DoF (or ball/floating) joints whose product is the joint's motion M(q)."""
    kind = joint.type
    if kind in URDF_NATIVE:
        if joint.axis2 is None and joint.child_offset == IDENTITY:
            return [joint]
        return [_replace(joint, child_offset=IDENTITY, axis2=None)]
    limits = list(joint.limits) + [None] * 3
    name = joint.name
    names = dof_names(joint)  # multi-DoF joints never mimic (KinematicTree refuses it)
    if kind is JointType.SCREW:
        rotation = _replace(joint, type=JointType.CONTINUOUS if not joint.limits else
                            JointType.REVOLUTE, child_offset=IDENTITY)
        ratio = joint.pitch / (2.0 * math.pi)
        # A screw that itself mimics a leader: the translation follows that leader directly
        # (a mimic of a mimic joint is not a valid URDF/KinematicTree mimic).
        follow = (Mimic(joint.mimic.joint, ratio * joint.mimic.multiplier,
                        ratio * joint.mimic.offset) if joint.mimic is not None
                  else Mimic(name, ratio, 0.0))
        translation = _one_dof(f'{name}/translation', joint.axis, False, None, joint, follow)
        return [rotation, translation]
    if kind is JointType.UNIVERSAL:
        assert joint.axis2 is not None
        return [_one_dof(names[0], joint.axis, True, limits[0], joint),
                _one_dof(names[1], joint.axis2, True, limits[1], joint)]
    if kind is JointType.EULER:
        return [_one_dof(names[i], _AXES[letter], True, limits[i], joint)
                for i, letter in enumerate(joint.axis_order)]
    if kind is JointType.TRANSLATIONAL:
        return [_one_dof(names[i], _AXES[letter], False, limits[i], joint)
                for i, letter in enumerate('xyz')]
    if kind is JointType.PLANAR:
        t1, t2 = planar_axes(joint)
        normal = np.cross(t1, t2)
        return [_one_dof(names[0], tuple(t1), False, limits[0], joint),
                _one_dof(names[1], tuple(t2), False, limits[1], joint),
                _one_dof(names[2], tuple(normal), True, limits[2], joint)]
    raise AssertionError(kind)  # pragma: no cover

