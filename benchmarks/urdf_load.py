"""Atlas URDF load time: robot_formats vs urdfdom (and pinocchio), measured in the same run.

Like with like (issue 18): the calling thread's CPU time on every side (``time.thread_time``;
urdfdom's ``parseURDF`` is built from benchmarks/urdfdom_load.cpp into a shared library and
called through ctypes, timed inside C++ on the same clock), each side warmed up first, the
sides interleaved sample by sample, the median of ``REPEATS`` samples (N printed). Every side
reads the file itself. Printed: robot_formats ``load()`` (parse + validated kinematic tree)
/ urdfdom's parseURDF. Issue 18's target (≤ 1×) was withdrawn by issue 28: the ratio is
compared with the landed main's in the same run (benchmarks/report.py ``comparison``).
"""

from __future__ import annotations

import ctypes
import gc
import shutil
import statistics
import subprocess
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Callable

from . import floor, report

ATLAS = (Path(__file__).resolve().parents[2] / 'shared' / 'corpus' / 'sdformat' /
         'gazebosim_sdformat' / 'test' / 'performance' / 'parser_urdf_atlas.urdf')
REPEATS = 300
WARMUP = 20


def _urdfdom(path: Path, tmp: str) -> Callable[[], float] | None:
    """urdfdom's parseURDF of ``path`` as a function returning its CPU seconds, or None."""
    prefix = Path(sysconfig.get_paths()['purelib']) / 'cmeel.prefix'
    compiler = shutil.which('c++') or shutil.which('g++')
    include = prefix / 'include'
    if not (include / 'urdfdom_headers' / 'urdf_model').is_dir() or compiler is None:
        print('  urdfdom: headers (cmeel-urdfdom-headers) or a C++ compiler missing')
        return None
    library = Path(tmp) / 'liburdfdom_load.so'
    source = Path(__file__).with_name('urdfdom_load.cpp')
    subprocess.run([compiler, '-O2', '-std=c++17', '-shared', '-fPIC', str(source),
                    '-o', str(library), f'-I{include / "urdfdom"}',
                    f'-I{include / "urdfdom_headers"}', f'-I{include}', f'-L{prefix / "lib"}',
                    f'-Wl,-rpath,{prefix / "lib"}', '-lurdfdom_model', '-lconsole_bridge'],
                   check=True)
    function = ctypes.CDLL(str(library)).urdfdom_parse_seconds
    function.restype = ctypes.c_double
    function.argtypes = [ctypes.c_char_p]
    encoded = str(path).encode()

    def parse() -> float:
        seconds = function(encoded)
        if seconds < 0:
            raise RuntimeError(f'urdfdom could not parse {path}')
        return seconds
    return parse


def _timed(function: Callable[[], object]) -> Callable[[], float]:
    def run() -> float:
        start = time.thread_time()
        function()
        return time.thread_time() - start
    return run


def run(seconds: float = 0.0) -> bool:
    import pinocchio

    repeats = report.share(REPEATS, 50)  # a round's share (the runner's rounds)

    import robot_formats

    from robot_formats.core.xmlsafe import read_xml

    least = floor.Floor(ATLAS, robot_formats.load(ATLAS).scene)
    sides: dict[str, Callable[[], float]] = {
        'robot_formats load() (parse + validated tree)': _timed(lambda: robot_formats.load(ATLAS)),
        '  of which: read + lxml parse (libxml2)': _timed(lambda: read_xml(ATLAS, [])),
        'floor: read + parse + every attribute taken': _timed(least.read),
        'floor: the model\'s links and joints made': _timed(least.make),
        'robot_formats load() + URDF writing': _timed(
            lambda: robot_formats.urdf_string(robot_formats.load(ATLAS).scene)),
        'pinocchio buildModelFromUrdf': _timed(lambda: pinocchio.buildModelFromUrdf(str(ATLAS))),
    }
    with tempfile.TemporaryDirectory() as tmp:
        urdfdom = _urdfdom(ATLAS, tmp)
        if urdfdom is not None:
            sides['urdfdom parseURDF (C++)'] = urdfdom
        for side in sides.values():  # warm: imports, caches, branch predictors
            for _ in range(WARMUP):
                side()
        samples: dict[str, list[float]] = {name: [] for name in sides}
        gc.collect()
        for _ in range(repeats):  # interleaved: every side once per round
            for name, side in sides.items():
                samples[name].append(side())
    medians = {name: statistics.median(values) for name, values in samples.items()}
    print(f'  file: {ATLAS.name} ({ATLAS.stat().st_size // 1024} kB); thread CPU time, warm, '
          f'interleaved, median of N = {repeats}')
    ours = medians['robot_formats load() (parse + validated tree)']
    for name, value in medians.items():
        print(f'  {name:46s} {value * 1e3:8.3f} ms   robot_formats load()/this = '
              f'{ours / value:5.2f}x')
    if urdfdom is None:
        print('  urdfdom not measured: target not checked')
        return False
    theirs = medians['urdfdom parseURDF (C++)']
    ratio = ours / theirs
    lowest = (medians['floor: read + parse + every attribute taken']
              + medians['floor: the model\'s links and joints made'])
    print(f'  floor (the two floor lines: the least a reader of this design does, '
          f'benchmarks/floor.py) / urdfdom parseURDF = {lowest / theirs:.2f}x')
    report.record('URDF: load() / urdfdom parseURDF, Atlas', ratio, 'x', report.REFERENCE_RATIO)
    print(f'  load() / urdfdom parseURDF = {ratio:.2f}x (information: {report.WITHDRAWN})')
    return True
