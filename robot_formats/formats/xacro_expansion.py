"""Expanding a ``.xacro`` file as ROS users do (the xacro package), where it can be stopped.

xacro evaluates the document's Python expressions (``${9**9**9}`` never ends; a property that
doubles itself forty times fills any memory), reads whatever files the document names
(``xacro:include``, ``xacro.load_yaml``) and keeps its state in module globals. So it runs in a
child process of its own (this module run as ``python -m``), which the parent can stop:

* a processor-time budget (:data:`XACRO_CPU_SECONDS`) and a wall-clock bound
  (:data:`XACRO_WALL_SECONDS`, for a child that waits), an address-space cap
  (:data:`XACRO_MEMORY_BYTES`), and the expansion's size (``core.xmlsafe.MAX_XML_BYTES``);
* every file xacro opens goes through the guarded reader
  (:func:`robot_formats.core.files.read_input`: regular files only, bounded), so a FIFO or
  ``/dev/zero`` in an include is refused, not waited on;
* ``load_yaml`` reads what robot descriptions load (joint limits, calibrations): a ``.yaml`` or
  ``.yml`` file inside the package that holds the document (its nearest folder with a
  ``package.xml``, else the document's folder) or inside a ROS package's share folder (what
  ``$(find pkg)`` names), holding a YAML mapping or list. Anything else is refused without
  quoting it: what load_yaml reads becomes part of the document, and messages quote the
  document, so ``load_yaml('/etc/shadow')`` (whose lines YAML reads as a mapping) must never
  be read.

What xacro refuses, and every limit, is a :class:`~robot_formats.core.errors.FormatError` naming
the ``.xacro`` file (xacro's sentence, one line), or a
:class:`~robot_formats.core.errors.LimitError` for a budget.
"""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Mapping

from robot_formats.core.errors import LimitError, UnsupportedError, XacroError, one_line

__all__ = ['expand_xacro', 'XACRO_CPU_SECONDS', 'XACRO_WALL_SECONDS', 'XACRO_MEMORY_BYTES']

#: Processor time one expansion may use. Real descriptions expand in well under a second.
XACRO_CPU_SECONDS = 10
#: Wall-clock time one expansion may take (a loaded machine shares its processors).
XACRO_WALL_SECONDS = 60
#: Address space of the expanding process (the interpreter and xacro take ~60 MB of it).
XACRO_MEMORY_BYTES = 512 << 20
#: The child's exit codes besides 0 (expanded, the document on stdout) and 1 (refused, the
#: sentence on stderr).
_EXIT_MEMORY, _EXIT_TOO_LARGE = 4, 5


def expand_xacro(path: Path, arguments: Mapping[str, str] | None = None) -> bytes:
    """The document a ``.xacro`` file expands to: the text ``xacro FILE name:=value ...``
    prints (UTF-8), which is what a launch file's ``Command(['xacro ', FILE])`` hands
    robot_state_publisher.

    Raises:
        XacroError: xacro refuses the file (its sentence), or it cannot be read.
        LimitError: the expansion goes beyond its time, memory or size budget.
        UnsupportedError: the xacro package is not installed.
    """
    request = json.dumps({'path': os.fspath(path), 'arguments': dict(arguments or {})})
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p and
                                                      os.path.isdir(p)))
    try:
        child = subprocess.run([sys.executable, '-m', __name__], input=request.encode(),
                               capture_output=True, timeout=XACRO_WALL_SECONDS, env=env,
                               check=False)
    except subprocess.TimeoutExpired:
        raise LimitError(f'xacro did not finish within {XACRO_WALL_SECONDS} s, the limit',
                         str(path)) from None
    if child.returncode == 0:
        return child.stdout
    raise _failure(child.returncode, child.stderr, str(path))


def _failure(code: int, stderr: bytes, path: str) -> Exception:
    """The error for a child that did not expand the file."""
    said = stderr.decode('utf-8', 'replace').strip().splitlines()
    message = one_line(said[-1]) if said else ''
    if code == 1 and message.startswith('UNSUPPORTED '):
        return UnsupportedError(message.partition(' ')[2], path)
    if code == 1:
        return XacroError(f'xacro could not expand the file: {message}', path)
    if code == _EXIT_TOO_LARGE:
        return LimitError(f'xacro expands the file to {message} bytes; the limit is '
                          f'{_max_document_bytes()} bytes', path)
    if code == _EXIT_MEMORY or code == -signal.SIGSEGV:
        return LimitError(f'xacro needs more than {XACRO_MEMORY_BYTES >> 20} MiB of memory to '
                          'expand the file, the limit', path)
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        return LimitError(f'xacro needs more than {XACRO_CPU_SECONDS} s of processor time to '
                          'expand the file, the limit (an expression that never ends?)', path)
    return XacroError(f'xacro stopped without expanding the file (exit {code})', path)


def _max_document_bytes() -> int:
    from robot_formats.core.xmlsafe import MAX_XML_BYTES
    return MAX_XML_BYTES


# --- the child ---------------------------------------------------------------------------------

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


def _limit_self() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (XACRO_CPU_SECONDS, XACRO_CPU_SECONDS + 2))
    resource.setrlimit(resource.RLIMIT_AS, (XACRO_MEMORY_BYTES, XACRO_MEMORY_BYTES))
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


def _guard_xacro(xacro, yaml, document: Path) -> None:
    """Route xacro's file reads through the guarded reader and check what load_yaml reads
    (this process exists for this one expansion, so its modules may be adjusted)."""
    from robot_formats.core.files import read_input
    from robot_formats.core.xmlsafe import MAX_XML_BYTES
    safe_load = yaml.safe_load
    roots = yaml_roots(document, os.environ.get('AMENT_PREFIX_PATH', ''))

    def guarded_open(name, mode='r', *args, **kwargs):  # xacro opens files only to read them
        stream = io.BytesIO(read_input(name, MAX_XML_BYTES))
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
    _limit_self()
    request = json.loads(sys.stdin.buffer.read())
    sys.stderr, stderr = _LastWords(), sys.stderr
    try:
        try:
            import xacro
            import yaml
        except ImportError:
            print('UNSUPPORTED xacro files need the xacro package (pip install xacro, or the ROS '
                  'package xacro)', file=stderr)
            return 1
        _guard_xacro(xacro, yaml, Path(request['path']))
        document = xacro.process_file(request['path'], mappings=request['arguments'])
        data = document.toprettyxml(indent='  ').encode('utf-8')  # as xacro's command line
    except Exception as err:  # noqa: BLE001 - xacro raises many kinds; all are the file's
        if _caused_by(err, MemoryError):  # (xacro wraps what an expression raises)
            return _EXIT_MEMORY
        if _caused_by(err, RecursionError):
            print('the macros call each other without end (recursion too deep)', file=stderr)
            return 1
        print(one_line(str(err)) or type(err).__name__, file=stderr)
        return 1
    if len(data) > _max_document_bytes():
        print(len(data), file=stderr)
        return _EXIT_TOO_LARGE
    sys.stdout.buffer.write(data)
    return 0


if __name__ == '__main__':
    sys.exit(_main())
