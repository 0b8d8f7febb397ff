"""The package's shape (issues 16 and 28): no import cycle anywhere in robot_formats (imports
inside functions count: they are how cycles used to hide), each layer importing only the layers
below it, one format importing another only through an interface docs/adding-a-format.md
documents, no process-wide SDFormat configuration, and loads that share nothing, so two loads in
two threads give what each gives alone.

An import is an import statement, or a string naming a module of the package
(``'robot_formats.x.y'`` or ``'robot_formats.x.y:function'``): what ``importlib.import_module``
and ``__import__`` are given, and the tables of lazily imported functions (the CLI's command
table). A module given after ``'-m'`` in a list or tuple (``('-m', 'robot_formats.nodes.x')``)
is a program the module runs, in its own process: not an import (:func:`programs_run`)."""

from __future__ import annotations

import ast
import concurrent.futures
import re
from pathlib import Path
from typing import Container

import numpy as np

import robot_formats
from robot_formats.formats import sdformat

PACKAGE = Path(robot_formats.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix('').parts)
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


#: A module of the package named in a string: dotted, or with a ``:function`` (the bare word
#: robot_formats is the package's name, e.g. of its share directory)
_MODULE_STRING = re.compile(r'robot_formats(?:(?:\.\w+)+(?::\w+)?|:\w+)')


def _files() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob('*.py')}


def _string_targets(tree: ast.AST) -> tuple[list[str], list[str]]:
    """(every string naming a module, with ``:function`` cut off; those after a ``'-m'`` in a
    list or tuple: programs run, not imports)."""
    programs = {id(item) for node in ast.walk(tree) if isinstance(node, (ast.List, ast.Tuple))
                for flag, item in zip(node.elts, node.elts[1:])
                if isinstance(flag, ast.Constant) and flag.value == '-m'}
    named, run = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and _MODULE_STRING.fullmatch(node.value):
            (run if id(node) in programs else named).append(node.value.partition(':')[0])
    return named, run


def module_imports(source: str, package: list[str], files: Container[str]
                   ) -> tuple[set[str], set[str]]:
    """(the package modules a module's ``source`` imports, the ones it runs as programs).
    ``package``: the module's package, for relative imports; ``files``: the module names."""
    tree = ast.parse(source)
    targets: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = (package[:len(package) - node.level + 1] if node.level else [])
            module = '.'.join(base + ([node.module] if node.module else []))
            targets += [f'{module}.{a.name}' if f'{module}.{a.name}' in files else module
                        for a in node.names]
        elif isinstance(node, ast.Import):
            targets += [a.name for a in node.names]
    named, run = _string_targets(tree)
    return ({t for t in targets + named if t in files}, {t for t in run if t in files})


def _graphs() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    files = _files()
    imports: dict[str, set[str]] = {}
    runs: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name.split('.') if path.name == '__init__.py' else name.split('.')[:-1]
        imported, run = module_imports(path.read_text(encoding='utf-8'), package, files)
        imports[name], runs[name] = imported - {name}, run
    return imports, runs


def import_graph() -> dict[str, set[str]]:
    """Module → the robot_formats modules it imports, anywhere in its code."""
    return _graphs()[0]


def programs_run() -> dict[str, set[str]]:
    """Module → the robot_formats modules it runs as programs (``python -m MODULE``)."""
    return _graphs()[1]


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
#: ``api`` is robot_formats/__init__.py (load, the errors). README.md's Layout draws the same.
ALLOWED = {
    'core': {'core'},
    'formats': {'core', 'formats'},
    'runtime': {'core', 'formats', 'runtime'},
    'presentation': {'core', 'formats', 'runtime', 'presentation'},
    'nodes': {'core', 'formats', 'runtime', 'presentation', 'nodes'},
    'cli': {'api', 'core', 'formats', 'runtime', 'presentation', 'cli'},
    'api': {'core', 'formats'},
}
#: Which layer may run which layer's modules as programs: the CLI's ROS 2 clients (``record``,
#: ``tf-echo``) are programs of the nodes layer, run in the CLI's place; the formats expand a
#: ``.xacro`` file in a process of the core (core.xacro_process), which imports no format.
RUNS = {'cli': {'nodes'}, 'formats': {'core'}}


def _layer(module: str) -> str:
    parts = module.split('.')
    return parts[1] if len(parts) > 1 else 'api'


def test_every_layer_imports_only_the_layers_below() -> None:
    graph = import_graph()
    assert {_layer(name) for name in graph} == set(ALLOWED)  # every module is in a layer
    wrong = sorted(f'{name} -> {target}' for name, targets in graph.items()
                   for target in targets if _layer(target) not in ALLOWED[_layer(name)])
    assert wrong == []


def test_the_cli_imports_nothing_of_the_nodes_and_runs_their_programs() -> None:
    """The CLI's ROS 2 clients run as programs; each program the CLI runs is a module of a
    layer it may run, with a ``__main__`` block."""
    runs = programs_run()
    run = {target for targets in runs.values() for target in targets}
    assert run >= {'robot_formats.nodes.record', 'robot_formats.nodes.tf_echo'}, runs
    wrong = sorted(f'{name} runs {target}' for name, targets in runs.items() for target in targets
                   if _layer(target) not in RUNS.get(_layer(name), set()))
    assert wrong == []
    files = _files()
    for target in run:
        assert "if __name__ == '__main__':" in files[target].read_text(encoding='utf-8'), target


def test_strings_naming_modules_are_imports() -> None:
    """The reader of imports sees import_module, __import__ and lazy tables, and tells the
    argument of ``-m`` apart."""
    files = {'robot_formats', 'robot_formats.a', 'robot_formats.b', 'robot_formats.c',
             'robot_formats.d', 'robot_formats.e'}
    source = ('import importlib\n'
              'def f():\n'
              "    importlib.import_module('robot_formats.a')\n"
              "    __import__('robot_formats.b')\n"
              "TABLE = {'x': ('help', 'robot_formats.c:function')}\n"
              "PROGRAM = ('-m', 'robot_formats.d')\n"
              "NOT_A_MODULE = ('robot_formats.a and more words', 'robot_formats')\n"
              'from robot_formats import e\n')
    imported, run = module_imports(source, ['robot_formats'], files)
    assert imported == {'robot_formats.a', 'robot_formats.b', 'robot_formats.c',
                        'robot_formats.e'}
    assert run == {'robot_formats.d'}


#: The format packages (robot_formats/formats/<name>/).
FORMATS = sorted(path.name for path in (PACKAGE / 'formats').iterdir()
                 if (path / '__init__.py').is_file())
#: The interfaces through which one format imports another, documented in
#: docs/adding-a-format.md ("One format and another"): (importing format, imported module) ->
#: why. Everything else one format needs of another goes through the LoadContext
#: (``context.load_nested``): an SDFormat world including URDF, SKEL or HRDF files, a TMP
#: problem loading its robots in any format, import no other format.
FORMAT_INTERFACES = {
    ('xmdi', 'robot_formats.formats.urdf.reader'):
        "a motion is checked against the robot it plays on, which a node receives as URDF "
        "text (robot_description): RobotJoints.from_urdf_text reads it with the URDF reader",
}


def _format_of(module: str) -> str | None:
    parts = module.split('.')
    return parts[2] if len(parts) > 2 and parts[1] == 'formats' and parts[2] in FORMATS \
        else None


def format_edges() -> set[tuple[str, str]]:
    """(importing format, imported module) of every import from one format package into
    another."""
    edges = set()
    for name, targets in import_graph().items():
        importer = _format_of(name)
        for target in targets:
            imported = _format_of(target)
            if importer and imported and imported != importer:
                edges.add((importer, target))
    return edges


def test_a_format_imports_another_only_through_a_documented_interface() -> None:
    assert {'urdf', 'sdformat', 'skel', 'hrdf', 'tmp', 'xmdi'} <= set(FORMATS), FORMATS
    undocumented = sorted(format_edges() - set(FORMAT_INTERFACES))
    assert undocumented == [], ('a format imports another: load the file through the '
                                'LoadContext, or document the interface in FORMAT_INTERFACES '
                                'and docs/adding-a-format.md')


def test_every_documented_format_interface_is_in_use() -> None:
    """A row no import needs any more goes (and its line in docs/adding-a-format.md)."""
    assert sorted(set(FORMAT_INTERFACES) - format_edges()) == []


def test_the_documented_interfaces_are_the_docs_list() -> None:
    text = (PACKAGE.parent / 'docs' / 'adding-a-format.md').read_text(encoding='utf-8')
    section = text.split('## One format and another', 1)[1].split('\n## ', 1)[0]
    for importer, module in FORMAT_INTERFACES:
        assert f'`{importer}` → `{module}`' in section, (importer, module)
    assert section.count(' → `robot_formats.') == len(FORMAT_INTERFACES)


def test_the_registry_imports_every_format() -> None:
    """Every format package is reached from the built-in list (no format is drawn apart
    because its reader is imported in a way the graph does not see)."""
    reached = {_format_of(target) for target in import_graph()['robot_formats.formats.builtin']}
    assert reached >= set(FORMATS), sorted(set(FORMATS) - reached)


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
