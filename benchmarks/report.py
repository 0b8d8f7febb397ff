"""What the benchmarks print beside their own rows: the machine's load average, a row's times and
ratios, a column's median and worst ratio; the figures a run records (:func:`record`) and the
table that sets the working tree's figures beside the landed main's (:func:`comparison`)."""

from __future__ import annotations

import json
import os
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

__all__ = ['FIGURES_VARIABLE', 'Figure', 'comparison', 'load_average', 'ratio_columns',
           'read_figures', 'record', 'spread']

#: The environment variable naming the file a benchmark process appends its figures to (set by
#: the runner, benchmarks/__main__.py; unset, :func:`record` does nothing).
FIGURES_VARIABLE = 'ROBOT_FORMATS_BENCH_FIGURES'
#: The two kinds of figure compared with the landed main, and how much worse is flagged: a load
#: time's ratio to its C++ reference, and a run-time figure (a latency or a duration).
REFERENCE_RATIO = 'ratio to C++ reference'
RUN_TIME = 'run time'
LIMITS = {REFERENCE_RATIO: 1.5, RUN_TIME: 1.2}


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, for the header line of a run."""
    try:
        return ' '.join(f'{value:.2f}' for value in os.getloadavg())
    except OSError:
        return 'unknown'


def ratio_columns(reference: float, times: Sequence[float]) -> str:
    """A per-file row's numbers: the reference's time, then each of ours and its ratio to the
    reference (seconds in, milliseconds out)."""
    return ' '.join([f'{reference * 1e3:8.3f}']
                    + [f'{time * 1e3:8.3f} {time / reference:6.2f}' for time in times])


def spread(ratios: Sequence[float]) -> str:
    """'median M, worst W' of a column of ratios, as the summary lines print them."""
    return f'median {statistics.median(ratios):.2f}, worst {max(ratios):.2f}'


@dataclass(frozen=True)
class Figure:
    """One figure a benchmark measured: lower is better; ``kind`` is a key of :data:`LIMITS`."""

    name: str
    value: float
    unit: str
    kind: str


def record(name: str, value: float, unit: str, kind: str) -> None:
    """Keep a figure of this run for the comparison with the landed main (a JSON line appended
    to the file :data:`FIGURES_VARIABLE` names, when the runner set it)."""
    if kind not in LIMITS:
        raise ValueError(f'unknown kind of figure {kind!r}')
    target = os.environ.get(FIGURES_VARIABLE)
    if target:
        line = json.dumps({'name': name, 'value': value, 'unit': unit, 'kind': kind})
        with open(target, 'a', encoding='utf-8') as out:
            out.write(line + '\n')


def read_figures(path: Path) -> dict[str, Figure]:
    """The figures :func:`record` wrote to ``path``, by name (none when it does not exist)."""
    if not path.exists():
        return {}
    figures = [Figure(**json.loads(line)) for line in path.read_text(encoding='utf-8').splitlines()
               if line.strip()]
    return {figure.name: figure for figure in figures}


def comparison(baseline: dict[str, Figure], ours: dict[str, Figure],
               label: str) -> tuple[list[str], list[str]]:
    """The rows comparing this run's figures with the landed main's (``label``), and the names of
    the figures flagged: more than :data:`LIMITS` times the baseline's (a format's load more
    than 1.5x slower against its C++ reference, a run-time figure more than 20 % worse), or
    measured on one side only."""
    width = max([len(name) for name in {*baseline, *ours}] + [6])
    rows = [f'  {"figure":{width}s} {"unit":>6s} {label:>18s} {"this tree":>10s} '
            f'{"this/landed":>11s}  check']
    flagged = []
    for name in [*ours, *(name for name in baseline if name not in ours)]:
        mine, theirs = ours.get(name), baseline.get(name)
        figure = mine or theirs
        assert figure is not None
        old = f'{theirs.value:18.3f}' if theirs else f'{"not measured":>18s}'
        new = f'{mine.value:10.3f}' if mine else f'{"not measured":>10s}'
        if mine is None or theirs is None or theirs.value <= 0:
            flagged.append(name)
            rows.append(f'  {name:{width}s} {figure.unit:>6s} {old} {new} {"":>11s}  '
                        'FLAGGED: not measured on both sides')
            continue
        change = round(mine.value / theirs.value, 2)  # judged as printed
        limit = LIMITS[figure.kind]
        worse = change > limit
        if worse:
            flagged.append(name)
        what = ('slower against its reference' if figure.kind == REFERENCE_RATIO else 'worse')
        verdict = (f'FLAGGED: {change:.2f}x, more than {limit:g}x {what}' if worse
                   else f'ok (limit {limit:g}x)')
        rows.append(f'  {name:{width}s} {figure.unit:>6s} {old} {new} {change:10.2f}x  {verdict}')
    return rows, flagged
