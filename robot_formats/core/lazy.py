"""numpy, imported when a module first uses it (importing numpy is a large part of a command's
start: a command that never computes a matrix, ``robot-formats check``, should not pay it).

In a module that uses numpy only inside functions::

    if TYPE_CHECKING:
        import numpy as np
    else:
        np = numpy_on_first_use(globals())

The first attribute read (``np.array``) imports numpy and rebinds the module's ``np`` to it, so
every later use is the plain module.
"""

from __future__ import annotations

from typing import Any

__all__ = ['numpy_on_first_use']


class _NumpyOnFirstUse:
    """Stands in for numpy in one module until its first use."""

    __slots__ = ('_namespace', '_name')

    def __init__(self, namespace: dict[str, Any], name: str) -> None:
        self._namespace = namespace
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        import numpy
        self._namespace[self._name] = numpy
        return getattr(numpy, attribute)

    def __repr__(self) -> str:
        return '<numpy, imported on first use>'


def numpy_on_first_use(namespace: dict[str, Any], name: str = 'np') -> Any:
    """A stand-in for numpy bound to ``namespace[name]`` (a module's ``globals()``), replaced
    there by numpy itself on first use."""
    import sys
    numpy = sys.modules.get('numpy')
    return numpy if numpy is not None else _NumpyOnFirstUse(namespace, name)
