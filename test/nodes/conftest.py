"""Fixtures of the node tests: private DDS domains on loopback, node processes, rclpy sides.

Domain ids: the run's base is ``ROS_DOMAIN_ID`` when set (``make test`` sets one per run),
otherwise ``100 + pid % 100``; every node process (and the test context talking to it) gets the
next id after the base, wrapping within 0..232 (Fast DDS' valid range with default ports), so
tests of one run never see each other's nodes.
"""

from __future__ import annotations

import itertools
import os

import pytest

from .harness import Launcher


def _base_domain() -> int:
    value = os.environ.get('ROS_DOMAIN_ID', '').strip()
    if value:
        base = int(value)
        assert 0 <= base <= 232, f'ROS_DOMAIN_ID={value} is outside 0..232'
        return base
    return 100 + os.getpid() % 100


@pytest.fixture(scope='session', autouse=True)
def loopback_dds(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every participant of this run (ours and the subprocesses') stays on this machine."""
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.setdefault('ROS_LOG_DIR', str(tmp_path_factory.mktemp('ros_log')))


@pytest.fixture(scope='session')
def allocate_domain(loopback_dds: None):
    base = _base_domain()
    counter = itertools.count()

    def allocate() -> int:
        return (base + next(counter)) % 233

    return allocate


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
