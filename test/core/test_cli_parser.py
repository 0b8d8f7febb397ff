"""The CLI's command table: what ``--help`` lists without importing a command is what the
command's own parser says, and unknown or missing commands are refused. The ROS 2 clients
(``record``, ``tf-echo``) are programs of the nodes layer the CLI runs in its place: they
answer as the CLI's own commands do."""

from __future__ import annotations

import argparse

import pytest

from robot_formats import cli
from rf_testlib import run_cli

IN_PROCESS = [name for name, (_, where) in cli.COMMANDS.items() if isinstance(where, str)]
PROGRAMS = [name for name, (_, where) in cli.COMMANDS.items() if not isinstance(where, str)]


def _sub(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def test_the_table_has_both_kinds() -> None:
    assert {'check', 'render', 'grasps'} <= set(IN_PROCESS)
    assert set(PROGRAMS) == {'record', 'tf-echo'}


def _helps(parser: argparse.ArgumentParser) -> dict[str, str | None]:
    return {action.dest: action.help for action in _sub(parser)._choices_actions}


def test_the_command_list_is_the_table() -> None:
    """Without a command, with an unknown one, or with an option before the command (``--help
    check``), the parser lists every command of the table, in its order, with its help
    line."""
    every = {name: line for name, (line, _) in cli.COMMANDS.items()}
    assert _helps(cli._parser()) == every
    assert _helps(cli._parser(['no-such-command'])) == every
    assert _helps(cli._parser(['--help', 'check'])) == every  # the top level's help


@pytest.mark.parametrize('command', IN_PROCESS)
def test_each_command_is_listed_with_its_own_help_line(command: str) -> None:
    """The help line in the table is the one the command's parser gives (the table is what
    `--help` shows without importing the command), and the command gets a handler. A command
    line naming it builds its parser alone (with those its function adds), not the others."""
    parser = cli._parser([command])
    helps = _helps(parser)
    assert helps[command] == cli.COMMANDS[command][0]
    assert _sub(parser).choices[command].get_default('handler') is not None
    where = cli.COMMANDS[command][1]
    assert list(helps) == [name for name, (_, other) in cli.COMMANDS.items() if other == where]


@pytest.mark.parametrize('columns', ['30', '200'])
def test_help_is_argparses_own_as_wide_as_columns_says(columns: str, monkeypatch,
                                                       capsys) -> None:
    """The parsers are built with a formatter of their own (no shutil), but help is formatted
    by argparse's, wrapped to ``$COLUMNS``: a command's and the top level's."""
    monkeypatch.setenv('COLUMNS', columns)
    with pytest.raises(SystemExit):
        cli.main(['check', '--help'])
    ours = capsys.readouterr().out
    parser = argparse.ArgumentParser(prog='robot-formats check')
    parser.add_argument('path')
    parser.add_argument('--strict', action='store_true', help='treat warnings as errors')
    cli.add_world_option(parser)
    assert ours == parser.format_help()
    assert max(map(len, ours.splitlines())) <= int(columns)
    with pytest.raises(SystemExit):
        cli.main(['--help'])
    top = capsys.readouterr().out
    description = cli._parser().description
    assert (description in top.splitlines()) == (columns == '200'), top


@pytest.mark.parametrize('command', PROGRAMS)
def test_each_program_answers_its_help_with_the_tables_help_line(command: str) -> None:
    """`robot-formats COMMAND --help` is the program's help: its usage names the command, its
    description is the table's help line; the top-level help lists the command too."""
    run = run_cli(command, '--help')
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f'usage: robot-formats {command} '), run.stdout
    paragraphs = [' '.join(p.split()) for p in run.stdout.split('\n\n')]
    assert paragraphs[1] == cli.COMMANDS[command][0], run.stdout
    listing = run_cli('--help')
    assert listing.returncode == 0 and f'    {command} ' in listing.stdout, listing.stdout


@pytest.mark.parametrize(('args', 'reason'), [
    (('record', 'out.xmdi', '--duration', '-1'),
     'argument --duration: must be a positive number, not -1'),
    (('record', 'out.xmdi', '--frame-period', 'nan'),
     'argument --frame-period: must be a positive number, not nan'),
    (('record', 'out.xmdi', '--tolerance', 'x'), "argument --tolerance: 'x' is not a number"),
    (('record',), 'the following arguments are required: output'),
    (('tf-echo', '--min-frames', 'many'), "argument --min-frames: invalid int value: 'many'"),
])
def test_a_programs_wrong_command_line_exits_2(args: tuple[str, ...], reason: str) -> None:
    """Refused before anything starts on ROS 2 (no domain is needed to be refused)."""
    run = run_cli(*args)
    assert run.returncode == 2, run.stdout + run.stderr
    assert f'robot-formats {args[0]}: error: {reason}' in run.stderr, run.stderr
    assert 'Traceback' not in run.stderr


def test_unknown_and_no_command_are_refused(capsys) -> None:
    with pytest.raises(SystemExit) as raised:
        cli.main(['no-such-command'])
    assert raised.value.code == 2
    assert "invalid choice: 'no-such-command'" in capsys.readouterr().err
    assert cli.main([]) == 2
