"""What is imported when it is first used: numpy, and the functions of a table that names them
(the format registry's readers, the CLI's commands). Importing numpy or a format's reader is a
large part of a command's start: a command that never computes a matrix, or reads one format,
should not pay for the others.

In a module that uses numpy only inside functions::

    if TYPE_CHECKING:
        import numpy as np
    else:
        np = numpy_on_first_use(globals())

The first attribute read (``np.array``) imports numpy and rebinds the module's ``np`` to it, so
every later use is the plain module.

A function is named ``'module:function'`` (a string the layer test reads as an import):
:func:`imported` imports it now, :class:`LazyFunction` at its first call.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ['numpy_on_first_use', 'imported', 'LazyFunction']


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


def imported(where: str) -> Any:
    """The function ``where`` names (``'module:function'``), its module imported now."""
    module, _, function = where.partition(':')
    return getattr(importlib.import_module(module), function)


class LazyFunction:
    """The function ``where`` names (``'module:function'``), imported at its first call."""

    __slots__ = ('where', '_function')

    def __init__(self, where: str) -> None:
        self.where = where
        self._function: Any = None

    def __call__(self, *args: Any) -> Any:
        if self._function is None:
            self._function = imported(self.where)
        return self._function(*args)

    def __repr__(self) -> str:
        return f'LazyFunction({self.where!r})'
