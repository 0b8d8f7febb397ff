"""One policy for bad parameters, in every node (docs/nodes.md, node_support.run_node): a value
the node cannot use is refused at start-up: the process exits 1 with a sentence naming the
parameter, and no traceback. Rates and periods carry their range in the parameter descriptor
(rclpy refuses values outside it, here and at set time); choices are checked by the node.
Started as users start them (``ros2 run`` runs the same ``main``)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from .harness import ARM, TIMEOUT

CASES = {
    'description_publisher rate': (
        'description_publisher', ['description_file:=' + str(ARM), 'publish_frequency:=-5.0'],
        'Parameter publish_frequency out of range Min: 0.0, Max: 100000.0'),
    'description_publisher qos': (
        'description_publisher', ['description_file:=' + str(ARM), 'joint_states_qos:=fast'],
        "parameter joint_states_qos is 'fast', not one of sensor_data, reliable"),
    'problem_server rate': (
        'problem_server', ['publish_frequency:=.nan'],
        'Parameter publish_frequency out of range'),
    'sim_controller mode': (
        'sim_controller', ['description_file:=' + str(ARM), 'mode:=teleport'],
        "parameter mode is 'teleport', not one of servo, kinematic"),
    'sim_controller rate': (
        'sim_controller', ['description_file:=' + str(ARM), 'update_rate:=0.0'],
        'Parameter update_rate out of range Min: 0.001'),
    'motion_player period': (
        'motion_player', ['frame_period:=-0.1'],
        'Parameter frame_period out of range Min: 1e-06'),
    'a wrong type': (
        'description_publisher', ['description_file:=' + str(ARM), 'publish_frequency:=20'],
        "publish_frequency"),
}


@pytest.mark.parametrize('case', sorted(CASES))
def test_a_bad_parameter_is_refused_at_start_up(module_launcher, case: str) -> None:
    node, parameters, reason = CASES[case]
    args = ['-m', f'robot_formats.nodes.{node}', '--ros-args']
    for parameter in parameters:
        args += ['-p', parameter]
    process, _ = module_launcher.command(args, f'policy_{case.replace(" ", "_")}')
    assert process.proc.wait(timeout=TIMEOUT) == 1, process.describe()
    log = process.log()
    assert f'{node}: ' in log and reason in log, process.describe()
    assert 'Traceback' not in log


# --- stopping while the node is being built ------------------------------------------------

def _mapped(pid: int, library: str) -> bool:
    """Whether the process has loaded a shared library whose path contains ``library``."""
    try:
        return library in Path(f'/proc/{pid}/maps').read_text()
    except OSError:
        return False


def test_ctrl_c_while_mujoco_is_being_imported_stops_the_node(module_launcher):
    """A Ctrl-C while sim_controller imports MuJoCo (it takes a while on a busy machine) only
    requests the stop: the import completes, the robot is simulated, then the node exits 0.
    It used to interrupt the import half-way (pybind11: "ImportError: initialization failed"),
    lose the request, and never stop. The signal is sent as soon as MuJoCo's library is mapped
    into the process, i.e. while the import is under way."""
    hebi = ARM.parents[1] / 'hrdf' / 'hebi_arm.hrdf'
    process, _ = module_launcher.command(
        ['-m', 'robot_formats.nodes.sim_controller', '--ros-args', '-p',
         f'description_file:={hebi}'], 'early_stop_sim_controller')
    deadline = time.monotonic() + TIMEOUT
    while not _mapped(process.proc.pid, 'mujoco') and time.monotonic() < deadline:
        assert process.alive(), process.describe()
        time.sleep(0.001)  # poll interval of a deadline wait
    assert _mapped(process.proc.pid, 'mujoco'), process.describe()
    code = process.interrupt(timeout=TIMEOUT)
    assert code == 0, f'exit {code}\n{process.describe()}'
    log = process.log()
    assert 'cannot simulate' not in log and 'Traceback' not in log, process.describe()


# --- a stop that hangs says where ---------------------------------------------------------------

SLOW_STOP = '''
import sys
import time
from rclpy.node import Node
from robot_formats.nodes import node_support

def make_node():
    node = Node('slow_stop')
    node.get_logger().info('ready')
    return node

def stop_slowly(node):  # argv[1]: seconds beyond STOP_REPORT_AFTER (negative: a quick stop)
    time.sleep(max(0.0, node_support.STOP_REPORT_AFTER + float(sys.argv[1])))

raise SystemExit(node_support.run_node('slow_stop', make_node, before_destroy=stop_slowly))
'''


def _stop_log(launcher, beyond_report: float, name: str) -> str:
    """The output of a node whose stop takes ``beyond_report`` s more than STOP_REPORT_AFTER,
    stopped by Ctrl-C; it exits 0 once the stop ends."""
    process, _ = launcher.command(['-c', SLOW_STOP, str(beyond_report)], name)
    process.wait_for_log('ready')
    assert process.interrupt(timeout=TIMEOUT) == 0, process.describe()
    return process.log()


def test_a_stop_that_hangs_prints_where(module_launcher):
    """A node whose stop takes longer than STOP_REPORT_AFTER prints every thread's stack, so a
    stop that ros2 launch ends with SIGTERM shows in its output where it hung."""
    log = _stop_log(module_launcher, 1.0, 'hanging_stop')
    assert 'most recent call first' in log and 'stop_slowly' in log, log


def test_a_stop_that_does_not_hang_prints_nothing(module_launcher):
    log = _stop_log(module_launcher, -1000.0, 'quick_stop')
    assert 'most recent call first' not in log, log
