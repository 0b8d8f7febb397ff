"""HRDF reader: a HEBI Robot Description Format file (1.0.0–1.6.0) into a neutral Scene.

Public entry points: :func:`parse_hrdf_file` (a path; what other formats use to include an
HRDF file) and :func:`parse_hrdf_element` (an already parsed root, what the format registry
calls). Both return a non-world :class:`~robot_formats.core.model.Scene` with one model whose root
link ``world`` is HEBI's world frame; see :mod:`robot_formats.formats.hrdf.builder` for the mapping
and docs/hrdf.md for the whole story.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree

from robot_formats.core.errors import Diagnostic
from robot_formats.core.limits import LoadBudget
from robot_formats.core.model import Scene
from robot_formats.core.xmlsafe import read_xml
from robot_formats.formats.hrdf.builder import ROOT_LINK, build_model, implicit_end_effector
from robot_formats.formats.hrdf.elements import read_document

if TYPE_CHECKING:
    from robot_formats.formats.spec import LoadContext

__all__ = ['parse_hrdf_file', 'read_element', 'parse_hrdf_element']

def parse_hrdf_file(path: str | Path, warnings: list[Diagnostic] | None = None, *,
                    root_link: str = ROOT_LINK) -> Scene:
    """Load an ``.hrdf`` file (includes resolved relative to it).

    ``root_link`` names the model's root link (HEBI's world frame; ``world`` by default). A
    format that embeds an HRDF robot in a world of its own (an SDFormat ``<include>``) can
    pick a name that does not collide with its reserved ``world``.

    Raises:
        FormatError: (a subclass) with file, line and a sentence for every problem.
    """
    warnings = warnings if warnings is not None else []
    return parse_hrdf_element(read_xml(path, warnings), Path(path), warnings, root_link=root_link)


def read_element(path: Path, root: etree._Element, warnings: list[Diagnostic],
                 context: LoadContext) -> Scene:
    """The registry's reader of HRDF (``FormatSpec.reader``): :func:`parse_hrdf_element`, its
    includes charged to the load's budget."""
    return parse_hrdf_element(root, path, warnings, budget=context.budget)


def parse_hrdf_element(root: etree._Element, path: str | Path | None,
                       warnings: list[Diagnostic], *, root_link: str = ROOT_LINK,
                       budget: LoadBudget | None = None) -> Scene:
    """Build the scene of an already parsed HRDF document (its includes charged to
    ``budget``, the load's; default: a budget of its own). ``path``: the document's file,
    which names the model when ``<robot description>`` does not."""
    if isinstance(path, str):
        path = Path(path) if path else None
    file = str(path) if path is not None else None
    root_attrs, nodes = read_document(root, file, warnings, budget)
    if root_attrs.version.implicit_end_effector:
        nodes.append(implicit_end_effector(root_attrs))
    name = root.get('description') or (path.stem if path is not None else 'hrdf_robot')
    model = build_model(root_attrs, nodes, name, file, root_link)
    return Scene(name, (model,), source=file)
