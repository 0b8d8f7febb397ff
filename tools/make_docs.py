"""Regenerate the committed pictures in docs/images/ from the bundled examples (`make docs`).

Every picture is drawn by robot_formats.presentation.render exactly as `robot-formats render`
draws it, so the documentation shows what the tool produces. The curated pictures below are
posed for the tour;
every other bundled example (any file under examples/ that loads with a kinematic tree, the same
list `python -m benchmarks --only render` times) gets a smaller picture at its initial
configuration, named after its path (examples/skel/quadruped.skel -> skel_quadruped.png), so a
new example appears in docs/images/ without editing this file. PNGs are stored with a 256-colour
palette and GIFs with one 64-colour palette for all frames (a third to half the size, no visible
difference). A listed example that is missing or fails
to load is an error (exit 1): the docs never silently lose a picture. Run from anywhere:

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
from robot_formats.presentation import render  # noqa: E402

IMAGES = ROOT / 'docs' / 'images'


@dataclass(frozen=True)
class Picture:
    """One picture: the example, the output name, and how to pose and frame it."""

    name: str                       #: output file name in docs/images/
    source: str                     #: example path relative to the repository
    positions: dict[str, float] = field(default_factory=dict)
    options: dict = field(default_factory=dict)    #: RenderOptions fields
    motion: tuple | None = None     #: (times, dof names, rows) for a SampledTrajectory GIF
    xmdi: str | None = None         #: an XMDI motion file to animate (robot_formats.formats.xmdi)
    servo_map: str | None = None    #: the XMDI servo -> joint mapping YAML (--servo-map)
    overlays: str = ''              #: TMP problems: --problem-overlays list


#: Size of the automatic picture of an example that has no curated picture.
GALLERY_OPTIONS = {'width': 480, 'height': 360}


PICTURES = [
    Picture('arm_with_gripper.png', 'examples/urdf/arm_with_gripper.urdf',
            {'shoulder_lift': 0.3, 'elbow': 0.6, 'finger_left': 0.02}),
    Picture('arm_with_gripper_labels.png', 'examples/urdf/arm_with_gripper.urdf',
            {'shoulder_pan': 0.4, 'shoulder_lift': 0.5, 'elbow': 0.9, 'finger_left': 0.03},
            {'frame_labels': True, 'elevation': 15.0, 'azimuth': -70.0}),
    Picture('workcell.png', 'examples/sdf/workcell.sdf',
            {'left_arm::shoulder_lift': 0.4, 'left_arm::elbow': 0.8,
             'right_arm::shoulder_pan': 0.5, 'right_arm::elbow': 1.1}),
    Picture('hebi_arm.png', 'examples/hrdf/hebi_arm.hrdf',
            {'shoulder': 0.6, 'elbow': -1.0, 'wrist': 0.5}, GALLERY_OPTIONS),
    Picture('quadruped.png', 'examples/skel/quadruped.skel', options=GALLERY_OPTIONS),
    Picture('kitchen.png', 'examples/tmp/kitchen.xml', options={'elevation': 30.0}),
    Picture('discs_and_pegs.png', 'examples/tmp/discs_and_pegs.xml',
            options={'elevation': 35.0, 'azimuth': -40.0}),
    Picture('discs_and_pegs_overlays.png', 'examples/tmp/discs_and_pegs.xml',
            options={'elevation': 50.0, 'azimuth': -30.0, 'show_frames': False},
            overlays='grasps,supports'),
    Picture('pick_and_place.png', 'examples/tmp/pick_and_place.xml',
            {'arm::shoulder_lift': 1.0, 'arm::elbow': 0.841593, 'arm::finger_left': 0.02},
            {'elevation': 30.0, 'azimuth': -60.0, 'show_frames': False},
            overlays='grasps,supports'),
    Picture('pick_and_place_approach.gif', 'examples/urdf/arm_with_gripper.urdf',
            options={'width': 400, 'height': 300, 'fps': 6.0},
            xmdi='examples/xmdi/pick_and_place.xmdi'),
    Picture('arm_with_gripper_wave.gif', 'examples/urdf/arm_with_gripper.urdf',
            options={'width': 400, 'height': 300, 'fps': 6.0}, xmdi='examples/xmdi/arm_wave.xmdi'),
    Picture('hebi_arm_wave.gif', 'examples/hrdf/hebi_arm.hrdf',
            options={'width': 400, 'height': 300, 'fps': 5.0},
            xmdi='examples/xmdi/hebi_arm_wave.xmdi',
            servo_map='examples/xmdi/hebi_arm_wave.map.yaml'),
    Picture('quadruped_gait.gif', 'examples/skel/quadruped.skel',
            options={'width': 400, 'height': 300, 'fps': 5.0},
            xmdi='examples/xmdi/quadruped_gait.xmdi',
            servo_map='examples/xmdi/quadruped_gait.map.yaml'),
]


def gallery_name(source: str) -> str:
    """examples/skel/quadruped.skel -> skel_quadruped.png (unique: the path, not the stem)."""
    parts = Path(source).with_suffix('').parts[1:]  # without 'examples'
    return '_'.join(parts) + '.png'


def all_pictures() -> list[Picture]:
    """The curated pictures, then one for each bundled example none of them shows."""
    from benchmarks.render import bundled_examples
    shown = {p.source for p in PICTURES}
    extra = [str(path.relative_to(ROOT)) for path in bundled_examples()]
    return PICTURES + [Picture(gallery_name(source), source, options=GALLERY_OPTIONS)
                       for source in extra if source not in shown]


def shrink_png(path: Path) -> None:
    """Store a PNG with a 256-colour palette (matplotlib writes 32-bit RGBA)."""
    from PIL import Image
    with Image.open(path) as image:
        small = image.convert('RGB').quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)


def shrink_gif(path: Path) -> None:
    """Re-store a GIF with one 64-colour palette for all frames (render_animation gives each
    frame its own): unchanged pixels then stay identical between frames and compress away."""
    from PIL import Image, ImageSequence
    with Image.open(path) as gif:
        duration = gif.info.get('duration', 100)
        frames = [frame.convert('RGB') for frame in ImageSequence.Iterator(gif)]
    samples = frames[::max(1, len(frames) // 8)]
    montage = Image.new('RGB', (frames[0].width, frames[0].height * len(samples)))
    for index, frame in enumerate(samples):
        montage.paste(frame, (0, index * frames[0].height))
    palette = montage.quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    shared = [frame.quantize(palette=palette, dither=Image.Dither.NONE) for frame in frames]
    shared[0].save(path, save_all=True, append_images=shared[1:], loop=0, duration=duration,
                   optimize=True)


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
        from robot_formats.cli.render import load_motion
        trajectory, label = load_motion(picture.xmdi, result, servo_map=picture.servo_map)
        report = render.render_animation(result, trajectory, out, options, overlays, label)
        shrink_gif(out)
        return report
    report = render.render_picture(result, out, picture.positions, options, overlays)
    shrink_png(out)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('only', nargs='*', help='draw only pictures whose name contains this')
    parser.add_argument('--list', action='store_true', help='list the pictures and exit')
    args = parser.parse_args(argv)
    chosen = [p for p in all_pictures() if not args.only or any(o in p.name for o in args.only)]
    if args.list:
        for picture in chosen:
            motion = f'  +  {picture.xmdi}' if picture.xmdi else ''
            print(f'{picture.name}  <-  {picture.source}{motion}')
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
