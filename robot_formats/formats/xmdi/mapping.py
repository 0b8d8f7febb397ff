"""Servo → joint mapping: which robot joint an XMDI servo drives, with scale and offset.

XMDI names servos as the motion's author saw them (``ShoulderR``); a robot model names joints
(``shoulder_pan``) and may count angles from another zero or in the other direction. A mapping
file says, per servo, ``joint = scale · servo + offset``; servos it does not list drive the
joint of the same name, unchanged (identity by default). The YAML::

    servos:
      ShoulderR: shoulder_pan                            # another name, same values
      ElbowR: {joint: elbow, scale: -1.0, offset: 0.1}   # mirrored and shifted

Errors carry the YAML file and line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import yaml

from robot_formats.core.errors import (DuplicateNameError, FileAccessError, InvalidValueError,
                                       SchemaError)
from robot_formats.core.files import read_input
from robot_formats.core.limits import MAX_YAML_BYTES

__all__ = ['ServoBinding', 'ServoMapping']


@dataclass(frozen=True, slots=True)
class ServoBinding:
    """One servo drives ``joint``: joint value = ``scale`` · servo value + ``offset``."""

    servo: str
    joint: str
    scale: float = 1.0
    offset: float = 0.0

    def to_joint(self, value):
        return self.scale * value + self.offset

    def to_servo(self, value):
        """The servo value that drives the joint to ``value`` (the inverse of :meth:`to_joint`;
        a mapping never has scale 0)."""
        return (value - self.offset) / self.scale


class ServoMapping:
    """Bindings by servo name; unlisted servos map to the joint of the same name."""

    def __init__(self, bindings: Mapping[str, ServoBinding] | None = None,
                 source: str | None = None) -> None:
        self.bindings = dict(bindings or {})
        self.source = source
        joints: dict[str, str] = {}
        for binding in self.bindings.values():
            if binding.joint in joints:
                raise DuplicateNameError(f'servos {joints[binding.joint]!r} and '
                                         f'{binding.servo!r} both drive joint {binding.joint!r}',
                                         source)
            joints[binding.joint] = binding.servo

    def binding(self, servo: str) -> ServoBinding:
        return self.bindings.get(servo) or ServoBinding(servo, servo)

    def binding_for_joint(self, joint: str) -> ServoBinding:
        """The servo that drives ``joint`` (a recorder writes joint motion as that servo's
        values): the mapped one, else the servo named like the joint."""
        for binding in self.bindings.values():
            if binding.joint == joint:
                return binding
        if joint in self.bindings:  # that servo name is taken by another joint's servo
            raise InvalidValueError(f'joint {joint!r} has no servo: the servo of that name '
                                    f'drives {self.bindings[joint].joint!r}', self.source)
        return ServoBinding(joint, joint)

    @classmethod
    def identity(cls) -> ServoMapping:
        return cls()

    @classmethod
    def from_yaml(cls, path: str | Path) -> ServoMapping:
        """A mapping file, read by the guarded reader (a regular file of at most
        :data:`~robot_formats.core.limits.MAX_YAML_BYTES`)."""
        try:
            text = read_input(path, MAX_YAML_BYTES).decode('utf-8')
        except UnicodeDecodeError:
            raise FileAccessError('the mapping file is not UTF-8 text', path) from None
        return cls.from_yaml_text(text, str(path))

    @classmethod
    def from_yaml_text(cls, text: str, file: str | None = None) -> ServoMapping:
        try:
            root = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as err:
            mark = getattr(err, 'problem_mark', None)
            raise InvalidValueError(f'not valid YAML: {getattr(err, "problem", None) or "?"}',
                                    file, mark.line + 1 if mark else None) from None
        except RecursionError:  # PyYAML composes nested collections recursively (fuzzing)
            raise InvalidValueError('the servo mapping nests lists/mappings too deeply to read',
                                    file) from None
        if root is None:
            return cls(source=file)
        servos = _top_level(root, file)
        bindings: dict[str, ServoBinding] = {}
        joints: dict[str, str] = {}
        for key_node, value_node in (servos.value if servos is not None else ()):
            servo = _scalar_text(key_node, file, 'a servo name')
            if servo in bindings:
                raise DuplicateNameError(f'servo {servo!r} is mapped twice', file,
                                         _line(key_node))
            binding = _binding(servo, value_node, file)
            if binding.joint in joints:
                raise DuplicateNameError(f'servos {joints[binding.joint]!r} and {servo!r} both '
                                         f'drive joint {binding.joint!r}', file, _line(key_node))
            bindings[servo], joints[binding.joint] = binding, servo
        return cls(bindings, file)

def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _top_level(root: yaml.Node, file: str | None) -> yaml.MappingNode | None:
    if not isinstance(root, yaml.MappingNode):
        raise SchemaError('a servo mapping file is a YAML mapping with a "servos" key', file,
                          _line(root))
    servos = None
    for key_node, value_node in root.value:
        key = _scalar_text(key_node, file, 'a key')
        if key != 'servos':
            raise SchemaError(f'unknown key {key!r} in the servo mapping (expected "servos")',
                              file, _line(key_node))
        if isinstance(value_node, yaml.ScalarNode) and value_node.value in ('', '~', 'null'):
            return None
        if not isinstance(value_node, yaml.MappingNode):
            raise SchemaError('"servos" must map servo names to joints', file, _line(value_node))
        servos = value_node
    return servos


def _scalar_text(node: yaml.Node, file: str | None, what: str) -> str:
    if not isinstance(node, yaml.ScalarNode) or not str(node.value).strip():
        raise SchemaError(f'expected {what} (a non-empty string)', file, _line(node))
    return str(node.value)


def _binding(servo: str, node: yaml.Node, file: str | None) -> ServoBinding:
    if isinstance(node, yaml.ScalarNode):
        return ServoBinding(servo, _scalar_text(node, file, f'the joint of servo {servo!r}'))
    if not isinstance(node, yaml.MappingNode):
        raise SchemaError(f'servo {servo!r}: expected a joint name or '
                          '{joint: NAME, scale: S, offset: O}', file, _line(node))
    fields: dict[str, yaml.Node] = {}
    for key_node, value_node in node.value:
        key = _scalar_text(key_node, file, 'a key')
        if key not in ('joint', 'scale', 'offset'):
            raise SchemaError(f'servo {servo!r}: unknown key {key!r} (joint, scale, offset)',
                              file, _line(key_node))
        fields[key] = value_node
    if 'joint' not in fields:
        raise SchemaError(f'servo {servo!r} needs a "joint"', file, _line(node))
    joint = _scalar_text(fields['joint'], file, f'the joint of servo {servo!r}')
    scale = _number(fields.get('scale'), 1.0, file, f'servo {servo!r} scale')
    offset = _number(fields.get('offset'), 0.0, file, f'servo {servo!r} offset')
    if scale == 0.0:
        raise InvalidValueError(f'servo {servo!r}: scale 0 would freeze the joint', file,
                                _line(fields['scale']))
    return ServoBinding(servo, joint, scale, offset)


def _number(node: yaml.Node | None, default: float, file: str | None, what: str) -> float:
    if node is None:
        return default
    text = str(node.value) if isinstance(node, yaml.ScalarNode) else ''
    if text.lower().lstrip('+-') in ('.nan', '.inf'):  # YAML's spellings of NaN and infinity
        raise InvalidValueError(f'{what}: {text!r} is not finite', file, _line(node))
    try:
        if '_' in text:
            raise ValueError(text)
        value = float(text)
    except ValueError:
        raise InvalidValueError(f'{what}: {text or "(not a number)"!r} is not a number', file,
                                _line(node)) from None
    if not math.isfinite(value):
        raise InvalidValueError(f'{what}: {text!r} is not finite', file, _line(node))
    return value
