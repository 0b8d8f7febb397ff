"""The readers robot_formats ships, as :class:`~robot_formats.formats.spec.FormatSpec` records
(:data:`BUILTIN_FORMATS`, in the order the registry tries them). Imported lazily by
:mod:`robot_formats.formats`; each reader imports its format package when it reads."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from robot_formats.core.errors import Diagnostic
from robot_formats.core.model import Scene
from robot_formats.formats.spec import FormatSpec, LoadContext

__all__ = ['BUILTIN_FORMATS']


def _read_urdf(path: Path, root: etree._Element, warnings: list[Diagnostic],
               context: LoadContext) -> Scene:
    from robot_formats.formats.urdf.reader import parse_urdf_element
    return parse_urdf_element(root, str(path), warnings)


URDF = FormatSpec('urdf', ('.urdf',), ('robot',), _read_urdf, 'Unified Robot Description Format',
                  checks_ranges=True)


def _read_skel(path: Path, root: etree._Element, warnings: list[Diagnostic],
               context: LoadContext) -> Scene:
    from robot_formats.formats.skel.reader import parse_skel_element
    return parse_skel_element(root, str(path), warnings)


SKEL = FormatSpec('skel', ('.skel',), ('skel',), _read_skel, "DART's SKEL world format")


def _read_hrdf(path: Path, root: etree._Element, warnings: list[Diagnostic],
               context: LoadContext) -> Scene:
    from robot_formats.formats.hrdf.reader import parse_hrdf_element
    return parse_hrdf_element(root, path, warnings, budget=context.budget)


#: Elements only HRDF has directly under its root (URDF shares <link> and <joint>).
_HRDF_ONLY = frozenset({'actuator', 'bracket', 'rigid-body', 'end-effector', 'include'})


def _claims_hrdf(root: etree._Element) -> bool:
    """True for a ``<robot>`` that is HRDF rather than URDF: no ``name`` attribute (URDF
    requires one, HRDF refuses one) and a first child HRDF has (``<actuator>``, ``<link
    type>``, ...), or no child and a ``1.x`` version. Written here, not in the HRDF package,
    so that telling a URDF file from an HRDF one does not import the HRDF reader."""
    if root.get('name') is not None:
        return False
    for child in root:
        if not isinstance(child.tag, str):
            continue
        tag = child.tag
        return tag in _HRDF_ONLY or (tag == 'link' and child.get('type') is not None) or (
            tag == 'joint' and child.get('axis') is not None)
    return root.get('version', '').startswith('1.')


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
                             load_nested=context.load_nested, budget=context.budget)


def _recover_sdf(data: bytes, path: Path, warnings: list[Diagnostic]) -> etree._Element | None:
    from robot_formats.formats.sdformat.recover import recover_sdf
    return recover_sdf(data, path, warnings)


SDF = FormatSpec('sdf', ('.sdf', '.world'), ('sdf',), _read_sdf,
                 'SDFormat 1.4-1.12 worlds and models, with 1.8 model composition',
                 recover=_recover_sdf)

#: Every built-in format, in registration order (detection tries them in this order).
BUILTIN_FORMATS = (URDF, SKEL, HRDF, TMP, XMDI, SDF)
