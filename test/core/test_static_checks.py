"""Static checks as part of the suite (`make test` installs ruff and mypy, pinned in
tools/requirements-test.txt): ruff over the whole repository (the package, its tests, tools,
launch files, examples and benchmarks; ruff.toml leaves out build/, install/, log/ and .venv/)
with the rules of ruff.toml, mypy over every layer of the package (mypy.ini: unused ignores
and ignores without an error code are errors), and every ``# type: ignore`` saying why on its
line. Each fails with the tool's report."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert found, (f'{name} is not installed: `make setup-test` installs it '
                   '(tools/requirements-test.txt)')
    return found


def test_ruff_finds_nothing() -> None:
    run = subprocess.run([_tool('ruff'), 'check', '.'], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_checks_every_layer() -> None:
    config = configparser.ConfigParser()
    config.read(ROOT / 'mypy.ini')
    assert config['mypy']['files'].split(',') == ['robot_formats'], 'mypy must read every layer'
    assert config['mypy'].getboolean('warn_unused_ignores')
    assert 'ignore-without-code' in config['mypy']['enable_error_code']


def test_mypy_finds_nothing_in_every_layer() -> None:
    run = subprocess.run([_tool('mypy'), '--config-file', 'mypy.ini',
                          '--cache-dir', str(ROOT / 'build' / 'mypy_cache')], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert 'Success' in run.stdout


def test_the_package_ships_its_annotations() -> None:
    assert (ROOT / 'robot_formats' / 'py.typed').is_file()
    assert "'py.typed'" in (ROOT / 'setup.py').read_text()


#: ``# type: ignore[code, ...]  # why``: the codes mypy would report, then the reason.
JUSTIFIED_IGNORE = re.compile(r'# type: ignore\[[a-z-]+(?:, *[a-z-]+)*\]  # \S')


def unjustified_ignores(text: str) -> list[int]:
    """The lines of ``text`` with a ``type: ignore`` that does not name its codes and say why."""
    return [number for number, line in enumerate(text.splitlines(), 1)
            if re.search(r'type: *ignore', line) and not JUSTIFIED_IGNORE.search(line)]


def test_every_type_ignore_says_why() -> None:
    found = {path: unjustified_ignores(path.read_text(encoding='utf-8'))
             for path in sorted((ROOT / 'robot_formats').rglob('*.py'))}
    assert {str(path.relative_to(ROOT)): lines for path, lines in found.items() if lines} == {}


def test_the_ignore_rule_tells_justified_from_bare() -> None:
    assert unjustified_ignores('x = f(y)  # type: ignore[arg-type]  # f is untyped\n') == []
    assert unjustified_ignores('x = f(y)  # type: ignore[arg-type, misc]  # both\n') == []
    assert unjustified_ignores('a = 1\nx = f(y)  # type: ignore\n') == [2]
    assert unjustified_ignores('x = f(y)  # type: ignore[arg-type]\n') == [1]
