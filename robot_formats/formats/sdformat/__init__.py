"""SDFormat 1.8 (and 1.4-1.12 documents) with model composition: nested models, includes,
frame semantics exactly as libsdformat resolves them, and models of other formats included
through the interface API. See docs/sdformat.md."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from lxml import etree

from robot_formats.core.errors import Diagnostic
from robot_formats.core.limits import LoadBudget
from robot_formats.core.model import Scene
from robot_formats.core.xmlsafe import read_xml
from robot_formats.formats.sdformat.interface import (InterfaceFrame, InterfaceLink, InterfaceModel,
                                                      NestedInclude, NestedModelFramePoseGraph)
from robot_formats.formats.sdformat.reader import SdfLoader
from robot_formats.formats.sdformat.scene import to_scene
from robot_formats.formats.sdformat.uri import ResolverConfig

if TYPE_CHECKING:
    from robot_formats.formats.spec import LoadContext, LoadResult

__all__ = ['read_sdf', 'read_element', 'parse_sdf_element', 'resolve_document', 'ResolverConfig',
           'NestedInclude', 'InterfaceFrame', 'InterfaceLink', 'InterfaceModel',
           'NestedModelFramePoseGraph']

#: Loads an included file of another format (``robot_formats.load``, or a partial of it).
NestedLoader = Callable[[Path], 'LoadResult']


def read_element(path: Path, root: etree._Element, warnings: list[Diagnostic],
                 context: LoadContext) -> Scene:
    """The registry's reader of SDFormat (``FormatSpec.reader``): :func:`parse_sdf_element`
    with the load's include settings, world, nested loader and budget."""
    return parse_sdf_element(root, str(path), warnings, context.sdf_config, world=context.world,
                             load_nested=context.load_nested, budget=context.budget)


def parse_sdf_element(root: etree._Element, file: str | None, warnings: list[Diagnostic],
                      config: ResolverConfig | None = None, world: str | None = None,
                      load_nested: NestedLoader | None = None,
                      budget: LoadBudget | None = None) -> Scene:
    """The composed scene of an ``<sdf>`` document (includes expanded, frames resolved);
    ``config``: how includes are found (default: the environment's model paths); ``world``: the
    world to read from a document holding several (default: the first); ``load_nested``: how
    to load an included URDF, SKEL or HRDF model (without it such includes are refused);
    ``budget``: what the includes may read or copy (default: a budget of its own).
    ``robot_formats.load`` passes all of them."""
    document = SdfLoader(warnings, config, load_nested, budget).document(root, file, world)
    return to_scene(document, warnings)


def read_sdf(path: str | Path, warnings: list[Diagnostic] | None = None,
             config: ResolverConfig | None = None,
             load_nested: NestedLoader | None = None) -> Scene:
    """Load an SDFormat file (see :func:`parse_sdf_element`)."""
    warnings = warnings if warnings is not None else []
    return parse_sdf_element(read_xml(path, warnings, ('sdf',)), str(path), warnings, config,
                             load_nested=load_nested)


def resolve_document(path: str | Path, warnings: list[Diagnostic] | None = None,
                     config: ResolverConfig | None = None,
                     load_nested: NestedLoader | None = None):
    """Every frame of an SDFormat file in the world, as libsdformat names and resolves them:
    ``{scoped name: ResolvedFrame}`` (models, links, joints, frames; all joints at zero)."""
    from robot_formats.core.errors import XmlSyntaxError
    from robot_formats.core.xmlsafe import read_bytes
    from robot_formats.formats.sdformat.dom import SdfModel, SdfWorld
    from robot_formats.formats.sdformat.frames import resolve_world
    from robot_formats.formats.sdformat.recover import recover_sdf
    warnings = warnings if warnings is not None else []
    try:
        root = read_xml(path, warnings, ('sdf',))
    except XmlSyntaxError:
        root = recover_sdf(read_bytes(path), Path(path), warnings)
        if root is None:
            raise
    document = SdfLoader(warnings, config, load_nested).document(root, str(path))
    if isinstance(document, SdfModel):
        document = SdfWorld(document.name, document.file, document.line, document.version,
                            models=[document])
    return resolve_world(document)[1]
