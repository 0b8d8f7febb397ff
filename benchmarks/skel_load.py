"""SKEL load time per corpus file: robot_formats vs dartpy's ``SkelParser.readWorld``, same run.

DART (dartpy 6.20, PyPI) is timed in a subprocess (it segfaults or loops forever on some
inputs, so it never runs in this process); the subprocess times each ``readWorld`` itself, so
process start-up and ``import dartpy`` are not counted. Both sides measure CPU time
(``time.process_time``: the machine is shared, and wall-clock samples mostly measured the other
jobs) and report the median of REPEATS after one warm-up load. Only files both load are
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
    out = {}
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # DART's console warnings are not part of the measurement
    for path in sys.argv[2:]:
        if dartpy.utils.SkelParser.readWorld(path) is None:
            continue
        samples = []
        for _ in range(repeats):
            start = time.process_time()
            dartpy.utils.SkelParser.readWorld(path)
            samples.append(time.process_time() - start)
        out[path] = statistics.median(samples)
    print(json.dumps(out))
''')


def _median(function, repeats: int = REPEATS) -> float:
    function()
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def dart_seconds(paths: list[Path], repeats: int = REPEATS) -> dict[str, float]:
    """Median ``readWorld`` seconds per file DART loads. Files that crash DART are not in the
    corpus' loadable set; a crash here fails the benchmark loudly."""
    run = subprocess.run([sys.executable, '-c', _DART_TIMER, str(repeats), *map(str, paths)],
                         capture_output=True, text=True, timeout=1200)
    if run.returncode != 0:
        raise RuntimeError(f'dartpy timing failed with {run.returncode}: {run.stderr[-1000:]}')
    return json.loads(run.stdout.strip().splitlines()[-1])


def loadable(paths: list[Path]) -> list[Path]:
    """The corpus files robot_formats loads (the others are refused with a FormatError)."""
    import robot_formats
    from robot_formats.errors import FormatError
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
    from robot_formats.skel import read_skel

    files = loadable(sorted(CORPUS.rglob('*.skel')))
    dart = dart_seconds(files)
    both = [path for path in files if str(path) in dart]
    print(f'  {len(both)} corpus files both load, median of {REPEATS} loads each; '
          f'ratio = robot_formats / dartpy readWorld (target ≤ {TARGET})')
    print(f'  {"file":62s} {"dart ms":>8s} {"load ms":>8s} {"ratio":>6s} {"parse ms":>8s} '
          f'{"ratio":>6s}')
    ratios, parse_ratios = [], []
    for path in both:
        ours = _median(lambda: robot_formats.load(path))
        parse = _median(lambda: read_skel(path, []))
        theirs = dart[str(path)]
        ratios.append(ours / theirs)
        parse_ratios.append(parse / theirs)
        print(f'  {str(path.relative_to(CORPUS))[-62:]:62s} {theirs * 1e3:8.3f} '
              f'{ours * 1e3:8.3f} {ours / theirs:6.2f} {parse * 1e3:8.3f} {parse / theirs:6.2f}')
    worst = max(ratios)
    print(f'  load(): median ratio {statistics.median(ratios):.2f}, worst {worst:.2f}; '
          f'parse only: median {statistics.median(parse_ratios):.2f}, '
          f'worst {max(parse_ratios):.2f}')
    met = worst <= TARGET
    print(f'  target ≤ {TARGET}× DART per file: {"met" if met else "MISSED"}')
    return met
