"""Static checks of launch files and bringup YAML files against the nodes they start.

launch_ros cannot be imported here, so launch files are read as Python syntax trees; nodes are
read the same way: what a node accepts is what its source declares (``declare_parameter`` calls,
the names given to ``create_publisher``/``create_subscription``/``create_service``/
``create_client``/``ActionServer``/``ActionClient``), in its console-script module and the
``robot_formats.nodes`` modules that module imports. Names built at run time (f-strings) cannot
be checked, so launch and bringup files must not remap them.

Every function returns a list of problems (sentences); an empty list means consistent.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
NODES = ROOT / 'robot_formats' / 'nodes'
#: Executables of other packages the launch files may start, and what is known about them.
EXTERNAL_EXECUTABLES = {('rviz2', 'rviz2')}
#: (call name, index of the positional name argument, keyword of the name argument)
_NAMED_ENDPOINTS = {
    'create_publisher': (1, 'topic'), 'create_subscription': (1, 'topic'),
    'create_service': (1, 'srv_name'), 'create_client': (1, 'srv_name'),
    'ActionServer': (2, 'action_name'), 'ActionClient': (2, 'action_name'),
}


@dataclass
class NodeInterface:
    """What one node's source declares."""

    module: str
    parameters: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)   #: topics, services, actions
    #: names built at run time (f-strings), as regular expressions: ``f'{name}/x'`` -> ``.+/x``
    patterns: set[str] = field(default_factory=set)

    def publishes(self, topic: str, node_name: str) -> bool:
        """Whether ``topic`` (absolute) is one of this node's names once resolved for a node
        called ``node_name`` (absolute) in the root namespace."""
        def absolute(name: str) -> str:
            if name.startswith('~'):
                return node_name + name[1:]
            return name if name.startswith('/') else '/' + name
        return (any(absolute(n) == topic for n in self.names)
                or any(re.fullmatch(absolute(p), topic) for p in self.patterns))


# --- nodes ------------------------------------------------------------------------------------

def console_scripts(setup_py: Path = ROOT / 'setup.py') -> dict[str, str]:
    """``name -> module`` of the console_scripts in setup.py (read, not executed)."""
    tree = ast.parse(setup_py.read_text(encoding='utf-8'))
    scripts: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == 'console_scripts':
                    for item in getattr(value, 'elts', []):
                        name, _, target = str(ast.literal_eval(item)).partition('=')
                        scripts[name.strip()] = target.strip().partition(':')[0]
    return scripts


def _module_file(module: str) -> Path:
    return ROOT.joinpath(*module.split('.')).with_suffix('.py')


def _string_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = 'text'`` assignments, so ``declare_parameter(NAME, ...)`` resolves."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = node.value.value
    return out


def _text(node: ast.AST | None, constants: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, 'id', '')


def _argument(call: ast.Call, index: int, keyword: str) -> ast.AST | None:
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _imported_node_modules(tree: ast.Module, module: str) -> set[str]:
    """``robot_formats.nodes`` modules imported by a node module (absolute or relative)."""
    package = module.rsplit('.', 1)[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parts = package.split('.')[:len(package.split('.')) - node.level + 1]
                base = '.'.join(parts + ([base] if base else []))
            candidates = [base] + [f'{base}.{alias.name}' for alias in node.names]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found.update(c for c in candidates
                     if c.startswith('robot_formats.nodes.') and _module_file(c).is_file())
    return found


def node_interface(module: str) -> NodeInterface:
    """Parameters and endpoint names declared by ``module`` and the helper modules of
    ``robot_formats.nodes`` it imports (not other nodes' modules it borrows constants from)."""
    interface = NodeInterface(module)
    other_nodes = set(console_scripts().values()) - {module}
    pending, seen = [module], set(other_nodes)
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        tree = ast.parse(_module_file(current).read_text(encoding='utf-8'))
        constants = _string_constants(tree)
        aliases = _method_aliases(tree)
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            name = _call_name(call)
            name = aliases.get(name, name) if isinstance(call.func, ast.Name) else name
            if name == 'declare_parameter':
                text = _text(_argument(call, 0, 'name'), constants)
                if text:
                    interface.parameters.add(text)
            elif name == 'declare_parameters':
                _add_declared_group(call, constants, interface)
            elif name in _NAMED_ENDPOINTS:
                index, keyword = _NAMED_ENDPOINTS[name]
                argument = _argument(call, index, keyword)
                text = _text(argument, constants)
                if text:
                    interface.names.add(text)
                elif isinstance(argument, ast.JoinedStr):
                    interface.patterns.add(_pattern(argument))
        pending.extend(_imported_node_modules(tree, current) - seen)
    return interface


def _pattern(joined: ast.JoinedStr) -> str:
    """A regular expression for an f-string name: literal parts kept, each ``{...}`` any text."""
    return ''.join(re.escape(part.value) if isinstance(part, ast.Constant) else '.+'
                   for part in joined.values)


def _method_aliases(tree: ast.Module) -> dict[str, str]:
    """Local names bound to a method: ``declare = self.declare_parameter`` -> declare_parameter."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    aliases[target.id] = node.value.attr
    return aliases


def _add_declared_group(call: ast.Call, constants: dict[str, str],
                        interface: NodeInterface) -> None:
    namespace = _text(_argument(call, 0, 'namespace'), constants) or ''
    group = _argument(call, 1, 'parameters')
    for item in getattr(group, 'elts', []):
        first = item.elts[0] if isinstance(item, ast.Tuple) and item.elts else None
        text = _text(first, constants)
        if text:
            interface.parameters.add(f'{namespace}.{text}' if namespace else text)


def _name_known(name: str, names: set[str]) -> bool:
    return name in names or name.lstrip('/') in {n.lstrip('/') for n in names
                                                 if not n.startswith('~')}


# --- parameter files --------------------------------------------------------------------------

def section_matches(key: str, full_name: str) -> bool:
    """ROS parameter-file key matching (``/**``, ``*``), as ``--params-file`` does."""
    from robot_formats.nodes.bringup import _section_matches
    return _section_matches(key, full_name)


def flatten(params: dict[str, Any], prefix: str = '') -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, dict):
            out.update(flatten(value, f'{prefix}{key}.'))
        else:
            out[f'{prefix}{key}'] = value
    return out


def parameter_file_problems(path: Path, full_name: str, interface: NodeInterface,
                            where: str) -> list[str]:
    """The file must exist, have a section for the node, and set only declared parameters."""
    if not path.is_file():
        return [f'{where}: parameter file {path} does not exist']
    document = yaml.safe_load(path.read_text(encoding='utf-8')) or {}
    problems, matched = [], False
    for key, section in document.items():
        if not section_matches(str(key), full_name):
            continue
        matched = True
        params = (section or {}).get('ros__parameters') or {}
        for name in flatten(params):
            if name not in interface.parameters:
                problems.append(f'{where}: {path.name} sets {name!r}, which {full_name} '
                                f'({interface.module}) does not declare')
    if not matched:
        problems.append(f'{where}: {path.name} has no section for node {full_name}')
    return problems


# --- launch files -----------------------------------------------------------------------------

@dataclass
class LaunchNode:
    package: str | None
    executable: str | None
    name: str | None
    namespace: str | None
    parameter_keys: list[str]
    parameter_files: list[Path]
    remappings: list[str]
    line: int


def _share_path(node: ast.AST) -> Path | None:
    """``PathJoinSubstitution([share, 'config', 'x.yaml'])`` -> ROOT/config/x.yaml."""
    if isinstance(node, ast.Call) and _call_name(node) == 'PathJoinSubstitution' and node.args:
        parts = [e.value for e in getattr(node.args[0], 'elts', [])
                 if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return ROOT.joinpath(*parts) if parts else None
    return None


def launch_nodes(tree: ast.Module) -> list[LaunchNode]:
    nodes = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        if _call_name(call) != 'Node':
            continue
        kwargs = {k.arg: k.value for k in call.keywords}
        keys, files = [], []
        for item in getattr(kwargs.get('parameters'), 'elts', []):
            if isinstance(item, ast.Dict):
                keys += [k.value for k in item.keys if isinstance(k, ast.Constant)]
            elif _share_path(item) is not None:
                files.append(_share_path(item))
        remappings = []
        for item in getattr(kwargs.get('remappings'), 'elts', []):
            if isinstance(item, ast.Tuple) and item.elts:
                remappings.append(_text(item.elts[0], {}) or '<computed>')
        nodes.append(LaunchNode(*(_text(kwargs.get(k), {}) for k in
                                  ('package', 'executable', 'name', 'namespace')),
                                keys, files, remappings, call.lineno))
    return nodes


def launch_file_problems(path: Path, scripts: dict[str, str] | None = None) -> list[str]:
    """Everything a launch file starts exists and accepts what the file gives it; every
    launch argument is declared, used, and documented in the module docstring."""
    scripts = console_scripts() if scripts is None else scripts
    tree = ast.parse(path.read_text(encoding='utf-8'))
    problems = _argument_problems(tree, path)
    nodes = launch_nodes(tree)
    if not nodes:
        problems.append(f'{path.name}: starts no Node')
    for node in nodes:
        where = f'{path.name}:{node.line}'
        if node.package != 'robot_formats':
            if (node.package, node.executable) not in EXTERNAL_EXECUTABLES:
                problems.append(f'{where}: unknown executable {node.package}/{node.executable}')
            continue
        if node.executable not in scripts:
            problems.append(f'{where}: robot_formats has no executable {node.executable!r} '
                            f'(setup.py console_scripts: {", ".join(sorted(scripts))})')
            continue
        interface = node_interface(scripts[node.executable])
        problems += _node_problems(where, node.name or node.executable, node.namespace or '',
                                   node.parameter_keys, node.remappings, interface)
        full_name = f'/{node.namespace.strip("/")}/' if node.namespace else '/'
        for file in node.parameter_files:
            problems += parameter_file_problems(file, full_name + (node.name or node.executable),
                                                interface, where)
    return problems


def _node_problems(where: str, name: str, namespace: str, parameters, remappings,
                   interface: NodeInterface) -> list[str]:
    problems = []
    for key in parameters:
        if key not in interface.parameters:
            problems.append(f'{where}: node {name!r} gets parameter {key!r}, which '
                            f'{interface.module} does not declare '
                            f'(declared: {", ".join(sorted(interface.parameters))})')
    for source in remappings:
        if not _name_known(source, interface.names):
            problems.append(f'{where}: node {name!r} remaps {source!r}, which is not a topic, '
                            f'service or action of {interface.module} '
                            f'(known: {", ".join(sorted(interface.names))})')
    return problems


def _argument_problems(tree: ast.Module, path: Path) -> list[str]:
    declared, used = set(), set()
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        text = _text(call.args[0], {}) if call.args else None
        if _call_name(call) == 'DeclareLaunchArgument' and text:
            declared.add(text)
        elif _call_name(call) == 'LaunchConfiguration' and text:
            used.add(text)
    docstring = ast.get_docstring(tree) or ''
    problems = [f'{path.name}: LaunchConfiguration({name!r}) is never declared'
                for name in sorted(used - declared)]
    problems += [f'{path.name}: launch argument {name!r} is declared but never used'
                 for name in sorted(declared - used)]
    problems += [f'{path.name}: launch argument {name!r} is not documented in the docstring'
                 for name in sorted(declared)
                 if not re.search(rf'^\s+{re.escape(name)}\s', docstring, re.M)]
    if 'generate_launch_description' not in {f.name for f in tree.body
                                             if isinstance(f, ast.FunctionDef)}:
        problems.append(f'{path.name}: no generate_launch_description()')
    return problems


# --- bringup files ----------------------------------------------------------------------------

def is_bringup_file(path: Path) -> bool:
    document = yaml.safe_load(path.read_text(encoding='utf-8'))
    return isinstance(document, dict) and isinstance(document.get('nodes'), list)


def bringup_file_problems(path: Path, scripts: dict[str, str] | None = None) -> list[str]:
    """Read with the real bringup loader; then every node's executable, parameters (from files
    and inline) and remappings must exist in the node it starts."""
    from robot_formats.nodes.bringup import EXECUTABLES, BringupError, load_bringup
    scripts = console_scripts() if scripts is None else scripts
    try:
        specs = load_bringup(path)
    except BringupError as err:
        return [str(err)]
    problems = []
    for index, spec in enumerate(specs):
        where = f'{path.name}: nodes[{index}]'
        if spec.executable not in scripts:
            problems.append(f'{where}: {spec.executable!r} is not a console script of setup.py')
            continue
        class_module = EXECUTABLES[spec.executable]().__module__
        if class_module != scripts[spec.executable]:
            problems.append(f'{where}: bringup starts {class_module} but the console script '
                            f'{spec.executable!r} runs {scripts[spec.executable]}')
        interface = node_interface(scripts[spec.executable])
        problems += _node_problems(where, spec.name, spec.namespace, list(spec.parameters),
                                   list(spec.remappings), interface)
        problems += _inline_file_sections(path, index, spec, interface)
    return problems


def _inline_file_sections(path: Path, index: int, spec, interface: NodeInterface) -> list[str]:
    """Parameter files named in the bringup entry must have a section for the node (a file
    whose keys match nothing is silently ignored by ROS: almost always a typo)."""
    document = yaml.safe_load(path.read_text(encoding='utf-8'))
    entry = document['nodes'][index]
    problems = []
    full_name = f'{spec.namespace}/{spec.name}'
    for item in entry.get('parameters') or []:
        if isinstance(item, str) and '$(find' not in item:
            file = Path(item.replace('$(dirname)', str(path.parent)))
            file = file if file.is_absolute() else path.parent / file
            problems += [p for p in parameter_file_problems(file, full_name, interface,
                                                            f'{path.name}: nodes[{index}]')
                         if 'has no section' in p or 'does not exist' in p]
    return problems
