"""HRDF import time per corpus kit: robot_formats vs hebi-py's ``import_from_hrdf``, same run.

HEBI's library (hebi-py 2.16.1, a closed C library) is timed in a subprocess (it crashes on
include cycles and can spin for minutes on some inputs, so it never runs in this process);
the subprocess times each import itself with ``time.perf_counter`` around the call, so process
start-up is not counted. Both sides: median of REPEATS after one warm-up import.

robot_formats is timed two ways: ``load()`` (parse + model + validated kinematic tree, what
every CLI command and node does) and ``parse_hrdf_file()`` alone (parse + model, the part that
corresponds to HEBI's import). Target [issue 4]: load() ≤ 0.5 × HEBI's time, per kit.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / 'shared' / 'corpus' / 'hrdf'
REPEATS = 30
TARGET = 0.5

_HEBI_TIMER = textwrap.dedent('''
    import contextlib, io, json, statistics, sys, time
    with contextlib.redirect_stdout(io.StringIO()):
        import hebi
    repeats = int(sys.argv[1])
    out = {}
    for path in sys.argv[2:]:
        hebi.robot_model.import_from_hrdf(path)
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            hebi.robot_model.import_from_hrdf(path)
            samples.append(time.perf_counter() - start)
        out[path] = statistics.median(samples)
    print(json.dumps(out))
''')


def _median(function, repeats: int = REPEATS) -> float:
    function()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def hebi_seconds(paths: list[Path], repeats: int = REPEATS) -> dict[str, float]:
    run = subprocess.run([sys.executable, '-c', _HEBI_TIMER, str(repeats),
                          *map(str, paths)], capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f'hebi-py timing failed: {run.stderr[-1000:]}')
    return json.loads(run.stdout.strip().splitlines()[-1])


def run(seconds: float = 0.0) -> bool:
    import robot_formats
    from robot_formats.formats.hrdf import parse_hrdf_file

    kits = sorted(CORPUS.rglob('*.hrdf'))
    hebi = hebi_seconds(kits)
    print(f'  {len(kits)} corpus kits, median of {REPEATS} imports each; '
          f'ratio = robot_formats / hebi-py (target ≤ {TARGET})')
    print(f'  {"kit":58s} {"hebi ms":>8s} {"load ms":>8s} {"ratio":>6s} {"parse ms":>8s} '
          f'{"ratio":>6s}')
    ratios, parse_ratios = [], []
    for path in kits:
        ours = _median(lambda: robot_formats.load(path))
        parse = _median(lambda: parse_hrdf_file(path, []))
        theirs = hebi[str(path)]
        ratios.append(ours / theirs)
        parse_ratios.append(parse / theirs)
        print(f'  {str(path.relative_to(CORPUS)):58s} {theirs * 1e3:8.3f} {ours * 1e3:8.3f} '
              f'{ours / theirs:6.2f} {parse * 1e3:8.3f} {parse / theirs:6.2f}')
    worst = max(ratios)
    print(f'  load(): median ratio {statistics.median(ratios):.2f}, worst {worst:.2f}; '
          f'parse only: median {statistics.median(parse_ratios):.2f}, '
          f'worst {max(parse_ratios):.2f}')
    met = worst <= TARGET
    print(f'  target ≤ {TARGET}× HEBI per kit: {"met" if met else "MISSED"}')
    return met
