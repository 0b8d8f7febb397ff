"""Joint positions → parent-to-child transforms, fast enough for 1 kHz joint states.

The description publisher's hot path: for every JointState message, compute the local
transform ``X_parent_child`` of each moving joint named in it (and of the mimic joints that
follow them). :class:`TransformSolver` precomputes everything that does not depend on q and
evaluates revolute and prismatic joints (nearly all joints of real robots) in batched numpy;
other kinds fall back to :func:`robot_formats.core.kinematics.joint_motion`. :class:`JointStateTf`
holds the rules around it (which message sets what, the rate cap) for every node publishing TF
from joint states. No ROS here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from robot_formats.core.kinematics import KinematicTree
from robot_formats.core.model import JointType, dof_names
from robot_formats.core.rotations import quat_multiply
from robot_formats.core.transforms import normalized, rotation_to_quat, rotations_to_quats

__all__ = ['JointStateRefused', 'JointStateTf', 'SolvePlan', 'StaticTransform', 'TransformSolver']

_ROTARY = (JointType.REVOLUTE, JointType.CONTINUOUS)
_NO_POSITIONS = np.zeros(0)  # fixed edges do not read the configuration


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
        self.dof_edges: dict[int, list[int]] = {}   # DoF index -> edges it moves
        for i, joint in enumerate(joints):
            assert joint is not None
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
        self._precompute_closed_forms()
        self._plans: dict[tuple[str, ...], SolvePlan] = {}

    def static_transforms(self) -> list[StaticTransform]:
        """Every non-moving edge (fixed joints, frames, model placements)."""
        out = []
        for child in self.tree.order:
            edge = self.tree.edges[child]
            if edge.moving:
                continue
            matrix = self.tree.local_transform(child, _NO_POSITIONS)
            x, y, z = (float(v) for v in matrix[:3, 3])
            out.append(StaticTransform(edge.parent, child, (x, y, z),
                                       rotation_to_quat(matrix[:3, :3])))
        return out

    def select(self, names: Sequence[str]) -> SolvePlan:
        """The plan for a JointState with these ``names``: which DoFs and edges it moves.

        Unknown names are ignored (as robot_state_publisher does). Cached per name list, since
        a joint state source sends the same names every time.
        """
        key = tuple(names)
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        message_index: list[int] = []
        dof_index: list[int] = []
        edges: set[int] = set()
        for position, name in enumerate(key):
            index = self.tree.dof_index.get(name)
            if index is None:
                continue
            message_index.append(position)
            dof_index.append(index)
            edges.update(self.dof_edges.get(index, ()))
        plan = self.plan(np.array(sorted(edges), dtype=np.intp))
        plan.message_index = np.array(message_index, dtype=np.intp)
        plan.dof_index = np.array(dof_index, dtype=np.intp)
        if len(self._plans) > 64:
            self._plans.clear()
        self._plans[key] = plan
        return plan

    def plan(self, edges: np.ndarray) -> SolvePlan:
        """A plan evaluating ``edges``: rotary ones first, then prismatic, then the rest."""
        kinds = self.kind[edges]
        ordered = np.concatenate([edges[kinds == 1], edges[kinds == 2], edges[kinds == 0]])
        return SolvePlan(self, ordered, int((kinds == 1).sum()), int((kinds == 2).sum()))

    def solve_plan(self, q: np.ndarray, plan: SolvePlan) -> np.ndarray:
        """Poses (k, 7) = (x, y, z, qx, qy, qz, qw) of the plan's edges, in plan order."""
        values = q[plan.source]
        if plan.scale is not None:
            values = values * plan.scale + plan.offset
        features, rotary, prismatic = plan.features, plan.rotary, plan.prismatic
        angles = values[:rotary]
        half = angles * 0.5
        np.cos(half, out=features[:rotary, 0])
        np.sin(half, out=features[:rotary, 1])
        np.cos(angles, out=features[:rotary, 2])
        np.sin(angles, out=features[:rotary, 3])
        features[rotary:rotary + prismatic, 2] = values[rotary:rotary + prismatic]
        poses = np.einsum('ij,ijk->ik', features, plan.constants)  # row i: f_i · K_i
        if plan.generic.size:
            poses[plan.generic] = self._solve_generic(q, plan.edges[plan.generic])
        return poses

    def solve(self, q: np.ndarray, edges: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(edge indices, translations (k, 3), quaternions (k, 4)) at configuration ``q``."""
        if edges is None:
            edges = np.arange(len(self.moving), dtype=np.intp)
        plan = self.plan(np.asarray(edges, dtype=np.intp))
        poses = self.solve_plan(np.asarray(q, dtype=float), plan)
        return plan.edges, poses[:, :3], poses[:, 3:]

    def _solve_generic(self, q: np.ndarray, edges: np.ndarray) -> np.ndarray:
        """Poses (k, 7) by the matrix path, for joint kinds without a closed form here."""
        matrices = np.array([self.tree.local_transform(self.moving[edge], q) for edge in edges])
        return np.concatenate([matrices[:, :3, 3], rotations_to_quats(matrices[:, :3, :3])],
                              axis=1)

    def _precompute_closed_forms(self) -> None:
        """Constants of X_PJ · M(v) · X_JC for revolute (Rot(a, v)) and prismatic (a·v) joints.

        Each edge's pose (t, quaternion) is ``[c, s, f1, f2, 1] @ K`` with a constant 5×7 K:
        rotation: with qp, qc the quaternions of X_PJ and X_JC, qp ⊗ (a·sin(v/2), cos(v/2)) ⊗ qc
        = c·A + s·B (c, s = cos, sin of v/2), A = qp⊗qc, B = qp⊗(a,0)⊗qc; translation: by
        Rodrigues, Rp·Rot(a,v)·tc + tp = f1·U + f2·V + W (f1, f2 = cos v, sin v) with
        U = Rp(tc − a(a·tc)), V = Rp(a × tc), W = Rp·a(a·tc) + tp. Prismatic: c = 1, s = 0,
        f1 = v, f2 = 0, U = Rp·a, W = Rp·tc + tp.
        """
        self.constants = np.zeros((len(self.moving), 5, 7))
        for i, child in enumerate(self.moving):
            edge = self.tree.edges[child]
            rot_p, t_p = edge.origin[:3, :3], edge.origin[:3, 3]
            t_c, axis = edge.offset[:3, 3], self.axes[i]
            qp = np.array(rotation_to_quat(rot_p))
            qc = np.array(rotation_to_quat(edge.offset[:3, :3]))
            k = self.constants[i]
            k[0, 3:] = quat_multiply(qp, qc)
            if self.kind[i] == 1:
                k[1, 3:] = quat_multiply(quat_multiply(qp, np.append(axis, 0.0)), qc)
                along = axis * (axis @ t_c)
                k[2, :3] = rot_p @ (t_c - along)
                k[3, :3] = rot_p @ np.cross(axis, t_c)
                k[4, :3] = rot_p @ along + t_p
            elif self.kind[i] == 2:
                k[2, :3] = rot_p @ axis
                k[4, :3] = rot_p @ t_c + t_p


class SolvePlan:
    """Precomputed, per edge selection: gathered constants and a reusable feature matrix.

    Not thread-safe: the feature matrix is reused by every solve (a node solves on one thread).
    """

    def __init__(self, solver: TransformSolver, edges: np.ndarray, rotary: int, prismatic: int
                 ) -> None:
        self.edges = edges
        self.rotary, self.prismatic = rotary, prismatic
        self.generic = np.arange(rotary + prismatic, edges.size, dtype=np.intp)
        self.pairs = [solver.pairs[i] for i in edges]
        self.source = solver.source[edges]
        mimic = (solver.scale[edges] != 1.0) | (solver.offset[edges] != 0.0)
        self.scale = solver.scale[edges] if mimic.any() else None
        self.offset = solver.offset[edges] if mimic.any() else None
        self.constants = solver.constants[edges]
        self.features = np.zeros((edges.size, 5))
        self.features[:, 4] = 1.0
        self.features[rotary:rotary + prismatic, 0] = 1.0
        self.message_index = np.zeros(0, dtype=np.intp)  #: JointState positions used ...
        self.dof_index = np.zeros(0, dtype=np.intp)      #: ... and the DoFs they set


class JointStateRefused(ValueError):
    """A joint state message that cannot be used at all (the sentence says why)."""


class JointStateTf:
    """What robot_state_publisher does with ``joint_states``, without ROS: one robot's positions
    follow the messages, and the moving transforms they change are published under a rate cap.

    Shared by every node that turns joint states into TF (description_publisher, and
    problem_server for each robot of a problem), so they follow the same rules:

    * a message sets the DoFs it names (unknown names are ignored, mimic joints follow their
      leader); one whose name and position counts differ, or with a non-finite position for a
      known joint, is refused whole (:class:`JointStateRefused`);
    * the rate cap is robot_state_publisher's (``callbackJointState``): each DoF remembers the
      ``header.stamp`` of the last transforms published for it, and a message is published when
      its stamp is at least :attr:`interval` after the oldest of those of the DoFs it names
      (:attr:`interval`: ``1000 / frequency`` ms truncated to whole milliseconds, as there; 0
      for ``frequency`` 0, no cap); with :attr:`ignore_timestamp` every message is published.
      Time is the stamps' time, not the wall clock: a recording played fast is capped by its
      own stamps;
    * a message that fails the cap is dropped when its stamp is not newer than every stamp
      published for its DoFs (an old or repeated state, as robot_state_publisher drops it) and
      is otherwise *held* (robot_formats' addition: robot_state_publisher drops it too):
      :meth:`due` hands it out once the node's clock has passed the time the cap allows, unless a
      newer message of the same source (the same list of names) was published first, so the last
      state of a burst always reaches TF;
    * when the node's clock moves backwards (a simulation or a recording restarted), the cap's
      history is forgotten (:meth:`clock_moved_back`), as robot_state_publisher does.

    ``positions`` is the caller's DoF vector, updated in place. Stamps and clock readings are
    integer nanoseconds; a caller replaces a zero stamp by its clock's now before calling.
    """

    #: "Never published": earlier than any stamp.
    NEVER = -(1 << 62)

    def __init__(self, solver: TransformSolver, positions: np.ndarray, frequency: float,
                 ignore_timestamp: bool = False) -> None:
        self.solver = solver
        self.positions = positions
        self.ignore_timestamp = ignore_timestamp
        self.interval = 0
        self.frequency = frequency
        self._last_stamp = np.full(positions.size, self.NEVER, dtype=np.int64)  # per DoF
        self._held: dict[SolvePlan, int] = {}  # plan -> stamp held back
        self._last_clock = self.NEVER

    @property
    def frequency(self) -> float:
        return self._frequency

    @frequency.setter
    def frequency(self, value: float) -> None:
        """The cap in Hz (0: none); robot_state_publisher's interval, ``1000 / f`` whole ms."""
        self._frequency = value
        self.interval = int(1000.0 / value) * 1_000_000 if value > 0 else 0

    def update(self, names: Sequence[str], values: Sequence[float]) -> SolvePlan:
        """Apply one message without the rate cap (for a caller that publishes no TF for it);
        the plan of the transforms it moves (maybe none: ``plan.edges`` empty). Raises
        :class:`JointStateRefused` and changes nothing for a bad message."""
        plan, chosen = self._checked(names, values)
        if chosen is not None:
            self.positions[plan.dof_index] = chosen
        return plan

    def receive(self, names: Sequence[str], values: Sequence[float], stamp: int
                ) -> tuple[SolvePlan, bool]:
        """Apply one message stamped ``stamp`` under the rate cap: (its plan, whether to
        publish the plan's transforms now with that stamp). A message the cap drops changes
        nothing; a held one sets its positions now (:meth:`due` publishes it later). Raises
        :class:`JointStateRefused` and changes nothing for a bad message."""
        plan, chosen = self._checked(names, values)
        if chosen is None:
            return plan, False
        dofs = plan.dof_index
        last = self._last_stamp[dofs]
        publish = self.ignore_timestamp or stamp >= int(last.min()) + self.interval
        if not publish and stamp <= int(last.max()):
            return plan, False  # not newer than what TF has: dropped
        self.positions[dofs] = chosen
        if publish:
            self._published(plan, stamp)
        else:
            self._held[plan] = stamp
        return plan, publish

    def due(self, clock: int) -> list[tuple[SolvePlan, int]]:
        """Held-back (plan, stamp) pairs the cap allows at the node's clock reading ``clock``:
        publish each now, with its stamp. Each is then taken as published."""
        out = []
        for plan, stamp in list(self._held.items()):
            last = self._last_stamp[plan.dof_index]
            if stamp <= int(last.max()):
                del self._held[plan]  # something newer was published for its joints
            elif clock >= int(last.min()) + self.interval:
                self._published(plan, stamp)
                out.append((plan, stamp))
        return out

    def clock_moved_back(self, clock: int) -> bool:
        """Note the node's clock reading ``clock`` (at each message); True, and the cap's history
        forgotten, when it is earlier than the previous one."""
        moved_back = clock < self._last_clock
        self._last_clock = clock
        if moved_back:
            self.forget()
        return moved_back

    def forget(self) -> None:
        """Drop held-back updates and the rate cap's history."""
        self._held.clear()
        self._last_stamp.fill(self.NEVER)

    def _published(self, plan: SolvePlan, stamp: int) -> None:
        self._last_stamp[plan.dof_index] = stamp
        self._held.pop(plan, None)

    def _checked(self, names: Sequence[str], values: Sequence[float]
                 ) -> tuple[SolvePlan, np.ndarray | None]:
        """The message's plan and the values of the DoFs it names (None: it names none)."""
        if len(names) != len(values):
            raise JointStateRefused(f'a joint_states message with {len(names)} names but '
                                    f'{len(values)} positions')
        plan = self.solver.select(names)
        if not plan.dof_index.size:
            return plan, None
        chosen = np.asarray(values, dtype=float)[plan.message_index]
        if not np.isfinite(chosen).all():
            raise JointStateRefused('a joint_states message with non-finite positions')
        return plan, chosen
