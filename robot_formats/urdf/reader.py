"""URDF reader: a ``<robot>`` document into a single-model :class:`~robot_formats.model.Scene`.

Follows urdfdom's rules where they matter for a valid tree (names required and unique, limits
required on revolute and prismatic joints, one root link) and reports everything with file and
line. Relative mesh paths are resolved against the URDF's directory and become ``file://``
URIs; ``package://`` and other URIs are kept as written.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import numpy as np
from lxml import etree

from ..errors import Diagnostic, DuplicateNameError, InvalidValueError, SchemaError
from ..model import (Box, Collision, Cylinder, Dynamics, Geometry, Inertial, Joint,
                     JointType, Limits, Link, Material, Mesh, Mimic, Model, Pose, Scene, Sphere,
                     Visual)
from ..xmlsafe import attr_float, floats, local_name, read_xml, required_attr

__all__ = ['read_urdf', 'parse_urdf_element', 'mesh_uri']

_JOINT_TYPES = {
    'fixed': JointType.FIXED, 'revolute': JointType.REVOLUTE,
    'continuous': JointType.CONTINUOUS, 'prismatic': JointType.PRISMATIC,
    'floating': JointType.FLOATING, 'planar': JointType.PLANAR,
}
#: URDF elements that belong to other tools (simulators, controllers); read past silently.
_FOREIGN = {'gazebo', 'transmission', 'ros2_control', 'sensor', 'plugin'}


def read_urdf(path: str | Path, warnings: list[Diagnostic] | None = None) -> Scene:
    """Load a URDF file."""
    root = read_xml(path)
    return parse_urdf_element(root, str(path), warnings if warnings is not None else [])


def mesh_uri(filename: str, base_dir: Path | None) -> str:
    """A URI rviz can open: relative and plain absolute paths become ``file://`` URIs."""
    if urlparse(filename).scheme:
        return filename
    path = Path(filename)
    if not path.is_absolute() and base_dir is not None:
        path = (base_dir / path).resolve()
    return path.as_uri() if path.is_absolute() else filename


class _UrdfParser:
    def __init__(self, file: str | None, warnings: list[Diagnostic]) -> None:
        self.file = file
        self.warnings = warnings
        self.base_dir = Path(file).resolve().parent if file else None
        self.materials: dict[str, Material] = {}

    def warn(self, message: str, element: etree._Element) -> None:
        self.warnings.append(Diagnostic(message, self.file, element.sourceline))

    # --- small pieces ---------------------------------------------------------------------------
    def origin(self, parent: etree._Element) -> Pose:
        element = parent.find('origin')
        if element is None:
            return Pose()
        xyz = floats(element.get('xyz', '0 0 0'), self.file, element.sourceline, '<origin xyz>', 3)
        rpy = floats(element.get('rpy', '0 0 0'), self.file, element.sourceline, '<origin rpy>', 3)
        return Pose.from_xyz_rpy(xyz, rpy)

    def positive(self, element: etree._Element, name: str) -> float:
        value = attr_float(element, name, self.file)
        if value < 0:
            raise InvalidValueError(f'<{local_name(element)} {name}> must not be negative '
                                    f'(got {value})', self.file, element.sourceline)
        return value

    def geometry(self, parent: etree._Element) -> Geometry:
        holder = parent.find('geometry')
        if holder is None:
            raise SchemaError(f'<{local_name(parent)}> needs a <geometry>', self.file,
                              parent.sourceline)
        shapes = [child for child in holder if isinstance(child.tag, str)]
        if len(shapes) != 1:
            raise SchemaError('<geometry> must hold exactly one shape', self.file,
                              holder.sourceline)
        shape = shapes[0]
        kind = local_name(shape)
        if kind == 'box':
            size = floats(required_attr(shape, 'size', self.file), self.file, shape.sourceline,
                          '<box size>', 3)
            if min(size) < 0:
                raise InvalidValueError('<box size> must not be negative', self.file,
                                        shape.sourceline)
            return Box(size)  # type: ignore[arg-type]
        if kind == 'cylinder':
            return Cylinder(self.positive(shape, 'radius'), self.positive(shape, 'length'))
        if kind == 'sphere':
            return Sphere(self.positive(shape, 'radius'))
        if kind == 'mesh':
            filename = required_attr(shape, 'filename', self.file)
            scale = floats(shape.get('scale', '1 1 1'), self.file, shape.sourceline,
                           '<mesh scale>', 3)
            return Mesh(mesh_uri(filename, self.base_dir), scale)  # type: ignore[arg-type]
        raise SchemaError(f'unknown geometry <{kind}> (URDF has box, cylinder, sphere, mesh)',
                          self.file, shape.sourceline)

    def material(self, element: etree._Element) -> Material:
        name = element.get('name')
        color = element.find('color')
        texture = element.find('texture')
        rgba = None
        if color is not None:
            rgba = floats(required_attr(color, 'rgba', self.file), self.file, color.sourceline,
                          '<color rgba>', 4)
        texture_uri = None
        if texture is not None and texture.get('filename'):
            texture_uri = mesh_uri(texture.get('filename', ''), self.base_dir)
        if rgba is None and texture_uri is None and name in self.materials:
            return self.materials[name]
        return Material(name, rgba, texture_uri)  # type: ignore[arg-type]

    def inertial(self, element: etree._Element) -> Inertial:
        mass_el = element.find('mass')
        if mass_el is None:
            raise SchemaError('<inertial> needs a <mass>', self.file, element.sourceline)
        mass = self.positive(mass_el, 'value')
        inertia_el = element.find('inertia')
        if inertia_el is None:
            self.warn('<inertial> without <inertia>: inertia taken as zero (urdfdom refuses '
                      'this file)', element)
            inertia = (0.0,) * 6
        else:
            inertia = tuple(attr_float(inertia_el, key, self.file, 0.0)
                            for key in ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz'))
        return Inertial(mass, self.origin(element), inertia)  # type: ignore[arg-type]

    # --- elements -------------------------------------------------------------------------------
    def link(self, element: etree._Element) -> Link:
        name = required_attr(element, 'name', self.file)
        inertial_el = element.find('inertial')
        visuals = []
        for visual in element.findall('visual'):
            material_el = visual.find('material')
            visuals.append(Visual(self.geometry(visual), self.origin(visual), visual.get('name'),
                                  self.material(material_el) if material_el is not None else None))
        collisions = tuple(Collision(self.geometry(c), self.origin(c), c.get('name'))
                           for c in element.findall('collision'))
        return Link(name, self.inertial(inertial_el) if inertial_el is not None else None,
                    tuple(visuals), collisions, element.sourceline)

    def joint(self, element: etree._Element) -> Joint:
        name = required_attr(element, 'name', self.file)
        type_name = required_attr(element, 'type', self.file)
        kind = _JOINT_TYPES.get(type_name)
        if kind is None:
            raise SchemaError(f'joint {name!r} has unknown type {type_name!r} (URDF joint types: '
                              f'{", ".join(_JOINT_TYPES)})', self.file, element.sourceline)
        parent = self.link_ref(element, 'parent', name)
        child = self.link_ref(element, 'child', name)
        axis_el = element.find('axis')
        axis = (1.0, 0.0, 0.0)
        if axis_el is not None:
            axis = floats(axis_el.get('xyz', '1 0 0'), self.file, axis_el.sourceline,
                          '<axis xyz>', 3)  # type: ignore[assignment]
            if kind is not JointType.FIXED and float(np.linalg.norm(axis)) < 1e-12:
                raise InvalidValueError(f'joint {name!r} has a zero-length axis', self.file,
                                        axis_el.sourceline)
        axis2 = None
        if kind is JointType.PLANAR:
            axis, axis2 = _plane_axes(axis)
        limit_el = element.find('limit')
        limits: tuple[Limits, ...] = ()
        if limit_el is not None and kind is not JointType.FIXED:
            limits = (self.limits(limit_el, kind),)
        elif kind in (JointType.REVOLUTE, JointType.PRISMATIC):
            self.warn(f'{type_name} joint {name!r} has no <limit>: read as unlimited (urdfdom '
                      'refuses this file; the URDF robot_formats writes is valid)', element)
        dyn_el = element.find('dynamics')
        dynamics = None
        if dyn_el is not None:
            dynamics = Dynamics(attr_float(dyn_el, 'damping', self.file, 0.0),
                                attr_float(dyn_el, 'friction', self.file, 0.0))
        mimic_el = element.find('mimic')
        mimic = None
        if mimic_el is not None:
            mimic = Mimic(required_attr(mimic_el, 'joint', self.file),
                          attr_float(mimic_el, 'multiplier', self.file, 1.0),
                          attr_float(mimic_el, 'offset', self.file, 0.0))
        return Joint(name, kind, parent, child, self.origin(element), axis, axis2,
                     limits=limits, dynamics=dynamics, mimic=mimic, line=element.sourceline)

    def link_ref(self, element: etree._Element, tag: str, joint: str) -> str:
        ref = element.find(tag)
        if ref is None:
            raise SchemaError(f'joint {joint!r} needs a <{tag}>', self.file, element.sourceline)
        return required_attr(ref, 'link', self.file)

    def limits(self, element: etree._Element, kind: JointType) -> Limits:
        lower = attr_float(element, 'lower', self.file, 0.0)
        upper = attr_float(element, 'upper', self.file, 0.0)
        if kind is JointType.CONTINUOUS:
            lower_opt, upper_opt = None, None
        else:
            lower_opt, upper_opt = lower, upper
            if upper < lower:
                raise InvalidValueError(f'<limit> lower {lower} is above upper {upper}',
                                        self.file, element.sourceline)
        return Limits(lower_opt, upper_opt, attr_float(element, 'effort', self.file, 0.0),
                      attr_float(element, 'velocity', self.file, 0.0))

    def add_unique(self, items: dict, item: Link | Joint, what: str,
                   element: etree._Element) -> None:
        if item.name in items:
            raise DuplicateNameError(f'two {what} are named {item.name!r}', self.file,
                                     element.sourceline)
        items[item.name] = item

    def robot(self, root: etree._Element) -> Scene:
        if local_name(root) != 'robot':
            raise SchemaError(f'a URDF document has a <robot> root, not <{local_name(root)}>',
                              self.file, root.sourceline)
        name = required_attr(root, 'name', self.file)
        for material in root.findall('material'):
            mat = self.material(material)
            if mat.name is None:
                raise SchemaError('a top-level <material> needs a name', self.file,
                                  material.sourceline)
            self.materials[mat.name] = mat
        links: dict[str, Link] = {}
        joints: dict[str, Joint] = {}
        for child in root:
            tag = local_name(child)
            if tag == 'link':
                self.add_unique(links, self.link(child), 'links', child)
            elif tag == 'joint':
                self.add_unique(joints, self.joint(child), 'joints', child)
            elif tag and tag not in _FOREIGN and tag != 'material':
                self.warn(f'ignored unknown element <{tag}>', child)
        if not links:
            raise SchemaError(f'robot {name!r} has no <link>', self.file, root.sourceline)
        model = Model(name, tuple(links.values()), tuple(joints.values()), (),
                      materials=dict(self.materials), source=self.file)
        return Scene(name, (model,), is_world=False, source=self.file)


def _plane_axes(normal: tuple[float, ...]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Two in-plane axes t1, t2 with t1 × t2 = normal (X and Y for a Z normal)."""
    n = np.asarray(normal, dtype=float)
    n = n / np.linalg.norm(n)
    helper = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    t1 = helper - (helper @ n) * n
    t1 /= np.linalg.norm(t1)
    t2 = np.cross(n, t1)
    return tuple(float(v) for v in t1), tuple(float(v) for v in t2)


def parse_urdf_element(root: etree._Element, file: str | None,
                       warnings: list[Diagnostic]) -> Scene:
    """Build a scene from an already parsed ``<robot>`` element."""
    return _UrdfParser(file, warnings).robot(root)

