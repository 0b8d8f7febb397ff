"""What hostile documents point at, and how a command is run on them (issue 27).

:class:`Plant` lays out, in a directory of its own, everything an attack on a reader names: a
secret (as text, as XML, as YAML) whose content must never appear in any output, a FIFO, links
to devices, a loop of symbolic links, a directory, a 2 GB sparse file. Documents that reference
them are written by test_hostile_inputs.py (the examples of issue 27) and by the fuzzing
generators (test_fuzz_formats.py).

:func:`run_cli_capped` runs ``python -m robot_formats.cli`` under an address-space cap and a
time bound, as the issue's "exit 0 or 1, one line, within a few seconds and under a memory
cap" asks; :func:`verdict` says what is wrong with its outcome, if anything.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Planted in every secret file and in the environment of every run: an output showing it has
#: disclosed a file (or /proc/self/environ) that was not the document given.
SECRET = 'RF-PLANTED-SECRET-d41d8c'
#: The environment variable holding :data:`SECRET` (so /proc/self/environ holds it).
SECRET_VARIABLE = 'RF_PLANTED_SECRET'
#: Address space a command may use (numpy, lxml and trimesh loaded take ~0.7 GB of it).
MEMORY_CAP = 2 << 30
#: A command that has not ended by then hangs (a bound, not a timing assertion: the commands
#: end in a second or two; a loaded machine may need more).
TIME_BOUND = 120.0


class Plant:
    """The targets of hostile references, under ``root``."""

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.secret_text = root / 'secret.txt'
        self.secret_text.write_text(f'{SECRET}:x:0:0:root:/root:/bin/bash\n{SECRET} two\n')
        self.secret_xml = root / 'secret.xml'
        self.secret_xml.write_text(f'<?xml version="1.0"?>\n<config password="{SECRET}">\n'
                                   f'  <token>{SECRET}</token>\n</config>\n')
        self.secret_yaml = root / 'secret.yaml'
        self.secret_yaml.write_text(f'password: {SECRET}\nlist: [{SECRET}]\n')
        self.secret_binary = root / 'secret.bin'
        self.secret_binary.write_bytes(b'\x30\x82\x04\xa4' + SECRET.encode() + b'\xff\xfe\x00')
        self.fifo = root / 'pipe.urdf'
        if not self.fifo.exists():
            os.mkfifo(self.fifo)
        self.zero = self._link('zero.urdf', '/dev/zero')
        self.urandom = self._link('urandom.sdf', '/dev/urandom')
        self.loop = self._link('loop.stl', 'loop.stl')
        self.directory = root / 'folder.urdf'
        self.directory.mkdir(exist_ok=True)
        self.sparse = root / 'sparse.stl'
        with open(self.sparse, 'wb') as handle:
            handle.truncate(2 << 30)

    def _link(self, name: str, target: str) -> Path:
        link = self.root / name
        if not link.is_symlink():
            link.symlink_to(target)
        return link

    def targets(self) -> list[str]:
        """Every file a hostile reference may name (absolute paths)."""
        return [str(p) for p in (self.secret_text, self.secret_xml, self.secret_yaml,
                                 self.secret_binary, self.fifo, self.zero, self.urandom,
                                 self.loop, self.directory, self.sparse)] + [
            '/proc/self/environ', '/dev/zero', '/dev/stdin', '/etc/shadow', '/etc/passwd']


def secret_env() -> dict[str, str]:
    """The environment of a run: the secret planted, the working tree first on the path."""
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join([str(ROOT), env.get('PYTHONPATH', '')]).rstrip(os.pathsep)
    env.pop('ROBOT_FORMATS_DEBUG', None)
    env[SECRET_VARIABLE] = SECRET
    return env


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


@dataclass
class Outcome:
    args: tuple[str, ...]
    returncode: int | None   #: None: killed after :data:`TIME_BOUND`
    stdout: str
    stderr: str


def run_cli_capped(*args: str | Path, cwd: Path | None = None) -> Outcome:
    """``python -m robot_formats.cli ARGS`` under :data:`MEMORY_CAP`, stdin closed."""
    command = [sys.executable, '-m', 'robot_formats.cli', *map(str, args)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors='replace',
                              timeout=TIME_BOUND, cwd=str(cwd or ROOT), env=secret_env(),
                              stdin=subprocess.DEVNULL, preexec_fn=_cap_memory)
    except subprocess.TimeoutExpired as err:
        return Outcome(tuple(map(str, args)), None, str(err.stdout or ''), str(err.stderr or ''))
    return Outcome(tuple(map(str, args)), done.returncode, done.stdout, done.stderr)


#: Text of the files robot_formats must never show (besides :data:`SECRET`): /etc/shadow's and
#: /etc/passwd's first entries.
_DISCLOSED = re.compile(rf'{SECRET}|root:[x*!]*:\d*:|{SECRET_VARIABLE}')


def error_lines(stderr: str) -> list[str]:
    """The lines of stderr that are not warnings or notes."""
    return [line for line in stderr.splitlines()
            if line.strip() and not re.search(r': (warning|note): ', line)]


def verdict(outcome: Outcome, expected: tuple[int, ...] = (0, 1)) -> str | None:
    """What is wrong with a run on hostile input, or None: a hang, an exit code other than
    ``expected`` (a crash is 3; the memory cap hit is a crash too), a traceback, a disclosed
    secret, or a refusal that is not one line."""
    where = ' '.join(outcome.args)
    if outcome.returncode is None:
        return f'{where}: no end within {TIME_BOUND:g} s'
    text = outcome.stdout + outcome.stderr
    if outcome.returncode not in expected:
        return f'{where}: exit {outcome.returncode}, expected {expected}: {outcome.stderr[-600:]}'
    if 'Traceback' in text:
        return f'{where}: traceback: {outcome.stderr[-600:]}'
    found = _DISCLOSED.search(text)
    if found:
        return f'{where}: discloses {found.group()!r}: {text[-600:]}'
    if outcome.returncode == 1:
        errors = error_lines(outcome.stderr)
        if len(errors) != 1 or not re.match(r'\S.*: \S', errors[0]):
            return f'{where}: the refusal is not one "file:line: message" line: {errors}'
    return None
