"""What every ``robot-formats`` command shares: exit codes, the usage error, loading a file
with its warnings printed, and reading a configuration from ``--positions``/``--set``.

The command modules (:mod:`.cli` and ``cli_*``) import this one; it imports none of them,
and nothing of the library a command does not use (loading imports the format registry when
a command loads a file).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Protocol, Sequence

from robot_formats.core.lazy import numpy_on_first_use
from robot_formats.core.limits import MAX_MAGNITUDE

if TYPE_CHECKING:
    import numpy as np

    from robot_formats.core.errors import Diagnostic
    from robot_formats.core.kinematics import KinematicTree
    from robot_formats.formats import LoadResult
else:
    np = numpy_on_first_use(globals())

__all__ = ['EXIT_OK', 'EXIT_INVALID', 'EXIT_USAGE', 'EXIT_INTERNAL', 'UsageError',
           'add_world_option', 'print_warnings', 'load_file', 'configuration']

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class UsageError(Exception):
    """A command-line argument is wrong (exit code 2)."""



def add_world_option(command: argparse.ArgumentParser) -> None:
    """``--world NAME``: which world of an SDFormat file holding several."""
    command.add_argument('--world', metavar='NAME',
                         help='the world to load from an SDFormat file holding several '
                              '(default: the first, with a warning)')


class Diagnosed(Protocol):
    """What carries a file's diagnostics: a LoadResult, a DocumentResult, a Description."""

    @property
    def path(self) -> str: ...

    @property
    def warnings(self) -> Sequence[Diagnostic]: ...

    @property
    def notes(self) -> Sequence[Diagnostic]: ...


def print_warnings(result: Diagnosed) -> None:
    """Warnings, then notes (information strict mode does not refuse), one line each."""
    for label, diagnostics in (('warning', result.warnings), ('note', result.notes)):
        for item in diagnostics:
            print(f'{item.file or result.path}:{item.line or 0}: {label}: {item.message}'
                  if item.line else f'{item.file or result.path}: {label}: {item.message}',
                  file=sys.stderr)


def load_file(path: str, world: str | None = None) -> tuple[LoadResult, KinematicTree]:
    """Load a scene file, its warnings and notes printed on stderr."""
    from robot_formats.formats import load
    result = load(path, world=world)
    print_warnings(result)
    assert result.tree is not None
    return result, result.tree


def configuration(tree: KinematicTree, positions: str | None, sets: list[str]) -> np.ndarray:
    """The tree's initial configuration with ``--positions`` (every DoF, in order) and
    ``--set DOF=VALUE`` applied; UsageError naming what is wrong."""
    q = tree.positions_vector()
    if positions:
        try:
            values = [float(v) for v in positions.replace(' ', '').split(',') if v != '']
        except ValueError as err:
            raise UsageError(f'--positions: {err}') from err
        if len(values) != len(tree.dof_names):
            raise UsageError(f'--positions has {len(values)} values but the model has '
                             f'{len(tree.dof_names)} degrees of freedom '
                             f'({", ".join(tree.dof_names) or "none"})')
        q[:] = values
    for item in sets:
        name, sep, value = item.partition('=')
        if not sep:
            raise UsageError(f'--set {item!r}: expected JOINT=VALUE')
        index = tree.dof_index.get(name.strip())
        if index is None:
            joint = tree.joints.get(name.strip())
            hint = ''
            if joint is not None:
                from robot_formats.core.model import dof_names
                names = dof_names(joint)
                hint = (f' (its DoFs: {", ".join(names)})' if names else
                        ' (it is a fixed or mimic joint, with no coordinates of its own)')
            raise UsageError(f'--set: {name.strip()!r} is not a degree of freedom of this '
                             f'model{hint}')
        try:
            q[index] = float(value)
        except ValueError as err:
            raise UsageError(f'--set {item!r}: {err}') from err
    if not np.all(np.abs(q) <= MAX_MAGNITUDE):  # (false for nan too)
        raise UsageError(f'positions must be finite numbers of magnitude at most '
                         f'{MAX_MAGNITUDE:g}')
    return q
