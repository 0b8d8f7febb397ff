"""HEBI Robot Description Format (HRDF) 1.0.0–1.6.0 reader; see docs/hrdf.md."""

from robot_formats.formats.hrdf.reader import parse_hrdf_element, parse_hrdf_file

__all__ = ['parse_hrdf_file', 'parse_hrdf_element']
