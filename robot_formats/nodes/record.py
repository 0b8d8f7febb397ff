"""``robot-formats record``: joint states from ROS 2 recorded into an XMDI file, from the
command line (docs/cli.md#record).

The command line of :func:`~robot_formats.nodes.motion_recorder.run_record`: the
motion_recorder node, started recording at once, written when ``--duration`` seconds of motion
are in or at Ctrl-C. The ``robot-formats`` CLI runs this module as a program of its own
(``python -m robot_formats.nodes.record ARGS``, in the CLI's place), so the CLI imports no ROS
and nothing of the nodes. Exit codes: 0 written, 1 nothing written, 2 a wrong command line.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Sequence

__all__ = ['main', 'parser']

PROG = 'robot-formats record'


def _number(text: str, allow_zero: bool) -> float:
    """An option's number: finite, above zero (or at least zero with ``allow_zero``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text!r} is not a number') from None
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        kind = 'non-negative' if allow_zero else 'positive'
        raise argparse.ArgumentTypeError(f'must be a {kind} number, not {text}')
    return value


def _positive(text: str) -> float:
    return _number(text, allow_zero=False)


def _non_negative(text: str) -> float:
    return _number(text, allow_zero=True)


def parser() -> argparse.ArgumentParser:
    """The command line (``robot-formats record --help``)."""
    record = argparse.ArgumentParser(
        prog=PROG, description='record joint states from ROS 2 into an XMDI motion')
    record.add_argument('output', help='the XMDI file to write')
    record.add_argument('--duration', type=_positive, metavar='S',
                        help='seconds of motion to record (default: until Ctrl-C)')
    record.add_argument('--source', choices=('joint_states', 'controller_state'),
                        default='joint_states',
                        help="joint_states (default) or a joint_trajectory_controller's "
                             'controller_state')
    record.add_argument('--controller', default='joint_trajectory_controller',
                        help='with --source controller_state: the controller name')
    record.add_argument('--joints', nargs='+', metavar='JOINT',
                        help='joints to record, in servo order (default: every joint)')
    record.add_argument('--servo-map', metavar='YAML',
                        help="write joints as this map's servos (scale and offset inverted)")
    record.add_argument('--frame-period', type=_positive, default=0.032, metavar='S',
                        help='seconds per XMDI frame (default 0.032)')
    record.add_argument('--tolerance', type=_non_negative, default=1e-4, metavar='RAD',
                        help='drop frames linear interpolation reproduces within this '
                             '(default 1e-4)')
    record.add_argument('--topic', default='joint_states', metavar='NAME',
                        help='the joint states topic (default joint_states; e.g. '
                             '/robot1/joint_states)')
    record.add_argument('--qos', choices=('sensor_data', 'reliable'), default='sensor_data',
                        help="joint_states QoS: sensor_data (best effort, accepts every "
                             "publisher; default) or reliable")
    record.add_argument('--motion-name', default='recording',
                        help='name of the recorded motion (default: recording)')
    return record


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    from robot_formats.nodes.motion_recorder import run_record  # after the command line: rclpy
    parameters: dict[str, object] = {
        'source': args.source, 'controller': args.controller,
        'servo_map': args.servo_map or '', 'frame_period': args.frame_period,
        'tolerance': args.tolerance, 'motion_name': args.motion_name,
        'joint_states_qos': args.qos}
    if args.joints:
        parameters['joints'] = list(args.joints)
    remap = [] if args.topic == 'joint_states' else ['-r', f'joint_states:={args.topic}']
    return run_record(args.output, args.duration, parameters,
                      [PROG, '--ros-args', *remap] if remap else None)


if __name__ == '__main__':
    sys.exit(main())
