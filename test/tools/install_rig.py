"""What the install tests build with: a clone of this working tree placed where no shared/ lies
beside it, local git mirrors of the pinned upstream repositories (git redirected to them, never to
the network), a stand-in for a ROS 2 installation, and environments with nothing of the calling
shell's ROS in them.

The mirrors are made from the upstream package folders of shared/vendor/ros2/src, laid out at
their folders in the upstream repositories (tools/upstream.repos). Their commits cannot be the
pinned ones (a commit id hashes the whole upstream history), so the build is pointed at a copy of
the pinned list with the mirrors' commits (ROBOT_FORMATS_UPSTREAM_REPOS); the pins themselves stay
exact and are checked against the vendor README elsewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import yaml
from catkin_pkg.package import parse_package

ROOT = Path(__file__).resolve().parents[2]
PINS = ROOT / 'tools' / 'upstream.repos'
#: The underlay `make build` made here: the upstream packages, built once into their own prefix.
UNDERLAY = ROOT / 'underlay' / 'install'
#: A build step's deadline (the project's interfaces take minutes on a loaded 2-core machine).
BUILD_TIMEOUT = 1500
GIT_IDENTITY = {'GIT_AUTHOR_NAME': 'mirror', 'GIT_AUTHOR_EMAIL': 'mirror@localhost',
                'GIT_COMMITTER_NAME': 'mirror', 'GIT_COMMITTER_EMAIL': 'mirror@localhost'}


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None
        ) -> str:
    run = subprocess.run(['git', *args], cwd=cwd, env={**os.environ, **(env or {})},
                         input=stdin, capture_output=True, timeout=120, check=False)
    assert run.returncode == 0, f'git {" ".join(args)}: {run.stderr.decode(errors="replace")}'
    return run.stdout.decode()


def working_tree_clone(dest: Path) -> Path:
    """``git clone`` of this repository, plus the working tree's uncommitted changes and new
    files (what is being tested), with this checkout's venv (symlinked: tools/build_ws.sh only
    reads it). Build outputs, underlay/ and the venv itself are not copied."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    git(dest.parent, 'clone', '-q', '--shared', str(ROOT), str(dest))
    diff = subprocess.run(['git', 'diff', 'HEAD', '--binary'], cwd=ROOT, capture_output=True,
                          check=True).stdout
    if diff.strip():
        git(dest, 'apply', '--whitespace=nowarn', stdin=diff)
    for name in git(ROOT, 'ls-files', '--others', '--exclude-standard', '-z').split('\0'):
        if name:
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    (dest / '.venv').symlink_to(ROOT / '.venv')
    return dest


def make_mirrors(vendor: Path, dest: Path) -> tuple[Path, dict[str, str]]:
    """A git repository per pinned repository, holding the vendor package folders at their
    upstream folders; (a copy of the pinned list with the mirrors' commits, git configuration
    pointing each pinned URL at its mirror)."""
    pins = yaml.safe_load(PINS.read_text(encoding='utf-8'))
    redirects: dict[str, str] = {}
    for key, entry in pins['repositories'].items():
        mirror = dest / key
        for name, folder in entry['packages'].items():
            shutil.copytree(vendor / name, mirror / folder, dirs_exist_ok=True)
        git(mirror, 'init', '-q')
        git(mirror, 'add', '-A')
        git(mirror, 'commit', '-q', '-m', f'{key} from the vendor folders', env=GIT_IDENTITY)
        entry['version'] = git(mirror, 'rev-parse', 'HEAD').strip()
        redirects[f'file://{mirror}'] = entry['url']
    copy = dest / 'upstream.repos'
    copy.write_text(yaml.safe_dump(pins, sort_keys=False), encoding='utf-8')
    return copy, git_redirects(redirects)


def git_redirects(redirects: dict[str, str]) -> dict[str, str]:
    """git configuration (environment form) that rewrites each URL to its mirror; file:// is the
    only protocol git may use, so nothing here ever reaches the network."""
    env = {'GIT_ALLOW_PROTOCOL': 'file', 'GIT_CONFIG_NOSYSTEM': '1',
           'GIT_CONFIG_GLOBAL': os.devnull, 'GIT_CONFIG_COUNT': str(len(redirects))}
    for index, (mirror, url) in enumerate(redirects.items()):
        env[f'GIT_CONFIG_KEY_{index}'] = f'url.{mirror}.insteadOf'
        env[f'GIT_CONFIG_VALUE_{index}'] = url
    return env


def bare_environment(nowhere: Path, **extra: str) -> dict[str, str]:
    """The calling shell's environment without any ROS, workspace or shared data in it: as a new
    user's shell (plus the loopback DDS every test keeps)."""
    keep = ('HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'USER', 'TERM', 'ROS_DOMAIN_ID')
    return {**{k: os.environ[k] for k in keep if k in os.environ},
            'PATH': '/usr/local/bin:/usr/bin:/bin', 'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST',
            'ROS2_TOOLS_SRC': str(nowhere), 'ROBOT_FORMATS_SHARED': str(nowhere),
            'GIT_ALLOW_PROTOCOL': 'file', **extra}


def stand_in_distribution(dest: Path, leave_out: set[str]) -> Path:
    """A prefix standing in for /opt/ros/<distro>: this checkout's underlay without the packages
    ``leave_out`` (colcon's setup scripts, the other packages linked)."""
    assert (UNDERLAY / 'setup.bash').is_file(), (
        f'{UNDERLAY} is missing: `make build` builds the upstream packages there first')
    dest.mkdir(parents=True)
    for script in ('setup.bash', 'setup.sh', 'local_setup.bash', 'local_setup.sh',
                   '_local_setup_util_sh.py', '.colcon_install_layout'):
        shutil.copy2(UNDERLAY / script, dest / script)
    for package in installed_packages(UNDERLAY) - leave_out:
        (dest / package).symlink_to(UNDERLAY / package)
    return dest


def with_dependents(prefix: Path, names: set[str]) -> set[str]:
    """``names`` and every package of ``prefix`` that depends on one of them, recursively: what
    a distribution consistently lacks when it lacks ``names``."""
    depends = {}
    for package in installed_packages(prefix):
        manifest = parse_package(str(prefix / package / 'share' / package))
        depends[package] = {d.name for d in manifest.build_depends + manifest.exec_depends
                            + manifest.buildtool_depends}
    found = set(names)
    while grown := {p for p, deps in depends.items() if deps & found} - found:
        found |= grown
    return found


def installed_packages(prefix: Path) -> set[str]:
    """The packages of a colcon install folder (isolated layout)."""
    return {p.name for p in prefix.iterdir()
            if (p / 'share' / 'colcon-core' / 'packages' / p.name).exists()} if prefix.is_dir() \
        else set()


def run_sourced(setup: Path | None, command: str, cwd: Path, env: dict[str, str]
                ) -> subprocess.CompletedProcess:
    """``command`` in bash after sourcing ``setup`` (as a user's shell), output as text."""
    source = f'. "{setup}" && ' if setup else ''
    return subprocess.run(['bash', '-c', f'{source}{command}'], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False)


def sourced_environment(setup: Path, env: dict[str, str]) -> dict[str, str]:
    """The environment after sourcing ``setup`` in ``env``."""
    out = subprocess.run(['bash', '-c', f'. "{setup}" >/dev/null && env -0'], env=env,
                         capture_output=True, timeout=60, check=True).stdout.decode()
    return dict(line.split('=', 1) for line in out.split('\0') if '=' in line)


def mapped_files(pid: int) -> set[str]:
    """The files a process has mapped (its loaded shared libraries)."""
    with open(f'/proc/{pid}/maps', encoding='utf-8') as maps:
        return {line.split(None, 5)[5].strip() for line in maps if len(line.split(None, 5)) == 6}


def processes_of_session(session: int) -> dict[int, str]:
    """pid -> command line of every process of a session (a launch and the nodes it started)."""
    found = {}
    for entry in Path('/proc').iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getsid(int(entry.name)) == session:
                found[int(entry.name)] = (entry / 'cmdline').read_bytes().replace(b'\0', b' ') \
                    .decode(errors='replace')
        except (ProcessLookupError, PermissionError, FileNotFoundError):
            continue
    return found
