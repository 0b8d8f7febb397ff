"""robot_formats: robot, scene, problem and motion formats as one neutral model, for ROS 2.

The core library (everything except :mod:`robot_formats.nodes`) has no ROS imports::

    import robot_formats
    result = robot_formats.load('robot.urdf')      # any supported format
    tree = robot_formats.KinematicTree(result.scene)
    poses = tree.forward({'elbow': 0.5})           # X_root_frame for every frame
    urdf = robot_formats.urdf_string(result.scene)
    problem = robot_formats.read_problem('problem.xml')  # a TMP problem with its robots

Every failure is a :class:`FormatError` with ``file``, ``line`` and ``message``.

Each public name is imported from its module at its first use (PEP 562): ``import
robot_formats`` imports nothing of the library, and a program pays only for the parts it uses
(the model classes alone import no reader, no XML parser, no numpy).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers and editors see: the names below, as if imported here
    from robot_formats.core.errors import Diagnostic, FormatError
    from robot_formats.core.kinematics import KinematicTree
    from robot_formats.core.model import Joint, JointType, Link, Model, Pose, Scene
    from robot_formats.formats import LoadResult, load, load_text, read_problem, registered
    from robot_formats.formats.urdf import urdf_string, write_urdf

__version__ = '0.1.0'

__all__ = [
    'Diagnostic', 'FormatError', 'Joint', 'JointType', 'KinematicTree', 'Link', 'LoadResult',
    'Model', 'Pose', 'Scene', 'load', 'load_text', 'read_problem', 'registered', 'urdf_string',
    'write_urdf', '__version__',
]

#: The module each public name is defined in.
_SOURCES = {
    'Diagnostic': 'robot_formats.core.errors',
    'FormatError': 'robot_formats.core.errors',
    'KinematicTree': 'robot_formats.core.kinematics',
    'Joint': 'robot_formats.core.model',
    'JointType': 'robot_formats.core.model',
    'Link': 'robot_formats.core.model',
    'Model': 'robot_formats.core.model',
    'Pose': 'robot_formats.core.model',
    'Scene': 'robot_formats.core.model',
    'LoadResult': 'robot_formats.formats',
    'load': 'robot_formats.formats',
    'load_text': 'robot_formats.formats',
    'read_problem': 'robot_formats.formats',
    'registered': 'robot_formats.formats',
    'urdf_string': 'robot_formats.formats.urdf',
    'write_urdf': 'robot_formats.formats.urdf',
}

#: The subpackages the public names come from: attributes of the package, as the public
#: names are (``robot_formats.formats.detect``).
_SUBPACKAGES = ('core', 'formats')


def __getattr__(name: str) -> object:
    """A public name or subpackage, imported now (once: it is then a global of the package,
    and Python no longer asks)."""
    import importlib
    if name in _SOURCES:
        value = getattr(importlib.import_module(_SOURCES[name]), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f'{__name__}.{name}')
    else:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The names an eager import would show: the public names, the subpackages and the
    module's own attributes (``__doc__``, ``__path__``, ...), not the import machinery here."""
    return sorted({*globals(), *__all__, *_SUBPACKAGES} - _MACHINERY)


#: The names of this module that serve the imports on first use, not the users.
_MACHINERY = frozenset({'TYPE_CHECKING', '_SOURCES', '_SUBPACKAGES', '_MACHINERY', '__getattr__',
                        '__dir__'})
