"""SDFormat 1.8 (and 1.4-1.12 documents) with model composition: nested models, includes,
frame semantics exactly as libsdformat resolves them, and models of other formats included
through the interface API. See docs/sdformat.md."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from ..errors import Diagnostic
from ..model import Scene
from ..xmlsafe import read_xml
from .interface import (InterfaceFrame, InterfaceLink, InterfaceModel, NestedInclude,
                        NestedModelFramePoseGraph, custom_model_parsers,
                        register_custom_model_parser, unregister_custom_model_parser)
from .reader import SdfLoader
from .scene import to_scene
from .uri import ResolverConfig

__all__ = ['read_sdf', 'parse_sdf_element', 'resolve_document', 'ResolverConfig',
           'NestedInclude', 'InterfaceFrame', 'InterfaceLink', 'InterfaceModel',
           'NestedModelFramePoseGraph', 'register_custom_model_parser',
           'unregister_custom_model_parser', 'custom_model_parsers', 'default_config',
           'set_default_config']

_DEFAULT_CONFIG = ResolverConfig()


def default_config() -> ResolverConfig:
    """The include resolution settings ``robot_formats.load`` uses for SDFormat files."""
    return _DEFAULT_CONFIG


def set_default_config(config: ResolverConfig) -> None:
    """Replace the include resolution settings used by ``robot_formats.load``."""
    global _DEFAULT_CONFIG
    _DEFAULT_CONFIG = config


def parse_sdf_element(root: etree._Element, file: str | None, warnings: list[Diagnostic],
                      config: ResolverConfig | None = None, world: str | None = None) -> Scene:
    """The composed scene of an ``<sdf>`` document (includes expanded, frames resolved);
    ``world`` names the world to read from a document holding several (default: the first)."""
    document = SdfLoader(warnings, config or _DEFAULT_CONFIG).document(root, file, world)
    return to_scene(document, warnings)


def read_sdf(path: str | Path, warnings: list[Diagnostic] | None = None,
             config: ResolverConfig | None = None) -> Scene:
    """Load an SDFormat file."""
    warnings = warnings if warnings is not None else []
    return parse_sdf_element(read_xml(path, warnings, ('sdf',)), str(path), warnings, config)


def resolve_document(path: str | Path, warnings: list[Diagnostic] | None = None,
                     config: ResolverConfig | None = None):
    """Every frame of an SDFormat file in the world, as libsdformat names and resolves them:
    ``{scoped name: ResolvedFrame}`` (models, links, joints, frames; all joints at zero)."""
    from .dom import SdfModel, SdfWorld
    from .frames import resolve_world
    from ..errors import XmlSyntaxError
    from ..xmlsafe import read_bytes
    from .recover import recover_sdf
    warnings = warnings if warnings is not None else []
    try:
        root = read_xml(path, warnings, ('sdf',))
    except XmlSyntaxError:
        root = recover_sdf(read_bytes(path), Path(path), warnings)
        if root is None:
            raise
    document = SdfLoader(warnings, config or _DEFAULT_CONFIG).document(root, str(path))
    if isinstance(document, SdfModel):
        document = SdfWorld(document.name, document.file, document.line, document.version,
                            models=[document])
    return resolve_world(document)[1]
