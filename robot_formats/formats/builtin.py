"""The readers robot_formats ships, as :class:`~robot_formats.formats.spec.FormatSpec` records
(:data:`BUILTIN_FORMATS`, in the order the registry tries them). Imported lazily by
:mod:`robot_formats.formats`; each reader imports its format package only when it reads."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Callable

from lxml import etree

from robot_formats.core.errors import Diagnostic
from robot_formats.formats.spec import FormatSpec, LoadContext

from robot_formats.core.model import Scene
from robot_formats.formats.urdf.reader import parse_urdf_element

__all__ = ['BUILTIN_FORMATS']


def _read_urdf(path: Path, root: etree._Element, warnings: list[Diagnostic],
               context: LoadContext) -> Scene:
    return parse_urdf_element(root, str(path), warnings)


URDF = FormatSpec('urdf', ('.urdf',), ('robot',), _read_urdf, 'Unified Robot Description Format')


def _reader(name: str) -> Callable:
    """The function ``module:function`` (imported on first use; an import statement in a
    function is a lookup in the import machinery on each call, a dict look-up is not)."""
    function = _READERS.get(name)
    if function is None:
        module, _, attribute = name.partition(':')
        function = _READERS[name] = getattr(importlib.import_module(module), attribute)
    return function


_READERS: dict[str, Callable] = {}


def _read_skel(path: Path, root: etree._Element, warnings: list[Diagnostic],
               context: LoadContext) -> Scene:
    parse_skel_element = _READERS.get(_SKEL) or _reader(_SKEL)
    return parse_skel_element(root, str(path), warnings)


_SKEL = 'robot_formats.formats.skel.reader:parse_skel_element'


SKEL = FormatSpec('skel', ('.skel',), ('skel',), _read_skel, "DART's SKEL world format")


def _read_hrdf(path: Path, root: etree._Element, warnings: list[Diagnostic],
               context: LoadContext) -> Scene:
    parse_hrdf_element = _READERS.get(_HRDF) or _reader(_HRDF)
    return parse_hrdf_element(root, str(path), warnings)


_HRDF = 'robot_formats.formats.hrdf.reader:parse_hrdf_element'


def _claims_hrdf(root: etree._Element) -> bool:
    if root.get('name') is not None:
        return False  # URDF requires a name, HRDF refuses one: no need to import the HRDF reader
    return _reader('robot_formats.formats.hrdf.reader:looks_like_hrdf')(root)


HRDF = FormatSpec('hrdf', ('.hrdf',), ('robot',), _read_hrdf, 'HEBI Robot Description Format',
                  claims=_claims_hrdf, any_root=True)


def _read_tmp(path: Path, root: etree._Element, warnings: list[Diagnostic],
              context: LoadContext) -> Scene:
    from robot_formats.formats.tmp.reader import parse_problem_element
    from robot_formats.formats.tmp.semantics import problem_scene
    return problem_scene(parse_problem_element(root, path, warnings,
                                               load_description=context.load_nested))


def _recover_tmp(data: bytes, path: Path, warnings: list[Diagnostic]) -> etree._Element | None:
    from robot_formats.formats.tmp.reader import recover_problem
    return recover_problem(data, path, warnings)


TMP = FormatSpec('tmp', ('.xml',), ('problem',), _read_tmp,
                 'task-and-motion-planning problem XML', recover=_recover_tmp)


def _read_xmdi(path: Path, root: etree._Element, warnings: list[Diagnostic],
               context: LoadContext):
    from robot_formats.formats.xmdi.reader import parse_xmdi_element
    return parse_xmdi_element(root, str(path), warnings)


XMDI = FormatSpec('xmdi', ('.xmdi',), ('xmdi', 'XMDI', 'Xmdi'), _read_xmdi,
                  'XMDI 1.0 motions (Webots/EPFL key frames)', any_root=True,
                  document='motion')


def _read_sdf(path: Path, root: etree._Element, warnings: list[Diagnostic],
              context: LoadContext) -> Scene:
    from robot_formats.formats.sdformat import parse_sdf_element
    return parse_sdf_element(root, str(path), warnings, context.sdf_config, world=context.world,
                             load_nested=context.load_nested)


def _recover_sdf(data: bytes, path: Path, warnings: list[Diagnostic]) -> etree._Element | None:
    from robot_formats.formats.sdformat.recover import recover_sdf
    return recover_sdf(data, path, warnings)


SDF = FormatSpec('sdf', ('.sdf', '.world'), ('sdf',), _read_sdf,
                 'SDFormat 1.4-1.12 worlds and models, with 1.8 model composition',
                 recover=_recover_sdf)

#: Every built-in format, in registration order (detection tries them in this order).
BUILTIN_FORMATS = (URDF, SKEL, HRDF, TMP, XMDI, SDF)
