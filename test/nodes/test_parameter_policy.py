"""One policy for bad parameters, in every node (docs/nodes.md, node_support.run_node): a value
the node cannot use is refused at start-up: the process exits 1 with a sentence naming the
parameter, and no traceback. Started as users start them (``ros2 run`` runs the same
``main``)."""

from __future__ import annotations

import pytest

from .harness import ARM, TIMEOUT

CASES = {
    'description_publisher rate': (
        'description_publisher', ['description_file:=' + str(ARM), 'publish_frequency:=-5.0'],
        'parameter publish_frequency is -5; it must be a finite number >= 0 (Hz)'),
    'description_publisher qos': (
        'description_publisher', ['description_file:=' + str(ARM), 'joint_states_qos:=fast'],
        "parameter joint_states_qos is 'fast', not one of sensor_data, reliable"),
    'problem_server rate': (
        'problem_server', ['publish_frequency:=.nan'],
        'parameter publish_frequency is nan; it must be a finite number >= 0 (Hz)'),
    'sim_controller mode': (
        'sim_controller', ['description_file:=' + str(ARM), 'mode:=teleport'],
        "parameter mode is 'teleport', not one of servo, kinematic"),
    'sim_controller rate': (
        'sim_controller', ['description_file:=' + str(ARM), 'update_rate:=0.0'],
        'parameter update_rate is 0; it must be a positive finite number (Hz)'),
    'motion_player period': (
        'motion_player', ['frame_period:=-0.1'],
        'parameter frame_period is -0.1; it must be a positive finite number (s)'),
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
