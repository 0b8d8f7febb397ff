"""Phase 1 of reading HRDF: the document (with includes expanded) as a tree of checked nodes.

Checks everything that is about one element in isolation: element names (case sensitive),
allowed attributes per element and per version, no text content, ``<output>`` placement and
count, includes (relative paths, missing files, cycles). Interfaces between elements, tags
and geometry are phase 2 (:mod:`robot_formats.formats.hrdf.builder`).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple, Sequence

from lxml import etree

from robot_formats.core.errors import (CycleError, Diagnostic, FileAccessError, LimitError,
                                       SchemaError, UnsupportedError)
from robot_formats.core.files import is_regular_file
from robot_formats.core.limits import MAX_INCLUDE_DEPTH, LoadBudget
from robot_formats.core.xmlsafe import local_name, parse_xml_bytes, read_bytes
from robot_formats.formats.hrdf.values import Attrs, HrdfContext, relative_path_is_absolute
from robot_formats.formats.hrdf.versions import SUPPORTED, Version, parse_version

__all__ = ['Node', 'read_document', 'ELEMENT_KINDS', 'root_version']

#: Robot model elements, as the spec spells them (case sensitive).
ELEMENT_KINDS = ('actuator', 'link', 'bracket', 'rigid-body', 'joint', 'end-effector')

_OVERRIDES = ('mass', 'mass_offset', 'com_rot', 'com_trans', 'com_trans_offset')
_INERTIA = ('ixx', 'iyy', 'izz', 'ixy', 'ixz', 'iyz')
_MESH = ('mesh_path', 'mesh_rot', 'mesh_trans')

#: Attribute → version feature that introduced it (None: in 1.0.0), per element.
_ATTRIBUTES: dict[str, dict[str, str | None]] = {
    'robot': {'version': None, 'rot': None, 'trans': None, 'description': 'description'},
    'actuator': {'type': None},
    'link': {'type': None, 'extension': None, 'twist': None, 'input': 'link input/output',
             'output': 'link input/output'},
    'bracket': {'type': None},
    'end-effector': {'type': None, 'output_rot': None, 'output_trans': None},
    'rigid-body': {'mass': None, 'com_rot': None, 'com_trans': None, 'output_rot': None,
                   'output_trans': None, **{n: 'inertia' for n in _INERTIA},
                   **{n: 'mesh' for n in _MESH}},
    'joint': {'axis': None, 'gear_ratio': 'gear_ratio'},
    'include': {'path': None},
    'output': {'rot': None, 'trans': None},
}
for _kind in ('actuator', 'link', 'bracket', 'end-effector'):
    _ATTRIBUTES[_kind].update({n: 'overrides' for n in _OVERRIDES})
    _ATTRIBUTES[_kind].update({n: 'inertia' for n in _INERTIA})
for _kind in ELEMENT_KINDS:
    _ATTRIBUTES[_kind]['tag'] = 'tag'

_REQUIRED = {'actuator': ('type',), 'link': ('type', 'extension', 'twist'),
             'bracket': ('type',), 'rigid-body': ('mass',), 'joint': ('axis',),
             'include': ('path',)}


class Node(NamedTuple):
    """One robot model element with its checked attributes and explicit outputs."""

    kind: str
    attrs: Attrs
    outputs: list[tuple[Attrs, list['Node']]] | None = None  #: <output> children, in order
    implicit: bool = False   #: the end effector HEBI adds to files of version <= 1.1.0
    file: str | None = None

    @property
    def line(self) -> int | None:
        return self.attrs.line


def root_version(root: etree._Element, file: str | None) -> tuple[Version, bool]:
    """The document's version (1.0.0 when absent); InvalidValue for unsupported versions."""
    text = root.get('version')
    parsed = parse_version(text)
    if parsed is None:
        raise UnsupportedError(f'<robot> version={text!r} is not an HRDF version this reader '
                               'knows; supported: 1.0.0 to 1.6.0 (three-part numbers, no spaces)',
                               file, root.sourceline, code='HRDF_VERSION')
    return parsed


def read_document(root: etree._Element, file: str | None, warnings: list[Diagnostic],
                  budget: LoadBudget | None = None) -> tuple[Attrs, list[Node]]:
    """The root's attributes and its chain of nodes, includes expanded in place (each charged
    to ``budget``, the load's; default: a budget of its own)."""
    version, beyond = root_version(root, file)
    ctx = HrdfContext(file, warnings, budget)
    if beyond:
        ctx.warn(f'HRDF version {root.get("version")} is not a published version (the spec ends '
                 'at 1.6.0); HEBI accepts it, and it is read with the 1.6.0 rules',
                 root.sourceline, 'HRDF_VERSION_BEYOND_SPEC')
    if local_name(root) != 'robot':
        ctx.warn(f'the root element is <{local_name(root)}>, not <robot>; read as HRDF as HEBI '
                 'does', root.sourceline, 'HRDF_ROOT_NAME')
    attrs = _checked_attrs(root, 'robot', file, version, ctx)
    return attrs, _chain(ctx, root, file, version)


def _allowed(kind: str, version: Version) -> frozenset[str]:
    """The attributes ``<kind>`` may have in ``version``."""
    return _ALLOWED[(kind, version.features)]


#: (element kind, a version's features) -> the attributes the element may have in it (a
#: version beyond the spec has the last one's features).
_ALLOWED: dict[tuple[str, frozenset[str]], frozenset[str]] = {
    (kind, version.features): frozenset(name for name, feature in attributes.items()
                                        if feature is None or version.has(feature))
    for kind, attributes in _ATTRIBUTES.items()
    for version, _ in filter(None, map(parse_version, SUPPORTED))}


def _checked_attrs(element: etree._Element, kind: str, file: str | None, version: Version,
                   ctx: HrdfContext, label: str | None = None, name: str | None = None) -> Attrs:
    """``label`` names the element in messages (default ``<kind>``; an ``<output>`` is named
    with its owner, as HEBI names the owner). ``name``: the element's local name, if known."""
    attrs = Attrs(element, file, version, ctx, name)
    names = attrs.names
    if names and not _allowed(kind, version).issuperset(names):
        _refuse_attributes(element, kind, file, version, label)
    for required in _REQUIRED.get(kind, ()):
        if required not in names:
            raise SchemaError(f'<{kind}> needs the attribute {required!r}', file,
                              element.sourceline, code='ATTRIBUTE_MISSING')
    return attrs


def _refuse_attributes(element: etree._Element, kind: str, file: str | None, version: Version,
                       label: str | None) -> None:
    """The error for the first attribute (in document order) ``<kind>`` may not have."""
    allowed = _ATTRIBUTES[kind]
    for name in element.attrib:
        if name not in allowed:
            raise SchemaError(f'{label or "<" + kind + ">"} does not take the attribute '
                              f'{name!r} (allowed: '
                              f'{", ".join(allowed)})', file, element.sourceline,
                              code='ATTRIBUTE_INVALID')
        feature = allowed[name]
        if feature is not None and not version.has(feature):
            raise SchemaError(f'<{kind}> attribute {name!r} needs HRDF version '
                              f'{Version.introducing(feature)} or later; this file is {version}',
                              file, element.sourceline, code='HRDF_VERSION_GATE')


def _child_elements(element: etree._Element, file: str | None
                    ) -> Sequence[etree._Element]:
    """The element's child elements (comments and processing instructions read past); a
    SchemaError where it holds text (no HRDF element does)."""
    if element.text and element.text.strip():
        raise SchemaError(f'<{local_name(element)}> cannot contain text '
                          f'({element.text.strip()[:30]!r})', file, element.sourceline)
    if not len(element):  # a leaf (most elements): no children, so no text after one
        return ()
    children = []
    for child in element:
        if child.tail and child.tail.strip():
            raise SchemaError(f'<{local_name(element)}> cannot contain text '
                              f'({child.tail.strip()[:30]!r})', file, child.sourceline)
        if isinstance(child.tag, str):
            children.append(child)
    return children


def _chain(ctx: HrdfContext, container: etree._Element, file: str | None, version: Version
           ) -> list[Node]:
    """The elements of ``<robot>`` or ``<output>``, includes expanded."""
    nodes: list[Node] = []
    where = local_name(container)
    for child in _child_elements(container, file):
        kind = child.tag.rpartition('}')[2]
        if kind == 'include':
            nodes.extend(_include(ctx, child, file, version))
            continue
        if kind not in ELEMENT_KINDS:
            hint = ''
            if kind.lower() in ELEMENT_KINDS:
                hint = f' (element names are case sensitive: <{kind.lower()}>)'
            elif kind == 'output':
                hint = ' (<output> belongs inside a <rigid-body> or <bracket>)'
            raise SchemaError(f'<{kind}> is not allowed in <{where}>{hint}; expected one of '
                              f'{", ".join("<%s>" % k for k in (*ELEMENT_KINDS, "include"))}',
                              file, child.sourceline, code='ELEMENT_INVALID')
        if kind == 'end-effector' and not version.has('end-effector'):
            raise SchemaError(f'<end-effector> needs HRDF version 1.2.0 or later; this file is '
                              f'{version}', file, child.sourceline, code='HRDF_VERSION_GATE')
        nodes.append(_node(ctx, child, kind, file, version))
    return nodes


def _node(ctx: HrdfContext, element: etree._Element, kind: str, file: str | None,
          version: Version) -> Node:
    attrs = _checked_attrs(element, kind, file, version, ctx, name=kind)
    tag = element.get('tag')
    if tag:
        ctx.tags.add(tag)
    children = _child_elements(element, file)
    if not children:
        return Node(kind, attrs, None, False, file)
    if kind not in ('rigid-body', 'bracket'):
        raise SchemaError(f'<{kind}> cannot have child elements (found '
                          f'<{local_name(children[0])}>)',
                          file, children[0].sourceline, code='ELEMENT_INVALID')
    outputs: list[tuple[Attrs, list[Node]]] = []
    for child in children:
        if local_name(child) != 'output':
            raise SchemaError(f'<{kind}> can only contain <output> elements, not '
                              f'<{local_name(child)}>', file, child.sourceline,
                              code='ELEMENT_INVALID')
        if not version.has('output'):
            raise SchemaError(f'<output> in <{kind}> needs HRDF version 1.3.0 or later; this '
                              f'file is {version}', file, child.sourceline,
                              code='HRDF_VERSION_GATE')
        output_attrs = _checked_attrs(child, 'output', file, version, ctx,
                                      label=f'<output> of <{kind}>', name='output')
        if kind == 'bracket' and (child.get('rot') is not None or child.get('trans') is not None):
            name = 'rot' if child.get('rot') is not None else 'trans'
            raise SchemaError(f'an <output> of a <bracket> cannot have {name!r}: a bracket\'s '
                              'outputs are fixed by its type', file, child.sourceline,
                              code='ATTRIBUTE_INVALID')
        outputs.append((output_attrs, _chain(ctx, child, file, version)))
    if kind == 'bracket' and len(outputs) > 1:
        raise SchemaError(f'<bracket type={element.get("type")!r}> has {len(outputs)} <output> '
                          'elements but the bracket has only 1 output', file,
                          children[1].sourceline, code='ELEMENT_INVALID')
    return Node(kind, attrs, outputs, file=file)


def resolve_relative(text: str, file: str | None) -> Path:
    """``text`` relative to the directory of ``file`` (the including/owning HRDF file)."""
    base = Path(file).resolve().parent if file else Path.cwd()
    try:
        return (base / text).resolve()
    except (OSError, RuntimeError):  # symlink loops, names the OS refuses
        return base / text


def _include(ctx: HrdfContext, element: etree._Element, file: str | None, version: Version
             ) -> list[Node]:
    if not version.has('include'):
        raise SchemaError(f'<include> needs HRDF version 1.3.0 or later; this file is {version}',
                          file, element.sourceline, code='HRDF_VERSION_GATE')
    _checked_attrs(element, 'include', file, version, ctx)
    children = _child_elements(element, file)
    if children:
        raise SchemaError(f'<include> cannot have child elements (found '
                          f'<{local_name(children[0])}>)', file,
                          children[0].sourceline, code='ELEMENT_INVALID')
    text = element.get('path', '')
    if relative_path_is_absolute(text):
        raise SchemaError(f'<include path={text!r}>: include paths must be relative to the '
                          'including file', file, element.sourceline, code='URI_INVALID')
    if not ctx.stack and ctx.file:
        ctx.stack.append(Path(ctx.file).resolve())
    key = (file, text)
    if key not in ctx.parsed:
        ctx.parsed[key] = (resolve_relative(text, file), None, 0)
    target, root, size = ctx.parsed[key]
    if target in ctx.stack:
        chain = ' -> '.join(p.name for p in [*ctx.stack[ctx.stack.index(target):], target])
        raise CycleError(f'<include path={text!r}> forms an include cycle ({chain})', file,
                         element.sourceline, code='HRDF_INCLUDE_CYCLE')
    if len(ctx.stack) > MAX_INCLUDE_DEPTH:
        raise LimitError(f'<include path={text!r}>: includes nest more than {MAX_INCLUDE_DEPTH} '
                         'files deep, the limit', file, element.sourceline)
    if root is None:
        if not is_regular_file(target):
            raise FileAccessError(f'<include path={text!r}>: no such file ({target})', file,
                                  element.sourceline)
        data = read_bytes(target)
        root, size = parse_xml_bytes(data, target, ctx.warnings), len(data)
        ctx.parsed[key] = (target, root, size)
    ctx.budget.charge(size, file, element.sourceline)  # every expansion, as it costs
    child_version, _ = root_version(root, str(target))
    if child_version != version:
        ctx.warn(f'<include path={text!r}>: the included file is version {child_version} but '
                 f'this file is {version}; the spec requires the same version (HEBI does not '
                 'check; the included file is read with its own version\'s rules)',
                 element.sourceline, 'HRDF_INCLUDE_VERSION', file=file)
    ctx.stack.append(target)
    try:
        return _chain(ctx, root, str(target), child_version)
    finally:
        ctx.stack.pop()
