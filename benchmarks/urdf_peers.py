"""URDF load time: robot_formats vs the Python URDF loaders a user would pick instead, same run.

Target [issue 28]: ``robot_formats.load()`` is at least 3x faster than each of urdf_parser_py,
yourdfpy and urchin on every file of :data:`FILES` (Atlas and small robots of the corpus).

What each loader is asked to do (each parses the URDF into its own model, nothing more):

* robot_formats: ``robot_formats.load(path)``: read, parse, the neutral model and its validated
  kinematic tree (what every CLI command and node does).
* urdf_parser_py 0.0.4 (urdfdom_py): ``URDF.from_xml_file(path)``: its reflected model of
  links, joints, materials, transmissions. Its warnings go through
  ``xml_reflection.core.on_error`` (to stderr by default), replaced by a function that drops them.
* yourdfpy 0.0.60: ``URDF.load(path, load_meshes=False, load_collision_meshes=False)``, its
  default call with mesh loading off: its dataclass model, its link and joint maps, and the
  trimesh scene graph of the link frames (its kinematic tree, like ours) without geometry; no
  mesh read, no collision scene graph (off by default).
* urchin 0.0.30: ``URDF.load(path, lazy_load_meshes=True)``: its model, the networkx graph of
  links and joints it checks the tree with; no mesh read (lazy loading, never asked for).

Like with like: each loader runs in a process of its own (``python -m benchmarks.urdf_peers
--worker NAME``), with Python logging disabled and its stdout and stderr sent to /dev/null, so
it is timed reading, not printing; a worker times single loads of a file on request with
``time.process_time`` (CPU time: the other work of a shared machine counts for no side) and
answers on a pipe. All workers are warm (``WARMUP`` untimed loads of every file first); the
samples are taken in ``ROUNDS`` rounds over all files, each round asking every loader in turn
(the order rotated per round) for ``BATCH`` loads, so a busy spell of the machine hits every
side alike. A loader's time on a file is the median of its ``ROUNDS x BATCH`` samples; the
links and joints each loader's model holds are printed, so that a loader that skipped part of a
file shows.
"""

from __future__ import annotations

import json
import logging
import os
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Callable

from . import checkout, report

CORPUS = Path(__file__).resolve().parents[2] / 'shared' / 'corpus' / 'sdformat'
#: Atlas (64 kB) and small robots: drake's two-link arm, a fixed-joint chain, a rack and
#: pinion with a mimic joint, joints with dynamics, Gazebo extensions, a force-torque sensor.
FILES = [
    CORPUS / 'gazebosim_sdformat' / 'test' / 'performance' / 'parser_urdf_atlas.urdf',
    CORPUS / 'drake' / 'multibody' / 'parsing' / 'test' / 'sdf_parser_test' / 'interface_api_test'
    / 'arm.urdf',
    CORPUS / 'gazebosim_sdformat' / 'test' / 'integration' / 'fixed_joint_reduction_simple.urdf',
    CORPUS / 'gazebosim_sdformat' / 'test' / 'sdf' / 'joint_mimic_rack_pinion.urdf',
    CORPUS / 'gazebosim_sdformat' / 'test' / 'integration' / 'urdf_joint_parameters.urdf',
    CORPUS / 'gazebosim_sdformat' / 'test' / 'integration' / 'urdf_gazebo_extensions.urdf',
    CORPUS / 'gazebosim_sdformat' / 'test' / 'integration' / 'force_torque_sensor.urdf',
]
OURS = 'robot_formats'
PEERS = ['urdf_parser_py', 'yourdfpy', 'urchin']
ROUNDS = 20
BATCH = 10
WARMUP = 5
TARGET = 3.0  #: every peer's time / robot_formats' time, on every file


def _robot_formats() -> Callable[[str], tuple[int, int]]:
    import robot_formats

    def load(path: str) -> tuple[int, int]:
        models = robot_formats.load(path).scene.models
        return (sum(len(model.links) for model in models),
                sum(len(model.joints) for model in models))
    return load


def _urdf_parser_py() -> Callable[[str], tuple[int, int]]:
    from urdf_parser_py import urdf
    from urdf_parser_py.xml_reflection import core

    core.on_error = lambda message: None  # its warnings, written to stderr by default

    def load(path: str) -> tuple[int, int]:
        robot = urdf.URDF.from_xml_file(path)
        return len(robot.links), len(robot.joints)
    return load


def _yourdfpy() -> Callable[[str], tuple[int, int]]:
    import yourdfpy

    def load(path: str) -> tuple[int, int]:
        model = yourdfpy.URDF.load(path, load_meshes=False, load_collision_meshes=False)
        return len(model.robot.links), len(model.robot.joints)
    return load


def _urchin() -> Callable[[str], tuple[int, int]]:
    import urchin

    def load(path: str) -> tuple[int, int]:
        model = urchin.URDF.load(path, lazy_load_meshes=True)
        return len(model.links), len(model.joints)
    return load


LOADERS = {OURS: _robot_formats, 'urdf_parser_py': _urdf_parser_py, 'yourdfpy': _yourdfpy,
           'urchin': _urchin}


def worker(name: str) -> int:
    """A loader's process: requests ``<count>\\t<path>`` on stdin; answers one JSON line on the
    original stdout: ``{"links": L, "joints": J}`` for count 0 (after ``WARMUP`` untimed loads),
    else ``{"samples": [CPU seconds of each load]}``; ``{"error": ...}`` when the load failed."""
    answers = os.fdopen(os.dup(1), 'w', buffering=1)
    try:
        load = LOADERS[name]()
    except Exception:  # noqa: BLE001 - reported to the runner, which fails the benchmark
        answers.write(json.dumps({'error': traceback.format_exc()}) + '\n')
        return 1
    answers.write(json.dumps({'ready': name}) + '\n')
    silent = os.open(os.devnull, os.O_WRONLY)
    os.dup2(silent, 1)
    os.dup2(silent, 2)
    sys.stdout = sys.stderr = open(os.devnull, 'w', encoding='utf-8')  # noqa: SIM115
    logging.disable(logging.CRITICAL)
    clock = time.process_time
    for line in sys.stdin:
        count, path = line.rstrip('\n').split('\t', 1)
        try:
            if int(count) == 0:
                for _ in range(WARMUP):
                    links, joints = load(path)
                answer: dict[str, object] = {'links': links, 'joints': joints}
            else:
                samples = []
                for _ in range(int(count)):
                    start = clock()
                    load(path)
                    samples.append(clock() - start)
                answer = {'samples': samples}
        except Exception:  # noqa: BLE001 - reported to the runner, which fails the benchmark
            answer = {'error': traceback.format_exc()}
        answers.write(json.dumps(answer) + '\n')
    return 0


class Worker:
    """One loader's worker process, asked for warm-ups and samples."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.process = subprocess.Popen(
            [sys.executable, '-m', 'benchmarks.urdf_peers', '--worker', name],
            cwd=checkout.child_cwd(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._answer()

    def _answer(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f'the {self.name} worker ended (exit {self.process.wait()})')
        answer = json.loads(line)
        if 'error' in answer:
            raise RuntimeError(f'{self.name}: {answer["error"]}')
        return answer

    def ask(self, path: Path, count: int) -> dict:
        assert self.process.stdin is not None
        self.process.stdin.write(f'{count}\t{path}\n')
        self.process.stdin.flush()
        return self._answer()

    def warm(self, path: Path) -> tuple[int, int] | str:
        """Warm the loader up on ``path``: the (links, joints) of its model, or, when it
        refuses the file, the last line of its error (a peer's refusal is printed, not timed)."""
        try:
            answer = self.ask(path, 0)
        except RuntimeError as error:
            return str(error).strip().splitlines()[-1]
        return answer['links'], answer['joints']

    def close(self) -> None:
        checkout.close_worker(self.process)


def _measure(workers: list[Worker]) -> tuple[dict, dict]:
    """(loader -> file -> (links, joints), or the error that loader refuses the file with),
    (loader -> file -> median seconds, for the files it loads)."""
    sizes = {worker.name: {path: worker.warm(path) for path in FILES} for worker in workers}
    refused = [name for name, answer in sizes[OURS].items() if isinstance(answer, str)]
    if refused:
        raise RuntimeError(f'robot_formats refuses {refused}')
    samples: dict[str, dict[Path, list[float]]] = {
        worker.name: {path: [] for path in FILES if isinstance(sizes[worker.name][path], tuple)}
        for worker in workers}
    for round_ in range(ROUNDS):
        for path in FILES:
            turn = round_ % len(workers)
            for worker in workers[turn:] + workers[:turn]:
                if path in samples[worker.name]:
                    samples[worker.name][path] += worker.ask(path, BATCH)['samples']
    medians = {name: {path: statistics.median(values) for path, values in files.items()}
               for name, files in samples.items()}
    return sizes, medians


def run(seconds: float = 0.0) -> bool:  # noqa: ARG001
    """The benchmark (``seconds``: the runner's common signature, unused)."""
    missing = [str(path) for path in FILES if not path.is_file()]
    if missing:
        raise FileNotFoundError(f'corpus files missing: {missing}')
    workers: list[Worker] = []
    try:
        for name in [OURS, *PEERS]:
            workers.append(Worker(name))
        sizes, medians = _measure(workers)
    finally:
        for worker in workers:
            worker.close()
    print(f'  {measured_header()}')
    print(f'  CPU time (process_time) of one load, each loader in its own process, warm, '
          f'median of N = {ROUNDS * BATCH} ({ROUNDS} interleaved rounds of {BATCH}); '
          f'ratio = peer / robot_formats, target ≥ {TARGET:g}x on every file')
    header = f'  {"file":38s} {"kB":>4s} {"links":>5s} {"ours ms":>8s}'
    for peer in PEERS:
        header += f' {peer + " ms":>17s} {"ratio":>6s}'
    print(header + '  target')
    ratios = {}
    for path in FILES:
        ours = medians[OURS][path]
        row = (f'  {path.name:38s} {path.stat().st_size / 1024:4.0f} '
               f'{sizes[OURS][path][0]:5d} {ours * 1e3:8.3f}')
        for peer in PEERS:
            if path in medians[peer]:
                ratios[peer, path] = medians[peer][path] / ours
                row += f' {medians[peer][path] * 1e3:17.3f} {ratios[peer, path]:5.2f}x'
            else:
                row += f' {"refuses the file":>17s} {"":>6s}'
        row_met = all(ratio >= TARGET for (_, file), ratio in ratios.items() if file == path)
        print(row + f'  {"MET" if row_met else "MISSED"}')
    for peer in PEERS:
        for path in FILES:
            if isinstance(sizes[peer][path], str):
                print(f'  {peer} refuses {path.name}: {sizes[peer][path]}')
            elif sizes[peer][path] != sizes[OURS][path]:
                print(f'  note: {peer}\'s model of {path.name} has (links, joints) = '
                      f'{sizes[peer][path]}, ours {sizes[OURS][path]}')
    worst, peer, path = min((ratio, peer, path) for (peer, path), ratio in ratios.items())
    met = worst >= TARGET
    print(f'  smallest ratio: {worst:.2f}x ({peer} on {path.name}); target ≥ {TARGET:g}x '
          f'against every peer on every file it loads: {"MET" if met else "MISSED"}')
    return met


def measured_header() -> str:
    """The run's first line: when, the machine's load, what is measured."""
    return (f'{time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, load average '
            f'{report.load_average()}, robot_formats of the {checkout.measured_label()}')


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--worker' and sys.argv[2] in LOADERS:
        sys.exit(worker(sys.argv[2]))
    sys.exit(f'usage: python -m benchmarks.urdf_peers --worker {{{",".join(LOADERS)}}}')
