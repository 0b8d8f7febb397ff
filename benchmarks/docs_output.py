"""A benchmark's output written into its docs page, so a docs table is the benchmark's own
output and never typed by hand (``python -m benchmarks.hrdf_load --write-docs``, skel_load).

The page holds a block between ``<!-- NAME output: ... -->`` and ``<!-- end of NAME output -->``;
:func:`main` fills it from a run now or from a saved ``python -m benchmarks`` output.
"""

from __future__ import annotations

import argparse
import builtins
import os
import statistics
from pathlib import Path
from typing import Callable, Sequence

__all__ = ['load_average', 'kept_print', 'ratio_columns', 'spread', 'write_docs', 'saved_lines',
           'main']


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, for the header line of a run."""
    try:
        return ' '.join(f'{value:.2f}' for value in os.getloadavg())
    except OSError:
        return 'unknown'


def kept_print(lines: list[str] | None) -> Callable[..., None]:
    """``print`` for a benchmark's lines: printed at once, and appended to ``lines`` when
    given (what :func:`write_docs` writes)."""
    def print_line(text: str, flush: bool = True) -> None:
        builtins.print(text, flush=flush)
        if lines is not None:
            lines.append(text)
    return print_line


def ratio_columns(reference: float, times: Sequence[float]) -> str:
    """A per-file row's numbers: the reference's time, then each of ours and its ratio to the
    reference (seconds in, milliseconds out)."""
    return ' '.join([f'{reference * 1e3:8.3f}']
                    + [f'{time * 1e3:8.3f} {time / reference:6.2f}' for time in times])


def spread(ratios: Sequence[float]) -> str:
    """'median M, worst W' of a column of ratios, as the summary lines print them."""
    return f'median {statistics.median(ratios):.2f}, worst {max(ratios):.2f}'


def _markers(name: str) -> tuple[str, str]:
    return (f'<!-- {name} output: written by `python -m benchmarks.{name} --write-docs` -->',
            f'<!-- end of {name} output -->')


def write_docs(name: str, docs: Path, lines: list[str]) -> None:
    """Replace benchmark ``name``'s output block of the page ``docs`` with ``lines``."""
    begin_marker, end_marker = _markers(name)
    text = docs.read_text()
    head, begin, rest = text.partition(begin_marker)
    _, end, tail = rest.partition(end_marker)
    if not begin or not end:
        raise SystemExit(f'{docs} has no {begin_marker!r} ... {end_marker!r} block')
    block = '\n'.join(line.rstrip() for line in lines)
    docs.write_text(f'{head}{begin_marker}\n\n```\n{block}\n```\n\n{end_marker}{tail}')


def saved_lines(name: str, output: Path) -> list[str]:
    """Benchmark ``name``'s section of a saved ``python -m benchmarks`` output."""
    lines, inside = [], False
    for line in output.read_text().splitlines():
        if line.startswith('== '):
            inside = line == f'== {name}'
            continue
        if inside and line.startswith('  '):
            lines.append(line)
    if not lines:
        raise SystemExit(f'{output} holds no {name} output')
    return lines


def main(name: str, docs: Path, run: Callable[..., bool], description: str,
         argv: list[str] | None = None) -> int:
    """``python -m benchmarks.NAME [--write-docs [SAVED_OUTPUT]]``: run the benchmark (or take
    a saved ``python -m benchmarks --only NAME`` output) and write it into ``docs``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--write-docs', nargs='?', const='', metavar='SAVED_OUTPUT',
                        help=f'write the output into {docs.name} (from SAVED_OUTPUT if given, '
                        'else from a run now)')
    args = parser.parse_args(argv)
    if args.write_docs:
        lines = saved_lines(name, Path(args.write_docs))
        met = lines[-1].endswith(': met')
    else:
        lines = []
        met = run(lines=lines)
    if args.write_docs is not None:
        write_docs(name, docs, lines)
    return 0 if met else 1
