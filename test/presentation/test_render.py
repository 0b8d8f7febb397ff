"""``robot-formats render`` and robot_formats.presentation.render: pictures that show what the
model says.

References: the geometry of the fixtures (a red block on a +x slider must appear right of the
fixed blue block, further at a larger opening), trimesh's own reading of the bundled meshes for
the simplification, and the PNG/GIF files decoded by Pillow (not by the code that wrote them).
No timing assertions: the CLI's reported render time is only checked to be there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import robot_formats
from robot_formats.presentation import render
from robot_formats.core.errors import FormatError
from robot_formats.core.model import Box, Cone, Capsule, Cylinder, Ellipsoid, Plane, Sphere

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / 'fixtures'
ARM = ROOT / 'examples' / 'urdf' / 'arm_with_gripper.urdf'
SLIDER = FIXTURES / 'slider.urdf'
SHAPES = FIXTURES / 'shapes.urdf'
BAD = ROOT / 'test' / 'fixtures' / 'bad' / 'urdf_invalid_cycle.urdf'
TIME_LINE = re.compile(r'^wrote (\S+) \((\d+) triangles(, (\d+) frames)?\) in (\d+\.\d\d) s$',
                       re.M)

#: Frame axis colours as drawn (x red, y green, z blue), as 8-bit RGB.
X_AXIS_RGB = (230, 26, 26)


def run_cli(*args, timeout: float = 60.0) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    return subprocess.run([sys.executable, '-m', 'robot_formats.cli', *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)


def pixels(path: Path) -> np.ndarray:
    with Image.open(path) as image:
        return np.asarray(image.convert('RGB')).astype(int)


def colour_mask(image: np.ndarray, rgb, tolerance: int = 12) -> np.ndarray:
    return np.all(np.abs(image - np.asarray(rgb)) <= tolerance, axis=2)


def reddish(image: np.ndarray) -> np.ndarray:
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return (r > 60) & (g < 0.35 * r) & (b < 0.35 * r)


def bluish(image: np.ndarray) -> np.ndarray:
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return (b > 60) & (r < 0.35 * b) & (g < 0.35 * b)


# --- pictures -------------------------------------------------------------------------------

def test_cli_writes_a_png_with_content_and_reports_the_time(tmp_path):
    out = tmp_path / 'arm.png'
    result = run_cli('render', ARM, '--set', 'elbow=0.6', '-o', out)
    assert result.returncode == 0, result.stderr
    match = TIME_LINE.search(result.stderr)
    assert match, result.stderr
    print(f'render time of {ARM.name}: {match.group(5)} s')  # reported, never asserted
    assert int(match.group(2)) > 100
    image = pixels(out)
    assert image.shape == (600, 800, 3)
    background = np.all(image > 235, axis=2)
    assert 0.05 < 1 - background.mean() < 0.9  # something drawn, not everything
    # the arm's orange links (material rgba 1 0.5 0, shaded) are in the picture
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    assert ((r > 120) & (g > 0.35 * r) & (g < 0.7 * r) & (b < 0.2 * r)).sum() > 500


def test_pictures_differ_between_configurations_and_repeat_exactly(tmp_path):
    result = robot_formats.load(ARM)
    paths = [tmp_path / f'{name}.png' for name in ('a', 'b', 'a_again')]
    render.render_picture(result, paths[0], {'shoulder_lift': 0.2})
    render.render_picture(result, paths[1], {'shoulder_lift': 1.2, 'elbow': -0.8})
    render.render_picture(result, paths[2], {'shoulder_lift': 0.2})
    a, b, again = (pixels(p) for p in paths)
    changed = np.any(a != b, axis=2).mean()
    assert changed > 0.01, f'only {changed:.4%} of the pixels changed'
    assert np.array_equal(a, again)


@pytest.mark.parametrize('opening', [0.0, 0.5])
def test_slider_block_is_drawn_where_forward_kinematics_puts_it(tmp_path, opening):
    """Camera looking along +y (elevation 0, azimuth -90): +x is to the right in the picture.
    The blocks are 0.1 m; the red one is 0.3 + opening m right of the blue one."""
    out = tmp_path / 'slider.png'
    options = render.RenderOptions(elevation=0.0, azimuth=-90.0, show_frames=False)
    render.render_picture(robot_formats.load(SLIDER), out, {'slide': opening}, options)
    image = pixels(out)
    red, blue = reddish(image), bluish(image)
    assert red.sum() > 200 and blue.sum() > 200
    red_x, blue_x = np.nonzero(red)[1].mean(), np.nonzero(blue)[1].mean()
    red_y, blue_y = np.nonzero(red)[0].mean(), np.nonzero(blue)[0].mean()
    block = np.ptp(np.nonzero(blue)[1])  # the blue block's width in pixels = 0.1 m
    assert abs(red_y - blue_y) < 0.2 * block  # same height
    distance = (red_x - blue_x) / block * 0.1
    assert distance == pytest.approx(0.3 + opening, rel=0.15)


def test_frame_axes_are_drawn_and_can_be_turned_off(tmp_path):
    result = robot_formats.load(ARM)
    with_axes, without = tmp_path / 'with.png', tmp_path / 'without.png'
    render.render_picture(result, with_axes)
    render.render_picture(result, without, options=render.RenderOptions(show_frames=False))
    drawn = colour_mask(pixels(with_axes), X_AXIS_RGB).sum()
    absent = colour_mask(pixels(without), X_AXIS_RGB).sum()
    assert drawn > 50 and absent == 0, (drawn, absent)


def test_every_shape_kind_and_both_mesh_references_are_drawn(tmp_path):
    report = render.render_picture(robot_formats.load(SHAPES), tmp_path / 'shapes.png')
    assert report.warnings == ()
    import trimesh
    expected = 4 * 4 * 2 * 6 + 4 * 24  # box (faces cut 4x4), cylinder (24 segments)
    sphere = len(render.tessellate(Sphere(1.0)))
    meshes = sum(len(trimesh.load(ROOT / 'meshes' / name, force='mesh').faces)
                 for name in ('unit_sphere.stl', 'unit_cone.stl'))
    assert report.triangles == expected + sphere + meshes


@pytest.mark.parametrize('geometry, extent', [
    (Box((0.2, 0.4, 0.6)), (0.2, 0.4, 0.6)),
    (Sphere(0.5), (1.0, 1.0, 1.0)),
    (Ellipsoid((0.1, 0.2, 0.3)), (0.2, 0.4, 0.6)),
    (Cylinder(0.1, 0.5), (0.2, 0.2, 0.5)),
    (Capsule(0.1, 0.5), (0.2, 0.2, 0.7)),
    (Cone(0.2, 0.3), (0.4, 0.4, 0.3)),
    (Plane((0.0, 0.0, 1.0), (3.0, 1.0)), (3.0, 1.0, 0.0)),
])
def test_tessellated_shapes_have_the_model_extents(geometry, extent):
    triangles = render.tessellate(geometry, plane_size=10.0)
    points = triangles.reshape(-1, 3)
    assert np.ptp(points, axis=0) == pytest.approx(extent, abs=1e-9)
    centre = (points.max(axis=0) + points.min(axis=0)) / 2
    assert centre == pytest.approx((0, 0, 0), abs=1e-9)


def test_ground_slabs_and_infinite_planes_are_cropped_to_the_scene():
    slab = render.tessellate(Box((10.0, 0.01, 10.0)), plane_size=2.0).reshape(-1, 3)
    assert np.ptp(slab, axis=0) == pytest.approx((2.0, 0.01, 2.0))
    tilted = render.tessellate(Plane((1.0, 0.0, 0.0)), plane_size=2.0).reshape(-1, 3)
    assert np.ptp(tilted, axis=0) == pytest.approx((0.0, 2.0, 2.0), abs=1e-12)


def test_mesh_simplification_keeps_the_shape_within_the_budget():
    import trimesh
    mesh = trimesh.load(ROOT / 'meshes' / 'unit_sphere.stl', force='mesh')
    vertices, faces = render.cluster_vertices(np.asarray(mesh.vertices),
                                              np.asarray(mesh.faces), budget=200)
    assert 20 < len(faces) <= 200 < len(mesh.faces)
    original = np.ptp(mesh.vertices, axis=0)
    assert np.ptp(vertices[faces].reshape(-1, 3), axis=0) == pytest.approx(original, rel=0.15)


def test_missing_mesh_is_a_warning_and_the_rest_is_drawn(tmp_path):
    out = tmp_path / 'missing.png'
    result = run_cli('render', FIXTURES / 'missing_mesh.urdf', '-o', out)
    assert result.returncode == 0, result.stderr
    assert re.search(r"missing_mesh\.urdf:\d+: warning: mesh '.*no_such_mesh\.stl' not found",
                     result.stderr), result.stderr
    assert TIME_LINE.search(result.stderr).group(2) == str(6 * 16 * 2)  # the box only


def test_y_up_worlds_are_drawn_upright():
    for up in ('x', 'y', 'z', '-x', '-y', '-z'):
        rotation, labels = render.view_rotation(up)
        assert np.linalg.det(rotation) == pytest.approx(1.0)
        world_up = np.zeros(3)
        world_up['xyz'.index(up[-1])] = -1.0 if up.startswith('-') else 1.0
        assert rotation @ world_up == pytest.approx((0, 0, 1))
        assert labels[2] == up.replace('-', '\u2212')


# --- every bundled example: models, worlds and problems -----------------------------------

def bundled_examples() -> list[Path]:
    """The examples `make docs` draws and `python -m benchmarks --only render` times."""
    from benchmarks.render import bundled_examples as listed
    return listed()


EXAMPLES = bundled_examples()
#: Fixed title and no frame axes: only the bodies can make two pictures differ.
PLAIN = render.RenderOptions(width=320, height=240, show_frames=False, title='same title')


def drawn_fraction(image: np.ndarray) -> float:
    """Share of the pixels that are not white background or the grey axis panes."""
    return float(1 - np.all(image > 225, axis=2).mean())


def test_the_examples_include_models_worlds_and_problems():
    kinds = {(r.format, r.scene.is_world) for r in map(robot_formats.load, EXAMPLES)}
    assert {('urdf', False), ('sdf', True), ('tmp', True)} <= kinds, kinds


@pytest.mark.parametrize('path', EXAMPLES, ids=lambda p: str(p.relative_to(ROOT / 'examples')))
def test_every_example_draws_something_that_moves_with_its_configuration(tmp_path, path):
    """Non-empty at the initial configuration, and different once every DoF moves by 0.4
    (rad or m). One camera for both (fitted around both configurations), one title and no
    frame axes: only the posed bodies can change pixels. The PNG file is checked too."""
    result = robot_formats.load(path)
    report = render.render_picture(result, tmp_path / 'initial.png', None, PLAIN)
    assert report.triangles > 0
    assert drawn_fraction(pixels(tmp_path / 'initial.png')) > 0.02
    if not result.tree.dof_names:
        return  # a static scene has no other configuration to compare with
    initial = result.tree.positions_vector()
    moved = initial + 0.4
    renderer = render.Renderer(result, PLAIN)
    renderer.fit_camera(*renderer.bounds([initial, moved]))
    pictures = []
    for q in (initial, moved, initial):
        renderer.draw(q, 'same title')
        pictures.append(renderer.rgba()[..., :3].astype(int))
    a, b, again = pictures
    assert a.shape == (240, 320, 3)
    assert drawn_fraction(a) > 0.02, f'{path.name}: almost nothing drawn'
    changed = np.abs(a - b).max(axis=2) > 40
    print(f'{path.name}: {drawn_fraction(a):.1%} drawn, {changed.mean():.1%} changed')
    assert changed.mean() > 0.003, f'{path.name}: only {changed.mean():.3%} of pixels changed'
    assert np.array_equal(a, again), 'the same configuration must give the same picture'


def test_make_docs_draws_every_example_and_motion_and_the_pages_show_its_pictures():
    listing = subprocess.run([sys.executable, str(ROOT / 'tools' / 'make_docs.py'), '--list'],
                             capture_output=True, text=True, timeout=120, check=True).stdout
    sources = {source.strip() for line in listing.splitlines()
               for source in line.split('<-')[1].split('+')}
    motions = sorted((ROOT / 'examples').rglob('*.xmdi'))
    assert {str(p.relative_to(ROOT)) for p in [*EXAMPLES, *motions]} <= sources
    names = [line.split('<-')[0].strip() for line in listing.splitlines()]
    assert len(names) == len(set(names)), 'two pictures with one file name'
    for page in ('docs/tour.md', 'README.md'):
        for image in re.findall(r'!\[[^\]]*\]\(([^)]+)\)', (ROOT / page).read_text('utf-8')):
            assert (ROOT / page).parent.joinpath(image).is_file(), f'{page}: {image} missing'
            assert Path(image).name in names, f'{page}: {image} is not made by make docs'


def github_anchor(heading: str) -> str:
    """The id GitHub gives a Markdown heading: lower case, punctuation dropped, spaces -> '-'."""
    return re.sub(r'[^\w\- ]', '', heading.strip().lower()).replace(' ', '-')


@pytest.mark.parametrize('page', ['README.md', 'docs/tour.md'])
def test_links_of_the_front_pages_lead_somewhere(page):
    """Every relative link of README.md and the tour names an existing file, and an existing
    heading when it has a #fragment (so a renamed section or a doc not yet written fails)."""
    path = ROOT / page
    for target in re.findall(r'\]\(([^)\s]+)\)', path.read_text('utf-8')):
        if re.match(r'[a-z]+://', target):
            continue
        file, _, fragment = target.partition('#')
        linked = path.parent / file if file else path
        assert linked.is_file(), f'{page}: link {target} leads nowhere'
        if fragment and linked.suffix == '.md':
            headings = re.findall(r'^#+ (.+)$', linked.read_text('utf-8'), re.M)
            assert fragment in {github_anchor(h) for h in headings}, f'{page}: {target}'


# --- animations -----------------------------------------------------------------------------

def test_gif_has_several_different_frames(tmp_path):
    result = robot_formats.load(ARM)
    motion = render.SampledTrajectory([0.0, 1.0, 2.0], ['shoulder_pan', 'elbow'],
                                      [[0.0, 0.0], [1.0, 1.2], [2.0, 0.3]])
    out = tmp_path / 'arm.gif'
    options = render.RenderOptions(width=320, height=240, fps=3.0)
    report = render.render_animation(result, motion, out, options)
    assert report.frames == 7  # 0, 1/3, ..., 2 s
    with Image.open(out) as gif:
        assert gif.n_frames == 7
        frames = []
        for index in range(gif.n_frames):
            gif.seek(index)
            frames.append(np.asarray(gif.convert('RGB')).astype(int))
        durations = gif.info.get('duration')
    assert frames[0].shape == (240, 320, 3)
    assert min(drawn_fraction(frame) for frame in frames) > 0.02  # every picture shows the arm
    distinct = {frame.tobytes() for frame in frames}
    assert len(distinct) == 7
    assert durations == pytest.approx(333, abs=10)  # GIF stores 1/100 s


def test_sampled_trajectory_interpolates_linearly():
    motion = render.SampledTrajectory([1.0, 3.0], ['a', 'b'], [[0.0, 10.0], [2.0, 20.0]])
    assert motion.duration == 2.0
    assert motion.positions(1.0) == {'a': 1.0, 'b': 15.0}
    assert motion.positions(5.0) == {'a': 2.0, 'b': 20.0}
    with pytest.raises(ValueError):
        render.SampledTrajectory([0.0, 1.0], ['a'], [[0.0]])


# --- bad input ------------------------------------------------------------------------------

def test_invalid_model_exits_1_with_the_loader_sentence(tmp_path):
    result = run_cli('render', BAD, '-o', tmp_path / 'x.png')
    assert result.returncode == 1
    assert result.stderr.startswith(f'{BAD}:') and 'Traceback' not in result.stderr
    assert not (tmp_path / 'x.png').exists()


@pytest.mark.parametrize('args, code, message', [
    (['-o', '{tmp}/x.jpg'], 1, 'the output must end in .png'),
    (['-o', '{tmp}/missing/x.png'], 1, 'cannot write output'),
    (['-o', '{tmp}/x.png', '--size', 'big'], 2, '--size'),
    (['-o', '{tmp}/x.png', '--set', 'nope=1'], 2, "'nope' is not a degree of freedom"),
    (['-o', '{tmp}/x.png', '--up', 'w'], 1, "up axis 'w'"),
    (['-o', '{tmp}/x.png', '--problem-overlays', 'grasps'], 1,
     'problem overlays need a TMP problem file'),
    (['-o', '{tmp}/x.png', '--problem-overlays', 'wheels'], 2, "unknown overlay 'wheels'"),
])
def test_bad_render_arguments(tmp_path, args, code, message):
    result = run_cli('render', ARM, *[a.format(tmp=tmp_path) for a in args])
    assert result.returncode == code, result.stderr
    assert message in result.stderr and 'Traceback' not in result.stderr


def test_library_refuses_wrong_output_kind(tmp_path):
    with pytest.raises(FormatError, match='must end in .gif'):
        render.render_animation(robot_formats.load(ARM),
                                render.SampledTrajectory([0.0], [], [[]]), tmp_path / 'x.png')


# --- planning-problem overlays ----------------------------------------------------------------

PROBLEM = ROOT / 'examples' / 'tmp' / 'discs_and_pegs.xml'


def _matrix(text: str) -> np.ndarray:
    """The problem file's 3x4 row-major numbers as a 4x4 matrix (read here, not by the library)."""
    values = [float(v) for v in text.replace(')', ' ').split()]
    return np.vstack([np.array(values[:12]).reshape(3, 4), [0.0, 0.0, 0.0, 1.0]])


def test_grasp_overlay_puts_a_gripper_at_every_discrete_grasp_of_the_file():
    import xml.etree.ElementTree as ET
    expected = []
    for obj in ET.parse(PROBLEM).getroot().iter('obj'):
        pose = _matrix(obj.findtext('pose'))
        expected += [(pose @ _matrix(gf.text))[:3, 3] for gf in obj.iter('gf')]
    assert len(expected) >= 3
    result = robot_formats.load(PROBLEM)
    grasps, = render.problem_overlays(result, ['grasps'])
    fingers = grasps.segments.reshape(-1, 4, 2, 3)          # 4 segments per gripper symbol
    origins = (fingers[:, 0, 0] + fingers[:, 1, 0]) / 2      # between the two fingertips
    for point in expected:
        assert np.min(np.linalg.norm(origins - point, axis=1)) < 1e-9, point


def test_overlays_are_drawn_on_problems_and_refused_elsewhere(tmp_path):
    plain, marked = tmp_path / 'plain.png', tmp_path / 'marked.png'
    assert run_cli('render', PROBLEM, '-o', plain).returncode == 0
    result = run_cli('render', PROBLEM, '--problem-overlays', 'grasps,supports', '-o', marked)
    assert result.returncode == 0, result.stderr
    magenta = (217, 26, 191)  # the grasp colour (0.85, 0.1, 0.75)
    assert colour_mask(pixels(marked), magenta, 20).sum() > 30
    assert colour_mask(pixels(plain), magenta, 20).sum() == 0
    supports = render.problem_overlays(robot_formats.load(PROBLEM), ['supports'])
    assert sum(len(o.triangles) for o in supports) and sum(len(o.segments) for o in supports)


# --- XMDI motions -----------------------------------------------------------------------------

WAVE = ROOT / 'examples' / 'xmdi' / 'arm_wave.xmdi'


def test_cli_animates_an_xmdi_motion(tmp_path):
    """The wave's last key frame is 140 (x 0.032 s = 4.48 s): 45 pictures at 10 per second.
    Every servo is 0 at the start and end, so the first and last pictures are the same."""
    out = tmp_path / 'wave.gif'
    result = run_cli('render', ARM, '--animate', WAVE, '--size', '320x240', '-o', out)
    assert result.returncode == 0, result.stderr
    match = TIME_LINE.search(result.stderr)
    assert match and match.group(4) == '45', result.stderr
    with Image.open(out) as gif:
        assert gif.n_frames == 45
        frames = []
        for index in range(gif.n_frames):
            gif.seek(index)
            frames.append(np.asarray(gif.convert('RGB')).astype(int))
    def changed(a, b):  # pixels that differ by more than palette rounding (64 colours a frame)
        return np.abs(a - b).max(axis=2)[40:] > 60  # below the title, which shows the time

    assert min(drawn_fraction(frame) for frame in frames) > 0.02
    assert max(changed(frame, frames[0]).mean() for frame in frames) > 0.01
    assert changed(frames[-1], frames[0]).mean() < 0.001


@pytest.mark.parametrize('args, code, message', [
    (['--animate', str(WAVE), '--set', 'elbow=1', '-o', '{tmp}/x.gif'], 2, 'exclude each other'),
    (['--animate', str(WAVE), '--motion', 'nope', '-o', '{tmp}/x.gif'], 1,
     "no motion named 'nope' (motions: wave, grasp)"),
    (['--animate', str(WAVE), '-o', '{tmp}/x.png'], 1, 'the output must end in .gif'),
    (['--animate', str(ARM), '-o', '{tmp}/x.gif'], 1, str(ARM)),
])
def test_bad_animations(tmp_path, args, code, message):
    result = run_cli('render', ARM, *[a.format(tmp=tmp_path) for a in args])
    assert result.returncode == code, result.stderr
    assert message in result.stderr and 'Traceback' not in result.stderr


def test_motion_of_other_joints_is_refused_with_the_motion_file(tmp_path):
    result = run_cli('render', SLIDER, '--animate', WAVE, '-o', tmp_path / 'x.gif')
    assert result.returncode == 1
    assert result.stderr.startswith(f'{WAVE}:') and "drives 'shoulder_pan'" in result.stderr
    assert '--servo-map' in result.stderr


MESHES = sorted([*(ROOT / 'meshes').glob('*.stl'), *(ROOT / 'examples').rglob('*.obj')])


@pytest.mark.parametrize('path', MESHES, ids=lambda p: p.name)
def test_mesh_files_read_like_trimesh_reads_them(path):
    """The OBJ and STL readers against trimesh (the reference), triangle by triangle."""
    import trimesh
    reference = trimesh.load(path, force='mesh', process=False)
    expected = np.asarray(reference.vertices)[np.asarray(reference.faces)]
    render._mesh_file_triangles.cache_clear()
    got = render._mesh_file_triangles(str(path))
    if len(expected) <= render.MESH_FACE_BUDGET:
        assert got == pytest.approx(expected, abs=1e-6)
    else:
        assert len(got) <= render.MESH_FACE_BUDGET


def test_ascii_stl_and_broken_meshes(tmp_path):
    ascii_stl = tmp_path / 'tri.stl'
    ascii_stl.write_text('solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n'
                         'vertex 0 1 0\nendloop\nendfacet\nendsolid t\n', encoding='ascii')
    assert render._mesh_file_triangles(str(ascii_stl)).tolist() == [[[0, 0, 0], [1, 0, 0],
                                                                      [0, 1, 0]]]
    broken = tmp_path / 'broken.obj'
    broken.write_text('v 0 0 0\nf 1 2 3\n', encoding='utf-8')
    with pytest.raises(FileNotFoundError, match='could not be read'):
        render._mesh_file_triangles(str(broken))
