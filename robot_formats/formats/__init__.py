"""Which format a file is in, and the formats robot_formats reads.

A format is chosen from the file extension and the document's root element: the extension
proposes, the root element decides (a ``.xml`` file can be anything; a ``.urdf`` whose root is
``<sdf>`` is read as SDFormat, with a warning). Each format is a :class:`FormatSpec`; a
:class:`Registry` is an immutable set of them with its lookup tables, made once. The formats
robot_formats ships are :data:`FORMATS`; a load with formats of one's own is handed a registry
made with :meth:`Registry.with_format`. Nothing here knows a format's insides.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, NamedTuple

from lxml import etree

from robot_formats.core.errors import (Diagnostic, UnknownFormatError, UnsupportedError,
                                       XmlSyntaxError)
from robot_formats.core.limits import LoadBudget
from robot_formats.core.xmlsafe import parse_xml_bytes, read_bytes
from robot_formats.formats.builtin import BUILTIN_FORMATS
from robot_formats.formats.spec import DocumentResult, FormatSpec, LoadContext, LoadResult, Reader

if TYPE_CHECKING:
    from robot_formats.core.kinematics import KinematicTree
    from robot_formats.core.model import Scene
    from robot_formats.formats.sdformat.uri import ResolverConfig
    from robot_formats.formats.tmp.problem import Problem

__all__ = ['FormatSpec', 'LoadContext', 'LoadResult', 'DocumentResult', 'Reader', 'Registry',
           'FORMATS', 'registered', 'detect', 'load', 'load_text', 'expand_xacro',
           'read_document', 'read_problem']


class Registry:
    """An immutable set of formats, in the order detection tries them, with its formats by
    extension and by root element and every root element name (made once, with it)."""

    __slots__ = ('specs', 'by_extension', 'by_root', 'root_tags')

    def __init__(self, specs: tuple[FormatSpec, ...]) -> None:
        self.specs = specs
        by_extension: dict[str, list[FormatSpec]] = {}
        by_root: dict[str, list[FormatSpec]] = {}
        for spec in specs:
            for extension in dict.fromkeys(spec.extensions):
                by_extension.setdefault(extension, []).append(spec)
            for tag in dict.fromkeys(spec.root_tags):
                by_root.setdefault(tag, []).append(spec)
        self.by_extension = {key: tuple(value) for key, value in by_extension.items()}
        self.by_root = {key: tuple(value) for key, value in by_root.items()}
        #: Every format's root element names (a document may hold other top-level elements;
        #: urdfdom reads the first <robot>, libsdformat the first <sdf>).
        self.root_tags = tuple(tag for spec in specs for tag in spec.root_tags)

    def with_format(self, spec: FormatSpec) -> Registry:
        """These formats and ``spec``, which replaces the format of its name (in its place) or
        comes after the others."""
        names = [known.name for known in self.specs]
        if spec.name in names:
            index = names.index(spec.name)
            return Registry((*self.specs[:index], spec, *self.specs[index + 1:]))
        return Registry((*self.specs, spec))

    def without_format(self, name: str) -> Registry:
        """These formats less the one named ``name``."""
        return Registry(tuple(spec for spec in self.specs if spec.name != name))


#: The formats robot_formats reads (:data:`robot_formats.formats.builtin.BUILTIN_FORMATS`).
FORMATS = Registry(BUILTIN_FORMATS)


def registered(formats: Registry | None = None) -> tuple[FormatSpec, ...]:
    """Every format of ``formats`` (default :data:`FORMATS`), in detection order."""
    return (FORMATS if formats is None else formats).specs


def detect(path: Path, root: etree._Element, warnings: list[Diagnostic],
           formats: Registry | None = None) -> FormatSpec:
    """The format of ``formats`` (default :data:`FORMATS`) for ``path`` with root element
    ``root``."""
    return _detect(FORMATS if formats is None else formats, path, _suffixes(path.name)[1], root,
                   warnings)


def _suffixes(name: str) -> tuple[bool, str]:
    """(whether a suffix of the file name ``name`` is ``.xacro``, its last other suffix in
    lower case or ''): ``Path.suffixes`` read once for :func:`is_xacro` and :func:`detect`."""
    if name.endswith('.'):
        return False, ''
    xacro, last = False, ''
    for part in name.lstrip('.').split('.')[1:]:
        suffix = '.' + part.lower()
        if suffix == '.xacro':
            xacro = True
        else:
            last = suffix
    return xacro, last


def _detect(formats: Registry, path: Path, suffix: str, root: etree._Element,
            warnings: list[Diagnostic]) -> FormatSpec:
    """:func:`detect` with the file's suffix (:func:`_suffixes`) already known. A format's
    ``claims`` is asked only when the extension alone does not decide."""
    tag = root.tag
    if not isinstance(tag, str):
        tag = ''
    elif tag[0] == '{':
        tag = tag.rpartition('}')[2]
    by_extension = formats.by_extension.get(suffix, ())
    by_root = formats.by_root.get(tag, ())
    claimed: list[FormatSpec] | None = None
    for spec in by_extension:
        if spec.any_root:
            return spec
        if spec in by_root:
            if claimed is None:
                claimed = [s for s in by_root if s.claims is not None and s.claims(root)]
            if not claimed or spec in claimed:
                return spec
    if claimed is None:
        claimed = [s for s in by_root if s.claims is not None and s.claims(root)]
    if claimed:
        by_root = tuple(claimed)
    if by_root:
        if by_extension:
            warnings.append(Diagnostic(
                f'the extension {suffix!r} suggests {by_extension[0].name} but the root element '
                f'<{tag}> is {by_root[0].name}; reading it as {by_root[0].name}', str(path),
                root.sourceline, 'FORMAT_MISMATCH'))
        return by_root[0]
    known = ', '.join(f'{s.name} ({"/".join(s.extensions)}, <{"|".join(s.root_tags)}>)'
                      for s in formats.specs)
    raise UnknownFormatError(f'unknown format: root element <{tag}> with extension '
                             f'{suffix or "(none)"!r}; supported: {known}', str(path),
                             root.sourceline)


def load(path: str | Path, xacro_args: Mapping[str, str] | None = None, *,
         world: str | None = None, sdf_config: ResolverConfig | None = None,
         budget: LoadBudget | None = None, formats: Registry | None = None) -> LoadResult:
    """Read any supported robot, scene or problem file; a ``.xacro`` file is expanded first
    (with ``xacro_args`` as its ``name:=value`` arguments), as ROS users run xacro. ``world``
    names the world to load from an SDFormat document holding several; ``sdf_config`` says
    how SDFormat includes are found (default: the model paths of the environment).
    ``budget``: what the load may read or copy (docs/limits.md); a load nested in another
    (a problem's robot file, an included URDF) shares its budget, a load of its own has a new
    one. ``formats``: the formats to read (default :data:`FORMATS`).

    Raises:
        FormatError: (a subclass of it) for every problem, with file, line and a sentence.
    """
    if not isinstance(path, Path):  # (Path(path) of a Path parses it again)
        path = Path(path)
    return _scene_result(path, _read(path, None, xacro_args, world, sdf_config, budget, True,
                                     FORMATS if formats is None else formats))


def load_text(text: str, source: str = '<robot_description>', *,
              world: str | None = None, sdf_config: ResolverConfig | None = None,
              formats: Registry | None = None) -> LoadResult:
    """:func:`load` of a document given as text, e.g. robot_state_publisher's
    ``robot_description`` parameter (URDF, or any format whose root element tells it).
    ``source`` names it in diagnostics; relative references resolve from the working
    directory.

    Raises:
        FormatError: (a subclass of it) for every problem, with a line and a sentence.
    """
    path = Path(source)
    return _scene_result(path, _read(path, text.encode('utf-8'), None, world, sdf_config, None,
                                     True, FORMATS if formats is None else formats))


def read_document(path: str | Path, *, world: str | None = None,
                  sdf_config: ResolverConfig | None = None, formats: Registry | None = None
                  ) -> DocumentResult:
    """:func:`load` of a file of any registered format, kinematic or not (``check``).

    Raises:
        FormatError: (a subclass of it) for every problem, with file, line and a sentence.
    """
    if not isinstance(path, Path):
        path = Path(path)
    read = _read(path, None, None, world, sdf_config, None, False,
                 FORMATS if formats is None else formats)
    irregular, notes = _split_notes(read.warnings)
    return DocumentResult(read.document, read.spec.name, read.spec.document, str(path),
                          irregular, read.tree, notes)


class _Read(NamedTuple):
    """What :func:`_read` read: the format, its document, the document's tree (scenes only),
    the warnings and the bytes parsed."""

    spec: FormatSpec
    document: Scene
    tree: KinematicTree | None
    warnings: list[Diagnostic]
    data: bytes


def _read(path: Path, data: bytes | None, xacro_args: Mapping[str, str] | None,
          world: str | None, sdf_config: ResolverConfig | None, budget: LoadBudget | None,
          scenes_only: bool, formats: Registry) -> _Read:
    """The one way a document is loaded (:func:`load`, :func:`load_text` and
    :func:`read_document` are built on it): its bytes (``data``, or the file's, or xacro's
    output) charged to ``budget`` (None: a budget of its own), parsed, its format detected and
    its reader run; a scene is validated into a tree, every number finite and in range (by
    its reader, or by :func:`check_ranges` after it).
    ``scenes_only``: a document of another kind (XMDI motions) is refused."""
    budget = LoadBudget() if budget is None else budget
    budget.enter(path)
    try:
        warnings: list[Diagnostic] = []
        xacro, suffix = _suffixes(path.name)
        if data is None:
            data = expand_xacro(path, xacro_args) if xacro else read_bytes(path)
        budget.charge(len(data), path)
        root = _parse(formats, path, warnings, data)
        spec = _detect(formats, path, suffix, root, warnings)
        if scenes_only and spec.document != 'scene':
            raise UnsupportedError(f'this is a {spec.document} file ({spec.name}), not a robot, '
                                   'scene or problem (`robot-formats check` validates it)',
                                   str(path), root.sourceline)
        document = spec.reader(path, root, warnings,
                               _context(world, sdf_config, budget, formats))
        tree = None
        if spec.document == 'scene':
            from robot_formats.core.kinematics import KinematicTree  # (the spec imports it)
            tree = KinematicTree(document)  # structure checks: references, loops, roots, mimics
            if not spec.checks_ranges:  # every number finite and in range, every name a name
                from robot_formats.core.ranges import check_ranges  # readers that need it
                check_ranges(document)
        return _Read(spec, document, tree, warnings, data)
    finally:
        budget.leave()


def _scene_result(path: Path, read: _Read) -> LoadResult:
    irregular, notes = _split_notes(read.warnings)
    return LoadResult(read.document, read.spec.name, str(path), irregular, read.tree, notes,
                      read.data)


def _context(world: str | None, sdf_config: ResolverConfig | None, budget: LoadBudget,
             formats: Registry) -> LoadContext:
    """The context of one load: nested files are loaded with the same include settings and
    formats, and charged to the same budget."""
    return LoadContext(world, sdf_config, functools.partial(
        load, sdf_config=sdf_config, budget=budget, formats=formats), budget)


def is_xacro(path: Path) -> bool:
    return _suffixes(path.name)[0]


def expand_xacro(path: Path, arguments: Mapping[str, str] | None = None) -> bytes:
    """The document a ``.xacro`` file expands to, by the xacro package ROS uses: the text
    ``xacro FILE name:=value ...`` prints (UTF-8), which is what a launch file's
    ``Command(['xacro ', FILE])`` hands robot_state_publisher. xacro runs in a process of its
    own with a time, memory and size budget (:mod:`robot_formats.formats.xacro_expansion`).

    Raises:
        FormatError: the file cannot be read, xacro refuses it (the sentence is xacro's), or
            the expansion goes beyond its budget (LimitError).
    """
    from robot_formats.formats.xacro_expansion import expand_xacro as expand
    return expand(path, arguments)


def read_problem(path: str | Path, warnings: list[Diagnostic] | None = None, *,
                 strict: bool = False, mapping: str | Path | None = None,
                 load_robots: bool = True) -> Problem:
    """A TMP problem file with the robot descriptions it names, each loaded by :func:`load`
    (see :func:`robot_formats.formats.tmp.reader.read_problem`; ``strict`` refuses the spec page's
    typos, ``mapping`` names the configuration-tag mapping)."""
    from robot_formats.formats.tmp.reader import read_problem as read_problem_file
    return read_problem_file(path, warnings, strict=strict, mapping=mapping,
                             load_robots=load_robots, load_description=load)


def _split_notes(diagnostics: list[Diagnostic]
                 ) -> tuple[tuple[Diagnostic, ...], tuple[Diagnostic, ...]]:
    """(warnings, notes): strict mode refuses a document for its warnings only."""
    if not diagnostics:  # (most documents)
        return (), ()
    return (tuple(d for d in diagnostics if not d.is_note),
            tuple(d for d in diagnostics if d.is_note))


def _parse(formats: Registry, path: Path, warnings: list[Diagnostic], data: bytes
           ) -> etree._Element:
    """The document's root element (repaired by a format's ``recover`` hook if one can)."""
    try:  # read as TinyXML2 reads it where libxml2 refuses (warnings name each repair)
        return parse_xml_bytes(data, path, warnings, formats.root_tags)
    except XmlSyntaxError:
        root = _recovered(formats, path, data, warnings)
        if root is None:
            raise
        return root


def _recovered(formats: Registry, path: Path, data: bytes, warnings: list[Diagnostic]
               ) -> etree._Element | None:
    """The root a format's ``recover`` hook makes of a malformed document, if any does."""
    for spec in formats.specs:
        if spec.recover is not None:
            root = spec.recover(data, path, warnings)
            if root is not None:
                return root
    return None
