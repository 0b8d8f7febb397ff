"""What the benchmarks print beside their own rows: the machine's load average, a row's times and
ratios, a column's median and worst ratio; the figures a run records (:func:`record`), how much
of its samples a round takes (:func:`share`), and the table that sets the working tree's figures
beside the landed main's, round by round (:func:`comparison`).

How a figure is judged against the landed main (:func:`judge`): the runner measures both sides
in R alternating rounds (round 1 the working tree first, round 2 the landed main first, ...),
each with 1/R of the samples, so that the machine's load, which comes and goes over minutes,
hits both sides alike within a round. Each round gives one paired ratio, this tree's figure over
the landed main's. A figure is flagged when the median of its paired ratios, as printed (two
decimals), is over its limit (:data:`LIMITS`) and this tree was slower in every round (each
ratio, as printed, over 1.00): one noisy round moves the median of three or more rounds by at
most one place, and a round in which this tree was as fast or faster says the figure's noise is
as large as the difference. Such a figure (median over the limit, rounds disagreeing) is marked
UNSURE and not flagged. The ratios of every round are printed beside the verdict, so a reader
sees how far apart they are (how sure the verdict is).
"""

from __future__ import annotations

import json
import os
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .checkout import SOURCE_VARIABLE

__all__ = ['FIGURES_VARIABLE', 'SHARE_VARIABLE', 'Figure', 'Verdict', 'comparison', 'judge',
           'load_average', 'measures_everything', 'paired_ratios', 'ratio_columns',
           'read_figures', 'record', 'share', 'share_seconds', 'spread']

#: The environment variable naming the file a benchmark process appends its figures to (set by
#: the runner, benchmarks/__main__.py; unset, :func:`record` does nothing).
FIGURES_VARIABLE = 'ROBOT_FORMATS_BENCH_FIGURES'
#: The environment variable holding the fraction of its samples a benchmark process takes (set
#: by the runner to 1/R for a benchmark measured in R rounds; unset, all of them).
SHARE_VARIABLE = 'ROBOT_FORMATS_BENCH_SHARE'
#: The two kinds of figure compared with the landed main, and how much worse is flagged: a load
#: time's ratio to its C++ reference, and a run-time figure (a latency or a duration).
REFERENCE_RATIO = 'ratio to C++ reference'
RUN_TIME = 'run time'
LIMITS = {REFERENCE_RATIO: 1.5, RUN_TIME: 1.2}
#: What a load benchmark against a C++ reference prints instead of a verdict.
WITHDRAWN = ('not a target since issue 28; compared with the landed main\'s ratio, flagged when '
             f'more than {LIMITS[REFERENCE_RATIO]:g}x worse')


def share(count: int, least: int = 1) -> int:
    """This process's share of ``count`` samples (or repeats, or launches): ``count`` times the
    runner's :data:`SHARE_VARIABLE`, rounded, and never fewer than ``least`` (nor more than
    ``count``)."""
    return min(count, max(least, round(count * _fraction())))


def measures_everything() -> bool:
    """False in a process that measures the landed main for the comparison: only its figures
    that :func:`record` keeps are used there (not its target verdicts), so a benchmark may skip
    a long part that records none."""
    return not os.environ.get(SOURCE_VARIABLE)


def share_seconds(seconds: float, least: float) -> float:
    """This process's share of a duration, as :func:`share`: never shorter than ``least``."""
    return min(seconds, max(least, seconds * _fraction()))


def _fraction() -> float:
    """The fraction of its samples this process takes (:data:`SHARE_VARIABLE`; all of them
    when unset)."""
    return float(os.environ.get(SHARE_VARIABLE) or 1.0)


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


def paired_ratios(baseline: Sequence[dict[str, Figure]], ours: Sequence[dict[str, Figure]],
                  name: str) -> list[float]:
    """Figure ``name``'s ratio this tree / landed main in each round that measured it on both
    sides (``baseline[i]`` and ``ours[i]`` are round i's figures), in round order."""
    ratios = []
    for theirs, mine in zip(baseline, ours):
        old, new = theirs.get(name), mine.get(name)
        if old is not None and new is not None and old.value > 0:
            ratios.append(new.value / old.value)
    return ratios


@dataclass(frozen=True)
class Verdict:
    """How a figure compares with the landed main's: the median of its paired ratios (rounded
    as printed), the limit, how many rounds were over it, whether it is flagged, and whether it
    is unsure (the median over the limit, but this tree not slower in every round)."""

    ratio: float
    limit: float
    rounds_over: int
    flagged: bool
    unsure: bool = False


def judge(ratios: Sequence[float], limit: float) -> Verdict:
    """The verdict on a figure's paired ratios (:func:`paired_ratios`): flagged when the median,
    rounded to two decimals as printed, is more than ``limit`` and every round's ratio, as
    printed, is more than 1 (this tree slower in each); unsure when the median is over the limit
    but some round is not. A single round's ratio, however far out, does not decide it (unless
    it is the only round)."""
    if not ratios:
        raise ValueError('no paired ratio to judge')
    median = round(statistics.median(ratios), 2)
    over = sum(round(ratio, 2) > limit for ratio in ratios)
    slower_in_every_round = all(round(ratio, 2) > 1.0 for ratio in ratios)
    return Verdict(median, limit, over, median > limit and slower_in_every_round,
                   median > limit and not slower_in_every_round)


def comparison(baseline: Sequence[dict[str, Figure]], ours: Sequence[dict[str, Figure]],
               label: str) -> tuple[list[str], list[str], list[str]]:
    """The rows comparing this tree's figures with the landed main's (``label``), measured in
    rounds (``baseline[i]`` and ``ours[i]``: round i's figures of each side), the names of the
    figures flagged (:func:`judge`: the median paired ratio more than :data:`LIMITS`, a format's
    load more than 1.5x slower against its C++ reference, a run-time figure more than 20 %
    worse, with this tree slower in every round), or measured on one side only, and the names
    of those unsure (the median over the limit, the rounds disagreeing). Each row holds the
    median of each side's figures, the median paired ratio, the verdict and every round's
    ratio."""
    names = list(dict.fromkeys(name for figures in [*ours, *baseline] for name in figures))
    width = max([len(name) for name in names] + [6])
    rows = [f'  {"figure":{width}s} {"unit":>6s} {label:>18s} {"this tree":>10s} '
            f'{"this/landed":>11s}  check; this/landed in each round']
    flagged, unsure = [], []
    for name in names:
        mine = [figures[name] for figures in ours if name in figures]
        theirs = [figures[name] for figures in baseline if name in figures]
        unit = (mine or theirs)[0].unit
        old = (f'{statistics.median(f.value for f in theirs):18.3f}' if theirs
               else f'{"not measured":>18s}')
        new = (f'{statistics.median(f.value for f in mine):10.3f}' if mine
               else f'{"not measured":>10s}')
        ratios = paired_ratios(baseline, ours, name)
        if not ratios:
            flagged.append(name)
            rows.append(f'  {name:{width}s} {unit:>6s} {old} {new} {"":>11s}  '
                        'FLAGGED: not measured on both sides')
            continue
        kind = (mine or theirs)[0].kind
        verdict = judge(ratios, LIMITS[kind])
        if verdict.flagged:
            flagged.append(name)
        if verdict.unsure:
            unsure.append(name)
        what = 'slower against its reference' if kind == REFERENCE_RATIO else 'worse'
        check = (f'FLAGGED: {verdict.ratio:.2f}x, more than {verdict.limit:g}x {what}'
                 if verdict.flagged else
                 f'UNSURE: {verdict.ratio:.2f}x, more than {verdict.limit:g}x {what} in the '
                 'median, but not slower in every round (noise); not flagged'
                 if verdict.unsure else f'ok (limit {verdict.limit:g}x)')
        rounds = ' '.join(f'{ratio:.2f}' for ratio in ratios)
        missing = len(ours) - len(ratios)
        rows.append(f'  {name:{width}s} {unit:>6s} {old} {new} {verdict.ratio:10.2f}x  {check}; '
                    f'{rounds} ({verdict.rounds_over} of {len(ratios)} over'
                    + (f', {missing} round(s) unpaired)' if missing else ')'))
    return rows, flagged, unsure
