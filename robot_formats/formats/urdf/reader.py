"""URDF reader: a ``<robot>`` document into a single-model :class:`~robot_formats.core.model.Scene`.

URDF is read as urdfdom 6 (robot_state_publisher's and pinocchio's parser) reads it, so every
file urdfdom loads loads here, and the irregular parts are reported as warnings with file,
line and a code (``URDF_*``); strict mode turns them into errors. In particular:

* a ``<visual>``, ``<collision>`` or ``<inertial>`` urdfdom cannot read (unknown or missing
  geometry, a malformed number, a material without a name, ...) is ignored and the link kept;
  a ``<geometry>`` with several shapes uses the first; capsules are kept (URDF 1.1 has them);
* ``lower > upper`` limits, a zero axis, a mimic of a fixed or unknown joint, ... load with a
  warning (see docs/urdf-representation.md for each case and where robot_formats differs);
* elements in another XML namespace (``<drake:joint>``) are other tools' extensions: read past
  with a note, never as URDF (urdfdom, through TinyXML2, matches names including the prefix);
* ``version`` (1.0 to 1.2) is checked as urdfdom checks it; 1.1 adds ``quat_xyzw`` origins and
  capsules, 1.2 refuses ``lower > upper``.

What urdfdom refuses stays refused (missing names, unknown joint types, malformed joint origins,
axes or limits, duplicate names, ...), with file, line and a sentence. Relative mesh paths are
resolved against the URDF's directory and become ``file://`` URIs; ``package://`` and other
URIs are kept as written.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import TYPE_CHECKING, NoReturn
from pathlib import Path

from lxml import etree

from robot_formats.core.errors import (Diagnostic, DuplicateNameError, FormatError,
                                       InvalidValueError, SchemaError)
from robot_formats.core.ranges import check_name
from robot_formats.core.model import (IDENTITY, Box, Capsule, Collision, Cylinder, Dynamics,
                                      Geometry, Inertial, Joint, JointType, Limits, Link,
                                      Material, Mesh, Mimic, Model, Pose, Scene, Sphere, Visual,
                                      Vec3, vec3)
from robot_formats.core.reading import ReadingContext
from robot_formats.core.xmlsafe import local_name, parse_xml_bytes, read_xml, required_attr

if TYPE_CHECKING:
    from robot_formats.formats.spec import LoadContext

__all__ = ['read_urdf', 'read_element', 'parse_urdf_element', 'extension_lines',
           'SUPPORTED_VERSIONS']

_JOINT_TYPES = {
    'fixed': JointType.FIXED, 'revolute': JointType.REVOLUTE,
    'continuous': JointType.CONTINUOUS, 'prismatic': JointType.PRISMATIC,
    'floating': JointType.FLOATING, 'planar': JointType.PLANAR,
}
_ONE_DOF = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC)
_AXIAL = (*_ONE_DOF, JointType.PLANAR)
#: URDF elements that belong to other tools (simulators, controllers); read past silently.
_FOREIGN = {'gazebo', 'transmission', 'ros2_control', 'sensor', 'plugin'}
#: The URDF versions urdfdom 6 reads (``<robot version="1.1">``); 1.0 when absent.
SUPPORTED_VERSIONS = ((1, 0), (1, 1), (1, 2))
_SHAPES = 'box, cylinder, sphere, mesh and (from URDF 1.1) capsule'
_INERTIA = ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz')
_INTEGER = re.compile(r'\s*[+-]?[0-9]+')
#: Every element in a namespace below the root (one C-level scan; the root is no extension).
_NAMESPACED = etree.XPath('descendant::*[namespace-uri()]')
#: What a warning says of an irregularity urdfdom refuses the file for.
_URDFDOM_REFUSES = '(urdfdom refuses this file)'
#: The joint parts robot_formats does not use but checks as urdfdom does, with their numbers.
_CONTROLLER_PARTS = (('safety_controller', ('soft_lower_limit', 'soft_upper_limit', 'k_position',
                                            'k_velocity')),
                     ('calibration', ('rising', 'falling')))


def read_urdf(path: str | Path, warnings: list[Diagnostic] | None = None) -> Scene:
    """Load a URDF file."""
    warnings = warnings if warnings is not None else []
    root = read_xml(path, warnings, ('robot',))
    return parse_urdf_element(root, str(path), warnings)


def read_element(path: Path, root: etree._Element, warnings: list[Diagnostic],
                 context: LoadContext) -> Scene:
    """The registry's reader of URDF (``FormatSpec.reader``): :func:`parse_urdf_element`."""
    return parse_urdf_element(root, str(path), warnings)


def parse_urdf_element(root: etree._Element, file: str | None,
                       warnings: list[Diagnostic]) -> Scene:
    """Build a scene from an already parsed ``<robot>`` element."""
    return _UrdfParser(file, warnings).robot(root)


def extension_lines(data: bytes, tag: str, file: str | None = None) -> tuple[int, ...]:
    """The lines of the ``<tag>`` children of a URDF document's ``<robot>``: another tool's
    extension (``ros2_control``, ``gazebo``) that the reader reads past, asked for by a caller
    about to add one of its own. ``data``: the document (parsed as :func:`read_urdf` parses it).
    """
    root = parse_xml_bytes(data, file, [], ('robot',))
    return tuple(child.sourceline or 0 for child in root.iterchildren(tag))


def _urdf_name(element: etree._Element) -> str | None:
    """The URDF name of a child element: its local name (a default namespace is read past, as
    TinyXML2 does); None for comments, processing instructions and elements with a namespace
    prefix (another tool's extension: urdfdom, which matches names as written, finds none)."""
    tag = element.tag
    if not isinstance(tag, str):
        return None
    if tag[0] != '{':  # no namespace, so no prefix (most elements: no prefix lookup)
        return tag
    return None if element.prefix is not None else tag.rpartition('}')[2]


def _first_children(element: etree._Element) -> dict[str, etree._Element]:
    """Each URDF name (:func:`_urdf_name`) → the first child of that name (urdfdom's
    ``FirstChildElement``), in one pass over the children."""
    found: dict[str, etree._Element] = {}
    for child in element:
        name = _urdf_name(child)
        if name is not None and name not in found:
            found[name] = child
    return found


def _written_name(element: etree._Element) -> str:
    """The element's name as written in the file (``drake:joint``)."""
    name = local_name(element)
    return f'{element.prefix}:{name}' if element.prefix else name


def _refuse_out_of_range(error: FormatError) -> None:
    """Raise ``error`` again when it refuses a number beyond the range a model may hold: a
    part urdfdom cannot read is left out, but such a number refuses the document wherever it
    is (as it would once in the model)."""
    if error.code == 'VALUE_OUT_OF_RANGE':
        raise error


class _Ignored(Exception):
    """A part of a link urdfdom cannot read and leaves out (the link stays)."""

    def __init__(self, message: str, line: int | None, code: str, as_urdfdom: bool = True
                 ) -> None:
        super().__init__(message)
        self.message, self.line, self.code = message, line, code
        self.as_urdfdom = as_urdfdom  #: False where urdfdom keeps what robot_formats leaves out


class _UrdfParser:
    """Reads one URDF document, as urdfdom reads it, through its reading context."""

    def __init__(self, file: str | None, warnings: list[Diagnostic]) -> None:
        self.ctx = ReadingContext(file, warnings, bounded=True)  # every number reaches the model
        self.materials: dict[str, Material] = {}
        self.version = (1, 0)
        #: The pose of each (xyz, rpy) text pair of the document's <origin>s read so far.
        self.poses: dict[tuple[str | None, str | None], Pose] = {}

    # --- the document -------------------------------------------------------------------------
    def robot(self, root: etree._Element) -> Scene:
        if local_name(root) != 'robot':
            raise SchemaError(f'a URDF document has a <robot> root, not <{local_name(root)}>',
                              self.ctx.file, root.sourceline)
        name = required_attr(root, 'name', self.ctx.file)
        self.version = self.urdf_version(root)
        self.note_extensions(root)
        for material in root.iterchildren('{*}material'):  # filtered in C; then as urdfdom
            if material.prefix is None:
                self.top_level_material(material)
        links: dict[str, Link] = {}
        joints: dict[str, Joint] = {}
        for child in root:
            tag = _urdf_name(child)
            if tag is None:
                continue  # comments, other tools' namespaces (noted above)
            if tag == 'link':
                link = self.link(child)
                if link.name in links:
                    self.duplicate(link, 'links', child)
                links[link.name] = link
            elif tag == 'joint':
                joint = self.joint(child)
                if joint.name in joints:
                    self.duplicate(joint, 'joints', child)
                joints[joint.name] = joint
            elif tag not in _FOREIGN and tag != 'material':
                self.ctx.warn(f'ignored unknown element <{tag}>', child.sourceline,
                              'URDF_UNKNOWN_ELEMENT')
        if not links:
            raise SchemaError(f'robot {name!r} has no <link>', self.ctx.file, root.sourceline)
        joints = self.checked_mimics(joints)
        model = Model(name, tuple(links.values()), tuple(joints.values()), (),
                      materials=dict(self.materials), source=self.ctx.file)
        return Scene(name, (model,), is_world=False, source=self.ctx.file)

    def urdf_version(self, root: etree._Element) -> tuple[int, int]:
        """``version="x.y"``, checked as urdfdom checks it (1.0 to 1.2; 1.0 when absent)."""
        text = root.get('version')
        if text is None:
            return (1, 0)
        fields = text.split('.')

        def refuse(why: str) -> NoReturn:
            raise InvalidValueError(f'<robot version={text!r}>: {why} (urdfdom reads versions '
                                    '1.0 to 1.2)', self.ctx.file, root.sourceline)

        if len(fields) != 2:
            refuse("the version must have the form 'x.y'")
        numbers = []
        for field in fields:
            if not field:
                refuse('a field of the version is blank')
            match = _INTEGER.match(field)
            if match is None:
                refuse('the version is not made of integers')
            if match.end() != len(field):
                refuse('extra characters after a version number')
            numbers.append(int(field))
        if min(numbers) < 0:
            refuse('version numbers must be positive')
        version = (numbers[0], numbers[1])
        if version not in SUPPORTED_VERSIONS:
            refuse('unsupported version')
        return version

    def note_extensions(self, root: etree._Element) -> None:
        """One note per extension element (another XML namespace), where it first occurs."""
        seen: dict[str, list[etree._Element]] = {}
        namespaced = _NAMESPACED(root)  # usually none: one C-level scan
        if not namespaced:
            return
        from robot_formats.core.xmlrepair import UNDECLARED_NAMESPACE
        for element in namespaced:
            parent = element.getparent()
            if element.prefix is not None and parent is not None and parent.prefix is None:
                seen.setdefault(_written_name(element), []).append(element)
        for name, elements in seen.items():
            first = elements[0]
            uri = first.nsmap.get(first.prefix, '')
            where = ('an undeclared namespace' if uri.startswith(UNDECLARED_NAMESPACE)
                     else f'namespace {uri!r}')
            more = f' ({len(elements)} times; first here)' if len(elements) > 1 else ''
            self.ctx.warn(f'<{name}> is an extension in {where}, not a URDF element: '
                          f'ignored{more}', first.sourceline, 'URDF_EXTENSION_ELEMENT', note=True)

    def duplicate(self, item: Link | Joint, what: str, element: etree._Element) -> NoReturn:
        raise DuplicateNameError(f'two {what} are named {item.name!r}', self.ctx.file,
                                 element.sourceline)

    # --- numbers and poses --------------------------------------------------------------------
    def origin(self, element: etree._Element | None) -> Pose:
        """The pose an ``<origin>`` element (None: absent) gives. An ``xyz`` and ``rpy``
        written alike again (``0 0 0``) are the same pose, read once per document."""
        if element is None:
            return IDENTITY
        quat_text = element.get('quat_xyzw')
        key = xyz_text, rpy_text = element.get('xyz'), element.get('rpy')  # each taken once
        if quat_text is None:
            pose = self.poses.get(key)
            if pose is None:  # read, and kept only if read without an error or a warning
                pose = self.poses[key] = self.xyz_rpy(element, self.xyz(element, xyz_text),
                                                      rpy_text)
            return pose
        line = element.sourceline
        xyz = self.xyz(element, xyz_text)
        if self.version < (1, 1):
            self.ctx.warn('<origin quat_xyzw> needs URDF 1.1 (<robot version="1.1">): ignored, as '
                          'urdfdom does', line, 'URDF_VERSION_FEATURE')
            return self.xyz_rpy(element, xyz, rpy_text)
        if rpy_text is not None:
            raise SchemaError('<origin> gives both rpy and quat_xyzw; give one of them',
                              self.ctx.file, line)
        x, y, z, w = self.ctx.vector(element, 4, attribute='quat_xyzw')
        norm = math.sqrt(x * x + y * y + z * z + w * w)
        if norm < 1e-12:
            self.ctx.warn('<origin quat_xyzw="0 0 0 0"> is no rotation: read as the identity, as '
                          'urdfdom does', line, 'URDF_QUATERNION')
            return Pose(xyz)
        return Pose(xyz, (x / norm, y / norm, z / norm, w / norm))

    def xyz(self, origin: etree._Element, text: str | None) -> Vec3:
        """An ``<origin>``'s translation, of its ``xyz`` attribute (``text``; None: absent, no
        translation)."""
        if text is None:
            return (0.0, 0.0, 0.0)
        return self.ctx.vector_of(text, origin, 3, attribute='xyz')

    def xyz_rpy(self, origin: etree._Element, xyz: Vec3, rpy_text: str | None) -> Pose:
        """The pose of the translation ``xyz`` and the ``rpy`` attribute (``rpy_text``)."""
        if not rpy_text:  # absent or empty: no rotation
            return Pose(xyz)
        return Pose.from_xyz_rpy(xyz, self.ctx.vector_of(rpy_text, origin, 3, attribute='rpy'))

    def size(self, shape: etree._Element, name: str) -> float:
        """A shape dimension; a negative one is read as its magnitude, with a warning."""
        value = self.ctx.number(shape, attribute=name)
        if value < 0:
            self.ctx.warn(f'<{local_name(shape)} {name}="{shape.get(name)}"> is negative: read as '
                          f'{-value:g}', shape.sourceline, 'URDF_NEGATIVE_SIZE')
        return abs(value)

    # --- links --------------------------------------------------------------------------------
    def link(self, element: etree._Element) -> Link:
        name = element.get('name')
        if name is None:
            name = required_attr(element, 'name', self.ctx.file)
        check_name(name, 'link', self.ctx.file, element.sourceline)
        inertial_el = None
        visual_els: list[etree._Element] = []
        collision_els: list[etree._Element] = []
        for child in element:  # one pass; read in urdfdom's order: inertial, visuals, collisions
            tag = _urdf_name(child)
            if tag == 'visual':
                visual_els.append(child)
            elif tag == 'collision':
                collision_els.append(child)
            elif tag == 'inertial' and inertial_el is None:
                inertial_el = child
        inertial = (self.readable(self.inertial, inertial_el, name)
                    if inertial_el is not None else None)
        visuals = tuple(filter(None, [self.readable(self.visual, v, name) for v in visual_els]))
        collisions = tuple(filter(None, [self.readable(self.collision, c, name)
                                         for c in collision_els]))  # (None: left out)
        return Link(name, inertial, visuals, collisions, element.sourceline)

    def readable(self, read, element: etree._Element, link: str):
        """``read(element)``, or None with a warning where urdfdom leaves the element out."""
        how = ', as urdfdom does'
        try:
            return read(element)
        except _Ignored as ignored:
            message, line, code = ignored.message, ignored.line, ignored.code
            how = how if ignored.as_urdfdom else ''
        except (SchemaError, InvalidValueError) as error:
            _refuse_out_of_range(error)
            message, line, code = error.message, error.line, 'URDF_MALFORMED_ELEMENT'
        self.ctx.warn(f'<{local_name(element)}> of link {link!r} ignored{how}: {message}',
                      line or element.sourceline, code)
        return None

    def inertial(self, element: etree._Element) -> Inertial:
        """As urdfdom reads it: without a readable origin and mass it is ignored (the link is
        massless); without a complete, readable <inertia> the mass is kept and the inertia is
        zero."""
        parts = _first_children(element)
        origin = self.origin(parts.get('origin'))
        mass_el = parts.get('mass')
        if mass_el is None:
            raise _Ignored('it has no <mass>', element.sourceline, 'URDF_MALFORMED_ELEMENT')
        mass = self.ctx.number(mass_el, attribute='value')
        if mass < 0:
            raise _Ignored(f'the mass {mass:g} is negative (urdfdom keeps it; no simulator or '
                           'dynamics solver can use it)', mass_el.sourceline,
                           'URDF_NEGATIVE_MASS', as_urdfdom=False)
        return Inertial(mass, origin, self.inertia(element, parts.get('inertia')))

    def inertia(self, inertial: etree._Element, inertia_el: etree._Element | None
                ) -> tuple[float, float, float, float, float, float]:
        try:
            if inertia_el is None:
                raise SchemaError('it has no <inertia>', self.ctx.file, inertial.sourceline)
            given = dict(inertia_el.items())  # (one call, not one per key)
            missing = [key for key in _INERTIA if key not in given]
            if missing:
                raise SchemaError(f'<inertia> lacks {", ".join(missing)}', self.ctx.file,
                                  inertia_el.sourceline)
            number = self.ctx.number_of
            ixx, ixy, ixz, iyy, iyz, izz = [number(given[key], inertia_el, attribute=key)
                                            for key in _INERTIA]
            return ixx, ixy, ixz, iyy, iyz, izz
        except (SchemaError, InvalidValueError) as error:
            _refuse_out_of_range(error)
            link = inertial.getparent().get('name') if inertial.getparent() is not None else None
            self.ctx.warn(f'<inertial> of link {link!r}: {error.message}: the inertia is read as '
                          'zero and the mass kept, as urdfdom does',
                          error.line or inertial.sourceline, 'URDF_MALFORMED_ELEMENT')
            return (0.0,) * 6

    def visual(self, element: etree._Element) -> Visual:
        parts = _first_children(element)
        origin = self.origin(parts.get('origin'))
        geometry = self.geometry(element, parts.get('geometry'))
        material_el = parts.get('material')
        material = None
        if material_el is not None:
            if material_el.get('name') is None:
                raise _Ignored('its <material> has no name', material_el.sourceline,
                               'URDF_MALFORMED_ELEMENT')
            material = self.material(material_el)
        return Visual(geometry, origin, element.get('name'), material)

    def collision(self, element: etree._Element) -> Collision:
        parts = _first_children(element)
        origin = self.origin(parts.get('origin'))
        return Collision(self.geometry(element, parts.get('geometry')), origin,
                         element.get('name'))

    def geometry(self, parent: etree._Element, holder: etree._Element | None) -> Geometry:
        if holder is None:
            raise _Ignored('it has no <geometry>', parent.sourceline, 'URDF_NO_GEOMETRY')
        shapes = [child for child in holder if isinstance(child.tag, str)]
        if not shapes:
            raise _Ignored('its <geometry> holds no shape', holder.sourceline, 'URDF_NO_GEOMETRY')
        shape = shapes[0]
        if len(shapes) > 1:
            self.ctx.warn(f'<geometry> holds {len(shapes)} shapes: the first, '
                          f'<{_written_name(shape)}>, is used, as urdfdom does',
                          holder.sourceline, 'URDF_SEVERAL_SHAPES')
        kind = shape.tag
        if kind[0] == '{':
            kind = _written_name(shape)
        if kind == 'box':
            size = self.ctx.vector(shape, 3, attribute='size')
            smallest = min(size)
            if smallest < 0:
                self.ctx.warn(f'<box size="{shape.get("size")}"> has a negative side: read as its '
                              'magnitude', shape.sourceline, 'URDF_NEGATIVE_SIZE')
            if smallest <= 0:  # -0.0 too
                size = (abs(size[0]), abs(size[1]), abs(size[2]))
            return Box(size)
        if kind == 'cylinder':
            return Cylinder(self.size(shape, 'radius'), self.size(shape, 'length'))
        if kind == 'sphere':
            return Sphere(self.size(shape, 'radius'))
        if kind == 'mesh':
            return self.mesh(shape)
        if kind == 'capsule':
            return self.capsule(shape)
        raise _Ignored(f'unknown geometry <{kind}> (URDF has {_SHAPES})', shape.sourceline,
                       'URDF_UNKNOWN_GEOMETRY')

    def mesh(self, shape: etree._Element) -> Mesh:
        filename = shape.get('filename')
        if filename is None:
            filename = required_attr(shape, 'filename', self.ctx.file)
        text = shape.get('scale')
        scale = (1.0, 1.0, 1.0)
        if text is not None:
            values = self.ctx.vector_of(text, shape, None, attribute='scale')
            if len(values) == 1:  # Drake's uniform scale; urdfdom leaves the mesh out
                self.ctx.warn(f'<mesh scale="{text}"> has one number (URDF needs three): read as a '
                              'uniform scale', shape.sourceline, 'URDF_MESH_SCALE')
                values = values * 3
            elif len(values) != 3:
                raise _Ignored(f'<mesh scale="{text}"> has {len(values)} numbers; URDF needs 3',
                               shape.sourceline, 'URDF_MESH_SCALE')
            scale = values
        return Mesh(self.ctx.uri(filename), scale)

    def capsule(self, shape: etree._Element) -> Capsule:
        if self.version < (1, 1):
            self.ctx.warn('<capsule> needs URDF 1.1 (<robot version="1.1">); urdfdom leaves it out '
                          'of a 1.0 document, robot_formats keeps it', shape.sourceline,
                          'URDF_VERSION_FEATURE')
        return Capsule(self.size(shape, 'radius'), self.size(shape, 'length'))

    def material(self, element: etree._Element) -> Material:
        name = element.get('name')
        parts = _first_children(element)
        color = parts.get('color')
        texture = parts.get('texture')
        rgba = None
        if color is not None:
            try:
                rgba = self.ctx.vector(color, 4, attribute='rgba')
            except (SchemaError, InvalidValueError) as error:
                _refuse_out_of_range(error)
                self.ctx.warn(f'material {name!r}: {error.message}; the colour is ignored, as '
                              'urdfdom does', color.sourceline, 'URDF_MALFORMED_ELEMENT')
        texture_uri = None
        if texture is not None and texture.get('filename'):
            texture_uri = self.ctx.uri(texture.get('filename', ''))
        if rgba is None and texture_uri is None:
            if name in self.materials:
                return self.materials[name]
            if color is None:
                self.ctx.warn(f'material {name!r} is not defined (no colour, no texture, no '
                              'top-level <material> of that name)', element.sourceline,
                              'URDF_UNDEFINED_MATERIAL')
        return Material(name, rgba, texture_uri)

    def top_level_material(self, element: etree._Element) -> None:
        name = element.get('name')
        if name is None:
            self.ctx.warn('a top-level <material> without a name is ignored, as urdfdom does',
                          element.sourceline, 'URDF_MALFORMED_ELEMENT')
            return
        if name in self.materials:
            raise DuplicateNameError(f'two top-level materials are named {name!r}', self.ctx.file,
                                     element.sourceline)
        self.materials[name] = self.material(element)

    # --- joints -------------------------------------------------------------------------------
    def joint(self, element: etree._Element) -> Joint:
        name = element.get('name')
        if name is None:
            name = required_attr(element, 'name', self.ctx.file)
        check_name(name, 'joint', self.ctx.file, element.sourceline)
        type_name = element.get('type')
        if type_name is None:
            type_name = required_attr(element, 'type', self.ctx.file)
        kind = _JOINT_TYPES.get(type_name)
        if kind is None:
            raise SchemaError(f'joint {name!r} has unknown type {type_name!r} (URDF joint types: '
                              f'{", ".join(_JOINT_TYPES)})', self.ctx.file, element.sourceline)
        parts = _first_children(element)
        parent = self.link_ref(element, parts, 'parent', name)
        child = self.link_ref(element, parts, 'child', name)
        origin = self.origin(parts.get('origin'))
        axis, kind = self.axis(parts.get('axis'), name, kind)
        axis2 = None
        if kind is JointType.PLANAR:
            axis, axis2 = _plane_axes(axis)
        limits = self.joint_limits(element, parts.get('limit'), name, kind, type_name)
        dyn_el = parts.get('dynamics')
        dynamics = None if dyn_el is None else self.dynamics(dyn_el, name)
        self.check_unread_parts(parts, name)
        mimic_el = parts.get('mimic')
        mimic = None if mimic_el is None else self.mimic(mimic_el, name, kind)
        return Joint(name, kind, parent, child, origin, axis, axis2, IDENTITY, limits, dynamics,
                     mimic, 'xyz', 0.0, element.sourceline)

    def dynamics(self, element: etree._Element, joint: str) -> Dynamics:
        """``<dynamics>``: damping and friction (0 when absent). Without either, urdfdom
        refuses the file; here that is a warning (the values are read as 0)."""
        damping, friction = element.get('damping'), element.get('friction')
        if damping is None and friction is None:
            self.ctx.warn(f'joint {joint!r}: <dynamics> gives neither damping nor friction '
                          f'{_URDFDOM_REFUSES}', element.sourceline, 'URDF_MALFORMED_ELEMENT')
        number = self.ctx.number_of
        return Dynamics(0.0 if damping is None else number(damping, element, attribute='damping'),
                        0.0 if friction is None else number(friction, element,
                                                            attribute='friction'))

    def check_unread_parts(self, parts: dict[str, etree._Element], name: str) -> None:
        """``<safety_controller>`` and ``<calibration>`` as urdfdom checks them: what makes
        urdfdom refuse the file is a warning here (robot_formats uses none of the controller
        values and has always read such files)."""
        for tag, keys in _CONTROLLER_PARTS:
            part = parts.get(tag)
            if part is None:
                continue
            given = dict(part.items())  # (one call, not one per key)
            if tag == 'safety_controller' and 'k_velocity' not in given:
                self.ctx.warn(f'joint {name!r}: <safety_controller> has no k_velocity '
                              f'{_URDFDOM_REFUSES}', part.sourceline, 'URDF_MALFORMED_ELEMENT')
            for key in keys:
                text = given.get(key)
                if text is None:
                    continue
                try:
                    self.ctx.number_of(text, part, attribute=key, bounded=False)  # not kept
                except InvalidValueError as error:
                    self.ctx.warn(f'joint {name!r}: {error.message} {_URDFDOM_REFUSES}',
                                  part.sourceline, 'URDF_MALFORMED_ELEMENT')

    def link_ref(self, element: etree._Element, parts: dict[str, etree._Element], tag: str,
                 joint: str) -> str:
        ref = parts.get(tag)
        if ref is None:
            raise SchemaError(f'joint {joint!r} needs a <{tag}>', self.ctx.file, element.sourceline)
        link = ref.get('link')
        return link if link is not None else required_attr(ref, 'link', self.ctx.file)

    def axis(self, axis_el: etree._Element | None, name: str, kind: JointType
             ) -> tuple[Vec3, JointType]:
        """The axis (1 0 0 when absent) and the joint kind: a joint whose axis has no direction
        cannot move, and is read as fixed."""
        if axis_el is None:
            return (1.0, 0.0, 0.0), kind
        axis = self.ctx.vector(axis_el, 3, (1.0, 0.0, 0.0), attribute='xyz')
        x, y, z = axis
        if kind in _AXIAL and math.sqrt(x * x + y * y + z * z) < 1e-12:
            if kind is JointType.PLANAR:
                self.ctx.warn(f'planar joint {name!r} has the axis 0 0 0: the plane normal is read '
                              'as Z (the XY plane)', axis_el.sourceline, 'URDF_ZERO_AXIS')
                return (0.0, 0.0, 1.0), kind
            self.ctx.warn(f'{kind.value} joint {name!r} has the axis 0 0 0, about or along which '
                          'nothing moves: read as a fixed joint', axis_el.sourceline,
                          'URDF_ZERO_AXIS')
            return (1.0, 0.0, 0.0), JointType.FIXED
        return axis, kind

    def joint_limits(self, element: etree._Element, limit_el: etree._Element | None, name: str,
                     kind: JointType, type_name: str) -> tuple[Limits, ...]:
        if limit_el is None:
            if kind in (JointType.REVOLUTE, JointType.PRISMATIC):
                self.ctx.warn(f'{type_name} joint {name!r} has no <limit>: read as unlimited '
                              '(urdfdom refuses this file; the URDF robot_formats writes is '
                              'valid)', element.sourceline, 'URDF_MISSING_LIMIT')
            return ()
        limits = self.limits(limit_el, name, kind)
        return () if kind in (JointType.FIXED, JointType.FLOATING) else (limits,)

    def limits(self, element: etree._Element, joint: str, kind: JointType) -> Limits:
        bounded = kind in (JointType.REVOLUTE, JointType.PRISMATIC)
        if bounded and self.version >= (1, 2):
            missing = [key for key in ('lower', 'upper') if element.get(key) is None]
            if missing:
                raise SchemaError(f'joint {joint!r}: URDF 1.2 requires lower and upper limits '
                                  f'(missing {" and ".join(missing)})', self.ctx.file,
                                  element.sourceline)
        lower = self.ctx.number(element, 0.0, attribute='lower')
        upper = self.ctx.number(element, 0.0, attribute='upper')
        effort = self.limit_rate(element, joint, 'effort')
        velocity = self.limit_rate(element, joint, 'velocity')
        if not bounded:
            return Limits(None, None, effort, velocity)
        if upper < lower:
            if self.version >= (1, 2):
                raise InvalidValueError(f'<limit> lower {lower:g} is above upper {upper:g}',
                                        self.ctx.file, element.sourceline)
            self.ctx.warn(f'joint {joint!r}: <limit> lower {lower:g} is above upper {upper:g}: '
                          f'read as [{upper:g}, {lower:g}] (urdfdom keeps them inverted, so no '
                          'position is within them)', element.sourceline, 'URDF_LIMIT_ORDER')
            lower, upper = upper, lower
        return Limits(lower, upper, effort, velocity)

    def limit_rate(self, element: etree._Element, joint: str, key: str) -> float | None:
        """``effort`` or ``velocity``: required by urdfdom before URDF 1.2, never negative."""
        text = element.get(key)
        if text is None:
            if self.version < (1, 2):
                self.ctx.warn(f'joint {joint!r}: <limit> has no {key} (urdfdom refuses this file): '
                              'read as unlimited', element.sourceline, 'URDF_MISSING_LIMIT')
            return None
        value = self.ctx.number_of(text, element, attribute=key)
        if value < 0:
            if self.version >= (1, 2):
                raise InvalidValueError(f'joint {joint!r}: <limit {key}> is negative ({value:g})',
                                        self.ctx.file, element.sourceline)
            self.ctx.warn(f'joint {joint!r}: <limit {key}="{text}"> is negative: read '
                          f'as {-value:g}', element.sourceline, 'URDF_NEGATIVE_LIMIT')
        return abs(value)

    def mimic(self, mimic_el: etree._Element, name: str, kind: JointType) -> Mimic | None:
        mimic = Mimic(required_attr(mimic_el, 'joint', self.ctx.file),
                      self.ctx.number(mimic_el, 1.0, attribute='multiplier'),
                      self.ctx.number(mimic_el, 0.0, attribute='offset'))
        if kind not in _ONE_DOF:
            self.ctx.warn(f'{kind.value} joint {name!r} cannot follow another joint: its '
                          '<mimic> is ignored', mimic_el.sourceline, 'URDF_MIMIC_IGNORED')
            return None
        return mimic

    def checked_mimics(self, joints: dict[str, Joint]) -> dict[str, Joint]:
        """Mimics urdfdom loads but no joint can follow (an unknown, fixed or multi-DoF leader,
        a loop of mimics) are ignored with a warning: the joint moves on its own, as
        robot_state_publisher moves it. Chains stay (the kinematic tree resolves them)."""
        if all(joint.mimic is None for joint in joints.values()):
            return joints
        out = dict(joints)
        for name, joint in joints.items():
            if joint.mimic is None:
                continue
            leader = joints.get(joint.mimic.joint)
            why = None
            if leader is None:
                why = f'mimics {joint.mimic.joint!r}, which is not a joint of this robot'
            elif leader.name == name:
                why = 'mimics itself'
            elif leader.type not in _ONE_DOF:
                why = f'mimics {leader.name!r}, a {leader.type.value} joint'
            if why is not None:
                self.ctx.warn(f'joint {name!r} {why}: the <mimic> is ignored and the joint moves '
                              'on its own', joint.line, 'URDF_MIMIC_IGNORED')
                out[name] = _without_mimic(joint)
        for loop in _mimic_loops(out):
            self.ctx.warn(f'the joints {" -> ".join(loop + [loop[0]])} mimic each other in a '
                          'loop: their <mimic>s are ignored', out[loop[0]].line,
                          'URDF_MIMIC_IGNORED')
            for name in loop:
                out[name] = _without_mimic(out[name])
        return out


def _without_mimic(joint: Joint) -> Joint:
    return replace(joint, mimic=None)


def _mimic_loops(joints: dict[str, Joint]) -> list[list[str]]:
    """Every loop of mimic references (each listed once, from its first joint in the file)."""
    loops, done = [], set()
    for start in joints:
        path, name = [], start
        while name not in done and name not in path:
            joint = joints.get(name)
            if joint is None or joint.mimic is None:
                break
            path.append(name)
            name = joint.mimic.joint
        if name in path:
            loops.append(path[path.index(name):])
        done.update(path)
    return loops


def _plane_axes(normal: tuple[float, ...]) -> tuple[Vec3, Vec3]:
    """Two in-plane axes t1, t2 with t1 × t2 = normal (X and Y for a Z normal)."""
    import numpy as np  # planar joints only: loading a URDF needs no numpy otherwise
    n = np.asarray(normal, dtype=float)
    n = n / np.linalg.norm(n)
    helper = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    t1 = helper - (helper @ n) * n
    t1 /= np.linalg.norm(t1)
    t2 = np.cross(n, t1)
    return vec3(t1), vec3(t2)

