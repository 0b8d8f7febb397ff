"""SKEL (DART's ``.skel`` world format): reader into the format-neutral model."""

from robot_formats.formats.skel.reader import parse_skel_element, read_skel

__all__ = ['parse_skel_element', 'read_skel']
