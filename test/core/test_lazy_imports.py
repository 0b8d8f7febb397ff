"""What a start pays for (issue 28): ``import robot_formats`` imports nothing of the library
until a public name is used (PEP 562), and each ``robot-formats`` command imports what it uses,
nothing more. Each case runs in a fresh interpreter and reads ``sys.modules`` at its end: a
contract on what is imported, not a timing."""

from __future__ import annotations

import json

import pytest

import robot_formats
from rf_testlib import CORPUS, FIXTURES, run_cli

ATLAS = CORPUS / 'gazebosim_sdformat' / 'test' / 'performance' / 'parser_urdf_atlas.urdf'

#: Runs the command line given after ``-c CODE`` and prints the modules imported at its end.
CLI_MODULES = ('import json, sys\n'
               'from robot_formats.cli import main\n'
               'code = main(sys.argv[1:])\n'
               'print(json.dumps(sorted(sys.modules)))\n'
               'sys.exit(code)\n')

#: What only other commands, other formats or the nodes use (shutil, with bz2 and lzma: what
#: argparse imports to size help to the terminal, printed by no check that runs).
NOT_FOR_A_URDF_CHECK = (
    'numpy', 'rclpy', 'secrets', 'hashlib', 'shutil', 'bz2', 'lzma', 'robot_formats.nodes',
    'robot_formats.runtime',
    'robot_formats.presentation', 'robot_formats.core.xmlrepair',
    'robot_formats.formats.xacro_expansion', 'robot_formats.core.xacro_process',
    'robot_formats.formats.sdformat', 'robot_formats.formats.skel', 'robot_formats.formats.hrdf',
    'robot_formats.formats.tmp', 'robot_formats.formats.xmdi', 'robot_formats.cli.render',
    'robot_formats.cli.motion', 'robot_formats.cli.control', 'robot_formats.cli.tmp')


#: ``dir(robot_formats)`` after an eager import of the package (the list it showed).
EAGER_DIR = [
    'Diagnostic', 'FormatError', 'Joint', 'JointType', 'KinematicTree', 'Link', 'LoadResult',
    'Model', 'Pose', 'Scene', '__all__', '__builtins__', '__cached__', '__doc__', '__file__',
    '__loader__', '__name__', '__package__', '__path__', '__spec__', '__version__', 'core',
    'formats', 'load', 'load_text', 'read_problem', 'registered', 'urdf_string', 'write_urdf']


def _printed(code: str) -> object:
    """What a fresh interpreter running ``code`` prints last, as JSON."""
    run = run_cli(python_code=code)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1])


def _modules_after(code: str) -> list[str]:
    modules = _printed(code + '\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))')
    assert isinstance(modules, list)
    return modules


def _cli_modules(*args: object) -> tuple[int, list[str]]:
    run = run_cli(*args, python_code=CLI_MODULES)
    return run.returncode, json.loads(run.stdout.splitlines()[-1])


def _within(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + '.') for p in prefixes)]


def test_importing_the_package_imports_nothing_of_the_library() -> None:
    modules = _modules_after('import robot_formats')
    assert _within(modules, ('robot_formats',)) == ['robot_formats']
    assert _within(modules, ('numpy', 'lxml', 'dataclasses')) == []


def test_a_public_name_imports_its_module_when_first_used() -> None:
    modules = _modules_after('import robot_formats\nrobot_formats.Pose')
    assert 'robot_formats.core.model' in modules
    assert _within(modules, ('robot_formats.formats', 'robot_formats.core.kinematics',
                             'numpy', 'lxml')) == []


def test_dir_shows_what_an_eager_import_showed() -> None:
    before_and_after = ('import json, robot_formats\n'
                        'before = dir(robot_formats)\n'
                        'robot_formats.load, robot_formats.Pose\n'
                        'print(json.dumps([before, dir(robot_formats)]))')
    assert _printed(before_and_after) == [EAGER_DIR, EAGER_DIR]


def test_the_public_names_are_the_modules_names() -> None:
    from robot_formats.core.kinematics import KinematicTree
    from robot_formats.formats import load
    from robot_formats.formats.urdf import write_urdf
    assert robot_formats.KinematicTree is KinematicTree
    assert robot_formats.load is load and robot_formats.write_urdf is write_urdf
    assert robot_formats.formats.load is load
    namespace: dict[str, object] = {}
    exec('from robot_formats import *', namespace)  # noqa: S102 - the star import itself
    assert sorted(set(namespace) - {'__builtins__'}) == sorted(robot_formats.__all__)
    with pytest.raises(AttributeError, match="has no attribute 'nodes_of_nowhere'"):
        robot_formats.nodes_of_nowhere  # noqa: B018 - the attribute access is the test


def test_check_of_a_urdf_imports_only_what_it_uses() -> None:
    code, modules = _cli_modules('check', ATLAS)
    assert code == 0
    assert {'robot_formats.formats.urdf.reader', 'robot_formats.core.kinematics',
            'lxml.etree'} <= set(modules)
    assert _within(modules, NOT_FOR_A_URDF_CHECK) == []


@pytest.mark.parametrize('arguments', [('--version',), ('--help',), ('record', '--help')])
def test_the_command_line_itself_imports_no_format_and_no_model(arguments) -> None:
    """``--version`` and ``--help`` import no reader; the ROS 2 programs (``record``,
    ``tf-echo``) replace the process before anything of a load is imported."""
    python = ('import json, os, sys\n'
              'os.execv = lambda *args: (print(json.dumps(sorted(sys.modules))), sys.exit(0))\n'
              'from robot_formats.cli import main\n'
              'try:\n'
              '    main(sys.argv[1:])\n'
              'except SystemExit:\n'
              '    pass\n'
              'print(json.dumps(sorted(sys.modules)))\n')
    run = run_cli(*arguments, python_code=python)
    assert run.returncode == 0, run.stderr
    modules = json.loads(run.stdout.splitlines()[-1])
    assert 'robot_formats.cli' in modules
    assert _within(modules, ('robot_formats.formats', 'robot_formats.core.model',
                             'robot_formats.core.kinematics', 'robot_formats.nodes', 'lxml',
                             'numpy', 'rclpy')) == []


def test_the_xacro_process_imports_xacro_and_the_guarded_reader_only(tmp_path) -> None:
    """The child expanding a ``.xacro`` file (run as the parent runs it, ``-m``) imports no
    format, no model and no XML parser of robot_formats: its start is xacro's."""
    request = json.dumps({'path': str(FIXTURES / 'xacro' / 'two_link.urdf.xacro'),
                          'arguments': {}, 'cpu_seconds': 10, 'memory_bytes': 512 << 20,
                          'max_bytes': 1 << 20})
    (tmp_path / 'request.json').write_text(request)
    python = ('import atexit, json, runpy, sys\n'
              'sys.stdin = open(sys.argv[1])\n'
              'atexit.register(lambda: print(json.dumps(sorted(sys.modules)), '
              'file=sys.__stderr__))\n'
              "runpy.run_module('robot_formats.core.xacro_process', run_name='__main__')\n")
    run = run_cli(tmp_path / 'request.json', python_code=python)
    assert run.returncode == 0, run.stderr
    assert '<robot' in run.stdout
    modules = json.loads(run.stderr.splitlines()[-1])
    assert {'xacro', 'yaml', 'robot_formats.core.files'} <= set(modules)
    assert _within(modules, ('robot_formats.formats', 'robot_formats.core.model',
                             'robot_formats.core.kinematics', 'robot_formats.core.xmlsafe',
                             'lxml', 'numpy')) == []
