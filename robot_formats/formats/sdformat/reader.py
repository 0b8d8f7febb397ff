"""SDFormat reader: ``<sdf>`` XML into the document model of :mod:`.dom`, includes expanded.

This stage checks what the XML alone can tell (spec stages 1 and 2: element structure, names,
values) and replaces every ``//include`` by the model it names, renamed, reposed and re-staticed
as the include says. Frame semantics (stages 3-8) are :mod:`.frames`' job.

Version rules: names may contain ``::`` only before 1.8; sibling links, joints, frames and
models of different kinds may share a name only before 1.7 (libsdformat renames the later one
``X_joint`` / ``X_frame``, and so do we, with a warning).
"""

from __future__ import annotations

import copy
import math
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np
from lxml import etree

from robot_formats.core.errors import (Diagnostic, DuplicateNameError, FormatError,
                                       InvalidValueError, ReferenceError, SchemaError,
                                       StructureError, UnsupportedError)
from robot_formats.core.model import (IDENTITY, Box, Capsule, Collision, Cylinder, Dynamics,
                                      Ellipsoid, Inertial, JointType, Limits, Material, Mesh,
                                      Plane, Sphere, Visual)
from robot_formats.core.transforms import matrix_to_pose
from robot_formats.core.limits import LoadBudget, in_range
from robot_formats.core.reading import NumberTables
from robot_formats.core.xmlsafe import parse_xml_bytes, read_bytes
from robot_formats.formats.sdformat import interface
from robot_formats.formats.sdformat.dom import IDENTITY as IDENTITY_MATRIX
from robot_formats.formats.sdformat.dom import (MODEL_FRAME, PoseSpec, SdfAxis, SdfFrame, SdfJoint,
                                                SdfLink, SdfModel, SdfPlugin, SdfVisualPose,
                                                SdfWorld)
from robot_formats.formats.sdformat.foreign import foreign_model, interface_to_model
from robot_formats.formats.sdformat.unflatten import unflatten
from robot_formats.formats.sdformat.uri import ResolverConfig, resolve_uri
from robot_formats.formats.sdformat.values import (SdfContext, child, first_children,
                                                   parse_version, pose_from, pose_of, text)

if TYPE_CHECKING:
    from robot_formats.formats.spec import LoadResult

__all__ = ['SdfLoader', 'SDF_EXTENSIONS']

SDF_EXTENSIONS = ('.sdf', '.world')
_RESERVED = re.compile(r'^__.*__$')
_UNLIMITED = 1e16  # SDFormat's default joint limits: "no limit"
_JOINT_TYPES = {
    'fixed': JointType.FIXED, 'revolute': JointType.REVOLUTE,
    'continuous': JointType.CONTINUOUS, 'prismatic': JointType.PRISMATIC,
    'ball': JointType.BALL, 'universal': JointType.UNIVERSAL,
    'revolute2': JointType.UNIVERSAL, 'screw': JointType.SCREW, 'gearbox': JointType.REVOLUTE,
}
_ROOT_CONTENT = ('world', 'model', 'actor', 'light', 'include')


class SdfLoader:
    """Reads SDFormat documents and everything they include (one instance per load)."""

    def __init__(self, warnings: list[Diagnostic], config: ResolverConfig | None = None,
                 load_nested: Callable[[Path], LoadResult] | None = None,
                 budget: LoadBudget | None = None) -> None:
        self.warnings = warnings
        self.config = config or ResolverConfig()
        #: what the load may still read or copy: every include is charged, a copy of an
        #: included file as much as reading it (with everything it includes) again
        self.budget = budget if budget is not None else LoadBudget()
        #: loads an included file of another format (URDF, SKEL, HRDF): the registry's load,
        #: handed down by it (None: such includes are refused)
        self.load_nested = load_nested
        self._directories: dict[str, Path] = {}  # including file -> its resolved directory
        self.stack: list[str] = []          # files being read, outermost first (cycle check)
        #: included SDFormat files already read in this load: a file included many times (a
        #: world of 1,000 copies of a robot) is read once and its model copied per include
        self._parsed: dict[str, _Parsed] = {}
        self._subtrees: list[_Parsed] = []  # what the files being read include, innermost last
        self._uris: dict[tuple[str, str | None], Path] = {}
        self._keys: dict[str, str] = {}    # path -> resolved path (cycle check key)
        self._real_dirs: dict[str, str] = {}  # directory -> its resolved path
        #: the pose matrices of every document of the load (see SdfContext.poses)
        self._poses: dict = {}
        #: the numbers of every text the load's documents read (see ReadingContext)
        self._numbers: NumberTables = ({}, {})

    # --- documents ------------------------------------------------------------------------
    def document(self, root: etree._Element, file: str | None, world: str | None = None
                 ) -> SdfWorld | SdfModel:
        """The world (the one named ``world``, else the first), or the single model, a
        top-level ``<sdf>`` document describes."""
        self.stack.append(str(Path(file).resolve()) if file else '<input>')
        try:
            ctx, content = self._sdf_root(root, file)
            worlds = [e for e in content if e.tag == 'world']
            if worlds:
                if len(content) != len(worlds):
                    raise SchemaError('an <sdf> document holds either worlds or one model, not '
                                      'both', file, content[0].sourceline,
                                      code='ELEMENT_INCORRECT_TYPE')
                return self._one_world(ctx, worlds, world)
            if world is not None:
                raise ReferenceError(f'no world named {world!r}: the document holds a model, not '
                                     'a world', file, root.sourceline, code='ELEMENT_MISSING')
            model = self._single_model(ctx, root, content)
            if model is None:
                raise SchemaError(f'the document holds only a <{content[0].tag}>, no <world> or '
                                  '<model>: there is no kinematic content to load', file,
                                  content[0].sourceline, code='ELEMENT_MISSING')
            return model
        finally:
            self.stack.pop()

    def _sdf_root(self, root: etree._Element, file: str | None
                  ) -> tuple[SdfContext, list[etree._Element]]:
        if root.tag != 'sdf':
            raise SchemaError(f'the root element is <{root.tag}>, not <sdf>', file,
                              root.sourceline, code='FILE_READ')
        version = parse_version(root.get('version'), file, root.sourceline)
        ctx = SdfContext(file, self.warnings, version, self.budget, self._poses,
                          self._numbers)
        return ctx, [e for e in root if isinstance(e.tag, str) and e.tag in _ROOT_CONTENT]

    def _one_world(self, ctx: SdfContext, worlds: list[etree._Element], wanted: str | None
                   ) -> SdfWorld:
        """The world named ``wanted``, else the first; the others are left out with a warning,
        as Gazebo loads the first world of a document (libsdformat reads them all)."""
        names = [w.get('name') for w in worlds]
        for index, name in enumerate(names):
            if name is not None and name in names[:index]:
                raise DuplicateNameError(f'two worlds are named {name!r}', ctx.file,
                                         worlds[index].sourceline, code='DUPLICATE_NAME')
        if wanted is not None and wanted not in names:
            raise ReferenceError(f'no world named {wanted!r}; the document holds '
                                 f'{", ".join(repr(n) for n in names)}', ctx.file,
                                 worlds[0].sourceline, code='ELEMENT_MISSING')
        chosen = worlds[names.index(wanted)] if wanted is not None else worlds[0]
        if len(worlds) > 1:
            others = ', '.join(repr(n) for n in names if n != chosen.get('name'))
            if wanted is None:  # the spec allows several worlds; which one is ambiguous
                ctx.warn(f'the document holds {len(worlds)} worlds; loading the first, '
                         f'{chosen.get("name")!r}, as Gazebo does, and leaving out {others} '
                         '(choose one with --world or the world parameter)', chosen.sourceline,
                         'SDF_SEVERAL_WORLDS')
            else:
                ctx.warn(f'loading world {wanted!r}; the document also holds {others}',
                         chosen.sourceline, 'SDF_SEVERAL_WORLDS', note=True)
        return self.world(ctx, chosen)

    def _single_model(self, ctx: SdfContext, root: etree._Element,
                      content: list[etree._Element]) -> SdfModel | None:
        """The one model of a model file (None for a light- or actor-only file)."""
        names = [e.get('name') for e in content if e.tag == 'model']
        for index, name in enumerate(names):
            if name is not None and name in names[:index]:
                raise DuplicateNameError(f'two models are named {name!r}', ctx.file,
                                         content[index].sourceline, code='DUPLICATE_NAME')
        if len(content) > 1:
            raise SchemaError('a model file holds exactly one <model>, <actor> or <light>; '
                              f'this one holds {len(content)}', ctx.file,
                              content[1].sourceline, code='ELEMENT_INCORRECT_TYPE')
        if content and content[0].tag == 'model':
            return self.model(ctx, content[0], top=True)
        if content and content[0].tag == 'include':
            models = self.include(ctx, content[0])
            if models:
                return models[0]
        elif content:
            return None
        raise SchemaError('the document has no <world> or <model>; there is no kinematic '
                          'content to load', ctx.file, root.sourceline, code='ELEMENT_MISSING')

    # --- names ----------------------------------------------------------------------------
    def name_of(self, ctx: SdfContext, element: etree._Element, what: str) -> str:
        """The element's ``name``, checked as stage 2 says."""
        name = element.get('name')
        if name is None or not name.strip():
            raise SchemaError(f'<{element.tag}> needs a non-empty name attribute ({what})',
                              ctx.file, element.sourceline, code='ATTRIBUTE_MISSING')
        if name[:2] == '__' or name == 'world' or '::' in name:  # what check_name refuses
            self.check_name(ctx, name, element.sourceline, f'<{element.tag}>')
        return name

    @staticmethod
    def check_name(ctx: SdfContext, name: str, line: int | None, what: str) -> None:
        if (name[:2] == '__' and _RESERVED.match(name)) or name == 'world':
            raise SchemaError(f'{what} name {name!r} is reserved (names of the form __*__ and '
                              '"world" name implicit frames)', ctx.file, line,
                              code='RESERVED_NAME')
        if '::' in name and ctx.version >= (1, 8):
            raise SchemaError(f'{what} name {name!r} contains "::", which SDFormat 1.8 reserves '
                              'as the scope delimiter', ctx.file, line, code='RESERVED_NAME')

    # --- world ----------------------------------------------------------------------------
    def world(self, ctx: SdfContext, element: etree._Element) -> SdfWorld:
        world = SdfWorld(self.name_of(ctx, element, 'world'), ctx.file, element.sourceline,
                         ctx.version)
        gravity = child(element, 'gravity')
        physics = child(element, 'physics')
        if gravity is None and physics is not None:
            gravity = child(physics, 'gravity')
        # (the physics of a scene: no member of it, core.ranges' rule does not cover it)
        world.gravity = ctx.vector(gravity, 3, (0.0, 0.0, -9.8), bounded=False)
        siblings = _Siblings(ctx, 'world', world.name)
        for sub in element:
            tag = sub.tag
            if tag == 'model':
                model = self.model(ctx, sub)
                siblings.claim(model.name, 'model', sub.sourceline)
                world.models.append(model)
            elif tag == 'include':
                if _merge(ctx, sub):
                    self._merge_include(ctx, world, sub, siblings)
                    continue
                for model in self.include(ctx, sub):
                    siblings.claim(model.name, 'model', sub.sourceline)
                    world.models.append(model)
            elif tag == 'frame':
                frame = self.frame(ctx, sub)
                frame.name = siblings.claim(frame.name, 'frame', sub.sourceline)
                world.frames.append(frame)
            elif tag == 'joint':
                joint = self.joint(ctx, sub)
                joint.name = siblings.claim(joint.name, 'joint', sub.sourceline)
                world.joints.append(joint)
        return world

    # --- model ----------------------------------------------------------------------------
    def model(self, ctx: SdfContext, element: etree._Element, top: bool = False) -> SdfModel:
        name = self.name_of(ctx, element, 'model')
        subs = list(element)  # one pass over the children (lxml makes an object per visit)
        tags = [sub.tag for sub in subs]  # (and a new string per .tag)
        pose = pose_from(ctx, subs[tags.index('pose')] if 'pose' in tags else None)
        if top and pose.relative_to:
            raise SchemaError(f'the pose of top-level model {name!r} names relative_to='
                              f'{pose.relative_to!r}, but a model file has no other frame',
                              ctx.file, pose.line, code='ATTRIBUTE_INVALID')
        line = element.sourceline
        model = SdfModel(name, pose, ctx.file, line, ctx.version,
                         ctx.boolean(subs[tags.index('static')]) if 'static' in tags else False,
                         element.get('canonical_link', ''), element.get('placement_frame', ''),
                         line)
        siblings = _Siblings(ctx, 'model', name)
        claim = siblings.claim
        for sub, tag in zip(subs, tags):
            if tag == 'link':
                link = self.link(ctx, sub)
                claim(link.name, 'link', sub.sourceline)
                model.links.append(link)
            elif tag == 'joint':
                joint = self.joint(ctx, sub)
                joint.name = claim(joint.name, 'joint', sub.sourceline)
                model.joints.append(joint)
            elif tag == 'frame':
                frame = self.frame(ctx, sub)
                frame.name = claim(frame.name, 'frame', sub.sourceline)
                model.frames.append(frame)
            elif tag == 'model':
                nested = self.model(ctx, sub)
                claim(nested.name, 'model', sub.sourceline)
                model.models.append(nested)
            elif tag == 'plugin':
                model.plugins += (_plugin(ctx, sub),)
            elif tag == 'include':
                if _merge(ctx, sub):
                    self._merge_include(ctx, model, sub, siblings)
                else:
                    for nested in self.include(ctx, sub, parent_name=model.name):
                        claim(nested.name, 'model', sub.sourceline)
                        model.models.append(nested)
        if ctx.version < (1, 8):
            unflatten(model)
        return model

    # --- links ----------------------------------------------------------------------------
    def link(self, ctx: SdfContext, element: etree._Element) -> SdfLink:
        name = self.name_of(ctx, element, 'link')
        pose = inertial = None
        visuals: list[etree._Element] | None = None  # lists only for links with shapes
        collisions: list[etree._Element] | None = None
        for sub in element:  # one pass over the children
            tag = sub.tag
            if tag == 'visual':
                if visuals is None:
                    visuals = []
                visuals.append(sub)
            elif tag == 'collision':
                if collisions is None:
                    collisions = []
                collisions.append(sub)
            elif tag == 'pose':
                if pose is None:
                    pose = sub
            elif tag == 'inertial':
                if inertial is None:
                    inertial = sub
        link = SdfLink(name, pose_from(ctx, pose), element.sourceline,
                       self._inertial(ctx, inertial))
        if visuals is not None or collisions is not None:
            shapes = [self._shape(ctx, sub, True) for sub in visuals or ()]
            shapes += [self._shape(ctx, sub, False) for sub in collisions or ()]
            link.shapes = tuple(shape for shape in shapes if shape is not None)
        return link

    def _shape(self, ctx: SdfContext, element: etree._Element, visual: bool
               ) -> SdfVisualPose | None:
        """A visual (``visual``) or collision; None without a geometry robot_formats reads."""
        found = first_children(element)
        pose, material = found.get('pose'), found.get('material')
        shape = self._geometry(ctx, found.get('geometry'))
        if shape is None:
            return None
        name = element.get('name')
        item: Visual | Collision = Visual(shape, name=name, material=_material(ctx, material)) \
            if visual else Collision(shape, name=name)
        return SdfVisualPose(item, pose_from(ctx, pose))

    def _inertial(self, ctx: SdfContext, element: etree._Element | None) -> Inertial | None:
        if element is None:
            return None
        found = first_children(element)
        mass = ctx.number(found.get('mass'), 1.0)
        inertia = found.get('inertia')
        entries = first_children(inertia) if inertia is not None else {}
        ixx, ixy, ixz, iyy, iyz, izz = (
            ctx.number(entries.get(key), default)
            for key, default in (('ixx', 1.0), ('ixy', 0.0), ('ixz', 0.0), ('iyy', 1.0),
                                 ('iyz', 0.0), ('izz', 1.0)))
        pose = found.get('pose')
        matrix = pose_from(ctx, pose).matrix
        # (the shared identity: absent or zero; matrix_to_pose gives IDENTITY for it)
        origin = IDENTITY if matrix is IDENTITY_MATRIX else matrix_to_pose(matrix)
        if pose is not None and origin is not IDENTITY:  # (its angles are not kept as read)
            in_range((*origin.xyz, *origin.quat), '<inertial> <pose>', ctx.file,
                     pose.sourceline)
        return Inertial(mass, origin, (ixx, ixy, ixz, iyy, iyz, izz))

    def _geometry(self, ctx: SdfContext, element: etree._Element | None):
        if element is None:
            return None
        for shape in element:
            tag = shape.tag
            if tag == 'box':
                return Box(ctx.vector(child(shape, 'size'), 3, (1.0, 1.0, 1.0)))
            if tag == 'sphere':
                return Sphere(ctx.number(child(shape, 'radius'), 1.0))
            if tag in ('cylinder', 'capsule'):
                kind = Cylinder if tag == 'cylinder' else Capsule
                return kind(ctx.number(child(shape, 'radius'), 1.0),
                            ctx.number(child(shape, 'length'), 1.0))
            if tag == 'ellipsoid':
                return Ellipsoid(ctx.vector(child(shape, 'radii'), 3, (1.0, 1.0, 1.0)))
            if tag == 'plane':
                return Plane(ctx.vector(child(shape, 'normal'), 3, (0.0, 0.0, 1.0)),
                             ctx.vector(child(shape, 'size'), 2, (0.0, 0.0)))
            if tag == 'mesh':
                uri = text(child(shape, 'uri'))
                return Mesh(ctx.uri(uri) if uri else uri,
                            ctx.vector(child(shape, 'scale'), 3, (1.0, 1.0, 1.0)))
        return None

    # --- joints and frames ----------------------------------------------------------------
    def joint(self, ctx: SdfContext, element: etree._Element) -> SdfJoint:
        name = self.name_of(ctx, element, 'joint')
        sdf_type = element.get('type')
        if sdf_type is None:
            raise SchemaError(f'joint {name!r} needs a type attribute', ctx.file,
                              element.sourceline, code='ATTRIBUTE_MISSING')
        kind = _JOINT_TYPES.get(sdf_type.strip().lower())
        if kind is None:
            raise SchemaError(f'joint {name!r} has unknown type {sdf_type!r}; SDFormat joints '
                              f'are {", ".join(sorted(_JOINT_TYPES))}', ctx.file,
                              element.sourceline, code='ATTRIBUTE_INVALID')
        found = first_children(element)
        parent = _end(ctx, name, element, found, 'parent')
        child_name = _end(ctx, name, element, found, 'child')
        axis = found.get('axis')
        axis2 = found.get('axis2')
        joint = SdfJoint(name, kind, parent, child_name, pose_from(ctx, found.get('pose')),
                         None if axis is None else self._axis(ctx, axis),
                         None if axis2 is None else self._axis(ctx, axis2),
                         0.0, None, 'xyz', sdf_type, element.sourceline)
        if kind is JointType.REVOLUTE:
            if not _limited(joint.axis):
                joint.type = JointType.CONTINUOUS
        elif kind is JointType.SCREW:
            joint.pitch = _screw_pitch(ctx, element)
        elif kind is JointType.UNIVERSAL and joint.axis2 is None:
            joint.axis2 = SdfAxis((0.0, 1.0, 0.0))
        return joint

    def _axis(self, ctx: SdfContext, element: etree._Element | None) -> SdfAxis | None:
        if element is None:
            return None
        found = first_children(element)
        xyz = found.get('xyz')
        axis = SdfAxis(ctx.vector(xyz, 3, (0.0, 0.0, 1.0)), line=element.sourceline)
        if math.hypot(*axis.xyz) < 1e-12:
            raise InvalidValueError('joint axis <xyz> has zero length', ctx.file,
                                    element.sourceline, code='ELEMENT_INVALID')
        if xyz is not None:
            axis.expressed_in = xyz.get('expressed_in', '')
        if ctx.version < (1, 7) and ctx.boolean(found.get('use_parent_model_frame'), False):
            axis.expressed_in = MODEL_FRAME
        limit = found.get('limit')
        if limit is not None:
            axis.limits = _limits(ctx, first_children(limit))
        dynamics = found.get('dynamics')
        if dynamics is not None:
            axis.dynamics = Dynamics(ctx.number(child(dynamics, 'damping'), 0.0),
                                     ctx.number(child(dynamics, 'friction'), 0.0))
        return axis

    def frame(self, ctx: SdfContext, element: etree._Element) -> SdfFrame:
        return SdfFrame(self.name_of(ctx, element, 'frame'), element.get('attached_to', ''),
                        pose_of(ctx, element), element.sourceline)

    # --- includes -------------------------------------------------------------------------
    def include(self, ctx: SdfContext, element: etree._Element, parent_name: str = ''
                ) -> list[SdfModel]:
        """The model an ``<include>`` names, with the include's overrides applied."""
        found: dict[str, etree._Element] = {}  # the first child of each tag
        plugins: list[etree._Element] = []
        added: list[etree._Element] = []  # //include/frame and //include/joint, in order
        for sub in element:  # one pass over the children
            tag = sub.tag
            if tag == 'plugin':
                plugins.append(sub)
                continue
            found.setdefault(tag, sub)
            if tag == 'frame' or tag == 'joint':
                added.append(sub)
        uri_element = found.get('uri')
        uri = text(uri_element)
        if not uri or uri_element is None:
            raise SchemaError('<include> needs a <uri>', ctx.file, element.sourceline,
                              code='ATTRIBUTE_MISSING')
        override = _IncludeOverrides.read(self, ctx, found, plugins)
        path = self._resolve_uri(uri, ctx.file, uri_element.sourceline)
        if not _other_format(path):
            model = self._included_sdf(ctx, path, element)
            if model is None:  # a light or an actor: nothing kinematic to add
                return []
        else:
            model = self._included_other(ctx, path, uri, override, parent_name, element)
        override.apply(ctx, model)
        for sub in added:  # //include/frame and //include/joint add to the included model
            if sub.tag == 'frame':
                model.frames.append(self.frame(ctx, sub))
            else:
                model.joints.append(self.joint(ctx, sub))
            model.shape = None
        return [model]

    def _resolve_uri(self, uri: str, including_file: str | None, line: int | None) -> Path:
        """``resolve_uri``, once per (URI, including file) in a load: a world including one
        model 1,000 times looks it up once. Lookup errors are not cached (their line differs)."""
        key = (uri, including_file)
        found = self._uris.get(key)
        if found is None:
            found = self._uris[key] = resolve_uri(uri, including_file, self.config, line,
                                                  self._directories)
        return found

    def _included_sdf(self, ctx: SdfContext, path: Path, include: etree._Element
                      ) -> SdfModel | None:
        name = str(path)  # a str hashes in C; a Path in Python
        key = self._keys.get(name)
        if key is None:
            key = self._keys[name] = self._real_path(name)
        parsed = self._parsed.get(key)
        if key in self.stack or (parsed is not None and not parsed.files.isdisjoint(self.stack)):
            chain = ' -> '.join(Path(p).name for p in [*self.stack, key])
            raise StructureError(f'include cycle: {chain}', ctx.file, include.sourceline,
                                 code='URI_LOOKUP')
        levels = parsed.depth if parsed is not None else 1
        if len(self.stack) + levels - 1 >= self.config.max_depth:
            raise StructureError(f'includes nest deeper than {self.config.max_depth} files',
                                 ctx.file, include.sourceline, code='URI_LOOKUP')
        first = parsed is None
        if parsed is None:
            parsed = self._parsed[key] = self._read_included(ctx, path, key, include)
        else:  # a copy costs what reading the file and its includes again would
            self.budget.charge(parsed.size, ctx.file, include.sourceline, parsed.documents)
        if self._subtrees:
            self._subtrees[-1].add(parsed)
        if parsed.empty:
            return None
        if first:  # handed out as read (the include changes it): most files are included once
            model, parsed.model = parsed.model, None
        else:
            if parsed.model is None:  # the second include: read again, keep it as the template
                parsed.model = self._read_included(ctx, path, key, include, parsed.data).model
                parsed.data = None
            assert parsed.model is not None  # not empty (checked above): a model was read
            model = _clone_model(parsed.model)
        assert model is not None  # first includes hand out what _read_included read
        model.shape = key
        return model

    def _real_path(self, path: str) -> str:
        """``os.path.realpath(path)``, resolving each directory's symbolic links once per load
        (a world including 1,000 files of one folder)."""
        name = os.path.basename(path)
        if name in ('', '.', '..') or os.path.islink(path):
            return os.path.realpath(path)
        parent = os.path.dirname(path)
        real = self._real_dirs.get(parent)
        if real is None:
            real = self._real_dirs[parent] = os.path.realpath(parent)
        return os.path.join(real, name)

    def _read_included(self, ctx: SdfContext, path: Path, key: str, include: etree._Element,
                       data: bytes | None = None) -> _Parsed:
        """Read an included SDFormat file (from its bytes ``data`` when read already: the XML
        warnings were given then), charged to the load's budget with everything it includes.
        Its XML tree lives while it is read: the model keeps none of it."""
        documents, size = self.budget.documents, self.budget.bytes
        if data is None:
            data = read_bytes(path)
            self.budget.charge(len(data), ctx.file, include.sourceline)
            root = parse_xml_bytes(data, path, self.warnings, ('sdf',))
        else:
            root = parse_xml_bytes(data, path, [], ('sdf',))
        self.stack.append(key)
        below = _Parsed(None, frozenset(), 0)
        self._subtrees.append(below)
        try:
            inner, content = self._sdf_root(root, str(path))
            if any(e.tag == 'world' for e in content):
                raise SchemaError(f'{path.name} is a world; //include can only include models',
                                  ctx.file, include.sourceline, code='ELEMENT_INCORRECT_TYPE')
            model = self._single_model(inner, root, content)
        finally:
            self.stack.pop()
            self._subtrees.pop()
        parsed = _Parsed(model, below.files | {key}, below.depth + 1, data)
        parsed.documents = self.budget.documents - documents
        parsed.size = self.budget.bytes - size
        return parsed

    def _included_other(self, ctx: SdfContext, path: Path, uri: str, override: _IncludeOverrides,
                        parent_name: str, include: etree._Element) -> SdfModel:
        local = override.name or path.stem
        request = interface.NestedInclude(
            uri, str(path), f'{parent_name}::{local}' if parent_name else local,
            override.name, override.static, include)
        for parser in self.config.custom_model_parsers():
            errors: list = []
            result = parser(request, errors)
            if errors:
                raise FormatError('; '.join(str(e) for e in errors), str(path), None,
                                  code='CUSTOM_PARSER')
            if result is not None:
                return interface_to_model(result, ctx, include.sourceline, str(path))
        if self.load_nested is None:
            raise UnsupportedError(f'{path.name}: an included {path.suffix or "non-SDFormat"} '
                                   'model needs robot_formats.load (this reader was given no '
                                   'loader for other formats)', ctx.file, include.sourceline,
                                   code='URI_LOOKUP')
        return foreign_model(self.load_nested(path), local, ctx, include.sourceline,
                             self.warnings)

    def _merge_include(self, ctx: SdfContext, parent: SdfModel | SdfWorld, element: etree._Element,
                       siblings: _Siblings) -> None:
        """``<include merge="true">``: the included model's elements join ``parent`` (a model,
        or a world from 1.10) directly, with libsdformat's proxy frame
        ``_merged__<name>__model__`` standing for its frame."""
        from robot_formats.formats.sdformat.merge import merge_into
        in_world = isinstance(parent, SdfWorld)
        included = self.include(ctx, element, parent_name='' if in_world else parent.name)
        if not included:
            return  # a light or an actor: nothing to merge
        merge_into(ctx, parent, included[0], siblings, element.sourceline)


class _Parsed:
    """An included file as read in this load: its bytes (until a second include has read the
    template from them), its model (the template copies are made from; None until a second
    include needs one), whether it has no model (a light or actor),
    every file it includes, directly or not (cycle check on reuse), how many include levels
    it spans (depth check on reuse), and how many documents and bytes reading it took, its
    includes included (what a copy is charged)."""

    __slots__ = ('model', 'files', 'depth', 'data', 'empty', 'documents', 'size')

    def __init__(self, model: SdfModel | None, files: frozenset[str], depth: int,
                 data: bytes | None = None) -> None:
        self.model, self.files, self.depth, self.data = model, files, depth, data
        self.empty = model is None
        self.documents, self.size = 1, 0

    def add(self, other: _Parsed) -> None:
        self.files = self.files | other.files
        self.depth = max(self.depth, other.depth)


def _clone_model(model: SdfModel) -> SdfModel:
    """A copy of ``model`` that includes may rename, repose and merge (everything an include
    or a merge changes is copied; immutable parts such as shapes and poses are shared)."""
    out = copy.copy(model)
    out.links = [_clone_link(link) for link in model.links]
    out.joints = [_clone_joint(joint) for joint in model.joints]
    out.frames = [_clone_frame(frame) for frame in model.frames]
    out.models = [_clone_model(nested) for nested in model.models]
    out.initial_positions = dict(model.initial_positions)
    return out


def _clone_link(link: SdfLink) -> SdfLink:
    out = copy.copy(link)
    if link.shapes:
        out.shapes = tuple(SdfVisualPose(shape.item, shape.pose) for shape in link.shapes)
    return out


def _clone_joint(joint: SdfJoint) -> SdfJoint:
    out = copy.copy(joint)
    out.axis = copy.copy(joint.axis)
    out.axis2 = copy.copy(joint.axis2)
    return out


def _clone_frame(frame: SdfFrame) -> SdfFrame:
    return copy.copy(frame)


class _Siblings:
    """Name bookkeeping of one scope (stage 2): same-kind duplicates are always errors;
    different kinds may share a name only before 1.7, where the later one is renamed."""

    def __init__(self, ctx: SdfContext, scope_kind: str, scope_name: str) -> None:
        self.ctx = ctx
        self.scope_kind, self.scope_name = scope_kind, scope_name
        self.kinds: dict[str, str] = {}

    @property
    def scope(self) -> str:
        """How messages name the scope (made only for a message)."""
        return f'{self.scope_kind} {self.scope_name!r}'

    def claim(self, name: str, kind: str, line: int | None) -> str:
        other = self.kinds.get(name)
        if other is None:
            self.kinds[name] = kind
            return name
        if other == kind or self.ctx.version >= (1, 7) or kind not in ('joint', 'frame'):
            raise DuplicateNameError(f'{self.scope} has two elements named {name!r} '
                                     f'(a {other} and a {kind}); sibling names must be unique',
                                     self.ctx.file, line, code='DUPLICATE_NAME')
        renamed = f'{name}_{kind}'
        self.ctx.warn(f'{kind} {name!r} has the name of a {other} in {self.scope}; renamed '
                      f'{renamed!r} (SDFormat < 1.7 rule)', line, 'DUPLICATE_NAME')
        return self.claim(renamed, kind, line)


class _IncludeOverrides:
    """What an ``<include>`` changes in the model it includes (spec 1.4)."""

    __slots__ = ('name', 'pose', 'placement_frame', 'placement_line', 'static', 'static_line',
                 'plugins')

    def __init__(self) -> None:
        self.name = ''
        self.pose: PoseSpec | None = None
        self.placement_frame = ''
        self.placement_line: int | None = None
        self.static: bool | None = None  #: tri-state: None = not given
        self.static_line: int | None = None
        self.plugins: tuple[SdfPlugin, ...] = ()

    @classmethod
    def read(cls, loader: SdfLoader, ctx: SdfContext, found: dict[str, etree._Element],
             plugins: list[etree._Element]) -> _IncludeOverrides:
        """The overrides of an ``<include>`` whose first child of each tag is ``found`` (its
        ``<plugin>`` children: ``plugins``)."""
        out = cls()
        name = found.get('name')
        if name is not None:
            out.name = text(name)
            if not out.name:
                raise SchemaError('<include><name> is empty', ctx.file, name.sourceline,
                                  code='ATTRIBUTE_INVALID')
            loader.check_name(ctx, out.name, name.sourceline, '<include>')
        if 'pose' in found:
            out.pose = pose_from(ctx, found['pose'])
        placement = found.get('placement_frame')
        if placement is not None:
            out.placement_frame = text(placement)
            out.placement_line = placement.sourceline
            if out.pose is None:
                raise SchemaError('<include><placement_frame> needs an <include><pose> (the '
                                  'pose the placement frame is put at)', ctx.file,
                                  placement.sourceline, code='MODEL_PLACEMENT_FRAME_INVALID')
        static = found.get('static')
        if static is not None:
            out.static = ctx.boolean(static)
            out.static_line = static.sourceline
        if plugins:
            out.plugins = tuple(_plugin(ctx, plugin) for plugin in plugins)
        return out

    def apply(self, ctx: SdfContext, model: SdfModel) -> None:
        if self.name:
            model.name = self.name
        if self.pose is not None:
            model.pose = self.pose
            if self.placement_frame:
                model.placement_frame = self.placement_frame
                model.placement_line = self.placement_line
        elif model.pose.relative_to:
            model.pose = model.pose._replace(relative_to='')
        if self.static is True:
            if model.shape is not None:
                model.shape = ('static', model.shape)
            _make_static(model)
        elif self.static is False:
            static = _first_static(model)
            if static is not None:
                raise InvalidValueError(
                    f'<include><static>false</static> includes static model {static!r}: '
                    '//include/static can only make models static (spec 1.4.6); remove it or '
                    'include a non-static model', ctx.file, self.static_line,
                    code='ELEMENT_INVALID')
        model.file = model.file or ctx.file
        if self.plugins:
            model.plugins += self.plugins


def _end(ctx: SdfContext, joint: str, element: etree._Element, found: dict[str, etree._Element],
         tag: str) -> str:
    """A joint's ``<parent>`` or ``<child>`` (``tag``): a non-empty frame name."""
    sub = found.get(tag)
    value = (sub.text or '').strip() if sub is not None else ''
    if not value:
        raise SchemaError(f'joint {joint!r} needs a non-empty <{tag}>', ctx.file,
                          element.sourceline, code='ELEMENT_MISSING')
    return value


def _first_static(model: SdfModel) -> str | None:
    """The name of ``model`` or of its first nested model that is static, if any."""
    if model.static:
        return model.name
    for nested in model.models:
        found = _first_static(nested)
        if found is not None:
            return f'{model.name}::{found}'
    return None


def _plugin(ctx: SdfContext, element: etree._Element) -> SdfPlugin:
    """A ``<plugin>``: kept on the model for simulators, no kinematic meaning."""
    return SdfPlugin(element.get('name', ''), element.get('filename', ''), element.sourceline)


def _make_static(model: SdfModel) -> None:
    model.static = True
    for nested in model.models:
        _make_static(nested)


def _merge(ctx: SdfContext, element: etree._Element) -> bool:
    value = element.get('merge', 'false').strip().lower()
    if value not in ('true', 'false', '1', '0'):
        raise InvalidValueError(f'<include merge={value!r}> must be true or false', ctx.file,
                                element.sourceline, code='ATTRIBUTE_INVALID')
    return value in ('true', '1')


def _other_format(path: Path) -> bool:
    """Whether ``path`` is a non-SDFormat file (decided by extension, then by root element)."""
    return path.suffix.lower() not in SDF_EXTENSIONS


def _limited(axis: SdfAxis | None) -> bool:
    return (axis is not None and axis.limits is not None and axis.limits.lower is not None
            and axis.limits.upper is not None)


def _screw_pitch(ctx: SdfContext, element: etree._Element) -> float:
    """Translation per full turn. ``//joint/screw_thread_pitch`` (1.10) is that already;
    the older ``//joint/thread_pitch`` is in radians per metre with the opposite sign."""
    pitch = child(element, 'screw_thread_pitch')
    if pitch is not None:
        return ctx.number(pitch, 0.0)
    thread = child(element, 'thread_pitch')
    old = ctx.number(thread, 1.0, bounded=False)  # (not kept: the pitch made of it is)
    if old == 0.0:
        raise InvalidValueError('screw joint <thread_pitch> is 0', ctx.file,
                                element.sourceline, code='ELEMENT_INVALID')
    pitch = -2.0 * np.pi / old
    in_range((pitch,), 'the pitch of screw joint <thread_pitch>', ctx.file,
             element.sourceline if thread is None else thread.sourceline)
    return pitch


def _limits(ctx: SdfContext, bounds: dict[str, etree._Element]) -> Limits:
    """An axis's ``<limit>``: a bound beyond SDFormat's "no limit" (1e16, or inf) is none, and
    a negative (or infinite) effort or velocity is none, so they are read unbounded and the
    values kept are checked (core.ranges' rule)."""
    lower = ctx.number(bounds.get('lower'), -_UNLIMITED, bounded=False)
    upper = ctx.number(bounds.get('upper'), _UNLIMITED, bounded=False)
    effort = ctx.number(bounds.get('effort'), -1.0, bounded=False)
    velocity = ctx.number(bounds.get('velocity'), -1.0, bounded=False)
    return Limits(lower if abs(lower) < _UNLIMITED else None,  # (inf too)
                  upper if abs(upper) < _UNLIMITED else None,
                  _rate(ctx, bounds, 'effort', effort), _rate(ctx, bounds, 'velocity', velocity))


def _rate(ctx: SdfContext, bounds: dict[str, etree._Element], key: str, value: float
          ) -> float | None:
    """A limit's ``<effort>`` or ``<velocity>`` (``key``) read as ``value`` (-1 when absent):
    none when negative or infinite (SDFormat's "no limit"), else checked in range."""
    if not 0 <= value < math.inf:
        return None
    in_range((value,), f'<{key}>', ctx.file, bounds[key].sourceline)
    return value


def _material(ctx: SdfContext, material: etree._Element | None) -> Material | None:
    if material is None:
        return None
    diffuse = child(material, 'diffuse')
    if diffuse is None:
        diffuse = child(material, 'ambient')
    if diffuse is None:
        return None
    values = ctx.vector(diffuse, None, (), bounded=False)  # (kept only as a colour)
    if len(values) == 3:
        (r, g, b), a = values, 1.0
    elif len(values) == 4:
        r, g, b, a = values
    else:
        return None
    in_range(values, ctx.what(diffuse), ctx.file, diffuse.sourceline)
    return Material(rgba=(r, g, b, a))
