"""README's benchmark table is what `python -m benchmarks --targets` prints (generated, not
copied by hand), and every benchmark has a target."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_targets_table_is_the_benchmarks_own():
    run = subprocess.run([sys.executable, '-m', 'benchmarks', '--targets'], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    table = run.stdout.strip()
    assert table.count('\n') >= 10
    assert table in (ROOT / 'README.md').read_text(encoding='utf-8'), (
        'README.md: replace the benchmark table with `python -m benchmarks --targets`')


def test_every_benchmark_has_a_target():
    sys.path.insert(0, str(ROOT))
    from benchmarks.__main__ import BENCHMARKS, TARGETS
    assert list(TARGETS) == list(BENCHMARKS)


def test_each_benchmark_runs_in_a_process_of_its_own():
    """The runner starts each benchmark as `--in-this-process NAME` in a new process (so no
    benchmark measures in the heap the ones before it left), passes its output through, and
    takes the verdict from its exit status."""
    run = subprocess.run([sys.executable, '-m', 'benchmarks', '--only', 'cli_check'], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    lines = run.stdout.splitlines()
    assert '== cli_check' in lines and any('robot-formats check' in line for line in lines)
    row = next(line for line in lines if line.startswith('| `cli_check`'))
    met = row.endswith('| met |')
    assert run.returncode == (0 if met else 1), run.stdout + run.stderr
    alone = subprocess.run([sys.executable, '-m', 'benchmarks', '--in-this-process',
                            'cli_check'], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert 'robot-formats check' in alone.stdout and '| benchmark |' not in alone.stdout
    assert alone.returncode in (0, 1), alone.stderr
    source = (ROOT / 'benchmarks' / '__main__.py').read_text()
    assert "'--in-this-process', name" in source  # (the runner's command for each benchmark)
