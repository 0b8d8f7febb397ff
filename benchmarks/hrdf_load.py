"""HRDF import time per corpus kit: robot_formats vs hebi-py's ``import_from_hrdf``, same run.

Printed: ``robot_formats.load()`` / HEBI's time per corpus kit, their median and worst. Issue
18's target (a median ≤ 1×, no kit more than 2×) was withdrawn by issue 28: the median is
compared with the landed main's in the same run (benchmarks/report.py ``comparison``).

Like with like:

* **CPU time** on both sides (``time.process_time`` around each import), so the other work
  of a shared machine does not count for either side.
* **Interleaved per kit**: HEBI's library (hebi-py 2.16.1, a closed C library) runs in a
  subprocess (it crashes on include cycles and can spin for minutes on some inputs, so it
  never runs in this process), which serves timing requests: for each kit, in each of
  ROUNDS rounds, the subprocess times BATCH imports of the kit, then this process times
  BATCH loads of the same kit. A slower or faster spell of the machine hits both sides.
* **Warm on both sides**: one untimed import of each kit on each side before its first
  timed one (modules imported, files in the page cache, HEBI's library initialised).
* **Median of N** = ROUNDS × BATCH samples per side and kit (N is printed).

robot_formats is timed two ways: ``load()`` (read, detect the format, parse, model, validated
kinematic tree: what every CLI command and node does; the ratio the target is about) and
``parse_hrdf_file()`` alone (parse + model, the part that corresponds to HEBI's import;
printed for information).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from . import checkout, floor, report

CORPUS = Path(__file__).resolve().parents[2] / 'shared' / 'corpus' / 'hrdf'
ROUNDS = 5
BATCH = 10
#: load() / HEBI: the median over the kits, and the largest of any kit.

#: The HEBI side: one request per line (``<count>\t<path>``), one JSON list of CPU-time
#: samples (seconds) per answer. The first request for a path imports it once untimed.
_HEBI_SERVER = textwrap.dedent('''
    import contextlib, io, json, sys, time
    with contextlib.redirect_stdout(io.StringIO()):
        import hebi
    importer = hebi.robot_model.import_from_hrdf
    clock = time.process_time
    warm = set()
    for line in sys.stdin:
        count, path = line.rstrip('\\n').split('\\t', 1)
        if path not in warm:
            importer(path)
            warm.add(path)
        samples = []
        for _ in range(int(count)):
            start = clock()
            importer(path)
            samples.append(clock() - start)
        sys.stdout.write(json.dumps(samples) + '\\n')
        sys.stdout.flush()
''')


class HebiTimer:
    """hebi-py in a subprocess, timing imports on request."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, '-c', _HEBI_SERVER],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)

    def samples(self, path: Path, count: int) -> list[float]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f'{count}\t{path}\n')
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            self.process.kill()
            _, stderr = self.process.communicate(timeout=60)
            raise RuntimeError(f'hebi-py timing failed on {path}: {stderr[-1000:]}')
        return json.loads(answer)

    def close(self) -> None:
        checkout.close_worker(self.process)


def _samples(function, count: int) -> list[float]:
    clock = time.process_time
    out = []
    for _ in range(count):
        start = clock()
        function()
        out.append(clock() - start)
    return out


def run(seconds: float = 0.0) -> bool:  # noqa: ARG001
    """The benchmark (``seconds``: the runner's common signature, unused)."""
    import robot_formats

    rounds = report.share(ROUNDS, 2)  # a round's share of the runner's rounds
    from robot_formats.formats.hrdf import parse_hrdf_file, reader

    kits = sorted(CORPUS.rglob('*.hrdf'))
    hebi: dict[Path, list[float]] = {kit: [] for kit in kits}
    ours: dict[Path, list[float]] = {kit: [] for kit in kits}
    parse: dict[Path, list[float]] = {kit: [] for kit in kits}
    floors = {kit: floor.Floor(kit, robot_formats.load(kit).scene) for kit in kits}
    reads: dict[Path, list[float]] = {kit: [] for kit in kits}
    makes: dict[Path, list[float]] = {kit: [] for kit in kits}
    timer = HebiTimer()
    try:
        for kit in kits:  # warm: one untimed import each side (HEBI's on its first request)
            robot_formats.load(kit)
            parse_hrdf_file(kit, [])
            floors[kit].read()
            floors[kit].make()
        for _ in range(rounds):
            for kit in kits:
                hebi[kit] += timer.samples(kit, BATCH)
                ours[kit] += _samples(lambda: robot_formats.load(kit), BATCH)  # noqa: B023
                parse[kit] += _samples(lambda: parse_hrdf_file(kit, []), BATCH)  # noqa: B023
                reads[kit] += _samples(floors[kit].read, BATCH)
                makes[kit] += _samples(floors[kit].make, BATCH)
    finally:
        timer.close()

    n = rounds * BATCH
    kind = 'pure-Python' if reader.__file__.endswith('.py') else 'compiled'
    print(f'  {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, load average '
          f'{report.load_average()}, '
          f'Python {sys.version.split()[0]}, {kind} HRDF reader')
    print(f'  {len(kits)} corpus kits; CPU time (process_time), median of N = {n} imports per '
          f'side and kit ({rounds} interleaved rounds of {BATCH}), both sides warm')
    print('  ratio = robot_formats / hebi-py')
    print('  floor = read: the file read and parsed, every element and attribute taken once '
          '+ objects: the model\'s links, joints and frames made; nothing checked or computed '
          '(benchmarks/floor.py: the least a reader of this design does)')
    print(f'  {"kit":58s} {"hebi ms":>8s} {"load ms":>8s} {"ratio":>6s} {"parse ms":>8s} '
          f'{"ratio":>6s} {"floor ms":>8s} {"ratio":>6s}')
    # ratios to HEBI: load(), parse only, the floor, the floor's read part
    columns: tuple[list[float], ...] = ([], [], [], [])
    for kit in kits:
        theirs = statistics.median(hebi[kit])
        read_part = statistics.median(reads[kit])
        times = (statistics.median(ours[kit]), statistics.median(parse[kit]),
                 read_part + statistics.median(makes[kit]))
        for column, time_taken in zip(columns, (*times, read_part)):
            column.append(time_taken / theirs)
        print(f'  {str(kit.relative_to(CORPUS)):58s} '
              f'{report.ratio_columns(theirs, times)}')
    ratios, parse_ratios, floor_ratios, read_ratios = columns
    median, worst = statistics.median(ratios), max(ratios)
    report.record('HRDF: load() / hebi import_from_hrdf, median of the kits', median, 'x',
                  report.REFERENCE_RATIO)
    print(f'  load(): median ratio {median:.2f}, worst {worst:.2f}; parse only: '
          f'{report.spread(parse_ratios)}; floor: {report.spread(floor_ratios)}, '
          f'of which read: {report.spread(read_ratios)} (N = {n})')
    print(f'  median {median:.2f}x, worst {worst:.2f}x HEBI (information: {report.WITHDRAWN})')
    return True
