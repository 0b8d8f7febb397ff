"""Phase 2 of reading HRDF: checked nodes → the neutral kinematic model.

Element order is HEBI's: depth first in document order, includes expanded in place, an element
with ``<output>`` children followed by the subtree of output 0, then output 1, ... Each
element ``E`` (named by its ``tag``, else ``<kind>_<index>`` with ``-`` → ``_`` and the index
in element order, e.g. ``actuator_0``, ``rigid_body_3``, ``end_effector_11``) becomes:

* a link ``E`` at the element's **input** frame, holding its mass, centre of mass and inertia
  (HEBI keeps an actuator's mass in its housing: the COM does not turn with the joint);
* its **output** frames: ``E/output`` (``E/output0``, ``E/output1``, ... for a rigid body or
  bracket with ``<output>`` children). For an actuator or joint element the output is a link
  moved by joint ``E``; for the other elements it is a fixed frame. An end effector's frame is
  its output frame ``E/output``;
* actuators: a continuous joint ``E`` (axis z, at the output height, effort/velocity limits
  from HEBI's library); joint elements: a continuous (rx, ry, rz) or prismatic (tx, ty, tz)
  joint ``E``. With ``gear_ratio`` g ≠ 1 the DoF ``E`` is the *motor* angle: joint ``E``
  turns a massless link ``E/motor`` and a joint ``E/output`` mimics it with multiplier 1/g, so
  the output moves at q/g as the spec says;
* the next element's input link hangs from the output by a fixed joint ``<next>/input``.

The root link ``world`` is HEBI's world frame; ``base`` (fixed joint ``base_joint``) is placed
by ``<robot rot trans>`` as HEBI's forward kinematics place the robot's base.

Every number that reaches the model is finite and within
:data:`~robot_formats.core.limits.MAX_MAGNITUDE` where it is made
(:func:`~robot_formats.core.limits.in_range`, at the element's line): translations where they
are read (:meth:`~robot_formats.formats.hrdf.values.Attrs.translation`), and what the builder
derives from the attributes (a link's shape, overridden mass properties, a gear ratio's
multiplier, a rigid body's output tube); rotations are unit quaternions, and the rest comes
from HEBI's catalogue. Every name is non-empty (a tag, else a default name).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from lxml import etree

from robot_formats.core.errors import (DuplicateNameError, InvalidValueError,
                                       SchemaError, StructureError)
from robot_formats.core.files import is_regular_file
from robot_formats.core.limits import in_range
from robot_formats.core.model import (IDENTITY, Box, Cylinder, Frame, Inertial, Joint, JointType,
                                      Limits, Link, Inertia6, Material, Mesh, Mimic, Model, Pose,
                                      Sphere, Visual)
from robot_formats.core.rotations import Q_IDENTITY, axis_quat, rotate, z_to
from robot_formats.formats.hrdf.catalogue import (ACTUATORS, BRACKETS, END_EFFECTORS, JOINT_AXES,
                                                  LINKS, Actuator, Bracket, EndEffector, LinkType,
                                                  interface_name, link_inertia,
                                                  link_mass)
from robot_formats.formats.hrdf.elements import Node, resolve_relative
from robot_formats.formats.hrdf.geometry import Quat, Vec, compose, pose
from robot_formats.formats.hrdf.values import Attrs, relative_path_is_absolute
from robot_formats.formats.hrdf.versions import Version

__all__ = ['build_model', 'default_name', 'ROOT_LINK', 'BASE_LINK']

ROOT_LINK = 'world'
BASE_LINK = 'base'
_RED = Material('hebi_red', (0.82, 0.06, 0.06, 1.0))
_BLACK = Material('hebi_black', (0.1, 0.1, 0.1, 1.0))
_TANGERINE = Material('hebi_tangerine', (0.91, 0.43, 0.218, 1.0))
_SILVER = Material('hebi_silver', (0.6, 0.6, 0.6, 1.0))
_LINK_RADIUS = 0.016   # hebi_description link.xacro tube radius
_INERTIA_NAMES = ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz')
#: The attributes that override an element's mass properties (the library's values).
_MASS_ATTRIBUTES = frozenset({'mass', 'mass_offset', 'com_rot', 'com_trans', 'com_trans_offset',
                              *_INERTIA_NAMES})
Interface = tuple[str, str] | None
#: The joint kinds the builder makes (module constants: an Enum member read through its class
#: costs more, on every element).
_FIXED, _CONTINUOUS, _PRISMATIC = JointType.FIXED, JointType.CONTINUOUS, JointType.PRISMATIC
_Z_AXIS = (0.0, 0.0, 1.0)
#: Inline interfaces: input Ry(-pi/2), output Ry(pi/2) (RightAngle ones are Tz(d)).
_INLINE_IN = axis_quat('y', -math.pi / 2)
_INLINE_OUT = axis_quat('y', math.pi / 2)
_LINK_ENDS = ('RightAngle', 'Inline')
#: A link's tube (a cylinder along z) turned along the extension (x): Ry(pi/2), as a Pose has it.
_Q_TUBE = pose(None, _INLINE_OUT).quat
_Q_NONE = IDENTITY.quat


def default_name(kind: str, index: int) -> str:
    """The name of an element without a tag: ``actuator_0``, ``rigid_body_3``, ..."""
    return f'{kind.replace("-", "_")}_{index}'


# --- what each catalogue entry contributes, built once at import ------------------------------

@dataclass(frozen=True, slots=True)
class _Parts:
    """The model pieces of one catalogue entry that do not depend on the element's attributes:
    interfaces, library mass properties (as an Inertial), output pose, visuals."""

    spec: object
    feature: str | None          #: the version feature that introduced the type (None: 1.0.0)
    input: Interface
    output: Interface
    #: a link type's is massless: a link's own depends on its extension (_Builder._link_shape)
    inertial: Inertial
    visuals: tuple[Visual, ...] = ()
    out_pose: Pose = IDENTITY
    joint_origin: Pose = IDENTITY
    limits: tuple[Limits, ...] = ()


def _actuator_parts(spec: Actuator) -> _Parts:
    length, width = spec.outline
    material = _RED if spec.name.startswith('X') else (
        _TANGERINE if spec.name.startswith('T') else _BLACK)
    visuals = (Visual(Box((length, width, spec.height)),
                      Pose((spec.com[0], spec.com[1], spec.height / 2.0)), material=material),)
    return _Parts(spec, spec.feature, (f'{spec.interface}-AH', 'A'), (f'{spec.interface}-AO', 'A'),
                  Inertial(spec.mass, pose(spec.com, None), spec.inertia), visuals,
                  joint_origin=Pose((0.0, 0.0, spec.height)),
                  limits=(Limits(None, None, spec.max_effort, spec.max_speed),))


def _bracket_parts(spec: Bracket) -> _Parts:
    y, z = spec.output_yz
    com = (0.0, *spec.com_yz)
    out_pose = pose((0.0, y, z), axis_quat('x', -math.pi / 2 if spec.left else math.pi / 2))
    visual = Visual(Box((0.05, abs(y) + 0.01, z)), Pose((0.0, y / 2.0, z / 2.0)),
                    material=_SILVER)
    return _Parts(spec, spec.feature, (f'{spec.interface}-AO', 'B'), (f'{spec.interface}-AH', 'B'),
                  Inertial(spec.mass, pose(com, None), spec.inertia), (visual,), out_pose)


def _link_parts(spec: LinkType) -> _Parts:
    return _Parts(spec, spec.feature, (f'{spec.input_interface}-AO', 'B'),
                  (f'{spec.output_interface}-AH', 'B'), Inertial(0.0))


def _end_effector_parts(spec: EndEffector) -> _Parts:
    visuals: tuple[Visual, ...] = ()
    if spec.interface is not None:
        visuals = (Visual(Box((0.10, 0.05, 0.095)), Pose((0.0, 0.0, 0.0475)),
                          material=_BLACK),)
    return _Parts(spec, None,
                  None if spec.interface is None else (f'{spec.interface}-AO', 'B'), None,
                  Inertial(spec.mass, pose(spec.com, None), spec.inertia), visuals,
                  pose(spec.default_output, None))


#: kind -> (type name -> parts, what the type is called in messages)
_CATALOGUE: dict[str, tuple[dict[str, _Parts], str]] = {
    'actuator': ({n: _actuator_parts(s) for n, s in ACTUATORS.items()}, 'actuator'),
    'bracket': ({n: _bracket_parts(s) for n, s in BRACKETS.items()}, 'bracket'),
    'link': ({n: _link_parts(s) for n, s in LINKS.items()}, 'link type'),
    'end-effector': ({n: _end_effector_parts(s) for n, s in END_EFFECTORS.items()},
                     'end-effector type'),
}


class _Output(NamedTuple):
    """Where the next element attaches: a link, the pose in it, and the interface offered."""

    link: str
    pose: Pose                     #: of the output in ``link``
    interface: Interface
    owner: Node | None = None
    ended: bool = False            #: an end effector: nothing may follow
    branched: bool = False         #: an element with <output> children: nothing may follow


class _Builder:
    def __init__(self, file: str | None, tags: set[str]) -> None:
        self.file = file
        self.links: list[Link] = []
        self.joints: list[Joint] = []
        self.frames: list[Frame] = []
        self.index = 0
        self.tags: dict[str, Node] = {}
        self.all_tags = tags
        self.names: set[str] = set()
        #: (link type, extension, twist, inline input, inline output) -> what _link_shape makes
        self._link_shapes: dict[tuple, tuple[Pose, Inertial, tuple[Visual, ...]]] = {}

    # --- chains -----------------------------------------------------------------------------
    def chain(self, nodes: list[Node], start: _Output) -> None:
        """Build ``nodes`` one after the other from ``start``: per element the attachment
        checks, its name and its input joint, then what its kind contributes."""
        previous = start
        for node in nodes:
            if previous.ended or previous.branched:
                self._refuse_attachment(node, previous)
            catalogue = _CATALOGUE.get(node.kind)
            parts = None
            if catalogue is not None:
                table, what = catalogue
                parts = self._typed(node, table, what)
                wanted, offered = parts.input, previous.interface
                if wanted is not None and offered is not None and (
                        offered[0] != wanted[0] or offered[1] == wanted[1]):
                    self._refuse_interface(node, previous, wanted)
            name = self._name(node)
            line = node.attrs.line
            self.joints.append(Joint(f'{name}/input', _FIXED, previous.link, name,
                                     previous.pose, line=line))
            previous = self.element(node, parts, name, line)

    def _name(self, node: Node) -> str:
        """The element's tag, else its default name (:func:`default_name` with its index in
        element order, ``_`` appended while another element has that name)."""
        index = self.index
        self.index = index + 1
        tag = node.attrs.get('tag')
        if tag:
            name = self._tagged(node, tag)
        else:
            name = default_name(node.kind, index)
            while name in self.all_tags or name in self.names:
                name += '_'
        self.names.add(name)
        return name

    def _tagged(self, node: Node, tag: str) -> str:
        if tag in self.tags:
            first = self.tags[tag]
            raise DuplicateNameError(
                f'tag {tag!r} of <{node.kind}> is used twice (first on <{first.kind}> at '
                f'{first.attrs.file}:{first.line}); tags must be unique in the whole robot, '
                'includes too', node.attrs.file, node.line, code='DUPLICATE_NAME')
        self.tags[tag] = node
        return tag

    @staticmethod
    def _refuse_attachment(node: Node, previous: _Output) -> None:
        owner = previous.owner
        if previous.ended:
            raise StructureError(f'<{node.kind}> follows an end effector (<end-effector> at '
                                 f'line {owner.line if owner else "?"}); an end effector ends '
                                 'its chain', node.attrs.file, node.line,
                                 code='HRDF_AFTER_END_EFFECTOR')
        raise StructureError(f'<{node.kind}> follows a <{owner.kind if owner else "?"}> '
                             'that has <output> children; put it inside one of the '
                             '<output> elements', node.attrs.file, node.line,
                             code='HRDF_AFTER_OUTPUTS')

    @staticmethod
    def _refuse_interface(node: Node, previous: _Output, wanted: Interface) -> None:
        owner = previous.owner
        before = f'<{owner.kind} type={owner.attrs.get("type")!r}>' if owner else 'the base'
        raise StructureError(
            f'<{node.kind} type={node.attrs.get("type")!r}> (input '
            f'{interface_name(wanted)}) cannot attach to {before} (output '
            f'{interface_name(previous.interface)}): adjacent interfaces must be the same '
            'type with opposite polarity', node.attrs.file, node.line,
            code='HRDF_INTERFACE_MISMATCH')

    # --- one element ------------------------------------------------------------------------
    def element(self, node: Node, parts: _Parts | None, name: str, line: int | None
                ) -> _Output:
        """What element ``name`` (its input joint made) contributes; where the next attaches."""
        kind = node.kind
        if kind == 'actuator':
            assert parts is not None
            return self._actuator_element(node, parts, name, line)
        if kind == 'joint':
            return self._joint_element(node, name, line)
        if kind == 'bracket':
            assert parts is not None and isinstance(parts.spec, Bracket)  # a bracket's entry
            self.links.append(Link(name, self._inertial(node, parts.inertial), parts.visuals, (),
                                   line))
            out_pose = parts.out_pose
            if node.outputs is not None:  # (a bracket has one output; checked in phase 1)
                return self._branches(node, name, line, [out_pose], parts.output)
        elif kind == 'link':
            assert parts is not None
            out_pose = self._link_element(node, parts, name, line)
        elif kind == 'end-effector':
            assert parts is not None
            out_pose = self._end_effector_element(node, parts, name, line)
        else:
            poses = self._rigid_body_element(node, name, line)
            if node.outputs is not None:
                return self._branches(node, name, line, poses, None)
            out_pose = poses[0]
        self.frames.append(Frame(f'{name}/output', name, out_pose, line))
        return _Output(name, out_pose, parts.output if parts is not None else None, node,
                       ended=kind == 'end-effector')

    def _branches(self, node: Node, name: str, line: int | None, poses: list[Pose],
                  interface: Interface) -> _Output:
        assert node.outputs is not None
        for k, ((_, sub), out_pose) in enumerate(zip(node.outputs, poses)):
            frame = f'{name}/output' if k == 0 else f'{name}/output{k}'
            self.frames.append(Frame(frame, name, out_pose, line))
            self.chain(sub, _Output(name, out_pose, interface, node))
        return _Output(name, IDENTITY, interface, node, branched=True)

    # --- actuators and joints ---------------------------------------------------------------
    def _actuator_element(self, node: Node, parts: _Parts, name: str, line: int | None
                          ) -> _Output:
        assert isinstance(parts.spec, Actuator)  # an actuator's catalogue entry
        self.links.append(Link(name, self._inertial(node, parts.inertial), parts.visuals, (), line))
        output = f'{name}/output'
        self.links.append(Link(output, None, (), (), line))
        self.joints.append(Joint(name, _CONTINUOUS, name, output, parts.joint_origin,
                                 _Z_AXIS, limits=parts.limits, line=line))
        return _Output(output, IDENTITY, parts.output, node)

    def _joint_element(self, node: Node, name: str, line: int | None) -> _Output:
        attrs = node.attrs
        text = attrs.get('axis') or ''
        negative = text.startswith('-')
        axis_name = attrs.enum('axis', tuple(JOINT_AXES), None) if not negative else \
            attrs.enum('axis', tuple('-' + a for a in JOINT_AXES), None)
        if axis_name is None:
            raise attrs.invalid('axis', text, 'expected one of rx, ry, rz, tx, ty, tz')
        if negative:
            attrs.warn(f'<joint axis={text!r}>: a negative axis is not in the HRDF spec; HEBI '
                       'accepts it as the motion about/along the negative axis, and so do we',
                       'HRDF_NEGATIVE_AXIS')
        kind_name, unit = JOINT_AXES[axis_name.lstrip('-')]
        axis = (-unit[0], -unit[1], -unit[2]) if negative else unit
        kind = _CONTINUOUS if kind_name == 'revolute' else _PRISMATIC
        ratio = attrs.formula('gear_ratio', 1.0)
        assert ratio is not None  # a default is given
        self.links.append(Link(name, None, (), (), line))
        output = f'{name}/output'
        self.links.append(Link(output, None, (), (), line))
        if ratio == 1.0:
            self.joints.append(Joint(name, kind, name, output, axis=axis, line=line))
        else:
            motor = f'{name}/motor'
            self.links.append(Link(motor, None, (), (), line))
            self.joints.append(Joint(name, kind, name, motor, axis=axis, line=line))
            if ratio == 0.0 or math.isnan(ratio):
                attrs.warn(f'<joint gear_ratio={attrs.get("gear_ratio")!r}>: the output would '
                           'move at q/0 (HEBI computes NaN poses); the output is kept fixed',
                           'HRDF_GEAR_RATIO_ZERO')
                self.joints.append(Joint(output, _FIXED, name, output, line=line))
            else:
                multiplier = 1.0 / ratio
                in_range((multiplier,), f'<joint gear_ratio={attrs.get("gear_ratio")!r}>: the '
                         'output\'s multiplier 1/gear_ratio', attrs.file, line)
                self.joints.append(Joint(output, kind, name, output, axis=axis,
                                         mimic=Mimic(name, multiplier, 0.0), line=line))
        return _Output(output, IDENTITY, None, node)

    # --- static elements --------------------------------------------------------------------
    def _link_element(self, node: Node, parts: _Parts, name: str, line: int | None) -> Pose:
        attrs = node.attrs
        spec = parts.spec
        assert isinstance(spec, LinkType)  # a link's catalogue entry
        inline_in = self._link_end(attrs, 'input')
        inline_out = self._link_end(attrs, 'output')
        if inline_out and not spec.inline_output:
            raise attrs.invalid('output', attrs.get('output') or '', f'a {spec.name} link '
                                'cannot have an Inline output')
        extension = self._finite(attrs, 'extension')
        twist = self._finite(attrs, 'twist')
        out_pose, library, visuals = self._link_shape(attrs, spec, extension, twist, inline_in,
                                                      inline_out)
        self.links.append(Link(name, self._inertial(node, library), visuals, (), line))
        return out_pose

    def _link_shape(self, attrs: Attrs, spec: LinkType, extension: float, twist: float,
                    inline_in: bool, inline_out: bool
                    ) -> tuple[Pose, Inertial, tuple[Visual, ...]]:
        """A link's output pose, library mass properties and visuals, made once per document
        for each type, extension, twist and pair of ends (a kit's links are often alike), and
        every number of them in range (a long extension makes a heavy link; ``attrs``: the
        first link of that shape, where an error is)."""
        key = (spec.name, extension, twist, inline_in, inline_out)
        shape = self._link_shapes.get(key)
        if shape is not None:
            return shape
        d = spec.d
        # inlet · Tx(e) · Rx(twist) · outlet: inlet and outlet Tz(d) (RightAngle) or the
        # inline rotations
        t_in, q_in = ((0.0, 0.0, 0.0), _INLINE_IN) if inline_in else ((0.0, 0.0, d), Q_IDENTITY)
        t_out, q_out = ((0.0, 0.0, 0.0), _INLINE_OUT) if inline_out else ((0.0, 0.0, d),
                                                                          Q_IDENTITY)
        t, q = compose(t_in, q_in, (extension, 0.0, 0.0), axis_quat('x', twist))
        t, q = compose(t, q, t_out, q_out)
        x, y, z = rotate(q_in, (extension / 2.0, 0.0, 0.0))
        com: Vec = (x + t_in[0], y + t_in[1], z + t_in[2])
        mass = link_mass(spec, extension, inline_in, inline_out)
        inertia = link_inertia(mass, extension, d, inline_in)
        in_range((extension, *t, *com, mass, *inertia),
                 f'<link> extension={attrs.get("extension")!r}: the link\'s pose, mass or '
                 'inertia', attrs.file, attrs.line)
        library = Inertial(mass, pose(com, None), inertia)
        visuals: tuple[Visual, ...] = ()
        if abs(extension) > 1e-6:
            visuals = (Visual(Cylinder(_LINK_RADIUS, abs(extension)),
                              Pose(com, _Q_NONE if inline_in else _Q_TUBE), material=_BLACK),)
        shape = self._link_shapes[key] = (pose(t, q), library, visuals)
        return shape

    @staticmethod
    def _link_end(attrs: Attrs, which: str) -> bool:
        """True for an Inline ``input``/``output``, False for RightAngle (the default)."""
        value = attrs.enum(which, _LINK_ENDS, 'RightAngle')
        if value is None:
            raise attrs.invalid(which, attrs.get(which) or '', 'expected RightAngle or Inline')
        return value == 'Inline'

    def _end_effector_element(self, node: Node, parts: _Parts, name: str, line: int | None
                              ) -> Pose:
        attrs = node.attrs
        spec = parts.spec
        assert isinstance(spec, EndEffector)  # an end effector's catalogue entry
        out_pose = parts.out_pose
        if attrs.names:
            rotation = attrs.rotation('output_rot')
            translation = attrs.translation('output_trans')
            if rotation is not None or translation is not None:
                out_pose = pose(spec.default_output if translation is None else translation,
                                rotation)
        self.links.append(Link(name, self._inertial(node, parts.inertial), parts.visuals, (),
                               line))
        return out_pose

    def _rigid_body_element(self, node: Node, name: str, line: int | None) -> list[Pose]:
        attrs = node.attrs
        rotation = attrs.rotation('output_rot')
        translation = attrs.translation('output_trans')
        if node.outputs is not None:
            if rotation is not None or translation is not None:
                attrs.warn('<rigid-body> has output_rot/output_trans and <output> children: '
                           'valid HRDF (they are the outputs\' defaults) but HEBI\'s library '
                           'rejects this combination', 'HRDF_HEBI_DIFFERS')
            poses = []
            for output_attrs, _ in node.outputs:
                rot = output_attrs.rotation('rot')
                trans = output_attrs.translation('trans')
                poses.append(pose(trans if trans is not None else translation,
                                  rot if rot is not None else rotation))
        else:
            poses = [pose(translation, rotation)]
        mass = self._number(attrs, 'mass')
        visuals = self._rigid_body_visuals(node, mass, poses)
        self.links.append(Link(name, self._inertial(node, Inertial(mass)), visuals, (), line))
        return poses

    # --- mass properties --------------------------------------------------------------------
    def _inertial(self, node: Node, library: Inertial) -> Inertial | None:
        """The element's mass properties: ``library`` (its type's from HEBI's library, a
        link's for its shape, a rigid body's mass at its origin) with what its attributes
        override; ``library`` itself when they override nothing."""
        if _MASS_ATTRIBUTES.isdisjoint(node.attrs.names):  # (most elements override nothing)
            return library if _physical(library.mass) else self._unphysical(node, library.mass)
        given = _MASS_ATTRIBUTES.intersection(node.attrs.names)  # what the element overrides
        mass, com, com_rot, inertia = self._overridden(node, given, library.mass,
                                                       library.origin.xyz, library.inertia)
        if not _physical(mass):
            return self._unphysical(node, mass)
        in_range((mass, *com, *inertia), f'<{node.kind}>: the mass properties', node.attrs.file,
                 node.attrs.line)
        return Inertial(mass, pose(com, com_rot), inertia)

    def _overridden(self, node: Node, given: frozenset[str], mass: float, com: Vec,
                    inertia: Inertia6) -> tuple[float, Vec, Quat | None, Inertia6]:
        """(mass, com, com_rot, inertia) with the attributes ``given`` applied."""
        attrs = node.attrs
        if 'mass' in given and 'mass_offset' in given:
            raise SchemaError(f'<{node.kind}> has both mass and mass_offset; give one',
                              attrs.file, attrs.line, code='HRDF_MASS_AND_OFFSET')
        if 'com_trans' in given and 'com_trans_offset' in given:
            raise SchemaError(f'<{node.kind}> has both com_trans and com_trans_offset; give one',
                              attrs.file, attrs.line, code='HRDF_COM_AND_OFFSET')
        if node.kind != 'rigid-body':  # (a rigid body's mass is its own, read by the caller)
            if 'mass' in given:
                mass = self._number(attrs, 'mass')
            elif 'mass_offset' in given:
                mass = mass + self._number(attrs, 'mass_offset')
        if 'com_trans' in given:
            stated = attrs.translation('com_trans')
            assert stated is not None  # given: the element has the attribute
            com = stated
        elif 'com_trans_offset' in given:
            offset = attrs.translation('com_trans_offset')
            assert offset is not None  # given: the element has the attribute
            com = (com[0] + offset[0], com[1] + offset[1], com[2] + offset[2])
        com_rot = attrs.rotation('com_rot') if 'com_rot' in given else None
        values = list(inertia)
        for i, moment in enumerate(_INERTIA_NAMES):
            if moment in given:
                value = attrs.formula(moment)
                if value is None or not math.isfinite(value):
                    raise attrs.invalid(moment, attrs.get(moment) or '', 'not a finite number')
                values[i] = value
        ixx, ixy, ixz, iyy, iyz, izz = values
        return mass, com, com_rot, (ixx, ixy, ixz, iyy, iyz, izz)

    @staticmethod
    def _unphysical(node: Node, mass: float) -> None:
        node.attrs.warn(f'<{node.kind}> has mass {mass!r}; HEBI accepts it, but no physical '
                        'body has it, so this body is written without mass properties',
                        'HRDF_UNPHYSICAL_MASS')
        return None

    def _finite(self, attrs: Attrs, name: str) -> float:
        value = attrs.formula(name)
        if value is None or not math.isfinite(value):
            raise attrs.invalid(name, attrs.get(name) or '', 'not a finite number')
        return value

    @staticmethod
    def _number(attrs: Attrs, name: str) -> float:
        """A present formula attribute, non-finite allowed (HEBI accepts mass="1/0"; the
        caller decides what it means)."""
        value = attrs.formula(name)
        return 0.0 if value is None else value

    # --- catalogue look-ups -----------------------------------------------------------------
    @staticmethod
    def _typed(node: Node, table: dict[str, _Parts], what: str) -> _Parts:
        attrs = node.attrs
        text = attrs.element.get('type')
        if text is None:
            if node.kind == 'end-effector':
                return table['Custom']
            raise SchemaError(f'<{node.kind}> needs a type attribute', attrs.file, attrs.line)
        parts = table.get(text)
        if parts is None:
            name = attrs.enum('type', tuple(table), None)
            if name is None:
                raise InvalidValueError(f'<{node.kind}> type={text!r} is not a HEBI {what}; '
                                        f'known: {", ".join(table)}', attrs.file, attrs.line,
                                        code='HRDF_UNKNOWN_TYPE')
            parts = table[name]
        feature = parts.feature
        if feature is not None and not attrs.version.has(feature):
            raise InvalidValueError(f'<{node.kind}> type={text!r} needs HRDF version '
                                    f'{Version.introducing(feature)} or later; this file is '
                                    f'{attrs.version}', attrs.file, attrs.line,
                                    code='HRDF_VERSION_GATE')
        return parts

    # --- visuals ----------------------------------------------------------------------------
    def _rigid_body_visuals(self, node: Node, mass: float, outputs: list[Pose]
                            ) -> tuple[Visual, ...]:
        attrs = node.attrs
        mesh_path = attrs.get('mesh_path')
        if mesh_path is None and (attrs.get('mesh_rot') is not None
                                  or attrs.get('mesh_trans') is not None):
            which = 'mesh_rot' if attrs.get('mesh_rot') is not None else 'mesh_trans'
            raise SchemaError(f'<rigid-body> has {which} but no mesh_path', attrs.file,
                              attrs.line, code='HRDF_MESH_WITHOUT_PATH')
        mesh_pose = pose(attrs.translation('mesh_trans'), attrs.rotation('mesh_rot'))
        if mesh_path:
            if '://' not in mesh_path and relative_path_is_absolute(mesh_path):
                raise InvalidValueError(f'<rigid-body mesh_path={mesh_path!r}>: mesh paths must '
                                        'be relative to the HRDF file', attrs.file, attrs.line,
                                        code='URI_INVALID')
            if '://' not in mesh_path:
                target = resolve_relative(mesh_path, attrs.file)
                if is_regular_file(target):
                    return (Visual(Mesh(target.as_uri()), mesh_pose),)
                attrs.warn(f'<rigid-body mesh_path={mesh_path!r}>: no such file ({target}); '
                           'drawn as simple shapes', 'HRDF_MESH_MISSING')
        visuals = []
        if mass > 0 and math.isfinite(mass):
            radius = min(max((3.0 * mass / (4.0 * math.pi * 2700.0)) ** (1 / 3), 0.01), 0.1)
            visuals.append(Visual(Sphere(radius), material=_SILVER))
        for output in outputs:
            x, y, z = output.xyz
            length = math.sqrt(x * x + y * y + z * z)
            in_range((length,), '<rigid-body>: the length of an output', attrs.file, attrs.line)
            if length > 1e-3:
                direction = (x / length, y / length, z / length)
                visuals.append(Visual(Cylinder(0.01, length),
                                      pose((x / 2.0, y / 2.0, z / 2.0), z_to(direction)),
                                      material=_SILVER))
        return tuple(visuals)


def _physical(mass: float) -> bool:
    """Whether a body can have ``mass`` (finite, not negative)."""
    return math.isfinite(mass) and mass >= 0.0


def _free_name(name: str, tags: set[str]) -> str:
    """``world``/``base`` unless an element is tagged so (HEBI allows it): then ``world_``..."""
    while name in tags:
        name += '_'
    return name


def implicit_end_effector(root_attrs: Attrs) -> Node:
    """The Custom end effector HEBI appends to files of version <= 1.1.0 (``root_attrs``: the
    document's root element's)."""
    return Node('end-effector', Attrs(etree.Element('end-effector'), root_attrs.file,
                                      root_attrs.version, root_attrs.ctx),
                implicit=True, file=root_attrs.file)


def build_model(root_attrs: Attrs, nodes: list[Node], name: str, file: str | None,
                root_link: str = ROOT_LINK) -> Model:
    """The model of a document's root attributes and node chain (the tags of its elements
    gathered in the document's context as they were read)."""
    tags = root_attrs.ctx.tags
    builder = _Builder(file, tags)
    rotation = root_attrs.rotation('rot')
    translation = root_attrs.translation('trans')
    root, base = _free_name(root_link, tags), _free_name(BASE_LINK, tags)
    line = root_attrs.line
    builder.links.append(Link(root, None, (), (), line))
    builder.links.append(Link(base, None, (), (), line))
    builder.joints.append(Joint(f'{base}_joint', _FIXED, root, base, pose(translation, rotation),
                                line=line))
    builder.chain(nodes, _Output(base, IDENTITY, None))
    return Model(name, tuple(builder.links), tuple(builder.joints), tuple(builder.frames),
                 source=file)
