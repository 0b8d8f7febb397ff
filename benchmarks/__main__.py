"""``make bench``: robot_formats' speed targets, next to the reference implementations.

    python -m benchmarks [--only NAME] [--seconds S] [--rounds R] [--no-baseline]
    python -m benchmarks --targets      # the targets as a Markdown table (README's)

Each benchmark runs in a Python process of its own, so that none measures in a heap, with
modules and threads, that the ones before it left. Every run ends with a Markdown table of the
benchmarks run, their targets and verdicts, made from the run's own results.

The benchmarks of :data:`COMPARED` run on the working tree and on the landed main (the commit of
benchmarks/BASELINE, checked out in a temporary git worktree, benchmarks/checkout.py) with the
same benchmark code, in R alternating rounds (``--rounds``, default :data:`ROUNDS`): round 1
runs the working tree then the landed main, round 2 the landed main then the working tree, and
so on, each process taking 1/R of the benchmark's samples (benchmarks/report.py ``share``; a
benchmark's output says how many it took). The output of such a benchmark is its ``== NAME``
line, then one ``-- round i of R: SIDE`` line before each process's own lines. Its target is
met when the working tree met it in most rounds. After the targets table the run prints each
recorded figure of both sides (benchmarks/report.py ``comparison``), one row per figure: the
median of the landed main's rounds, the median of this tree's, the median of the paired ratios
this/landed (one per round), the check, and every round's ratio with how many were over the
limit. A figure is flagged when that median ratio is over its limit and this tree was slower in
every round (benchmarks/report.py ``judge``): a load benchmark's ratio to its C++ reference
(urdfdom, hebi, dartpy, libsdformat) more than 1.5x the landed main's, a run-time figure
(tf_callback, motion_stream p99, problem_server p99, first_tf, cli_check) more than 20 % worse;
a figure measured on one side only is flagged too. A median over the limit with a round in
which this tree was not slower is marked UNSURE (noise as large as the difference), listed in
the closing line, and not flagged. A flag counts as a missed
target in the exit status. ``--no-baseline`` measures the working tree alone, once, with all
its samples. Benchmarks (issue targets in brackets, :data:`TARGETS` in short):

* ``urdf_load``: load parser_urdf_atlas.urdf with robot_formats, pinocchio and urdfdom in this
  run, thread CPU time, interleaved, median of N [the ratio to urdfdom's parseURDF printed;
  ≤ 1.5× the landed main's].
* ``urdf_peers``: load() of Atlas and six small corpus URDFs against the Python URDF loaders
  a user would pick instead (urdf_parser_py, yourdfpy, urchin; pinned in
  tools/requirements-bench-nodeps.txt), each loader in its own process, CPU time, interleaved,
  median of 200, their logging silenced and no meshes read [every peer ≥ 3× our time on every
  file it loads].
* ``tf_callback``: joint_states → /tf processing for a generated 100-joint robot inside a real
  description_publisher node, per message [≤ 0.2 ms].
* ``tf_sustained``: a JointState stream at 1 kHz over DDS (loopback) to the node in its own
  process, /tf counted by a third process [sustains 1 kHz].

* ``hrdf_load``: import time of every HRDF corpus kit, robot_formats vs hebi-py's
  ``import_from_hrdf`` in the same run, CPU time, interleaved per kit [the ratio to HEBI's time
  printed; its median ≤ 1.5× the landed main's].

* ``skel_load``: load time of every SKEL corpus file, robot_formats vs dartpy's
  ``SkelParser.readWorld`` in the same run, CPU time, interleaved [the ratio to DART's time
  printed; its median ≤ 1.5× the landed main's].

* ``render``: `robot-formats render` of every bundled example in a fresh process, the whole
  command's CPU time (its wall clock on an idle machine; wall printed too) [≤ 2 s per example].

* ``sdformat_load``: load + resolve time of every valid SDFormat corpus document, robot_formats
  vs libsdformat 12's ``sdf::Root::Load`` (our C++ timer benchmarks/sdformat_load.cpp, built in
  the run against Debian's libsdformat-dev) [≤ 0.05× libsdformat's time per file]; generated
  worlds of 250-2,000 included models [linear growth]; a world of 1,000
  models from 1,000 different files [≤ 0.4 s CPU].

* ``motion_stream``: motion_player's stream mode at 250 Hz and 1 kHz, publish instants stamped
  by the node against its schedule (with the play thread at SCHED_FIFO, the node's
  ``realtime_priority``; normal priority printed too) [p99 ≤ 1 ms]; trajectory mode's
  time_from_start for 1,800 points [exactly frame × period / speed].

* ``problem_server``: get_grasps with 360 samples per set (720 grasps) vs the trivial
  list_objects of the same node, server time and round trip p99 [≤ 3× the trivial p99];
  4 client processes sending a mix of services at 500 requests/s in total for 30 s [no failure].

* ``first_tf``: from process start of
  ``ros2 launch robot_formats {display,world,problem}.launch.py`` to a tf2_ros Buffer resolving
  every frame [≤ 1.0 s].
* ``cli_check``: ``robot-formats check`` of a small URDF in a fresh process [≤ 0.15 s], and
  of Atlas against ``python -c 'import lxml.etree'`` in paired runs [≤ 1.5×].

* ``scale_tree``: a generated 5,000-link URDF tree (1,000 moving joints) served by a real
  description_publisher node: robot_description received and every frame resolved by a tf2_ros
  Buffer [served, TF complete]; joint_states for the 1,000 moving joints at 100 Hz, callback
  CPU-time p99 [≤ 2 ms] (wall clock printed); memory of the loaded scene + tree and of the
  node's Description per 1,000 links (tracemalloc) [reported].
* ``scale_world``: the same for a world of 1,000 included SDFormat models (4,000 links, 2,000
  moving joints) [served, TF complete; /tf p99 and memory reported].

robot_state_publisher (the C++ reference for the TF path) cannot be installed on this machine,
so the TF numbers are reported against the targets only.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from . import (checkout, first_tf, hrdf_load, motion_stream, problem_server, render, scale,
               report, sdformat_load, skel_load, tf_stream, urdf_load, urdf_peers)

BENCHMARKS = {
    'urdf_load': urdf_load.run,
    'urdf_peers': urdf_peers.run,
    'tf_callback': tf_stream.run_callback,
    'tf_sustained': tf_stream.run_sustained,
    'hrdf_load': hrdf_load.run,
    'render': render.run,
    'motion_stream': motion_stream.run,
    'sdformat_load': sdformat_load.run,
    'skel_load': skel_load.run,
    'problem_server': problem_server.run,
    'first_tf': first_tf.run_first_tf,
    'cli_check': first_tf.run_check,
    'scale_tree': scale.run_tree,
    'scale_world': scale.run_world,
}

#: Each benchmark's target, in short (the issues' wording; the docstring says how it is measured).
TARGETS = {
    'urdf_load': 'ratio to urdfdom\'s `parseURDF` (Atlas) printed; ≤ 1.5× the landed main\'s',
    'urdf_peers': 'load() ≥ 3× faster than urdf_parser_py, yourdfpy and urchin on every file',
    'tf_callback': '≤ 0.2 ms per joint_states message (100 joints)',
    'tf_sustained': '1 kHz joint_states sustained',
    'hrdf_load': 'ratio to hebi-py\'s `import_from_hrdf` printed; ≤ 1.5× the landed main\'s',
    'render': '≤ 2 s per bundled example',
    'motion_stream': 'p99 publish deviation ≤ 1 ms at 250 Hz and 1 kHz; exact trajectory times',
    'sdformat_load': '≤ 0.05× libsdformat per corpus file; 1,000 models from 1,000 files ≤ 0.4 s',
    'skel_load': 'ratio to dartpy\'s `readWorld` printed; ≤ 1.5× the landed main\'s',
    'problem_server': 'get_grasps(360) p99 ≤ 3× a trivial service; 500 req/s from 4 clients',
    'first_tf': 'first complete TF tree ≤ 1.0 s after `ros2 launch`',
    'cli_check': '`robot-formats check` of a small file ≤ 0.15 s; of Atlas ≤ 1.5× '
                 '`python -c \'import lxml.etree\'` (median of paired runs)',
    'scale_tree': '5,000 links served, TF complete; 1,000 moving joints at 100 Hz, p99 ≤ 2 ms',
    'scale_world': '1,000 included models served, TF complete (p99, memory reported)',
}


def targets_table(verdicts: dict[str, bool] | None = None) -> str:
    """The targets as a Markdown table; with ``verdicts`` (benchmark -> met), a run's."""
    if verdicts is None:
        rows = ['| benchmark | target |', '| --- | --- |']
        rows += [f'| `{name}` | {TARGETS[name]} |' for name in BENCHMARKS]
    else:
        rows = ['| benchmark | target | this run |', '| --- | --- | --- |']
        rows += [f'| `{name}` | {TARGETS[name]} | {"met" if met else "**missed**"} |'
                 for name, met in verdicts.items()]
    return '\n'.join(rows)


#: The benchmarks whose figures are compared with the landed main's (benchmarks/BASELINE): the
#: load benchmarks' ratios to their C++ reference, and the run-time figures users feel.
COMPARED = ('urdf_load', 'hrdf_load', 'skel_load', 'sdformat_load', 'tf_callback',
            'motion_stream', 'problem_server', 'first_tf', 'cli_check')
#: How many alternating rounds a compared benchmark runs in on each side (``--rounds``).
ROUNDS = 3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='python -m benchmarks', description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--only', choices=sorted(BENCHMARKS), action='append')
    parser.add_argument('--seconds', type=float, default=5.0,
                        help='duration of the sustained-rate run')
    parser.add_argument('--targets', action='store_true',
                        help='print the targets as a Markdown table and exit')
    parser.add_argument('--rounds', type=int, default=ROUNDS,
                        help='alternating rounds of each benchmark compared with the landed '
                        f'main, each with 1/ROUNDS of its samples (default {ROUNDS})')
    parser.add_argument('--no-baseline', action='store_true',
                        help='measure the working tree only, not the landed main of '
                        'benchmarks/BASELINE beside it')
    parser.add_argument('--in-this-process', metavar='NAME', choices=sorted(BENCHMARKS),
                        help='run one benchmark in this process, without the summary (how the '
                        'runner starts each one); exit status 1 when its target is missed')
    args = parser.parse_args(argv)
    if args.targets:
        print(targets_table())
        return 0
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'  # DDS never leaves this machine
    os.environ.setdefault('ROS_DOMAIN_ID', str(150 + os.getpid() % 50))
    if args.in_this_process:
        location = checkout.check_import()
        if os.environ.get(checkout.SOURCE_VARIABLE):
            print(f'  robot_formats of the {checkout.measured_label()}, from {location}')
        return 0 if BENCHMARKS[args.in_this_process](seconds=args.seconds) else 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the worktree is removed on the way
    names = args.only or list(BENCHMARKS)
    compared = [] if args.no_baseline else [name for name in names if name in COMPARED]
    if args.rounds < 1:
        parser.error('--rounds must be at least 1')
    verdicts, flagged = _run_all(names, args.seconds, compared, args.rounds)
    failed = [name for name, met in verdicts.items() if not met]
    print(f'\nbenchmarks missing their target: {", ".join(failed)}' if failed
          else '\nall benchmark targets met')
    return 1 if failed or flagged else 0


def _run_all(names: list[str], seconds: float, compared: list[str], rounds: int
             ) -> tuple[dict[str, bool], list[str]]:
    """Run ``names``, those of ``compared`` in ``rounds`` alternating rounds beside the landed
    main; print the targets table and the comparison. (benchmark -> target met), and the names
    of the figures flagged."""
    with tempfile.TemporaryDirectory(prefix='robot_formats-figures-') as folder, \
            (checkout.baseline_checkout() if compared else contextlib.nullcontext()) as baseline:
        if baseline is not None:
            changes = baseline.interface_changes()
            print(f'{baseline.label} checked out at {baseline.tree}; its nodes use the '
                  'interfaces of this workspace' + (f', which differ in {", ".join(changes)}: '
                                                    'its run-time figures may not be comparable'
                                                    if changes else ' (the same definitions)'))
        verdicts: dict[str, bool] = {}
        for name in names:
            print(f'\n== {name}', flush=True)
            if baseline is not None and name in compared:
                verdicts[name] = _run_rounds(name, seconds, rounds, Path(folder), baseline)
            else:
                verdicts[name] = _run_alone(name, seconds, _figures_file(Path(folder), None, 0))
        print('\n' + targets_table(verdicts))
        if baseline is None:
            return verdicts, []
        rows, flagged, unsure = report.comparison(
            [report.read_figures(_figures_file(Path(folder), baseline, index))
             for index in range(rounds)],
            [report.read_figures(_figures_file(Path(folder), None, index))
             for index in range(rounds)], baseline.label)
        print(f'\nthis working tree vs the {baseline.label} (benchmarks/BASELINE), measured '
              f'in this run in {rounds} alternating rounds; flagged when the median of the '
              'rounds\' ratios is more than 1.5x slower against the C++ reference (a format) '
              'or more than 20 % worse (a run-time figure) and this tree was slower in every '
              'round (unsure when not)')
        print('\n'.join(rows))
        print((f'{len(flagged)} figure(s) FLAGGED against the {baseline.label}' if flagged
               else f'nothing flagged against the {baseline.label}')
              + (f'; {len(unsure)} unsure (not flagged): {", ".join(unsure)}' if unsure else ''))
        return verdicts, flagged


def _figures_file(folder: Path, side: checkout.Checkout | None, index: int) -> Path:
    """Where round ``index``'s figures of a side (None: the working tree) are kept."""
    return folder / f'{"tree" if side is None else "baseline"}-{index + 1}.jsonl'


def _run_rounds(name: str, seconds: float, rounds: int, folder: Path,
                baseline: checkout.Checkout) -> bool:
    """Benchmark ``name`` on both sides in ``rounds`` rounds, each with 1/``rounds`` of its
    samples, the working tree first in odd rounds and the landed main first in even ones (so
    that neither side always runs on the machine the other one warmed or loaded). True when
    the working tree met its target in most rounds."""
    met = 0
    for index in range(rounds):
        sides = (None, baseline) if index % 2 == 0 else (baseline, None)
        for side in sides:
            label = 'working tree' if side is None else f'{side.label} (same benchmark code)'
            print(f'-- round {index + 1} of {rounds}: {label}', flush=True)
            ok = _run_alone(name, seconds, _figures_file(folder, side, index), side,
                            1.0 / rounds)
            met += ok and side is None
    return 2 * met > rounds


def _run_alone(name: str, seconds: float, figures: Path,
               baseline: checkout.Checkout | None = None, share: float = 1.0) -> bool:
    """Run benchmark ``name`` in a Python process of its own (its output passed through), so
    that what it measures never depends on the benchmarks that ran before it: the objects a
    garbage collection walks, the modules and threads other references left behind. Its
    figures are appended to ``figures``; with ``baseline``, it measures that checkout's
    robot_formats; it takes ``share`` of its samples (a round's). True when its target is met
    (exit status 0)."""
    command = [sys.executable, '-m', 'benchmarks', '--in-this-process', name,
               '--seconds', str(seconds)]
    environment = baseline.environment() if baseline is not None else dict(os.environ)
    environment[report.FIGURES_VARIABLE] = str(figures)
    environment.pop(report.SHARE_VARIABLE, None)
    if share < 1.0:
        environment[report.SHARE_VARIABLE] = repr(share)
    folder = baseline.harness if baseline is not None else checkout.HARNESS
    return subprocess.run(command, cwd=folder, env=environment, check=False).returncode == 0


if __name__ == '__main__':
    sys.exit(main())
