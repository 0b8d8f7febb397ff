"""Atlas URDF load time: robot_formats vs pinocchio vs urdfdom, measured in the same run."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sysconfig
import tempfile
import time
from pathlib import Path

ATLAS = (Path(__file__).resolve().parents[2] / 'shared' / 'corpus' / 'sdformat' /
         'gazebosim_sdformat' / 'test' / 'performance' / 'parser_urdf_atlas.urdf')
REPEATS = 200


def _median_seconds(function, repeats: int = REPEATS) -> float:
    function()  # warm up (imports, caches)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _urdfdom_seconds(path: Path) -> float | None:
    """Build benchmarks/urdfdom_load.cpp against the urdfdom that PyPI `pin` ships, run it."""
    prefix = Path(sysconfig.get_paths()['purelib']) / 'cmeel.prefix'
    compiler = shutil.which('c++') or shutil.which('g++')
    include = prefix / 'include'
    if not (include / 'urdfdom_headers' / 'urdf_model').is_dir() or compiler is None:
        print('  urdfdom: headers (cmeel-urdfdom-headers) or a C++ compiler missing')
        return None
    with tempfile.TemporaryDirectory() as tmp:
        binary = Path(tmp) / 'urdfdom_load'
        source = Path(__file__).with_name('urdfdom_load.cpp')
        subprocess.run([compiler, '-O2', '-std=c++17', str(source), '-o', str(binary),
                        f'-I{include / "urdfdom"}', f'-I{include / "urdfdom_headers"}',
                        f'-I{include}', f'-L{prefix / "lib"}',
                        f'-Wl,-rpath,{prefix / "lib"}', '-lurdfdom_model', '-lconsole_bridge'],
                       check=True)
        out = subprocess.run([str(binary), str(path), str(REPEATS)], check=True,
                             capture_output=True, text=True)
        return float(out.stdout.strip())


def run(seconds: float = 0.0) -> bool:
    import pinocchio

    import robot_formats

    def ours() -> None:
        robot_formats.load(ATLAS)

    def ours_to_urdf() -> None:
        robot_formats.urdf_string(robot_formats.load(ATLAS).scene)

    def pin() -> None:
        pinocchio.buildModelFromUrdf(str(ATLAS))

    print(f'  file: {ATLAS.name} ({ATLAS.stat().st_size // 1024} kB), median of {REPEATS}')
    rows = [('robot_formats load() (parse + validated tree)', _median_seconds(ours)),
            ('robot_formats load() + URDF writing', _median_seconds(ours_to_urdf)),
            ('pinocchio buildModelFromUrdf', _median_seconds(pin))]
    urdfdom = _urdfdom_seconds(ATLAS)
    if urdfdom is not None:
        rows.append(('urdfdom parseURDF (C++)', urdfdom))
    base = rows[0][1]
    for name, value in rows:
        print(f'  {name:46s} {value * 1e3:8.3f} ms   robot_formats/this = {base / value:5.2f}x')
    return True  # the issue asks for a report, not a target
