"""The XMDI motion model against values computed here from closed forms: linear and cubic
interpolation, holds outside a servo's key frames, mapping (scale/offset), the frame period,
a play's speed/reverse/seek/loops, the `motion` CLI JSON contract, and the play checks."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robot_formats.core.errors import DuplicateNameError, InvalidValueError, SchemaError
from robot_formats.formats.xmdi import (Motion, MotionModel, Playback, PlayOptions, ServoMapping,
                                ServoTrack, read_xmdi)
from robot_formats.formats.xmdi.safety import (MotionRejected, RobotJoints, check_play,
                                               check_trajectory)
from robot_formats.formats.xmdi.playback import TrajectoryPoint

ROOT = Path(__file__).resolve().parents[3]
ARM = ROOT / 'examples' / 'urdf' / 'arm_with_gripper.urdf'
T = 0.032

# servo a: keys at frames 0, 10, 40; servo b starts late and ends early (holds outside)
A = ServoTrack('a', (0.0, -0.7, 0.2), (0, 10, 40))
B = ServoTrack('b', (1.0, 2.0, 0.5, 0.25), (5, 15, 20, 30))
MOTION = Motion('m', (A, B))


def linear_reference(frames, values, t, period=T):
    """Closed form: hold before the first and after the last key, straight lines between."""
    times = [f * period for f in frames]
    if t <= times[0]:
        return values[0]
    if t >= times[-1]:
        return values[-1]
    for (t0, v0), (t1, v1) in zip(zip(times, values), zip(times[1:], values[1:])):
        if t0 <= t <= t1:
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    raise AssertionError


def pchip_reference(frames, values, t, period=T):
    """Cubic Hermite with Fritsch–Carlson tangents (weighted harmonic mean of the neighbouring
    slopes, 0 at sign changes) and zero tangents at both ends, written from the formulas."""
    x = [f * period for f in frames]
    y = list(values)
    n = len(x)
    if n == 1 or t <= x[0]:
        return y[0]
    if t >= x[-1]:
        return y[-1]
    h = [x[i + 1] - x[i] for i in range(n - 1)]
    d = [(y[i + 1] - y[i]) / h[i] for i in range(n - 1)]
    m = [0.0] * n
    for k in range(1, n - 1):
        if d[k - 1] * d[k] > 0:
            w1, w2 = 2 * h[k] + h[k - 1], h[k] + 2 * h[k - 1]
            m[k] = (w1 + w2) / (w1 / d[k - 1] + w2 / d[k])
    k = max(i for i in range(n - 1) if x[i] <= t)
    s = (t - x[k]) / h[k]
    h00, h10, h01, h11 = (2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2,
                          s**3 - s**2)
    return h00 * y[k] + h10 * h[k] * m[k] + h01 * y[k + 1] + h11 * h[k] * m[k + 1]


TIMES = np.linspace(-0.1, 1.5, 321)


def test_linear_interpolation_and_holds_match_the_closed_form():
    model = MotionModel(MOTION)
    assert model.duration == 40 * T
    assert model.joints == ('a', 'b')
    got = model.positions(TIMES)
    for i, t in enumerate(TIMES):
        assert got[i, 0] == pytest.approx(linear_reference(A.frames, A.positions, t), abs=1e-12)
        assert got[i, 1] == pytest.approx(linear_reference(B.frames, B.positions, t), abs=1e-12)
    # servo b holds its first value before frame 5 and its last after frame 30
    assert model.positions(0.0)[1] == 1.0 and model.positions(35 * T)[1] == 0.25


def test_cubic_interpolation_matches_the_closed_form_and_never_overshoots():
    model = MotionModel(MOTION, interpolation='cubic')
    got = model.positions(TIMES)
    for i, t in enumerate(TIMES):
        assert got[i, 0] == pytest.approx(pchip_reference(A.frames, A.positions, t), abs=1e-12)
        assert got[i, 1] == pytest.approx(pchip_reference(B.frames, B.positions, t), abs=1e-12)
    dense = model.positions(np.linspace(0, model.duration, 4001))
    assert dense[:, 0].min() >= -0.7 - 1e-12 and dense[:, 0].max() <= 0.2 + 1e-12
    assert dense[:, 1].min() >= 0.25 - 1e-12 and dense[:, 1].max() <= 2.0 + 1e-12
    # starts and ends at rest; velocity is the derivative of position (central differences)
    assert np.allclose(model.velocities([0.0, 40 * T - 1e-12]), 0.0, atol=1e-6)
    t = np.linspace(0.01, 1.2, 97)
    numeric = (model.positions(t + 1e-6) - model.positions(t - 1e-6)) / 2e-6
    assert np.allclose(model.velocities(t), numeric, atol=1e-5)


def test_max_speed_is_the_true_maximum():
    for interpolation in ('linear', 'cubic'):
        model = MotionModel(MOTION, interpolation=interpolation)
        t = np.linspace(0, model.duration, 200001)
        numeric = np.abs(np.diff(model.positions(t), axis=0) / np.diff(t)[:, None]).max(axis=0)
        exact = [curve.max_speed() for curve in model.curves]
        assert np.allclose(exact, numeric, rtol=1e-3), (interpolation, exact, numeric)


def test_frame_period_scales_time():
    model = MotionModel(MOTION, frame_period=0.01)
    assert model.duration == 0.4
    assert model.positions(0.1)[0] == pytest.approx(-0.7)
    with pytest.raises(InvalidValueError):
        MotionModel(MOTION, frame_period=0.0)


def test_mapping_renames_scales_and_offsets(tmp_path):
    path = tmp_path / 'map.yaml'
    path.write_text('servos:\n  a: {joint: elbow, scale: -2.0, offset: 0.5}\n  b: wrist\n')
    model = MotionModel(MOTION, ServoMapping.from_yaml(path))
    assert model.joints == ('elbow', 'wrist')
    t = 25 * T
    assert model.positions(t)[0] == pytest.approx(
        -2.0 * linear_reference(A.frames, A.positions, t) + 0.5, abs=1e-12)
    assert model.positions(t)[1] == pytest.approx(linear_reference(B.frames, B.positions, t))


@pytest.mark.parametrize('text, error, line, fragment', [
    ('servos:\n  a: {joint: x, scale: 0}\n', InvalidValueError, 2, 'scale 0'),
    ('servos:\n  a: {joint: x, scale: abc}\n', InvalidValueError, 2, "'abc' is not a number"),
    ('servos:\n  a: {joint: x, offset: .nan}\n', InvalidValueError, 2, 'not finite'),
    ('servos:\n  a: {joint: x, offset: nan}\n', InvalidValueError, 2, 'not finite'),
    ('servos:\n  a: {scale: 1}\n', SchemaError, 2, 'needs a "joint"'),
    ('servos:\n  a: {joint: x, gain: 1}\n', SchemaError, 2, "unknown key 'gain'"),
    ('servos:\n  a: x\n  b: x\n', DuplicateNameError, 3, "both drive joint 'x'"),
    ('joints:\n  a: x\n', SchemaError, 1, "unknown key 'joints'"),
    ('servos: [a, b]\n', SchemaError, 1, 'must map servo names'),
    ('servos:\n  a: [x]\n', SchemaError, 2, 'expected a joint name'),
    ('servos:\n  a: {joint: x\n', InvalidValueError, 3, 'not valid YAML'),
])
def test_mapping_errors_have_file_and_line(text, error, line, fragment, tmp_path):
    path = tmp_path / 'map.yaml'
    path.write_text(text)
    with pytest.raises(error) as info:
        ServoMapping.from_yaml(path)
    assert info.value.line == line and info.value.file == str(path)
    assert fragment in info.value.message


def test_two_servos_on_one_joint_are_refused():
    swapped = MotionModel(MOTION, ServoMapping.from_yaml_text('servos:\n  a: b\n  b: a\n'))
    assert swapped.joints == ('b', 'a')
    with pytest.raises(DuplicateNameError):  # a -> b collides with the unmapped servo b
        MotionModel(MOTION, ServoMapping.from_yaml_text('servos:\n  a: b\n'))


# --- a play: speed, reverse, seek, loops --------------------------------------------------

def keys_of(model):
    return sorted({f * T for f in (*A.frames, *B.frames)} | {0.0, model.duration})


@pytest.mark.parametrize('speed', [1.0, 0.5, 2.0, 3.0])
def test_time_from_start_is_frame_times_period_over_speed(speed):
    model = MotionModel(MOTION)
    points = Playback(model, PlayOptions(speed=speed)).trajectory_points()
    frames = sorted({0, *A.frames, *B.frames})
    assert [p.time for p in points] == [f * T / speed for f in frames]
    for point, frame in zip(points, frames):
        assert point.positions == pytest.approx(tuple(model.positions(frame * T)), abs=1e-15)
        assert point.velocities is None  # linear: the controller interpolates positions linearly


def test_reverse_plays_the_motion_backwards():
    model = MotionModel(MOTION)
    play = Playback(model, PlayOptions(reverse=True, speed=2.0))
    assert play.total_time == model.duration / 2
    for tau in np.linspace(0, play.total_time, 33):
        state = play.state(tau)
        expected = model.positions(model.duration - 2.0 * tau)
        assert np.allclose(state.positions, expected, atol=1e-12)
    points = play.trajectory_points()
    assert points[0].positions == tuple(model.positions(model.duration))
    assert points[-1].positions == tuple(model.positions(0.0))


def test_seek_starts_inside_the_motion():
    model = MotionModel(MOTION, interpolation='cubic')
    play = Playback(model, PlayOptions(start_time=12.5 * T))
    assert play.total_time == pytest.approx(model.duration - 12.5 * T)
    points = play.trajectory_points()
    assert points[0].time == 0.0
    assert points[0].positions == pytest.approx(tuple(model.positions(12.5 * T)), abs=1e-15)
    assert [p.time for p in points[1:]] == pytest.approx(
        [f * T - 12.5 * T for f in (15, 20, 30, 40)], abs=1e-12)
    assert points[-1].velocities == (0.0, 0.0)
    check_trajectory(model.joints, points)


def test_loops_wrap_in_one_frame():
    model = MotionModel(MOTION)
    play = Playback(model, PlayOptions(loops=3))
    assert play.total_time == pytest.approx(3 * model.duration + 2 * T)
    points = play.trajectory_points()
    times = [p.time for p in points]
    assert all(b > a for a, b in zip(times, times[1:]))
    per_loop = len(keys_of(model))
    assert len(points) == 3 * per_loop
    # the second loop starts one frame after the first ended, at the first pose
    start = points[per_loop]
    assert start.time == pytest.approx(model.duration + T)
    assert start.positions == tuple(model.positions(0.0))
    # halfway through the transition: halfway between the last and the first pose
    middle = play.state(model.duration + T / 2)
    assert np.allclose(middle.positions, (model.positions(model.duration)
                                          + model.positions(0.0)) / 2)
    assert play.state(play.total_time).loop == 2


@pytest.mark.parametrize('options, fragment', [
    (PlayOptions(speed=0.0), 'speed factor'), (PlayOptions(speed=-1.0), 'speed factor'),
    (PlayOptions(speed=math.nan), 'speed factor'), (PlayOptions(loops=0), 'loop count'),
    (PlayOptions(start_time=5.0), 'outside the motion'),
    (PlayOptions(start_time=-0.1), 'outside the motion')])
def test_bad_options_are_refused(options, fragment):
    with pytest.raises(InvalidValueError, match=fragment):
        Playback(MotionModel(MOTION), options)


# --- checks before anything moves ---------------------------------------------------------

@pytest.fixture(scope='module')
def arm():
    return RobotJoints.from_urdf_text(ARM.read_text())


def arm_motion(*servos):
    return MotionModel(Motion('test', tuple(servos)))


def test_the_bundled_wave_passes_on_the_arm(arm):
    document, _ = read_xmdi(ROOT / 'examples' / 'xmdi' / 'arm_wave.xmdi')
    for motion in document.motions:
        for interpolation in ('linear', 'cubic'):
            points = check_play(Playback(MotionModel(motion, interpolation=interpolation)), arm)
            assert points[-1].velocities in (None, tuple([0.0] * len(motion.servos)))


@pytest.mark.parametrize('servo, options, code, fragment', [
    (ServoTrack('knee', (0, 1), (0, 10)), PlayOptions(), 'UNMAPPED_SERVO',
     'the robot model has no such joint'),
    (ServoTrack('tool', (0, 1), (0, 10)), PlayOptions(), 'UNMAPPED_SERVO', 'a fixed joint'),
    (ServoTrack('elbow', (0, 2.6), (0, 100)), PlayOptions(), 'POSITION_LIMIT',
     "joint 'elbow' would reach 2.6, above its limit 2.5"),
    (ServoTrack('finger_left', (0, -0.01), (0, 100)), PlayOptions(), 'POSITION_LIMIT',
     'below its limit 0'),
    # 1 rad in 10 frames = 3.125 rad/s > 2 rad/s
    (ServoTrack('elbow', (0, 1), (0, 10)), PlayOptions(), 'VELOCITY_LIMIT', 'velocity limit 2'),
    # 1 rad in 20 frames = 1.5625 rad/s: fine at speed 1, too fast at speed 1.5
    (ServoTrack('elbow', (0, 1), (0, 20)), PlayOptions(speed=1.5), 'VELOCITY_LIMIT',
     'speed factor 1.5'),
    # slow enough inside the motion, but looping jumps back 1 rad in one frame
    (ServoTrack('elbow', (0, 1), (0, 100)), PlayOptions(loops=2), 'VELOCITY_LIMIT',
     "joint 'elbow'"),
])
def test_violations_are_rejected_with_the_reason(arm, servo, options, code, fragment):
    with pytest.raises(MotionRejected) as info:
        check_play(Playback(arm_motion(servo), options), arm)
    assert info.value.code == code
    assert fragment in info.value.message


def test_continuous_joints_have_no_position_limit(arm):
    check_play(Playback(arm_motion(ServoTrack('wrist_roll', (0, 10.0), (0, 300)))), arm)


def test_no_robot_model_is_a_rejection():
    with pytest.raises(MotionRejected) as info:
        check_play(Playback(arm_motion(ServoTrack('elbow', (0, 1), (0, 100)))), None)
    assert info.value.code == 'NO_ROBOT_MODEL'


def test_mimic_joints_cannot_be_driven():
    urdf = """<robot name="r"><link name="a"/><link name="b"/><link name="c"/>
      <joint name="j1" type="revolute"><parent link="a"/><child link="b"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
      <joint name="j2" type="revolute"><parent link="b"/><child link="c"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="j1"/></joint>
    </robot>"""
    with pytest.raises(MotionRejected, match="a mimic joint \\(it follows 'j1'\\)"):
        check_play(Playback(arm_motion(ServoTrack('j2', (0, 0.1), (0, 10)))),
                   RobotJoints.from_urdf_text(urdf))


@pytest.mark.parametrize('points, fragment', [
    ([TrajectoryPoint(0.0, (0.0,), None), TrajectoryPoint(0.0, (1.0,), None)],
     'not strictly increasing'),
    ([TrajectoryPoint(0.0, (0.0,), (0.0,)), TrajectoryPoint(1.0, (1.0,), (0.5,))],
     'last point must have zero velocity'),
    ([TrajectoryPoint(0.0, (0.0,), (0.0,)), TrajectoryPoint(1.0, (1.0,), None)],
     'for every joint in every point'),
    ([TrajectoryPoint(0.0, (math.nan,), None)], 'finite positions'),
    ([], 'no points'),
])
def test_controller_rules(points, fragment):
    with pytest.raises(MotionRejected, match=fragment):
        check_trajectory(('j',), points)


# --- the CLI JSON contract ----------------------------------------------------------------

def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'robot_formats.cli', *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize('rate', [10.0, 31.25, 7.0])
def test_motion_json_contract(rate, tmp_path):
    path = tmp_path / 'm.xmdi'
    path.write_text('<xmdi><motions><motion name="m">'
                    '<servo name="a"><position>0 -.7 .2</position><frames>0 10 40</frames></servo>'
                    '<servo name="b"><position>1 2 .5 .25</position><frames>5 15 20 30</frames>'
                    '</servo></motion><motion name="second"><servo name="c"><position>3'
                    '</position><frames>7</frames></servo></motion></motions></xmdi>')
    run = cli('motion', str(path), '--rate', str(rate), '--json')
    assert run.returncode == 0, run.stderr
    document = json.loads(run.stdout)
    assert list(document) == ['motions'] and list(document['motions']) == ['m', 'second']
    m = document['motions']['m']
    assert set(m) == {'duration', 'joints', 'samples'}
    assert m['duration'] == 40 * 0.032 and m['joints'] == ['a', 'b']
    duration = 40 * 0.032
    times = [k / rate for k in range(1000) if k / rate < duration - 1e-9] + [duration]
    assert [row[0] for row in m['samples']] == times
    for t, qa, qb in m['samples']:
        assert qa == pytest.approx(linear_reference(A.frames, A.positions, t), abs=1e-12)
        assert qb == pytest.approx(linear_reference(B.frames, B.positions, t), abs=1e-12)
    second = document['motions']['second']
    assert second['duration'] == 7 * 0.032 and second['joints'] == ['c']
    assert all(row[1] == 3.0 for row in second['samples'])


def test_motion_cli_options(tmp_path):
    run = cli('motion', 'examples/xmdi/arm_wave.xmdi', '--motion', 'grasp', '--json',
              '--frame-period', '0.01')
    document = json.loads(run.stdout)
    assert list(document['motions']) == ['grasp']
    assert document['motions']['grasp']['duration'] == 120 * 0.01
    assert len(document['motions']['grasp']['samples']) == 121  # default: one per frame
    run = cli('motion', 'examples/xmdi/arm_wave.xmdi', '--motion', 'nope')
    assert run.returncode == 2 and "no motion named 'nope'" in run.stderr
    assert cli('motion', 'examples/xmdi/arm_wave.xmdi', '--rate', '0').returncode == 2
    out = tmp_path / 'back.xmdi'
    run = cli('motion', 'examples/xmdi/arm_wave.xmdi', '--to-xmdi', str(out))
    assert run.returncode == 0 and f'wrote {out}' in run.stderr
    again, _ = read_xmdi(out)
    original, _ = read_xmdi(ROOT / 'examples' / 'xmdi' / 'arm_wave.xmdi')
    assert [(m.name, [(s.name, s.positions, s.frames) for s in m.servos]) for m in again.motions] \
        == [(m.name, [(s.name, s.positions, s.frames) for s in m.servos]) for m in original.motions]
    bad = tmp_path / 'bad.xmdi'
    bad.write_text('<xmdi><motions><motion name="m">\n<servo name="a"><position>0 1</position>'
                   '<frames>0</frames></servo></motion></motions></xmdi>')
    run = cli('motion', str(bad), '--json')
    assert run.returncode == 1 and run.stderr.startswith(f'{bad}:2: ') and not run.stdout
