"""Expanding a ``.xacro`` file as ROS users do (the xacro package), where it can be stopped.

xacro evaluates the document's Python expressions (``${9**9**9}`` never ends; a property that
doubles itself forty times fills any memory), reads whatever files the document names
(``xacro:include``, ``xacro.load_yaml``) and keeps its state in module globals. So it runs in a
child process of its own (:mod:`robot_formats.core.xacro_process`, which imports xacro and the
guarded reader, not the formats), which the parent can stop:

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

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Mapping

from robot_formats.core.errors import LimitError, UnsupportedError, XacroError, one_line
from robot_formats.core.xacro_process import EXIT_MEMORY, EXIT_TOO_LARGE

__all__ = ['expand_xacro', 'XACRO_CPU_SECONDS', 'XACRO_WALL_SECONDS', 'XACRO_MEMORY_BYTES']

#: Processor time one expansion may use. Real descriptions expand in well under a second.
XACRO_CPU_SECONDS = 10
#: Wall-clock time one expansion may take (a loaded machine shares its processors).
XACRO_WALL_SECONDS = 60
#: Address space of the expanding process (the interpreter and xacro take ~60 MB of it).
XACRO_MEMORY_BYTES = 512 << 20


def expand_xacro(path: Path, arguments: Mapping[str, str] | None = None) -> bytes:
    """The document a ``.xacro`` file expands to: the text ``xacro FILE name:=value ...``
    prints (UTF-8), which is what a launch file's ``Command(['xacro ', FILE])`` hands
    robot_state_publisher.

    Raises:
        XacroError: xacro refuses the file (its sentence), or it cannot be read.
        LimitError: the expansion goes beyond its time, memory or size budget.
        UnsupportedError: the xacro package is not installed.
    """
    request = json.dumps({'path': os.fspath(path), 'arguments': dict(arguments or {}),
                          'cpu_seconds': XACRO_CPU_SECONDS, 'memory_bytes': XACRO_MEMORY_BYTES,
                          'max_bytes': _max_document_bytes()})
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p and
                                                      os.path.isdir(p)))
    try:
        child = subprocess.run([sys.executable, '-m', 'robot_formats.core.xacro_process'],
                               input=request.encode(), capture_output=True,
                               timeout=XACRO_WALL_SECONDS, env=env, check=False)
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
    if code == EXIT_TOO_LARGE:
        return LimitError(f'xacro expands the file to {message} bytes; the limit is '
                          f'{_max_document_bytes()} bytes', path)
    if code == EXIT_MEMORY or code == -signal.SIGSEGV:
        return LimitError(f'xacro needs more than {XACRO_MEMORY_BYTES >> 20} MiB of memory to '
                          'expand the file, the limit', path)
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        return LimitError(f'xacro needs more than {XACRO_CPU_SECONDS} s of processor time to '
                          'expand the file, the limit (an expression that never ends?)', path)
    return XacroError(f'xacro stopped without expanding the file (exit {code})', path)


def _max_document_bytes() -> int:
    from robot_formats.core.xmlsafe import MAX_XML_BYTES
    return MAX_XML_BYTES
