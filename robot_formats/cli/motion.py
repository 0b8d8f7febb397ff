"""``robot-formats motion``: an XMDI file's motions sampled over time, or written back.

Only argument handling and output live here; reading, mapping and interpolation are
:mod:`robot_formats.formats.xmdi`. The contract (docs/cli.md): exit 0 with the motions on stdout
(``--json``: ``{"motions": {NAME: {"duration": s, "joints": [...], "samples": [[t, q...]]}}}``),
exit 1 with ``file:line: message`` for a bad motion or mapping file, exit 2 for a bad command
line. With ``--to-xmdi OUT`` the motions are written as XMDI (the project's element names)
instead.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from robot_formats.cli.common import EXIT_OK, UsageError
from robot_formats.core.errors import FormatError, location

__all__ = ['add_motion_parser', 'motions_document']


def add_motion_parser(sub: argparse._SubParsersAction) -> None:
    """Add the ``motion`` subcommand to the CLI's subparsers."""
    motion = sub.add_parser('motion', help='sample the motions of an XMDI file (or write them '
                            'back as XMDI)')
    motion.add_argument('path', help='an XMDI file')
    motion.add_argument('--motion', metavar='NAME', help='only this motion (default: all)')
    motion.add_argument('--rate', type=float, default=None, metavar='HZ',
                        help='samples per second (default: one per frame, 1/frame period)')
    motion.add_argument('--frame-period', type=float, default=None, metavar='S',
                        help='seconds per XMDI frame (default 0.032, one Webots step)')
    motion.add_argument('--interpolation', choices=('linear', 'cubic'), default='linear',
                        help='between key frames (default linear, as Webots plays motions)')
    motion.add_argument('--servo-map', metavar='YAML',
                        help='servo -> joint mapping with scale and offset (default: identity)')
    motion.add_argument('--json', action='store_true', help='machine-readable output')
    motion.add_argument('--to-xmdi', metavar='OUT',
                        help="write the motions as XMDI to OUT ('-' = stdout) instead")
    motion.set_defaults(handler=_cmd_motion)


def _positive(value: float | None, option: str) -> None:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise UsageError(f'{option} must be a positive number, not {value!r}')


def motions_document(models, rate: float) -> dict:
    """The ``motion --json`` document of :class:`~robot_formats.formats.xmdi.MotionModel` s
    (LimitError when it would hold more than the sampling limit, before sampling)."""
    from robot_formats.formats.xmdi.playback import check_sampling
    check_sampling(models, rate)
    return {'motions': {model.name: {'duration': model.duration, 'joints': list(model.joints),
                                     'samples': model.samples(rate)}
                        for model in models}}


def _cmd_motion(args: argparse.Namespace) -> int:
    from robot_formats.formats.xmdi import (DEFAULT_FRAME_PERIOD, MotionModel, ServoMapping,
                                            read_xmdi, xmdi_string)

    _positive(args.rate, '--rate')
    _positive(args.frame_period, '--frame-period')
    document, warnings = read_xmdi(args.path)
    for warning in warnings:
        print(f'{location(warning.file or args.path, warning.line)}: warning: '
              f'{warning.message}', file=sys.stderr)
    motions = document.motions
    if args.motion is not None:
        try:
            motions = (document.motion(args.motion),)
        except KeyError as err:
            raise UsageError(f'--motion: {err.args[0]}') from None
    if args.to_xmdi:
        return _write(xmdi_string(motions), args.to_xmdi)
    period = args.frame_period or DEFAULT_FRAME_PERIOD
    rate = args.rate or 1.0 / period
    mapping = ServoMapping.from_yaml(args.servo_map) if args.servo_map else None
    models = [MotionModel(motion, mapping, period, args.interpolation, args.path)
              for motion in motions]
    try:
        result = motions_document(models, rate)
    except FormatError as err:  # sampling errors name no file: it is the motion file's
        if err.file is not None:
            raise
        raise type(err)(err.message, args.path, err.line, err.code) from None
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        sys.stdout.write('\n')
        return EXIT_OK
    _print_table(args.path, result, period, rate, args.interpolation)
    return EXIT_OK


def _write(text: str, output: str) -> int:
    from robot_formats.core.files import atomic_write
    if output == '-':
        sys.stdout.write(text)
        return EXIT_OK
    atomic_write(output, text)
    print(f'wrote {output}', file=sys.stderr)
    return EXIT_OK


def _print_table(path: str, result: dict, period: float, rate: float, interpolation: str) -> None:
    print(f'{path}: {len(result["motions"])} motion(s); frame period {period:g} s, '
          f'{interpolation} interpolation, samples at {rate:g} Hz')
    for name, motion in result['motions'].items():
        print(f'motion {name!r}: {motion["duration"]:g} s, {len(motion["joints"])} joints')
        print('  ' + ' '.join(f'{column:>12}' for column in ['t', *motion['joints']]))
        for row in motion['samples']:
            print('  ' + ' '.join(f'{value:12.6g}' for value in row))
