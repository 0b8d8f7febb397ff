"""What a format reader is, what it is handed, and what a load returns.

The registry (:mod:`robot_formats.formats`) and the readers (:mod:`robot_formats.formats.builtin`
and one package per format) meet here; neither imports the other's insides, so there is no
import cycle between the loader and the formats it loads.

A reader gets a :class:`LoadContext`: what the user chose (which world of an SDFormat file,
how includes are resolved) and a callable that loads a nested file of any format (an SDFormat
world including a URDF, a TMP problem naming its robots). A reader never calls the top-level
loader itself: nested loads go through the context, so every load of one document sees the
same settings and two loads in two threads share nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, NamedTuple, Protocol

from lxml import etree

from robot_formats.core.errors import Diagnostic
from robot_formats.core.model import Scene

if TYPE_CHECKING:  # the SDFormat package is imported only when an SDFormat file is read
    from robot_formats.core.kinematics import KinematicTree
    from robot_formats.core.limits import LoadBudget
    from robot_formats.formats.sdformat.uri import ResolverConfig

__all__ = ['Document', 'FormatSpec', 'LoadContext', 'LoadResult', 'DocumentResult', 'Reader']

# The records below are named tuples: immutable, compared and printed field by field, made by
# keyword or by position, like a frozen dataclass; a dataclass compiles its methods (__init__,
# __repr__, __eq__, __hash__, __setattr__, __delattr__) when the module is imported, which every
# command that reads a file would pay for records it makes a handful of.


class LoadContext(NamedTuple):
    """What a reader is handed besides the document."""

    #: The ``<world>`` to load from an SDFormat document holding several (default: the first,
    #: as Gazebo loads it, with a warning naming the others).
    world: str | None = None
    #: How SDFormat includes are found (model paths, package map, Fuel caches, depth limit);
    #: None: the defaults and the environment.
    sdf_config: ResolverConfig | None = None
    #: Loads a nested file of any format with the same settings (the registry's ``load``).
    load_nested: Callable[[Path], LoadResult] | None = None
    #: What the load may still read or copy, shared with the loads it nests: a reader charges
    #: every document it includes (None: the reader was called outside a load; no budget).
    budget: LoadBudget | None = None


#: Reads a document: (path, parsed root element, warnings sink, context) -> scene.
Reader = Callable[[Path, etree._Element, list[Diagnostic], LoadContext], Scene]



class FormatSpec(NamedTuple):
    """How to recognise and read one format."""

    name: str                       #: stable identifier used in CLI/JSON output ("urdf", ...)
    extensions: tuple[str, ...]     #: lower-case, with dot
    root_tags: tuple[str, ...]      #: local names of accepted root elements
    reader: Reader
    description: str = ''
    #: When several formats accept the root element (HRDF and URDF both use <robot>), a format
    #: whose ``claims(root)`` is true is chosen, even over the extension (with a warning).
    claims: Callable[[etree._Element], bool] | None = None
    #: The extension alone decides, whatever the root element is called (HEBI reads an .hrdf
    #: file without looking at its root element's name).
    any_root: bool = False
    #: For documents that are not well-formed XML: a format may recognise its own known, safe to
    #: repair mistakes in the raw bytes (TMP problems copy the spec page's ``</tordo>``) and
    #: return the parsed, repaired root (adding a warning per repair), or None to let the
    #: syntax error stand. (data, path, warnings) -> root or None.
    recover: Callable[[bytes, Path, list[Diagnostic]], etree._Element | None] | None = None
    #: The reader refuses every number beyond the range a model may hold where it reads it
    #: (``ReadingContext(..., bounded=True)``), derives none that could leave it, and refuses
    #: an empty name (``core.ranges.check_name``): the loader does not walk its scenes again
    #: with ``core.ranges.check_ranges``.
    checks_ranges: bool = False
    #: What the reader returns: ``'scene'`` (a kinematic :class:`Scene`, which :func:`load`
    #: turns into a frame tree) or another kind of document (``'motion'``: XMDI motions) that
    #: only :func:`read_document` returns (and ``check`` validates) and :func:`load` refuses.
    document: str = 'scene'


class LoadResult(NamedTuple):
    """What a load returns: the scene, its validated frame tree, the format, warnings."""

    scene: Scene
    format: str
    path: str
    warnings: tuple[Diagnostic, ...] = ()
    tree: KinematicTree | None = None  #: built by load(): proves the scene is a valid tree
    #: Information that is no irregularity (another tool's extension element read past, ...):
    #: printed, logged, never refused by strict mode.
    notes: tuple[Diagnostic, ...] = ()
    #: The document exactly as it was parsed: the file's bytes, xacro's output for a ``.xacro``
    #: file, or the given text (UTF-8). robot_state_publisher serves a URDF as given, so a node
    #: standing in for it needs these, not a re-rendering (and not a second xacro run).
    source_bytes: bytes | None = None


class Document(Protocol):
    """A document of a kind other than ``'scene'`` (XMDI motions): ``check`` prints its
    summary."""

    def summary(self) -> str: ...


class DocumentResult(NamedTuple):
    """What :func:`read_document` returns: any format's document, validated."""

    document: Scene | Document  #: a Scene, or the format's own (e.g. MotionDocument)
    format: str
    kind: str                 #: the spec's ``document``: 'scene', 'motion', ...
    path: str
    warnings: tuple[Diagnostic, ...] = ()
    tree: KinematicTree | None = None  #: scenes only
    notes: tuple[Diagnostic, ...] = ()  #: as LoadResult.notes

