"""Start robot_formats nodes in one process from a YAML file (where ``ros2 launch`` is missing).

The bringup file lists nodes; each takes the same ROS parameter files the launch files use::

    nodes:
      - executable: description_publisher      # see EXECUTABLES
        name: description_publisher            # optional (default: the executable)
        namespace: ''                          # optional
        parameters:                            # files (ROS params YAML) and/or inline mappings
          - $(find robot_formats)/config/description_publisher.yaml
          - description_file: $(dirname)/../examples/urdf/arm_with_gripper.urdf
        remappings:                            # optional
          joint_states: /my_robot/joint_states

``$(dirname)`` is the bringup file's directory; ``$(find PKG)`` a package's share directory.
Parameters from files are taken from the sections whose key matches the node's full name
(``name:``, ``/ns/name:``, wildcards ``/**:`` = any namespaces, ``*`` = one name), as
``--params-file`` does; later entries win.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

import rclpy
import yaml
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter

__all__ = ['EXECUTABLES', 'BringupError', 'load_bringup', 'run_bringup', 'NodeSpec']


def _description_publisher() -> type[Node]:
    from .description_publisher import DescriptionPublisher
    return DescriptionPublisher


def _problem_server() -> type[Node]:
    from .problem_server import ProblemServer
    return ProblemServer


def _sim_controller() -> type[Node]:
    from .sim_controller import SimController
    return SimController


def _motion_player() -> type[Node]:
    from .motion_player import MotionPlayer
    return MotionPlayer


#: Executable name (as in setup.py console_scripts) -> node class factory.
EXECUTABLES: dict[str, Callable[[], type[Node]]] = {
    'description_publisher': _description_publisher,
    'problem_server': _problem_server,
    'sim_controller': _sim_controller,
    'motion_player': _motion_player,
}


class BringupError(Exception):
    """The bringup file is unusable; the message names the file and the problem."""


class NodeSpec:
    """One node to start: class, name, namespace, parameters, remappings."""

    def __init__(self, executable: str, name: str, namespace: str,
                 parameters: dict[str, Any], remappings: dict[str, str]) -> None:
        self.executable = executable
        self.name = name
        self.namespace = namespace
        self.parameters = parameters
        self.remappings = remappings

    def create(self) -> Node:
        node_class = EXECUTABLES[self.executable]()
        cli_args = ['--ros-args']
        for source, target in self.remappings.items():
            cli_args += ['-r', f'{source}:={target}']
        return node_class(node_name=self.name, namespace=self.namespace or None,
                          parameter_overrides=[Parameter(k, value=v)
                                               for k, v in self.parameters.items()],
                          cli_args=cli_args if len(cli_args) > 1 else None)


def _substitute(value: Any, base: Path) -> Any:
    if isinstance(value, str):
        value = value.replace('$(dirname)', str(base))

        def find(match: re.Match[str]) -> str:
            from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
            try:
                return get_package_share_directory(match.group(1))
            except PackageNotFoundError as err:
                raise BringupError(f'$(find {match.group(1)}): package not found') from err
        return re.sub(r'\$\(find ([A-Za-z0-9_]+)\)', find, value)
    if isinstance(value, list):
        return [_substitute(v, base) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, base) for k, v in value.items()}
    return value


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding='utf-8'))
    except OSError as err:
        raise BringupError(f'{path}: cannot read: {err.strerror or err}') from err
    except yaml.YAMLError as err:
        raise BringupError(f'{path}: not valid YAML: {err}') from err


def _params_from_file(path: Path, name: str, namespace: str) -> dict[str, Any]:
    document = _read_yaml(path)
    if not isinstance(document, dict):
        raise BringupError(f'{path}: a parameter file maps node names to ros__parameters')
    full_name = f'{namespace.rstrip("/")}/{name}'
    out: dict[str, Any] = {}
    for key, section in document.items():
        key = str(key)
        if not _section_matches(key, full_name):
            continue
        params = (section or {}).get('ros__parameters') if isinstance(section, dict) else None
        if not isinstance(params, dict):
            raise BringupError(f'{path}: section {key!r} has no ros__parameters mapping')
        out.update(_flatten(params))
    return out


def _section_matches(key: str, full_name: str) -> bool:
    """ROS parameter-file keys: ``/**`` any namespaces (or none), ``*`` one name, else exact.

    A key without a leading slash is a name relative to the root namespace (``name`` matches
    the node ``/name``).
    """
    pattern = key if key.startswith('/') else '/' + key
    regex = ''
    for part in pattern.split('/')[1:]:
        if part == '**':
            regex += '(/[^/]+)*'
        else:
            regex += '/' + '[^/]*'.join(re.escape(piece) for piece in part.split('*'))
    return re.fullmatch(regex, full_name) is not None


def _flatten(params: dict[str, Any], prefix: str = '') -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f'{prefix}{key}.'))
        else:
            out[f'{prefix}{key}'] = value
    return out


def load_bringup(path: str | Path) -> list[NodeSpec]:
    """Read a bringup file into node specifications (no ROS calls)."""
    path = Path(path).resolve()
    document = _read_yaml(path)
    if not isinstance(document, dict) or not isinstance(document.get('nodes'), list):
        raise BringupError(f'{path}: expected a mapping with a "nodes" list')
    base = path.parent
    specs = []
    for index, entry in enumerate(document['nodes']):
        if not isinstance(entry, dict) or 'executable' not in entry:
            raise BringupError(f'{path}: nodes[{index}] needs an "executable"')
        executable = str(entry['executable'])
        if executable not in EXECUTABLES:
            raise BringupError(f'{path}: nodes[{index}]: unknown executable {executable!r} '
                               f'(known: {", ".join(EXECUTABLES)})')
        name = str(entry.get('name') or executable)
        namespace = str(entry.get('namespace') or '').strip('/')
        namespace = f'/{namespace}' if namespace else ''
        parameters: dict[str, Any] = {}
        for item in entry.get('parameters') or []:
            item = _substitute(item, base)
            if isinstance(item, str):
                file = Path(item) if Path(item).is_absolute() else base / item
                parameters.update(_params_from_file(file, name, namespace))
            elif isinstance(item, dict):
                parameters.update(_flatten(item))
            else:
                raise BringupError(f'{path}: nodes[{index}].parameters: expected file paths '
                                   'or mappings')
        remappings = {str(k): str(v) for k, v in (entry.get('remappings') or {}).items()}
        specs.append(NodeSpec(executable, name, namespace, parameters, remappings))
    return specs


def run_bringup(path: str | Path, duration: float | None = None) -> int:
    """Start every node of the bringup file and spin them until Ctrl-C or ``duration``."""
    try:
        specs = load_bringup(path)
    except BringupError as err:
        print(f'robot-formats bringup: {err}', file=sys.stderr)
        return 1
    try:
        with rclpy.init():
            executor = SingleThreadedExecutor()
            nodes = []
            for spec in specs:
                try:
                    nodes.append(spec.create())
                except Exception as err:  # noqa: BLE001 - rclpy's parameter errors vary
                    print(f'robot-formats bringup: {path}: cannot start {spec.name!r}: '
                          f'{type(err).__name__}: {err}', file=sys.stderr)
                    return 1
            for node in nodes:
                executor.add_node(node)
            print(f'bringup: started {", ".join(n.get_fully_qualified_name() for n in nodes)}',
                  flush=True)
            deadline = time.monotonic() + duration if duration else None
            while rclpy.ok() and (deadline is None or time.monotonic() < deadline):
                executor.spin_once(timeout_sec=0.1)
            for node in nodes:
                node.destroy_node()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    return 0
