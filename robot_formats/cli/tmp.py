"""``robot-formats grasps`` and ``robot-formats placements``: TMP problem queries (docs/cli.md).

Both print a JSON document (``--json``) or one line per answer, poses in the world frame
(``grasps --frame object`` gives them in the object's frame). The ``frames`` command adds an
``objects`` and a ``robots`` section for problems (:func:`problem_sections`).
"""

from __future__ import annotations

import argparse
import json
import sys

from robot_formats.cli.common import UsageError
from robot_formats.core.errors import FormatError
from robot_formats.formats import read_problem
from robot_formats.core.model import WORLD
from robot_formats.formats.tmp.semantics import (MAX_SAMPLES, ProblemState, grasp_samples,
                                                 placements, pose_document, robot_base_link)
from robot_formats.core.transforms import quat_to_rotation, rotation_to_rpy

__all__ = ['add_parsers', 'problem_sections']


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """The ``grasps`` and ``placements`` subcommands."""
    grasps = sub.add_parser('grasps', help='grasps of an object of a TMP problem (discrete ones '
                            'and samples of the continuous sets)')
    grasps.add_argument('path', help='TMP problem file')
    grasps.add_argument('--object', required=True, help='the object (its <name>)')
    grasps.add_argument('--samples', type=int, default=16,
                        help='samples of each continuous grasp set (default 16)')
    grasps.add_argument('--type', default=None, help='only grasps of this type attribute')
    grasps.add_argument('--frame', choices=('world', 'object'), default='world',
                        help='frame of the poses (default world)')
    grasps.add_argument('--json', action='store_true', help='machine-readable output')
    grasps.set_defaults(handler=cmd_grasps)

    places = sub.add_parser('placements', help='stable poses of an object on a support of a '
                            'TMP problem (from its SOPs and the support\'s SSSP)')
    places.add_argument('path', help='TMP problem file')
    places.add_argument('--object', required=True, help='the object to place')
    places.add_argument('--on', required=True, dest='support', help='the supporting object')
    places.add_argument('--samples', type=int, default=16, help='how many poses (default 16)')
    places.add_argument('--seed', type=int, default=0,
                        help='seed of the support points drawn (default 0: reproducible)')
    places.add_argument('--json', action='store_true', help='machine-readable output')
    places.set_defaults(handler=cmd_placements)


def _state(path: str) -> ProblemState:
    warnings: list = []
    problem = read_problem(path, warnings)
    for warning in warnings:
        print(f'{warning.file or path}:{warning.line or 0}: warning: {warning.message}',
              file=sys.stderr)
    return ProblemState(problem)


def _object(state: ProblemState, name: str, what: str):
    if name not in state.problem.objects:
        known = ', '.join(state.problem.objects) or 'none'
        raise UsageError(f'{what} {name!r} is not an object of the problem (objects: {known})')
    return state.problem.objects[name]


def _samples(value: int) -> int:
    if not 1 <= value <= MAX_SAMPLES:
        raise UsageError(f'--samples must be from 1 to {MAX_SAMPLES}, not {value}')
    return value


def _emit(document: dict, key: str, as_json: bool) -> int:
    if as_json:
        json.dump(document, sys.stdout, indent=1)
        sys.stdout.write('\n')
        return 0
    for item in document[key]:
        x, y, z = item['xyz']
        roll, pitch, yaw = rotation_to_rpy(quat_to_rotation(item['quat']))
        label = item.get('type', '')
        print(f'{item["id"]}  {label}  xyz {x:.6g} {y:.6g} {z:.6g}  '
              f'rpy {roll:.6g} {pitch:.6g} {yaw:.6g}')
    return 0


def cmd_grasps(args: argparse.Namespace) -> int:
    samples = _samples(args.samples)
    state = _state(args.path)
    obj = _object(state, args.object, 'object')
    frame = state.world_pose(obj.name) if args.frame == 'world' else None
    grasps = grasp_samples(obj, samples, args.type, frame)
    document = {'object': obj.name, 'frame': WORLD if args.frame == 'world' else obj.name,
                'grasps': [{'id': g.id, 'type': g.type, **pose_document(g.frame)}
                           for g in grasps]}
    return _emit(document, 'grasps', args.json)


def cmd_placements(args: argparse.Namespace) -> int:
    samples = _samples(args.samples)
    state = _state(args.path)
    obj = _object(state, args.object, 'object')
    support = _object(state, args.support, 'support')
    try:
        found = placements(obj, support, state.world_pose(support.name), samples, args.seed)
    except FormatError as err:  # no SOP, no SSSP, itself: the question is wrong, not the file
        raise UsageError(err.message) from err
    document = {'object': obj.name, 'support': support.name, 'frame': WORLD,
                'placements': [{'id': p.id, 'sop': p.sop, 'theta': p.theta,
                                **pose_document(p.frame)} for p in found]}
    return _emit(document, 'placements', args.json)


def problem_sections(path: str, frames: dict) -> dict:
    """``objects`` (by name) and ``robots`` (base frame, format, movebase) for ``frames``."""
    problem = read_problem(path)
    objects = {name: {**frames[name], 'moveable': obj.moveable}
               for name, obj in problem.objects.items()}
    robots = {}
    for name, robot in problem.robots.items():
        assert robot.tree is not None  # read_problem loads every robot
        base = f'{name}::{robot_base_link(robot.tree)}'
        robots[name] = {'base_frame': base, 'format': robot.format,
                        'movebase': robot.movebase, 'xyz': frames[base]['xyz'],
                        'quat': frames[base]['quat']}
    return {'objects': objects, 'robots': robots}
