"""The launch files speak urdf_launch, take use_sim_time, and never leave a process behind.

Everything runs under real ``ros2 launch`` (:class:`LaunchRun`) and is read through the ROS graph
(rcl_interfaces GetParameters, as ``ros2 param get`` reads it; a tf2_ros Buffer) and the
launch's own output:

* display.launch.py takes urdf_tutorial's (``model``, ``gui``, ``rvizconfig``) and urdf_launch's
  (``urdf_package`` + ``urdf_package_path``, ``jsp_gui``, ``rviz_config``) argument names, with
  their meaning: a model path is relative to the package's share directory unless absolute
  (their ``PathJoinSubstitution``); an argument the file does not declare is refused before
  anything starts, unless another launch file includes this one;
* every launch file takes ``use_sim_time`` and gives it to every node it starts;
* rviz2 and joint_state_publisher_gui are not installed here: the launch says so and serves the
  rest. Installed, they start: a stand-in package of each (a real rclpy node under the same
  package and executable name, which prints its command line) proves how they are started;
* however a launch ends (Ctrl-C, SIGINT or SIGTERM to ros2 launch alone, a node failing, a
  refused argument, an error in launch after a node started), no process it started is left
  when ros2 launch has exited.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import pytest

from .harness import TIMEOUT, subprocess_env
from .test_documented_ros2_commands import check_query
from .test_launch_files import (
    ARM, SHARE, Expected, LaunchRun, check_nodes, check_rviz_config, check_tf,
    description_publisher, links_of)

HEBI = SHARE / 'examples' / 'hrdf' / 'hebi_arm.hrdf'
NOT_INSTALLED = '{} is not installed (ament_index has no package {})'

#: Every launch file and the nodes it starts (name, namespace) with its default arguments.
LAUNCHED = {
    'display.launch.py': [('description_publisher', '/')],
    'world.launch.py': [('description_publisher', '/')],
    'problem.launch.py': [('problem_server', '/')],
    'motion.launch.py': [('description_publisher', '/'), ('motion_player', '/')],
    'motion_sim.launch.py': [('description_publisher', '/'), ('sim_controller', '/'),
                             ('motion_player', '/'), ('motion_recorder', '/')],
    'pick_and_place.launch.py': [('problem_server', '/'), ('sim_controller', '/arm'),
                                 ('motion_player', '/arm')],
}


def test_every_launch_file_is_listed() -> None:
    shipped = {p.name for p in (SHARE / 'launch').glob('*.launch.py')}
    assert shipped == set(LAUNCHED)


# --- urdf_tutorial's and urdf_launch's arguments ----------------------------------------------

def served(run: LaunchRun, path: Path, **parameters) -> None:
    """description_publisher serves ``path``: its parameters, robot_description's links and
    every frame through tf2."""
    check_nodes(run, [description_publisher(description_file=str(path), **parameters)])
    check_tf(run, path)


def test_urdf_tutorial_model_and_gui(launcher) -> None:
    """``model:=examples/hrdf/hebi_arm.hrdf gui:=true``: the HEBI arm from the package's share
    directory; joint_state_publisher_gui is not installed, which the launch says, and
    description_publisher goes on publishing the joint states."""
    run = LaunchRun(launcher, 'display.launch.py',
                    {'model': 'examples/hrdf/hebi_arm.hrdf', 'gui': 'true'}, 'model-gui')
    served(run, HEBI, publish_joint_states=True)
    log = run.process.log()
    assert NOT_INSTALLED.format('joint_state_publisher_gui', 'joint_state_publisher_gui') in log
    assert 'base_yaw' in links_of(run.description())
    run.interrupt()


def test_urdf_launch_package_path_and_jsp_gui(launcher) -> None:
    run = LaunchRun(launcher, 'display.launch.py',
                    {'urdf_package': 'robot_formats',
                     'urdf_package_path': 'examples/urdf/arm_with_gripper.urdf',
                     'jsp_gui': 'true'}, 'urdf-package')
    served(run, ARM, publish_joint_states=True)
    assert NOT_INSTALLED.format('joint_state_publisher_gui', 'joint_state_publisher_gui') in (
        run.process.log())
    run.interrupt()


def test_an_absolute_model_and_rvizconfig(launcher, tmp_path) -> None:
    """An absolute model is itself (urdf_tutorial's join); ``rvizconfig`` is the rviz2
    configuration rendered for rviz2."""
    config = tmp_path / 'mine.rviz'
    config.write_text((SHARE / 'config' / 'display.rviz').read_text(encoding='utf-8'),
                      encoding='utf-8')
    run = LaunchRun(launcher, 'display.launch.py',
                    {'model': str(HEBI), 'rvizconfig': str(config), 'fixed_frame': 'world'},
                    'absolute-model')
    served(run, HEBI)
    check_rviz_config(run, 'mine.rviz', tf_prefix='', fixed_frame='world')
    run.interrupt()


def refused(launcher, arguments: dict[str, str], name: str) -> str:
    """The launch exits 1 without starting a node; its output."""
    run = LaunchRun(launcher, 'display.launch.py', arguments, name)
    code = run.process.proc.wait(timeout=TIMEOUT * 2)
    log = run.process.log()
    assert code == 1, f'exit code {code}; {run.process.describe()}'
    assert 'process started' not in log, log
    return log


@pytest.mark.parametrize('arguments, message', [
    ({'modle': 'x.urdf'}, "display.launch.py has no launch argument 'modle' (did you mean "
                          "'model'?)"),
    ({'model': 'a.urdf', 'description_file': str(HEBI)},
     "model (urdf_tutorial's name) and description_file are the same argument"),
    ({'model': 'a.urdf', 'urdf_package_path': 'b.urdf'},
     'model and urdf_package_path both name description_file'),
    ({'urdf_package': 'no_such_package', 'urdf_package_path': 'a.urdf'},
     "urdf_package: no package 'no_such_package' is installed"),
    ({'urdf_package': 'robot_formats_interfaces'},
     'urdf_package names the package of a file: give the file too'),
    ({'rviz_config': str(ARM)}, f'{ARM}:2: not an rviz2 configuration (YAML: '),
], ids=['unknown', 'model-and-description_file', 'two-aliases', 'no-package', 'package-alone',
        'not-an-rviz-config'])
def test_an_argument_that_cannot_be_honoured_is_refused(launcher, arguments, message) -> None:
    log = refused(launcher, arguments, 'refused')
    assert message in log, log


def test_included_by_another_launch_file_its_arguments_are_not_checked(launcher,
                                                                         tmp_path) -> None:
    """ros2 launch's command line belongs to the file it was given: a file that includes
    display.launch.py has arguments of its own."""
    parent = tmp_path / 'parent.launch.py'
    parent.write_text(textwrap.dedent(f'''\
        from launch import LaunchDescription
        from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
        from launch.substitutions import LaunchConfiguration


        def generate_launch_description():
            return LaunchDescription([
                DeclareLaunchArgument('robot'),
                IncludeLaunchDescription(
                    {str(SHARE / 'launch' / 'display.launch.py')!r},
                    launch_arguments={{'description_file': LaunchConfiguration('robot'),
                                      'rviz': 'false'}}.items()),
            ])
        '''), encoding='utf-8')
    run = LaunchRun(launcher, str(parent), {'robot': str(HEBI)}, 'included', package=None)
    served(run, HEBI)
    run.interrupt()


# --- use_sim_time -------------------------------------------------------------------------------

@pytest.mark.parametrize('launch_file', sorted(LAUNCHED))
def test_use_sim_time_reaches_every_node(launcher, launch_file) -> None:
    run = LaunchRun(launcher, launch_file, {'use_sim_time': 'true'}, f'sim-time-{launch_file}')
    nodes = [Expected(name, namespace, {'use_sim_time': True})
             for name, namespace in LAUNCHED[launch_file]]
    check_nodes(run, nodes)
    run.interrupt()


def test_use_sim_time_default_is_wall_time(launcher) -> None:
    run = LaunchRun(launcher, 'motion_sim.launch.py', {}, 'wall-time')
    check_nodes(run, [Expected(name, namespace, {'use_sim_time': False})
                      for name, namespace in LAUNCHED['motion_sim.launch.py']])
    run.interrupt()


def test_ros2_param_get_shows_use_sim_time(launcher, tmp_path) -> None:
    """``ros2 param get`` as a user types it, against display.launch.py use_sim_time:=true."""
    run = LaunchRun(launcher, 'display.launch.py', {'use_sim_time': 'true'}, 'param-get')
    check_nodes(run, [description_publisher()])
    out = check_query('display.launch.py use_sim_time:=true',
                      ('param', 'get', '/description_publisher', 'use_sim_time'),
                      subprocess_env(run.process.domain_id, tmp_path), run.process)
    assert out.stdout.strip() == 'Boolean value is: True', out
    run.interrupt()


# --- rviz2 and joint_state_publisher_gui: missing, installed -------------------------------------

def test_rviz2_missing_the_robot_is_served_and_ctrl_c_ends_everything(launcher) -> None:
    """rviz:=true (the default) without rviz2: a line says so, the robot is served, Ctrl-C
    ends the launch with 0 and no process is left."""
    run = LaunchRun(launcher, 'display.launch.py', {'rviz': 'true'}, 'rviz-missing')
    served(run, ARM)
    assert NOT_INSTALLED.format('rviz2', 'rviz2') in run.process.log()
    check_rviz_config(run, 'display.rviz')
    children = descendants(run)
    config, _ = run.rviz_config()
    run.interrupt()
    assert_nothing_left(run, children)
    assert not config.exists()


STANDIN = '''\
#!{python}
"""Stand-in of {package}'s {package} executable (not installable here): a real rclpy node that
takes the command line launch_ros gives it and prints it."""
import signal
import sys

import rclpy
from rclpy.executors import ExternalShutdownException

print('stand-in command line:', ' '.join(sys.argv[1:]), flush=True)
rclpy.init(args=sys.argv)
node = rclpy.create_node('{package}')
try:
    rclpy.spin(node)
except (KeyboardInterrupt, ExternalShutdownException):
    pass
finally:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches it twice: group and launch
node.destroy_node()
rclpy.try_shutdown()
'''


@pytest.fixture
def standins(tmp_path, monkeypatch) -> Path:
    """An ament prefix holding rviz2 and joint_state_publisher_gui stand-ins, first on
    AMENT_PREFIX_PATH of the launches started afterwards."""
    prefix = tmp_path / 'standins'
    for package in ('rviz2', 'joint_state_publisher_gui'):
        marker = prefix / 'share' / 'ament_index' / 'resource_index' / 'packages' / package
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text('', encoding='utf-8')
        (prefix / 'share' / package).mkdir(parents=True)
        executable = prefix / 'lib' / package / package
        executable.parent.mkdir(parents=True)
        executable.write_text(STANDIN.format(python=sys.executable, package=package),
                              encoding='utf-8')
        executable.chmod(executable.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv('AMENT_PREFIX_PATH',
                       f'{prefix}{os.pathsep}{os.environ["AMENT_PREFIX_PATH"]}')
    return prefix


def test_installed_rviz2_and_gui_start_in_the_namespace_with_sim_time(launcher,
                                                                      standins) -> None:
    """rviz2 starts on the rendered configuration, in the namespace, with use_sim_time;
    joint_state_publisher_gui replaces description_publisher's joint states."""
    run = LaunchRun(launcher, 'display.launch.py',
                    {'rviz': 'true', 'gui': 'true', 'namespace': 'left', 'frame_prefix': 'left/',
                     'use_sim_time': 'true'}, 'standins')
    check_nodes(run, [
        description_publisher('/left', description_file=str(ARM), publish_joint_states=False,
                              use_sim_time=True),
        Expected('rviz2', '/left', {'use_sim_time': True}),
        Expected('joint_state_publisher_gui', '/left', {'use_sim_time': True}),
    ])
    config, _ = run.rviz_config()
    line = re.search(r'\[rviz2-\d+\] stand-in command line: (.*)', run.process.log())
    assert line and f'-d {config}' in line.group(1), run.process.log()
    check_rviz_config(run, 'display.rviz', tf_prefix='left', fixed_frame='left/base_link')
    log = run.process.log()
    assert 'not installed' not in log
    children = descendants(run)
    run.interrupt()
    assert_nothing_left(run, children)


# --- nothing is left behind ---------------------------------------------------------------------

def descendants(run: LaunchRun) -> list[psutil.Process]:
    """Every process ros2 launch has started (its nodes), once they are all up."""
    children = psutil.Process(run.process.proc.pid).children(recursive=True)
    assert children, 'ros2 launch has no child process'
    return children


def describe_processes(processes: list[psutil.Process]) -> str:
    """Each process's pid, state and command line (for a failure's message)."""
    def one(process: psutil.Process) -> str:
        try:
            return f'{process.pid} {process.status()} {" ".join(process.cmdline())[:160]}'
        except psutil.Error:
            return f'{process.pid} gone'
    return '; '.join(one(p) for p in processes)


def assert_nothing_left(run: LaunchRun, children: list[psutil.Process]) -> None:
    """ros2 launch has exited; none of its processes, and nothing of its session, remains."""
    assert run.process.proc.poll() is not None, 'ros2 launch is still running'
    left = [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    session = run.process.proc.pid
    left += [p for p in psutil.process_iter(['pid']) if p.pid != os.getpid()
             and p not in left and _session(p.pid) == session]
    assert not left, [(p.pid, _cmdline(p)) for p in left]


def _session(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except OSError:
        return None


def _cmdline(process: psutil.Process) -> str:
    try:
        return ' '.join(process.cmdline())
    except psutil.Error:
        return '?'


@pytest.mark.parametrize('signum, group', [
    (signal.SIGINT, True), (signal.SIGINT, False), (signal.SIGTERM, False)],
    ids=['ctrl-c', 'sigint-to-ros2-launch', 'sigterm-to-ros2-launch'])
def test_an_interrupted_launch_leaves_no_process(launcher, signum, group) -> None:
    """Ctrl-C in a terminal signals the whole foreground group; ``kill`` (or a supervisor)
    signals ros2 launch alone, which must end its nodes itself."""
    run = LaunchRun(launcher, 'motion_sim.launch.py', {}, f'interrupted-{signum.name}')
    run.wait_for_nodes([Expected(name, namespace)
                        for name, namespace in LAUNCHED['motion_sim.launch.py']])
    children = descendants(run)
    if group:
        os.killpg(run.process.proc.pid, signum)
    else:
        run.process.proc.send_signal(signum)
    try:
        code = run.process.proc.wait(timeout=TIMEOUT * 2)
    except subprocess.TimeoutExpired:
        raise AssertionError(f'ros2 launch still runs {TIMEOUT * 2:g} s after {signum.name}; '
                             f'its processes: {describe_processes(children)}; '
                             + run.process.describe()) from None
    # SIGTERM: upstream launch ends its run with 1 ("run task was canceled") once the processes
    # are stopped; it never dies of the signal (-15), which would leave them running
    expected = 0 if signum == signal.SIGINT else 1
    assert code == expected, f'ros2 launch exited with {code}; {run.process.describe()}'
    assert_nothing_left(run, children)


def test_a_failing_node_leaves_the_rest_serving_and_nothing_behind(launcher) -> None:
    """motion_player refuses its parameter and exits 1; description_publisher goes on serving
    the robot; Ctrl-C ends the launch and every process."""
    run = LaunchRun(launcher, 'motion.launch.py', {'interpolation': 'bogus'}, 'failing-node')
    run.process.wait_for_log('process has died')
    check_nodes(run, [description_publisher(description_file=str(ARM))])
    check_tf(run, ARM, joint_states='/joint_states')
    children = descendants(run)
    code = run.process.interrupt(timeout=TIMEOUT)
    assert code == 0, run.process.describe()
    assert_nothing_left(run, children)


def test_a_launch_failing_after_a_node_started_leaves_nothing(launcher) -> None:
    """``frame_period:=abc`` fails in launch (a float substitution) once description_publisher
    has been started: launch exits 1 on its own without stopping it; ros2 launch's exit does."""
    run = LaunchRun(launcher, 'motion.launch.py', {'frame_period': 'abc'}, 'late-failure')
    code = run.process.proc.wait(timeout=TIMEOUT * 2)
    assert code == 1 and "could not convert string to float: 'abc'" in run.process.log(), (
        run.process.describe())
    assert_nothing_left(run, [])


def test_a_refused_launch_starts_nothing(launcher) -> None:
    run = LaunchRun(launcher, 'display.launch.py', {'namspace': 'left'}, 'refused-nothing')
    run.process.proc.wait(timeout=TIMEOUT * 2)
    assert "(did you mean 'namespace'?)" in run.process.log()
    assert_nothing_left(run, [])
