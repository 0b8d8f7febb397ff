"""SKEL ``<joint>`` elements: kind, axes, limits, dynamics and initial positions of one joint.

Only what a joint says about itself is read here; where it sits (``X_PJ``, which needs both
bodies' initial poses) and in which order DART builds it are decided by :mod:`.reader`.

``screw`` and ``translational2d`` are refused: DART 6.20's parser reads them, but cannot build
them ("Unsupported Joint type ... discarded"), assembly stops there and dartpy usually crashes,
so there is no reference behaviour to match.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from lxml import etree

from ..errors import InvalidValueError, SchemaError, UnsupportedError
from ..model import DOF_SUFFIXES, Dynamics, JointType, Limits, Vec3
from ..xmlsafe import attr_float, local_name, required_attr
from .values import Ctx, child, number, require, transformation, vector

__all__ = ['RawJoint', 'read_joint']

_KINDS = {
    'weld': JointType.FIXED, 'revolute': JointType.REVOLUTE, 'prismatic': JointType.PRISMATIC,
    'universal': JointType.UNIVERSAL, 'ball': JointType.BALL, 'euler': JointType.EULER,
    'translational': JointType.TRANSLATIONAL, 'planar': JointType.PLANAR,
    'free': JointType.FLOATING,
}
_UNBUILDABLE = ('screw', 'translational2d')
_AXIS_TAGS = ('axis', 'axis2', 'axis3')
_PLANES = {'xy': ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)), 'yz': ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
           'zx': ((0.0, 0.0, 1.0), (1.0, 0.0, 0.0))}


@dataclass
class RawJoint:
    """A joint as written: everything but its placement in the parent body."""

    name: str
    kind: JointType
    parent: str
    child: str
    t_cj: np.ndarray                    #: child body frame → joint frame
    line: int | None
    axis: Vec3 = (1.0, 0.0, 0.0)
    axis2: Vec3 | None = None
    axis_order: str = 'xyz'
    limits: list[Limits] = field(default_factory=list)
    dynamics: Dynamics | None = None
    initial: list[float] = field(default_factory=list)

    @property
    def dofs(self) -> int:
        return len(DOF_SUFFIXES[self.kind])


def _name_of(ctx: Ctx, element: etree._Element, tag: str, joint: str) -> str:
    sub = require(ctx, element, tag, f'joint {joint!r}')
    text = (sub.text or '').strip()
    if not text:
        raise SchemaError(f'joint {joint!r} has an empty <{tag}>', ctx.file, sub.sourceline)
    return text


def _unit(ctx: Ctx, element: etree._Element, joint: str) -> Vec3:
    xyz_el = require(ctx, element, 'xyz', f'<{local_name(element)}> of joint {joint!r}')
    xyz = np.asarray(vector(ctx, xyz_el))
    norm = float(np.linalg.norm(xyz))
    if norm < 1e-12:
        raise InvalidValueError(f'joint {joint!r} has a zero-length axis', ctx.file,
                                xyz_el.sourceline)
    return xyz, norm  # type: ignore[return-value]


def _axes(ctx: Ctx, element: etree._Element, raw: RawJoint) -> None:
    if raw.kind in (JointType.REVOLUTE, JointType.PRISMATIC, JointType.UNIVERSAL):
        xyz, norm = _unit(ctx, require(ctx, element, 'axis', f'{raw.kind.value} joint '
                                       f'{raw.name!r}'), raw.name)
        # DART normalises 1-DoF axes but uses universal axes as written.
        raw.axis = tuple(float(v) for v in (xyz if raw.kind is JointType.UNIVERSAL
                                            else xyz / norm))  # type: ignore[assignment]
    if raw.kind is JointType.UNIVERSAL:
        xyz, _ = _unit(ctx, require(ctx, element, 'axis2', f'universal joint {raw.name!r}'),
                       raw.name)
        raw.axis2 = tuple(float(v) for v in xyz)  # type: ignore[assignment]
    if raw.kind is JointType.EULER:
        order_el = require(ctx, element, 'axis_order', f'euler joint {raw.name!r}')
        order = (order_el.text or '').strip()
        if order not in ('xyz', 'zyx'):
            raise InvalidValueError(f'euler joint {raw.name!r} has <axis_order> {order!r}; DART '
                                    "reads only 'xyz' and 'zyx'", ctx.file, order_el.sourceline)
        raw.axis_order = order
    if raw.kind is JointType.PLANAR:
        raw.axis, raw.axis2 = _plane(ctx, element, raw.name)


def _plane(ctx: Ctx, element: etree._Element, joint: str) -> tuple[Vec3, Vec3]:
    """In-plane translation axes t1, t2 (rotation about t1 × t2), as DART's plane types."""
    plane = require(ctx, element, 'plane', f'planar joint {joint!r}')
    kind = plane.get('type')
    if kind in _PLANES:
        return _PLANES[kind]
    if kind != 'arbitrary':
        raise InvalidValueError(f"planar joint {joint!r}: <plane type> must be xy, yz, zx or "
                                f'arbitrary, not {kind!r}', ctx.file, plane.sourceline)
    t1, _ = _unit(ctx, require(ctx, plane, 'translation_axis1'), joint)
    a2, _ = _unit(ctx, require(ctx, plane, 'translation_axis2'), joint)
    t1 = t1 / np.linalg.norm(t1)
    t2 = a2 - (a2 @ t1) * t1
    if np.linalg.norm(t2) < 1e-9:
        raise InvalidValueError(f'planar joint {joint!r}: the translation axes are parallel',
                                ctx.file, plane.sourceline)
    t2 = t2 / np.linalg.norm(t2)
    return tuple(map(float, t1)), tuple(map(float, t2))  # type: ignore[return-value]


def _limits_and_dynamics(ctx: Ctx, element: etree._Element, raw: RawJoint) -> None:
    lower = [-math.inf] * raw.dofs
    upper = [math.inf] * raw.dofs
    for index, tag in enumerate(_AXIS_TAGS[:raw.dofs]):
        axis = child(element, tag)
        if axis is None:
            continue
        limit = child(axis, 'limit')
        if limit is not None:
            for bound, values in (('lower', lower), ('upper', upper)):
                sub = child(limit, bound)
                if sub is not None:
                    values[index] = number(ctx, sub, allow_inf=True)
        dyn = child(axis, 'dynamics')
        if dyn is not None and raw.dynamics is None:
            parts = [child(dyn, t) for t in ('damping', 'friction')]
            raw.dynamics = Dynamics(*(number(ctx, p) if p is not None else 0.0 for p in parts))
    raw.initial = [0.0] * raw.dofs
    init = child(element, 'init_pos')
    if init is not None:
        values = vector(ctx, init, None) if (init.text or '').strip() else ()
        if len(values) != raw.dofs:
            raise InvalidValueError(f'{raw.kind.value} joint {raw.name!r} has {raw.dofs} '
                                    f'degrees of freedom but <init_pos> gives {len(values)} '
                                    'values', ctx.file, init.sourceline)
        raw.initial = list(values)
    for dof in (d for d in element if local_name(d) == 'dof'):
        index = _dof_index(ctx, dof, raw)
        position = child(dof, 'position')
        if position is None:
            continue
        lower[index] = attr_float(position, 'lower', ctx.file, lower[index]) \
            if position.get('lower') is not None else lower[index]
        upper[index] = attr_float(position, 'upper', ctx.file, upper[index]) \
            if position.get('upper') is not None else upper[index]
        if position.get('initial') is not None:
            raw.initial[index] = attr_float(position, 'initial', ctx.file)
    for lo, hi in zip(lower, upper):
        if lo > hi:
            raise InvalidValueError(f'joint {raw.name!r}: lower limit {lo} is above upper '
                                    f'limit {hi}', ctx.file, raw.line)
    if any(math.isfinite(v) for v in lower + upper):
        raw.limits = [Limits(lo if math.isfinite(lo) else None, hi if math.isfinite(hi) else None)
                      for lo, hi in zip(lower, upper)]
    elif raw.kind is JointType.REVOLUTE:
        raw.kind = JointType.CONTINUOUS  # unlimited hinge: the model's name for it


def _dof_index(ctx: Ctx, dof: etree._Element, raw: RawJoint) -> int:
    if dof.get('local_index') is None:
        if raw.dofs == 1:
            return 0
        raise SchemaError(f'<dof> of {raw.dofs}-DoF joint {raw.name!r} needs local_index',
                          ctx.file, dof.sourceline)
    index = attr_float(dof, 'local_index', ctx.file)
    if index != int(index) or not 0 <= index < raw.dofs:
        raise InvalidValueError(f'<dof local_index> {index:g} is not a coordinate of '
                                f'{raw.kind.value} joint {raw.name!r} (0..{raw.dofs - 1})',
                                ctx.file, dof.sourceline)
    return int(index)


def read_joint(ctx: Ctx, element: etree._Element) -> RawJoint:
    """One ``<joint>``; raises a FormatError subclass for anything DART would not build."""
    name = required_attr(element, 'name', ctx.file)
    type_name = required_attr(element, 'type', ctx.file)
    if type_name in _UNBUILDABLE:
        raise UnsupportedError(f'joint {name!r} has type {type_name!r}: DART 6.20 reads it but '
                               'cannot build it (the joint is discarded and the skeleton left '
                               'incomplete), so robot_formats refuses it', ctx.file,
                               element.sourceline)
    kind = _KINDS.get(type_name)
    if kind is None:
        raise SchemaError(f'joint {name!r} has unknown type {type_name!r} (SKEL joint types: '
                          f'{", ".join(_KINDS)})', ctx.file, element.sourceline)
    raw = RawJoint(name, kind, _name_of(ctx, element, 'parent', name),
                   _name_of(ctx, element, 'child', name),
                   transformation(ctx, child(element, 'transformation')), element.sourceline)
    _axes(ctx, element, raw)
    _limits_and_dynamics(ctx, element, raw)
    return raw
