"""XMDI 1.0 motions (Webots/EPFL, 2004): reader, writer, motion model and play checks."""

from robot_formats.formats.xmdi.document import (DEFAULT_FRAME_PERIOD, Motion, MotionDocument,
                                                 ServoTrack)
from robot_formats.formats.xmdi.mapping import ServoBinding, ServoMapping
from robot_formats.formats.xmdi.playback import (Interpolation, MotionModel, Playback, PlayOptions,
                                                 sample_times)
from robot_formats.formats.xmdi.reader import parse_xmdi_element, read_xmdi
from robot_formats.formats.xmdi.writer import write_xmdi, xmdi_string

__all__ = ['DEFAULT_FRAME_PERIOD', 'Motion', 'MotionDocument', 'ServoTrack', 'ServoBinding',
           'ServoMapping', 'Interpolation', 'MotionModel', 'Playback', 'PlayOptions',
           'sample_times', 'parse_xmdi_element', 'read_xmdi', 'write_xmdi',
           'xmdi_string']
