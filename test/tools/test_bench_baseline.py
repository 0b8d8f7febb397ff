"""`make bench` measures the landed main beside the working tree (benchmarks/checkout.py) and
flags what got worse (benchmarks/report.py ``comparison``): the checkout holds the commit of
benchmarks/BASELINE, a process started the baseline's way imports that commit's robot_formats
and this tree's benchmarks, the worktree is gone afterwards (also after an error), and the
comparison flags exactly what passes its limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks import checkout, report  # noqa: E402


def _worktrees() -> str:
    return subprocess.run(['git', 'worktree', 'list', '--porcelain'], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout


def test_benchmarks_baseline_names_one_commit():
    assert len(checkout.baseline_commit()) >= 7


def test_a_baseline_process_imports_the_baseline_and_this_trees_harness():
    # HEAD stands for the landed main: every clone has it, a shallow one too
    commit = subprocess.run(['git', 'rev-parse', 'HEAD^{commit}'],
                            cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    with checkout.baseline_checkout('HEAD') as baseline:
        assert baseline.commit == commit
        assert str(baseline.tree) in _worktrees()
        head = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=baseline.tree, check=True,
                              capture_output=True, text=True).stdout.strip()
        assert head == commit
        probe = ('import benchmarks.checkout as c, robot_formats; '
                 'print(c.check_import()); print(c.__file__); print(c.measured_label())')
        run = subprocess.run([sys.executable, '-c', probe], cwd=baseline.harness,
                             env=baseline.environment(), capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0, run.stderr
        imported, harness, label = run.stdout.splitlines()
        assert Path(imported) == (baseline.tree / 'robot_formats').resolve()
        assert Path(harness).resolve() == ROOT / 'benchmarks' / 'checkout.py'
        assert label == f'landed main {commit[:7]}'
        assert checkout.launch_file('display.launch.py') == ['robot_formats',
                                                             'display.launch.py']
    assert str(baseline.tree) not in _worktrees()
    assert not baseline.tree.parent.exists()


def test_the_worktree_is_removed_after_an_error():
    with pytest.raises(RuntimeError, match='benchmark failed'):
        with checkout.baseline_checkout('HEAD') as baseline:
            raise RuntimeError('benchmark failed')
    assert str(baseline.tree) not in _worktrees()
    assert not baseline.tree.parent.exists()


def _figures(**values: tuple[float, str]) -> dict[str, report.Figure]:
    return {name: report.Figure(name, value, 'x', kind) for name, (value, kind) in values.items()}


def test_the_comparison_flags_what_passes_its_limit_and_what_one_side_lacks():
    ratio, run_time = report.REFERENCE_RATIO, report.RUN_TIME
    landed = _figures(a=(1.0, ratio), b=(1.0, ratio), c=(2.0, run_time), d=(2.0, run_time),
                      gone=(1.0, run_time))
    tree = _figures(a=(1.49, ratio), b=(1.6, ratio), c=(2.3, run_time), d=(2.5, run_time),
                    new=(1.0, ratio))
    rows, flagged = report.comparison(landed, tree, 'landed main 1234567')
    assert sorted(flagged) == ['b', 'd', 'gone', 'new']
    assert len(rows) == 1 + 6 and 'landed main 1234567' in rows[0]
    by_name = {row.split()[0]: row for row in rows[1:]}
    assert 'ok' in by_name['a'] and 'FLAGGED' in by_name['b'] and '1.60x' in by_name['b']
    assert 'ok' in by_name['c'] and 'FLAGGED' in by_name['d']
    assert 'not measured' in by_name['gone'] and 'not measured' in by_name['new']


def test_figures_go_to_the_file_the_runner_names(tmp_path, monkeypatch):
    target = tmp_path / 'figures.jsonl'
    monkeypatch.setenv(report.FIGURES_VARIABLE, str(target))
    report.record('x / reference', 1.25, 'x', report.REFERENCE_RATIO)
    report.record('latency p99', 0.5, 'ms', report.RUN_TIME)
    figures = report.read_figures(target)
    assert figures['x / reference'] == report.Figure('x / reference', 1.25, 'x',
                                                     report.REFERENCE_RATIO)
    assert figures['latency p99'].value == 0.5
    with pytest.raises(ValueError):
        report.record('y', 1.0, 's', 'wall clock')
