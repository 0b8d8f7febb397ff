"""The three ways robot_formats is installed, each built for real from a clone of this working tree
placed where no shared/ lies beside it, in an environment with nothing of this shell's ROS in it
(README, "Set-up"):

* a machine without ROS (`make build`'s build part, tools/build_ws.sh): the upstream packages the
  environment lacks are fetched at their pinned commits, here from local git mirrors git is
  redirected to (never the network), and built into the clone's underlay;
* a ROS 2 installation: a stand-in for /opt/ros/<distro> (this checkout's underlay, the upstream
  packages built once into their own prefix) sourced first: none of its packages is built again and
  the nodes run on its packages;
* a plain colcon workspace with the clone in src/: `colcon build` says the one command that builds
  it, and that command gives a workspace whose launch files serve.

To stay lean, the machine-without-ROS build stands on the stand-in minus two packages and those of
its packages that depend on them (tf2_msgs, an interface package in a subfolder of its repository;
rosidl_runtime_py, a repository that is one package): those are fetched and built, everything else
is provided.
"""

from __future__ import annotations

import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from std_msgs.msg import String

from .harness import DESCRIPTION_QOS, ROOT

sys.path.insert(0, str(ROOT / 'test'))
sys.path.insert(0, str(ROOT / 'test' / 'tools'))
from install_rig import (UNDERLAY, bare_environment, installed_packages,  # noqa: E402
                         make_mirrors, mapped_files, processes_of_session, run_sourced,
                         sourced_environment, stand_in_distribution, with_dependents,
                         working_tree_clone)
from shared_data import shared  # noqa: E402

#: What the stand-in distribution lacks in the fetch test (with their dependents), so the build
#: fetches and builds them.
FETCHED = with_dependents(UNDERLAY, {'tf2_msgs', 'rosidl_runtime_py'})
#: Their repositories.
FETCHED_FROM = {'ros2/geometry2', 'ros2/rosidl_runtime_py', 'ros2/ros2cli'}
OWN = {'robot_formats', 'robot_formats_interfaces'}


@dataclass
class Build:
    """A clone, the environment it was built in, and what the build steps printed."""

    clone: Path
    env: dict[str, str]
    distribution: Path
    logs: dict[str, str]
    created_underlay: bool = False


def run_checked(setup: Path, command: str, cwd: Path, env: dict[str, str]) -> str:
    out = run_sourced(setup, command, cwd, env)
    text = out.stdout + out.stderr
    assert out.returncode == 0, f'{command} failed in {cwd}:\n{text[-6000:]}'
    return text


@pytest.fixture(scope='module')
def fetched(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """First the full stand-in (a ROS install that has everything): the underlay step alone;
    then the stand-in without FETCHED: the whole build (underlay, then the project)."""
    base = tmp_path_factory.mktemp('install_paths')
    pins, git_env = make_mirrors(shared('vendor', 'ros2', 'src'), base / 'mirrors')
    clone = working_tree_clone(base / 'elsewhere' / 'robot_formats')
    env = bare_environment(base / 'nowhere', ROBOT_FORMATS_UPSTREAM_REPOS=str(pins), **git_env)
    logs = {}
    full = stand_in_distribution(base / 'full_distribution', set())
    logs['provided'] = run_checked(full / 'setup.bash', 'bash tools/build_upstream.sh', clone, env)
    created = (clone / 'underlay').exists()
    partial = stand_in_distribution(base / 'partial_distribution', FETCHED)
    logs['build'] = run_checked(partial / 'setup.bash', 'bash tools/build_ws.sh', clone, env)
    return Build(clone, env, partial, logs, created)


def test_with_everything_provided_nothing_upstream_is_built(fetched) -> None:
    log = fetched.logs['provided']
    assert 'the environment provides every upstream package needed: nothing to build' in log
    assert 'fetching' not in log and 'colcon' not in log, log
    assert not fetched.created_underlay


def test_missing_packages_are_fetched_at_their_pins_and_built(fetched) -> None:
    """Only what the distribution lacks is fetched (from the mirrors, at the commits of the
    pinned list given) and built into the clone's underlay, with no shared/ anywhere."""
    log = fetched.logs['build']
    fetches = set(re.findall(r'^build: fetching (\S+) at ([0-9a-f]{40}) from (\S+)$', log, re.M))
    assert {key for key, _, _ in fetches} == FETCHED_FROM, log
    for key, commit, url in fetches:
        assert url == f'https://github.com/{key}.git'
        checkout = fetched.clone / 'underlay' / 'src' / key
        assert (checkout / '.git').is_dir()
        assert commit in Path(fetched.env['ROBOT_FORMATS_UPSTREAM_REPOS']).read_text()
    assert installed_packages(fetched.clone / 'underlay' / 'install') == FETCHED
    assert not (fetched.clone.parent / 'shared').exists()


def test_provided_packages_are_not_rebuilt(fetched) -> None:
    """The project's build puts its two packages into install/, nothing else, and no upstream
    package the distribution has was built anywhere in the clone."""
    assert installed_packages(fetched.clone / 'install') == OWN
    built = set(re.findall(r'^Starting >>> (\S+)', fetched.logs['build'], re.M))
    assert built == FETCHED | OWN, fetched.logs['build']


def launch(build: Build, launcher, launch_file: str, name: str, description: bool = True):
    """``ros2 launch robot_formats LAUNCH_FILE rviz:=false`` in the built workspace's
    environment, as its user starts it; (process, side) once robot_description arrived."""
    env = sourced_environment(build.clone / 'install' / 'setup.bash', build.env)
    ros2 = shutil.which('ros2', path=env['PATH'])
    assert ros2, f'no ros2 on the PATH of {build.clone}/install/setup.bash'
    process, side = launcher.command(
        [ros2, 'launch', 'robot_formats', launch_file, 'rviz:=false'], name, env)
    if description:
        inbox = side.subscribe(String, '/robot_description', DESCRIPTION_QOS)
        side.spin_until(lambda: len(inbox), what='robot_description', process=process)
        assert '<robot' in inbox.last.data
    return process, side


def test_nodes_run_on_the_distribution_and_the_fetched_packages(fetched, module_launcher) -> None:
    """The launched nodes load tf2_msgs from the clone's underlay and control_msgs from the
    distribution (their type support libraries, as mapped by the running processes)."""
    process, side = launch(fetched, module_launcher, 'motion_sim.launch.py', 'fetched')
    side.spin_until(lambda: side.node.get_publishers_info_by_topic(
        '/joint_trajectory_controller/controller_state'), what='controller_state',
        process=process)
    nodes = processes_of_session(process.proc.pid)
    libraries = {name: {f for pid, line in nodes.items() if f'/{name}' in line
                        for f in mapped_files(pid)}
                 for name in ('description_publisher', 'sim_controller')}
    clone_underlay = str(fetched.clone / 'underlay' / 'install' / 'tf2_msgs' / 'lib')
    assert any(f.startswith(clone_underlay) and 'tf2_msgs__rosidl_typesupport' in f
               for f in libraries['description_publisher']), libraries['description_publisher']
    distribution = str(UNDERLAY / 'control_msgs' / 'lib')
    assert any(f.startswith(distribution) and 'control_msgs__rosidl_typesupport' in f
               for f in libraries['sim_controller']), libraries['sim_controller']
    own = str(fetched.clone / 'install' / 'robot_formats')
    assert any(own in line for line in nodes.values()), nodes


# --- a plain colcon workspace ---------------------------------------------------------------

@pytest.fixture(scope='module')
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """ws/src/robot_formats on the stand-in distribution: plain `colcon build`, then the command
    it printed."""
    base = tmp_path_factory.mktemp('plain_workspace')
    ws = base / 'ws'
    working_tree_clone(ws / 'src' / 'robot_formats')
    env = bare_environment(base / 'nowhere')
    distribution = UNDERLAY / 'setup.bash'
    logs = {'plain': run_sourced(distribution, 'colcon build', ws, env)}
    line = next((x for x in (logs['plain'].stdout + logs['plain'].stderr).splitlines()
                 if 'robot_formats_interfaces was not found' in x), '')
    command = line.partition('build the workspace with: ')[2].strip()
    logs['command'] = command
    if command:
        logs['documented'] = run_checked(distribution, command, ws, env)
    return Build(ws, env, UNDERLAY, logs)


def test_plain_colcon_build_says_the_one_command(workspace) -> None:
    plain = workspace.logs['plain']
    assert plain.returncode != 0, plain.stdout
    assert workspace.logs['command'] == (
        'colcon build --base-paths src src/robot_formats/robot_formats_interfaces'), (
        plain.stdout + plain.stderr)
    assert workspace.logs['command'] in (ROOT / 'README.md').read_text()


def test_the_command_builds_the_workspace_on_the_distribution(workspace) -> None:
    assert installed_packages(workspace.clone / 'install') == OWN


def test_display_and_problem_launch_serve_from_the_workspace(workspace, module_launcher) -> None:
    launch(workspace, module_launcher, 'display.launch.py', 'ws_display')
    problem, side = launch(workspace, module_launcher, 'problem.launch.py', 'ws_problem',
                           description=False)
    wanted = {'/problem_server/get_grasps', '/problem_server/list_objects'}
    side.spin_until(lambda: wanted <= {n for n, _ in side.node.get_service_names_and_types()},
                    what=f'the services {sorted(wanted)}', process=problem)
    own = str(workspace.clone / 'install' / 'robot_formats')
    assert any(own in line for line in processes_of_session(problem.proc.pid).values())
