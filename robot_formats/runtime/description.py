"""Everything a description publisher serves about one loaded file, built in one go.

:meth:`Description.load` parses the file, flattens and lowers it to URDF, and precomputes the
transform solver. It either returns a complete :class:`Description` or raises a
:class:`~robot_formats.core.errors.FormatError` — never half a model, which is what makes a failed
reload harmless: the node swaps descriptions only after this has succeeded. No ROS here.

What is served as ``robot_description`` is chosen here, once, for every node
(:attr:`Description.robot_description`): a URDF document (a ``.urdf`` file, a ``.xacro`` file's
expansion, or URDF text) is served exactly as given, as robot_state_publisher serves it, so
every extension it holds (``<ros2_control>``, ``<gazebo>``, ``<transmission>``, elements of
other tools) reaches controller_manager, gz_ros2_control and the rest; any other format is
served as robot_formats' URDF of it (:attr:`Description.urdf`). TF, checks and warnings come
from the model either way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

import numpy as np

from robot_formats.core.errors import Diagnostic, InvalidValueError
from robot_formats.formats import LoadResult, load, load_text
from robot_formats.formats.urdf.reader import extension_lines
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
    urdf: str                    #: robot_formats' URDF of the document (of ``urdf_tree``)
    solver: TransformSolver
    static: tuple[StaticTransform, ...]
    #: Information that is no irregularity (another tool's extension read past): logged.
    notes: tuple[Diagnostic, ...] = ()
    #: The text to serve as ``robot_description``: the URDF document as given (``passthrough``)
    #: or :attr:`urdf`; with :meth:`with_ros2_control`, plus the ``<ros2_control>`` block.
    robot_description: str = ''
    passthrough: bool = False    #: whether ``robot_description`` is the document as given

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
            tree.initial_positions.update({name: value for name, value in
                                           initial_positions.items() if name in tree.dof_index})
        solver = TransformSolver(urdf_tree)
        urdf = model_to_urdf(lowered, source=result.path)
        given, notes = _document_text(result)
        return cls(path, result.format, result.scene, result.warnings, tree, urdf_tree, urdf,
                   solver, tuple(solver.static_transforms()), notes,
                   urdf if given is None else given, given is not None)

    def with_ros2_control(self, options: ControlOptions, option: str = 'joints'
                          ) -> Description:
        """The same description whose ``robot_description`` carries a ``<ros2_control>`` block
        (see :mod:`robot_formats.runtime.ros2_control`), for controller_manager to read from
        the topic. InvalidValueError for joints that cannot be commanded (the message names
        ``option``, where they came from).

        A URDF served as given gets the block for the joints it names itself (``tree``: a
        planar joint stays one joint there, not the chain TF publishes), added before its
        closing ``</robot>``; one that already has a ``<ros2_control>`` block is refused, since
        controller_manager would then read two systems claiming the same joints."""
        if not self.passthrough:
            return replace(self, robot_description=urdf_with_ros2_control(
                self.robot_description, self.urdf_tree, options, option))
        own = extension_lines(self.robot_description.encode('utf-8'), 'ros2_control', self.path)
        if own:
            raise InvalidValueError(
                'the URDF already has a <ros2_control> block; adding the one the ros2_control '
                'option asks for would make two (leave the option empty to serve the '
                "document's own)", self.path, own[0])
        return replace(self, robot_description=urdf_with_ros2_control(
            self.robot_description, self.tree, options, option))

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


def _document_text(result: LoadResult) -> tuple[str | None, tuple[Diagnostic, ...]]:
    """(the URDF document as given, or None to serve robot_formats' URDF; the load's notes).

    A ROS string is UTF-8: a URDF document in another encoding is served as robot_formats'
    URDF of it, with a note saying so."""
    if result.format != 'urdf' or result.source_bytes is None:
        return None, result.notes
    try:
        return result.source_bytes.decode('utf-8'), result.notes
    except UnicodeDecodeError:
        note = Diagnostic('the document is not UTF-8 (a ROS string is): robot_description is '
                          "robot_formats' URDF of it, not the document as given", result.path,
                          None, 'NOT_UTF8', 'note')
        return None, (*result.notes, note)


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
