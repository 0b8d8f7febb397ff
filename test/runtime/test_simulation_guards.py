"""What sim_controller's simulation refuses or reports, without ROS: positions outside a joint's
limits, descriptions too large to simulate (refused before MuJoCo builds anything), a
simulation MuJoCo finds unstable, and robots built off the caller's thread.

References: the bundled arm's limits are read here from its URDF with ElementTree; chain URDFs
come from the tests' generator (rf_testlib.chain_urdf); MuJoCo's instability is provoked with
a servo far stiffer than a 1 ms step can integrate.
"""

from __future__ import annotations

import sys
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from robot_formats.core.errors import FormatError
from robot_formats.runtime import trajectory as jtc
from robot_formats.runtime.mujoco_sim import (MAX_DESCRIPTION_BYTES, MAX_SIMULATED_JOINTS,
                                              UNLIMITED_RANGE, ModelBuilder, MujocoRobot,
                                              SimulationUnstable, description_size_problem)

ROOT = Path(__file__).resolve().parents[2]
ARM = (ROOT / 'examples' / 'urdf' / 'arm_with_gripper.urdf').read_text()
sys.path.insert(0, str(ROOT / 'test' / 'core'))
from rf_testlib import chain_urdf  # noqa: E402


def urdf_limits(text: str) -> dict[str, tuple[float, float]]:
    out = {}
    for joint in ET.fromstring(text).iter('joint'):
        limit = joint.find('limit')
        if joint.get('type') in ('revolute', 'prismatic') and joint.find('mimic') is None:
            out[joint.get('name')] = (float(limit.get('lower')), float(limit.get('upper')))
        elif joint.get('type') == 'continuous':
            out[joint.get('name')] = (-UNLIMITED_RANGE, UNLIMITED_RANGE)
    return out


def test_the_limits_are_the_urdf_limits_and_a_range_for_continuous_joints():
    robot = MujocoRobot(ARM)
    assert robot.limits == urdf_limits(ARM)


def test_a_trajectory_leaving_the_limits_is_invalid():
    limits = urdf_limits(ARM)
    names = list(limits)
    inside = [jtc.Point(1.0, [lo for lo, _ in limits.values()]),
              jtc.Point(2.0, [hi for _, hi in limits.values()])]
    jtc.check_limits(names, inside, limits)  # the limits themselves are reachable
    for value in (1e308, -1e308, limits['elbow'][1] + 1e-6):
        outside = [*inside, jtc.Point(3.0, [0.0, 0.0, value, 0.0, 0.0])]
        with pytest.raises(jtc.TrajectoryRejected) as caught:
            jtc.check_limits(names, outside, limits)
        assert caught.value.code == jtc.INVALID_GOAL
        assert caught.value.message.startswith(f'The position {value:.9g} of joint elbow is '
                                               'outside its limits [-2.5, 2.5] at point #2')
    assert 'joint wrist_roll' in jtc.position_limit_problem(
        ['wrist_roll'], [2 * UNLIMITED_RANGE], limits)


def test_a_description_too_large_is_refused_before_mujoco_builds_it():
    assert description_size_problem(ARM) is None
    assert 'at most 16777216 bytes' in description_size_problem(
        ' ' * (MAX_DESCRIPTION_BYTES + 1))
    MujocoRobot(chain_urdf(MAX_SIMULATED_JOINTS))
    with pytest.raises(FormatError, match=f'the robot has {MAX_SIMULATED_JOINTS + 1} moving '
                                          f'joints; sim_controller simulates at most 200'):
        MujocoRobot(chain_urdf(MAX_SIMULATED_JOINTS + 1))
    with pytest.raises(FormatError, match='the robot has 10000 moving joints'):
        MujocoRobot(chain_urdf(10_000))  # refused after parsing, before MuJoCo: at once


def test_an_unstable_simulation_is_reported_and_reset(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    robot = MujocoRobot(ARM, kp=1e12)  # far too stiff for a 1 ms step
    robot.set_targets(np.array([0.5, 0.0, 0.0, 0.0, 0.0]))
    with pytest.raises(SimulationUnstable, match='MuJoCo: a NaN, infinite or huge '
                                                 'acceleration'):
        robot.step_until(1.0)
    assert np.array_equal(robot.positions(), np.zeros(5))  # reset to the zero configuration
    assert list(tmp_path.iterdir()) == []  # MuJoCo wrote no MUJOCO_LOG.TXT here
    stable = MujocoRobot(ARM)
    stable.set_targets(np.array([0.5, 0.0, 0.0, 0.0, 0.0]))
    stable.step_until(1.0)
    assert abs(stable.positions()[0] - 0.5) < 0.01


class GatedBuild:
    """A build function that holds each build until released, records what it built and
    refuses the text 'bad', so a test controls what the builder's worker is doing."""

    def __init__(self) -> None:
        self.started, self.release = threading.Event(), threading.Event()
        self.built: list[str] = []

    def __call__(self, text: str) -> str:
        if text == 'bad':
            raise FormatError('refused')
        self.started.set()
        self.release.wait(10)
        self.built.append(text)
        return text


def test_robots_are_built_on_another_thread_latest_first():
    build = GatedBuild()
    builder = ModelBuilder(build)
    builder.submit('first')
    assert build.started.wait(10)
    builder.submit('second')  # waits: replaced by the next one before it starts
    builder.submit('bad')
    build.release.set()
    outcomes: list[object] = []
    while len(outcomes) < 2:  # the worker's two builds (a readiness wait, no fixed sleep)
        outcomes += builder.take()
        build.release.wait(0.01)
    assert outcomes[0] == 'first' and isinstance(outcomes[1], FormatError)
    assert build.built == ['first'] and builder.take() == []


def test_a_closed_builder_drops_what_waits_and_its_build_outlives_no_exit():
    """close() waits (bounded) for the build under way and drops the text waiting; the worker
    is no daemon, so the interpreter's exit waits for a build instead of finalising under it
    (sim_controller crashed with a segmentation fault on SIGINT while MuJoCo compiled)."""
    build = GatedBuild()
    builder = ModelBuilder(build)
    builder.submit('first')
    assert build.started.wait(10)
    workers = [t for t in threading.enumerate() if t.name == 'robot_builder']
    assert len(workers) == 1 and not workers[0].daemon
    builder.submit('waiting')  # dropped by close()
    assert builder.close(timeout=0.0) is False  # 'first' is still being built
    build.release.set()
    assert builder.close(timeout=10.0) is True
    builder.submit('after close')
    assert not workers[0].is_alive() and build.built == ['first']
    assert builder.take() == ['first']
