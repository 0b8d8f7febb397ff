"""The floor of a load: the least a Python reader with this design does, timed like ``load()``.

Two parts of every load are fixed by the design rather than by a reader's code: reading and
parsing the document (libxml2, through lxml), and making the neutral model's objects that
``load()`` returns. :class:`Floor` does just those two and nothing else:

* read the file and parse it with the same locked-down parser ``load()`` uses;
* visit every element once: its tag, every attribute's name and value, and its text;
* make the model's links, joints and frames (the classes of :mod:`robot_formats.core.model`,
  the same number, with the values the real load produced, prepared before timing).

Nothing is checked, converted or computed, no geometry, inertia or pose object is made, no
kinematic tree is built, and a kit's included files are not read: this is a lower bound. A
ratio of the floor to the reference says how much of a load is left for all the rest. The
benchmarks print it beside ``load()`` so that a reader's own cost can be told apart from what
any reader of this design pays.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ['Floor']


class Floor:
    """The two parts of the floor of loading ``path``, whose real load gave ``scene`` (a
    core.model Scene: ``robot_formats.load(path).scene``, not the LoadResult): :meth:`read` and
    :meth:`make`, timed apart so that each is printed."""

    def __init__(self, path: Path, scene: object) -> None:
        models = scene.models  # type: ignore[attr-defined]
        self.path = path
        self.links = [(link.name, link.inertial, link.visuals, link.collisions, link.line)
                      for model in models for link in model.links]
        self.joints = [(joint.name, joint.type, joint.parent, joint.child, joint.origin,
                        joint.axis, joint.line) for model in models for joint in model.joints]
        self.frames = [(frame.name, frame.attached_to, frame.pose, frame.line)
                       for model in models for frame in model.frames]

    def read(self) -> list:
        """Read and parse the file; every element's tag, text and attributes taken once."""
        from robot_formats.core.xmlsafe import parse_xml_bytes, read_bytes

        root = parse_xml_bytes(read_bytes(self.path), self.path)
        return [(element.tag, element.text, element.items()) for element in root.iter()]

    def make(self) -> list:
        """The model's links, joints and frames, made from values prepared beforehand."""
        from robot_formats.core.model import Frame, Joint, Link

        made: list = [Link(name, inertial, visuals, collisions, line)
                      for name, inertial, visuals, collisions, line in self.links]
        made += [Joint(name, kind, parent, child, origin, axis, line=line)
                 for name, kind, parent, child, origin, axis, line in self.joints]
        made += [Frame(name, attached_to, pose, line)
                 for name, attached_to, pose, line in self.frames]
        return made
