"""``robot-formats render``: pictures and animations of any file (see docs/rendering.md).

Only the argument handling lives here; drawing is :mod:`robot_formats.presentation.render`. The
contract: exit 0 and ``wrote OUT (...) in S s`` on stderr; exit 1 with ``file:line: message`` for a
bad input file, motion or output; exit 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import sys

from robot_formats.cli.common import EXIT_OK, UsageError, add_world_option, configuration, load_file
from robot_formats.core.errors import InvalidValueError, location

__all__ = ['add_render_parser']


def add_render_parser(sub: argparse._SubParsersAction) -> None:
    """Add the ``render`` subcommand to the CLI's subparsers."""
    render = sub.add_parser('render', help='draw a model, world or problem into a PNG '
                            '(or a motion into a GIF)')
    render.add_argument('path')
    add_world_option(render)
    render.add_argument('-o', '--output', required=True,
                        help='picture to write: .png, or .gif with --animate')
    render.add_argument('--positions', help="comma-separated values in the format's DoF order")
    render.add_argument('--set', action='append', default=[], metavar='JOINT=VALUE',
                        help='set one DoF by name (repeatable)')
    render.add_argument('--animate', metavar='MOTION',
                        help='an XMDI motion to play; the output must end in .gif')
    render.add_argument('--motion', metavar='NAME', help='the motion of the XMDI file to play '
                        '(default: its first)')
    render.add_argument('--frame-period', type=float, default=None, metavar='S',
                        help='seconds per XMDI key frame (default 0.032)')
    render.add_argument('--interpolation', choices=('linear', 'cubic'), default='linear',
                        help='between key frames (default linear, as Webots)')
    render.add_argument('--servo-map', metavar='YAML',
                        help='servo -> joint mapping file (default: servos are joint names)')
    render.add_argument('--fps', type=float, default=10.0,
                        help='animation frames per second of motion time (default 10)')
    render.add_argument('--max-frames', type=int, default=120,
                        help='at most this many animation frames (default 120)')
    render.add_argument('--problem-overlays', default='', metavar='LIST',
                        help='TMP problems: comma-separated overlays to draw (grasps, supports)')
    render.add_argument('--size', default='800x600', metavar='WxH', help='pixels (default 800x600)')
    render.add_argument('--view', default=None, metavar='ELEV,AZIM',
                        help='camera elevation and azimuth in degrees (default 22,-58)')
    render.add_argument('--up', default=None, metavar='AXIS',
                        help='world axis drawn upwards: x, y, z, -x, -y, -z '
                             '(default: against gravity when the file has one, else z)')
    render.add_argument('--no-frames', action='store_true', help='do not draw frame axes')
    render.add_argument('--frame-labels', action='store_true', help='write frame names')
    render.add_argument('--collision', action='store_true',
                        help='draw collision shapes instead of visuals')
    render.add_argument('--title', default=None, help='picture title (default: file, format, '
                        'configuration)')
    render.set_defaults(handler=_cmd_render)


def _options(args: argparse.Namespace):
    from robot_formats.presentation.render import RenderOptions
    try:
        width, height = (int(v) for v in args.size.lower().split('x'))
    except ValueError as err:
        raise UsageError(f'--size {args.size!r}: expected WIDTHxHEIGHT, e.g. 800x600') from err
    if not (16 <= width <= 8000 and 16 <= height <= 8000):
        raise UsageError(f'--size {args.size!r}: each side must be 16 to 8000 pixels')
    view = {}
    if args.view:
        try:
            elevation, azimuth = (float(v) for v in args.view.split(','))
        except ValueError as err:
            raise UsageError(f'--view {args.view!r}: expected ELEVATION,AZIMUTH in degrees') \
                from err
        view = {'elevation': elevation, 'azimuth': azimuth}
    if args.fps <= 0 or args.max_frames < 2:
        raise UsageError('--fps must be positive and --max-frames at least 2')
    return RenderOptions(width=width, height=height, show_frames=not args.no_frames,
                         frame_labels=args.frame_labels, collision=args.collision,
                         title=args.title, up=args.up, fps=args.fps,
                         max_frames=args.max_frames, **view)


def _cmd_render(args: argparse.Namespace) -> int:
    from robot_formats.presentation import render

    options = _options(args)
    result, tree = load_file(args.path, args.world)
    overlays = problem_overlays(result, args.problem_overlays)
    if args.animate:
        if args.positions or args.set:
            raise UsageError('--positions/--set and --animate exclude each other: the motion '
                             'gives every configuration')
        trajectory, label = load_motion(args.animate, result, args.motion, args.frame_period,
                                        args.interpolation, args.servo_map)
        report = render.render_animation(result, trajectory, args.output, options, overlays,
                                         label)
    else:
        q = configuration(tree, args.positions, args.set)
        report = render.render_picture(result, args.output, q, options, overlays)
    for warning in report.warnings:
        if warning not in result.warnings:
            print(f'{location(warning.file or args.path, warning.line)}: warning: '
                  f'{warning.message}', file=sys.stderr)
    frames = f', {report.frames} frames' if report.frames > 1 else ''
    print(f'wrote {report.output} ({report.triangles} triangles{frames}) in '
          f'{report.seconds:.2f} s', file=sys.stderr)
    return EXIT_OK


class MotionTrajectory:
    """An XMDI motion as a :class:`~robot_formats.presentation.render.Trajectory` of the model's
    DoFs."""

    def __init__(self, model, tree, path: str) -> None:
        unknown = [joint for joint in model.joints if joint not in tree.dof_index]
        if unknown:
            shown = ', '.join(tree.dof_names[:8]) + (', ...' if len(tree.dof_names) > 8 else '')
            raise InvalidValueError(
                f'motion {model.name!r} drives {unknown[0]!r}, which is not a degree of freedom '
                f'of the model (its DoFs: {shown or "none"}); map servos to joints with '
                '--servo-map', path, model.motion.line)
        self.model = model
        self.duration = float(model.duration)

    def positions(self, time: float) -> dict[str, float]:
        values = self.model.positions(time)
        return {joint: float(v) for joint, v in zip(self.model.joints, values)}


def load_motion(path: str, result, motion: str | None = None, frame_period: float | None = None,
                interpolation: str = 'linear', servo_map: str | None = None):
    """``(trajectory, label)`` for one motion of an XMDI file (default: its first motion)."""
    from robot_formats.formats.xmdi import (DEFAULT_FRAME_PERIOD, MotionModel, ServoMapping,
                                            read_xmdi)
    document, warnings = read_xmdi(path)
    for warning in warnings:
        print(f'{location(warning.file or path, warning.line)}: warning: {warning.message}',
              file=sys.stderr)
    if not document.motions:
        raise InvalidValueError('the file has no motion to play', path)
    try:
        chosen = document.motion(motion) if motion else document.motions[0]
    except KeyError as err:
        raise InvalidValueError(str(err.args[0]), path) from None
    mapping = ServoMapping.from_yaml(servo_map) if servo_map else None
    model = MotionModel(chosen, mapping, frame_period or DEFAULT_FRAME_PERIOD, interpolation)
    return MotionTrajectory(model, result.tree, path), f'motion {chosen.name!r}'


def problem_overlays(result, requested: str):
    """Overlays named in ``--problem-overlays`` (empty: none)."""
    from robot_formats.presentation.render import problem_overlays as overlays_of
    names = [n.strip() for n in requested.split(',') if n.strip()]
    if not names:
        return ()
    try:
        return overlays_of(result, names)
    except ValueError as err:  # an unknown overlay name: the command line is wrong
        raise UsageError(f'--problem-overlays: {err}') from err
