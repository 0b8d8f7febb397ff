"""`make bench` measures the landed main beside the working tree (benchmarks/checkout.py) and
flags what got worse (benchmarks/report.py ``comparison``): the checkout holds the commit of
benchmarks/BASELINE, a process started the baseline's way imports that commit's robot_formats
and this tree's benchmarks, the worktree is gone afterwards (also after an error), and the
comparison flags exactly what passes its limit: the median of the rounds' paired ratios."""

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
    rows, flagged, unsure = report.comparison([landed], [tree], 'landed main 1234567')
    assert sorted(flagged) == ['b', 'd', 'gone', 'new'] and unsure == []
    assert len(rows) == 1 + 6 and 'landed main 1234567' in rows[0]
    by_name = {row.split()[0]: row for row in rows[1:]}
    assert 'ok' in by_name['a'] and 'FLAGGED' in by_name['b'] and '1.60x' in by_name['b']
    assert 'ok' in by_name['c'] and 'FLAGGED' in by_name['d']
    assert 'not measured' in by_name['gone'] and 'not measured' in by_name['new']


def test_a_figure_is_flagged_by_the_median_of_its_paired_ratios():
    """One noisy round does not flag a figure; the median, as printed, decides when this tree
    was slower in every round, and a round in which it was not makes the verdict unsure."""
    limit = report.LIMITS[report.RUN_TIME]
    assert not report.judge([1.0, 13.0, 1.05], limit).flagged  # one round's noise
    assert report.judge([1.3, 1.02, 1.25], limit).flagged  # one round near even: still slower
    assert report.judge([1.21, 1.3, 1.1], limit) == report.Verdict(1.21, 1.2, 2, True, False)
    assert not report.judge([1.204, 1.3, 1.1], limit).flagged  # 1.20 as printed: not over
    assert not report.judge([1.1, 1.3], limit).flagged  # an even count: the middle two's mean
    assert report.judge([1.3], limit).flagged
    # this tree as fast or faster in one round: the noise is as large as the difference
    assert report.judge([1.3, 0.5, 1.25], limit) == report.Verdict(1.25, 1.2, 2, False, True)
    assert report.judge([1.3, 1.004, 1.25], limit).unsure  # 1.00 as printed: not slower
    assert not report.judge([1.0, 1.1, 1.3], limit).unsure  # median under the limit: ok
    with pytest.raises(ValueError):
        report.judge([], limit)


def test_rounds_are_paired_by_index_and_printed_with_their_spread():
    run_time = report.RUN_TIME
    landed = [_figures(t=(1.0, run_time)), _figures(t=(4.0, run_time)),
              _figures(t=(1.0, run_time))]
    tree = [_figures(t=(1.1, run_time)), _figures(t=(4.0, run_time)),
            _figures(t=(3.0, run_time))]
    assert report.paired_ratios(landed, tree, 't') == pytest.approx([1.1, 1.0, 3.0])
    rows, flagged, unsure = report.comparison(landed, tree, 'landed main 1234567')
    assert flagged == [] and unsure == []
    assert '1.10x' in rows[1] and '1.10 1.00 3.00 (1 of 3 over)' in rows[1]
    landed[1] = _figures(t=(2.0, run_time))  # round 2 now 2.00: the median 2.00, all slower
    rows, flagged, unsure = report.comparison(landed, tree, 'landed main 1234567')
    assert flagged == ['t'] and 'FLAGGED: 2.00x' in rows[1]
    landed[0] = _figures(t=(2.0, run_time))  # round 1 now 0.55: faster there
    rows, flagged, unsure = report.comparison(landed, tree, 'landed main 1234567')
    assert flagged == [] and unsure == ['t'] and 'UNSURE: 2.00x' in rows[1]
    landed[0], landed[1] = _figures(t=(1.0, run_time)), _figures(t=(4.0, run_time))
    # the figure is missing in one round of the tree: that round is left out of the pairs
    tree[2] = {}
    assert report.paired_ratios(landed, tree, 't') == pytest.approx([1.1, 1.0])
    rows, _, _ = report.comparison(landed, tree, 'landed main 1234567')
    assert '1 round(s) unpaired' in rows[1]


def test_a_round_takes_its_share_of_the_samples(monkeypatch):
    monkeypatch.delenv(report.SHARE_VARIABLE, raising=False)
    assert report.share(300, 50) == 300 and report.share_seconds(30.0, 10.0) == 30.0
    monkeypatch.setenv(report.SHARE_VARIABLE, repr(1 / 3))
    assert report.share(300, 50) == 100 and report.share(5, 2) == 2
    assert report.share(2000, 400) == 667 and report.share(10, 3) == 3
    assert report.share_seconds(30.0, 10.0) == pytest.approx(10.0)
    monkeypatch.setenv(report.SHARE_VARIABLE, '0.1')
    assert report.share(300, 50) == 50 and report.share_seconds(5.0, 2.0) == 2.0


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
