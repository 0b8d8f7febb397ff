"""SKEL reader: a DART ``<skel><world>`` document into a world
:class:`~robot_formats.core.model.Scene`.

Matches what dartpy 6.20's ``SkelParser.readWorld`` builds (see the goldens' INDEX.md):

* one model per ``<skeleton>``, named as DART names it (duplicates become ``n(1)``, ...);
* body poses ``B = S · T_body`` relative to the skeleton frame ``S``; a joint's
  ``<transformation>`` is ``X_CJ`` and its ``X_PJ = B_parent⁻¹ · B_child · X_CJ``, so every body
  sits at ``B`` at q = 0;
* joints in DART's creation order (so the scene's DoF order is DART's generalized
  coordinates), with an implicit free joint ``root`` for a parent body nobody moves;
* bodies no joint mentions are not created (DART drops them).

Kept beyond kinematics: the joint's actuator type and per-DoF dynamics (damping, Coulomb
friction, spring stiffness and rest position, velocity/acceleration/force bounds) in
``Joint.actuator`` and ``Joint.dof_dynamics``; ``init_vel`` in ``Model.initial_velocities``; the
body's gravity and self_collide flags and its soft skin (``Link.soft``); ``<physics>`` in
``Scene.physics``. A joint's URDF-level ``dynamics`` is the first DoF that states damping or
friction. Two joints of one skeleton with the same name are renamed ``j``, ``j(1)`` as DART's
NameManager does.

What DART loads this reader loads, with a warning (``SKEL_*``, see docs/real_world.md) for
each irregularity it reads past: a second body of one name, a joint naming a missing body or
a body's second parent joint (ignored, as DART ignores them), and the joint and shape cases in
:mod:`.joints` and :mod:`.shapes`. Where DART crashes or refuses (a cycle, text that is no
number, an unknown shape, missing required elements) this reader raises a FormatError with file
and line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree

from robot_formats.core.errors import CycleError, Diagnostic, InvalidValueError, SchemaError
from robot_formats.core.model import (WORLD, Collision, DofDynamics, Inertial, Joint, JointType,
                                      Link, Material, Model, Pose, Scene, SoftBody, Vec3, Visual,
                                      dof_names)
from robot_formats.core.xmlsafe import local_name, read_xml, required_attr
from robot_formats.formats.skel.joints import RawJoint, read_joint
from robot_formats.formats.skel.rigid import IDENTITY_POSE, Rigid, compose, inverse, to_pose
from robot_formats.formats.skel.shapes import (mesh_bounds, read_geometry, shape_inertia,
                                               shape_volume, soft_body)
from robot_formats.formats.skel.values import (IDENTITY, SkelContext, child, index, require,
                                               tagged_children, transformation)

if TYPE_CHECKING:
    from robot_formats.formats.spec import LoadContext

__all__ = ['read_skel', 'read_element', 'parse_skel_element']

_MOMENTS = ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz')


def read_skel(path: str | Path, warnings: list[Diagnostic] | None = None) -> Scene:
    """Load a ``.skel`` file."""
    warnings = warnings if warnings is not None else []
    return parse_skel_element(read_xml(path, warnings, ('skel',)), str(path), warnings)


def read_element(path: Path, root: etree._Element, warnings: list[Diagnostic],
                 context: LoadContext) -> Scene:
    """The registry's reader of SKEL (``FormatSpec.reader``): :func:`parse_skel_element`."""
    return parse_skel_element(root, str(path), warnings)


def parse_skel_element(root: etree._Element, file: str | None,
                       warnings: list[Diagnostic]) -> Scene:
    """Build a scene from an already parsed ``<skel>`` element."""
    ctx = SkelContext(file, warnings)
    if local_name(root) != 'skel':
        raise SchemaError(f'a SKEL document has a <skel> root, not <{local_name(root)}>', file,
                          root.sourceline)
    world = child(root, 'world')
    if world is None:
        raise SchemaError('<skel> has no <world> (DART reads skeletons only inside a <world>; '
                          'a bare <skeleton> file loads as nothing)', file, root.sourceline)
    models: list[Model] = []
    taken: set[str] = set()
    physics = None
    for tag, element in tagged_children(world):  # one pass: the skeletons, the first <physics>
        if tag == 'skeleton':
            name = _unique(element.get('name', 'skeleton'), taken)
            models.append(_skeleton(ctx, element, name))
        elif tag == 'physics' and physics is None:
            physics = element
    return Scene(world.get('name', 'world'), tuple(models), (), (), True,
                 _physics(ctx, physics), file)


def _unique(name: str, taken: set[str]) -> str:
    """DART's NameManager: the first ``n`` keeps its name, later ones become ``n(1)``, ..."""
    out, i = name, 0
    while out in taken:
        i += 1
        out = f'{name}({i})'
    taken.add(out)
    return out


def _physics(ctx: SkelContext, element: etree._Element | None) -> dict[str, object]:
    """The world's ``<physics>`` (``element``; None: DART's defaults)."""
    physics: dict[str, object] = {'time_step': 0.001, 'gravity': (0.0, 0.0, -9.81)}
    if element is None:
        return physics
    kids = index(element)
    step, gravity, detector = (kids.get('time_step'), kids.get('gravity'),
                               kids.get('collision_detector'))
    if step is not None:
        physics['time_step'] = ctx.number(step)
    if gravity is not None:
        physics['gravity'] = ctx.vector(gravity, 3)
    if detector is not None and (detector.text or '').strip():
        physics['collision_detector'] = detector.text.strip()
    return physics


# --- bodies ---------------------------------------------------------------------------------------

def _body_parts(element: etree._Element
                ) -> tuple[dict[str, etree._Element], list[tuple[str, etree._Element]]]:
    """One pass over a ``<body>``'s children: the first child of each name (as
    :func:`~.values.index`) and its shape elements in document order."""
    kids: dict[str, etree._Element] = {}
    holders: list[tuple[str, etree._Element]] = []
    for tag, sub in tagged_children(element):
        if tag in _SHAPE_HOLDERS:
            holders.append((tag, sub))
        if tag not in kids:
            kids[tag] = sub
    return kids, holders


def _body(ctx: SkelContext, element: etree._Element, name: str, kids: dict[str, etree._Element],
          holders: list[tuple[str, etree._Element]]) -> Link:
    """One ``<body>``; ``kids`` and ``holders`` are its :func:`_body_parts`."""
    visuals: list[Visual] = []
    collisions: list[Collision] = []
    solids: list[tuple[object, Rigid]] = []  # (inertia geometry, placement), DART order
    soft: SoftBody | None = None
    for tag, holder in holders:
        parts = index(holder)  # the first of each
        frame_el, color_el = parts.get('transformation'), parts.get('color')
        geometry_el = parts.get('geometry')
        frame = IDENTITY if frame_el is None else transformation(ctx, frame_el)
        frame_pose = to_pose(frame)
        material = None if color_el is None else _material(ctx, color_el)
        pieces, proxy = read_geometry(ctx, holder, geometry_el, tag == 'soft_shape')
        if tag != 'soft_shape':
            solids.append((proxy, frame))
        elif soft is None:
            soft = soft_body(ctx, holder, pieces[0][0], frame_pose)
        else:
            raise SchemaError(f'body {name!r} has a second <soft_shape> (DART builds one soft '
                              'skin per body)', ctx.file, holder.sourceline)
        for geometry, offset in pieces:
            origin = frame_pose if offset is IDENTITY else to_pose(compose(frame, offset))
            if tag != 'collision_shape':
                visuals.append(Visual(geometry, origin, None, material))
            if tag != 'visualization_shape':
                collisions.append(Collision(geometry, origin))
    inertial = _inertial(ctx, kids.get('inertia'), name, solids)
    sub = kids.get('gravity')
    gravity = True if sub is None else ctx.boolean(sub)
    sub = kids.get('self_collide')
    return Link(name, inertial, tuple(visuals), tuple(collisions), element.sourceline, gravity,
                None if sub is None else ctx.boolean(sub), soft)


#: The shape elements of a body (local names; document order is kept).
_SHAPE_HOLDERS = frozenset(('visualization_shape', 'collision_shape', 'soft_shape'))


def _material(ctx: SkelContext, color: etree._Element | None) -> Material | None:
    """A shape's ``<color>``: 3 or 4 numbers; another count is ignored, as DART ignores it."""
    if color is None:
        return None
    rgb = ctx.vector(color, None)
    if len(rgb) not in (3, 4):
        ctx.warn(f'<color> needs 3 or 4 numbers, not {len(rgb)}; ignored, as DART ignores it',
             color.sourceline, 'SKEL_MALFORMED_ELEMENT')
        return None
    if len(rgb) == 3:
        (r, g, b), a = rgb, 1.0
    else:
        r, g, b, a = rgb
    return Material(None, (r, g, b, a))


def _inertial(ctx: SkelContext, element: etree._Element | None, name: str,
              solids: list[tuple[object, Rigid]]) -> Inertial:
    if element is None:
        return Inertial(1.0, Pose(), (1.0, 0.0, 0.0, 1.0, 0.0, 1.0))
    parts = index(element)
    mass_el = parts.get('mass')
    if mass_el is None:  # raises
        mass_el = require(ctx, element, 'mass', f'<inertia> of body {name!r}')
    mass = ctx.number(mass_el)
    offset_el = parts.get('offset')
    com: Vec3 = ctx.vector(offset_el, 3) if offset_el is not None else _ORIGIN
    moments = parts.get('moment_of_inertia')
    inertia: Inertia | None
    if moments is not None:
        values = index(moments)
        ixx, ixy, ixz, iyy, iyz, izz = [ctx.number(values[key] if key in values else
                                               require(ctx, moments, key)) for key in _MOMENTS]
        inertia = (ixx, ixy, ixz, iyy, iyz, izz)
    else:
        inertia = _composite_inertia(solids, mass, com, ctx.meshes)
        if inertia is None:
            ctx.warn(f'body {name!r}: <inertia> has no <moment_of_inertia> and no shape '
                     'robot_formats can compute it from; using the identity', element.sourceline,
                     'WARNING')
            inertia = (1.0, 0.0, 0.0, 1.0, 0.0, 1.0)
        if not math.isfinite(sum(inertia)) and not all(map(math.isfinite, inertia)):
            raise InvalidValueError(f'body {name!r}: the inertia computed from its shapes is '
                                    'not finite (sizes, mass or offset too large)', ctx.file,
                                    element.sourceline)
    return Inertial(mass, IDENTITY_POSE if com is _ORIGIN else Pose(com), inertia)


_ORIGIN = (0.0, 0.0, 0.0)
#: (ixx, ixy, ixz, iyy, iyz, izz), as Inertial.inertia
Inertia = tuple[float, float, float, float, float, float]


# --- skeletons ------------------------------------------------------------------------------------

def _skeleton(ctx: SkelContext, element: etree._Element, name: str) -> Model:
    kids: dict[str, etree._Element] = {}  # one pass: the first child of each name, all bodies
    body_elements: list[etree._Element] = []  # and joints
    joint_elements: list[etree._Element] = []
    for tag, sub in tagged_children(element):
        if tag == 'body':
            body_elements.append(sub)
        elif tag == 'joint':
            joint_elements.append(sub)
        if tag not in kids:
            kids[tag] = sub
    frame = transformation(ctx, kids.get('transformation'))
    bodies: dict[str, etree._Element] = {}
    for body in body_elements:
        body_name = body.get('name')
        if body_name is None:
            required_attr(body, 'name', ctx.file)  # raises
        if body_name in bodies:
            ctx.warn(f'skeleton {name!r} has a second body named {body_name!r} (the first is '
                 f'on line {bodies[body_name].sourceline}); ignored, as DART discards it',
                 body.sourceline, 'SKEL_DUPLICATE_NAME')
            continue
        bodies[body_name] = body
    by_child = _joints_by_child(ctx, joint_elements, bodies)
    parts = {}
    poses: dict[str, Rigid] = {}
    for body_name, body in bodies.items():
        parts[body_name] = body_kids, _ = _body_parts(body)
        poses[body_name] = compose(frame, transformation(ctx, body_kids.get('transformation')))
    order = _creation_order(ctx, by_child)
    used = set()
    for raw in order:
        used.add(raw.parent)
        used.add(raw.child)
    used.discard(WORLD)
    links = tuple([_body(ctx, bodies[b], b, *parts[b]) for b in bodies if b in used])
    joint_names: set[str] = set()
    inverses: dict[str, Rigid] = {}
    joints = tuple([_place(j, poses, inverses, joint_names) for j in order])
    initial: dict[str, float] = {}
    velocities: dict[str, float] = {}
    for raw, placed in zip(order, joints):
        if raw.initial:
            names = dof_names(placed)
            initial.update(zip(names, raw.initial))
            velocities.update(zip(names, raw.velocities))
    return Model(name, links, joints, static=not _mobile(ctx, kids),
                 initial_positions=initial, source=ctx.file, initial_velocities=velocities)


def _mobile(ctx: SkelContext, kids: dict[str, etree._Element]) -> bool:
    mobile, immobile = kids.get('mobile'), kids.get('immobile')
    if mobile is not None:
        return ctx.boolean(mobile)
    return not ctx.boolean(immobile) if immobile is not None else True


def _joints_by_child(ctx: SkelContext, elements: list[etree._Element],
                     bodies: dict[str, etree._Element]) -> dict[str, RawJoint]:
    """Joints (``elements``) keyed by child body, in file order, every reference checked."""
    by_child: dict[str, RawJoint] = {}
    for element in elements:
        joint = read_joint(ctx, element)
        if joint is None:  # a joint DART discards (warned)
            continue
        if joint.parent != WORLD and joint.parent not in bodies:
            ctx.warn(f'joint {joint.name!r} names parent body {joint.parent!r}, which this '
                 'skeleton does not have; the joint is ignored, as DART ignores it (DART '
                 'crashes on some such files)', joint.line, 'SKEL_UNKNOWN_BODY')
            continue
        if joint.child not in bodies:
            ctx.warn(f'joint {joint.name!r} names child body {joint.child!r}, which this '
                 'skeleton does not have; the joint is ignored, as DART ignores it',
                 joint.line, 'SKEL_UNKNOWN_BODY')
            continue
        if joint.parent == joint.child:
            raise CycleError(f'joint {joint.name!r} has body {joint.child!r} as both parent and '
                             'child', ctx.file, joint.line)
        if joint.child in by_child:
            ctx.warn(f'body {joint.child!r} is the child of two joints '
                 f'({by_child[joint.child].name!r} and {joint.name!r}); the second is ignored, '
                 'as DART discards it', joint.line, 'SKEL_SECOND_PARENT')
            continue
        by_child[joint.child] = joint
    return by_child


def _creation_order(ctx: SkelContext, by_child: dict[str, RawJoint]) -> list[RawJoint]:
    """DART's build order: take the first pending joint, climb to the topmost pending ancestor
    joint, build it (after an implicit free ``root`` joint if its parent body has no joint),
    repeat. This is the body index order, hence the generalized-coordinate order."""
    pending = dict(by_child)
    built: set[str] = set()
    order: list[RawJoint] = []
    while pending:
        joint = next(iter(pending.values()))
        seen = {joint.child}
        while joint.parent in pending:
            joint = pending[joint.parent]
            if joint.child in seen:
                raise CycleError(f'joint {joint.name!r} is part of a loop of joints: body '
                                 f'{joint.child!r} is its own ancestor', ctx.file, joint.line)
            seen.add(joint.child)
        if joint.parent != WORLD and joint.parent not in built:
            order.append(RawJoint('root', JointType.FLOATING, WORLD, joint.parent, IDENTITY,
                                  None, initial=[0.0] * 6, velocities=[0.0] * 6,
                                  dof_dynamics=[DofDynamics()] * 6))
            built.add(joint.parent)
        order.append(pending.pop(joint.child))
        built.add(joint.child)
    return order


def _place(raw: RawJoint, poses: dict[str, Rigid], inverses: dict[str, Rigid],
           names: set[str]) -> Joint:
    """The model joint: ``X_PJ = B_parent⁻¹ · B_child · X_CJ`` (B_world = I); ``inverses``
    keeps each parent's ``B⁻¹`` (a body is often the parent of several joints)."""
    origin = poses[raw.child]
    parent = raw.parent
    if parent != WORLD:
        inverted = inverses.get(parent)
        if inverted is None:
            inverted = inverses[parent] = inverse(poses[parent])
        origin = compose(inverted, origin)
    t_cj = raw.t_cj
    if t_cj is not IDENTITY:
        origin = compose(origin, t_cj)
    name = raw.name
    if name in names:
        name = _unique(name, names)
    else:
        names.add(name)
    return Joint(name, raw.kind, parent, raw.child, to_pose(origin), raw.axis, raw.axis2,
                 to_pose(t_cj), tuple(raw.limits), raw.dynamics, None, raw.axis_order, 0.0,
                 raw.line, raw.actuator, tuple(raw.dof_dynamics))


def _composite_inertia(solids: list[tuple[object, Rigid]], mass: float, com: Vec3,
                       meshes: dict) -> Inertia | None:
    """Inertia (ixx, ixy, ixz, iyy, iyz, izz) about the COM of all (non-soft) shapes as one
    solid of ``mass``, the mass shared by volume (what DART 6.20 does when
    ``<moment_of_inertia>`` is absent)."""
    if not solids:
        return None
    proxies = [mesh_bounds(proxy, meshes) for proxy, _ in solids]
    volumes = [volume for proxy in proxies if (volume := shape_volume(proxy)) is not None]
    if len(volumes) < len(proxies) or mass <= 0:
        return None
    total = sum(volumes)
    if total <= 0:  # only zero-size shapes
        return (0.0,) * 6
    xx = xy = xz = yy = yz = zz = 0.0
    for proxy, (_, frame), volume in zip(proxies, solids, volumes):
        part = shape_inertia(proxy, mass * volume / total, frame, com)
        if part is None:
            return None
        xx, xy, xz, yy, yz, zz = (xx + part[0], xy + part[1], xz + part[2], yy + part[3],
                                  yz + part[4], zz + part[5])
    return (xx, xy, xz, yy, yz, zz)
