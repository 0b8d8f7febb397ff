"""tools/upstream.py - build the upstream ROS 2 packages this machine lacks into the underlay.

Run by tools/build_upstream.sh, which sets up the build environment (the venv's ROS prefix and the
caller's underlays, without this repository's own prefixes) first.

Which packages: the dependencies named in the package.xml files of this repository's packages (all
kinds, tests included, since `make test` runs here), the ros2 commands listed under `command_line`
in the pinned list (for a user inspecting a running system) and, recursively, the dependencies of
every package built for them (build and run kinds). A dependency is

* provided: a prefix on AMENT_PREFIX_PATH registers it in its ament index (the venv's wheels, a
  ROS 2 installation, any underlay sourced before building): never built;
* built: it is one of the pinned packages of tools/upstream.repos (the file named by
  ROBOT_FORMATS_UPSTREAM_REPOS instead, for mirrors whose commits differ);
* left to the system otherwise (rosdep keys such as python3-lxml, or rviz2): the build does not
  provide those.

Where a built package's source comes from, in this order: the folder named by ROS2_TOOLS_SRC, else
shared/vendor/ros2/src of the shared data (ROBOT_FORMATS_SHARED, else ../shared beside the
repository), when it holds that package; otherwise a shallow git fetch of the pinned commit of its
repository into underlay/src/. A fetch that fails stops the build with one line naming the
repository, the commit and what to do.

The packages are built with colcon into their own prefix, underlay/install: an underlay as a ROS 2
installation would be, which this repository's workspace (and any plain colcon workspace) builds
on. colcon is skipped when the packages, their sources, the environment and the venv are those of
the last successful build.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import yaml
from catkin_pkg.package import parse_package

ROOT = Path(__file__).resolve().parent.parent
PINS = ROOT / 'tools' / 'upstream.repos'
#: Names another pinned list (same format); for mirrors whose commits are not the pins.
PINS_ENV = 'ROBOT_FORMATS_UPSTREAM_REPOS'
#: Names a folder of upstream package sources to use before fetching.
SOURCES_ENV = 'ROS2_TOOLS_SRC'
SHARED_ENV = 'ROBOT_FORMATS_SHARED'
UNDERLAY = ROOT / 'underlay'
STAMP_NAME = '.upstream.stamp'
#: Values package.xml conditions are evaluated with when the environment does not set them.
CONDITION_DEFAULTS = {'ROS_VERSION': '2', 'ROS_PYTHON_VERSION': '3', 'ROS_DISTRO': 'kilted'}
#: The longest a single fetch may take before it counts as failed.
FETCH_TIMEOUT = 900


class UpstreamError(RuntimeError):
    """Why the upstream packages cannot be had; one line, printed as the build's last word."""


@dataclass(frozen=True)
class Repository:
    """One entry of the pinned list: where to fetch, which commit, which packages it holds."""

    key: str
    url: str
    version: str
    packages: dict[str, str]


@dataclass
class Plan:
    """What the environment provides, what is built from where, what is left to the system."""

    build: dict[str, Path] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)
    provided: set[str] = field(default_factory=set)
    external: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Pins:
    """The pinned list: its repositories and the command-line packages wanted besides."""

    path: Path
    repositories: dict[str, Repository]
    command_line: list[str]


def read_pins(path: Path) -> Pins:
    """The pinned list, a vcstool .repos file with our ``packages`` and ``command_line`` keys."""
    try:
        data = yaml.safe_load(path.read_text(encoding='utf-8'))
        repos = {key: Repository(key, entry['url'], str(entry['version']),
                                 {name: str(folder) for name, folder in entry['packages'].items()})
                 for key, entry in data['repositories'].items()}
        command_line = [str(name) for name in data.get('command_line') or []]
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError) as err:
        raise UpstreamError(f'cannot read the pinned upstream list {path}: {err}') from err
    return Pins(path, repos, command_line)


def vendor_folder() -> Path:
    """ROS2_TOOLS_SRC, else shared/vendor/ros2/src of the shared data."""
    named = os.environ.get(SOURCES_ENV, '').strip()
    if named:
        return Path(named)
    shared = os.environ.get(SHARED_ENV, '').strip()
    return (Path(shared) if shared else ROOT.parent / 'shared') / 'vendor' / 'ros2' / 'src'


def packages_in(folder: Path) -> dict[str, Path]:
    """Package name -> folder of every package.xml under ``folder`` (none if it does not exist)."""
    found: dict[str, Path] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        if 'package.xml' in filenames:
            found.setdefault(parse_package(dirpath).name, Path(dirpath))
            dirnames.clear()
        else:
            dirnames[:] = sorted(d for d in dirnames if not d.startswith('.'))
    return found


def provided_by_environment(name: str) -> bool:
    """Some prefix on AMENT_PREFIX_PATH registers the package (the build scripts leave this
    repository's own prefixes out of it)."""
    return any((Path(prefix) / 'share' / 'ament_index' / 'resource_index' / 'packages' / name)
               .exists() for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)
               if prefix)


def dependencies(folder: Path, with_tests: bool) -> list[str]:
    """The dependency names of the package in ``folder`` whose conditions hold here."""
    package = parse_package(str(folder))
    package.evaluate_conditions({**CONDITION_DEFAULTS, **os.environ})
    groups = [package.build_depends, package.buildtool_depends, package.build_export_depends,
              package.buildtool_export_depends, package.exec_depends]
    if with_tests:
        groups.append(package.test_depends)
    return [dep.name for group in groups for dep in group if dep.evaluated_condition is not False]


class Sources:
    """Where each pinned package's source is: the vendor folder when it holds the package, else
    the checkout of its repository at the pinned commit, fetched once into the cache."""

    def __init__(self, pins: Pins, vendor: Path, cache: Path) -> None:
        self.pins_file = pins.path
        self.vendor = vendor
        self.cache = cache
        self.repository_of = {name: repo for repo in pins.repositories.values()
                              for name in repo.packages}
        self.vendored = packages_in(vendor)
        self.why: dict[str, list[str]] = {}

    def pinned(self, name: str) -> bool:
        return name in self.repository_of

    def folder(self, name: str) -> tuple[Path, str]:
        """(source folder, where it came from) of a pinned package; fetches if need be."""
        if name in self.vendored:
            return self.vendored[name], f'{self.vendor}'
        repo = self.repository_of[name]
        checkout = self.fetch(repo)
        folder = checkout / repo.packages[name]
        if not (folder / 'package.xml').is_file():
            raise UpstreamError(
                f'{repo.key} at {repo.version} has no package.xml in {repo.packages[name]}/ for '
                f'{name}: correct its folder under "packages" in {self.pins_file}')
        return folder, f'{repo.url} at {repo.version}'

    def fetch(self, repo: Repository) -> Path:
        """The checkout of ``repo`` at its pinned commit in the cache (fetched if not there)."""
        checkout = self.cache / repo.key
        if _head_of(checkout) == repo.version:
            return checkout
        print(f'build: fetching {repo.key} at {repo.version} from {repo.url}', flush=True)
        partial = checkout.parent / f'.{checkout.name}.fetching-{os.getpid()}'
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        try:
            for args in (['init', '-q'],
                         ['fetch', '-q', '--depth', '1', repo.url, repo.version],
                         ['-c', 'advice.detachedHead=false', 'checkout', '-q', 'FETCH_HEAD']):
                _git(partial, args, lambda reason: self._fetch_failed(repo, reason))
            if _is_commit_id(repo.version) and _head_of(partial) != repo.version:
                self._fetch_failed(repo, f'the fetched commit is {_head_of(partial)}')
            shutil.rmtree(checkout, ignore_errors=True)
            partial.rename(checkout)
        finally:
            shutil.rmtree(partial, ignore_errors=True)
        return checkout

    def _fetch_failed(self, repo: Repository, reason: str) -> None:
        needed = ', '.join(sorted(n for n in repo.packages if n in self.why))
        raise UpstreamError(
            f'cannot fetch {repo.key} at commit {repo.version} from {repo.url} ({reason}); '
            f'the environment lacks {needed}. Check the network (or the git '
            f'url.<mirror>.insteadOf setting) and the commit in {self.pins_file}, or name a '
            f'folder holding these packages with {SOURCES_ENV}=/path, or source a ROS 2 '
            f'installation that provides them')


def _git(cwd: Path, args: list[str], fail: Callable[[str], None]) -> None:
    env = {**os.environ, 'GIT_TERMINAL_PROMPT': '0'}
    try:
        run = subprocess.run(['git', *args], cwd=cwd, env=env, capture_output=True, text=True,
                             timeout=FETCH_TIMEOUT, check=False)
    except FileNotFoundError:
        fail('git is not installed')
        return
    except subprocess.TimeoutExpired:
        fail(f'git {args[0]} took longer than {FETCH_TIMEOUT} s')
        return
    if run.returncode != 0:
        lines = [line.strip() for line in run.stderr.splitlines() if line.strip()]
        fail(lines[-1] if lines else f'git {args[0]} exited with {run.returncode}')


def _head_of(checkout: Path) -> str | None:
    if not (checkout / '.git').exists():
        return None
    run = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=checkout, capture_output=True,
                         text=True, check=False)
    return run.stdout.strip() if run.returncode == 0 else None


def _is_commit_id(version: str) -> bool:
    return len(version) == 40 and all(c in '0123456789abcdef' for c in version)


def resolve(workspace: Iterable[Path], command_line: Iterable[str], sources: Sources,
            provided: Callable[[str], bool] = provided_by_environment) -> Plan:
    """Walk the dependencies of the workspace's packages, the command-line packages and of every
    package to be built."""
    roots = {parse_package(str(folder)).name: folder for folder in workspace}
    plan = Plan()
    queue = deque((name, root) for root, folder in roots.items()
                  for name in dependencies(folder, with_tests=True))
    queue.extend((name, 'the command line') for name in command_line)
    while queue:
        name, needed_by = queue.popleft()
        if name in roots or name in plan.build or name in plan.provided or name in plan.external:
            sources.why.setdefault(name, []).append(needed_by)
            continue
        if provided(name):
            plan.provided.add(name)
        elif not sources.pinned(name):
            plan.external.add(name)
        else:
            sources.why.setdefault(name, []).append(needed_by)
            folder, origin = sources.folder(name)
            plan.build[name], plan.origin[name] = folder, origin
            queue.extend((dep, name) for dep in dependencies(folder, with_tests=False))
    return plan


def sources_hash(plan: Plan, venv: Path) -> str:
    """Everything the last build depended on: the colcon command (packages and their folders),
    the packages' files, the environment and the venv (not this script: a comment edited here
    must not cost a rebuild)."""
    digest = hashlib.sha256()
    digest.update('\0'.join(colcon_command(plan, venv)).encode())
    for name in sorted(plan.build):
        for path in sorted(p for p in plan.build[name].rglob('*') if p.is_file()
                           and '.git' not in p.parts and '__pycache__' not in p.parts):
            digest.update(f'{name}/{path.relative_to(plan.build[name])}\n'.encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(os.environ.get('AMENT_PREFIX_PATH', '').encode())
    digest.update((venv / '.stamp-ros').read_bytes())
    return digest.hexdigest()


def remove_unneeded(plan: Plan) -> None:
    """Drop built packages the plan no longer builds (now provided, or no longer a dependency):
    the underlay holds exactly the planned packages, or does not exist."""
    install = UNDERLAY / 'install'
    if not plan.build:
        for folder in ('install', 'build'):
            if (UNDERLAY / folder).exists():
                print(f'build: removing underlay/{folder}: nothing upstream is needed', flush=True)
                shutil.rmtree(UNDERLAY / folder)
        return
    for folder in sorted(install.iterdir()) if install.is_dir() else []:
        if folder.is_dir() and folder.name not in plan.build:
            print(f'build: removing {folder.name} from the underlay (no longer built here)',
                  flush=True)
            shutil.rmtree(folder)
            shutil.rmtree(UNDERLAY / 'build' / folder.name, ignore_errors=True)
            (install / STAMP_NAME).unlink(missing_ok=True)


def colcon_command(plan: Plan, venv: Path) -> list[str]:
    return [str(venv / 'bin' / 'colcon'), '--log-base', str(UNDERLAY / 'log'), 'build',
            '--build-base', str(UNDERLAY / 'build'), '--install-base', str(UNDERLAY / 'install'),
            '--paths', *(str(plan.build[name]) for name in sorted(plan.build)),
            '--cmake-args', '-DBUILD_TESTING=OFF', f'-DPython3_EXECUTABLE={venv}/bin/python']


def colcon_build(plan: Plan, venv: Path) -> None:
    (UNDERLAY / 'install').mkdir(parents=True, exist_ok=True)
    (UNDERLAY / 'COLCON_IGNORE').touch()  # its fetched sources are no packages of a workspace
    if subprocess.run(colcon_command(plan, venv), cwd=ROOT, check=False).returncode != 0:
        raise UpstreamError('colcon could not build the upstream packages (its output above '
                            f'says why); their logs are in {UNDERLAY / "log"}')


def print_plan(plan: Plan) -> None:
    for name in sorted(plan.provided):
        print(f'provided by the environment, not built: {name}')
    for name in sorted(plan.build):
        print(f'build: {name} from {plan.build[name]} ({plan.origin[name]})')
    if plan.external:
        print('left to the system (not pinned upstream packages): '
              + ', '.join(sorted(plan.external)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('workspace', nargs='+', type=Path,
                        help="this repository's package folders, whose dependencies count")
    parser.add_argument('--venv', type=Path, required=True)
    parser.add_argument('--list', action='store_true',
                        help='resolve (fetching what is missing) and print; build nothing')
    parser.add_argument('--force', action='store_true', help='ignore the stamp and run colcon')
    args = parser.parse_args(argv)
    pins_file = Path(os.environ.get(PINS_ENV, '').strip() or PINS)
    try:
        pins = read_pins(pins_file)
        sources = Sources(pins, vendor_folder(), UNDERLAY / 'src')
        plan = resolve(args.workspace, pins.command_line, sources)
        if args.list:
            print_plan(plan)
            return 0
        remove_unneeded(plan)
        if not plan.build:
            print('build: the environment provides every upstream package needed: nothing to '
                  'build', flush=True)
            return 0
        stamp = UNDERLAY / 'install' / STAMP_NAME
        digest = sources_hash(plan, args.venv)
        if not args.force and stamp.is_file() and stamp.read_text().strip() == digest and all(
                (UNDERLAY / 'install' / name).is_dir() for name in plan.build):
            print(f'build: underlay up to date ({len(plan.build)} upstream packages), colcon '
                  'skipped', flush=True)
            return 0
        print('build: colcon build of the upstream packages the environment lacks, into '
              'underlay/install: ' + ' '.join(sorted(plan.build)), flush=True)
        stamp.unlink(missing_ok=True)
        colcon_build(plan, args.venv)
        partial = stamp.with_name(f'{STAMP_NAME}.{os.getpid()}')
        partial.write_text(digest + '\n')
        partial.replace(stamp)
    except UpstreamError as err:
        print(f'build: {err}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
