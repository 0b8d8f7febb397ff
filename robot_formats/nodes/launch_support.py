"""What every robot_formats launch file (launch/*.launch.py) shares, written once.

* :func:`launch_description` wraps a file's arguments and actions:

  - a command-line argument the file does not declare is an error before anything starts
    (``ros2 launch`` itself ignores it silently, so ``modle:=...`` would serve the default);
  - ``use_sim_time`` is declared and given to every node the file starts (launch_ros'
    ``SetParameter``, the way upstream launch files pass it);
  - :class:`Alias` arguments (urdf_tutorial's and urdf_launch's names) are resolved onto the
    file's own before any node reads them.

* :func:`optional_node` starts a node of another package only when ament_index has that
  package, and otherwise says so and lets the rest run: ``Node(package='rviz2')`` for a missing
  package raises inside ros2 launch after the other nodes were started, and they are left
  running without their launch (launch's shutdown does not reach a process whose start is still
  pending).
* No launched process outlives ros2 launch. SIGTERM to ros2 launch (``kill``, ``timeout``, a
  supervisor, an IDE's stop button) stops them the way Ctrl-C does first: upstream launch ends
  at once on SIGTERM, and without a Python handler for it the process dies of the signal. And
  when launch ends on an error after a node was started (a value a launch substitution cannot
  convert, ``frame_period:=abc``), it exits without stopping that node: what is left is stopped
  when ros2 launch exits.
* :func:`rviz` renders the file's rviz2 configuration for the launch's namespace and frame
  prefix (:mod:`robot_formats.presentation.rviz_config`), writes it to a temporary file
  (removed when ros2 launch exits), logs its path and starts rviz2 on it.

Everything that can refuse the launch (arguments, the rviz2 configuration) runs before the first
node starts, so a refused launch never leaves a node behind.
"""

from __future__ import annotations

import atexit
import difflib
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
from launch import LaunchContext, LaunchDescription
from launch.action import Action
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.conditions import IfCondition
from launch.logging import get_logger
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node, SetParameter
from launch_ros.parameter_descriptions import ParameterValue

from robot_formats.presentation.rviz_config import RvizConfigError, RvizView, render_rviz_config

if TYPE_CHECKING:
    import psutil

__all__ = ['Alias', 'LaunchArgumentError', 'PACKAGE', 'installed', 'is_true',
           'joint_state_gui', 'launch_description', 'optional_node', 'rviz', 'rviz_arguments']

PACKAGE = 'robot_formats'
#: Launch configurations that launch itself reads, accepted on any command line.
LAUNCH_OWN_ARGUMENTS = frozenset({'emulate_tty', 'launch-prefix', 'launch-prefix-filter'})
#: Seconds a launched process gets after SIGINT, then after SIGTERM (launch's own defaults).
STOP_GRACE = 5.0


class LaunchArgumentError(ValueError):
    """A launch argument that cannot be honoured; ros2 launch prints it and exits 1 before any
    node starts."""


def log() -> Any:
    """The logger of launch files' own lines (``[launch.user]``, as LogInfo's)."""
    return get_logger('launch.user')


# --- the launch description -------------------------------------------------------------------

def launch_description(launch_file: str, arguments: Sequence[DeclareLaunchArgument],
                       actions: Sequence[Action], aliases: Sequence[Alias] = ()
                       ) -> LaunchDescription:
    """The file's LaunchDescription: its arguments (and ``use_sim_time``, and its aliases),
    the command-line check, then ``actions`` in order. Actions that may refuse the launch
    (:func:`rviz`) come before the nodes in ``actions``."""
    declared = [*arguments, *(alias.declare() for alias in aliases),
                DeclareLaunchArgument('use_sim_time', default_value='false',
                                      description='every node uses the /clock topic as its '
                                                  'time (a simulator or a bag replay)')]
    return LaunchDescription([
        OpaqueFunction(function=_leave_no_process),
        OpaqueFunction(function=_refuse_undeclared,
                       args=[launch_file, [argument.name for argument in declared]]),
        *declared,
        OpaqueFunction(function=_resolve_aliases, args=[list(aliases), declared]),
        SetParameter(name='use_sim_time',
                     value=ParameterValue(LaunchConfiguration('use_sim_time'), value_type=bool)),
        *actions,
    ])


def _leave_no_process(context: LaunchContext) -> None:
    """SIGTERM to ros2 launch first stops every process it started, as Ctrl-C would, and so
    does ros2 launch's exit for what is still running then.

    Launch watches SIGTERM only through its wakeup file descriptor, which works once Python has a
    handler for the signal; without one the process dies at once. With this handler launch's own
    reaction (ending its run, "using SIGTERM can result in orphaned processes") follows, with
    nothing left to orphan. Installed once per ros2 launch (the main thread's handler), however
    many of these files it includes."""
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGTERM) is not _on_sigterm):
        signal.signal(signal.SIGTERM, _on_sigterm)
        atexit.register(_stop_what_is_left)


# psutil is imported where a launch ends, not with the launch file: ros2 launch would pay for
# it before starting the first node.

def _on_sigterm(signum: int, frame: Any) -> None:
    import psutil
    log().warning('SIGTERM: stopping the launched processes as Ctrl-C does (SIGINT, then SIGTERM '
                  f'and SIGKILL after {STOP_GRACE:g} s each) before ros2 launch ends')
    stop_processes(psutil.Process().children(recursive=True))


def _stop_what_is_left() -> None:
    import psutil
    left = [p for p in psutil.Process().children(recursive=True) if _running(p)]
    if left:
        print(f'ros2 launch exits with {len(left)} launched process(es) still running: stopping '
              'them (SIGINT, then SIGTERM and SIGKILL)', file=sys.stderr, flush=True)
        stop_processes(left)


def stop_processes(processes: list[psutil.Process], grace: float = STOP_GRACE) -> None:
    """SIGINT, SIGTERM, SIGKILL: each signal to the processes still running, ``grace`` seconds
    apart. Polls without reaping: the exited stay zombies for launch (or init) to reap."""
    import psutil
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        running = [p for p in processes if _running(p)]
        for process in running:
            try:
                process.send_signal(signum)
            except psutil.Error:
                pass  # it has just ended
        deadline = time.monotonic() + grace
        while any(_running(p) for p in running) and time.monotonic() < deadline:
            time.sleep(0.05)  # poll interval of a bounded wait


def _running(process: psutil.Process) -> bool:
    import psutil
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _refuse_undeclared(context: LaunchContext, launch_file: str, declared: list[str]) -> None:
    """A ``name:=value`` of ros2 launch's command line that this file does not declare is an
    error. Only when ros2 launch was given this very file: included by another one, the command
    line holds the other file's arguments."""
    given = command_line_arguments(launch_file, sys.argv)
    unknown = [name for name in given or () if name not in declared
               and name not in LAUNCH_OWN_ARGUMENTS]
    if not unknown:
        return
    hints = []
    for name in unknown:
        close = difflib.get_close_matches(name, declared, n=1)
        hints.append(f"'{name}'" + (f" (did you mean '{close[0]}'?)" if close else ''))
    file = os.path.basename(launch_file)
    raise LaunchArgumentError(
        f"{file} has no launch argument {', '.join(hints)}; its arguments: "
        f"{', '.join(sorted(declared))} (`ros2 launch {PACKAGE} {file} --show-args` "
        'describes them)')


def command_line_arguments(launch_file: str, argv: Sequence[str]) -> list[str] | None:
    """Names of the ``name:=value`` arguments after ``launch_file`` on ``argv`` (ros2
    launch's command line), or None when ``argv`` does not name that file."""
    for index in range(len(argv)):
        if _names_file(argv, index, launch_file):
            return [a.split(':=', 1)[0] for a in argv[index + 1:] if ':=' in a]
    return None


def _names_file(argv: Sequence[str], index: int, launch_file: str) -> bool:
    """``argv[index]`` is ``launch_file``: ``<package> <file name>``, or a path to it."""
    arg = argv[index]
    if arg == os.path.basename(launch_file) and index > 0 and argv[index - 1] == PACKAGE:
        return True
    try:
        return arg.endswith('.py') and os.path.samefile(arg, launch_file)
    except OSError:
        return False


# --- aliases: urdf_tutorial's and urdf_launch's names --------------------------------------------

@dataclass(frozen=True)
class Alias:
    """Another launch file's name for one of ours (``model`` for ``description_file``).

    Given, it sets ours; given together with ours (set away from its default), the launch is
    refused. ``package_argument`` names the argument holding a package: the value is then a
    path relative to that package's share directory, or absolute (a path joined as
    urdf_tutorial's and urdf_launch's ``PathJoinSubstitution`` joins it)."""

    name: str
    ours: str
    origin: str
    description: str
    package_argument: str | None = None

    def declare(self) -> DeclareLaunchArgument:
        return DeclareLaunchArgument(
            self.name, default_value='',
            description=f'{self.origin} name of {self.ours}: {self.description}')


def _resolve_aliases(context: LaunchContext, aliases: list[Alias],
                     declared: list[DeclareLaunchArgument]) -> None:
    configurations = context.launch_configurations
    defaults = {a.name: _default(context, a) for a in declared}
    given = [a for a in aliases if configurations.get(a.name, '')]
    by_ours: dict[str, Alias] = {}
    for alias in given:
        other = by_ours.setdefault(alias.ours, alias)
        if other is not alias:
            raise LaunchArgumentError(f'{other.name} and {alias.name} both name {alias.ours}: '
                                      'give one of them')
        value = _aliased_value(context, alias)
        if configurations.get(alias.ours, '') not in (defaults.get(alias.ours), value):
            raise LaunchArgumentError(f'{alias.name} ({alias.origin} name) and {alias.ours} '
                                      'are the same argument: give one of them')
        configurations[alias.ours] = value
    used = {a.package_argument for a in given}
    for alias in aliases:
        package = alias.package_argument
        if package and package not in used and configurations.get(package) != defaults[package]:
            paths = ' or '.join(a.name for a in aliases if a.package_argument == package)
            raise LaunchArgumentError(f'{package} names the package of a file: give the file '
                                      f'too ({paths})')


def _default(context: LaunchContext, argument: DeclareLaunchArgument) -> str | None:
    if argument.default_value is None:
        return None
    return ''.join(s.perform(context) for s in argument.default_value)


def _aliased_value(context: LaunchContext, alias: Alias) -> str:
    value = context.launch_configurations[alias.name]
    if alias.package_argument is None:
        return value
    package = context.launch_configurations[alias.package_argument]
    try:
        share = get_package_share_directory(package, print_warning=False)
    except PackageNotFoundError:
        raise LaunchArgumentError(f"{alias.package_argument}: no package '{package}' is "
                                  'installed (ament_index has none)') from None
    path = os.path.join(share, value)
    log().info(f'{alias.name} {value}: {alias.ours} {path} (relative to the share directory '
               f'of {package} unless absolute)')
    return path


# --- other packages' nodes --------------------------------------------------------------------

def installed(package: str) -> bool:
    """Whether ament_index has ``package`` (what ``Node(package=...)`` needs to start it)."""
    try:
        get_package_share_directory(package, print_warning=False)
    except PackageNotFoundError:
        return False
    return True


def optional_node(node: Node, package: str, instead: str) -> list[Action]:
    """``[node]`` when ``package`` is installed; else nothing, and a line saying that it is
    not and what runs ``instead``."""
    if installed(package):
        return [node]
    log().warning(f'{package} is not installed (ament_index has no package {package}): not '
                  f'starting it; {instead}')
    return []


def joint_state_gui(namespace: str) -> OpaqueFunction:
    """joint_state_publisher_gui when ``gui`` is true, in the launch's namespace (the launch
    argument named ``namespace``), replacing description_publisher's joint states as it
    replaces joint_state_publisher in urdf_launch; not installed, description_publisher keeps
    publishing them and a line says so."""
    return OpaqueFunction(function=_start_joint_state_gui, args=[namespace])


def _start_joint_state_gui(context: LaunchContext, namespace: str) -> list[Action]:
    if not is_true(context, 'gui'):
        return []
    node = Node(package='joint_state_publisher_gui', executable='joint_state_publisher_gui',
                name='joint_state_publisher_gui', output='screen',
                namespace=context.launch_configurations.get(namespace, ''))
    started = optional_node(node, 'joint_state_publisher_gui',
                            'description_publisher publishes the joint states')
    if started:
        context.launch_configurations['publish_joint_states'] = 'false'
        log().info('joint_state_publisher_gui publishes the joint states: description_publisher '
                   'does not (publish_joint_states false)')
    return started


def is_true(context: LaunchContext, name: str) -> bool:
    """A boolean launch argument, read as launch's conditions read it (``true``/``1``...)."""
    return IfCondition(LaunchConfiguration(name)).evaluate(context)


# --- rviz2 ------------------------------------------------------------------------------------

def rviz(namespace: str | None = None, frame_prefix: str | None = None,
         fixed_frame: str | None = None) -> OpaqueFunction:
    """rviz2 on the launch's ``rviz_config`` rendered for the launch arguments named here
    (``None``: the file has no such argument), when ``rviz`` is true and rviz2 is installed.
    The rendered file is written and logged in every case (``rviz2 -d PATH`` opens it while
    the launch runs)."""
    return OpaqueFunction(function=_start_rviz, args=[namespace, frame_prefix, fixed_frame])


def rviz_arguments(share: Any, config: str) -> list[DeclareLaunchArgument]:
    """``rviz`` and ``rviz_config`` (default: ``config`` in the package's config/)."""
    return [
        DeclareLaunchArgument('rviz', default_value='true',
                              description='start rviz2 (when installed; without it, the other '
                                          'nodes run and a line says so)'),
        DeclareLaunchArgument(
            'rviz_config', default_value=PathJoinSubstitution([share, 'config', config]),
            description='rviz2 configuration file; rviz2 gets a copy that follows namespace '
                        'and frame_prefix (its path is logged)'),
    ]


def _start_rviz(context: LaunchContext, namespace: str | None, frame_prefix: str | None,
                fixed_frame: str | None) -> list[Action]:
    def value(name: str | None) -> str:
        return context.launch_configurations.get(name, '') if name else ''

    view = RvizView(namespace=value(namespace), frame_prefix=value(frame_prefix),
                    fixed_frame=value(fixed_frame) or None)
    source = Path(context.launch_configurations['rviz_config'])
    path = write_rviz_config(source, view)
    log().info(f'rviz2 configuration: {path} (from {source}, for namespace '
               f"'{view.namespace}', frame_prefix '{view.frame_prefix}')")
    if not is_true(context, 'rviz'):
        return []
    node = Node(package='rviz2', executable='rviz2', name='rviz2', output='screen',
                namespace=value(namespace), arguments=['-d', str(path)])
    return optional_node(node, 'rviz2', 'the other nodes run (rviz:=false starts without it)')


def write_rviz_config(source: Path, view: RvizView) -> Path:
    """``source`` rendered for ``view``, written atomically into a fresh temporary folder that
    is removed when this process (ros2 launch) exits."""
    try:
        text = source.read_text(encoding='utf-8')
    except OSError as err:
        raise LaunchArgumentError(f'rviz_config: cannot read {source}: {err.strerror}') from None
    try:
        rendered, warnings = render_rviz_config(text, view, str(source))
    except RvizConfigError as err:
        raise LaunchArgumentError(f'rviz_config: {err}') from None
    for warning in warnings:
        log().warning(warning)
    folder = Path(tempfile.mkdtemp(prefix='robot_formats_rviz_'))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    header = (f'# rviz2 configuration rendered by robot_formats from {source} for namespace '
              f"'{view.namespace}' and frame_prefix '{view.frame_prefix}'; removed when the "
              'launch ends (save changes with "Save Config As")\n')
    path = folder / source.name
    partial = folder / f'.{source.name}.partial'
    partial.write_text(header + rendered, encoding='utf-8')
    os.replace(partial, path)
    return path

