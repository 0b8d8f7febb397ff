"""The readers robot_formats ships, as :class:`~robot_formats.formats.spec.FormatSpec` records
(:data:`BUILTIN_FORMATS`, in the order the registry tries them). Imported lazily by
:mod:`robot_formats.formats`. Each reader is the ``read_element`` function of its format's
package, named ``'module:function'`` and imported at its first call
(:class:`~robot_formats.core.lazy.LazyFunction`): a command that reads one format does not
import the others."""

from __future__ import annotations

from lxml import etree

from robot_formats.core.lazy import LazyFunction
from robot_formats.formats.spec import FormatSpec

__all__ = ['BUILTIN_FORMATS']

URDF = FormatSpec('urdf', ('.urdf',), ('robot',),
                  LazyFunction('robot_formats.formats.urdf.reader:read_element'),
                  'Unified Robot Description Format', checks_ranges=True)

SKEL = FormatSpec('skel', ('.skel',), ('skel',),
                  LazyFunction('robot_formats.formats.skel.reader:read_element'),
                  "DART's SKEL world format")

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


HRDF = FormatSpec('hrdf', ('.hrdf',), ('robot',),
                  LazyFunction('robot_formats.formats.hrdf.reader:read_element'),
                  'HEBI Robot Description Format', claims=_claims_hrdf, any_root=True,
                  checks_ranges=True)  # read bounded; the builder checks what it derives


TMP = FormatSpec('tmp', ('.xml',), ('problem',),
                 LazyFunction('robot_formats.formats.tmp.semantics:read_element'),
                 'task-and-motion-planning problem XML',
                 recover=LazyFunction('robot_formats.formats.tmp.reader:recover_problem'))

XMDI = FormatSpec('xmdi', ('.xmdi',), ('xmdi', 'XMDI', 'Xmdi'),
                  LazyFunction('robot_formats.formats.xmdi.reader:read_element'),
                  'XMDI 1.0 motions (Webots/EPFL key frames)', any_root=True, document='motion')

SDF = FormatSpec('sdf', ('.sdf', '.world'), ('sdf',),
                 LazyFunction('robot_formats.formats.sdformat:read_element'),
                 'SDFormat 1.4-1.12 worlds and models, with 1.8 model composition',
                 recover=LazyFunction('robot_formats.formats.sdformat.recover:recover_sdf'),
                 checks_ranges=True)  # read bounded; the scene checks the poses it composes

#: Every built-in format, in registration order (detection tries them in this order).
BUILTIN_FORMATS = (URDF, SKEL, HRDF, TMP, XMDI, SDF)
