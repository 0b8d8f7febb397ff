"""Reader of TMP problem files (``<problem>``): objects, grasps, supports, robots, AMmapping.

Tolerant by default of the spec page's own mistakes (a stray ``)`` after pose numbers, the
``<xmin>a<xmax><xmin>b<xmax>`` typo, misspelt closing tags such as ``</tordo>``): each is read
as meant with a warning naming file and line. ``strict=True`` refuses them instead. Everything
else that is wrong (non-rotations, unknown attachment names, attachment cycles, non-finite
numbers, AMmapping joints the robots do not have, ...) is a FormatError with file and line.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np
from lxml import etree

from robot_formats.core.errors import (CycleError, Diagnostic, DuplicateNameError, FormatError,
                                       InvalidValueError, ReferenceError, SchemaError,
                                       StructureError, XmlSyntaxError)
from robot_formats.core.files import is_regular_file
from robot_formats.core.model import dof_names
from robot_formats.core.reading import ReadingContext
from robot_formats.core.xmlsafe import local_name, parse_xml_bytes, read_bytes
from robot_formats.formats.tmp.mapping import (ConfigurationMapping, load_mapping, mapping_beside,
                                               unmapped_warning)
from robot_formats.formats.tmp.problem import (Action, ContinuousGrasp, DiscreteGrasp, Problem,
                                               ProblemObject, ProblemRobot, StablePose,
                                               SupportRegion, frozen_array)
from robot_formats.formats.tmp.repair import QUIRK_STRAY_PAREN, repair_known_quirks

if TYPE_CHECKING:
    from robot_formats.formats.spec import LoadResult

__all__ = ['ROTATION_TOLERANCE', 'read_problem', 'parse_problem_element', 'parse_problem_bytes',
           'polygon_normal', 'recover_problem']

#: How far from orthonormal (max |RᵀR − I|) and from det = +1 a rotation may be: files carry
#: 4–6 decimals (0.7071), which is ~1e-5 from exact.
ROTATION_TOLERANCE = 1e-4

#: Loads a robot description of any format (``robot_formats.load``, handed down by the
#: registry or by :func:`robot_formats.formats.read_problem`).
DescriptionLoader = Callable[[Path], 'LoadResult']


class _TmpContext(ReadingContext):
    """The reading context of a problem: its strictness, the robot description loader, and
    the spec page's stray ``)`` after numbers (:meth:`read_past`)."""

    __slots__ = ('strict', 'load_description')

    def __init__(self, file: str | None, warnings: list[Diagnostic], strict: bool,
                 load_description: DescriptionLoader | None = None) -> None:
        super().__init__(file, warnings)
        self.strict = strict
        self.load_description = load_description

    def quirk(self, message: str, line: int | None, code: str) -> None:
        """A spec-page mistake: a warning, or an error in strict mode."""
        if self.strict:
            raise InvalidValueError(f'{message} (refused in strict mode)', self.file, line,
                                    code=code)
        self.warn(message, line, code)

    def read_past(self, element: etree._Element, text: str, count: int | None,
                  attribute: str | None) -> tuple[float, ...]:
        """Numbers followed by a stray ``)`` (or inside parentheses), as on the spec page: a
        quirk; then read strictly."""
        text = text.strip()
        if text.endswith(')'):
            text = text[:-1].rstrip()
            opening = text.startswith('(')
            text = text[1:] if opening else text
            self.quirk(f'stray {"parentheses around" if opening else ")" + " after"} the '
                       f'numbers of <{local_name(element)}> (as on the spec page); ignored',
                       element.sourceline, QUIRK_STRAY_PAREN)
        return super().read_past(element, text, count, attribute)


def read_problem(path: str | Path, warnings: list[Diagnostic] | None = None, *,
                 strict: bool = False, mapping: str | Path | None = None,
                 load_robots: bool = True,
                 load_description: DescriptionLoader | None = None) -> Problem:
    """Read a problem file (recovering from the spec page's syntax mistakes unless strict);
    its robots' descriptions are read by ``load_description`` (required with ``load_robots``:
    :func:`robot_formats.formats.read_problem` passes ``robot_formats.load``)."""
    warnings = warnings if warnings is not None else []
    root = parse_problem_bytes(read_bytes(path), path, warnings, strict=strict)
    return parse_problem_element(root, path, warnings, strict=strict, mapping=mapping,
                                 load_robots=load_robots, load_description=load_description)


def parse_problem_bytes(data: bytes, file: str | Path | None, warnings: list[Diagnostic], *,
                        strict: bool = False) -> etree._Element:
    """Parse safely; on a syntax error, repair only the spec page's known mistakes and retry."""
    try:
        return parse_xml_bytes(data, file, warnings, ('problem',))
    except XmlSyntaxError as original:
        repaired, repairs = repair_known_quirks(data, file)
        if not repairs:
            raise
        if strict:
            first = repairs[0]
            raise XmlSyntaxError(f'{first.message} — refused in strict mode', first.file,
                                 first.line, code=first.code) from original
        root = parse_xml_bytes(repaired, file)
        warnings.extend(repairs)
        return root


def parse_problem_element(root: etree._Element, path: str | Path | None,
                          warnings: list[Diagnostic], *, strict: bool = False,
                          mapping: str | Path | ConfigurationMapping | None = None,
                          load_robots: bool = True,
                          load_description: DescriptionLoader | None = None) -> Problem:
    """Build a :class:`Problem` from a parsed ``<problem>`` element (``load_description``:
    how its robots' description files are read; required with ``load_robots``)."""
    file = str(path) if path is not None else None
    if load_robots and load_description is None:
        raise TypeError('reading the robots of a problem needs load_description '
                        '(robot_formats.formats.read_problem passes robot_formats.load)')
    ctx = _TmpContext(file, warnings, strict, load_description)
    if local_name(root) != 'problem':
        raise SchemaError(f'a TMP problem has a <problem> root, not <{local_name(root)}>', file,
                          root.sourceline)
    base = Path(file).resolve().parent if file else Path.cwd()
    objects: dict[str, ProblemObject] = {}
    robots_elements: list[etree._Element] = []
    actions: dict[str, Action] = {}
    for element in _children(root):
        tag = local_name(element)
        if tag == 'objects':
            for obj in _children(element):
                if local_name(obj) != 'obj':
                    ctx.warn(f'<{local_name(obj)}> inside <objects> is not an <obj>; ignored',
                             obj.sourceline)
                    continue
                item = _object(obj, ctx, base)
                if item.name in objects:
                    raise DuplicateNameError(f'two objects are named {item.name!r}', file,
                                             obj.sourceline)
                objects[item.name] = item
        elif tag == 'robots':
            robots_elements.extend(r for r in _children(element) if local_name(r) == 'robot')
        elif tag == 'AMmapping':
            for action in _actions(element, ctx):
                if action.name in actions:
                    raise DuplicateNameError(f'two AMmapping actions are named {action.name!r}',
                                             file, action.line)
                actions[action.name] = action
        else:
            ctx.warn(f'<{tag}> is not part of a TMP problem; ignored', element.sourceline)
    _check_attachments(objects, file)
    if not isinstance(mapping, ConfigurationMapping):
        if mapping is None and file and is_regular_file(mapping_beside(file)):
            mapping = mapping_beside(file)
        mapping = load_mapping(mapping)
    robots: dict[str, ProblemRobot] = {}
    for element in robots_elements:
        robot = _robot(element, ctx, base, mapping, actions, load_robots)
        if robot.name in robots or robot.name in objects:
            raise DuplicateNameError(f'the name {robot.name!r} is used by more than one robot '
                                     'or object (names are PDDL constants)', file, robot.line)
        robots[robot.name] = robot
    if load_robots:
        _check_actions(actions, robots, file)
    return Problem(file or '<input>', objects, robots, actions)


# --- elements ---------------------------------------------------------------------------------

def _children(element: etree._Element) -> list[etree._Element]:
    return [c for c in element if isinstance(c.tag, str)]


def _child(element: etree._Element, tag: str, ctx: _TmpContext, required: bool = False
           ) -> etree._Element | None:
    found = [c for c in _children(element) if local_name(c) == tag]
    if len(found) > 1:
        raise SchemaError(f'<{local_name(element)}> has {len(found)} <{tag}> elements; '
                          'expected one', ctx.file, found[1].sourceline)
    if not found and required:
        raise SchemaError(f'<{local_name(element)}> needs a <{tag}>', ctx.file,
                          element.sourceline)
    return found[0] if found else None


def _required(element: etree._Element, tag: str, ctx: _TmpContext) -> etree._Element:
    """The one child ``tag``; a SchemaError naming the parent when it is missing."""
    found = _child(element, tag, ctx, required=True)
    assert found is not None  # _child raised otherwise
    return found


def _text(element: etree._Element, ctx: _TmpContext) -> str:
    text = (element.text or '').strip()
    if not text:
        raise SchemaError(f'<{local_name(element)}> is empty', ctx.file, element.sourceline)
    return text


def _numbers(element: etree._Element, ctx: _TmpContext, counts: tuple[int, ...] | None = None
             ) -> tuple[float, ...]:
    """The element's numbers, ``counts`` of them (any count: None)."""
    values = ctx.vector(element, None)
    if counts is not None and len(values) not in counts:
        expected = ' or '.join(str(c) for c in counts)
        raise InvalidValueError(f'<{local_name(element)}>: expected {expected} numbers, got '
                                f'{len(values)}', ctx.file, element.sourceline)
    return values


def _number(element: etree._Element, ctx: _TmpContext) -> float:
    return _numbers(element, ctx, (1,))[0]


def _rotation_checked(rotation: np.ndarray, element: etree._Element, ctx: _TmpContext) -> None:
    error = float(np.max(np.abs(rotation.T @ rotation - np.eye(3))))
    det = float(np.linalg.det(rotation))
    if error > ROTATION_TOLERANCE or abs(det - 1.0) > ROTATION_TOLERANCE:
        why = ('a reflection (determinant −1)' if abs(det + 1.0) < 10 * ROTATION_TOLERANCE
               else f'not orthonormal (max |RᵀR − I| = {error:.3g}, det = {det:.6g})')
        raise InvalidValueError(f'the rotation part of <{local_name(element)}> is {why}; it '
                                f'must be a rotation within {ROTATION_TOLERANCE:g}', ctx.file,
                                element.sourceline, code='TMP_NOT_A_ROTATION')


def _transform(element: etree._Element, ctx: _TmpContext) -> np.ndarray:
    """A 3x4 row-major 12-tuple as a checked 4x4 rigid transform."""
    values = _numbers(element, ctx, (12,))
    matrix = np.eye(4)
    matrix[:3, :] = np.reshape(values, (3, 4))
    _rotation_checked(matrix[:3, :3], element, ctx)
    return frozen_array(matrix)


def _axis(element: etree._Element, ctx: _TmpContext) -> np.ndarray:
    axis = np.array(_numbers(element, ctx, (3,)))
    norm = float(np.linalg.norm(axis))
    if norm < 1e-9:
        raise InvalidValueError(f'<{local_name(element)}> has zero length; a rotation axis needs '
                                'a direction', ctx.file, element.sourceline)
    if abs(norm - 1.0) > ROTATION_TOLERANCE:
        ctx.warn(f'<{local_name(element)}> has length {norm:g}; normalised', element.sourceline)
    return frozen_array(axis / norm)


def _resolved(path: Path) -> Path:
    """``path.resolve()``, or ``path`` itself where the OS refuses the name (symlink loops)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):
        return path


def _object(element: etree._Element, ctx: _TmpContext, base: Path) -> ProblemObject:
    name = _text(_required(element, 'name', ctx), ctx)
    geom_element = _child(element, 'geom', ctx)
    geom = _text(geom_element, ctx) if geom_element is not None else None
    mesh_path = None
    if geom is not None and geom_element is not None:
        mesh_path = str(_resolved(base / geom))
        if not is_regular_file(mesh_path):
            ctx.warn(f'object {name!r}: mesh {geom!r} not found ({mesh_path}); it is drawn as '
                     'its frame only', geom_element.sourceline, 'TMP_MESH_MISSING')
    pose = _transform(_required(element, 'pose', ctx), ctx)
    moveable_element = _child(element, 'moveable', ctx)
    if moveable_element is None:
        ctx.warn(f'object {name!r} has no <moveable>; taken as false', element.sourceline)
    moveable = ctx.boolean(moveable_element, False)
    grasps: list[DiscreteGrasp] = []
    continuous: list[ContinuousGrasp] = []
    grasps_element = _child(element, 'grasps', ctx)
    for grasp in _children(grasps_element) if grasps_element is not None else ():
        kind = grasp.get('type', '')
        if local_name(grasp) == 'gf':
            grasps.append(DiscreteGrasp(kind, _transform(grasp, ctx), grasp.sourceline))
        elif local_name(grasp) == 'gc':
            template = _transform(_required(grasp, 'template', ctx), ctx)
            axis = _axis(_required(grasp, 'axis', ctx), ctx)
            continuous.append(ContinuousGrasp(kind, template, axis, grasp.sourceline))
        else:
            ctx.warn(f'<{local_name(grasp)}> in <grasps> is neither <gf> nor <gc>; ignored',
                     grasp.sourceline)
    support = _support(element, ctx, name)
    stable = tuple(_stable_pose(s, ctx) for s in _children(element) if local_name(s) == 'sop')
    if stable and not moveable:
        ctx.warn(f'object {name!r} is not moveable but has <sop>: its stable poses are still '
                 'served', stable[0].line)
    attachments_element = _child(element, 'attachments', ctx)
    attachments: list[str] = []
    for item in _children(attachments_element) if attachments_element is not None else ():
        if local_name(item) != 'name':
            raise SchemaError(f'<attachments> holds <name> elements, not <{local_name(item)}>',
                              ctx.file, item.sourceline)
        attachments.append(_text(item, ctx))
    known = {'name', 'geom', 'pose', 'moveable', 'grasps', 'sssp', 'pssp', 'sop', 'attachments'}
    for other in _children(element):
        if local_name(other) not in known:
            ctx.warn(f'<{local_name(other)}> is not part of an <obj>; ignored', other.sourceline)
    return ProblemObject(name, geom, mesh_path, pose, moveable, tuple(grasps), tuple(continuous),
                         support, stable, tuple(attachments), element.sourceline)


def _support(element: etree._Element, ctx: _TmpContext, name: str) -> SupportRegion | None:
    regions = [c for c in _children(element) if local_name(c) in ('sssp', 'pssp')]
    if len(regions) > 1:
        raise SchemaError(f'object {name!r} has {len(regions)} support regions; the format allows '
                          'one <sssp> or <pssp> per object', ctx.file, regions[1].sourceline)
    if not regions:
        return None
    region = regions[0]
    if local_name(region) == 'sssp':
        bounds = []
        for axis in 'xyz':
            low = _number(_required(region, f'{axis}min', ctx), ctx)
            high = _number(_required(region, f'{axis}max', ctx), ctx)
            if low > high:
                raise InvalidValueError(f'<sssp> of {name!r}: {axis}min {low:g} is greater than '
                                        f'{axis}max {high:g}', ctx.file, region.sourceline)
            bounds.append((low, high))
        lowest, highest = (frozen_array([b[i] for b in bounds]) for i in (0, 1))
        kind = 'point' if lowest[0] == highest[0] and lowest[1] == highest[1] else 'rectangle'
        return SupportRegion(kind, lowest, highest, None, region.sourceline)
    points = []
    for point in _children(region):
        if local_name(point) != 'point':
            raise SchemaError(f'<pssp> holds <point> elements, not <{local_name(point)}>',
                              ctx.file, point.sourceline)
        points.append([_number(_required(point, axis, ctx), ctx) for axis in 'xyz'])
    if len(points) < 3:
        raise InvalidValueError(f'<pssp> of {name!r} has {len(points)} points; a polygon needs at '
                                'least 3', ctx.file, region.sourceline)
    array = np.array(points)
    normal = polygon_normal(array)
    if normal is None:
        raise InvalidValueError(f'<pssp> of {name!r}: the points are collinear (zero area)',
                                ctx.file, region.sourceline)
    off_plane = float(np.max(np.abs((array - array[0]) @ normal)))
    if off_plane > 1e-6:
        raise InvalidValueError(f'<pssp> of {name!r}: the points are not in one plane (a point '
                                f'is {off_plane:.3g} m from it)', ctx.file, region.sourceline)
    return SupportRegion('polygon', None, None, frozen_array(array), region.sourceline)


def polygon_normal(points: np.ndarray) -> np.ndarray | None:
    """Unit normal of a planar polygon (Newell's method), None if it has no area."""
    shifted = np.roll(points, -1, axis=0)
    normal = np.array([
        np.sum((points[:, 1] - shifted[:, 1]) * (points[:, 2] + shifted[:, 2])),
        np.sum((points[:, 2] - shifted[:, 2]) * (points[:, 0] + shifted[:, 0])),
        np.sum((points[:, 0] - shifted[:, 0]) * (points[:, 1] + shifted[:, 1])),
    ])
    norm = float(np.linalg.norm(normal))
    return None if norm < 1e-12 else normal / norm


def _stable_pose(element: etree._Element, ctx: _TmpContext) -> StablePose:
    template_element = _required(element, 'template', ctx)
    values = _numbers(template_element, ctx, (9, 12))
    if len(values) == 12:
        matrix = np.reshape(values, (3, 4))
        if np.any(matrix[:, 3] != 0.0):
            ctx.warn('<sop><template> has 12 numbers with a translation; a stable pose template '
                     'is a rotation, so the translation is ignored', template_element.sourceline)
        rotation = matrix[:, :3]
    else:
        rotation = np.reshape(values, (3, 3))
    _rotation_checked(rotation, template_element, ctx)
    axis = _axis(_required(element, 'axis', ctx), ctx)
    distance_element = _required(element, 'distance', ctx)
    distance = _number(distance_element, ctx)
    return StablePose(frozen_array(rotation), axis, distance, element.sourceline)


def _actions(element: etree._Element, ctx: _TmpContext) -> list[Action]:
    out = []
    for action in _children(element):
        if local_name(action) != 'action':
            ctx.warn(f'<{local_name(action)}> in <AMmapping> is not an <action>; ignored',
                     action.sourceline)
            continue
        name = _text(_required(action, 'name', ctx), ctx)
        joints = _required(action, 'joints', ctx)
        out.append(Action(name, tuple((joints.text or '').split()), action.sourceline))
    return out


_ROBOT_TAGS = {'name', 'urdf', 'basepose', 'movebase'}


def _robot(element: etree._Element, ctx: _TmpContext, base: Path, mapping: ConfigurationMapping,
           actions: dict[str, Action], load_robots: bool) -> ProblemRobot:
    name = _text(_required(element, 'name', ctx), ctx)
    urdf_element = _required(element, 'urdf', ctx)
    description = _text(urdf_element, ctx)
    description_path = _resolved(base / description)
    basepose_element = _child(element, 'basepose', ctx)
    basepose = (_transform(basepose_element, ctx) if basepose_element is not None
                else frozen_array(np.eye(4)))
    movebase = ctx.boolean(_child(element, 'movebase', ctx), False)
    configurations: dict[str, tuple[float, ...]] = {}
    lines: dict[str, int | None] = {}
    for item in _children(element):
        tag = local_name(item)
        if tag in _ROBOT_TAGS:
            continue
        if tag in configurations:
            raise SchemaError(f'robot {name!r} has two <{tag}> configurations', ctx.file,
                              item.sourceline)
        configurations[tag] = _numbers(item, ctx)
        lines[tag] = item.sourceline
    robot = ProblemRobot(name, description, str(description_path), basepose, movebase,
                         configurations, line=element.sourceline)
    if not load_robots:
        return robot
    tree, format_name = _load_description(description_path, ctx, urdf_element.sourceline, name)
    one_dof = [d for j in tree.joints.values() for d in dof_names(j) if d == j.name]
    positions: dict[str, float] = {}
    action_joints = {a.name: a.joints for a in actions.values()}
    for tag, values in configurations.items():
        found = mapping.joints_for(name, tag, len(values), one_dof, action_joints)
        if found is None:
            ctx.warnings.append(unmapped_warning(name, tag, ctx.file, lines[tag]))
            continue
        joints, origin = found
        if len(joints) != len(values):
            raise InvalidValueError(f'robot {name!r}: <{tag}> has {len(values)} values but '
                                    f'{origin} names {len(joints)} joints', ctx.file, lines[tag])
        unknown = [j for j in joints if j not in tree.dof_index]
        if unknown:
            raise ReferenceError(f'robot {name!r}: <{tag}> maps to {", ".join(unknown)} '
                                 f'({origin}), not a degree of freedom of {description}',
                                 ctx.file, lines[tag])
        positions.update(zip(joints, values))
    return ProblemRobot(name, description, str(description_path), basepose, movebase,
                        configurations, positions, format_name, tuple(tree.dof_names),
                        tuple(tree.joints), element.sourceline, tree)


def _load_description(path: Path, ctx: _TmpContext, line: int | None, robot: str):
    assert ctx.load_description is not None  # checked by parse_problem_element
    try:
        # refused before it is loaded: loading a problem loads its robots, so a problem naming
        # itself (or problems naming each other) as a robot would be loaded without end
        if _root_is_problem(path):
            raise StructureError(f'robot {robot!r}: the description {path.name} is itself a '
                                 'TMP problem, not a robot', ctx.file, line)
        result = ctx.load_description(path)
    except FormatError as err:
        if err.file in (str(path), ctx.file):
            raise
        raise type(err)(f'robot {robot!r}: {err.message}', err.file, err.line,
                        code=err.code) from err
    ctx.warnings.extend(result.warnings)
    ctx.warnings.extend(result.notes)  # notes stay notes (their severity travels with them)
    return result.tree, result.format


#: Bytes of a document fed to the parser at a time while looking for its root element.
_ROOT_CHUNK = 4096


def _root_is_problem(path: Path) -> bool:
    """Whether the document's root element is ``<problem>`` (how a TMP problem is recognised;
    the spec page's syntax mistakes the loader repairs all come after the root's start tag).
    Parses only up to the root's start tag, with no DTD or entities; a document that is not
    XML up to there is no problem (its load then reports why)."""
    data = read_bytes(path)
    parser = etree.XMLPullParser(events=('start',), resolve_entities=False, load_dtd=False,
                                 no_network=True)
    for offset in range(0, len(data), _ROOT_CHUNK):
        try:
            parser.feed(data[offset:offset + _ROOT_CHUNK])
        except etree.XMLSyntaxError:
            return False
        for _, root in parser.read_events():
            return local_name(root) == 'problem'
    return False


def _check_attachments(objects: dict[str, ProblemObject], file: str | None) -> None:
    parents: dict[str, str] = {}
    for obj in objects.values():
        for child in obj.attachments:
            if child not in objects:
                raise ReferenceError(f'object {obj.name!r} lists attachment {child!r}, which is '
                                     'not an object of the problem', file, obj.line)
            if child == obj.name:
                raise CycleError(f'object {obj.name!r} is attached to itself', file, obj.line,
                                 code='TMP_ATTACHMENT_CYCLE')
            if child in parents:
                raise StructureError(f'object {child!r} is attached to both {parents[child]!r} '
                                     f'and {obj.name!r}; an object has at most one parent',
                                     file, obj.line)
            parents[child] = obj.name
    checked: set[str] = set()  # objects whose chain of carriers is known to end
    for start in parents:  # each object's chain walked once: linear in the objects
        seen, on_chain = [start], {start}
        node = parents.get(start)
        while node is not None and node not in checked:
            if node in on_chain:
                loop = ' → '.join(reversed([*seen[seen.index(node):], node]))
                raise CycleError(f'the attachments form a cycle: {loop}', file,
                                 objects[node].line, code='TMP_ATTACHMENT_CYCLE')
            seen.append(node)
            on_chain.add(node)
            node = parents.get(node)
        checked.update(seen)


def _check_actions(actions: dict[str, Action], robots: dict[str, ProblemRobot],
                   file: str | None) -> None:
    known = {n for r in robots.values() for n in (*r.joint_names, *r.dof_names)}
    for action in actions.values():
        for joint in action.joints:
            if joint not in known:
                names = ', '.join(robots) or 'no robots'
                raise ReferenceError(f'AMmapping action {action.name!r} names joint {joint!r}, '
                                     f'which no robot of the problem has ({names})', file,
                                     action.line, code='TMP_UNKNOWN_JOINT')



def recover_problem(data: bytes, path: Path, warnings: list[Diagnostic]
                    ) -> etree._Element | None:
    """The :class:`~robot_formats.formats.FormatSpec` ``recover`` hook: a malformed document
    that is a TMP problem and shows the spec page's known mistakes, repaired and parsed."""
    if b'<problem' not in data:
        return None
    repaired, repairs = repair_known_quirks(data, path)
    if not repairs:
        return None
    root = parse_xml_bytes(repaired, path)
    warnings.extend(repairs)
    return root
