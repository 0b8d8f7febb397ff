"""Fixtures of the node tests: private DDS domains on loopback, node processes, rclpy sides.

Domain ids: a run claims a block of 25 ids (0-24, 25-49, ..., 200-224: within Fast DDS' valid
range 0..232 with default ports) by holding an exclusive lock file for the session, so runs on one
machine at the same time never share a domain; the block containing ``ROS_DOMAIN_ID`` (``make
test`` sets one per run) is tried first. Every node process (and the test context talking to it)
gets the next id of the block, so tests of one run never see each other's nodes either.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import signal
import tempfile
from pathlib import Path

import pytest
from tf2_msgs.msg import TFMessage

from .harness import TF_STATIC_QOS, Launcher


BLOCK = 25
BLOCKS = 9  # 0..224


def _preferred_block() -> int:
    value = os.environ.get('ROS_DOMAIN_ID', '').strip()
    if value:
        base = int(value)
        assert 0 <= base <= 232, f'ROS_DOMAIN_ID={value} is outside 0..232'
        return min(base // BLOCK, BLOCKS - 1)
    return os.getpid() % BLOCKS


def _claim_block():
    """(first id, open lock file) of a block no other run on this machine holds."""
    first = _preferred_block()
    for offset in range(BLOCKS):
        block = (first + offset) % BLOCKS
        lock = open(Path(tempfile.gettempdir()) / f'robot_formats_dds_block_{block}.lock', 'w')
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            continue
        return block * BLOCK, lock
    raise RuntimeError(f'all {BLOCKS} DDS domain blocks are held by other test runs')


@pytest.fixture(scope='session', autouse=True)
def loopback_dds(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every participant of this run (ours and the subprocesses') stays on this machine."""
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.setdefault('ROS_LOG_DIR', str(tmp_path_factory.mktemp('ros_log')))


@pytest.fixture(scope='session', autouse=True)
def interrupts_as_in_a_terminal() -> None:
    """The processes the tests start receive SIGINT as from a terminal, however the test run
    was started. A shell without job control starts a background command (``make test &``)
    with SIGINT ignored, and every process below it inherits that. The upstream ros2 launch
    then never sees a SIGINT (it listens through signal.set_wakeup_fd, which an ignored signal
    never reaches), so a test of how ros2 launch ends on SIGINT would test the shell instead.
    Restoring Python's own handler here lets the processes started afterwards begin with the
    default disposition (exec resets a handled signal, not an ignored one)."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope='session')
def allocate_domain(loopback_dds: None):
    base, lock = _claim_block()
    counter = itertools.count()

    def allocate() -> int:
        return base + next(counter) % BLOCK

    yield allocate
    lock.close()  # releases the block


@pytest.fixture(scope='module')
def module_launcher(allocate_domain, tmp_path_factory: pytest.TempPathFactory):
    launcher = Launcher(allocate_domain, tmp_path_factory.mktemp('nodes'))
    yield launcher
    launcher.close()


@pytest.fixture
def launcher(allocate_domain, tmp_path):
    launcher = Launcher(allocate_domain, tmp_path)
    yield launcher
    launcher.close()


@pytest.fixture(scope='module')
def tf_static(server):
    """/tf_static of the module's ``server`` fixture (a test_problem_server.Server), subscribed
    once it has sent a message; shared by test_problem_server.py and test_problem_server_robots.py.
    """
    inbox = server.side.subscribe(TFMessage, '/tf_static', TF_STATIC_QOS)
    server.side.spin_until(lambda: len(inbox), what='/tf_static', process=server.process)
    return inbox
