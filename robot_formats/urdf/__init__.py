"""URDF: reader, lowering of any model to URDF's vocabulary, and writer."""

from .lowering import lower
from .reader import read_urdf
from .writer import model_to_urdf, urdf_string, write_urdf

__all__ = ['lower', 'model_to_urdf', 'read_urdf', 'urdf_string', 'write_urdf']
