"""Regenerate the committed pictures in docs/images/ from the bundled examples (`make docs`).

Every picture is drawn by robot_formats.render exactly as `robot-formats render` draws it, so the
documentation shows what the tool produces. A listed example that is missing or fails to load is
an error (exit 1): the docs never silently lose a picture. Run from anywhere:

    python tools/make_docs.py            # all pictures
    python tools/make_docs.py --list     # what would be drawn
    python tools/make_docs.py arm        # only pictures whose name contains 'arm'
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from robot_formats import FormatError, load  # noqa: E402
from robot_formats import render  # noqa: E402

IMAGES = ROOT / 'docs' / 'images'


@dataclass(frozen=True)
class Picture:
    """One picture: the example, the output name, and how to pose and frame it."""

    name: str                       #: output file name in docs/images/
    source: str                     #: example path relative to the repository
    positions: dict[str, float] = field(default_factory=dict)
    options: dict = field(default_factory=dict)    #: RenderOptions fields
    motion: tuple | None = None     #: (times, dof names, rows) for a SampledTrajectory GIF
    xmdi: str | None = None         #: an XMDI motion file to animate (robot_formats.xmdi)
    overlays: str = ''              #: TMP problems: --problem-overlays list


PICTURES = [
    Picture('arm_with_gripper.png', 'examples/urdf/arm_with_gripper.urdf',
            {'shoulder_lift': 0.3, 'elbow': 0.6, 'finger_left': 0.02}),
    Picture('arm_with_gripper_labels.png', 'examples/urdf/arm_with_gripper.urdf',
            {'shoulder_pan': 0.4, 'shoulder_lift': 0.5, 'elbow': 0.9, 'finger_left': 0.03},
            {'frame_labels': True, 'elevation': 15.0, 'azimuth': -70.0}),
    Picture('workcell.png', 'examples/sdf/workcell.sdf',
            {'left_arm::shoulder_lift': 0.4, 'left_arm::elbow': 0.8,
             'right_arm::shoulder_pan': 0.5, 'right_arm::elbow': 1.1}),
    Picture('kitchen.png', 'examples/tmp/kitchen.xml', options={'elevation': 30.0}),
    Picture('discs_and_pegs.png', 'examples/tmp/discs_and_pegs.xml',
            options={'elevation': 35.0, 'azimuth': -40.0}),
    Picture('discs_and_pegs_overlays.png', 'examples/tmp/discs_and_pegs.xml',
            options={'elevation': 50.0, 'azimuth': -30.0, 'show_frames': False},
            overlays='grasps,supports'),
    Picture('arm_with_gripper_wave.gif', 'examples/urdf/arm_with_gripper.urdf',
            options={'width': 400, 'height': 300, 'fps': 6.0}, xmdi='examples/xmdi/arm_wave.xmdi'),
]


def draw(picture: Picture) -> render.RenderReport:
    result = load(picture.source)  # relative (main() works in ROOT): titles show it short
    options = render.RenderOptions(**picture.options)
    out = IMAGES / picture.name
    overlays = ()
    if picture.overlays:
        overlays = render.problem_overlays(result, picture.overlays.split(','))
    if picture.motion is not None:
        trajectory = render.SampledTrajectory(*picture.motion)
        return render.render_animation(result, trajectory, out, options, overlays)
    if picture.xmdi is not None:
        from robot_formats.cli_render import load_motion
        trajectory, label = load_motion(picture.xmdi, result)
        return render.render_animation(result, trajectory, out, options, overlays, label)
    return render.render_picture(result, out, picture.positions, options, overlays)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('only', nargs='*', help='draw only pictures whose name contains this')
    parser.add_argument('--list', action='store_true', help='list the pictures and exit')
    args = parser.parse_args(argv)
    chosen = [p for p in PICTURES if not args.only or any(o in p.name for o in args.only)]
    if args.list:
        for picture in chosen:
            print(f'{picture.name}  <-  {picture.source}')
        return 0
    os.chdir(ROOT)
    IMAGES.mkdir(parents=True, exist_ok=True)
    start, failed = time.perf_counter(), 0
    for picture in chosen:
        try:
            report = draw(picture)
        except (FormatError, OSError) as err:
            print(f'make docs: {picture.name}: {err}', file=sys.stderr)
            failed += 1
            continue
        for warning in report.warnings:
            print(f'make docs: {picture.name}: warning: {warning}', file=sys.stderr)
        frames = f', {report.frames} frames' if report.frames > 1 else ''
        print(f'docs/images/{picture.name}: {report.triangles} triangles{frames}, '
              f'{report.seconds:.2f} s')
    print(f'make docs: {len(chosen) - failed} of {len(chosen)} pictures in '
          f'{time.perf_counter() - start:.1f} s')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
