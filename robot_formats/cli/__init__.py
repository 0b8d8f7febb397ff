"""``robot-formats``: the command-line contract (see docs/cli.md; keep it stable).

Exit codes: 0 success; 1 the input is invalid (``file:line: message`` lines on stderr);
2 the command line is wrong; 3 an internal error (a bug: please report it).
Warnings go to stderr as ``file:line: warning: message`` and never change the exit code
(except ``check --strict``).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Sequence

from robot_formats.cli.common import (EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, EXIT_USAGE, UsageError,
                         add_world_option, configuration, load_file, print_warnings)
from robot_formats.core.errors import FormatError
from robot_formats.core.lazy import imported

if TYPE_CHECKING:
    import numpy as np

    from robot_formats.core.kinematics import KinematicTree

__all__ = ['main', 'frames_document', 'COMMANDS', 'EXIT_OK', 'EXIT_INVALID', 'EXIT_USAGE',
           'EXIT_INTERNAL', 'UsageError']

#: A command run as a program of its own: the Python arguments that start it (``('-m',
#: MODULE)``), before the command's own arguments.
Program = tuple[str, str]

#: Every subcommand, in the order ``--help`` lists them: name → (its one-line help, and where it
#: is). Where is ``'module:function'``, the function that adds the command's parser to the
#: subparsers and sets its ``handler``; only the command being run has its module imported
#: (``--help`` lists the help lines above), so each command pays for its own imports only:
#: ``check`` needs no numpy, no rendering, no ROS. This module itself imports nothing of the
#: library but the error it reports: its commands (check, convert, info, frames) import what
#: each uses where it uses it. To add a command: one entry here (a function
#: adding several commands is named by each of them, and called once). Or it is a
#: :data:`Program`: the ROS 2 clients (``record``, ``tf-echo``) are programs of the nodes layer,
#: run in this process's place (:func:`run_program`), so the CLI imports no ROS and nothing of
#: the nodes (test/core/test_layers.py); the program owns its command line and exit codes.
COMMANDS: dict[str, tuple[str, str | Program]] = {
    'check': ('validate a file (exit 0 valid, 1 invalid)', 'robot_formats.cli:add_check_parser'),
    'convert': ('write a file as URDF', 'robot_formats.cli:add_convert_parser'),
    'info': ('human summary: models, links, joints, DoF, frame tree',
             'robot_formats.cli:add_info_parser'),
    'frames': ('the resolved frame tree, poses in the root frame',
               'robot_formats.cli:add_frames_parser'),
    'render': ('draw a model, world or problem into a PNG (or a motion into a GIF)',
               'robot_formats.cli.render:add_render_parser'),
    'motion': ('sample the motions of an XMDI file (or write them back as XMDI)',
               'robot_formats.cli.motion:add_motion_parser'),
    'record': ('record joint states from ROS 2 into an XMDI motion',
               ('-m', 'robot_formats.nodes.record')),
    'controllers': ('write a ros2_control URDF and controller_manager file for a robot',
                    'robot_formats.cli.control:add_controllers_parser'),
    'tf-echo': ('print the TF tree (through a tf2_ros Buffer) and robot_description received '
                'over ROS 2, then exit', ('-m', 'robot_formats.nodes.tf_echo')),
    'grasps': ('grasps of an object of a TMP problem (discrete ones and samples of the '
               'continuous sets)', 'robot_formats.cli.tmp:add_parsers'),
    'placements': ("stable poses of an object on a support of a TMP problem (from its SOPs and "
                   "the support's SSSP)", 'robot_formats.cli.tmp:add_parsers'),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: the process's); the exit code. A
    :data:`Program` command (``record``, ``tf-echo``) does not return: its program replaces
    this process."""
    argv = sys.argv[1:] if argv is None else list(argv)
    where = COMMANDS.get(argv[0], ('', ''))[1] if argv else ''
    if isinstance(where, tuple):
        run_program(where, argv[1:])
    parser = _parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, 'command', None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.handler(args) or 0)
    except FormatError as err:
        for problem in err.problems():  # a validation stage reports all it found
            print(f'{problem}', file=sys.stderr)
        return EXIT_INVALID
    except UsageError as err:
        print(f'robot-formats {args.command}: error: {err}', file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # noqa: BLE001 - the CLI promises no tracebacks
        if os.environ.get('ROBOT_FORMATS_DEBUG'):
            raise
        print(f'robot-formats: internal error: {type(err).__name__}: {err} '
              '(set ROBOT_FORMATS_DEBUG=1 for a traceback, and please report it)', file=sys.stderr)
        return EXIT_INTERNAL


def run_program(program: Program, args: Sequence[str]) -> NoReturn:
    """Replace this process by ``python PROGRAM ARGS`` (same interpreter, environment, working
    directory and process id: signals, exit code and limits are the program's)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, *program, *args])


def _adder(where: str) -> Callable[[argparse._SubParsersAction], None]:
    return imported(where)


#: The formatter the parsers are built with. argparse makes a formatter for every argument it
#: adds, only to check that its metavar fits its nargs, and for the subcommands' program name;
#: neither reads the width, and argparse's own formatter, sized to the terminal, imports shutil
#: (with bz2 and lzma) to find it. Help and errors are formatted by argparse's own formatter,
#: set on every parser once it is built (:func:`_parser`).
_BUILDING_FORMATTER = functools.partial(argparse.HelpFormatter, width=80)


class _ArgumentParser(argparse.ArgumentParser):
    """The command line's parsers (the top level's, and each command's: argparse makes a
    command's parser of its parent's class), built with :data:`_BUILDING_FORMATTER`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(formatter_class=_BUILDING_FORMATTER, **kwargs)


def _parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser of the command line ``argv``: its command (the first word that is no option:
    the top-level options, --help and --version, take no value) complete, every other command
    by its name and help line only, enough for ``--help`` and for refusing an unknown command.
    A command line that starts with a command run in this process can do neither, so its
    parser has that command alone (with the others its function adds). Built, every parser
    formats its help and errors with argparse's own formatter, as wide as the terminal."""
    parser = _ArgumentParser(
        prog='robot-formats',
        description='Read robot, scene, problem and motion files; convert them to URDF; '
                    'inspect their frames; run the ROS 2 nodes.')
    from robot_formats import __version__
    parser.add_argument('--version', action='version', version=f'robot-formats {__version__}')
    sub = parser.add_subparsers(dest='command', metavar='COMMAND')
    command = next((word for word in argv if not word.startswith('-')), None)
    chosen = COMMANDS[command][1] if command in COMMANDS else None
    alone = isinstance(chosen, str) and argv[0] == command
    for name, (help_line, where) in COMMANDS.items():
        if name in sub.choices:
            continue  # added with the chosen command by the same function
        if where == chosen and isinstance(where, str):
            _adder(where)(sub)
        elif not alone:
            sub.add_parser(name, help=help_line)
    for built in (parser, *sub.choices.values()):
        built.formatter_class = argparse.HelpFormatter
    return parser


def add_check_parser(sub: argparse._SubParsersAction) -> None:
    check = sub.add_parser('check', help=COMMANDS['check'][0])
    check.add_argument('path')
    check.add_argument('--strict', action='store_true', help='treat warnings as errors')
    add_world_option(check)
    check.set_defaults(handler=_cmd_check)


def add_convert_parser(sub: argparse._SubParsersAction) -> None:
    convert = sub.add_parser('convert', help=COMMANDS['convert'][0])
    convert.add_argument('path')
    convert.add_argument('-o', '--output', required=True, help="output URDF path ('-' = stdout)")
    add_world_option(convert)
    convert.set_defaults(handler=_cmd_convert)


def add_info_parser(sub: argparse._SubParsersAction) -> None:
    info = sub.add_parser('info', help=COMMANDS['info'][0])
    info.add_argument('path')
    add_world_option(info)
    info.set_defaults(handler=_cmd_info)


def add_frames_parser(sub: argparse._SubParsersAction) -> None:
    frames = sub.add_parser('frames', help=COMMANDS['frames'][0])
    frames.add_argument('path')
    add_world_option(frames)
    frames.add_argument('--positions', help='comma-separated values in the format\'s natural '
                        'DoF order (see `info`)')
    frames.add_argument('--set', action='append', default=[], metavar='JOINT=VALUE',
                        help='set one DoF by name (repeatable)')
    frames.add_argument('--json', action='store_true', help='machine-readable output')
    frames.set_defaults(handler=_cmd_frames)


# --- commands ---------------------------------------------------------------------------------

def _cmd_check(args: argparse.Namespace) -> int:
    """Read the file and validate it (a scene into its kinematic tree). That is all ``convert``
    needs: every valid tree has a URDF (lowering and the writer are total over them, and the
    fuzz tests hold every command to accept what ``check`` accepts), so ``check`` does not
    render one."""
    from robot_formats.core.model import Scene
    from robot_formats.formats import read_document
    result = read_document(args.path, world=args.world)  # any format, motions too
    print_warnings(result)
    if args.strict and result.warnings:
        print(f'{args.path}: {len(result.warnings)} warning(s) in strict mode', file=sys.stderr)
        return EXIT_INVALID
    document = result.document
    if not isinstance(document, Scene):  # another kind of document: motions
        print(f'{args.path}: valid {result.format} ({document.summary()})')
        return EXIT_OK
    tree = result.tree
    assert tree is not None  # read_document validates every scene into a tree
    print(f'{args.path}: valid {result.format} ({len(tree.links)} links, {len(tree.joints)} '
          f'joints, {len(tree.dof_names)} DoF)')
    return EXIT_OK


def _cmd_convert(args: argparse.Namespace) -> int:
    from robot_formats.core.files import atomic_write
    from robot_formats.formats.urdf import urdf_string
    result, tree = load_file(args.path, args.world)
    text = urdf_string(result.scene, tree)
    if args.output == '-':
        sys.stdout.write(text)
        return EXIT_OK
    atomic_write(args.output, text)
    print(f'wrote {args.output}', file=sys.stderr)
    return EXIT_OK


def _cmd_info(args: argparse.Namespace) -> int:
    from robot_formats.presentation.info_details import dof_notes, scene_notes
    result, tree = load_file(args.path, args.world)
    scene = result.scene
    print(f'{args.path}: {result.format}{" world" if scene.is_world else ""} {scene.name!r}')
    for model in scene.models:
        print(f'  model {model.name!r}: {len(model.links)} links, {len(model.joints)} joints, '
              f'{len(model.frames)} frames{" (static)" if model.static else ""}')
    kinds: dict[str, int] = {}
    for joint in tree.joints.values():
        kinds[joint.type.value] = kinds.get(joint.type.value, 0) + 1
    print(f'  joints by kind: {", ".join(f"{k} {v}" for k, v in kinds.items()) or "none"}')
    print(f'  degrees of freedom ({len(tree.dof_names)}, the order of --positions):')
    q0 = tree.positions_vector()
    notes = dof_notes(tree)
    for index, name in enumerate(tree.dof_names):
        note = f'  ({notes[name]})' if name in notes else ''
        print(f'    {index:3d} {name} = {q0[index]:g}{note}')
    if scene.physics:
        print('  physics: ' + ', '.join(f'{k}={v}' for k, v in scene.physics.items()))
    for line in scene_notes(tree):
        print(f'  {line}')
    print(f'  frames ({len(tree.order) + 1}):')
    _print_tree(tree)
    return EXIT_OK


def _print_tree(tree: KinematicTree) -> None:
    """Each frame under its parent, depth first (with a stack: a chain of 10,000 links is as
    deep as it is long, beyond Python's recursion limit)."""
    children: dict[str, list[str]] = {}
    for name in tree.order:
        children.setdefault(tree.edges[name].parent, []).append(name)
    stack = [(tree.root, 0)]
    while stack:
        name, depth = stack.pop()
        edge = tree.edges.get(name)
        how = ''
        if edge is not None:
            how = f'  [{edge.joint.type.value} joint {edge.joint.name}]' if edge.joint else (
                f'  [{edge.kind}]')
        print(f'    {"  " * depth}{name}{how}')
        stack.extend((child, depth + 1) for child in reversed(children.get(name, ())))


def frames_document(result_format: str, tree: KinematicTree, q: np.ndarray) -> dict:
    """The ``frames --json`` document (see docs/cli.md)."""
    from robot_formats.core.rotations import rotation_to_quat
    poses = tree.forward(q)
    frames: dict[str, dict] = {}
    for name in tree.frame_names():
        pose = poses[name]
        edge = tree.edges.get(name)
        frames[name] = {
            'parent': edge.parent if edge else None,
            'xyz': [_clean(v) for v in pose[:3, 3]],
            'quat': [_clean(v) for v in rotation_to_quat(pose[:3, :3])],
        }
    return {'format': result_format, 'root': tree.root, 'frames': frames}


def _clean(value: float) -> float:
    value = float(value)
    return 0.0 if abs(value) < 1e-15 else value


def _cmd_frames(args: argparse.Namespace) -> int:
    from robot_formats.core.rotations import quat_to_rotation, rotation_to_rpy
    result, tree = load_file(args.path, args.world)
    q = configuration(tree, args.positions, args.set)
    document = frames_document(result.format, tree, q)
    if result.format == 'tmp':
        from robot_formats.cli.tmp import problem_sections
        document.update(problem_sections(args.path, document['frames']))
    if args.json:
        import json
        json.dump(document, sys.stdout, indent=1)
        sys.stdout.write('\n')
        return EXIT_OK
    print(f'root: {document["root"]}')
    for name, frame in document['frames'].items():
        x, y, z = frame['xyz']
        rpy = rotation_to_rpy(quat_to_rotation(frame['quat']))
        print(f'{name}  (parent {frame["parent"]})  xyz {x:.6g} {y:.6g} {z:.6g}  '
              f'rpy {rpy[0]:.6g} {rpy[1]:.6g} {rpy[2]:.6g}')
    return EXIT_OK


if __name__ == '__main__':
    # `python -m robot_formats.cli` runs this file as __main__: call the imported module's main,
    # so subcommand modules (cli_render, ...) raise the same UsageError class this one catches.
    from robot_formats.cli import main as _main
    sys.exit(_main())
