"""Every `bin/robot-formats ...` command README.md and docs/tour.md show runs and succeeds.

The commands are read from the pages themselves (indented code lines, backslash continuations
joined), so a renamed option, a moved example or a changed output fails here, not in a reader's
shell. Outputs (`-o NAME`) go to a temporary directory. The file commands run in this process
through ``robot_formats.cli.main`` (one import for all of them); ``tf-echo`` needs running
nodes and is exercised by make demo; the ``ros2`` commands of the pages run in
test/nodes/test_documented_ros2_commands.py.
Animations are cut to a few pictures (``--max-frames``): drawing them whole is tested in
test_render.py.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from robot_formats import cli

ROOT = Path(__file__).resolve().parents[2]

PAGES = ('README.md', 'docs/tour.md')


def documented_commands() -> list[tuple[str, ...]]:
    """Each distinct `bin/robot-formats` command of the pages, as argument tuples."""
    found: dict[tuple[str, ...], None] = {}
    for page in PAGES:
        text = (ROOT / page).read_text(encoding='utf-8').replace('\\\n', ' ')
        for line in text.splitlines():
            match = re.match(r'\s+bin/robot-formats (.+)', line)
            if match:
                command = re.split(r'\s+#', match.group(1))[0]
                found[tuple(shlex.split(command))] = None
    return list(found)


COMMANDS = documented_commands()
FILE_COMMANDS = [c for c in COMMANDS if c[0] != 'tf-echo']


def test_the_pages_show_every_kind_of_command():
    kinds = {c[0] for c in COMMANDS}
    assert {'check', 'info', 'frames', 'convert', 'render', 'grasps', 'motion',
            'tf-echo'} <= kinds, kinds


def _with_outputs_in(command: tuple[str, ...], directory: Path) -> list[str]:
    args = list(command)
    for index, arg in enumerate(args[:-1]):
        if arg in ('-o', '--output'):
            args[index + 1] = str(directory / Path(args[index + 1]).name)
    if '--animate' in args:
        args += ['--max-frames', '3']
    return args


@pytest.mark.parametrize('command', FILE_COMMANDS, ids=' '.join)
def test_documented_command_succeeds(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    args = _with_outputs_in(command, tmp_path)
    code = cli.main(args)
    out, err = capsys.readouterr()
    assert code == 0, f'robot-formats {" ".join(command)}: exit {code}\n{err}'
    assert 'warning' not in err, err
    if '-o' in args:
        written = Path(args[args.index('-o') + 1])
        assert written.is_file() and written.stat().st_size > 0
    else:
        assert out.strip(), 'printed nothing'
