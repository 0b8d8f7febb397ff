"""Mesh files: where a mesh URI points, and the triangles a mesh file holds.

One module for every reader of meshes (rendering, the MuJoCo simulation's collision boxes,
DART's shape inertia in SKEL), so a mesh means the same everywhere:

* URIs (:func:`mesh_uri` as a reader keeps them, :func:`resolve_mesh_path` to a file):
  ``file://``, plain paths (relative to the describing file, as urdfdom and libsdformat read
  them) and ``package://PKG/...`` (``$AMENT_PREFIX_PATH``/share, ``$ROS_PACKAGE_PATH``, read
  from the environment: the core does not import ROS);
* ``package://`` and ``model://`` URIs stay inside their package or model directory
  (:func:`inside_root`, also SDFormat's include resolver's rule): ``..`` cannot leave it;
* Wavefront OBJ and STL (binary or ASCII) are read here with numpy (importing trimesh costs
  about 0.3 s);
* Collada (``.dae``), the most common mesh format of ROS description packages, through pycollada
  (via trimesh), after the document passed robot_formats' safe XML parser (no DTD, no entities):
  every geometry instance of the visual scene placed by its node transforms, scaled by the
  ``<asset><unit meter>`` factor as Gazebo, rviz and DART apply it; ``<up_axis>`` is not applied
  (DART does not apply it either, measured with dartpy);
* PLY, OFF and binary glTF (``.glb``) through trimesh; compressed archives (zip, zae, tar) and
  glTF files with external buffers are not read (they would unpack or open more files).

Every mesh file is read by the guarded reader (:func:`robot_formats.core.files.read_input`):
a regular file of at most :data:`~robot_formats.core.limits.MAX_MESH_BYTES`, checked before it
is decoded; decoders get the bytes, never the path. Errors are ``MeshError`` (a
``FileNotFoundError``: callers treat an unreadable mesh as a missing one) with the file and the
reason, never with the file's content (a mesh URI may name any file).
"""

from __future__ import annotations

import functools
import io
import os
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import unquote, urlparse

from robot_formats.core.errors import FormatError, UnsafeXmlError
from robot_formats.core.files import is_regular_file, read_input
from robot_formats.core.lazy import numpy_on_first_use
from robot_formats.core.limits import MAX_MESH_BYTES

if TYPE_CHECKING:
    import numpy as np
else:
    np = numpy_on_first_use(globals())

__all__ = ['MeshError', 'mesh_uri', 'inside', 'inside_root', 'resolve_mesh_path', 'read_mesh',
           'mesh_bounds', 'collada_unit', 'MESH_FORMATS']

#: Mesh file extensions read, and by what.
MESH_FORMATS = {'.obj': 'OBJ', '.stl': 'STL', '.dae': 'Collada', '.ply': 'PLY', '.off': 'OFF',
                '.glb': 'binary glTF'}


class MeshError(FileNotFoundError):
    """A mesh file that cannot be found or read."""


class _Malformed(ValueError):
    """A mesh file's content is not what its format says; the message quotes none of it."""


def mesh_uri(filename: str, base_dir: Path | Callable[[], Path | None] | None) -> str:
    """A URI rviz can open: relative and plain absolute paths become ``file://`` URIs (a
    relative path resolved against ``base_dir`` with its symbolic links, a loop of them left
    as written); a URI with a scheme stays as written. ``base_dir`` may be given as the
    function that works it out, called only for a relative path (resolving a folder costs a
    system call per directory, and most documents name their meshes by URI)."""
    if _scheme(filename):
        return filename
    path = Path(filename)
    if not path.is_absolute():
        folder = base_dir() if callable(base_dir) else base_dir
        if folder is None:
            return filename
        try:
            path = Path(os.path.realpath(folder / path))
        except (OSError, ValueError):  # a name the OS refuses: kept as written
            return filename
    return path.as_uri() if path.is_absolute() else filename


def _scheme(uri: str) -> str:
    """The URI's scheme in lower case, '' for a plain path (and for text urlparse refuses)."""
    try:
        return urlparse(uri).scheme.lower()
    except ValueError:  # e.g. an unbalanced '[' where a host would be
        return ''


def inside(relative: str) -> str | None:
    """``relative`` with ``..`` resolved by name when it stays inside the directory it is
    relative to, else None (more ``..`` than levels, an absolute path): the rule of
    ``package://`` and ``model://`` URIs, which name a file of a package or a model. By name,
    not through the file system: a package installed with ``colcon build --symlink-install``
    is made of symbolic links into its source tree, and those stay readable."""
    normal = posixpath.normpath(relative) if relative else '.'
    if normal.startswith('/') or normal == '..' or normal.startswith('../'):
        return None
    return normal


def inside_root(root: Path, relative: str) -> Path | None:
    """``root / relative`` when ``relative`` stays inside ``root`` (:func:`inside`), else
    None."""
    normal = inside(relative)
    return None if normal is None else root / normal


def resolve_mesh_path(uri: str, base_dir: Path | None = None) -> Path:
    """The local file of a mesh URI: ``file://``, plain paths, and ``package://PKG/...``.

    ``package://`` is looked up in ``$AMENT_PREFIX_PATH``/share and ``$ROS_PACKAGE_PATH`` (read
    from the environment: the core library does not import ROS), then in this repository when
    PKG is robot_formats, and never leaves the package's directory (:func:`inside_root`).
    Raises MeshError (a FileNotFoundError) naming what was tried or why it is refused.
    """
    try:
        parsed = urlparse(uri)
    except ValueError:
        raise MeshError(f'mesh {uri!r}: not a valid URI') from None
    scheme = parsed.scheme.lower()
    if scheme == 'file':
        candidates = [Path(unquote(parsed.path))]
    elif scheme == 'package':
        candidates = _package_candidates(uri, parsed.netloc, unquote(parsed.path).lstrip('/'))
    elif scheme:
        raise MeshError(f'mesh {uri!r}: unsupported URI scheme {parsed.scheme!r}')
    else:
        path = Path(uri)
        candidates = [path if path.is_absolute() or base_dir is None else base_dir / path]
    for candidate in candidates:
        if is_regular_file(candidate):
            return candidate
    raise MeshError(f'mesh {uri!r} not found')


def _package_candidates(uri: str, package: str, relative: str) -> list[Path]:
    roots = [Path(p) / 'share' / package
             for p in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p]
    roots += [Path(p) / package
              for p in os.environ.get('ROS_PACKAGE_PATH', '').split(os.pathsep) if p]
    if package == 'robot_formats':
        roots.append(Path(__file__).resolve().parent.parent)
    normal = inside(relative)
    if normal is None:
        raise MeshError(f'mesh {uri!r}: the path leaves the directory of package {package!r} '
                        '(a package:// URI names a file inside its package)')
    return [root / normal for root in roots]


def read_mesh(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """(vertices N×3, triangles M×3 indices) of a mesh file, in metres (Collada's unit applied).

    Raises:
        MeshError: the file cannot be read (not a regular file, larger than
            :data:`~robot_formats.core.limits.MAX_MESH_BYTES`, not a mesh of its format, an
            unsupported format) or holds no triangles.
    """
    path = str(path)
    suffix = Path(path).suffix.lower()
    kind = MESH_FORMATS.get(suffix)
    if kind is None:
        raise MeshError(f'mesh {path!r}: unsupported mesh format {suffix or "(no extension)"!r} '
                        f'(robot_formats reads {", ".join(MESH_FORMATS)})')
    try:
        data = read_input(path, MAX_MESH_BYTES)
    except FormatError as err:
        raise MeshError(f'mesh {path!r} could not be read: {err.message}') from None
    try:
        if suffix == '.obj':
            vertices, faces = _read_obj(data)
        elif suffix == '.stl':
            vertices, faces = _read_stl(data)
        elif suffix == '.dae':
            vertices, faces = _read_collada(data, path)
        else:
            vertices, faces = _read_with_trimesh(data, suffix[1:])
    except _Malformed as err:
        raise MeshError(f'mesh {path!r} could not be read: {err}') from None
    except (ValueError, IndexError, OverflowError, MemoryError):  # quoting none of the file
        raise MeshError(f'mesh {path!r} could not be read: not a valid {kind} file') from None
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
    return (tuple(vertices.min(axis=0).tolist()),
            tuple(vertices.max(axis=0).tolist()))


def _read_obj(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Wavefront OBJ: ``v`` lines and ``f`` polygons (``i``, ``i/t``, ``i/t/n``, ``i//n``,
    negative = relative to the end), polygons cut into fans."""
    vertices, faces = [], []
    for line in data.decode('utf-8', errors='replace').splitlines():
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
        raise _Malformed('a face refers to a vertex that does not exist')
    return array, indices


def _read_stl(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """STL, binary (80-byte header, count, 50 bytes per triangle) or ASCII (``vertex`` lines)."""
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
        raise _Malformed('an ASCII STL facet does not have three vertices')
    return corners, np.arange(len(corners), dtype=np.int64).reshape(-1, 3)


def _read_with_trimesh(data: bytes, file_type: str) -> tuple[np.ndarray, np.ndarray]:
    """A mesh trimesh decodes from ``data`` (never from a path: it opens no other file)."""
    import trimesh  # only for formats read nowhere else: it takes ~0.3 s to import
    try:
        mesh: Any = trimesh.load(io.BytesIO(data), file_type=file_type, force='mesh',
                                 process=False)  # a Trimesh
        vertices = np.asarray(mesh.vertices, dtype=float)
        faces = np.asarray(mesh.faces, dtype=np.int64)
    except Exception as err:  # noqa: BLE001 - trimesh raises many types for bad files
        raise _Malformed(f'trimesh could not decode it ({type(err).__name__})') from None
    if vertices.ndim != 2 or vertices.shape[1:] != (3,) or (
            len(faces) and (faces.min() < 0 or faces.max() >= len(vertices))):
        raise _Malformed('trimesh decoded no triangle mesh from it')
    return vertices, faces


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


def _read_collada(data: bytes, path: str) -> tuple[np.ndarray, np.ndarray]:
    """A Collada file: checked by the safe parser first (pycollada would expand entities), then
    read by pycollada through trimesh, scaled by its unit."""
    from robot_formats.core.xmlsafe import parse_xml_bytes
    try:
        root = parse_xml_bytes(data, path)
    except UnsafeXmlError:
        raise _Malformed('the document declares a DTD or entities, which are not read') from None
    except FormatError as err:  # (its message may quote the file: a mesh is no document)
        raise _Malformed(f'not well-formed XML (line {err.line or 1})') from None
    vertices, faces = _read_with_trimesh(data, 'dae')
    return vertices * collada_unit(root), faces
