"""robot_formats: robot, scene, problem and motion formats as one neutral model, for ROS 2.

The core library (everything except :mod:`robot_formats.nodes`) has no ROS imports::

    import robot_formats
    result = robot_formats.load('robot.urdf')      # any supported format
    tree = robot_formats.KinematicTree(result.scene)
    poses = tree.forward({'elbow': 0.5})           # X_root_frame for every frame
    urdf = robot_formats.urdf_string(result.scene)
    problem = robot_formats.read_problem('problem.xml')  # a TMP problem with its robots

Every failure is a :class:`FormatError` with ``file``, ``line`` and ``message``.
"""

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
