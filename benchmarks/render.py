"""Picture time of every bundled example: `robot-formats render` in a fresh process.

What a user waits for is the whole command (Python start-up, imports, load, drawing, PNG
encoding), so that is what is timed, wall clock, median of REPEATS runs per example; the time
`render` itself reports (load to written file) is printed beside it. Examples are every file
under examples/ that loads as a model, world or problem (mesh and mapping files are skipped
because they do not load). No other implementation draws these formats, so the numbers are
judged against the target only. The CPU time of each run and the load average are printed beside
the wall clock: on a shared machine, wall well above CPU means the run waited for a core. Target [issue 8]: ≤ 2 s per bundled example.
"""

from __future__ import annotations

import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 3
TARGET_SECONDS = 2.0
_REPORTED = re.compile(r'in (\d+\.\d+) s$', re.M)


def bundled_examples() -> list[Path]:
    """Every example file robot_formats loads with a kinematic tree."""
    sys.path.insert(0, str(ROOT))
    from robot_formats import FormatError, load
    found = []
    for path in sorted((ROOT / 'examples').rglob('*')):
        if not path.is_file() or path.suffix.lower() in ('.obj', '.stl', '.dae', '.yaml', '.xmdi'):
            continue
        try:
            load(path)
        except (FormatError, OSError):
            continue
        found.append(path)
    return found


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time_cli(args: list[str]) -> tuple[float, float, float]:
    """(median wall seconds, median CPU seconds, median reported seconds) of
    `robot-formats render ARGS`. CPU time is shown because the wall clock of a shared machine
    includes waiting for a core: wall >> CPU means the machine was busy, not that render was."""
    walls, cpus, reported = [], [], []
    for _ in range(REPEATS):
        start, cpu = time.perf_counter(), _children_cpu()
        run = subprocess.run([sys.executable, '-m', 'robot_formats.cli', 'render', *args],
                             capture_output=True, text=True, cwd=ROOT, timeout=120)
        walls.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - cpu)
        if run.returncode != 0:
            raise RuntimeError(f'render {" ".join(args)} failed: {run.stderr.strip()}')
        match = _REPORTED.search(run.stderr)
        reported.append(float(match.group(1)) if match else float('nan'))
    return statistics.median(walls), statistics.median(cpus), statistics.median(reported)


def run(seconds: float = 0.0) -> bool:
    """Print one line per example; True when every example meets the target."""
    ok = True
    with tempfile.TemporaryDirectory() as scratch:
        out = str(Path(scratch) / 'picture.png')
        jobs = [(str(p.relative_to(ROOT)), [str(p), '-o', out]) for p in bundled_examples()]
        wave = ROOT / 'examples' / 'xmdi' / 'arm_wave.xmdi'
        if wave.is_file():
            jobs.append(('arm_wave.xmdi GIF 400x300 (info)',
                         ['examples/urdf/arm_with_gripper.urdf', '--animate', str(wave),
                          '--size', '400x300', '-o', str(Path(scratch) / 'wave.gif')]))
        print(f'{"example":48} {"wall (median of 3)":>20} {"CPU":>8} {"render reports":>15}'
              f'  target')
        for label, args in jobs:
            wall, cpu, reported = _time_cli(args)
            judged = not label.endswith('(info)')
            meets = wall <= TARGET_SECONDS
            ok &= meets or not judged
            verdict = ('ok' if meets else 'MISSED') if judged else 'not judged'
            limit = f' (<= {TARGET_SECONDS:g} s)' if judged else ''
            print(f'{label:48} {wall:18.2f} s {cpu:6.2f} s {reported:13.2f} s  {verdict}{limit}')
        print(f'load average now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores')
    return ok
