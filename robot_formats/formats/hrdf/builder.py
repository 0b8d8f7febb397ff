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
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from lxml import etree

from robot_formats.core.errors import (Diagnostic, DuplicateNameError, InvalidValueError,
                                       SchemaError, StructureError)
from robot_formats.core.model import (IDENTITY, Box, Cylinder, Frame, Inertial, Joint, JointType,
                                      Limits, Link, Inertia6, Material, Mesh, Mimic, Model, Pose,
                                      Sphere, Visual, vec3)
from robot_formats.core.transforms import matrix_to_pose
from robot_formats.formats.hrdf.catalogue import (ACTUATORS, BRACKETS, END_EFFECTORS, JOINT_AXES,
                                                  LINKS, compatible, interface_name, link_inertia,
                                                  link_mass)
from robot_formats.formats.hrdf.elements import Node, is_file, resolve_relative
from robot_formats.formats.hrdf.values import Attrs, relative_path_is_absolute, rotation_about
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
#: Attributes that change an element's mass properties (absent: the library's values).
_MASS_ATTRIBUTES = frozenset({'mass', 'mass_offset', 'com_rot', 'com_trans', 'com_trans_offset',
                              *_INERTIA_NAMES})
Interface = tuple[str, str] | None


def default_name(kind: str, index: int) -> str:
    """The name of an element without a tag: ``actuator_0``, ``rigid_body_3``, ..."""
    return f'{kind.replace("-", "_")}_{index}'


_EYE = np.eye(4)
_EYE.setflags(write=False)


def _pose(matrix: np.ndarray) -> Pose:
    """``matrix_to_pose`` with fast paths for the identity and pure translations (most HRDF
    offsets), which need no quaternion conversion."""
    if matrix is _EYE:
        return IDENTITY
    rotation = matrix[:3, :3]
    if (rotation == _EYE[:3, :3]).all():
        return Pose((float(matrix[0, 3]), float(matrix[1, 3]), float(matrix[2, 3])))
    return matrix_to_pose(matrix)


def _transform(rotation: np.ndarray | None = None, translation=None) -> np.ndarray:
    if rotation is None and translation is None:
        return _EYE
    out = np.eye(4)
    if rotation is not None:
        out[:3, :3] = rotation
    if translation is not None:
        out[:3, 3] = translation
    return out


def _tz(z: float) -> np.ndarray:
    return _transform(None, (0.0, 0.0, z))


@dataclass
class _Output:
    """Where the next element attaches: a link, the pose in it, and the interface offered."""

    link: str
    pose: Pose                   # of the output in ``link``
    interface: Interface
    owner: Node | None = None
    ended: bool = False          # an end effector: nothing may follow
    branched: bool = False       # an element with <output> children: nothing may follow


@dataclass
class _Body:
    """What an element contributes besides its joints: mass properties and outputs."""

    mass: float
    com: np.ndarray
    inertia: Inertia6
    outputs: list[np.ndarray]
    visuals: tuple[Visual, ...] = ()


class _Builder:
    def __init__(self, file: str | None, warnings: list[Diagnostic], tags: set[str]) -> None:
        self.file = file
        self.warnings = warnings
        self.links: list[Link] = []
        self.joints: list[Joint] = []
        self.frames: list[Frame] = []
        self.index = 0
        self.tags: dict[str, Node] = {}
        self.all_tags = tags
        self.names: set[str] = set()

    # --- naming -----------------------------------------------------------------------------
    def name_for(self, node: Node, index: int) -> str:
        tag = node.attrs.get('tag')
        if tag:
            if tag in self.tags:
                first = self.tags[tag]
                raise DuplicateNameError(
                    f'tag {tag!r} of <{node.kind}> is used twice (first on <{first.kind}> at '
                    f'{first.attrs.file}:{first.line}); tags must be unique in the whole robot, '
                    'includes too', node.attrs.file, node.line, code='DUPLICATE_NAME')
            self.tags[tag] = node
            name = tag
        else:
            name = default_name(node.kind, index)
            while name in self.all_tags or name in self.names:
                name += '_'
        self.names.add(name)
        return name

    # --- chains -----------------------------------------------------------------------------
    def chain(self, nodes: list[Node], start: _Output) -> None:
        previous = start
        for node in nodes:
            self._check_attachment(node, previous)
            previous = self.element(node, previous)

    def _check_attachment(self, node: Node, previous: _Output) -> None:
        owner = previous.owner
        if previous.ended:
            raise StructureError(f'<{node.kind}> follows an end effector (<end-effector> at '
                                 f'line {owner.line if owner else "?"}); an end effector ends '
                                 'its chain', node.attrs.file, node.line,
                                 code='HRDF_AFTER_END_EFFECTOR')
        if previous.branched:
            raise StructureError(f'<{node.kind}> follows a <{owner.kind if owner else "?"}> '
                                 'that has <output> children; put it inside one of the '
                                 '<output> elements', node.attrs.file, node.line,
                                 code='HRDF_AFTER_OUTPUTS')
        wanted = self._input_interface(node)
        if not compatible(previous.interface, wanted):
            before = f'<{owner.kind} type={owner.attrs.get("type")!r}>' if owner else 'the base'
            raise StructureError(
                f'<{node.kind} type={node.attrs.get("type")!r}> (input '
                f'{interface_name(wanted)}) cannot attach to {before} (output '
                f'{interface_name(previous.interface)}): adjacent interfaces must be the same '
                'type with opposite polarity', node.attrs.file, node.line,
                code='HRDF_INTERFACE_MISMATCH')

    def _input_interface(self, node: Node) -> Interface:
        kind = node.kind
        if kind == 'actuator':
            return (f'{self._actuator(node).interface}-AH', 'A')
        if kind == 'bracket':
            return (f'{self._bracket(node).interface}-AO', 'B')
        if kind == 'link':
            return (f'{self._link_type(node).input_interface}-AO', 'B')
        if kind == 'end-effector':
            family = self._end_effector(node).interface
            return None if family is None else (f'{family}-AO', 'B')
        return None

    # --- one element ------------------------------------------------------------------------
    def element(self, node: Node, previous: _Output) -> _Output:
        index = self.index
        self.index += 1
        name = self.name_for(node, index)
        self.joints.append(Joint(f'{name}/input', JointType.FIXED, previous.link, name,
                                 previous.pose, line=node.line))
        kind = node.kind
        if kind == 'actuator':
            return self._actuator_element(node, name)
        if kind == 'joint':
            return self._joint_element(node, name)
        body = {'link': self._link_body, 'bracket': self._bracket_body,
                'end-effector': self._end_effector_body,
                'rigid-body': self._rigid_body}[kind](node)
        self.links.append(Link(name, self._inertial(node, body), body.visuals, line=node.line))
        out_interface = self._output_interface(node)
        if node.outputs is not None:
            for k, ((_, sub), matrix) in enumerate(zip(node.outputs, body.outputs)):
                frame = f'{name}/output' if k == 0 else f'{name}/output{k}'
                pose = _pose(matrix)
                self.frames.append(Frame(frame, name, pose, line=node.line))
                self.chain(sub, _Output(name, pose, out_interface, node))
            return _Output(name, IDENTITY, out_interface, node, branched=True)
        pose = _pose(body.outputs[0])
        self.frames.append(Frame(f'{name}/output', name, pose, line=node.line))
        return _Output(name, pose, out_interface, node, ended=kind == 'end-effector')

    def _output_interface(self, node: Node) -> Interface:
        if node.kind == 'bracket':
            return (f'{self._bracket(node).interface}-AH', 'B')
        if node.kind == 'link':
            return (f'{self._link_type(node).output_interface}-AH', 'B')
        return None

    # --- actuators and joints ---------------------------------------------------------------
    def _actuator_element(self, node: Node, name: str) -> _Output:
        spec = self._actuator(node)
        body = _Body(spec.mass, np.array(spec.com), spec.inertia, [],
                     self._actuator_visuals(spec))
        self.links.append(Link(name, self._inertial(node, body), body.visuals, line=node.line))
        output = f'{name}/output'
        self.links.append(Link(output, line=node.line))
        self.joints.append(Joint(name, JointType.CONTINUOUS, name, output,
                                 Pose((0.0, 0.0, spec.height)), (0.0, 0.0, 1.0),
                                 limits=(Limits(None, None, spec.max_effort, spec.max_speed),),
                                 line=node.line))
        return _Output(output, IDENTITY, (f'{spec.interface}-AO', 'A'), node)

    def _joint_element(self, node: Node, name: str) -> _Output:
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
        axis = vec3([-v if negative else v for v in unit])
        kind = JointType.CONTINUOUS if kind_name == 'revolute' else JointType.PRISMATIC
        ratio = attrs.formula('gear_ratio', 1.0)
        assert ratio is not None  # a default is given
        self.links.append(Link(name, line=node.line))
        output = f'{name}/output'
        self.links.append(Link(output, line=node.line))
        if ratio == 1.0:
            self.joints.append(Joint(name, kind, name, output, axis=axis, line=node.line))
        else:
            motor = f'{name}/motor'
            self.links.append(Link(motor, line=node.line))
            self.joints.append(Joint(name, kind, name, motor, axis=axis, line=node.line))
            if ratio == 0.0 or math.isnan(ratio):
                attrs.warn(f'<joint gear_ratio={attrs.get("gear_ratio")!r}>: the output would '
                           'move at q/0 (HEBI computes NaN poses); the output is kept fixed',
                           'HRDF_GEAR_RATIO_ZERO')
                self.joints.append(Joint(output, JointType.FIXED, name, output, line=node.line))
            else:
                self.joints.append(Joint(output, kind, name, output, axis=axis,
                                         mimic=Mimic(name, 1.0 / ratio, 0.0), line=node.line))
        return _Output(output, IDENTITY, None, node)

    # --- static elements --------------------------------------------------------------------
    def _link_body(self, node: Node) -> _Body:
        attrs = node.attrs
        spec = self._link_type(node)
        inline_in = attrs.enum('input', ('RightAngle', 'Inline'), 'RightAngle')
        inline_out = attrs.enum('output', ('RightAngle', 'Inline'), 'RightAngle')
        for which, value in (('input', inline_in), ('output', inline_out)):
            if value is None:
                raise attrs.invalid(which, attrs.get(which) or '',
                                    'expected RightAngle or Inline')
        if inline_out == 'Inline' and not spec.inline_output:
            raise attrs.invalid('output', attrs.get('output') or '', f'a {spec.name} link '
                                'cannot have an Inline output')
        extension = self._finite(attrs, 'extension')
        twist = self._finite(attrs, 'twist')
        d = spec.d
        inlet = (_transform(rotation_about('y', -math.pi / 2)) if inline_in == 'Inline'
                 else _tz(d))
        outlet = (_transform(rotation_about('y', math.pi / 2)) if inline_out == 'Inline'
                  else _tz(d))
        output = (inlet @ _transform(None, (extension, 0.0, 0.0))
                  @ _transform(rotation_about('x', twist)) @ outlet)
        com = (inlet @ np.array([extension / 2.0, 0.0, 0.0, 1.0]))[:3]
        mass = link_mass(spec, extension, inline_in == 'Inline', inline_out == 'Inline')
        inertia = link_inertia(mass, extension, d, inline_in == 'Inline')
        visuals: tuple[Visual, ...] = ()
        if abs(extension) > 1e-6:
            tube_rot = (rotation_about('y', math.pi / 2) if inline_in != 'Inline'
                        else np.eye(3))
            visuals = (Visual(Cylinder(_LINK_RADIUS, abs(extension)),
                              _pose(_transform(tube_rot, com)), material=_BLACK),)
        return _Body(mass, com, inertia, [output], visuals)

    def _bracket_body(self, node: Node) -> _Body:
        spec = self._bracket(node)
        y, z = spec.output_yz
        rotation = rotation_about('x', -math.pi / 2 if spec.left else math.pi / 2)
        output = _transform(rotation, (0.0, y, z))
        size = (0.05, abs(y) + 0.01, z)
        visual = Visual(Box(size), Pose((0.0, y / 2.0, z / 2.0)), material=_SILVER)
        outputs = [output] * (len(node.outputs) if node.outputs else 1)
        return _Body(spec.mass, np.array((0.0, *spec.com_yz)), spec.inertia, outputs,
                     (visual,))

    def _end_effector_body(self, node: Node) -> _Body:
        attrs = node.attrs
        spec = self._end_effector(node)
        rotation = attrs.rotation('output_rot')
        translation = attrs.translation('output_trans')
        if translation is None:
            translation = np.array(spec.default_output)
        visuals: tuple[Visual, ...] = ()
        if spec.interface is not None:
            visuals = (Visual(Box((0.10, 0.05, 0.095)), Pose((0.0, 0.0, 0.0475)),
                              material=_BLACK),)
        return _Body(spec.mass, np.array(spec.com), spec.inertia,
                     [_transform(rotation, translation)], visuals)

    def _rigid_body(self, node: Node) -> _Body:
        attrs = node.attrs
        rotation = attrs.rotation('output_rot')
        translation = attrs.translation('output_trans')
        if node.outputs is not None:
            if rotation is not None or translation is not None:
                attrs.warn('<rigid-body> has output_rot/output_trans and <output> children: '
                           'valid HRDF (they are the outputs\' defaults) but HEBI\'s library '
                           'rejects this combination', 'HRDF_HEBI_DIFFERS')
            outputs = []
            for output_attrs, _ in node.outputs:
                rot = output_attrs.rotation('rot')
                trans = output_attrs.translation('trans')
                outputs.append(_transform(rot if rot is not None else rotation,
                                          trans if trans is not None else translation))
        else:
            outputs = [_transform(rotation, translation)]
        mass = self._number(attrs, 'mass')
        return _Body(mass, np.zeros(3), (0.0,) * 6, outputs,
                     self._rigid_body_visuals(node, mass, outputs))

    # --- mass properties --------------------------------------------------------------------
    def _inertial(self, node: Node, body: _Body) -> Inertial | None:
        attrs = node.attrs
        mass = body.mass
        if not _MASS_ATTRIBUTES.intersection(attrs.element.attrib):  # library values only
            if not math.isfinite(mass) or mass < 0.0:
                return self._unphysical(node, mass)
            com = body.com
            return Inertial(mass, Pose((float(com[0]), float(com[1]), float(com[2]))),
                            body.inertia)
        if attrs.get('mass') is not None and attrs.get('mass_offset') is not None:
            raise SchemaError(f'<{node.kind}> has both mass and mass_offset; give one',
                              attrs.file, attrs.line, code='HRDF_MASS_AND_OFFSET')
        if attrs.get('com_trans') is not None and attrs.get('com_trans_offset') is not None:
            raise SchemaError(f'<{node.kind}> has both com_trans and com_trans_offset; give one',
                              attrs.file, attrs.line, code='HRDF_COM_AND_OFFSET')
        if node.kind != 'rigid-body':
            if attrs.get('mass') is not None:
                mass = self._number(attrs, 'mass')
            elif attrs.get('mass_offset') is not None:
                mass = mass + self._number(attrs, 'mass_offset')
        com = body.com
        trans, offset = attrs.translation('com_trans'), attrs.translation('com_trans_offset')
        if trans is not None:
            com = trans
        elif offset is not None:
            com = com + offset
        com_rot = attrs.rotation('com_rot')
        inertia = list(body.inertia)
        for i, moment in enumerate(_INERTIA_NAMES):
            value = attrs.formula(moment)
            if value is not None:
                if not math.isfinite(value):
                    raise attrs.invalid(moment, attrs.get(moment) or '', 'not a finite number')
                inertia[i] = value
        if not math.isfinite(mass) or mass < 0.0:
            return self._unphysical(node, mass)
        ixx, ixy, ixz, iyy, iyz, izz = inertia
        return Inertial(mass, _pose(_transform(com_rot, com)), (ixx, ixy, ixz, iyy, iyz, izz))

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
    def _typed(self, node: Node, table: dict, what: str):
        attrs = node.attrs
        text = attrs.get('type')
        if text is None:
            if node.kind == 'end-effector':
                return table['Custom']
            raise SchemaError(f'<{node.kind}> needs a type attribute', attrs.file, attrs.line)
        name = attrs.enum('type', tuple(table), None)
        if name is None:
            raise InvalidValueError(f'<{node.kind}> type={text!r} is not a HEBI {what}; known: '
                                    f'{", ".join(table)}', attrs.file, attrs.line,
                                    code='HRDF_UNKNOWN_TYPE')
        spec = table[name]
        feature = getattr(spec, 'feature', None)
        if feature is not None and not attrs.version.has(feature):
            raise InvalidValueError(f'<{node.kind}> type={text!r} needs HRDF version '
                                    f'{Version.introducing(feature)} or later; this file is '
                                    f'{attrs.version}', attrs.file, attrs.line,
                                    code='HRDF_VERSION_GATE')
        return spec

    def _actuator(self, node: Node):
        return self._cached(node, ACTUATORS, 'actuator')

    def _bracket(self, node: Node):
        return self._cached(node, BRACKETS, 'bracket')

    def _link_type(self, node: Node):
        return self._cached(node, LINKS, 'link type')

    def _end_effector(self, node: Node):
        return self._cached(node, END_EFFECTORS, 'end-effector type')

    def _cached(self, node: Node, table: dict, what: str):
        spec = getattr(node, 'spec', None)
        if spec is None:
            spec = self._typed(node, table, what)
            node.spec = spec  # type: ignore[attr-defined]
        return spec

    # --- visuals ----------------------------------------------------------------------------
    @staticmethod
    @functools.lru_cache(maxsize=None)
    def _actuator_visuals(spec) -> tuple[Visual, ...]:
        length, width = spec.outline
        material = _RED if spec.name.startswith('X') else (
            _TANGERINE if spec.name.startswith('T') else _BLACK)
        return (Visual(Box((length, width, spec.height)),
                       Pose((spec.com[0], spec.com[1], spec.height / 2.0)), material=material),)

    def _rigid_body_visuals(self, node: Node, mass: float, outputs: list[np.ndarray]
                            ) -> tuple[Visual, ...]:
        attrs = node.attrs
        mesh_path = attrs.get('mesh_path')
        if mesh_path is None and (attrs.get('mesh_rot') is not None
                                  or attrs.get('mesh_trans') is not None):
            which = 'mesh_rot' if attrs.get('mesh_rot') is not None else 'mesh_trans'
            raise SchemaError(f'<rigid-body> has {which} but no mesh_path', attrs.file,
                              attrs.line, code='HRDF_MESH_WITHOUT_PATH')
        mesh_pose = _pose(_transform(attrs.rotation('mesh_rot'),
                                              attrs.translation('mesh_trans')))
        if mesh_path:
            if '://' not in mesh_path and relative_path_is_absolute(mesh_path):
                raise InvalidValueError(f'<rigid-body mesh_path={mesh_path!r}>: mesh paths must '
                                        'be relative to the HRDF file', attrs.file, attrs.line,
                                        code='URI_INVALID')
            if '://' not in mesh_path:
                target = resolve_relative(mesh_path, attrs.file)
                if is_file(target):
                    return (Visual(Mesh(target.as_uri()), mesh_pose),)
                attrs.warn(f'<rigid-body mesh_path={mesh_path!r}>: no such file ({target}); '
                           'drawn as simple shapes', 'HRDF_MESH_MISSING')
        visuals = []
        if mass > 0 and math.isfinite(mass):
            radius = min(max((3.0 * mass / (4.0 * math.pi * 2700.0)) ** (1 / 3), 0.01), 0.1)
            visuals.append(Visual(Sphere(radius), material=_SILVER))
        for output in outputs:
            position = output[:3, 3]
            length = float(np.linalg.norm(position))
            if length > 1e-3:
                visuals.append(Visual(Cylinder(0.01, length),
                                      _pose(_transform(_z_to(position / length),
                                                                position / 2.0)),
                                      material=_SILVER))
        return tuple(visuals)


def _z_to(direction: np.ndarray) -> np.ndarray:
    """A rotation taking +z to ``direction`` (for cylinders drawn along a segment)."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(z, direction)
    sine = float(np.linalg.norm(axis))
    cosine = float(np.dot(z, direction))
    if sine < 1e-12:
        return np.eye(3) if cosine > 0 else np.diag([1.0, -1.0, -1.0])
    axis /= sine
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    angle = math.atan2(sine, cosine)
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def _all_tags(nodes: list[Node]) -> set[str]:
    tags: set[str] = set()
    for node in nodes:
        tag = node.attrs.get('tag')
        if tag:
            tags.add(tag)
        for _, sub in node.outputs or ():
            tags |= _all_tags(sub)
    return tags


def _free_name(name: str, tags: set[str]) -> str:
    """``world``/``base`` unless an element is tagged so (HEBI allows it): then ``world_``..."""
    while name in tags:
        name += '_'
    return name


def implicit_end_effector(file: str | None, version: Version,
                          warnings: list[Diagnostic]) -> Node:
    """The Custom end effector HEBI appends to files of version <= 1.1.0."""
    return Node('end-effector', Attrs(etree.Element('end-effector'), file, version, warnings),
                implicit=True, file=file)


def build_model(root_attrs: Attrs, nodes: list[Node], name: str, file: str | None,
                warnings: list[Diagnostic], root_link: str = ROOT_LINK) -> Model:
    """The model of a document's root attributes and node chain."""
    tags = _all_tags(nodes)
    builder = _Builder(file, warnings, tags)
    rotation = root_attrs.rotation('rot')
    translation = root_attrs.translation('trans')
    root, base = _free_name(root_link, tags), _free_name(BASE_LINK, tags)
    builder.links.append(Link(root, line=root_attrs.line))
    builder.links.append(Link(base, line=root_attrs.line))
    builder.joints.append(Joint(f'{base}_joint', JointType.FIXED, root, base,
                                _pose(_transform(rotation, translation)),
                                line=root_attrs.line))
    builder.chain(nodes, _Output(base, IDENTITY, None))
    return Model(name, tuple(builder.links), tuple(builder.joints), tuple(builder.frames),
                 source=file)
