"""XMDI 1.0 motions (Webots/EPFL, 2004): reader, writer, motion model and play checks."""

from .document import DEFAULT_FRAME_PERIOD, Motion, MotionDocument, ServoTrack
from .mapping import ServoBinding, ServoMapping
from .playback import Interpolation, MotionModel, Playback, PlayOptions, sample_times
from .reader import parse_xmdi_element, read_xmdi
from .writer import write_xmdi, xmdi_string

__all__ = ['DEFAULT_FRAME_PERIOD', 'Motion', 'MotionDocument', 'ServoTrack', 'ServoBinding',
           'ServoMapping', 'Interpolation', 'MotionModel', 'Playback', 'PlayOptions',
           'sample_times', 'parse_xmdi_element', 'read_xmdi', 'write_xmdi',
           'xmdi_string']
