"""``robot-formats controllers``: a ros2_control URDF and controllers file for any robot.

Only argument handling and output live here; what goes into the files is
:mod:`robot_formats.runtime.ros2_control`. The contract (docs/cli.md): writes
``DIR/<name>.urdf`` and ``DIR/<name>_controllers.yaml`` (``<name>``: the robot's name, or
``--name``), prints the two paths and the commanded joints, exit 0; exit 1 with
``file:line: message`` for a file no reader accepts or joints that cannot be commanded; exit 2
for a bad command line (a hardware or update rate that cannot be used) or an output directory
that cannot be written; nothing is written unless everything can be.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from robot_formats.cli.common import EXIT_OK, UsageError, add_world_option, print_warnings
from robot_formats.core.errors import FileAccessError, FormatError
from robot_formats.core.files import replacing

__all__ = ['add_controllers_parser']


def add_controllers_parser(sub: argparse._SubParsersAction) -> None:
    """Add the ``controllers`` subcommand to the CLI's subparsers."""
    command = sub.add_parser(
        'controllers', help='write a ros2_control URDF and controller_manager file for a robot')
    command.add_argument('path', help='a robot or world file of any format robot_formats reads')
    command.add_argument('-o', '--output', required=True, metavar='DIR',
                         help='directory for <name>.urdf and <name>_controllers.yaml '
                              '(created if missing)')
    command.add_argument('--hardware', default='mock', metavar='mock|gazebo|PLUGIN',
                         help='hardware plugin: mock (mock_components/GenericSystem, default), '
                              'gazebo (gz_ros2_control/GazeboSimSystem and its <gazebo> plugin '
                              'tag) or a plugin name such as my_driver/MySystem')
    command.add_argument('--interface', choices=('position', 'velocity', 'effort'),
                         default='position', help='command interface of every joint '
                                                  '(default position)')
    command.add_argument('--joints', nargs='+', metavar='JOINT',
                         help='commanded joints, in this order (default: every commandable '
                              'joint of the URDF, in document order)')
    command.add_argument('--name', help='base name of the files (default: the robot name)')
    command.add_argument('--update-rate', type=int, default=100, metavar='HZ',
                         help="controller_manager's update_rate (default 100)")
    command.add_argument('--json', action='store_true',
                         help='print {"urdf": path, "controllers": path, "joints": [...], '
                              '"mimic_joints": [...]}')
    add_world_option(command)
    command.set_defaults(handler=_cmd_controllers)


def _file_name(name: str) -> str:
    """A robot name as a file name: path separators and other odd characters become '_'."""
    cleaned = re.sub(r'[^A-Za-z0-9._-]+', '_', name).strip('._') or 'robot'
    return cleaned


def _cmd_controllers(args: argparse.Namespace) -> int:
    from robot_formats.runtime.description import Description
    from robot_formats.runtime.ros2_control import (ControlOptions, control_joints,
                                                    controllers_yaml, ros2_control_block,
                                                    with_block)
    description = Description.load(args.path, world=args.world)
    print_warnings(description)  # a Description carries path, warnings and notes too
    robot = description.urdf_tree.scene.models[0].name
    base = _file_name(args.name or robot)
    out = Path(args.output)
    urdf_path, yaml_path = out / f'{base}.urdf', out / f'{base}_controllers.yaml'
    options = ControlOptions(hardware=args.hardware, interface=args.interface,
                             joints=tuple(args.joints or ()),
                             controllers_file=str(yaml_path.resolve()),
                             update_rate=args.update_rate)
    try:
        options.check()
    except FormatError as err:
        raise UsageError(err.message) from None
    selection = control_joints(description.urdf_tree, options.joints)
    commanded, mimics = selection.commanded, selection.mimics
    urdf = with_block(description.urdf, ros2_control_block(robot, commanded, mimics, options))
    controllers = controllers_yaml(robot, commanded, options, source=str(args.path))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f'cannot create the output directory {out}: {err.strerror}') from err
    try:  # both renamed over their targets only once both are written
        with replacing(urdf_path) as urdf_stream, replacing(yaml_path) as yaml_stream:
            urdf_stream.write(urdf.encode('utf-8'))
            yaml_stream.write(controllers.encode('utf-8'))
    except FileAccessError as err:
        raise UsageError(str(err)) from err
    joints = [j.name for j in commanded]
    if args.json:
        print(json.dumps({'urdf': str(urdf_path), 'controllers': str(yaml_path),
                          'joints': joints, 'mimic_joints': [j.name for j in mimics]}))
    else:
        print(f'wrote {urdf_path}')
        print(f'wrote {yaml_path}')
        print(f'{len(joints)} commanded joint{"s" if len(joints) != 1 else ""} '
              f'({args.interface}): {" ".join(joints)}')
        if mimics:
            print(f'mimic joints (state interfaces only): {" ".join(j.name for j in mimics)}')
        if selection.uncommandable:
            print(f'floating joints (no ros2_control interface): '
                  f'{" ".join(selection.uncommandable)}')
    return EXIT_OK

