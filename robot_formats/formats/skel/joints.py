"""SKEL ``<joint>`` elements: kind, axes, limits, dynamics and initial positions of one joint.

Only what a joint says about itself is read here; where it sits (``X_PJ``, which needs both
bodies' initial poses) and in which order DART builds it are decided by :mod:`.reader`.

``screw`` and ``translational2d`` are refused: DART 6.20's parser reads them, but cannot build
them ("Unsupported Joint type ... discarded"), assembly stops there and dartpy usually crashes,
so there is no reference behaviour to match.
"""

from __future__ import annotations

import math
from math import isfinite
from lxml import etree

from robot_formats.core.errors import InvalidValueError, SchemaError, UnsupportedError
from robot_formats.core.model import (DOF_SUFFIXES, WORLD, DofDynamics, Dynamics, JointType, Limits,
                                      Vec3)
from robot_formats.core.xmlsafe import local_name, required_attr
from robot_formats.formats.skel.rigid import Rigid
from robot_formats.formats.skel.values import (SkelContext, child, children, index, require,
                                               transformation)

Kids = dict[str, etree._Element]  # an element's children by name (see values.index)

__all__ = ['RawJoint', 'read_joint']

_KINDS = {
    'weld': JointType.FIXED, 'revolute': JointType.REVOLUTE, 'prismatic': JointType.PRISMATIC,
    'universal': JointType.UNIVERSAL, 'ball': JointType.BALL, 'euler': JointType.EULER,
    'translational': JointType.TRANSLATIONAL, 'planar': JointType.PLANAR,
    'free': JointType.FLOATING,
}
_UNBUILDABLE = ('screw', 'translational2d')
_AXIS_TAGS = ('axis', 'axis2', 'axis3')
#: How many ``<axis*>`` elements DART 6.20 reads limits and dynamics from, by kind (measured:
#: ball and free joints ignore them; their coordinates are set through ``<dof>`` only).
_AXES_READ = {JointType.REVOLUTE: 1, JointType.CONTINUOUS: 1, JointType.PRISMATIC: 1,
              JointType.UNIVERSAL: 2, JointType.EULER: 3, JointType.TRANSLATIONAL: 3,
              JointType.PLANAR: 3}
_DYNAMICS_TAGS = (('damping', 'damping'), ('friction', 'friction'),
                  ('spring_rest_position', 'rest'), ('spring_stiffness', 'stiffness'))
_BOUNDED = ('velocity', 'acceleration', 'force')
#: ``actuator=`` values DART 6.20 reads; ``torque`` is the spec's name for ``force`` (DART
#: itself rejects the word with an error and keeps its default, force: the same result).
_ACTUATORS = {'force': 'force', 'torque': 'force', 'passive': 'passive', 'servo': 'servo',
              'acceleration': 'acceleration', 'velocity': 'velocity', 'locked': 'locked'}
_PLANES = {'xy': ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)), 'yz': ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
           'zx': ((0.0, 0.0, 1.0), (1.0, 0.0, 0.0))}


class RawJoint:
    """A joint as written: everything but its placement in the parent body (a plain slotted
    class: one per joint, built with its name, ends and ``t_cj``, the rest filled in as read)."""

    __slots__ = ('name', 'kind', 'parent', 'child', 't_cj', 'line', 'axis', 'axis2',
                 'axis_order', 'limits', 'dynamics', 'initial', 'velocities', 'actuator',
                 'dof_dynamics')

    def __init__(self, name: str, kind: JointType, parent: str, child: str, t_cj: Rigid,
                 line: int | None, *, initial: list[float] | None = None,
                 velocities: list[float] | None = None,
                 dof_dynamics: list[DofDynamics] | None = None) -> None:
        self.name = name
        self.kind = kind
        self.parent = parent
        self.child = child
        self.t_cj = t_cj                    #: child body frame → joint frame
        self.line = line
        self.axis: Vec3 = (1.0, 0.0, 0.0)
        self.axis2: Vec3 | None = None
        self.axis_order = 'xyz'
        self.limits: list[Limits] = []
        self.dynamics: Dynamics | None = None
        self.initial: list[float] = [] if initial is None else initial
        self.velocities: list[float] = [] if velocities is None else velocities
        self.actuator = 'force'
        self.dof_dynamics: list[DofDynamics] = [] if dof_dynamics is None else dof_dynamics

    @property
    def dofs(self) -> int:
        return _DOFS[self.kind]


#: Coordinates per joint kind.
_DOFS = {kind: len(suffixes) for kind, suffixes in DOF_SUFFIXES.items()}
#: (coordinates, axes read) per joint kind name.
_COUNTS = {kind: (count, _AXES_READ.get(kind, 0)) for kind, count in _DOFS.items()}


def _name_of(ctx: SkelContext, element: etree._Element, kids: Kids, tag: str, joint: str
             ) -> str | None:
    """The body named by ``<parent>``/``<child>``, or None (with a warning) when the joint names
    none: DART then drops the joint (no child) or makes it a root joint (no parent)."""
    sub = kids.get(tag)
    text = (sub.text or '').strip() if sub is not None else ''
    if not text:
        what = f'no <{tag}>' if sub is None else f'an empty <{tag}>'
        effect = ('the joint is ignored, as DART ignores it' if tag == 'child' else
                  'its parent is the world, as DART reads it')
        ctx.warn(f'joint {joint!r} has {what}; {effect}', element.sourceline,
             'SKEL_MISSING_ELEMENT')
        return None
    return text


def _unit(ctx: SkelContext, element: etree._Element, joint: str) -> tuple[Vec3, float]:
    """An ``<axis*>``'s ``<xyz>`` as written, and its length (plain floats)."""
    xyz_el = require(ctx, element, 'xyz', f'<{local_name(element)}> of joint {joint!r}')
    xyz = ctx.vector(xyz_el, 3)
    norm = math.hypot(*xyz)  # hypot: no overflow for huge values
    if norm < 1e-12:
        raise InvalidValueError(f'joint {joint!r} has a zero-length axis', ctx.file,
                                xyz_el.sourceline)
    return xyz, norm


def _axis_unit(ctx: SkelContext, element: etree._Element, xyz_el: etree._Element | None,
               raw: RawJoint) -> Vec3:
    """A 1-DoF joint's ``<axis><xyz>`` (``xyz_el``, found by the caller) normalised, in plain
    floats. A zero axis: DART keeps a coordinate that moves nothing; the model has no such
    joint, so it becomes a fixed joint (same frames), with a warning."""
    if xyz_el is None:  # raises
        xyz_el = require(ctx, element, 'xyz', f'<{local_name(element)}> of joint {raw.name!r}')
    x, y, z = ctx.vector(xyz_el, 3)
    norm = math.hypot(x, y, z)  # hypot: no overflow for huge values
    if norm < 1e-12:
        ctx.warn(f'{raw.kind.value} joint {raw.name!r} has a zero-length axis: it moves '
             'nothing in DART; read as a fixed joint', xyz_el.sourceline,
             'SKEL_ZERO_AXIS')
        raw.kind = JointType.FIXED
        return (1.0, 0.0, 0.0)
    return (x / norm, y / norm, z / norm)


#: The axes DART 6.20's joints keep when the file names none (it reports an error and loads).
_DEFAULT_AXES = {'axis': (0.0, 0.0, 1.0), 'universal axis': (1.0, 0.0, 0.0),
                 'universal axis2': (0.0, 1.0, 0.0)}


def _missing_axis(ctx: SkelContext, element: etree._Element, raw: RawJoint, tag: str, key: str
                  ) -> Vec3:
    default = _DEFAULT_AXES[key]
    ctx.warn(f'{raw.kind.value} joint {raw.name!r} has no <{tag}>; DART 6.20 uses '
         f'{" ".join(f"{v:g}" for v in default)}', element.sourceline, 'SKEL_MISSING_AXIS')
    return default


def _axes(ctx: SkelContext, element: etree._Element, kids: Kids, raw: RawJoint,
          axis_kids: dict[str, Kids]) -> None:
    """The joint's axes; ``axis_kids`` collects each ``<axis*>`` read's :func:`~.values.index`
    (for :func:`_limits_and_dynamics`: every axis' children are looked at once)."""
    kind = raw.kind
    if kind is JointType.REVOLUTE or kind is JointType.PRISMATIC:
        axis = kids.get('axis')
        if axis is None:
            raw.axis = _missing_axis(ctx, element, raw, 'axis', 'axis')
        else:
            parts = axis_kids['axis'] = index(axis)
            raw.axis = _axis_unit(ctx, axis, parts.get('xyz'), raw)  # DART normalises these
    elif kind is JointType.UNIVERSAL:
        for tag, slot in (('axis', 'axis'), ('axis2', 'axis2')):
            sub = kids.get(tag)
            if sub is None:
                value = _missing_axis(ctx, element, raw, tag, f'universal {tag}')
            else:
                value, _ = _unit(ctx, sub, raw.name)  # DART uses universal axes as written
            setattr(raw, slot, value)
    elif kind is JointType.EULER:
        order_el = kids.get('axis_order')
        if order_el is None:  # raises
            order_el = require(ctx, element, 'axis_order', f'euler joint {raw.name!r}')
        order = (order_el.text or '').strip()
        if order not in ('xyz', 'zyx'):
            ctx.warn(f'euler joint {raw.name!r} has <axis_order> {order!r}; DART reads only '
                 "'xyz' and 'zyx' and keeps 'xyz'", order_el.sourceline,
                 'SKEL_AXIS_ORDER')
            order = 'xyz'
        raw.axis_order = order
    elif kind is JointType.PLANAR:
        raw.axis, raw.axis2 = _plane(ctx, element, raw.name)


def _plane(ctx: SkelContext, element: etree._Element, joint: str) -> tuple[Vec3, Vec3]:
    """In-plane translation axes t1, t2 (rotation about t1 × t2), as DART's plane types."""
    plane = child(element, 'plane')
    kind = None if plane is None else plane.get('type')
    if kind in _PLANES:
        return _PLANES[kind]
    if plane is None or kind != 'arbitrary':
        what = 'no <plane>' if plane is None else f'<plane type> {kind!r}'
        ctx.warn(f'planar joint {joint!r} has {what} (xy, yz, zx or arbitrary); DART 6.20 '
             'uses the XY plane', (element if plane is None else plane).sourceline,
             'SKEL_PLANE')
        return _PLANES['xy']
    (x1, y1, z1), norm1 = _unit(ctx, require(ctx, plane, 'translation_axis1'), joint)
    (x2, y2, z2), norm2 = _unit(ctx, require(ctx, plane, 'translation_axis2'), joint)
    x1, y1, z1, x2, y2, z2 = x1 / norm1, y1 / norm1, z1 / norm1, x2 / norm2, y2 / norm2, z2 / norm2
    along = x2 * x1 + y2 * y1 + z2 * z1
    x2, y2, z2 = x2 - along * x1, y2 - along * y1, z2 - along * z1
    norm = math.hypot(x2, y2, z2)
    if norm < 1e-9:
        raise InvalidValueError(f'planar joint {joint!r}: the translation axes are parallel',
                                ctx.file, plane.sourceline)
    return (x1, y1, z1), (x2 / norm, y2 / norm, z2 / norm)


def _limits_and_dynamics(ctx: SkelContext, element: etree._Element, kids: Kids, raw: RawJoint,
                         axis_kids: dict[str, Kids]) -> None:
    """Per-DoF position limits, dynamics, bounds, initial positions and velocities.

    Sources in DART's order of precedence: ``<axis*>`` (only for the kinds DART reads them
    for, see :data:`_AXES_READ`), then ``<init_pos>``/``<init_vel>``, then ``<dof>`` elements,
    which override entries of both. ``axis_kids``: the axes' indexes :func:`_axes` made."""
    count, read = _COUNTS[raw.kind]
    dofs = [_DofValues() for _ in range(count)]
    for slot in range(read):
        tag = _AXIS_TAGS[slot]
        parts = axis_kids.get(tag)
        if parts is None:
            axis = kids.get(tag)
            if axis is None:
                continue
            parts = index(axis)
        if 'limit' in parts or 'damping' in parts or 'dynamics' in parts:
            _axis_values(ctx, parts, dofs[slot])
    sub = kids.get('init_pos')
    raw.initial = [0.0] * count if sub is None else _initial_vector(ctx, sub, 'init_pos', raw)
    sub = kids.get('init_vel')
    raw.velocities = [0.0] * count if sub is None else _initial_vector(ctx, sub, 'init_vel', raw)
    if 'dof' in kids:
        for dof in children(element, 'dof'):
            dof_slot = _dof_index(ctx, dof, raw)
            if dof_slot is None:
                continue
            _dof_values(ctx, dof, dofs[dof_slot], raw, dof_slot)
    limited = False
    stated = None
    for values in dofs:
        lower, upper = position = values.position
        if lower > upper:
            ctx.warn(f'joint {raw.name!r}: lower limit {lower:g} is above upper '
                 f'limit {upper:g}; read in order (DART keeps them inverted, which '
                 'no position satisfies)', raw.line, 'SKEL_LIMIT_ORDER')
            position.reverse()
        if not limited and (isfinite(lower) or isfinite(upper)):
            limited = True
        if stated is None and (values.damping_stated or values.friction_stated):
            stated = values
    raw.dof_dynamics = [values.dynamics() for values in dofs]
    if stated is not None:
        raw.dynamics = Dynamics(stated.damping, stated.friction)
    if limited:
        raw.limits = [Limits(*(b if isfinite(b) else None for b in v.position)) for v in dofs]
    elif raw.kind is JointType.REVOLUTE:
        raw.kind = JointType.CONTINUOUS  # unlimited hinge: the model's name for it


#: A coordinate's dynamics when the file states none (shared: most DoFs in real files).
_NO_DOF_DYNAMICS = DofDynamics()


class _DofValues:
    """What the file says about one coordinate; DART's defaults where it says nothing."""

    __slots__ = ('position', 'bounds', 'damping', 'friction', 'stiffness', 'rest',
                 'damping_stated', 'friction_stated', 'plain')

    def __init__(self) -> None:
        self.position = [-math.inf, math.inf]
        self.bounds: dict[str, list[float]] | None = None  # made by the first <dof> bound
        self.damping = self.friction = self.stiffness = self.rest = 0.0
        self.damping_stated = self.friction_stated = False
        self.plain = True  #: no dynamics or bounds stated (position limits aside)

    def dynamics(self) -> DofDynamics:
        if self.plain:
            return _NO_DOF_DYNAMICS

        def pair(kind: str) -> tuple[float | None, float | None]:
            if self.bounds is None:
                return (None, None)
            low, high = self.bounds[kind]
            return (low if math.isfinite(low) else None, high if math.isfinite(high) else None)
        return DofDynamics(self.damping, self.friction, self.stiffness, self.rest,
                           pair('velocity'), pair('acceleration'), pair('force'))


#: What an ``<axis*>`` may state besides its direction (see :func:`_axis_values`).
_AXIS_VALUES = frozenset(('limit', 'damping', 'dynamics'))


def _axis_values(ctx: SkelContext, kids: Kids, values: _DofValues) -> None:
    """``<limit>`` lower/upper, ``<dynamics>``, and the old ``<damping>`` directly in the axis
    (DART still reads it, with a deprecation warning; ``<dynamics><damping>`` wins); ``kids``
    is the axis' :func:`~.values.index`."""
    limit = kids.get('limit')
    if limit is not None:
        bounds = index(limit)
        sub = bounds.get('lower')
        if sub is not None:
            values.position[0] = ctx.number(sub, infinite=True)
        sub = bounds.get('upper')
        if sub is not None:
            values.position[1] = ctx.number(sub, infinite=True)
    old_damping = kids.get('damping')
    if old_damping is not None:
        values.damping, values.damping_stated = ctx.number(old_damping), True
        values.plain = False
    dynamics = kids.get('dynamics')
    if dynamics is None:
        return
    values.plain = False
    parts = index(dynamics)
    for tag, attribute in _DYNAMICS_TAGS:
        sub = parts.get(tag)
        if sub is not None:
            setattr(values, attribute, ctx.number(sub))
            if attribute in ('damping', 'friction'):
                setattr(values, attribute + '_stated', True)


def _initial_vector(ctx: SkelContext, sub: etree._Element | None, tag: str, raw: RawJoint
                    ) -> list[float]:
    """``<init_pos>``/``<init_vel>``: one value per DoF. DART refuses an empty one, drops extra
    values and reads uninitialised memory past a short one (measured: -inf, then an identity
    transform); here a short one is completed with zeros, both with a warning."""
    if sub is None:
        return [0.0] * raw.dofs
    if not (sub.text or '').strip():
        raise SchemaError(f'joint {raw.name!r} has an empty <{tag}> (DART refuses it)',
                          ctx.file, sub.sourceline)
    values = list(ctx.vector(sub, None))
    if len(values) != raw.dofs:
        action = ('the rest ignored, as DART ignores them' if len(values) > raw.dofs else
                  'the rest read as 0 (DART reads undefined values there)')
        ctx.warn(f'{raw.kind.value} joint {raw.name!r} has {raw.dofs} degree(s) of freedom but '
             f'<{tag}> gives {len(values)} values; {action}', sub.sourceline,
             'SKEL_INITIAL_VECTOR')
        values = (values + [0.0] * raw.dofs)[:raw.dofs]
    return values


def _dof_values(ctx: SkelContext, dof: etree._Element, values: _DofValues, raw: RawJoint,
                index: int) -> None:
    """``<dof>``: ``<position|velocity|acceleration|force lower upper initial>``; an initial
    position or velocity overrides init_pos/init_vel (DART ignores the other initial values)."""
    for kind in ('position', *_BOUNDED):
        sub = child(dof, kind)
        if sub is None:
            continue
        if kind == 'position':
            bounds = values.position
        else:
            values.plain = False
            if values.bounds is None:
                values.bounds = {each: [-math.inf, math.inf] for each in _BOUNDED}
            bounds = values.bounds[kind]
        for side, attribute in enumerate(('lower', 'upper')):
            if sub.get(attribute) is not None:
                bounds[side] = ctx.number(sub, attribute=attribute)
        if sub.get('initial') is not None and kind in ('position', 'velocity'):
            target = raw.initial if kind == 'position' else raw.velocities
            target[index] = ctx.number(sub, attribute='initial')


def _dof_index(ctx: SkelContext, dof: etree._Element, raw: RawJoint) -> int | None:
    if dof.get('local_index') is None:
        if raw.dofs == 1:
            return 0
        ctx.warn(f'<dof> of {raw.dofs}-DoF joint {raw.name!r} has no local_index; ignored, as '
             'DART ignores it', dof.sourceline, 'SKEL_MALFORMED_ELEMENT')
        return None
    index = ctx.number(dof, attribute='local_index')
    if index != int(index) or not 0 <= index < raw.dofs:
        raise InvalidValueError(f'<dof local_index> {index:g} is not a coordinate of '
                                f'{raw.kind.value} joint {raw.name!r} (0..{raw.dofs - 1})',
                                ctx.file, dof.sourceline)
    return int(index)


def read_joint(ctx: SkelContext, element: etree._Element) -> RawJoint | None:
    """One ``<joint>``, or None for a joint DART discards (an unknown type, no child body; with
    a warning); raises a FormatError subclass for anything DART would not build."""
    name = element.get('name')
    if name is None:
        required_attr(element, 'name', ctx.file)  # raises
    type_name = element.get('type')
    if type_name is None:
        required_attr(element, 'type', ctx.file)  # raises
    if type_name in _UNBUILDABLE:
        raise UnsupportedError(f'joint {name!r} has type {type_name!r}: DART 6.20 reads it but '
                               'cannot build it (the joint is discarded and the skeleton left '
                               'incomplete), so robot_formats refuses it', ctx.file,
                               element.sourceline)
    kind = _KINDS.get(type_name)
    if kind is None:
        ctx.warn(f'joint {name!r} has unknown type {type_name!r}; the joint is ignored, as DART '
             f'ignores it (SKEL joint types: {", ".join(_KINDS)})', element.sourceline,
             'SKEL_UNKNOWN_JOINT_TYPE')
        return None
    kids = index(element)
    sub = kids.get('parent')  # the body names, read past only when missing or empty (warned)
    parent = (sub.text or '').strip() if sub is not None else ''
    if not parent:
        parent = _name_of(ctx, element, kids, 'parent', name) or WORLD
    sub = kids.get('child')
    child_body = (sub.text or '').strip() if sub is not None else ''
    if not child_body and _name_of(ctx, element, kids, 'child', name) is None:
        return None
    raw = RawJoint(name, kind, parent, child_body,
                   transformation(ctx, kids.get('transformation')), element.sourceline)
    if element.get('actuator') is not None:
        raw.actuator = _actuator(ctx, element, name)
    axis_kids: dict[str, Kids] = {}
    _axes(ctx, element, kids, raw, axis_kids)
    if raw.kind is JointType.FIXED and kind is not JointType.FIXED:  # a zero axis: no DoF
        return raw
    _limits_and_dynamics(ctx, element, kids, raw, axis_kids)
    return raw


def _actuator(ctx: SkelContext, element: etree._Element, joint: str) -> str:
    """The ``actuator`` attribute; an unknown one means force with a warning, as in DART (which
    prints an error and keeps loading with its default)."""
    value = element.get('actuator')
    if value is None:
        return 'force'
    actuator = _ACTUATORS.get(value.strip())
    if actuator is None:
        ctx.warn(f'joint {joint!r}: unknown actuator {value!r}, using force as DART does '
                 f'(known: {", ".join(_ACTUATORS)})', element.sourceline, 'WARNING')
        return 'force'
    return actuator
