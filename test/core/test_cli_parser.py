"""The CLI's command table: what ``--help`` lists without importing a command is what the
command's own parser says, and unknown or missing commands are refused."""

from __future__ import annotations

import argparse

import pytest

from robot_formats import cli


def _sub(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


@pytest.mark.parametrize('command', list(cli.COMMANDS))
def test_each_command_is_listed_with_its_own_help_line(command: str) -> None:
    """The help line in the table is the one the command's parser gives (the table is what
    `--help` shows without importing the command), and the command gets a handler."""
    parser = cli._parser(command)
    helps = {action.dest: action.help for action in _sub(parser)._choices_actions}
    assert list(helps) == list(cli.COMMANDS)
    assert helps[command] == cli.COMMANDS[command][0]
    assert _sub(parser).choices[command].get_default('handler') is not None


def test_unknown_and_no_command_are_refused(capsys) -> None:
    with pytest.raises(SystemExit) as raised:
        cli.main(['no-such-command'])
    assert raised.value.code == 2
    assert "invalid choice: 'no-such-command'" in capsys.readouterr().err
    assert cli.main([]) == 2
