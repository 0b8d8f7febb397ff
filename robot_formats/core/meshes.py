"""Mesh files: where a mesh URI points, and the triangles a mesh file holds.

One module for every reader of meshes (rendering, the MuJoCo simulation's collision boxes,
DART's shape inertia in SKEL), so a mesh means the same everywhere:

* URIs: ``file://``, plain paths (relative to the describing file) and ``package://PKG/...``
  (``$AMENT_PREFIX_PATH``/share, ``$ROS_PACKAGE_PATH``, read from the environment: the core does
  not import ROS);
* Wavefront OBJ and STL (binary or ASCII) are read here with numpy (importing trimesh costs
  about 0.3 s);
* Collada (``.dae``), the most common mesh format of ROS description packages, through pycollada
  (via trimesh), after the document passed robot_formats' safe XML parser (no DTD, no entities):
  every geometry instance of the visual scene placed by its node transforms, scaled by the
  ``<asset><unit meter>`` factor as Gazebo, rviz and DART apply it; ``<up_axis>`` is not applied
  (DART does not apply it either, measured with dartpy);
* every other format trimesh reads (PLY, GLB, ...) through trimesh.

Errors are ``MeshError`` (a ``FileNotFoundError``: callers treat an unreadable mesh as a
missing one) with the file and the reason.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import numpy as np

__all__ = ['MeshError', 'resolve_mesh_path', 'read_mesh', 'mesh_bounds', 'collada_unit']


class MeshError(FileNotFoundError):
    """A mesh file that cannot be found or read."""


def resolve_mesh_path(uri: str, base_dir: Path | None = None) -> Path:
    """The local file of a mesh URI: ``file://``, plain paths, and ``package://PKG/...``.

    ``package://`` is looked up in ``$AMENT_PREFIX_PATH``/share and ``$ROS_PACKAGE_PATH`` (read
    from the environment: the core library does not import ROS), then in this repository when
    PKG is robot_formats. Raises FileNotFoundError naming what was tried.
    """
    parsed = urlparse(uri)
    if parsed.scheme == 'file':
        candidates = [Path(unquote(parsed.path))]
    elif parsed.scheme == 'package':
        package, relative = parsed.netloc, unquote(parsed.path).lstrip('/')
        roots = [Path(p) / 'share' / package
                 for p in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p]
        roots += [Path(p) / package
                  for p in os.environ.get('ROS_PACKAGE_PATH', '').split(os.pathsep) if p]
        if package == 'robot_formats':
            roots.append(Path(__file__).resolve().parent.parent)
        candidates = [root / relative for root in roots]
    elif parsed.scheme:
        raise MeshError(f'mesh {uri!r}: unsupported URI scheme {parsed.scheme!r}')
    else:
        path = Path(uri)
        candidates = [path if path.is_absolute() or base_dir is None else base_dir / path]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise MeshError(f'mesh {uri!r} not found')


def read_mesh(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """(vertices N×3, triangles M×3 indices) of a mesh file, in metres (Collada's unit applied).

    Raises:
        MeshError: the file cannot be read or holds no triangles.
    """
    path = str(path)
    suffix = Path(path).suffix.lower()
    try:
        if suffix == '.obj':
            vertices, faces = _read_obj(path)
        elif suffix == '.stl':
            vertices, faces = _read_stl(path)
        elif suffix == '.dae':
            vertices, faces = _read_collada(path)
        else:
            vertices, faces = _read_with_trimesh(path)
    except (OSError, ValueError, IndexError) as err:
        raise MeshError(f'mesh {path!r} could not be read: {err}') from err
    if len(faces) == 0:
        raise MeshError(f'mesh {path!r} has no triangles')
    return vertices, faces


def mesh_bounds(path: str) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """(lowest corner, highest corner) of a mesh file's vertices, unscaled; read once per
    version of the file (a file changed on disk is read again)."""
    try:
        status = os.stat(path)
    except OSError as err:
        raise MeshError(f'mesh {path!r} could not be read: {err.strerror or err}') from None
    return _bounds(path, status.st_mtime_ns, status.st_size)


@functools.lru_cache(maxsize=256)
def _bounds(path: str, _mtime: int, _size: int
            ) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    vertices, _ = read_mesh(path)
    return (tuple(vertices.min(axis=0).tolist()),  # type: ignore[return-value]
            tuple(vertices.max(axis=0).tolist()))


def _read_obj(path: str) -> tuple[np.ndarray, np.ndarray]:
    """Wavefront OBJ: ``v`` lines and ``f`` polygons (``i``, ``i/t``, ``i/t/n``, ``i//n``,
    negative = relative to the end), polygons cut into fans."""
    vertices, faces = [], []
    with open(path, encoding='utf-8', errors='replace') as stream:
        for line in stream:
            if line.startswith('v '):
                vertices.append(line.split()[1:4])
            elif line.startswith('f '):
                corners = [int(token.split('/')[0]) for token in line.split()[1:]]
                count = len(vertices)
                corners = [c - 1 if c > 0 else count + c for c in corners]
                faces += [(corners[0], corners[k], corners[k + 1])
                          for k in range(1, len(corners) - 1)]
    array = np.asarray(vertices, dtype=float).reshape(-1, 3)
    indices = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    if len(indices) and (indices.min() < 0 or indices.max() >= len(array)):
        raise ValueError('a face refers to a vertex that does not exist')
    return array, indices


def _read_stl(path: str) -> tuple[np.ndarray, np.ndarray]:
    """STL, binary (80-byte header, count, 50 bytes per triangle) or ASCII (``vertex`` lines)."""
    data = Path(path).read_bytes()
    if len(data) >= 84:
        count = int(np.frombuffer(data, '<u4', 1, 80)[0])
        if len(data) == 84 + 50 * count:
            records = np.frombuffer(data, np.dtype([('normal', '<f4', 3), ('corners', '<f4', 9),
                                                    ('attribute', '<u2')]), count, 84)
            corners = records['corners'].astype(float).reshape(-1, 3)
            return corners, np.arange(len(corners), dtype=np.int64).reshape(-1, 3)
    text = data.decode('ascii', errors='replace')
    corners = np.array([line.split()[1:4] for line in text.splitlines()
                        if line.lstrip().startswith('vertex')], dtype=float).reshape(-1, 3)
    if len(corners) % 3:
        raise ValueError('an ASCII STL facet does not have three vertices')
    return corners, np.arange(len(corners), dtype=np.int64).reshape(-1, 3)


def _read_with_trimesh(path: str) -> tuple[np.ndarray, np.ndarray]:
    import trimesh  # only for formats read nowhere else: it takes ~0.3 s to import
    try:
        mesh: Any = trimesh.load(path, force='mesh', process=False)  # a Trimesh
    except Exception as err:  # noqa: BLE001 - trimesh raises many types for bad files
        raise ValueError(str(err)) from err
    return np.asarray(mesh.vertices, dtype=float), np.asarray(mesh.faces, dtype=np.int64)


def collada_unit(root) -> float:
    """``<asset><unit meter>`` of a parsed Collada document (1 when absent or unreadable)."""
    for asset in root.iterchildren('{*}asset'):
        for unit in asset.iterchildren('{*}unit'):
            try:
                value = float(unit.get('meter', '1'))
            except ValueError:
                return 1.0
            return value if np.isfinite(value) and value > 0 else 1.0
    return 1.0


def _read_collada(path: str) -> tuple[np.ndarray, np.ndarray]:
    """A Collada file: checked by the safe parser first (pycollada would expand entities), then
    read by pycollada through trimesh, scaled by its unit."""
    from robot_formats.core.errors import FormatError
    from robot_formats.core.xmlsafe import read_xml
    try:
        root = read_xml(path)
    except FormatError as err:
        raise ValueError(err.message) from None
    vertices, faces = _read_with_trimesh(path)
    return vertices * collada_unit(root), faces


