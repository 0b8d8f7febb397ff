"""Writes never lose data: a write that fails half-way leaves the old file whole.

A full disk is simulated with the file size limit (RLIMIT_FSIZE, which any user may lower for
a child process): the kernel refuses to write past it with EFBIG, as a full file system refuses
with ENOSPC, part-way through the new content. Each command of the CLI that writes a file runs
in a subprocess under that limit onto an existing file, which must come out byte for byte as it
was, with no temporary file left beside it and one error line.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from rf_testlib import FIXTURES, ROOT, run_cli

from robot_formats.core.errors import FileAccessError
from robot_formats.core.files import atomic_write, replacing

#: Bytes a limited process may write into one file; every output below is larger.
LIMIT = 600
#: Runs the CLI with the file size limit lowered (the interpreter ignores SIGXFSZ, so a write
#: past it fails with EFBIG instead of killing the process).
LIMITED_CLI = (f'import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, '
               f'{LIMIT})); from robot_formats.cli import main; sys.exit(main(sys.argv[1:]))')
OLD = b'<?xml version="1.0"?>\n<!-- the old file: it must survive byte for byte -->\n'


def limited_cli(*args):
    return run_cli(*args, python_code=LIMITED_CLI, env_extra={'PYTHONDONTWRITEBYTECODE': '1'})


def leftovers(directory: Path, *keep: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p not in keep)


# --- the helper --------------------------------------------------------------------------------

def test_atomic_write_replaces_the_file_and_keeps_its_permissions(tmp_path):
    target = tmp_path / 'out.txt'
    atomic_write(target, 'first')
    assert target.read_text() == 'first'
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask  # as open(..., 'w')
    target.chmod(0o600)
    atomic_write(target, b'second')
    assert target.read_bytes() == b'second'
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert leftovers(tmp_path, target) == []


def test_writing_through_a_symlink_replaces_the_file_it_points_to(tmp_path):
    real = tmp_path / 'real.txt'
    real.write_text('old')
    link = tmp_path / 'link.txt'
    link.symlink_to(real)
    atomic_write(link, 'new')
    assert link.is_symlink() and real.read_text() == 'new'


def test_an_exception_while_writing_keeps_the_old_file(tmp_path):
    target = tmp_path / 'out.txt'
    target.write_bytes(OLD)
    with pytest.raises(RuntimeError):
        with replacing(target) as stream:
            stream.write(b'half of the new content')
            raise RuntimeError('the producer failed')
    assert target.read_bytes() == OLD
    assert leftovers(tmp_path, target) == []


def test_an_unwritable_place_is_a_file_access_error(tmp_path):
    with pytest.raises(FileAccessError, match='cannot write output: No such file or directory'):
        atomic_write(tmp_path / 'missing' / 'out.txt', 'x')


def test_a_write_past_the_file_size_limit_keeps_the_old_file(tmp_path):
    target = tmp_path / 'out.xmdi'
    target.write_bytes(OLD)
    code = ('import sys, resource; from robot_formats.core.files import atomic_write; '
            f'resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT})); '
            f'atomic_write(sys.argv[1], "x" * {LIMIT * 10})')
    result = run_cli(str(target), python_code=code)
    assert result.returncode != 0
    assert 'FileAccessError' in result.stderr and 'File too large' in result.stderr
    assert target.read_bytes() == OLD
    assert leftovers(tmp_path, target) == []


# --- every command that writes a file --------------------------------------------------------

ROBOT = FIXTURES / 'urdf' / 'roundtrip.urdf'
WAVE = ROOT / 'examples' / 'xmdi' / 'arm_wave.xmdi'
ARM = ROOT / 'examples' / 'urdf' / 'arm_with_gripper.urdf'


@pytest.mark.parametrize('command, output', [
    (['convert', ROBOT, '-o', '{out}'], 'robot.urdf'),
    (['motion', WAVE, '--to-xmdi', '{out}'], 'wave.xmdi'),
    (['render', ARM, '-o', '{out}'], 'arm.png'),
    (['render', ARM, '--animate', WAVE, '--max-frames', '3', '-o', '{out}'], 'arm.gif'),
], ids=['convert', 'motion', 'render-png', 'render-gif'])
def test_a_failed_write_of_the_cli_leaves_the_old_file_whole(tmp_path, command, output):
    target = tmp_path / output
    target.write_bytes(OLD)
    result = limited_cli(*[str(a).format(out=target) for a in command])
    assert result.returncode == 1, result.stderr
    assert f'{target}: cannot write output: File too large' in result.stderr
    assert 'Traceback' not in result.stderr
    assert target.read_bytes() == OLD
    assert leftovers(tmp_path, target) == []
    assert run_cli(*[str(a).format(out=target) for a in command]).returncode == 0
    assert target.read_bytes() != OLD  # without the limit the same command replaces it


def test_a_failed_write_of_controllers_leaves_both_old_files_whole(tmp_path):
    hebi = ROOT / 'examples' / 'hrdf' / 'hebi_arm.hrdf'
    urdf, yaml = tmp_path / 'hebi_arm.urdf', tmp_path / 'hebi_arm_controllers.yaml'
    urdf.write_bytes(OLD)
    yaml.write_bytes(b'old: controllers\n')
    result = limited_cli('controllers', hebi, '-o', tmp_path)
    assert result.returncode == 2, result.stderr  # a DIR that cannot be written (docs/cli.md)
    assert 'cannot write output: File too large' in result.stderr
    assert urdf.read_bytes() == OLD and yaml.read_bytes() == b'old: controllers\n'
    assert leftovers(tmp_path, urdf, yaml) == []
