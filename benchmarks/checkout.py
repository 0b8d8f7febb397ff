"""Which checkout of robot_formats a benchmark measures: the working tree, or the landed main.

``make bench`` measures the working tree and the commit named in benchmarks/BASELINE (the main
that last landed) in the same run, with the same benchmark code, so that a regression shows as
a ratio between two numbers taken minutes apart on the same machine under the same load.

How the landed main is measured (:func:`baseline_checkout`): ``git worktree add --detach`` puts
the commit in a temporary folder; a second temporary folder holds only a link named
``benchmarks`` to this working tree's benchmarks/. A benchmark process for the baseline starts
in that second folder with ``PYTHONPATH=<harness>:<baseline checkout>:...`` (see
:meth:`Checkout.environment`), so ``import benchmarks`` finds this tree's harness and
``import robot_formats`` the baseline's sources, ahead of the workspace's (colcon's develop
install points at this working tree). Every process it starts inherits both (the nodes are
Python: ``ros2 run``/``ros2 launch`` entry points import ``robot_formats`` through that path),
and starts in :func:`child_cwd`, a folder that holds no ``robot_formats``. Launch files are
taken from the measured checkout (:func:`launch_file`); the input files (examples/) from the
working tree, so both sides get the same input. The baseline is not built: its nodes use the
message and service types of the workspace build (robot_formats_interfaces), which is right as
long as the interface definitions are the same in both; :meth:`Checkout.interface_changes` lists
the definition files that differ, and the runner prints them. The worktree is removed when the
run ends, also when it fails or is interrupted.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

__all__ = ['HARNESS', 'Checkout', 'baseline_checkout', 'baseline_commit', 'child_cwd',
           'close_worker', 'launch_file', 'measured_source', 'measured_label']

#: The working tree the benchmark code comes from.
HARNESS = Path(__file__).resolve().parents[1]
#: The file naming the landed main's commit.
BASELINE_FILE = Path(__file__).with_name('BASELINE')
#: Set in a baseline benchmark's environment: the checkout measured, where its processes start,
#: and its label in the output.
SOURCE_VARIABLE = 'ROBOT_FORMATS_BENCH_SOURCE'
CWD_VARIABLE = 'ROBOT_FORMATS_BENCH_CWD'
LABEL_VARIABLE = 'ROBOT_FORMATS_BENCH_LABEL'
#: The interface definitions of the workspace build, which the baseline's nodes use too.
INTERFACES = ('robot_formats_interfaces/msg', 'robot_formats_interfaces/srv',
              'robot_formats_interfaces/action')


def baseline_commit() -> str:
    """The commit benchmarks/BASELINE names (its first line that is not a comment)."""
    for line in BASELINE_FILE.read_text(encoding='utf-8').splitlines():
        line = line.split('#', 1)[0].strip()
        if line:
            return line
    raise ValueError(f'{BASELINE_FILE} names no commit')


def measured_source() -> Path:
    """The checkout whose robot_formats this process measures."""
    return Path(os.environ.get(SOURCE_VARIABLE) or HARNESS)


def measured_label() -> str:
    """'working tree', or 'landed main <commit>' in a baseline run."""
    return os.environ.get(LABEL_VARIABLE) or 'working tree'


def child_cwd() -> Path:
    """Where the processes a benchmark starts begin: a folder whose ``robot_formats`` (if any)
    is the measured one, since ``python -m`` puts the current folder first on sys.path."""
    return Path(os.environ.get(CWD_VARIABLE) or HARNESS)


def close_worker(process: subprocess.Popen) -> None:
    """End a worker process a benchmark feeds requests on stdin (a reference's timer, a
    loader): its stdin closed, so it ends by itself; killed when it has not after 60 s."""
    if process.stdin is not None:
        process.stdin.close()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def launch_file(name: str) -> list[str]:
    """The ``ros2 launch`` arguments that start launch file ``name`` of the measured checkout:
    ``robot_formats NAME`` (the installed package, as users start it) for the working tree, the
    file's path in the baseline checkout otherwise (the workspace installs the working tree's)."""
    if os.environ.get(SOURCE_VARIABLE):
        return [str(measured_source() / 'launch' / name)]
    return ['robot_formats', name]


def check_import() -> str:
    """Where ``robot_formats`` is imported from in this process; raises when it is not the
    measured checkout (a benchmark of the wrong code must not print numbers)."""
    import robot_formats

    location = Path(robot_formats.__file__).resolve().parent
    if location != (measured_source() / 'robot_formats').resolve():
        raise RuntimeError(f'robot_formats is imported from {location}, '
                           f'not from the measured checkout {measured_source()}')
    return str(location)


@dataclass(frozen=True)
class Checkout:
    """The landed main, checked out: its commit, its tree, and the folder holding the harness."""

    commit: str
    tree: Path
    harness: Path

    @property
    def label(self) -> str:
        return f'landed main {self.commit[:7]}'

    def interface_changes(self) -> list[str]:
        """The message, service and action definitions that differ between this checkout and
        the working tree (the baseline's nodes are run with the working tree's)."""
        changed = _git('diff', '--name-only', self.commit, '--', *INTERFACES)
        return changed.splitlines()

    def environment(self) -> dict[str, str]:
        """The environment of a benchmark process that measures this checkout."""
        path = [str(self.harness), str(self.tree)]
        if os.environ.get('PYTHONPATH'):
            path.append(os.environ['PYTHONPATH'])
        return {**os.environ, 'PYTHONPATH': os.pathsep.join(path),
                SOURCE_VARIABLE: str(self.tree), CWD_VARIABLE: str(self.harness),
                LABEL_VARIABLE: self.label}


def _git(*arguments: str) -> str:
    return subprocess.run(['git', *arguments], cwd=HARNESS, check=True, capture_output=True,
                          text=True).stdout.strip()


@contextmanager
def baseline_checkout(revision: str | None = None) -> Iterator[Checkout]:
    """The commit of benchmarks/BASELINE (or ``revision``) in a temporary worktree, removed
    afterwards (also on an error or an interrupt: the caller turns SIGTERM into an exception)."""
    revision = revision or baseline_commit()
    try:
        commit = _git('rev-parse', '--verify', revision + '^{commit}')
    except subprocess.CalledProcessError:
        raise RuntimeError(f'the baseline commit {revision} is not in this clone (a shallow '
                           'clone?): fetch it, or run make bench BENCH_ARGS=--no-baseline') \
            from None
    folder = Path(tempfile.mkdtemp(prefix='robot_formats-bench-'))
    tree, harness = folder / 'baseline', folder / 'harness'
    harness.mkdir()
    (harness / 'benchmarks').symlink_to(HARNESS / 'benchmarks')
    try:
        _git('worktree', 'add', '--detach', str(tree), commit)
        yield Checkout(commit, tree, harness)
    finally:
        if tree.exists():
            subprocess.run(['git', 'worktree', 'remove', '--force', str(tree)], cwd=HARNESS,
                           check=False, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(['git', 'worktree', 'prune'], cwd=HARNESS, check=False,
                       capture_output=True)
