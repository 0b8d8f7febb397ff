"""SKEL shapes: ``<geometry>`` into model geometries, and DART's shape inertia.

DART conventions kept here: ``<ellipsoid><size>`` is the three *diameters* (the model stores
radii, so size/2); cylinders, capsules and cones use ``<height>``; a ``<multi_sphere>`` is
several spheres, each at its ``<position>`` (one model visual per sphere); a ``<plane>``'s
``<offset>`` (or ``<point>``) moves it along its normal, baked into the visual's origin.
A ``<soft_shape>`` is a visual and collision of its base shape, and its skin parameters are kept
in ``Link.soft`` (:func:`soft_body`).

Inertia when ``<inertia>`` has no ``<moment_of_inertia>``: DART treats all the body's non-soft
shapes as one solid, sharing the mass by volume, each shape's inertia rotated into the body
frame and moved to the COM. In that sharing DART 6.20 weighs a plane and a multi-sphere as
volume 1 (measured with dartpy: a plane alone is a point mass at its origin, a 2 m box next to a
multi-sphere takes 8/9 of the mass); a plane has no inertia of its own, a multi-sphere the box
of its bounding extents, a mesh that of its bounding box (any format
:mod:`robot_formats.core.meshes` reads); a mesh that cannot be read falls back to identity with a
warning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import unquote, urlparse

from lxml import etree

from robot_formats.core import meshes
from robot_formats.core.errors import InvalidValueError, SchemaError
from robot_formats.core.files import is_regular_file
from robot_formats.core.model import (Box, Capsule, Cone, Cylinder, Ellipsoid, Geometry, Mesh,
                                      Plane, Pose, SoftBody, Sphere, Vec3, vec3)
from robot_formats.core.xmlsafe import local_name
from robot_formats.formats.skel.rigid import IDENTITY, Rigid, translation
from robot_formats.formats.skel.values import (SkelContext, child, children, require,
                                               tagged_children)

__all__ = ['read_geometry', 'shape_inertia', 'shape_volume', 'mesh_extents', 'mesh_bounds',
           'MeshBounds', 'MultiSphere', 'Pyramid', 'soft_body', 'SHAPE_PRIORITY']


@dataclass(frozen=True, slots=True)
class MultiSphere:
    """Marker for a multi-sphere's inertia: DART uses the box of its bounding extents."""

    extents: tuple[float, float, float]

@dataclass(frozen=True, slots=True)
class Pyramid:
    """Marker for a pyramid's inertia: DART 6.20 gives it the identity moment (its
    ``computeInertia`` is not implemented) and its volume (base × height / 3) in mass sharing."""

    sides: tuple[float, float, float]  #: base width, base depth, height


@dataclass(frozen=True, slots=True)
class MeshBounds:
    """A mesh for DART's inertia: the box of its scaled bounding extents (read once per load,
    see :func:`mesh_bounds`)."""

    extents: tuple[float, float, float]


#: What a soft shape's geometry must also name (DART 6.20 throws without them; the old soft
#: syntax of DART 4 lacks them, which is why three upstream test files no longer load).
_SOFT_EXTRA = {'box': ('frags',), 'ellipsoid': ('num_slices', 'num_stacks'),
               'sphere': ('num_slices', 'num_stacks'),
               'cylinder': ('num_slices', 'num_stacks', 'num_rings')}


#: DART 6.20's shape priority: a ``<geometry>`` naming several shapes builds the first of
#: these it holds, whatever their order in the file (measured with dartpy, pair by pair).
SHAPE_PRIORITY = ('sphere', 'box', 'ellipsoid', 'cylinder', 'capsule', 'cone', 'pyramid',
                  'plane', 'multi_sphere', 'mesh')
_SHAPES = frozenset(SHAPE_PRIORITY)


def _size_value(ctx: SkelContext, element: etree._Element, tag: str, default: float = 1.0) -> float:
    """A radius, height or base length: DART's shapes ignore a value that is not positive and
    keep their default (1 m), so a zero or negative one becomes that, with a warning."""
    sub = require(ctx, element, tag)
    value = ctx.number(sub)
    if value <= 0:
        ctx.warn(f'<{tag}> {value:g} is not positive; DART 6.20 ignores it and keeps its '
             f'default of {default:g} m', sub.sourceline, 'SKEL_INVALID_SIZE')
        return default
    return value


def _size(ctx: SkelContext, element: etree._Element) -> tuple[float, float, float]:
    """A box's sides or an ellipsoid's diameters: DART ignores the whole vector when one entry
    is not positive and keeps its default (1 1 1), with a warning here."""
    sub = require(ctx, element, 'size')
    size = ctx.vector(sub, 3)
    if min(size) <= 0:
        ctx.warn(f'<size> {" ".join(f"{v:g}" for v in size)} has a side that is not '
             'positive; DART 6.20 ignores it and keeps its default of 1 1 1', sub.sourceline,
             'SKEL_INVALID_SIZE')
        return (1.0, 1.0, 1.0)
    return size


def _shape_element(ctx: SkelContext, geometry: etree._Element) -> tuple[str, etree._Element]:
    """The shape DART builds from a ``<geometry>``, with its local name: the first of
    :data:`SHAPE_PRIORITY` it holds. Other children (a ``<color>`` written inside
    ``<geometry>``) are no shapes: DART reads past them, and so does this reader, with a
    warning; so for a second shape."""
    shapes: dict[str, etree._Element] = {}
    count = 0
    for name, sub in tagged_children(geometry):
        if name in _SHAPES:
            shapes.setdefault(name, sub)
            count += 1
            continue
        ctx.warn(f'<{name}> inside <geometry> is not a shape; ignored, as DART ignores it',
             sub.sourceline, 'SKEL_UNKNOWN_ELEMENT')
    if not shapes:
        unknown = next(tagged_children(geometry), None)
        if unknown is None:
            raise SchemaError('<geometry> holds no shape', ctx.file, geometry.sourceline)
        raise SchemaError(f'unknown shape <{unknown[0]}> (SKEL shapes: '
                          f'{", ".join(SHAPE_PRIORITY)}; DART crashes on this file)', ctx.file,
                          unknown[1].sourceline)
    kind = next(name for name in SHAPE_PRIORITY if name in shapes)
    if count > 1:
        ctx.warn(f'<geometry> holds several shapes; DART 6.20 builds the <{kind}> (its order: '
                 f'{", ".join(SHAPE_PRIORITY)}) and ignores the others', geometry.sourceline,
                 'SKEL_SEVERAL_SHAPES')
    return kind, shapes[kind]


def read_geometry(ctx: SkelContext, holder: etree._Element, geometry: etree._Element | None,
                  soft: bool = False) -> tuple[list[tuple[Geometry, Rigid]], object]:
    """The shapes of a ``<visualization_shape>``/``<collision_shape>``/``<soft_shape>`` whose
    first ``<geometry>`` is ``geometry`` (None: it has none, an error): (geometry, offset in
    the shape frame) pairs, several for a multi-sphere, none for a pyramid (the model has no
    pyramid), and the geometry DART computes the shape's inertia from (the first piece's, a
    :class:`MultiSphere` for a multi-sphere, a :class:`Pyramid` for a pyramid)."""
    if geometry is None:  # raises
        geometry = require(ctx, holder, 'geometry')
    kind, shape = _shape_element(ctx, geometry)
    if soft:
        for extra in _SOFT_EXTRA.get(kind, ()):
            if child(shape, extra) is None:
                raise SchemaError(f'soft <{kind}> needs <{extra}> (this looks like the old '
                                  'soft-body syntax, which DART 6 no longer reads)', ctx.file,
                                  shape.sourceline)
        if kind not in _SOFT_EXTRA:
            raise SchemaError('a <soft_shape> is a box, ellipsoid, sphere or cylinder, not '
                              f'<{kind}>', ctx.file, shape.sourceline)
    here = IDENTITY
    solid: Geometry
    if kind == 'box':
        solid = Box(_size(ctx, shape))
        return [(solid, here)], solid
    if kind == 'ellipsoid':
        size = _size(ctx, shape)
        solid = Ellipsoid((size[0] / 2.0, size[1] / 2.0, size[2] / 2.0))
        return [(solid, here)], solid
    if kind == 'sphere':
        solid = Sphere(_size_value(ctx, shape, 'radius'))
        return [(solid, here)], solid
    if kind in ('cylinder', 'capsule', 'cone'):
        radius = _size_value(ctx, shape, 'radius')
        height = _size_value(ctx, shape, 'height')
        solid = (Cylinder(radius, height) if kind == 'cylinder' else
                 Capsule(radius, height) if kind == 'capsule' else Cone(radius, height))
        return [(solid, here)], solid
    if kind == 'pyramid':
        width, depth, height = (_size_value(ctx, shape, tag)
                                for tag in ('base_width', 'base_depth', 'height'))
        ctx.warn('a <pyramid> has no counterpart in the robot model: left out of the visuals '
             "and collisions (its share of DART's inertia is kept)", shape.sourceline,
             'SKEL_UNSUPPORTED_SHAPE')
        return [], Pyramid((width, depth, height))
    if kind == 'plane':
        piece = _plane(ctx, shape)
        return [piece], piece[0]
    if kind == 'mesh':
        solid = _mesh(ctx, shape)
        return [(solid, here)], solid
    spheres = list(children(shape, 'sphere'))  # multi_sphere
    if not spheres:
        raise SchemaError('<multi_sphere> needs at least one <sphere>', ctx.file,
                          shape.sourceline)
    out: list[tuple[Geometry, Rigid]] = []
    radii: list[tuple[float, Rigid]] = []
    for sphere in spheres:
        position = child(sphere, 'position')
        offset = translation(*ctx.vector(position, 3)) if position is not None else IDENTITY
        radius_el = require(ctx, sphere, 'radius')
        radius = ctx.number(radius_el)
        if radius < 0:
            ctx.warn(f'<radius> {radius:g} is negative; drawn with its magnitude (DART keeps '
                 'it in its bounding box)', radius_el.sourceline, 'SKEL_INVALID_SIZE')
        out.append((Sphere(abs(radius)), offset))
        radii.append((radius, offset))
    extents = vec3([max(o[axis] + r for r, o in radii) - min(o[axis] - r for r, o in radii)
                    for axis in (9, 10, 11)])  # the translation's x, y, z
    return out, MultiSphere(extents)


def _mesh(ctx: SkelContext, shape: etree._Element) -> Mesh:
    """A ``<mesh>``: ``<file_name>`` and ``<scale>``, both required (DART refuses a mesh without
    a scale). A file that does not exist is a warning: DART crashes on it; the frames do not
    depend on it."""
    name_el = require(ctx, shape, 'file_name')
    filename = (name_el.text or '').strip()
    if not filename:
        raise SchemaError('<file_name> is empty', ctx.file, name_el.sourceline)
    scale = ctx.vector(require(ctx, shape, 'scale', '<mesh> (DART reads no mesh without it)'), 3)
    uri = ctx.uri(filename)
    if uri.startswith('file://') and not is_regular_file(urlparse(uri).path):
        ctx.warn(f'mesh file {filename!r} does not exist (DART 6.20 crashes on this file); '
             'kept as written', name_el.sourceline, 'SKEL_MISSING_MESH')
    return Mesh(uri, scale)


def _plane(ctx: SkelContext, shape: etree._Element) -> tuple[Geometry, Rigid]:
    normal_el = require(ctx, shape, 'normal')
    x, y, z = ctx.vector(normal_el, 3)
    norm = math.hypot(x, y, z)
    if norm < 1e-12:
        raise InvalidValueError('plane <normal> has zero length', ctx.file, normal_el.sourceline)
    x, y, z = x / norm, y / norm, z / norm
    offset_el, point_el = child(shape, 'offset'), child(shape, 'point')
    if offset_el is not None:
        offset = ctx.number(offset_el)
    elif point_el is not None:
        px, py, pz = ctx.vector(point_el, 3)
        offset = x * px + y * py + z * pz
    else:
        offset = 0.0
    return Plane((x, y, z)), translation(x * offset, y * offset, z * offset)


def shape_inertia(geometry: object, mass: float, placement: Rigid, com: Vec3
                  ) -> tuple[float, float, float, float, float, float] | None:
    """Inertia (ixx, ixy, ixz, iyy, iyz, izz) about the body's centre of mass ``com`` of a
    solid shape of ``mass`` placed at ``placement`` (4×4, body frame), as DART computes it when
    ``<inertia>`` has no ``<moment_of_inertia>``: the shape's principal moments rotated into
    the body frame (R · diag · Rᵀ), then moved from the shape origin to the COM (parallel axes,
    m (|d|² I − d dᵀ)). Plain floats: a 3×3 is too small for numpy to pay off, and overflow
    gives inf rather than an exception. None when we cannot compute it."""
    principal = _local_inertia(geometry, mass)
    if principal is None:
        return None
    a, b, c = principal
    r00, r01, r02, r10, r11, r12, r20, r21, r22, px, py, pz = placement
    dx, dy, dz = px - com[0], py - com[1], pz - com[2]
    dd = dx * dx + dy * dy + dz * dz
    return (a * r00 * r00 + b * r01 * r01 + c * r02 * r02 + mass * (dd - dx * dx),
            a * r00 * r10 + b * r01 * r11 + c * r02 * r12 - mass * dx * dy,
            a * r00 * r20 + b * r01 * r21 + c * r02 * r22 - mass * dx * dz,
            a * r10 * r10 + b * r11 * r11 + c * r12 * r12 + mass * (dd - dy * dy),
            a * r10 * r20 + b * r11 * r21 + c * r12 * r22 - mass * dy * dz,
            a * r20 * r20 + b * r21 * r21 + c * r22 * r22 + mass * (dd - dz * dz))


def _box(size, m: float) -> tuple[float, float, float]:
    x, y, z = size
    return (m / 12 * (y * y + z * z), m / 12 * (x * x + z * z), m / 12 * (x * x + y * y))


def _local_inertia(geometry: object, m: float) -> tuple[float, float, float] | None:
    """Principal moments about the shape origin, along the shape frame's axes (DART's
    ``computeInertia``; every SKEL shape's inertia is diagonal in its own frame)."""
    if isinstance(geometry, Box):
        return _box(geometry.size, m)
    if isinstance(geometry, Ellipsoid):
        a, b, c = geometry.radii
        return (m / 5 * (b * b + c * c), m / 5 * (a * a + c * c), m / 5 * (a * a + b * b))
    if isinstance(geometry, Sphere):
        moment = 0.4 * m * geometry.radius * geometry.radius
        return (moment, moment, moment)
    if isinstance(geometry, Cylinder):
        r, h = geometry.radius, geometry.length
        side = m * (3 * r * r + h * h) / 12
        return (side, side, m * r * r / 2)
    if isinstance(geometry, Cone):
        r, h = geometry.radius, geometry.length
        # about the shape origin (mid-height), not the cone's centroid (h/4 above the base)
        side = m * (3 / 20 * r * r + h * h / 10)
        return (side, side, 3 / 10 * m * r * r)
    if isinstance(geometry, Capsule):
        return _capsule(geometry.radius, geometry.length, m)
    if isinstance(geometry, Plane):
        return (0.0, 0.0, 0.0)  # DART: an infinite plane has no inertia
    if isinstance(geometry, (MultiSphere, MeshBounds)):
        return _box(geometry.extents, m)
    if isinstance(geometry, Pyramid):
        return (1.0, 1.0, 1.0)  # DART 6.20: not implemented, the identity whatever the mass
    return None


def _capsule(r: float, h: float, m: float) -> tuple[float, float, float]:
    """Solid capsule: cylinder plus two hemispheres, mass split by volume (DART's formula)."""
    v_cyl, v_sph = math.pi * r * r * h, 4.0 / 3.0 * math.pi * r * r * r
    total = v_cyl + v_sph
    m_cyl, m_sph = (m * v_cyl / total, m * v_sph / total) if total > 0 else (0.0, 0.0)
    side = (m_cyl * (h * h / 12 + r * r / 4) + m_sph * (0.4 * r * r + h * h / 4 + 3 * h * r / 8))
    return (side, side, (m_cyl / 2 + 0.4 * m_sph) * r * r)


def mesh_extents(mesh: Mesh) -> tuple[float, float, float] | None:
    """Scaled bounding-box size of a local mesh file (DART uses the mesh bounds for its
    inertia; Collada with its unit applied, as DART's assimp applies it); None when the file
    cannot be read."""
    if not mesh.uri.startswith('file://'):
        return None
    try:
        low, high = meshes.mesh_bounds(unquote(urlparse(mesh.uri).path))
    except FileNotFoundError:
        return None
    x, y, z = ((h - lo) * abs(k) for lo, h, k in zip(low, high, mesh.scale))
    return x, y, z


def mesh_bounds(proxy: object, memo: dict) -> object | None:
    """The inertia stand-in of a shape proxy: a mesh becomes its :class:`MeshBounds` (each
    file read once per ``memo``), None when it cannot be read; other proxies unchanged."""
    if not isinstance(proxy, Mesh):
        return proxy
    key = (proxy.uri, proxy.scale)
    if key not in memo:
        extents = mesh_extents(proxy)
        memo[key] = MeshBounds(extents) if extents is not None else None
    return memo[key]


#: What DART 6.20 counts as the volume of a plane or a multi-sphere when it shares a body's mass
#: between its shapes (measured; see the module docstring).
_UNIT_WEIGHT = 1.0


def shape_volume(geometry: object) -> float | None:
    """Weight DART gives a shape when sharing a body's mass: its volume (bounding box for
    meshes), 1 for planes and multi-spheres."""
    if isinstance(geometry, Box):
        return math.prod(geometry.size)
    if isinstance(geometry, Ellipsoid):
        return 4.0 / 3.0 * math.pi * math.prod(geometry.radii)
    if isinstance(geometry, Sphere):
        r = geometry.radius
        return 4.0 / 3.0 * math.pi * r * r * r
    if isinstance(geometry, Cylinder):
        return math.pi * geometry.radius * geometry.radius * geometry.length
    if isinstance(geometry, Cone):
        return math.pi * geometry.radius * geometry.radius * geometry.length / 3.0
    if isinstance(geometry, Capsule):
        r = geometry.radius
        return math.pi * r * r * geometry.length + 4.0 / 3.0 * math.pi * r * r * r
    if isinstance(geometry, (Plane, MultiSphere)):
        return _UNIT_WEIGHT
    if isinstance(geometry, MeshBounds):
        return math.prod(geometry.extents)
    if isinstance(geometry, Pyramid):
        return math.prod(geometry.sides) / 3.0
    return None


def soft_body(ctx: SkelContext, holder: etree._Element, geometry: Geometry, origin: Pose
              ) -> SoftBody:
    """A ``<soft_shape>``'s skin: ``<total_mass>`` (required, as DART reads it unconditionally),
    ``<kv>``, ``<ke>``, ``<damp>`` (optional) and the mesh resolution of its geometry."""
    def optional(tag: str) -> float | None:
        sub = child(holder, tag)
        return None if sub is None else ctx.number(sub)

    total = ctx.number(require(ctx, holder, 'total_mass', '<soft_shape>'))
    if total < 0:
        raise InvalidValueError(f'<total_mass> must not be negative (got {total})', ctx.file,
                                holder.sourceline)
    shape = next(s for s in require(ctx, holder, 'geometry').iterchildren(etree.Element)
                 if local_name(s) in _SOFT_EXTRA)
    resolution: list[int] = []
    for tag in _SOFT_EXTRA[local_name(shape)]:
        sub = child(shape, tag)
        resolution.extend(_counts(ctx, sub))
    return SoftBody(geometry, origin, total, optional('kv'), optional('ke'), optional('damp'),
                    tuple(resolution))


def _counts(ctx: SkelContext, element: etree._Element) -> list[int]:
    values = ctx.vector(element, None)
    if not values or any(v != int(v) or v < 1 for v in values):
        raise InvalidValueError(f'<{local_name(element)}> must be positive whole numbers',
                                ctx.file, element.sourceline)
    return [int(v) for v in values]
