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

from lxml import etree

from robot_formats.core.errors import CycleError, Diagnostic, InvalidValueError, SchemaError
from robot_formats.core.model import (WORLD, Collision, DofDynamics, Inertial, Joint, JointType,
                                      Link, Material, Model, Pose, Scene, SoftBody, Vec3, Visual,
                                      dof_names, vec3)
from robot_formats.core.xmlsafe import local_name, read_xml, required_attr
from robot_formats.formats.skel.joints import RawJoint, read_joint
from robot_formats.formats.skel.rigid import Rigid, compose, inverse, to_pose
from robot_formats.formats.skel.shapes import (mesh_bounds, read_geometry, shape_inertia,
                                               shape_volume, soft_body)
from robot_formats.formats.skel.values import (IDENTITY, Ctx, boolean, child, children, index,
                                               number, require, transformation, vector, warn)

__all__ = ['read_skel', 'parse_skel_element']

_MOMENTS = ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz')


def read_skel(path: str | Path, warnings: list[Diagnostic] | None = None) -> Scene:
    """Load a ``.skel`` file."""
    warnings = warnings if warnings is not None else []
    return parse_skel_element(read_xml(path, warnings, ('skel',)), str(path), warnings)


def parse_skel_element(root: etree._Element, file: str | None,
                       warnings: list[Diagnostic]) -> Scene:
    """Build a scene from an already parsed ``<skel>`` element."""
    ctx = Ctx(file, warnings)
    if local_name(root) != 'skel':
        raise SchemaError(f'a SKEL document has a <skel> root, not <{local_name(root)}>', file,
                          root.sourceline)
    world = child(root, 'world')
    if world is None:
        raise SchemaError('<skel> has no <world> (DART reads skeletons only inside a <world>; '
                          'a bare <skeleton> file loads as nothing)', file, root.sourceline)
    models: list[Model] = []
    taken: set[str] = set()
    for element in children(world, 'skeleton'):
        name = _unique(element.get('name', 'skeleton'), taken)
        models.append(_skeleton(ctx, element, name))
    return Scene(world.get('name', 'world'), tuple(models), is_world=True,
                 physics=_physics(ctx, world), source=file)


def _unique(name: str, taken: set[str]) -> str:
    """DART's NameManager: the first ``n`` keeps its name, later ones become ``n(1)``, ..."""
    out, i = name, 0
    while out in taken:
        i += 1
        out = f'{name}({i})'
    taken.add(out)
    return out


def _physics(ctx: Ctx, world: etree._Element) -> dict[str, object]:
    physics: dict[str, object] = {'time_step': 0.001, 'gravity': (0.0, 0.0, -9.81)}
    element = child(world, 'physics')
    if element is None:
        return physics
    kids = index(element)
    step, gravity, detector = (kids.get(t) for t in ('time_step', 'gravity', 'collision_detector'))
    if step is not None:
        physics['time_step'] = number(ctx, step)
    if gravity is not None:
        physics['gravity'] = vector(ctx, gravity)
    if detector is not None and (detector.text or '').strip():
        physics['collision_detector'] = detector.text.strip()
    return physics


# --- bodies ---------------------------------------------------------------------------------------

def _body(ctx: Ctx, element: etree._Element, name: str, kids: dict[str, etree._Element]
          ) -> Link:
    """One ``<body>``; ``kids`` is its :func:`~.values.index`."""
    visuals: list[Visual] = []
    collisions: list[Collision] = []
    solids: list[tuple[object, Rigid]] = []  # (inertia geometry, placement), DART order
    soft: SoftBody | None = None
    for holder in element.iterchildren(*_SHAPE_HOLDERS):
        tag = holder.tag
        if '}' in tag:
            tag = tag.rpartition('}')[2]
        parts = index(holder)
        frame = transformation(ctx, parts.get('transformation'))
        frame_pose = to_pose(frame)
        material = _material(ctx, parts.get('color'))
        pieces, proxy = read_geometry(ctx, holder, tag == 'soft_shape', parts)
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
                visuals.append(Visual(geometry, origin, material=material))
            if tag != 'visualization_shape':
                collisions.append(Collision(geometry, origin))
    return Link(name, _inertial(ctx, kids.get('inertia'), name, solids), tuple(visuals),
                tuple(collisions), element.sourceline,
                _flag(ctx, kids.get('gravity'), True) is not False,
                _flag(ctx, kids.get('self_collide'), None), soft)


#: The shape elements of a body, in any or no namespace (document order is kept).
_SHAPE_HOLDERS = ('{*}visualization_shape', '{*}collision_shape', '{*}soft_shape')


def _flag(ctx: Ctx, sub: etree._Element | None, default: bool | None) -> bool | None:
    return default if sub is None else boolean(ctx, sub)


def _material(ctx: Ctx, color: etree._Element | None) -> Material | None:
    """A shape's ``<color>``: 3 or 4 numbers; another count is ignored, as DART ignores it."""
    if color is None:
        return None
    rgb = vector(ctx, color, None)
    if len(rgb) not in (3, 4):
        warn(ctx, f'<color> needs 3 or 4 numbers, not {len(rgb)}; ignored, as DART ignores it',
             color.sourceline, 'SKEL_MALFORMED_ELEMENT')
        return None
    return Material(rgba=(*rgb, 1.0) if len(rgb) == 3 else rgb)  # type: ignore[arg-type]


def _inertial(ctx: Ctx, element: etree._Element | None, name: str,
              solids: list[tuple[object, Rigid]]) -> Inertial:
    if element is None:
        return Inertial(1.0, Pose(), (1.0, 0.0, 0.0, 1.0, 0.0, 1.0))
    parts = index(element)
    mass_el = parts.get('mass')
    if mass_el is None:
        require(ctx, element, 'mass', f'<inertia> of body {name!r}')  # raises
    mass = number(ctx, mass_el)
    offset_el = parts.get('offset')
    com = vec3(vector(ctx, offset_el)) if offset_el is not None else (0.0, 0.0, 0.0)
    moments = parts.get('moment_of_inertia')
    inertia: tuple[float, ...] | None
    if moments is not None:
        values = index(moments)
        inertia = tuple(number(ctx, values[key] if key in values else require(ctx, moments, key))
                        for key in _MOMENTS)
    else:
        inertia = _composite_inertia(solids, mass, com, ctx.meshes)
        if inertia is None:
            ctx.warnings.append(Diagnostic(
                f'body {name!r}: <inertia> has no <moment_of_inertia> and no shape robot_formats '
                'can compute it from; using the identity', ctx.file, element.sourceline))
            inertia = (1.0, 0.0, 0.0, 1.0, 0.0, 1.0)
        if not all(map(math.isfinite, inertia)):
            raise InvalidValueError(f'body {name!r}: the inertia computed from its shapes is '
                                    'not finite (sizes, mass or offset too large)', ctx.file,
                                    element.sourceline)
    return Inertial(mass, Pose(com), inertia)  # type: ignore[arg-type]


# --- skeletons ------------------------------------------------------------------------------------

def _skeleton(ctx: Ctx, element: etree._Element, name: str) -> Model:
    kids = index(element)
    frame = transformation(ctx, kids.get('transformation'))
    bodies: dict[str, etree._Element] = {}
    for body in children(element, 'body'):
        body_name = required_attr(body, 'name', ctx.file)
        if body_name in bodies:
            warn(ctx, f'skeleton {name!r} has a second body named {body_name!r} (the first is '
                 f'on line {bodies[body_name].sourceline}); ignored, as DART discards it',
                 body.sourceline, 'SKEL_DUPLICATE_NAME')
            continue
        bodies[body_name] = body
    by_child = _joints_by_child(ctx, element, bodies)
    body_kids = {b: index(e) for b, e in bodies.items()}
    poses = {b: compose(frame, transformation(ctx, body_kids[b].get('transformation')))
             for b in bodies}
    order = _creation_order(ctx, by_child)
    used = {end for j in order for end in (j.parent, j.child)} - {WORLD}
    links = tuple(_body(ctx, bodies[b], b, body_kids[b]) for b in bodies if b in used)
    joint_names: set[str] = set()
    joints = tuple(_place(j, poses, joint_names) for j in order)
    names = [dof_names(joint) for joint in joints]
    initial = {dof: v for j, dofs in zip(order, names) for dof, v in zip(dofs, j.initial)}
    velocities = {dof: v for j, dofs in zip(order, names) for dof, v in zip(dofs, j.velocities)}
    return Model(name, links, joints, static=not _mobile(ctx, kids),
                 initial_positions=initial, source=ctx.file, initial_velocities=velocities)


def _mobile(ctx: Ctx, kids: dict[str, etree._Element]) -> bool:
    mobile, immobile = kids.get('mobile'), kids.get('immobile')
    if mobile is not None:
        return boolean(ctx, mobile)
    return not boolean(ctx, immobile) if immobile is not None else True


def _joints_by_child(ctx: Ctx, skeleton: etree._Element, bodies: dict[str, etree._Element]
                     ) -> dict[str, RawJoint]:
    """Joints keyed by child body, in file order, every reference checked."""
    by_child: dict[str, RawJoint] = {}
    for element in children(skeleton, 'joint'):
        joint = read_joint(ctx, element)
        if joint is None:  # a joint DART discards (warned)
            continue
        if joint.parent != WORLD and joint.parent not in bodies:
            warn(ctx, f'joint {joint.name!r} names parent body {joint.parent!r}, which this '
                 'skeleton does not have; the joint is ignored, as DART ignores it (DART '
                 'crashes on some such files)', joint.line, 'SKEL_UNKNOWN_BODY')
            continue
        if joint.child not in bodies:
            warn(ctx, f'joint {joint.name!r} names child body {joint.child!r}, which this '
                 'skeleton does not have; the joint is ignored, as DART ignores it',
                 joint.line, 'SKEL_UNKNOWN_BODY')
            continue
        if joint.parent == joint.child:
            raise CycleError(f'joint {joint.name!r} has body {joint.child!r} as both parent and '
                             'child', ctx.file, joint.line)
        if joint.child in by_child:
            warn(ctx, f'body {joint.child!r} is the child of two joints '
                 f'({by_child[joint.child].name!r} and {joint.name!r}); the second is ignored, '
                 'as DART discards it', joint.line, 'SKEL_SECOND_PARENT')
            continue
        by_child[joint.child] = joint
    return by_child


def _creation_order(ctx: Ctx, by_child: dict[str, RawJoint]) -> list[RawJoint]:
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


def _place(raw: RawJoint, poses: dict[str, Rigid], names: set[str]) -> Joint:
    """The model joint: ``X_PJ = B_parent⁻¹ · B_child · X_CJ`` (B_world = I)."""
    origin = poses[raw.child]
    if raw.parent != WORLD:
        origin = compose(inverse(poses[raw.parent]), origin)
    if raw.t_cj is not IDENTITY:
        origin = compose(origin, raw.t_cj)
    return Joint(_unique(raw.name, names), raw.kind, raw.parent, raw.child,
                 to_pose(origin), raw.axis, raw.axis2, to_pose(raw.t_cj), tuple(raw.limits),
                 raw.dynamics, axis_order=raw.axis_order, line=raw.line,
                 actuator=raw.actuator, dof_dynamics=tuple(raw.dof_dynamics))


def _composite_inertia(solids: list[tuple[object, Rigid]], mass: float, com: Vec3,
                       meshes: dict) -> tuple[float, ...] | None:
    """Inertia (ixx, ixy, ixz, iyy, iyz, izz) about the COM of all (non-soft) shapes as one
    solid of ``mass``, the mass shared by volume (what DART 6.20 does when
    ``<moment_of_inertia>`` is absent)."""
    solids = [(mesh_bounds(proxy, meshes), frame) for proxy, frame in solids]
    known = [shape_volume(proxy) for proxy, _ in solids]
    volumes = [v for v in known if v is not None]
    if not solids or len(volumes) < len(known) or mass <= 0:
        return None
    total = sum(volumes)
    if total <= 0:  # only zero-size shapes
        return (0.0,) * 6
    parts = [shape_inertia(proxy, mass * v / total, frame, com)  # type: ignore[arg-type]
             for (proxy, frame), v in zip(solids, volumes)]
    if None in parts:
        return None
    return tuple(map(sum, zip(*parts)))  # type: ignore[arg-type]
