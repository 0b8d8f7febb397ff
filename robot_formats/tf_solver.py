"""Joint positions → parent-to-child transforms, fast enough for 1 kHz joint states.

The description publisher's hot path: for every JointState message, compute the local
transform ``X_parent_child`` of each moving joint named in it (and of the mimic joints that
follow them). :class:`TransformSolver` precomputes everything that does not depend on q and
evaluates revolute and prismatic joints (nearly all joints of real robots) in batched numpy;
other kinds fall back to :func:`robot_formats.kinematics.joint_motion`. No ROS here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .kinematics import KinematicTree, joint_motion
from .model import JointType, dof_names
from .transforms import axis_angles, normalized, rotation_to_quat, rotations_to_quats

__all__ = ['StaticTransform', 'TransformSolver']

_ROTARY = (JointType.REVOLUTE, JointType.CONTINUOUS)


@dataclass(frozen=True, slots=True)
class StaticTransform:
    parent: str
    child: str
    xyz: tuple[float, float, float]
    quat: tuple[float, float, float, float]


class TransformSolver:
    """Local transforms of a kinematic tree's moving joints at any configuration."""

    def __init__(self, tree: KinematicTree) -> None:
        self.tree = tree
        self.moving = [name for name in tree.order if tree.edges[name].moving]
        #: (parent, child) frame names of each moving edge, in :attr:`moving` order
        self.pairs = [(tree.edges[c].parent, c) for c in self.moving]
        count = len(self.moving)
        joints = [tree.edges[c].joint for c in self.moving]
        # value of each edge's (first) coordinate: scale * q[source] + offset (mimic-aware)
        self.source = np.zeros(count, dtype=np.intp)
        self.scale = np.ones(count)
        self.offset = np.zeros(count)
        self.kind = np.zeros(count, dtype=np.int8)  # 0 generic, 1 rotary, 2 prismatic
        self.axes = np.zeros((count, 3))
        self.rot_parent = np.zeros((count, 3, 3))   # R of X_PJ
        self.trans_parent = np.zeros((count, 3))    # t of X_PJ
        self.rot_child = np.zeros((count, 3, 3))    # R of X_JC
        self.trans_child = np.zeros((count, 3))     # t of X_JC
        self.dof_edges: dict[int, list[int]] = {}   # DoF index -> edges it moves
        for i, (child, joint) in enumerate(zip(self.moving, joints)):
            assert joint is not None
            edge = tree.edges[child]
            self.rot_parent[i], self.trans_parent[i] = edge.origin[:3, :3], edge.origin[:3, 3]
            self.rot_child[i], self.trans_child[i] = edge.offset[:3, :3], edge.offset[:3, 3]
            if joint.mimic is not None:
                self.source[i] = tree.dof_index[joint.mimic.joint]
                self.scale[i], self.offset[i] = joint.mimic.multiplier, joint.mimic.offset
                moved_by = [int(self.source[i])]
            else:
                moved_by = [tree.dof_index[n] for n in dof_names(joint)]
                self.source[i] = moved_by[0]
            for dof in moved_by:
                self.dof_edges.setdefault(dof, []).append(i)
            if joint.type in _ROTARY:
                self.kind[i], self.axes[i] = 1, normalized(joint.axis)
            elif joint.type is JointType.PRISMATIC:
                self.kind[i], self.axes[i] = 2, normalized(joint.axis)
        self._joints = joints
        self._selection_cache: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}

    def static_transforms(self) -> list[StaticTransform]:
        """Every non-moving edge (fixed joints, frames, model placements)."""
        out = []
        for child in self.tree.order:
            edge = self.tree.edges[child]
            if edge.moving:
                continue
            matrix = edge.origin @ edge.offset
            x, y, z = (float(v) for v in matrix[:3, 3])
            out.append(StaticTransform(edge.parent, child, (x, y, z),
                                       rotation_to_quat(matrix[:3, :3])))
        return out

    def select(self, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """For JointState ``names``: (positions in the message → DoF indices, edges to publish).

        Unknown names are ignored (as robot_state_publisher does). Cached per name list, since
        a joint state source sends the same names every time.
        """
        key = tuple(names)
        cached = self._selection_cache.get(key)
        if cached is not None:
            return cached
        message_index, dof_index, edges = [], [], set()
        for position, name in enumerate(key):
            index = self.tree.dof_index.get(name)
            if index is None:
                continue
            message_index.append(position)
            dof_index.append(index)
            edges.update(self.dof_edges.get(index, ()))
        mapping = np.array([message_index, dof_index], dtype=np.intp).reshape(2, -1)
        result = (mapping, np.array(sorted(edges), dtype=np.intp))
        if len(self._selection_cache) > 64:
            self._selection_cache.clear()
        self._selection_cache[key] = result
        return result

    def solve(self, q: np.ndarray, edges: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(edge indices, translations (k, 3), quaternions (k, 4)) at configuration ``q``."""
        if edges is None:
            edges = np.arange(len(self.moving), dtype=np.intp)
        count = edges.size
        rotation = np.empty((count, 3, 3))
        shift = np.empty((count, 3))  # translation added in the joint frame, before X_JC
        kinds = self.kind[edges]
        values = self.scale[edges] * q[self.source[edges]] + self.offset[edges]
        rotary = kinds == 1
        if rotary.any():
            rotation[rotary] = axis_angles(self.axes[edges[rotary]], values[rotary])
            shift[rotary] = 0.0
        prismatic = kinds == 2
        if prismatic.any():
            rotation[prismatic] = np.eye(3)
            shift[prismatic] = self.axes[edges[prismatic]] * values[prismatic, None]
        for local in np.flatnonzero(kinds == 0):
            joint = self._joints[edges[local]]
            motion = joint_motion(joint, self.tree.joint_values(joint, q))  # type: ignore[arg-type]
            rotation[local], shift[local] = motion[:3, :3], motion[:3, 3]
        # X = X_PJ · (R_m, s) · X_JC  =  (Rp Rm Rc,  Rp (Rm tc + s) + tp)
        rot_p = self.rot_parent[edges]
        inner = np.einsum('nij,nj->ni', rotation, self.trans_child[edges]) + shift
        translations = np.einsum('nij,nj->ni', rot_p, inner) + self.trans_parent[edges]
        rotations = rot_p @ rotation @ self.rot_child[edges]
        return edges, translations, rotations_to_quats(rotations)
