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
