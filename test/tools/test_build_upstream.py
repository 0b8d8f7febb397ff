"""tools/upstream.repos and tools/build_upstream.sh: one pinned list of the upstream sources, the
packages built derived from package.xml dependencies, only where the environment lacks them, and a
fetch that fails said in one line (never a traceback). The builds themselves:
test/nodes/test_install_paths.py."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from install_rig import (PINS, ROOT, bare_environment, git_redirects,  # noqa: E402
                         make_mirrors, run_sourced, working_tree_clone)

sys.path.insert(0, str(ROOT / 'test'))
from shared_data import shared  # noqa: E402

SCRIPT = ROOT / 'tools' / 'build_upstream.sh'
VENV_SETUP = ROOT / '.venv' / 'local_setup.sh'


def load_upstream():
    spec = importlib.util.spec_from_file_location('upstream', ROOT / 'tools' / 'upstream.py')
    module = importlib.util.module_from_spec(spec)
    sys.modules['upstream'] = module  # dataclasses look their module up while it is executed
    spec.loader.exec_module(module)
    return module


def pinned() -> dict:
    return yaml.safe_load(PINS.read_text(encoding='utf-8'))['repositories']


def test_the_pinned_list_is_vcstool_format() -> None:
    """Every entry has vcstool's type, url and version (a full commit id); our ``packages``
    names each package's folder in the repository."""
    for key, entry in pinned().items():
        assert entry['type'] == 'git' and entry['url'] == f'https://github.com/{key}.git'
        assert re.fullmatch(r'[0-9a-f]{40}', entry['version']), key
        assert entry['packages'] and all(isinstance(f, str) for f in entry['packages'].values())


def test_the_pins_are_the_vendor_readmes_commits() -> None:
    """shared/vendor/ros2/README.md names the commit of each repository its sources are from:
    the pinned list says the same, package for package."""
    table = {}
    for row in shared('vendor', 'ros2', 'README.md').read_text().splitlines():
        cells = [c.strip() for c in row.strip('|').split('|')]
        if len(cells) == 3 and re.match(r'[0-9a-f]{40}', cells[2]):
            packages = {p.strip() for p in re.sub(r'\(.*?\)', '', cells[0]).split(',')}
            table[cells[1]] = (cells[2][:40], packages)
    assert table.keys() == pinned().keys()
    for key, entry in pinned().items():
        assert (entry['version'], set(entry['packages'])) == table[key], key


def test_the_vendor_folder_holds_the_pinned_packages() -> None:
    upstream = load_upstream()
    vendored = upstream.packages_in(shared('vendor', 'ros2', 'src'))
    assert set(vendored) == {n for entry in pinned().values() for n in entry['packages']}


def test_lists_what_it_would_build_from_the_shared_sources() -> None:
    """Here the venv has no launch, ros2cli, tf2, control_msgs nor moveit_msgs: they are built
    from the vendor folder (moveit_msgs with the two packages it needs, since package.xml asks
    for it); what nothing asks for (launch_testing_ros) is not."""
    out = subprocess.run(['bash', str(SCRIPT), '--list'], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    built = set(re.findall(r'^build: (\S+) from ', out.stdout, re.M))
    assert {'launch_ros', 'ros2launch', 'ros2run', 'ros2topic', 'tf2_ros_py', 'tf2_msgs',
            'control_msgs', 'composition_interfaces', 'moveit_msgs', 'octomap_msgs',
            'object_recognition_msgs'} <= built, out.stdout
    assert 'launch_testing_ros' not in built, out.stdout
    assert 'provided by the environment, not built: rclpy' in out.stdout


def test_a_new_dependency_is_one_line_of_package_xml(tmp_path) -> None:
    """A package.xml that depends on moveit_msgs gets it built, with the two packages
    moveit_msgs itself depends on (their package.xml say so, nothing here)."""
    upstream = load_upstream()
    package = tmp_path / 'user'
    package.mkdir()
    (package / 'package.xml').write_text(
        '<?xml version="1.0"?>\n<package format="3"><name>user</name><version>0.0.0</version>'
        '<description>d</description><maintainer email="user@example.com">a</maintainer>'
        '<license>Apache-2.0</license><depend>moveit_msgs</depend></package>\n')
    pins = upstream.read_pins(PINS)
    sources = upstream.Sources(pins, shared('vendor', 'ros2', 'src'), tmp_path / 'cache')
    plan = upstream.resolve([package], [], sources, provided=lambda name: name != 'moveit_msgs'
                            and name not in {'octomap_msgs', 'object_recognition_msgs'})
    assert set(plan.build) == {'moveit_msgs', 'octomap_msgs', 'object_recognition_msgs'}
    assert not (tmp_path / 'cache').exists()  # the vendor folder held them: nothing fetched


@pytest.fixture(scope='module')
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone with no shared/ beside it, and local mirrors of the pinned repositories."""
    base = tmp_path_factory.mktemp('no_shared_here')
    return working_tree_clone(base / 'robot_formats')


@pytest.fixture(scope='module')
def mirrors(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    return make_mirrors(shared('vendor', 'ros2', 'src'), tmp_path_factory.mktemp('mirrors'))


def failed_fetch(clone: Path, pins: Path, git_env: dict[str, str], tmp_path: Path
                 ) -> subprocess.CompletedProcess:
    env = bare_environment(tmp_path / 'nowhere', ROBOT_FORMATS_UPSTREAM_REPOS=str(pins), **git_env)
    out = run_sourced(VENV_SETUP, 'bash tools/build_upstream.sh --list', clone, env)
    assert out.returncode == 1, out.stdout + out.stderr
    assert 'Traceback' not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    return out


def test_a_wrong_commit_is_one_line(clone, mirrors, tmp_path) -> None:
    pins, git_env = mirrors
    data = yaml.safe_load(pins.read_text())
    wrong = '0123456789abcdef0123456789abcdef01234567'
    for entry in data['repositories'].values():
        entry['version'] = wrong
    changed = tmp_path / 'upstream.repos'
    changed.write_text(yaml.safe_dump(data))
    line = failed_fetch(clone, changed, git_env, tmp_path).stderr.strip()
    key = re.search(r'cannot fetch (\S+) at commit', line).group(1)
    assert f'cannot fetch {key} at commit {wrong} from https://github.com/{key}.git' in line
    assert str(changed) in line and 'ROS2_TOOLS_SRC' in line and 'insteadOf' in line


def test_an_unreachable_repository_is_one_line(clone, mirrors, tmp_path) -> None:
    """The pinned URLs lead nowhere (as without network): one line, and the pins unchanged."""
    pins = pinned()
    lost = git_redirects({f'file://{tmp_path}/gone/{key}': entry['url']
                          for key, entry in pins.items()})
    line = failed_fetch(clone, PINS, lost, tmp_path).stderr.strip()
    key = re.search(r'cannot fetch (\S+) at commit', line).group(1)
    assert f'at commit {pins[key]["version"]} from {pins[key]["url"]}' in line
    assert 'the environment lacks' in line and 'source a ROS 2' in line
