"""What Kilted's controller_manager and ros2_controllers declare, read from their own parameter
definitions (generate_parameter_library YAML, ``shared/reference/ros2_control-kilted``), and a
check that a controllers file sets nothing else.

How those files declare parameters: a mapping whose value holds ``type`` is a parameter (its
name is the path of keys to it); any other mapping is a namespace; a key ``__map_<name>``
stands for each value of the string-array parameter ``<name>`` of the same controller (e.g.
``gains.__map_joints.p``: ``gains.<joint>.p`` for every joint of ``joints``). ``validation``
holds the checks the generated code runs at load time; ``one_of<>`` and ``subset_of<>`` are
checked here too.

The one key a controllers file sets that no definition file declares is ``<controller>.type``
under ``controller_manager``: controller_manager declares it in code for each controller it is
asked to load (controller_manager.cpp); its value names the plugin, whose package names the
definition file of the controller's own section.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from shared_data import shared  # noqa: E402

#: The folder holding the definitions (its README names the upstream commits).
KILTED = ('reference', 'ros2_control-kilted')
MAP_PREFIX = '__map_'
#: controller_manager's own key per controller (declared in controller_manager.cpp, not in a
#: definition file).
CONTROLLER_TYPE = 'type'
#: generate_parameter_library type -> the YAML values a ROS parameter file may give it (rclcpp
#: refuses another type at load time: an integer for a double, say).
YAML_TYPES = {
    'bool': lambda v: isinstance(v, bool),
    'int': lambda v: isinstance(v, int) and not isinstance(v, bool),
    'double': lambda v: isinstance(v, float),
    'string': lambda v: isinstance(v, str),
    'string_array': lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    'double_array': lambda v: isinstance(v, list) and all(isinstance(x, float) for x in v),
    'int_array': lambda v: isinstance(v, list) and all(
        isinstance(x, int) and not isinstance(x, bool) for x in v),
    'bool_array': lambda v: isinstance(v, list) and all(isinstance(x, bool) for x in v),
}


@dataclass(frozen=True)
class Declared:
    """One declared parameter: its path (a segment ``__map_<name>`` stands for the values of
    parameter ``<name>``), type and validation."""

    path: tuple[str, ...]
    type: str
    validation: dict

    def matches(self, path: tuple[str, ...], values: dict[str, object]) -> bool:
        if len(path) != len(self.path):
            return False
        for declared, given in zip(self.path, path):
            if declared.startswith(MAP_PREFIX):
                keys = values.get(declared[len(MAP_PREFIX):])
                if not isinstance(keys, list) or given not in keys:
                    return False
            elif declared != given:
                return False
        return True

    def problems(self, name: str, value: object) -> list[str]:
        """Why ``value`` cannot be given to this parameter, set as ``name`` (empty: it can)."""
        if not YAML_TYPES[self.type](value):
            return [f'{name} is {value!r}, not of type {self.type}']
        out = []
        for rule, argument in (self.validation or {}).items():
            allowed = argument[0] if argument else []
            if rule == 'one_of<>' and value not in allowed:
                out.append(f'{name} is {value!r}, not one of {allowed}')
            elif rule == 'subset_of<>' and not set(value) <= set(allowed):  # type: ignore
                out.append(f'{name} is {value!r}, not a subset of {allowed}')
        return out


def _walk(tree: dict, path: tuple[str, ...]) -> list[Declared]:
    found = []
    for key, value in tree.items():
        if isinstance(value, dict) and 'type' in value:
            found.append(Declared((*path, key), value['type'], value.get('validation') or {}))
        elif isinstance(value, dict):
            found += _walk(value, (*path, key))
    return found


def definitions() -> dict[str, list[Declared]]:
    """Definition namespace (``joint_trajectory_controller``, ``controller_manager``, ...) ->
    its declared parameters, from every ``*_parameters.yaml`` of the Kilted reference."""
    out: dict[str, list[Declared]] = {}
    for path in sorted(shared(*KILTED).rglob('*_parameters.yaml')):
        document = yaml.safe_load(path.read_text(encoding='utf-8'))
        for namespace, tree in document.items():
            out[namespace] = _walk(tree, ())
    return out


def flatten(tree: dict, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], object]:
    out: dict[tuple[str, ...], object] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(flatten(value, (*path, str(key))))
        else:
            out[(*path, str(key))] = value
    return out


def section_problems(given: dict, declared: list[Declared], where: str) -> list[str]:
    """Every key of ``given`` (a ``ros__parameters`` mapping) that ``declared`` lacks, or whose
    value its declaration refuses."""
    keys = flatten(given)
    values = {'.'.join(path): value for path, value in keys.items()}
    problems = []
    for path, value in keys.items():
        match = next((d for d in declared if d.matches(path, values)), None)
        if match is None:
            problems.append(f'{where}: {".".join(path)} is not a parameter Kilted declares')
        else:
            problems += [f'{where}: {problem}'
                         for problem in match.problems('.'.join(path), value)]
    return problems


def controllers_file_problems(config: dict) -> list[str]:
    """Everything a controller_manager parameter file (loaded) sets that Kilted's
    controller_manager or the controllers it loads do not declare. Every section but
    controller_manager's must be a controller the manager loads."""
    known = definitions()
    manager = config['controller_manager']['ros__parameters']
    controllers = {name: entry for name, entry in manager.items()
                   if isinstance(entry, dict) and CONTROLLER_TYPE in entry}
    problems = section_problems({k: v for k, v in manager.items() if k not in controllers},
                                known['controller_manager'], 'controller_manager')
    for name, entry in controllers.items():
        if set(entry) != {CONTROLLER_TYPE}:
            problems.append(f'controller_manager: {name} sets {sorted(entry)}, controller_'
                            f'manager declares only {name}.{CONTROLLER_TYPE}')
        package = str(entry[CONTROLLER_TYPE]).split('/')[0]
        if package not in known:
            problems.append(f'controller_manager: {name}.type {entry[CONTROLLER_TYPE]!r} is '
                            'none of the controllers whose definitions are checked here '
                            f'({", ".join(sorted(set(known) - {"controller_manager"}))})')
            continue
        section = config.get(name, {}).get('ros__parameters', {})
        problems += section_problems(section, known[package], name)
    for name in config:
        if name != 'controller_manager' and name not in controllers:
            problems.append(f'{name}: a section for no controller controller_manager loads')
    return problems
