"""Static checks as part of the suite (`make test` installs ruff and mypy, pinned in
tools/requirements-test.txt): ruff over the whole repository (the package, its tests, tools,
launch files, examples and benchmarks; ruff.toml leaves out build/, install/, log/ and .venv/)
with the rules of ruff.toml, mypy over the core and the formats (mypy.ini: the layers without
ROS). Each fails with the tool's report."""

from __future__ import annotations

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


def test_mypy_finds_nothing_in_the_core_and_formats() -> None:
    run = subprocess.run([_tool('mypy'), '--config-file', 'mypy.ini',
                          '--cache-dir', str(ROOT / 'build' / 'mypy_cache')], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert 'Success' in run.stdout


def test_the_package_ships_its_annotations() -> None:
    assert (ROOT / 'robot_formats' / 'py.typed').is_file()
    assert "'py.typed'" in (ROOT / 'setup.py').read_text()
