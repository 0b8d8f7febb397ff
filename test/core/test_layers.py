"""The package's shape (issue 16): no import cycle anywhere in robot_formats (imports inside
functions count: they are how cycles used to hide), no process-wide SDFormat configuration,
and loads that share nothing, so two loads in two threads give what each gives alone."""

from __future__ import annotations

import ast
import concurrent.futures
from pathlib import Path

import numpy as np

import robot_formats
from robot_formats.formats import sdformat

PACKAGE = Path(robot_formats.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix('').parts)
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def import_graph() -> dict[str, set[str]]:
    """Module → the robot_formats modules it imports, anywhere in its code."""
    files = {_module_name(path): path for path in PACKAGE.rglob('*.py')}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        package = name.split('.') if path.name == '__init__.py' else name.split('.')[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = (package[:len(package) - node.level + 1] if node.level else [])
                module = '.'.join(base + ([node.module] if node.module else []))
                targets = [f'{module}.{a.name}' if f'{module}.{a.name}' in files else module
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            graph[name].update(t for t in targets if t in files and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_anywhere() -> None:
    graph = import_graph()
    assert len(graph) > 60 and graph['robot_formats.formats']  # the graph is really built
    assert cycles(graph) == []


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}}) == [['a', 'b', 'c']]


#: What each layer (robot_formats/<layer>/) may import: a layer sees only those below it.
#: ``api`` is robot_formats/__init__.py (load, the errors); the CLI's ``tf-echo`` is a ROS client
#: like the nodes.
ALLOWED = {
    'core': {'core'},
    'formats': {'core', 'formats'},
    'runtime': {'core', 'formats', 'runtime'},
    'presentation': {'core', 'formats', 'runtime', 'presentation'},
    'nodes': {'core', 'formats', 'runtime', 'presentation', 'nodes'},
    'cli': {'api', 'core', 'formats', 'runtime', 'presentation', 'cli', 'nodes'},
    'api': {'core', 'formats'},
}


def _layer(module: str) -> str:
    parts = module.split('.')
    return parts[1] if len(parts) > 1 else 'api'


def test_every_layer_imports_only_the_layers_below() -> None:
    graph = import_graph()
    assert {_layer(name) for name in graph} == set(ALLOWED)  # every module is in a layer
    wrong = sorted(f'{name} -> {target}' for name, targets in graph.items()
                   for target in targets if _layer(target) not in ALLOWED[_layer(name)])
    assert wrong == []


def test_the_format_packages_read_nested_files_through_the_load_context() -> None:
    """No format imports the registry (robot_formats.formats itself) or the built-in list."""
    graph = import_graph()
    registry = {'robot_formats', 'robot_formats.formats', 'robot_formats.formats.builtin'}
    packages = [name for name in graph if len(name.split('.')) > 3
                and name.split('.')[1] == 'formats']
    assert len(packages) > 30  # urdf, sdformat, skel, hrdf, tmp and xmdi modules
    for name in packages:
        assert not graph[name] & registry, (name, graph[name] & registry)


def test_no_process_wide_sdformat_configuration() -> None:
    assert not hasattr(sdformat, 'set_default_config')
    assert not hasattr(sdformat, 'register_custom_model_parser')


def _world(tmp_path: Path, variant: str) -> tuple[Path, sdformat.ResolverConfig]:
    """A world including package://parts/arm.sdf, whose package differs per variant."""
    package = tmp_path / variant / 'parts'
    package.mkdir(parents=True)
    links = ''.join(f'<link name="l{i}"><pose>{i} 0 0 0 0 0</pose></link>'
                    for i in range(3 if variant == 'short' else 6))
    (package / 'arm.sdf').write_text(f'<sdf version="1.8"><model name="arm">{links}'
                                     '</model></sdf>')
    world = tmp_path / f'{variant}.sdf'
    world.write_text('<sdf version="1.8"><world name="w">'
                     + ''.join(f'<include><uri>package://parts/arm.sdf</uri><name>a{i}</name>'
                               f'<pose>0 {i} 0 0 0 0</pose></include>' for i in range(20))
                     + '</world></sdf>')
    return world, sdformat.ResolverConfig(package_map={'parts': package},
                                          use_environment=False)


def _frames(world: Path, config: sdformat.ResolverConfig) -> dict[str, np.ndarray]:
    return robot_formats.load(world, sdf_config=config).tree.forward()


def test_two_loads_in_two_threads_give_what_each_gives_alone(tmp_path: Path) -> None:
    """Same URI, different configurations, loaded at once many times: each load resolves
    through its own configuration only."""
    jobs = [_world(tmp_path, 'short'), _world(tmp_path, 'long')]
    alone = [_frames(*job) for job in jobs]
    assert len(alone[0]) != len(alone[1])
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futures = [(index, pool.submit(_frames, *jobs[index])) for index in [0, 1] * 12]
        for index, future in futures:
            got = future.result()
            assert got.keys() == alone[index].keys()
            assert all(np.array_equal(got[k], alone[index][k]) for k in got)
