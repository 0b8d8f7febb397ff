"""Configuration tags (``<torso>``, ``<left_arm>``, ...) → robot joints.

A problem file gives a robot's initial configuration by groups whose meaning "depends on the
robot". Which joints a group names comes, in this order, from:

1. the mapping YAML's ``robots: {<robot name>: {<tag>: [joints...]}}``;
2. the mapping YAML's ``defaults: {<tag>: [joints...]}`` (any robot);
3. the tag itself, when it is the name of a one-coordinate joint of the robot and has one value;
4. the AMmapping: for ``<side>_arm`` the action named ``...-<side>`` / ``..._<side>`` (e.g.
   ``pick-left`` for ``left_arm``), its joints that the robot has, the first as many as the tag
   has values; for ``torso`` the robot's joints whose name contains ``torso``;
5. for ``<side>_arm`` without such an action: the robot's joints named ``<s>_...`` or
   ``<side>_...`` (``l_`` / ``left_``), grippers and fingers left out, in the model's order.

A tag nothing maps is ignored with a warning. The YAML is found beside the problem as
``<problem file stem>.mapping.yaml`` unless one is given explicitly. See docs/tmp.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import yaml

from robot_formats.core.errors import Diagnostic, InvalidValueError, SchemaError
from robot_formats.core.files import read_input
from robot_formats.core.limits import MAX_YAML_BYTES

__all__ = ['ConfigurationMapping', 'is_gripper_joint', 'load_mapping', 'mapping_beside']


class ConfigurationMapping:
    """The YAML mapping (possibly empty) plus the built-in defaults."""

    def __init__(self, robots: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
                 defaults: Mapping[str, Sequence[str]] | None = None,
                 source: str | None = None) -> None:
        self.robots = {r: {t: tuple(j) for t, j in tags.items()} for r, tags in
                       (robots or {}).items()}
        self.defaults = {t: tuple(j) for t, j in (defaults or {}).items()}
        self.source = source

    def joints_for(self, robot: str, tag: str, count: int, robot_joints: Sequence[str],
                   actions: Mapping[str, Sequence[str]]) -> tuple[tuple[str, ...], str] | None:
        """The joints the tag's values set, and where that came from; None if nothing maps."""
        explicit = self.robots.get(robot, {}).get(tag)
        if explicit is not None:
            return explicit, f'{self.source or "the mapping"} (robots.{robot}.{tag})'
        if tag in self.defaults:
            return self.defaults[tag], f'{self.source or "the mapping"} (defaults.{tag})'
        if tag in robot_joints and count == 1:
            return (tag,), 'the joint of that name'
        known = set(robot_joints)
        if tag.endswith('_arm'):
            side = tag[:-len('_arm')]
            for name, joints in actions.items():
                if name.endswith((f'-{side}', f'_{side}')):
                    present = [j for j in joints if j in known]
                    if len(present) >= count:
                        return tuple(present[:count]), f'the AMmapping action {name!r}'
            prefixes = (f'{side[:1]}_', f'{side}_')
            sided = [j for j in robot_joints if j.startswith(prefixes)
                     and not is_gripper_joint(j)]
            if len(sided) >= count:
                return tuple(sided[:count]), f'the robot\'s joints named {side[:1]}_*'
        if tag == 'torso':
            torso = [j for j in robot_joints if 'torso' in j]
            if len(torso) == count:
                return tuple(torso), 'the robot\'s joints named *torso*'
        return None


def is_gripper_joint(name: str) -> bool:
    """Whether a joint moves a gripper rather than an arm: its name says ``gripper`` or
    ``finger``. Arm tags leave these joints out; problem_server's MoveIt view takes an AMmapping
    action's gripper joints as the hand (grasp postures, touch links)."""
    return 'gripper' in name or 'finger' in name


def mapping_beside(problem_path: str | Path) -> Path:
    """Where the mapping of a problem file is looked for by default."""
    path = Path(problem_path)
    return path.with_name(path.name.split('.')[0] + '.mapping.yaml')


def load_mapping(path: str | Path | None) -> ConfigurationMapping:
    """Read a mapping YAML; None (or a missing default file) gives the built-in rules only."""
    if path is None:
        return ConfigurationMapping()
    try:
        document = yaml.safe_load(read_input(path, MAX_YAML_BYTES).decode('utf-8')) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, 'problem_mark', None)
        raise InvalidValueError(f'the configuration mapping is not valid YAML: '
                                f'{getattr(err, "problem", None) or "?"}', path,
                                mark.line + 1 if mark else None) from None
    except UnicodeDecodeError:
        raise InvalidValueError('the configuration mapping is not UTF-8 text', path) from None
    except RecursionError:  # PyYAML composes nested collections recursively (found by fuzzing)
        raise InvalidValueError('the configuration mapping nests lists/mappings too deeply to '
                                'read', path) from None
    if not isinstance(document, dict) or set(document) - {'robots', 'defaults'}:
        raise SchemaError('the configuration mapping must be a mapping with the keys '
                          "'robots' and/or 'defaults' (see docs/tmp.md)", path)
    robots = document.get('robots') or {}
    defaults = document.get('defaults') or {}
    if not isinstance(robots, dict) or not all(isinstance(v, dict) for v in robots.values()):
        raise SchemaError("'robots' must map robot names to {tag: [joint, ...]}", path)
    for where, table in [('defaults', defaults), *((f'robots.{r}', t) for r, t in robots.items())]:
        _check_table(table, where, path)
    return ConfigurationMapping(robots, defaults, str(path))


def _check_table(table: object, where: str, path: str | Path) -> None:
    if not isinstance(table, dict):
        raise SchemaError(f"'{where}' must map tags to lists of joint names", path)
    for tag, joints in table.items():
        if not isinstance(joints, list) or not all(isinstance(j, str) and j for j in joints):
            raise SchemaError(f"'{where}.{tag}' must be a list of joint names", path)


def unmapped_warning(robot: str, tag: str, file: str | None, line: int | None) -> Diagnostic:
    return Diagnostic(f'configuration <{tag}> of robot {robot!r} maps to no joints of its model '
                      'and is ignored; name its joints in the mapping YAML (docs/tmp.md)',
                      file, line, 'TMP_UNMAPPED_CONFIGURATION')
