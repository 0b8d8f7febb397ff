"""The process that expands one ``.xacro`` file (``python -m robot_formats.core.xacro_process``),
started by :func:`robot_formats.formats.xacro_expansion.expand_xacro`, which gives it its budget
and turns what it reports into errors.

It reads a request on stdin (JSON: ``path``, ``arguments``, and the budget: ``cpu_seconds``,
``memory_bytes``, ``max_bytes``), limits itself, expands the file with the xacro package and
writes the document on stdout (exit 0); xacro's refusal is one line on stderr (exit 1), a
budget overrun an exit code of its own (:data:`EXIT_MEMORY`, :data:`EXIT_TOO_LARGE`). Every file
xacro opens goes through the guarded reader (:func:`robot_formats.core.files.read_input`), and
``load_yaml`` reads only YAML files of the document's package or of a ROS package's share
folder (:func:`yaml_refusal`).

It imports xacro, yaml and the guarded reader, nothing else of robot_formats: the expansion's
cost is xacro's, not a load's.
"""

from __future__ import annotations

import io
import json
import os
import resource
import sys
from pathlib import Path

from robot_formats.core.errors import one_line
from robot_formats.core.files import read_input

__all__ = ['EXIT_MEMORY', 'EXIT_TOO_LARGE', 'YAML_SUFFIXES', 'yaml_roots', 'yaml_refusal']

#: The exit codes besides 0 (expanded, the document on stdout) and 1 (refused, the sentence on
#: stderr): out of memory, and an expansion larger than ``max_bytes`` (its size on stderr).
EXIT_MEMORY, EXIT_TOO_LARGE = 4, 5


class _LastWords(io.TextIOBase):
    """Where xacro's messages to stderr go in the child: kept short (a document can print
    without end), never shown; the child's own last line says what happened."""

    def __init__(self) -> None:
        self.text = ''

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.text = (self.text + text)[-2000:]
        return len(text)


def _limit_self(cpu_seconds: int, memory_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 2))
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


YAML_SUFFIXES = ('.yaml', '.yml')


def yaml_roots(document: Path, prefixes: str) -> list[Path]:
    """The folders load_yaml may read in (absolute, ``..`` folded): the package holding
    ``document`` (its nearest folder with a package.xml, else its folder) and
    ``<prefix>/share`` of every prefix of ``prefixes`` (AMENT_PREFIX_PATH: where
    ``$(find pkg)`` points)."""
    folder = Path(os.path.abspath(document)).parent
    package = next((f for f in (folder, *folder.parents) if (f / 'package.xml').is_file()),
                   folder)
    return [package] + [Path(os.path.abspath(Path(prefix, 'share')))
                        for prefix in prefixes.split(os.pathsep) if prefix]


def yaml_refusal(name: str, roots: list[Path]) -> str | None:
    """Why load_yaml may not read ``name``, or None (see :func:`yaml_roots`). The folders are
    compared by name, ``..`` folded (a colcon --symlink-install share folder links its files
    to the sources); the file a link leads to must be a YAML file too, so a link planted in a
    package cannot reach /etc/shadow."""
    path = Path(os.path.abspath(name))
    if not all(p.suffix.lower() in YAML_SUFFIXES for p in (path, path.resolve())):
        return f'load_yaml: {name} is no .yaml or .yml file'
    if not any(path.is_relative_to(root) for root in roots):
        return (f"load_yaml: {name} is outside the document's package and the ROS packages' "
                'share folders, where load_yaml reads')
    return None


def _guard_xacro(xacro, yaml, document: Path, max_bytes: int) -> None:
    """Route xacro's file reads through the guarded reader (at most ``max_bytes`` each) and
    check what load_yaml reads (this process exists for this one expansion, so its modules may
    be adjusted)."""
    safe_load = yaml.safe_load
    roots = yaml_roots(document, os.environ.get('AMENT_PREFIX_PATH', ''))

    def guarded_open(name, mode='r', *args, **kwargs):  # xacro opens files only to read them
        stream = io.BytesIO(read_input(name, max_bytes))
        stream.name = os.fspath(name)
        return stream

    def checked_yaml(stream):
        name = getattr(stream, 'name', 'the file')
        refusal = yaml_refusal(name, roots)
        if refusal:
            raise xacro.XacroException(refusal)
        try:
            document = safe_load(stream)
        except yaml.YAMLError as err:
            mark = getattr(err, 'problem_mark', None)
            where = f' (line {mark.line + 1})' if mark is not None else ''
            raise xacro.XacroException(f'load_yaml: {name} is not valid YAML{where}') from None
        if not isinstance(document, (dict, list)):
            raise xacro.XacroException(f'load_yaml: {name} holds no YAML mapping or list')
        return document

    xacro.open = guarded_open
    yaml.safe_load = checked_yaml


def _caused_by(err: BaseException | None, kind: type[BaseException]) -> bool:
    """Whether ``err`` is, wraps (XacroException.exc) or was caused by a ``kind``."""
    seen = 0
    while err is not None and seen < 100:
        if isinstance(err, kind):
            return True
        err = getattr(err, 'exc', None) or err.__cause__ or err.__context__
        seen += 1
    return False


def _main() -> int:
    """Expand the file the request on stdin names; the document on stdout, exit 0."""
    request = json.loads(sys.stdin.buffer.read())
    _limit_self(request['cpu_seconds'], request['memory_bytes'])
    sys.stderr, stderr = _LastWords(), sys.stderr
    try:
        try:
            import xacro
            import yaml
        except ImportError:
            print('UNSUPPORTED xacro files need the xacro package (pip install xacro, or the ROS '
                  'package xacro)', file=stderr)
            return 1
        _guard_xacro(xacro, yaml, Path(request['path']), request['max_bytes'])
        document = xacro.process_file(request['path'], mappings=request['arguments'])
        data = document.toprettyxml(indent='  ').encode('utf-8')  # as xacro's command line
    except Exception as err:  # noqa: BLE001 - xacro raises many kinds; all are the file's
        if _caused_by(err, MemoryError):  # (xacro wraps what an expression raises)
            return EXIT_MEMORY
        if _caused_by(err, RecursionError):
            print('the macros call each other without end (recursion too deep)', file=stderr)
            return 1
        print(one_line(str(err)) or type(err).__name__, file=stderr)
        return 1
    if len(data) > request['max_bytes']:
        print(len(data), file=stderr)
        return EXIT_TOO_LARGE
    sys.stdout.buffer.write(data)
    return 0


if __name__ == '__main__':
    sys.exit(_main())
