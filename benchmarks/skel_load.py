"""SKEL load time per corpus file: robot_formats vs dartpy's ``SkelParser.readWorld``, same run.

DART (dartpy 6.20, PyPI) is timed in a subprocess (it segfaults or loops forever on some
inputs, so it never runs in this process); the subprocess times each ``readWorld`` itself, so
process start-up and ``import dartpy`` are not counted, and it is asked file by file, each
file's DART time taken right before robot_formats' (the shared machine's load drifts). Both
sides measure CPU time (``time.process_time``: wall-clock samples on the shared machine mostly
measured the other jobs) and report the median of REPEATS after one warm-up load. Only files both load are
compared (DART refuses 4 corpus files, which robot_formats refuses too).

robot_formats is timed two ways: ``load()`` (parse + model + validated kinematic tree, what
every CLI command and node does) and ``read_skel()`` alone (parse + model: the part that
corresponds to ``readWorld``, which builds DART's skeletons). Target [issue 5]: load() ≤ 0.5 ×
DART's time, per file.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / 'shared' / 'corpus' / 'skel'
REPEATS = 21
TARGET = 0.5

_DART_TIMER = textwrap.dedent('''
    import json, os, statistics, sys, time
    import dartpy
    repeats = int(sys.argv[1])
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # DART's console warnings are not part of the measurement
    print('ready', flush=True)
    for line in sys.stdin:  # one path per line, answered at once: timed next to ours
        path = line.rstrip('\\n')
        if dartpy.utils.SkelParser.readWorld(path) is None:
            print('null', flush=True)
            continue
        samples = []
        for _ in range(repeats):
            start = time.process_time()
            dartpy.utils.SkelParser.readWorld(path)
            samples.append(time.process_time() - start)
        print(json.dumps(statistics.median(samples)), flush=True)
''')


def _median(function, repeats: int = REPEATS) -> float:
    function()
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        samples.append(time.process_time() - start)
    return statistics.median(samples)


class DartTimer:
    """dartpy in its own process, timing one file on request, so that each file's DART and
    robot_formats measurements are taken back to back (the machine's load changes by the
    minute). A crash or hang fails the benchmark loudly."""

    def __init__(self, repeats: int = REPEATS) -> None:
        self.process = subprocess.Popen([sys.executable, '-c', _DART_TIMER, str(repeats)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._expect('ready')

    def _expect(self, what: str) -> str:
        line = self.process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            code = self.process.wait(timeout=60)
            raise RuntimeError(f'dartpy timing process ended with {code} (waiting for {what})')
        return line.strip()

    def seconds(self, path: Path) -> float | None:
        """Median ``readWorld`` CPU seconds, None when DART loads nothing."""
        self.process.stdin.write(f'{path}\n')  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]
        return json.loads(self._expect(str(path)))

    def close(self) -> None:
        self.process.stdin.close()  # type: ignore[union-attr]
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


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


def run(seconds: float = 0.0) -> bool:
    import robot_formats
    from robot_formats.formats.skel import read_skel

    files = loadable(sorted(CORPUS.rglob('*.skel')))
    print(f'  corpus files robot_formats and DART both load, median of {REPEATS} loads each, '
          f'CPU time; ratio = robot_formats / dartpy readWorld (target ≤ {TARGET})')
    print(f'  {"file":62s} {"dart ms":>8s} {"load ms":>8s} {"ratio":>6s} {"parse ms":>8s} '
          f'{"ratio":>6s}')
    ratios, parse_ratios = [], []
    dart = DartTimer()
    try:
        for path in files:
            theirs = dart.seconds(path)
            if theirs is None:
                continue
            ours = _median(lambda: robot_formats.load(path))
            parse = _median(lambda: read_skel(path, []))
            ratios.append(ours / theirs)
            parse_ratios.append(parse / theirs)
            print(f'  {str(path.relative_to(CORPUS))[-62:]:62s} {theirs * 1e3:8.3f} '
                  f'{ours * 1e3:8.3f} {ours / theirs:6.2f} {parse * 1e3:8.3f} '
                  f'{parse / theirs:6.2f}', flush=True)
    finally:
        dart.close()
    print(f'  {len(ratios)} files; {sum(r <= TARGET for r in ratios)} within the target')
    worst = max(ratios)
    print(f'  load(): median ratio {statistics.median(ratios):.2f}, worst {worst:.2f}; '
          f'parse only: median {statistics.median(parse_ratios):.2f}, '
          f'worst {max(parse_ratios):.2f}')
    met = worst <= TARGET
    print(f'  target ≤ {TARGET}× DART per file: {"met" if met else "MISSED"}')
    return met
