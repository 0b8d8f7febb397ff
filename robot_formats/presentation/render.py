"""Headless pictures of any loaded model, world or problem: PNG stills and GIF animations.

Why this exists: people would rather look at a robot than read its frame list. Everything here
runs without a display and without ROS (matplotlib's Agg backend, trimesh only for mesh files):

1. :func:`scene_shapes` turns every visual of every link into triangles in the link frame
   (primitives are tessellated here, meshes read with trimesh and simplified by vertex clustering,
   both cached), placed at run time by :class:`~robot_formats.core.kinematics.KinematicTree`'s
   forward kinematics: the picture shows exactly the poses ``frames`` prints.
2. :class:`Renderer` draws them with matplotlib's 3D axes: flat Lambert shading computed here,
   frames as small red/green/blue axes, a camera fitted to the scene's bounding box, a title.
   For an animation the same figure is redrawn per time step with new vertex positions.
3. :class:`Overlay` adds things that are not links (grasps, support regions of a planning
   problem, ...) as triangles and line segments in the root frame.

Motions come in through :class:`Trajectory` (a duration and a function time -> joint
positions), so any motion source (XMDI, a planner's output, a test) can be animated.
"""

from __future__ import annotations

import functools
import math
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Mapping, Protocol, Sequence

import numpy as np

from robot_formats.core.errors import Diagnostic, FormatError, InvalidValueError
from robot_formats.core.files import replacing
from robot_formats.formats import LoadResult
from robot_formats.core.kinematics import KinematicTree
from robot_formats.core.meshes import read_mesh, resolve_mesh_path
from robot_formats.core.model import (Box, Capsule, Cone, Cylinder, Ellipsoid, Geometry, Material,
                                      Mesh, Plane, Sphere)
from robot_formats.core.transforms import pose_to_matrix

__all__ = ['RenderOptions', 'RenderReport', 'Overlay', 'Trajectory', 'SampledTrajectory',
           'Renderer', 'render_picture', 'render_animation', 'scene_shapes', 'tessellate',
           'resolve_mesh_path', 'problem_overlays', 'PROBLEM_OVERLAYS', 'view_rotation',
           'up_axis', 'cluster_vertices']

#: Faces a mesh file keeps at most (vertex clustering above this): keeps a picture under ~1 s.
MESH_FACE_BUDGET = 2500
#: Light direction (world frame, towards the light): from above, front-left of the default view.
_LIGHT = np.array([0.35, -0.55, 0.76]) / np.linalg.norm([0.35, -0.55, 0.76])
_DEFAULT_COLOUR = (0.62, 0.66, 0.72, 1.0)
_PALETTE = ((0.85, 0.55, 0.25), (0.45, 0.62, 0.80), (0.55, 0.72, 0.45), (0.78, 0.50, 0.62),
            (0.70, 0.70, 0.52), (0.52, 0.58, 0.78))


# --- options and results --------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RenderOptions:
    """How a picture looks. Sizes in pixels; angles in degrees (matplotlib's elevation/azimuth)."""

    width: int = 800
    height: int = 600
    elevation: float = 22.0
    azimuth: float = -58.0
    show_frames: bool = True          #: small RGB axes (x red, y green, z blue) at every frame
    frame_labels: bool = False        #: write each frame's name next to its axes
    collision: bool = False           #: draw collision shapes instead of visuals
    title: str | None = None          #: None: file name, format and configuration
    up: str | None = None             #: 'z', 'y', '-y', ...; None: against the document's
    #: gravity when it has one (DART worlds are Y-up), else z
    fps: float = 10.0                 #: animations: frames per second of motion time
    max_frames: int = 120             #: animations: at most this many pictures


@dataclass(frozen=True, slots=True)
class RenderReport:
    """What was written and how long it took (the CLI prints it)."""

    output: str
    seconds: float
    triangles: int
    frames: int = 1
    warnings: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class Overlay:
    """Extra geometry in the root frame: filled triangles (N×3×3) and line segments (M×2×3)."""

    label: str
    triangles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 3)))
    segments: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, 3)))
    colour: tuple[float, float, float, float] = (0.2, 0.8, 0.3, 0.5)
    line_width: float = 2.0


class Trajectory(Protocol):
    """A motion to animate: ``positions(t)`` gives DoF name -> value for 0 <= t <= duration."""

    duration: float

    def positions(self, time: float) -> Mapping[str, float]: ...


@dataclass(frozen=True)
class SampledTrajectory:
    """Waypoints ``values[i]`` (one row per time, one column per DoF name), linearly interpolated.

    The simplest :class:`Trajectory`: a planner's output or a test's hand-made motion.
    """

    times: Sequence[float]
    dof_names: Sequence[str]
    values: Sequence[Sequence[float]]

    def __post_init__(self) -> None:
        times = np.asarray(self.times, dtype=float)
        values = np.asarray(self.values, dtype=float)
        if times.ndim != 1 or len(times) < 1 or np.any(np.diff(times) < 0):
            raise ValueError('times must be a non-empty, non-decreasing sequence')
        if values.shape != (len(times), len(self.dof_names)):
            raise ValueError(f'values must be {len(times)}x{len(self.dof_names)}, '
                             f'got {values.shape}')

    @property
    def duration(self) -> float:
        return float(self.times[-1] - self.times[0])

    def positions(self, time: float) -> dict[str, float]:
        times = np.asarray(self.times, dtype=float)
        values = np.asarray(self.values, dtype=float)
        t = times[0] + time
        row = [np.interp(t, times, values[:, column]) for column in range(values.shape[1])]
        return {name: float(value) for name, value in zip(self.dof_names, row)}


# --- geometry -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Shape:
    """Triangles of one visual in its link's frame, with a colour."""

    link: str
    triangles: np.ndarray            #: N×3×3, in the link frame (visual origin applied)
    colour: tuple[float, float, float, float]


def tessellate(geometry: Geometry, plane_size: float = 2.0,
               base_dir: Path | None = None) -> np.ndarray:
    """Triangles (N×3×3) of a shape in its own frame. Raises FileNotFoundError for a missing mesh.

    ``plane_size`` is the side of the square drawn for an infinite plane, and the most a thin
    ground slab (a box much flatter than wide, e.g. DART's 10 m floors) is drawn wide: the
    picture shows the robot, not 10 m of floor.
    """
    if isinstance(geometry, Box):
        return _box_triangles(_cropped_slab(np.asarray(geometry.size, dtype=float), plane_size))
    if isinstance(geometry, Sphere):
        return _ellipsoid_triangles((geometry.radius,) * 3)
    if isinstance(geometry, Ellipsoid):
        return _ellipsoid_triangles(tuple(geometry.radii))
    if isinstance(geometry, Cylinder):
        return _revolve(((0.0, -geometry.length / 2), (geometry.radius, -geometry.length / 2),
                         (geometry.radius, geometry.length / 2), (0.0, geometry.length / 2)))
    if isinstance(geometry, Cone):
        return _revolve(((0.0, -geometry.length / 2), (geometry.radius, -geometry.length / 2),
                         (0.0, geometry.length / 2)))
    if isinstance(geometry, Capsule):
        return _revolve(_capsule_profile(geometry.radius, geometry.length))
    if isinstance(geometry, Plane):
        return _plane_triangles(geometry, plane_size)
    if isinstance(geometry, Mesh):
        path = resolve_mesh_path(geometry.uri, base_dir)
        return _mesh_file_triangles(str(path)) * np.asarray(geometry.scale, dtype=float)
    raise TypeError(f'cannot draw {type(geometry).__name__}')


def _cropped_slab(size: np.ndarray, limit: float) -> np.ndarray:
    """A ground slab's size with its wide sides cut to ``limit``; other boxes unchanged."""
    if size.min() < 0.02 * size.max() and size.max() > limit:
        thin = int(np.argmin(size))
        return np.array([v if i == thin else min(v, limit) for i, v in enumerate(size)])
    return size


def _box_triangles(size: np.ndarray, divisions: int = 4) -> np.ndarray:
    """Six faces, each cut into ``divisions``² squares: matplotlib sorts whole polygons by depth
    (painter's algorithm), and small pieces keep a box's faces from hiding each other wrongly."""
    steps = np.linspace(-0.5, 0.5, divisions + 1)
    squares = []
    for axis in range(3):
        u_axis, v_axis = (axis + 1) % 3, (axis + 2) % 3
        for side in (-0.5, 0.5):
            for u0, u1 in zip(steps, steps[1:]):
                for v0, v1 in zip(steps, steps[1:]):
                    corners = np.zeros((4, 3))
                    corners[:, axis] = side
                    corners[:, u_axis] = (u0, u1, u1, u0)
                    corners[:, v_axis] = (v0, v0, v1, v1)
                    squares.append(corners)
    quads = np.asarray(squares) * size
    return np.concatenate([quads[:, (0, 1, 2)], quads[:, (0, 2, 3)]])


@functools.lru_cache(maxsize=64)
def _unit_sphere(rings: int = 10, segments: int = 20) -> np.ndarray:
    angles = np.linspace(0.0, math.pi, rings + 1)
    profile = tuple((math.sin(a), -math.cos(a)) for a in angles)
    return _revolve(profile, segments)


def _ellipsoid_triangles(radii: Sequence[float]) -> np.ndarray:
    return _unit_sphere() * np.asarray(radii, dtype=float)


def _capsule_profile(radius: float, length: float, steps: int = 5) -> tuple:
    lower = [(radius * math.sin(a), -length / 2 - radius * math.cos(a))
             for a in np.linspace(0.0, math.pi / 2, steps + 1)]
    upper = [(radius * math.cos(a), length / 2 + radius * math.sin(a))
             for a in np.linspace(0.0, math.pi / 2, steps + 1)]
    return tuple(lower + upper)


def _revolve(profile: Sequence[tuple[float, float]], segments: int = 24) -> np.ndarray:
    """Triangles of the surface swept by a (radius, z) polyline turning about Z."""
    angles = np.linspace(0.0, 2 * math.pi, segments + 1)
    cos, sin = np.cos(angles), np.sin(angles)
    rings = [np.stack([r * cos, r * sin, np.full_like(cos, z)], axis=1) for r, z in profile]
    triangles = []
    for lower, upper in zip(rings, rings[1:]):
        for k in range(segments):
            a, b, c, d = lower[k], lower[k + 1], upper[k + 1], upper[k]
            if not np.allclose(a, b):
                triangles.append((a, b, c))
            if not np.allclose(c, d):
                triangles.append((a, c, d))
    return np.asarray(triangles)


def _plane_triangles(plane: Plane, default_size: float) -> np.ndarray:
    width, depth = (min(s, default_size) if s > 0 else default_size for s in plane.size)
    square = np.array([[[-width / 2, -depth / 2, 0], [width / 2, -depth / 2, 0],
                        [width / 2, depth / 2, 0]],
                       [[-width / 2, -depth / 2, 0], [width / 2, depth / 2, 0],
                        [-width / 2, depth / 2, 0]]], dtype=float)
    normal = np.asarray(plane.normal, dtype=float)
    normal = normal / (np.linalg.norm(normal) or 1.0)
    return square @ _rotation_from_z(normal).T


def _rotation_from_z(direction: np.ndarray) -> np.ndarray:
    """A rotation taking +Z to ``direction`` (unit)."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(z, direction)
    sin, cos = np.linalg.norm(axis), float(z @ direction)
    if sin < 1e-12:
        return np.eye(3) if cos > 0 else np.diag([1.0, -1.0, -1.0])
    axis = axis / sin
    skew = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + sin * skew + (1 - cos) * skew @ skew


@functools.lru_cache(maxsize=256)
def _mesh_file_triangles(path: str) -> np.ndarray:
    """Triangles of a mesh file (unscaled), simplified to about MESH_FACE_BUDGET faces.

    Read by :func:`robot_formats.core.meshes.read_mesh` (OBJ and STL with numpy, Collada with its
    unit applied, other formats through trimesh).
    """
    vertices, faces = read_mesh(path)
    if len(faces) > MESH_FACE_BUDGET:
        vertices, faces = cluster_vertices(vertices, faces, MESH_FACE_BUDGET)
    return vertices[faces]


def cluster_vertices(vertices: np.ndarray, faces: np.ndarray,
                     budget: int) -> tuple[np.ndarray, np.ndarray]:
    """Simplify a mesh by merging the vertices in each cell of a grid (vertex clustering).

    Why not quadric decimation: it needs a compiled extra package; clustering is numpy only,
    keeps the silhouette at picture resolution, and the grid is refined until the result fits.
    """
    extent = float(np.ptp(vertices, axis=0).max()) or 1.0
    best = (vertices, faces)
    for cells in (64, 48, 36, 28, 20, 14, 10, 7, 5, 3):
        cell = extent / cells
        keys = np.floor((vertices - vertices.min(axis=0)) / cell).astype(np.int64)
        _, cluster, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
        cluster = cluster.reshape(-1)
        centres = np.zeros((len(counts), 3))
        np.add.at(centres, cluster, vertices)
        centres /= counts[:, None]
        merged = cluster[faces]
        keep = ((merged[:, 0] != merged[:, 1]) & (merged[:, 1] != merged[:, 2])
                & (merged[:, 0] != merged[:, 2]))
        merged = np.unique(np.sort(merged[keep], axis=1), axis=0, return_index=True)[1]
        simplified = cluster[faces][keep][np.sort(merged)]
        best = (centres, simplified)
        if len(simplified) <= budget:
            break
    return best


def _colour(material: Material | None, materials: Mapping[str, Material],
            link_index: int) -> tuple[float, float, float, float]:
    if material is not None and material.rgba is None and material.name is not None:
        material = materials.get(material.name, material)
    if material is not None and material.rgba is not None:
        r, g, b, a = material.rgba
        return float(r), float(g), float(b), float(a)
    return (*_PALETTE[link_index % len(_PALETTE)], 1.0)


def scene_shapes(result: LoadResult, tree: KinematicTree, collision: bool = False,
                 warnings: list[Diagnostic] | None = None) -> list[Shape]:
    """Every visual (or collision) shape of the scene, as triangles in its link's frame.

    A mesh that cannot be found or read is skipped with a warning: the rest still shows.
    """
    warnings = warnings if warnings is not None else []
    materials: dict[str, Material] = {}
    for model in result.scene.models:
        materials.update(model.materials)
    base_dir = Path(result.path).resolve().parent
    plane_size = _plane_size(tree)
    shapes = []
    for index, (name, link) in enumerate(tree.links.items()):
        items = link.collisions if collision else link.visuals
        for item in items:
            try:
                local = tessellate(item.geometry, plane_size, base_dir)
            except FileNotFoundError as err:
                warnings.append(Diagnostic(f'{err}; link {name!r} drawn without it',
                                           result.path, link.line, 'MESH_MISSING'))
                continue
            except TypeError as err:  # a geometry kind this module does not know yet
                warnings.append(Diagnostic(f'{err}; link {name!r} drawn without it',
                                           result.path, link.line, 'SHAPE_UNSUPPORTED'))
                continue
            if len(local) == 0:
                continue
            origin = pose_to_matrix(item.origin)
            placed = local @ origin[:3, :3].T + origin[:3, 3]
            colour = (_DEFAULT_COLOUR if collision
                      else _colour(getattr(item, 'material', None), materials, index))
            shapes.append(Shape(name, placed, colour))
    return shapes


def _plane_size(tree: KinematicTree) -> float:
    """Side of the square drawn for infinite planes: a bit larger than the frames' spread."""
    poses = tree.forward()
    points = np.array([pose[:3, 3] for pose in poses.values()])
    spread = float(np.ptp(points, axis=0).max()) if len(points) > 1 else 0.0
    return max(1.0, 1.5 * spread)


# --- planning-problem overlays -------------------------------------------------------------------

#: Overlay names ``--problem-overlays`` accepts.
PROBLEM_OVERLAYS = ('grasps', 'supports')
#: Samples drawn of each continuous grasp set.
CONTINUOUS_GRASP_SAMPLES = 8
_GRASP_COLOUR = (0.85, 0.1, 0.75, 1.0)
_SUPPORT_COLOUR = (0.1, 0.8, 0.3, 0.3)


def problem_overlays(result: LoadResult, names: Sequence[str],
                     q: np.ndarray | None = None) -> list[Overlay]:
    """Grasps and support regions of a TMP problem, placed where the picture shows objects.

    Object poses come from the scene's forward kinematics (each object is a link named like
    the object), so the overlays follow attachments exactly as the bodies do. The problem's
    own semantics (:mod:`robot_formats.formats.tmp.semantics`) give the grasp frames: discrete ones
    and :data:`CONTINUOUS_GRASP_SAMPLES` of each continuous set.
    """
    unknown = [name for name in names if name not in PROBLEM_OVERLAYS]
    if unknown:
        raise ValueError(f'unknown overlay {unknown[0]!r} (known: {", ".join(PROBLEM_OVERLAYS)})')
    if result.format != 'tmp':
        raise InvalidValueError(f'problem overlays need a TMP problem file; this is '
                                f'{result.format}', result.path)
    from robot_formats.formats.tmp.reader import read_problem
    from robot_formats.formats.tmp.semantics import grasp_samples

    assert result.tree is not None
    problem = read_problem(result.path, [], load_robots=False)
    poses = result.tree.forward(q)
    overlays = []
    if 'supports' in names:
        triangles, segments = [], []
        for obj in problem.objects.values():
            if obj.support is not None and obj.name in poses:
                tris, segs = _support_geometry(obj.support, poses[obj.name])
                triangles += tris
                segments += segs
        overlays.append(Overlay('supports', np.asarray(triangles).reshape(-1, 3, 3),
                                colour=_SUPPORT_COLOUR))
        overlays.append(Overlay('support outlines', segments=np.asarray(segments).reshape(-1, 2, 3),
                                colour=(*_SUPPORT_COLOUR[:3], 1.0), line_width=2.0))
    if 'grasps' in names:
        size = _grasp_symbol_size(problem, poses)
        segments = []
        for obj in problem.objects.values():
            if obj.name in poses:
                for grasp in grasp_samples(obj, CONTINUOUS_GRASP_SAMPLES,
                                           frame=poses[obj.name]):
                    segments += gripper_segments(grasp.frame, size)
        overlays.append(Overlay('grasps', segments=np.asarray(segments).reshape(-1, 2, 3),
                                colour=_GRASP_COLOUR, line_width=1.2))
    return overlays


def gripper_segments(frame: np.ndarray, size: float) -> list[np.ndarray]:
    """A parallel-jaw gripper symbol for a grasp frame: fingertips ``size``/2 apart on either
    side of the frame's origin along its y axis, fingers and palm behind it along -z (z is the
    approach direction), and a short stem further back."""
    origin, y, z = frame[:3, 3], frame[:3, 1], frame[:3, 2]
    half = 0.5 * size * y
    palm = origin - size * z
    return [np.array(pair) for pair in (
        (origin + half, palm + half), (origin - half, palm - half),     # fingers
        (palm + half, palm - half), (palm, palm - 0.6 * size * z))]     # palm, stem


def _grasp_symbol_size(problem, poses: Mapping[str, np.ndarray]) -> float:
    """About a tenth of the spread of the objects, so symbols are visible but not huge."""
    points = np.array([poses[name][:3, 3] for name in problem.objects if name in poses])
    spread = float(np.ptp(points, axis=0).max()) if len(points) > 1 else 0.5
    return max(0.02, min(0.06, 0.06 * spread))


def _support_geometry(region, pose: np.ndarray) -> tuple[list, list]:
    """Triangles and outline of a support region (point: a small cross), in the world frame."""
    if region.kind == 'point':
        centre = region.low @ pose[:3, :3].T + pose[:3, 3]
        arms = 0.02 * pose[:3, :3].T
        return [], [np.array((centre - arm, centre + arm)) for arm in arms[:2]]
    if region.kind == 'rectangle':
        (x0, y0, z0), (x1, y1, _) = region.low, region.high
        outline = np.array([(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0)])
    else:
        outline = np.asarray(region.points, dtype=float)
    world = outline @ pose[:3, :3].T + pose[:3, 3]
    centre = world.mean(axis=0)
    triangles = [np.array((centre, a, b)) for a, b in zip(world, np.roll(world, -1, axis=0))]
    segments = [np.array((a, b)) for a, b in zip(world, np.roll(world, -1, axis=0))]
    return triangles, segments


# --- view -----------------------------------------------------------------------------------------

_AXES = 'xyz'


def up_axis(result: LoadResult, requested: str | None) -> str:
    """The world direction drawn upwards: as requested, else against gravity, else ``z``."""
    if requested:
        if requested.lstrip('+-') not in _AXES or len(requested.lstrip('+-')) != 1:
            raise InvalidValueError(f'up axis {requested!r}: expected x, y, z, -x, -y or -z')
        return requested.lstrip('+')
    gravity = result.scene.physics.get('gravity') if result.scene.physics else None
    try:
        g = np.asarray(gravity, dtype=float).reshape(3)
    except (TypeError, ValueError):
        return 'z'
    if not np.all(np.isfinite(g)) or not np.any(g):
        return 'z'
    index = int(np.argmax(np.abs(g)))
    return ('' if g[index] < 0 else '-') + _AXES[index]


def view_rotation(up: str) -> tuple[np.ndarray, tuple[str, str, str]]:
    """A rotation from world to plot coordinates putting ``up`` on the plot's z, and the labels
    of the plot's x, y, z axes in world terms (a cyclic permutation keeps the frame right-handed;
    a downward axis is turned over about the plot's x)."""
    index, sign = _AXES.index(up[-1]), (-1.0 if up.startswith('-') else 1.0)
    rows = [(index + 1) % 3, (index + 2) % 3, index]
    signs = [1.0, sign, sign]
    rotation = np.zeros((3, 3))
    for row, (axis, factor) in enumerate(zip(rows, signs)):
        rotation[row, axis] = factor
    first, second, third = (('' if f > 0 else '−') + _AXES[a] for a, f in zip(rows, signs))
    return rotation, (first, second, third)


# --- drawing --------------------------------------------------------------------------------------

class Renderer:
    """One matplotlib figure showing a scene; :meth:`draw` poses it at a configuration.

    Built once per output (a picture or every frame of an animation): the shapes are
    tessellated once, and each configuration only moves vertices and recolours faces.
    """

    def __init__(self, result: LoadResult, options: RenderOptions = RenderOptions(),
                 overlays: Sequence[Overlay] = ()) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # no pyplot, no display
        from matplotlib.figure import Figure
        from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

        assert result.tree is not None
        self.result = result
        self.tree = result.tree
        self.options = options
        self.view, self.axis_names = view_rotation(up_axis(result, options.up))
        self.overlays = tuple(self._to_plot(overlay) for overlay in overlays)
        self.warnings: list[Diagnostic] = []
        self.shapes = scene_shapes(result, self.tree, options.collision, self.warnings)
        self._counts = [len(s.triangles) for s in self.shapes]
        self._local = (np.concatenate([s.triangles for s in self.shapes])
                       if self.shapes else np.zeros((0, 3, 3)))
        self._base_colours = np.repeat(np.array([s.colour for s in self.shapes]).reshape(-1, 4),
                                       self._counts, axis=0)
        self.figure = Figure(figsize=(options.width / 100, options.height / 100), dpi=100)
        self.canvas = FigureCanvasAgg(self.figure)
        self.axes = self.figure.add_subplot(projection='3d', computed_zorder=False)
        self.figure.subplots_adjust(left=0.0, right=0.97, bottom=0.03, top=0.93)
        self.axes.view_init(elev=options.elevation, azim=options.azimuth)
        self._bodies = Poly3DCollection([], linewidths=0.0, zorder=1)
        self.axes.add_collection3d(self._bodies, autolim=False)
        # Overlays are drawn over the bodies (a support region is coplanar with its table top,
        # which depth sorting of whole polygons cannot order): faces translucent, lines opaque.
        for overlay in self.overlays:
            if len(overlay.triangles):
                self.axes.add_collection3d(Poly3DCollection(
                    list(overlay.triangles), facecolors=overlay.colour, linewidths=0.0,
                    zorder=2), autolim=False)
            if len(overlay.segments):
                self.axes.add_collection3d(Line3DCollection(
                    list(overlay.segments), colors=[overlay.colour],
                    linewidths=overlay.line_width, zorder=4), autolim=False)
        self._axes_lines = Line3DCollection([], linewidths=1.6, zorder=3)
        self.axes.add_collection3d(self._axes_lines, autolim=False)
        self._labels: list = []
        self.frame_length = 0.05

    def _to_plot(self, overlay: Overlay) -> Overlay:
        return replace(overlay, triangles=np.asarray(overlay.triangles, float) @ self.view.T,
                       segments=np.asarray(overlay.segments, float) @ self.view.T)

    def plot_poses(self, q: np.ndarray) -> dict[str, np.ndarray]:
        """Forward kinematics at ``q``, turned into plot coordinates (see :func:`view_rotation`)."""
        view = np.eye(4)
        view[:3, :3] = self.view
        return {name: view @ pose for name, pose in self.tree.forward(q).items()}

    @property
    def triangles(self) -> int:
        return len(self._local) + sum(len(o.triangles) for o in self.overlays)

    def world_triangles(self, poses: Mapping[str, np.ndarray]) -> np.ndarray:
        """Every body triangle placed at the given frame poses."""
        if not self.shapes:
            return self._local
        rotations = np.concatenate([np.broadcast_to(poses[s.link][:3, :3], (n, 3, 3))
                                    for s, n in zip(self.shapes, self._counts)])
        offsets = np.concatenate([np.broadcast_to(poses[s.link][:3, 3], (n, 3))
                                  for s, n in zip(self.shapes, self._counts)])
        return np.einsum('nij,nkj->nki', rotations, self._local) + offsets[:, None, :]

    def bounds(self, configurations: Iterable[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Axis-aligned box around every body, frame and overlay over the configurations."""
        lows, highs = [], []
        for q in configurations:
            poses = self.plot_poses(q)
            points = [np.array([p[:3, 3] for p in poses.values()])]
            triangles = self.world_triangles(poses)
            if len(triangles):
                points.append(triangles.reshape(-1, 3))
            for overlay in self.overlays:
                points += [overlay.triangles.reshape(-1, 3), overlay.segments.reshape(-1, 3)]
            stacked = np.concatenate(points)
            lows.append(stacked.min(axis=0))
            highs.append(stacked.max(axis=0))
        return np.min(lows, axis=0), np.max(highs, axis=0)

    def fit_camera(self, low: np.ndarray, high: np.ndarray) -> None:
        """A cube around the box, so metres look the same along x, y and z."""
        centre = (low + high) / 2
        half = max(float(np.max(high - low)) / 2 * 1.08, 0.05)
        for setter, c in zip((self.axes.set_xlim, self.axes.set_ylim, self.axes.set_zlim),
                             centre):
            setter(c - half, c + half)
        self.axes.set_box_aspect((1, 1, 1), zoom=0.95)
        for setter, name in zip((self.axes.set_xlabel, self.axes.set_ylabel,
                                 self.axes.set_zlabel), self.axis_names):
            setter(f'{name} (m)', fontsize=8)
        self.axes.tick_params(labelsize=7)
        self.frame_length = max(min(0.06 * 2 * half, self._typical_body_size()), 1e-3)

    def _typical_body_size(self) -> float:
        """Median shape diameter: frame axes that long stay readable next to small bodies."""
        sizes = [float(np.ptp(s.triangles.reshape(-1, 3), axis=0).max()) for s in self.shapes]
        sizes = [size for size in sizes if size > 0]
        return 0.75 * float(np.median(sizes)) if sizes else math.inf

    def draw(self, q: np.ndarray, title: str) -> None:
        """Pose the bodies and frame axes at configuration ``q`` and render the figure."""
        poses = self.plot_poses(q)
        triangles = self.world_triangles(poses)
        self._bodies.set_verts(list(triangles))
        self._bodies.set_facecolor(_shade(triangles, self._base_colours))
        self._draw_frames(poses)
        self.axes.set_title(title, fontsize=10)

    def _draw_frames(self, poses: Mapping[str, np.ndarray]) -> None:
        for label in self._labels:
            label.remove()
        self._labels = []
        if not self.options.show_frames:
            self._axes_lines.set_segments([])
            return
        segments, colours = [], []
        for name in self.tree.frame_names():
            pose = poses[name]
            for axis, colour in zip(range(3), ((0.9, 0.1, 0.1, 1), (0.1, 0.75, 0.1, 1),
                                               (0.15, 0.3, 0.95, 1))):
                segments.append((pose[:3, 3], pose[:3, 3] + self.frame_length * pose[:3, axis]))
                colours.append(colour)
            if self.options.frame_labels and name:
                self._labels.append(self.axes.text(*pose[:3, 3], f' {name}', fontsize=6,
                                                   zorder=5))
        self._axes_lines.set_segments(segments)
        self._axes_lines.set_color(colours)

    def rgba(self) -> np.ndarray:
        """The rendered picture as an H×W×4 uint8 array."""
        self.canvas.draw()
        return np.asarray(self.canvas.buffer_rgba()).copy()


def _shade(triangles: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """Flat, two-sided Lambert shading: faces turned to the light are brighter."""
    if len(triangles) == 0:
        return colours
    normals = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    lengths = np.linalg.norm(normals, axis=1)
    lengths[lengths == 0] = 1.0
    intensity = 0.3 + 0.7 * np.abs(normals @ _LIGHT) / lengths
    shaded = colours.copy()
    shaded[:, :3] = np.clip(colours[:, :3] * intensity[:, None], 0.0, 1.0)
    return shaded


# --- entry points ---------------------------------------------------------------------------------

def default_title(result: LoadResult, q: np.ndarray, extra: str = '') -> str:
    """``file (format): N DoF`` plus the values that differ from the initial configuration."""
    assert result.tree is not None
    tree = result.tree
    q0 = tree.positions_vector()
    changed = [f'{name}={value:.3g}' for name, value, start in zip(tree.dof_names, q, q0)
               if abs(value - start) > 1e-12]
    shown = ', '.join(changed[:4]) + (f', ... ({len(changed)} set)' if len(changed) > 4 else '')
    name = Path(result.path).name
    return (f'{name} ({result.format}{" world" if result.scene.is_world else ""}, '
            f'{len(tree.dof_names)} DoF){": " + shown if shown else ""}{extra}')


def _write_check(output: str | os.PathLike, suffixes: tuple[str, ...]) -> Path:
    path = Path(output)
    if path.suffix.lower() not in suffixes:
        raise InvalidValueError(f'the output must end in {" or ".join(suffixes)}', str(path))
    if not path.parent.is_dir():
        raise FormatError(f'cannot write output: directory {str(path.parent)!r} does not exist',
                          str(path))
    return path


def render_picture(result: LoadResult, output: str | os.PathLike,
                   q: np.ndarray | Mapping[str, float] | None = None,
                   options: RenderOptions = RenderOptions(),
                   overlays: Sequence[Overlay] = ()) -> RenderReport:
    """Draw ``result`` at configuration ``q`` (initial configuration when None) into a PNG."""
    start = time.perf_counter()
    path = _write_check(output, ('.png',))
    assert result.tree is not None
    vector = _as_vector(result.tree, q)
    renderer = Renderer(result, options, overlays)
    renderer.fit_camera(*renderer.bounds([vector]))
    renderer.draw(vector, options.title or default_title(result, vector))
    with replacing(path) as stream:
        renderer.figure.savefig(stream, format='png', dpi=100)
    return RenderReport(str(path), time.perf_counter() - start, renderer.triangles, 1,
                        (*result.warnings, *renderer.warnings))


def render_animation(result: LoadResult, trajectory: Trajectory, output: str | os.PathLike,
                     options: RenderOptions = RenderOptions(),
                     overlays: Sequence[Overlay] = (), label: str = '') -> RenderReport:
    """Draw a motion into an animated GIF: one picture per 1/fps s of motion time (at most
    ``options.max_frames``, spread evenly), with a camera that fits the whole motion."""
    from PIL import Image  # matplotlib depends on Pillow

    start = time.perf_counter()
    path = _write_check(output, ('.gif',))
    assert result.tree is not None
    tree = result.tree
    duration = float(trajectory.duration)
    if not math.isfinite(duration) or duration < 0:
        raise InvalidValueError(f'the motion has an unusable duration {duration!r}', label or None)
    count = max(2, min(options.max_frames, int(duration * options.fps) + 1))
    times = np.linspace(0.0, duration, count)
    configurations = [_as_vector(tree, trajectory.positions(float(t))) for t in times]
    renderer = Renderer(result, options, overlays)
    renderer.fit_camera(*renderer.bounds(configurations[::max(1, count // 12)]
                                         + [configurations[-1]]))
    pictures = []
    base = options.title or f'{Path(result.path).name}{": " + label if label else ""}'
    for t, q in zip(times, configurations):
        renderer.draw(q, f'{base}  t = {t:.2f} s')
        pictures.append(Image.fromarray(renderer.rgba()).convert('RGB').quantize(
            colors=64, method=Image.Quantize.MEDIANCUT))
    milliseconds = int(round(1000 * duration / (count - 1))) if duration > 0 else 100
    with replacing(path) as stream:
        pictures[0].save(stream, format='GIF', save_all=True, append_images=pictures[1:],
                         loop=0, duration=max(milliseconds, 20), optimize=True)
    return RenderReport(str(path), time.perf_counter() - start, renderer.triangles, count,
                        (*result.warnings, *renderer.warnings))


def _as_vector(tree: KinematicTree,
               q: np.ndarray | Mapping[str, float] | Sequence[float] | None) -> np.ndarray:
    if q is None or isinstance(q, Mapping):
        return tree.positions_vector(q)
    vector = np.asarray(q, dtype=float)
    if vector.shape != (len(tree.dof_names),):
        raise ValueError(f'expected {len(tree.dof_names)} positions, got {vector.size}')
    return vector

