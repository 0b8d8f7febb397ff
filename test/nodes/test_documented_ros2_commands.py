"""Every `ros2 ...` command of README.md and docs/ that uses robot_formats runs as written.

The commands are read from the pages' code lines (backslash continuations joined). Paths shown
as placeholders (``/path/to/robot.urdf``) are replaced by bundled examples, explicitly listed
below; commands of other packages (controller_manager, Gazebo, robot_state_publisher) cannot
run on this machine and are left out by package name, never by guesswork.

* ``ros2 launch robot_formats ...`` and ``ros2 run robot_formats ...`` start in the background
  on a private loopback domain (``rviz:=false`` added: rviz2 needs Qt); their nodes must appear
  on the graph, and Ctrl-C (SIGINT) must end them with exit code 0.
* ``ros2 run robot_formats NODE --help`` is a command, not a node to start: it must exit 0 by
  itself, starting nothing, and print the node's parameters.
* ``ros2 service call``, ``ros2 action send_goal`` and ``ros2 param set`` run against the launch
  file that serves them and must succeed (exit 0, no ``success=False``). A call that only
  succeeds after another one (``/motion_recorder/stop`` needs a recording started by
  ``/motion_recorder/start``) has that call listed in ``PRECEDING``: it runs first, against the
  same server, and must succeed too.
* docs/guide-planner.md's Python client code runs as written against problem.launch.py.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rclpy.qos import qos_profile_sensor_data
from sensor_msgs.msg import JointState

from .harness import LOST_RESPONSE, ROOT, TIMEOUT, NodeProcess, RosSide, subprocess_env
from .test_node_help import help_entries, run_node_command

PAGES = [ROOT / 'README.md', *sorted((ROOT / 'docs').glob('*.md'))]
#: Placeholders of the pages -> the bundled file each stands for here.
PLACEHOLDERS = {
    '/path/to/robot.urdf': 'examples/urdf/arm_with_gripper.urdf',
    '/path/robot.urdf': 'examples/urdf/arm_with_gripper.urdf',
    '/path/to/robot.hrdf': 'examples/hrdf/hebi_arm.hrdf',
    '/path/to/world.sdf': 'examples/sdf/workcell.sdf',
    '/path/to/problem.xml': 'examples/tmp/discs_and_pegs.xml',
    '/path/other.urdf': 'examples/hrdf/hebi_arm.hrdf',
}
#: The launch file that serves the nodes a query command talks to.
SERVERS = {
    '/problem_server/': ['launch', 'robot_formats', 'problem.launch.py'],
    '/motion_player/': ['launch', 'robot_formats', 'motion_sim.launch.py'],
    '/description_publisher': ['launch', 'robot_formats', 'display.launch.py'],
    '/motion_recorder/': ['launch', 'robot_formats', 'motion_sim.launch.py'],
}
#: Query commands that succeed only after another call to the same server: target -> (the ros2
#: arguments run first, which must succeed; a sensor_msgs/JointState topic on which a message
#: must then arrive, or None). ~/stop answers success=False unless a recording was started and
#: has received a joint state, so its documented call is preceded by ~/start and one message.
PRECEDING = {
    '/motion_recorder/stop': (('service', 'call', '/motion_recorder/start',
                               'std_srvs/srv/Trigger'), '/joint_states'),
}
STARTERS = ('launch', 'run')
#: ros2 commands of packages this machine cannot install (they need rclcpp).
OTHER_PACKAGES_COMMANDS = {'control': 'ros2controlcli (ros2_control)'}
QUERIES = ('service', 'action', 'param')


def documented_ros2_commands() -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """(page, arguments after ``ros2``, the page's latest ``ros2 launch robot_formats`` before
    it) of every robot_formats command shown in a code line."""
    found: dict[tuple[str, ...], tuple[str, tuple[str, ...]]] = {}
    for page in PAGES:
        text = page.read_text(encoding='utf-8').replace('\\\n', ' ')
        latest_launch: tuple[str, ...] = ()
        for line in text.splitlines():
            match = re.match(r'\s{4,}ros2 (.+)', line)
            if not match or '...' in match.group(1):
                continue
            command = re.split(r'\s+#', match.group(1))[0]
            for placeholder, example in PLACEHOLDERS.items():
                command = command.replace(placeholder, str(ROOT / example))
            args = tuple(shlex.split(command))
            if args[0] in OTHER_PACKAGES_COMMANDS or (
                    args[0] in STARTERS and args[1] != 'robot_formats'):
                continue  # another package's command or executable (not installable here)
            found.setdefault(args, (page.name, latest_launch))
            if args[0] == 'launch' and '--show-args' not in args:
                latest_launch = args
    return [(page, args, launch) for args, (page, launch) in found.items()]


def is_help(args: tuple[str, ...]) -> bool:
    """``run robot_formats NODE --help`` (or ``-h``): the node's own arguments, before
    ``--ros-args``, ask for its help."""
    own = args[3:args.index('--ros-args')] if '--ros-args' in args else args[3:]
    return args[0] == 'run' and bool({'-h', '--help'} & set(own))


COMMANDS = documented_ros2_commands()
HELPS = [c[:2] for c in COMMANDS if is_help(c[1])]
STARTS = [c[:2] for c in COMMANDS if c[1][0] in STARTERS and not is_help(c[1])]
ASKS = [c for c in COMMANDS if c[1][0] in QUERIES]


def ros2() -> str:
    found = shutil.which('ros2')
    assert found, 'ros2 is not on PATH: source tools/env.sh after `make build`'
    return found


def test_the_pages_show_starting_and_asking() -> None:
    assert {a[1] for _, a in STARTS if a[0] == 'launch'} >= {
        'robot_formats'}, 'no ros2 launch robot_formats command in the pages'
    assert {a[0] for _, a, _ in ASKS} >= {'service', 'action', 'param'}, ASKS
    assert all(c[0] in STARTERS + QUERIES for _, c, _ in COMMANDS), COMMANDS


def start(args: list[str], launcher, name: str) -> tuple[NodeProcess, RosSide]:
    if args[0] == 'launch' and 'rviz:=false' not in args:
        args = [*args, 'rviz:=false']
    return launcher.command([ros2(), *args], re.sub(r'\W', '_', name)[:60])


#: The nodes each launch file starts (rviz2 left out).
LAUNCHED_NODES = {
    'display.launch.py': {'description_publisher'},
    'world.launch.py': {'description_publisher'},
    'problem.launch.py': {'problem_server'},
    'motion.launch.py': {'description_publisher', 'motion_player'},
    'motion_sim.launch.py': {'description_publisher', 'sim_controller', 'motion_player',
                             'motion_recorder'},
    'pick_and_place.launch.py': {'problem_server', 'sim_controller', 'motion_player'},
}


def expected_nodes(args: list[str]) -> set[str]:
    if args[0] == 'run':
        return {args[2]}
    assert args[2] in LAUNCHED_NODES, f'add {args[2]} to LAUNCHED_NODES'
    return LAUNCHED_NODES[args[2]]


def wait_for_nodes(process: NodeProcess, side: RosSide, args: list[str]) -> None:
    """The nodes the command starts are on the graph."""
    wanted = expected_nodes(list(args))
    side.spin_until(lambda: wanted <= {n for n, _ in side.node.get_node_names_and_namespaces()},
                    what=f'the nodes {sorted(wanted)} on the graph', process=process)


@pytest.mark.parametrize('page, command', STARTS, ids=lambda v: ' '.join(v)
                         if isinstance(v, tuple) else v)
def test_documented_start_command(page, command, launcher) -> None:
    process, side = start(list(command), launcher, ' '.join(command[:4]))
    wait_for_nodes(process, side, list(command))
    code = process.interrupt(timeout=30)
    assert code == 0, f'{page}: ros2 {" ".join(command)} exited {code} on SIGINT; ' + \
        process.describe()
    assert 'process has died' not in process.log(), process.describe()


@pytest.mark.parametrize('page, command', HELPS, ids=lambda v: ' '.join(v)
                         if isinstance(v, tuple) else v)
def test_documented_help_command(page, command, tmp_path) -> None:
    """Run as written, where rclpy cannot even initialise (so nothing starts): exit 0, the
    node's usage, and its parameters and rclpy's, each with a description."""
    run = run_node_command(command[2], *command[3:], tmp_path=tmp_path, timeout=TIMEOUT)
    assert run.returncode == 0, f'{page}: ros2 {" ".join(command)}: exit {run.returncode}\n' \
                                f'{run.stdout}{run.stderr}'
    assert run.stdout.startswith(f'usage: ros2 run robot_formats {command[2]} '), run.stdout
    own, rclpys = help_entries(run.stdout)
    assert own and 'use_sim_time' in rclpys, run.stdout
    assert all(description for _, description in own.values()), run.stdout


def server_for(command: tuple[str, ...], page_launch: tuple[str, ...]) -> list[str]:
    """The launch the page shows before the command if it serves the command's target, else
    the launch file known to serve it."""
    target = command[2]
    if page_launch and any(target.startswith(prefix) and page_launch[2] == launch[2]
                           for prefix, launch in SERVERS.items()):
        return list(page_launch)
    for prefix, launch in SERVERS.items():
        if target.startswith(prefix):
            return launch
    raise AssertionError(f'no launch file is known to serve {target!r}: add it to SERVERS')


@pytest.mark.parametrize('page, command, page_launch', ASKS,
                         ids=lambda v: ' '.join(v) if isinstance(v, tuple) else v)
def test_documented_query_command(page, command, page_launch, launcher, tmp_path) -> None:
    server = server_for(command, page_launch)
    process, side = start(server, launcher, f'server {command[2]}')
    wait_for_nodes(process, side, server)
    env = subprocess_env(process.domain_id, tmp_path)
    preceding, then_topic = PRECEDING.get(command[2], (None, None))
    if preceding is not None:
        check_query(f'{page}: before ros2 {" ".join(command)}', preceding, env, process)
    if then_topic is not None:
        inbox = side.subscribe(JointState, then_topic, qos_profile_sensor_data)
        side.spin_until(lambda: len(inbox), what=f'a message on {then_topic}', process=process)
    check_query(f'{page}: ros2 {" ".join(command)}', command, env, process)


def check_query(where: str, command: tuple[str, ...], env: dict[str, str],
                server: NodeProcess) -> subprocess.CompletedProcess:
    """``ros2 *command`` succeeds (retried while the CLI has not discovered the server yet,
    or when the server reports that DDS lost its answer: see RosSide.call); what it printed."""
    args = [sys.executable, ros2(), *command]
    if command[0] == 'param':
        args.append('--no-daemon')  # no daemon process outlives the test
    deadline = time.monotonic() + TIMEOUT
    while True:  # the CLI's own node discovers the server's node and services after a while
        lost_before = server.log().count(LOST_RESPONSE)
        try:
            run = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True,
                                 timeout=2 * TIMEOUT)
        except subprocess.TimeoutExpired as timeout:
            # `ros2 service call` waits for its answer without end.
            assert server.log().count(LOST_RESPONSE) > lost_before, (
                f'{where}: no answer in {timeout.timeout:g} s; {server.describe()}')
            continue
        undiscovered = any(sign in (run.stdout + run.stderr).lower()
                           for sign in ('not available', 'node not found'))
        if run.returncode == 0 or time.monotonic() > deadline or not undiscovered:
            break
    assert run.returncode == 0, f'{where}: exit {run.returncode}\n{run.stdout}\n{run.stderr}'
    assert 'success=False' not in run.stdout, f'{where}:\n{run.stdout}'
    assert 'Traceback' not in run.stderr, f'{where}:\n{run.stderr}'
    if command[0] == 'action':
        assert 'SUCCEEDED' in run.stdout, f'{where}:\n{run.stdout}'
    return run


def python_blocks(page: Path) -> list[str]:
    return re.findall(r'```python\n(.*?)```', page.read_text(encoding='utf-8'), re.S)


def test_planner_guide_client_code_runs_as_written(launcher, tmp_path) -> None:
    """The walk-through's pick and place, then its packed-grasps snippet, against the problem
    the guide launches."""
    walk_through, packed = python_blocks(ROOT / 'docs' / 'guide-planner.md')[:2]
    ending = 'planner.destroy_node()\nrclpy.shutdown()\n'
    assert walk_through.endswith(ending), 'the walk-through ends by shutting down'
    script = tmp_path / 'planner.py'
    script.write_text(walk_through[:-len(ending)] + packed.replace(': ...', ': pass') + ending,
                      encoding='utf-8')
    server = ['launch', 'robot_formats', 'problem.launch.py']
    process, side = start(server, launcher, 'guide')
    wait_for_nodes(process, side, server)
    run = subprocess.run([sys.executable, str(script)], cwd=ROOT,
                         env=subprocess_env(process.domain_id, tmp_path), capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, f'{run.stdout}\n{run.stderr}\n{process.describe()}'
