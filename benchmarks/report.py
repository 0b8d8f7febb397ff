"""What the load benchmarks (hrdf_load, skel_load) print beside their per-file rows: the
machine's load average, a row's times and ratios, a column's median and worst ratio."""

from __future__ import annotations

import os
import statistics
from typing import Sequence

__all__ = ['load_average', 'ratio_columns', 'spread']


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
