"""Everything a description publisher serves about one loaded file, built in one go.

:meth:`Description.load` parses the file, flattens and lowers it to URDF, and precomputes the
transform solver. It either returns a complete :class:`Description` or raises a
:class:`~robot_formats.core.errors.FormatError` — never half a model, which is what makes a failed
reload harmless: the node swaps descriptions only after this has succeeded. No ROS here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

import numpy as np

from robot_formats.core.errors import Diagnostic, InvalidValueError
from robot_formats.formats import LoadResult, load, load_text
from robot_formats.core.kinematics import KinematicTree
from robot_formats.core.model import Scene
from robot_formats.runtime.ros2_control import ControlOptions, urdf_with_ros2_control
from robot_formats.runtime.tf_solver import StaticTransform, TransformSolver
from robot_formats.formats.urdf.lowering import lower
from robot_formats.formats.urdf.writer import model_to_urdf

__all__ = ['Description', 'parse_positions']


@dataclass(frozen=True)
class Description:
    """A loaded document ready to publish: URDF text, TF tree and initial configuration."""

    path: str
    format: str
    scene: Scene
    warnings: tuple[Diagnostic, ...]
    tree: KinematicTree          #: the document's own frames
    urdf_tree: KinematicTree     #: the lowered tree: exactly the URDF's links and joints
    urdf: str
    solver: TransformSolver
    static: tuple[StaticTransform, ...]
    #: Information that is no irregularity (another tool's extension read past): logged.
    notes: tuple[Diagnostic, ...] = ()

    @classmethod
    def load(cls, path: str | Path, initial_positions: Mapping[str, float] | None = None,
             xacro_args: Mapping[str, str] | None = None, world: str | None = None
             ) -> Description:
        """Load ``path`` (a ``.xacro`` file expanded with ``xacro_args``; ``world``: the world
        of an SDFormat file holding several); ``initial_positions`` (DoF name → value) override
        the file's."""
        return cls.from_result(load(path, xacro_args, world=world or None), str(path),
                               initial_positions)

    @classmethod
    def from_text(cls, text: str, initial_positions: Mapping[str, float] | None = None,
                  source: str = '<robot_description>') -> Description:
        """A description given as text: robot_state_publisher's ``robot_description``."""
        return cls.from_result(load_text(text, source), source, initial_positions)

    @classmethod
    def from_result(cls, result: LoadResult, path: str,
                    initial_positions: Mapping[str, float] | None = None) -> Description:
        tree = result.tree or KinematicTree(result.scene)
        lowered = lower(tree)
        urdf_scene = Scene(lowered.name, (lowered,), is_world=False, source=result.path)
        urdf_tree = KinematicTree(urdf_scene)
        unknown = sorted(set(initial_positions or {}) - set(urdf_tree.dof_index))
        if unknown:
            raise InvalidValueError(
                f'initial_positions names unknown degrees of freedom: {", ".join(unknown)} '
                f'(known: {", ".join(urdf_tree.dof_names) or "none"})', result.path)
        if initial_positions:
            urdf_tree.initial_positions.update(initial_positions)
        solver = TransformSolver(urdf_tree)
        return cls(path, result.format, result.scene, result.warnings, tree, urdf_tree,
                   model_to_urdf(lowered, source=result.path), solver,
                   tuple(solver.static_transforms()), result.notes)

    def with_ros2_control(self, options: ControlOptions, option: str = 'joints'
                          ) -> Description:
        """The same description whose URDF carries a ``<ros2_control>`` block (see
        :mod:`robot_formats.runtime.ros2_control`), for controller_manager to read from
        ``robot_description``. InvalidValueError for joints that cannot be commanded (the
        message names ``option``, where they came from)."""
        return replace(self, urdf=urdf_with_ros2_control(self.urdf, self.urdf_tree, options,
                                                         option))

    @property
    def dof_names(self) -> tuple[str, ...]:
        """JointState names, in the document's natural order."""
        return self.urdf_tree.dof_names

    def initial_vector(self) -> np.ndarray:
        return self.urdf_tree.positions_vector()

    def has_link(self, link: str) -> bool:
        """Whether ``link`` is a frame of the URDF tree (and so, prefixed, of TF)."""
        return link == self.urdf_tree.root or link in self.urdf_tree.edges

    def link_pose(self, link: str, positions: np.ndarray) -> np.ndarray:
        """``X_root_link`` at the DoF vector ``positions``: only the transforms of the chain
        from the root to ``link`` (a node asked about one frame need not solve them all).
        KeyError for a frame the tree does not have."""
        tree = self.urdf_tree
        if not self.has_link(link):
            raise KeyError(link)
        pose = np.eye(4)
        while link != tree.root:
            pose = tree.local_transform(link, positions) @ pose
            link = tree.edges[link].parent
        return pose


def parse_positions(items: list[str] | tuple[str, ...] | str) -> dict[str, float]:
    """``['shoulder=0.5', 'elbow=-1']`` (or one comma-separated string) → mapping.

    Raises:
        ValueError: an item is not ``name=number`` with a finite number.
    """
    if isinstance(items, str):
        items = items.split(',')
    out: dict[str, float] = {}
    for item in items:
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition('=')
        try:
            number = float(value)
        except ValueError:
            number = float('nan')
        if not sep or not name.strip() or not np.isfinite(number):
            raise ValueError(f'{item!r} is not NAME=NUMBER')
        out[name.strip()] = number
    return out
