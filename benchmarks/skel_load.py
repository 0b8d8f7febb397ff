"""SKEL load time per corpus file: robot_formats vs dartpy's ``SkelParser.readWorld``, same run.

Printed: ``robot_formats.load()`` / DART's ``readWorld`` time per corpus file both load, their
median and worst. Issue 18's target (a median ≤ 0.75×, no file more than 1.5×) was withdrawn by
issue 28: the median is compared with the landed main's in the same run (benchmarks/report.py
``comparison``).

Like with like:

* CPU time on both sides (``time.process_time``: wall-clock samples on the shared machine
  mostly measured the other jobs).
* Interleaved per file: DART (dartpy 6.20, PyPI) runs in a subprocess (it segfaults or loops
  forever on some inputs, so it never runs in this process) that times its own ``readWorld``
  calls, so process start-up, ``import dartpy`` and the pipe are not counted; a file's samples
  are taken in pairs, one of DART, then one of robot_formats, back to back, so a change of the
  machine's load hits both alike; and in REPEATS rounds over all files, so each file's samples
  are spread over the whole run (on the shared machine a burst of other jobs lasts longer than
  one file's samples would).
* Warm on both sides: each side loads the file once, untimed, before its samples.
* A sample times a batch of consecutive loads (the same batch size on both sides, chosen so a
  sample of the faster side lasts about BATCH_SECONDS: single loads of the smallest files take
  ~15 µs, close to the clock's and the scheduler's noise); the per-load time of a side is the
  median of its REPEATS samples.

Only files both load are compared (DART refuses 4 corpus files, which robot_formats refuses
too). ``load()`` is parse + model + validated kinematic tree, what every CLI command and node
does; ``read_skel()`` alone (parse + model, no tree) is printed beside it for information.
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Callable

from . import checkout, floor, report

CORPUS = Path(__file__).resolve().parents[2] / 'shared' / 'corpus' / 'skel'
REPEATS = 15              #: samples per side and file (N of the median)
BATCH_SECONDS = 0.002     #: the length of one sample of the faster side

_DART_TIMER = textwrap.dedent('''
    import os, sys, time
    import dartpy
    read = dartpy.utils.SkelParser.readWorld
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # DART's console warnings are not part of the measurement
    print('ready', flush=True)
    for line in sys.stdin:  # "<count> <path>": time count loads (0: one untimed warm-up load)
        count, path = line.rstrip('\\n').split(' ', 1)
        count = int(count)
        if count == 0:
            print('null' if read(path) is None else 'ok', flush=True)
            continue
        start = time.process_time()
        for _ in range(count):
            read(path)
        print(repr((time.process_time() - start) / count), flush=True)
''')


class DartTimer:
    """dartpy in its own process, timing one batch of one file on request, so that DART's and
    robot_formats' samples of a file alternate. A crash or hang fails the benchmark loudly."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, '-c', _DART_TIMER],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._expect('ready')

    def _expect(self, what: str) -> str:
        line = self.process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            code = self.process.wait(timeout=60)
            raise RuntimeError(f'dartpy timing process ended with {code} (waiting for {what})')
        return line.strip()

    def _ask(self, count: int, path: Path) -> str:
        self.process.stdin.write(f'{count} {path}\n')  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]
        return self._expect(str(path))

    def warm(self, path: Path) -> bool:
        """One untimed load; False when DART loads nothing."""
        return self._ask(0, path) == 'ok'

    def seconds(self, path: Path, count: int) -> float:
        """CPU seconds per ``readWorld`` over ``count`` consecutive loads."""
        return json.loads(self._ask(count, path))

    def close(self) -> None:
        checkout.close_worker(self.process)


def _seconds(function: Callable[[], object], count: int) -> float:
    """CPU seconds per call over ``count`` consecutive calls."""
    start = time.process_time()
    for _ in range(count):
        function()
    return (time.process_time() - start) / count


def loadable(paths: list[Path]) -> list[Path]:
    """The corpus files robot_formats loads (the others are refused with a FormatError)."""
    import robot_formats
    from robot_formats.core.errors import FormatError
    out = []
    for path in paths:
        try:
            robot_formats.load(path)
        except FormatError:
            continue
        out.append(path)
    return out


class Subject:
    """One corpus file's samples: DART's, load()'s and read_skel()'s seconds per load."""

    def __init__(self, path: Path, count: int) -> None:
        import robot_formats
        from robot_formats.formats.skel import read_skel

        self.path, self.count = path, count
        self.load = lambda: robot_formats.load(path)
        self.parse = lambda: read_skel(path, [])
        self.floor = floor.Floor(path, robot_formats.load(path).scene)
        #: DART's, load()'s, read_skel()'s, and the two parts of the floor's samples
        self.samples: tuple[list[float], ...] = ([], [], [], [], [])

    def sample(self, dart: DartTimer) -> None:
        """One sample of each side, back to back."""
        theirs, ours, parsed, read, made = self.samples
        theirs.append(dart.seconds(self.path, self.count))
        ours.append(_seconds(self.load, self.count))
        parsed.append(_seconds(self.parse, self.count))
        read.append(_seconds(self.floor.read, self.count))
        made.append(_seconds(self.floor.make, self.count))

    def medians(self) -> tuple[float, float, float, float]:
        """DART's, load()'s, read_skel()'s and the floor's (its two parts added) medians."""
        theirs, ours, parsed, read, made = (statistics.median(s) for s in self.samples)
        return theirs, ours, parsed, read + made


def subject(path: Path, dart: DartTimer) -> Subject | None:
    """The file warmed on both sides and its batch size fixed; None when DART loads nothing."""
    if not dart.warm(path):
        return None
    made = Subject(path, 1)
    made.load()  # warm: ours
    made.parse()
    made.floor.read()
    made.floor.make()
    first = min(_seconds(made.load, 1), dart.seconds(path, 1))
    made.count = max(1, math.ceil(BATCH_SECONDS / max(first, 1e-7)))
    return made


def run(seconds: float = 0.0) -> bool:  # noqa: ARG001
    """The benchmark (``seconds``: the runner's common signature, unused)."""
    from robot_formats.formats.skel import reader

    repeats = report.share(REPEATS, 5)  # a round's share of the runner's rounds

    files = loadable(sorted(CORPUS.rglob('*.skel')))
    kind = 'pure-Python' if reader.__file__.endswith('.py') else 'compiled'
    print(f'  {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, load average '
          f'{report.load_average()}, '
          f'Python {sys.version.split()[0]}, {kind} SKEL reader')
    print(f'  corpus files robot_formats and DART both load; CPU time per load, median of '
          f'N = {repeats} samples per side (batches of ~{BATCH_SECONDS * 1e3:g} ms), samples '
          'of the two sides interleaved (in pairs, in N rounds over all files), both warm')
    print('  ratio = robot_formats / dartpy readWorld')
    print('  floor = the file read and parsed, every element and attribute taken once, and the '
          'model\'s links, joints and frames made; nothing checked or computed '
          '(benchmarks/floor.py: the least a reader of this design does)')
    print(f'  {"file":62s} {"dart ms":>8s} {"load ms":>8s} {"ratio":>6s} {"parse ms":>8s} '
          f'{"ratio":>6s} {"floor ms":>8s} {"ratio":>6s}')
    columns: tuple[list[float], ...] = ([], [], [])  # ratios to DART: load(), read_skel(), floor
    dart = DartTimer()
    try:
        subjects = [made for made in (subject(path, dart) for path in files) if made is not None]
        for _ in range(repeats):  # round-robin: each file's samples spread over the whole run
            for made in subjects:
                made.sample(dart)
    finally:
        dart.close()
    for made in subjects:
        theirs, *times = made.medians()
        for column, time_taken in zip(columns, times):
            column.append(time_taken / theirs)
        print(f'  {str(made.path.relative_to(CORPUS))[-62:]:62s} '
              f'{report.ratio_columns(theirs, times)}')
    ratios, parse_ratios, floor_ratios = columns
    median, worst = statistics.median(ratios), max(ratios)
    report.record('SKEL: load() / dartpy readWorld, median of the files', median, 'x',
                  report.REFERENCE_RATIO)
    print(f'  {len(ratios)} files, N = {repeats}')
    print(f'  load(): median ratio {median:.2f}, worst {worst:.2f}; read_skel() alone: '
          f'{report.spread(parse_ratios)}; floor: {report.spread(floor_ratios)}')
    print(f'  median {median:.2f}x, worst {worst:.2f}x DART (information: {report.WITHDRAWN})')
    return True
