"""Which format a file is in, and the registry of readers.

A format is chosen from the file extension and the document's root element: the extension
proposes, the root element decides (a ``.xml`` file can be anything; a ``.urdf`` whose root is
``<sdf>`` is read as SDFormat, with a warning). Each format module registers a
:class:`FormatSpec`; nothing here knows a format's insides.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, NamedTuple

from lxml import etree

from robot_formats.core.errors import (Diagnostic, UnknownFormatError, UnsupportedError,
                                       XmlSyntaxError)
from robot_formats.formats.spec import DocumentResult, FormatSpec, LoadContext, LoadResult, Reader
from robot_formats.core.kinematics import KinematicTree
from robot_formats.core.limits import LoadBudget
from robot_formats.core.model import Scene
from robot_formats.core.ranges import check_ranges
from robot_formats.core.xmlsafe import parse_xml_bytes, read_bytes

if TYPE_CHECKING:
    from robot_formats.formats.sdformat.uri import ResolverConfig
    from robot_formats.formats.tmp.problem import Problem

__all__ = ['FormatSpec', 'LoadContext', 'LoadResult', 'DocumentResult', 'Reader', 'register',
           'registered', 'detect', 'load', 'load_text', 'expand_xacro', 'read_document',
           'read_problem']

_REGISTRY: dict[str, FormatSpec] = {}


def register(spec: FormatSpec) -> None:
    """Add (or replace) a format reader (after the built-in ones, which it may replace)."""
    _ensure_builtin()
    _REGISTRY[spec.name] = spec


def registered() -> tuple[FormatSpec, ...]:
    """Every known format, in registration order."""
    _ensure_builtin()
    return tuple(_REGISTRY.values())


def _ensure_builtin() -> None:
    if _REGISTRY:
        return
    from robot_formats.formats.builtin import (BUILTIN_FORMATS)
    for spec in BUILTIN_FORMATS:
        _REGISTRY.setdefault(spec.name, spec)


def detect(path: Path, root: etree._Element, warnings: list[Diagnostic]) -> FormatSpec:
    """The format for ``path`` with root element ``root``."""
    return _detect(path, _suffixes(path.name)[1], root, warnings)


class _Tables:
    """The registry's formats by extension and by root element, and every root element name,
    made once per registry content (not per load)."""

    __slots__ = ('specs', 'by_extension', 'by_root', 'root_tags')

    def __init__(self, specs: tuple[FormatSpec, ...]) -> None:
        self.specs = specs
        self.by_extension: dict[str, list[FormatSpec]] = {}
        self.by_root: dict[str, list[FormatSpec]] = {}
        for spec in specs:
            for extension in dict.fromkeys(spec.extensions):
                self.by_extension.setdefault(extension, []).append(spec)
            for tag in dict.fromkeys(spec.root_tags):
                self.by_root.setdefault(tag, []).append(spec)
        self.root_tags = tuple(tag for spec in specs for tag in spec.root_tags)


_TABLES: list[_Tables] = []  # the tables of the registry's last seen content


def _tables() -> _Tables:
    """The tables of the registry as it is now (remade when a format was registered or the
    registry changed otherwise: the content is compared, element by element, each time)."""
    _ensure_builtin()
    specs = tuple(_REGISTRY.values())
    if _TABLES:
        tables = _TABLES[0]
        if tables.specs == specs:  # (identical members compare without calling __eq__)
            return tables
    tables = _Tables(specs)
    _TABLES[:] = [tables]
    return tables


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


def _detect(path: Path, suffix: str, root: etree._Element, warnings: list[Diagnostic]
            ) -> FormatSpec:
    """:func:`detect` with the file's suffix (:func:`_suffixes`) already known. A format's
    ``claims`` is asked only when the extension alone does not decide."""
    tables = _tables()
    tag = root.tag
    if not isinstance(tag, str):
        tag = ''
    elif tag[0] == '{':
        tag = tag.rpartition('}')[2]
    by_extension = tables.by_extension.get(suffix, ())
    by_root = tables.by_root.get(tag, ())
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
        by_root = claimed
    if by_root:
        if by_extension:
            warnings.append(Diagnostic(
                f'the extension {suffix!r} suggests {by_extension[0].name} but the root element '
                f'<{tag}> is {by_root[0].name}; reading it as {by_root[0].name}', str(path),
                root.sourceline, 'FORMAT_MISMATCH'))
        return by_root[0]
    known = ', '.join(f'{s.name} ({"/".join(s.extensions)}, <{"|".join(s.root_tags)}>)'
                      for s in tables.specs)
    raise UnknownFormatError(f'unknown format: root element <{tag}> with extension '
                             f'{suffix or "(none)"!r}; supported: {known}', str(path),
                             root.sourceline)


def load(path: str | Path, xacro_args: Mapping[str, str] | None = None, *,
         world: str | None = None, sdf_config: ResolverConfig | None = None,
         budget: LoadBudget | None = None) -> LoadResult:
    """Read any supported robot, scene or problem file; a ``.xacro`` file is expanded first
    (with ``xacro_args`` as its ``name:=value`` arguments), as ROS users run xacro. ``world``
    names the world to load from an SDFormat document holding several; ``sdf_config`` says
    how SDFormat includes are found (default: the model paths of the environment).
    ``budget``: what the load may read or copy (docs/limits.md); a load nested in another
    (a problem's robot file, an included URDF) shares its budget, a load of its own has a new
    one.

    Raises:
        FormatError: (a subclass of it) for every problem, with file, line and a sentence.
    """
    if not isinstance(path, Path):  # (Path(path) of a Path parses it again)
        path = Path(path)
    return _scene_result(path, _read(path, None, xacro_args, world, sdf_config, budget, True))


def load_text(text: str, source: str = '<robot_description>', *,
              world: str | None = None, sdf_config: ResolverConfig | None = None) -> LoadResult:
    """:func:`load` of a document given as text, e.g. robot_state_publisher's
    ``robot_description`` parameter (URDF, or any format whose root element tells it).
    ``source`` names it in diagnostics; relative references resolve from the working
    directory.

    Raises:
        FormatError: (a subclass of it) for every problem, with a line and a sentence.
    """
    path = Path(source)
    return _scene_result(path, _read(path, text.encode('utf-8'), None, world, sdf_config, None,
                                     True))


def read_document(path: str | Path, *, world: str | None = None,
                  sdf_config: ResolverConfig | None = None) -> DocumentResult:
    """:func:`load` of a file of any registered format, kinematic or not (``check``).

    Raises:
        FormatError: (a subclass of it) for every problem, with file, line and a sentence.
    """
    if not isinstance(path, Path):
        path = Path(path)
    read = _read(path, None, None, world, sdf_config, None, False)
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
          scenes_only: bool) -> _Read:
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
        root = _parse(path, warnings, data)
        spec = _detect(path, suffix, root, warnings)
        if scenes_only and spec.document != 'scene':
            raise UnsupportedError(f'this is a {spec.document} file ({spec.name}), not a robot, '
                                   'scene or problem (`robot-formats check` validates it)',
                                   str(path), root.sourceline)
        document = spec.reader(path, root, warnings, _context(world, sdf_config, budget))
        tree = None
        if spec.document == 'scene':
            tree = KinematicTree(document)  # structure checks: references, loops, roots, mimics
            if not spec.checks_ranges:  # every number finite and in range, every name a name
                check_ranges(document)
        return _Read(spec, document, tree, warnings, data)
    finally:
        budget.leave()


def _scene_result(path: Path, read: _Read) -> LoadResult:
    irregular, notes = _split_notes(read.warnings)
    return LoadResult(read.document, read.spec.name, str(path), irregular, read.tree, notes,
                      read.data)


def _context(world: str | None, sdf_config: ResolverConfig | None, budget: LoadBudget
             ) -> LoadContext:
    """The context of one load: nested files are loaded with the same include settings and
    charged to the same budget."""
    return LoadContext(world, sdf_config, functools.partial(load, sdf_config=sdf_config,
                                                            budget=budget), budget)


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
    return (tuple(d for d in diagnostics if not d.is_note),
            tuple(d for d in diagnostics if d.is_note))


def _parse(path: Path, warnings: list[Diagnostic], data: bytes | None = None
           ) -> etree._Element:
    """The document's root element (repaired by a format's ``recover`` hook if one can);
    ``data``: the document's bytes when they do not come from ``path`` (text, xacro output)."""
    if data is None:
        data = read_bytes(path)
    try:  # read as TinyXML2 reads it where libxml2 refuses (warnings name each repair)
        return parse_xml_bytes(data, path, warnings, _root_tags())
    except XmlSyntaxError:
        root = _recovered(path, data, warnings)
        if root is None:
            raise
        return root


def _root_tags() -> tuple[str, ...]:
    """Every registered format's root element names (a document may hold other top-level
    elements; urdfdom reads the first <robot>, libsdformat the first <sdf>)."""
    return _tables().root_tags


def _recovered(path: Path, data: bytes, warnings: list[Diagnostic]) -> etree._Element | None:
    """The root a format's ``recover`` hook makes of a malformed document, if any does."""
    for spec in registered():
        if spec.recover is not None:
            root = spec.recover(data, path, warnings)
            if root is not None:
                return root
    return None
