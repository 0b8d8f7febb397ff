"""URDF: reader, lowering of any model to URDF's vocabulary, and writer."""

from robot_formats.formats.urdf.lowering import lower
from robot_formats.formats.urdf.reader import read_urdf
from robot_formats.formats.urdf.writer import model_to_urdf, urdf_string, write_urdf

__all__ = ['lower', 'model_to_urdf', 'read_urdf', 'urdf_string', 'write_urdf']
