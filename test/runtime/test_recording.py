"""runtime.recording: joint states -> XMDI key frames (what motion_recorder does with them).

The promises checked: every sampled frame is reproduced by linear interpolation between the
kept key frames within the tolerance (checked with numpy.interp, not with the player); frames
are the samples' linear interpolation at k · frame_period after the first sample; keys sit where
the motion bends and nowhere else; the servo map's scale and offset are inverted exactly; bad
samples are counted and skipped; a ten-minute recording at 100 Hz holds its key frames only.
"""

from __future__ import annotations

import math
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

from robot_formats.core.errors import InvalidValueError
from robot_formats.formats.xmdi.mapping import ServoMapping
from robot_formats.formats.xmdi.playback import MotionModel
from robot_formats.formats.xmdi.reader import read_xmdi
from robot_formats.formats.xmdi.writer import write_xmdi
from robot_formats.runtime.recording import KeyFrameReducer, MotionRecorder

PERIOD = 0.032


def replay(frames, values, at) -> np.ndarray:
    """Linear interpolation between key frames (what the player does), by numpy."""
    return np.interp(at, np.asarray(frames, dtype=float), np.asarray(values, dtype=float))


@pytest.mark.parametrize('tolerance', [0.0, 1e-6, 1e-4, 1e-2])
@pytest.mark.parametrize('seed', range(6))
def test_every_frame_is_reproduced_within_the_tolerance(tolerance: float, seed: int):
    rng = np.random.default_rng(seed)
    count = 3000
    signal = np.cumsum(rng.normal(0.0, 0.01, count)) + np.sin(np.arange(count) / 50.0)
    reducer = KeyFrameReducer(tolerance)
    for frame, value in enumerate(signal):
        reducer.add(frame, float(value))
    frames, values = reducer.keys()
    assert frames[0] == 0 and frames[-1] == count - 1
    assert list(frames) == sorted(set(frames))
    error = np.abs(replay(frames, values, np.arange(count)) - signal)
    assert error.max() <= tolerance + 1e-9
    if tolerance >= 1e-2:  # steps of 0.01 rad: above that, it reduces
        assert len(frames) < count / 2


def test_keys_sit_exactly_where_a_piecewise_linear_motion_bends():
    corners = [0, 40, 41, 90, 200, 260, 261, 400]
    heights = [0.0, 1.0, -0.5, -0.5, 2.0, 0.1, 0.3, 0.3]
    signal = np.interp(np.arange(401), corners, heights)
    reducer = KeyFrameReducer(1e-4)
    for frame, value in enumerate(signal):
        reducer.add(frame, float(value))
    frames, values = reducer.keys()
    assert list(frames) == corners and reducer.key_count == len(corners)
    assert np.allclose(values, heights, atol=1e-12)


def test_a_still_or_straight_recording_keeps_two_keys():
    for signal in (np.full(1000, 0.7), np.linspace(-1.0, 3.0, 1000)):
        reducer = KeyFrameReducer(1e-4)
        for frame, value in enumerate(signal):
            reducer.add(frame, float(value))
        assert reducer.keys()[0] == (0, 999)


def test_frames_are_the_samples_interpolated_at_the_frame_period():
    # samples at 7 ms with jitter, stamps not on the frame grid; a smooth curve
    rng = np.random.default_rng(3)
    stamps = 100.0 + np.cumsum(rng.uniform(0.004, 0.010, 800))
    values = np.sin(stamps * 3.0)
    recorder = MotionRecorder(frame_period=PERIOD, tolerance=0.0)
    for stamp, value in zip(stamps, values):
        assert recorder.add(float(stamp), ['j'], [float(value)])
    stats = recorder.stats()
    frame_times = stamps[0] + np.arange(stats.frames) * PERIOD
    assert frame_times[-1] <= stamps[-1] + 1e-9 < frame_times[-1] + PERIOD
    expected = np.interp(frame_times, stamps, values)
    track = recorder.motion('m').servos[0]
    got = replay(track.frames, track.positions, np.arange(stats.frames))
    assert np.abs(got - expected).max() <= 1e-9
    assert stats.duration == pytest.approx((stats.frames - 1) * PERIOD)


def test_servo_map_is_inverted_so_the_player_drives_the_joints_back():
    mapping = ServoMapping.from_yaml_text(
        'servos:\n  ElbowS: {joint: elbow, scale: -2.0, offset: 0.25}\n  Base: base_yaw\n')
    recorder = MotionRecorder(['base_yaw', 'elbow', 'wrist'], mapping, PERIOD, 1e-6)
    times = np.arange(0.0, 3.0, 0.01)
    joints = np.stack([np.sin(times), np.cos(2 * times), times * 0.3], axis=1)
    for t, row in zip(times, joints):
        recorder.add(float(t), ['wrist', 'elbow', 'base_yaw', 'other'],
                     [row[2], row[1], row[0], 9.0])
    motion = recorder.motion('back')
    assert motion.servo_names == ('Base', 'ElbowS', 'wrist')
    elbow = motion.servos[1]
    assert elbow.positions[0] == pytest.approx((1.0 - 0.25) / -2.0)
    model = MotionModel(motion, mapping, PERIOD)
    assert model.joints == ('base_yaw', 'elbow', 'wrist')
    frame_times = np.arange(0, recorder.stats().frames) * PERIOD
    expected = np.stack([np.interp(frame_times, times, joints[:, k]) for k in range(3)], axis=1)
    assert np.abs(model.positions(frame_times) - expected).max() <= 2 * 2e-6  # scale 2


def test_unusable_samples_are_counted_and_skipped():
    recorder = MotionRecorder(['a', 'b'])
    assert recorder.add(1.0, ['a', 'b'], [0.0, 0.0])
    assert not recorder.add(1.0, ['a', 'b'], [1.0, 1.0])           # same stamp
    assert not recorder.add(0.5, ['a', 'b'], [1.0, 1.0])           # earlier
    assert not recorder.add(2.0, ['a'], [1.0])                     # b missing
    assert not recorder.add(2.0, ['a', 'b'], [math.nan, 1.0])      # not a number
    assert not recorder.add(2.0, ['a', 'b'], [1.0])                # lengths differ
    assert recorder.add(2.0, ['b', 'a'], [2.0, 1.0])
    stats = recorder.stats()
    assert (stats.samples, stats.dropped) == (2, 5)
    track_a, track_b = recorder.motion('m').servos
    assert track_a.positions[-1] == pytest.approx(1.0 * 31 * PERIOD)  # frame 31 at 0.992 s
    assert track_b.positions[-1] == pytest.approx(2.0 * 31 * PERIOD)


def test_nothing_recorded_and_bad_settings_are_refused():
    with pytest.raises(InvalidValueError, match='nothing was recorded'):
        MotionRecorder().motion('m')
    with pytest.raises(InvalidValueError, match='frame period'):
        MotionRecorder(frame_period=0.0)
    with pytest.raises(InvalidValueError, match='tolerance'):
        MotionRecorder(tolerance=-1.0)
    with pytest.raises(InvalidValueError, match='twice'):
        MotionRecorder(['a', 'a'])


def test_ten_minutes_at_100_hz_hold_key_frames_only(tmp_path):
    """60,000 samples of 6 joints: the recorder's memory is its key frames (a few hundred
    bytes each), nothing per sample or per frame; the file it writes passes `check`."""
    corners = np.arange(0.0, 601.0, 7.3)   # a motion that bends every 7.3 s
    heights = np.sin(corners)
    names = [f'joint{k}' for k in range(6)]
    recorder = MotionRecorder(names)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(60_000):
        t = i * 0.01
        q = float(np.interp(t, corners, heights))
        recorder.add(t, names, [q * (k + 1) for k in range(6)])
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    stats = recorder.stats()
    assert stats.samples == 60_000 and stats.frames == 18_750
    per_key = (peak - before) / stats.key_frames
    assert stats.key_frames < 6 * 2 * len(corners), stats
    assert per_key < 400, f'{peak - before} bytes for {stats.key_frames} key frames'
    path = tmp_path / 'long.xmdi'
    write_xmdi([recorder.motion('long')], path)
    check = subprocess.run([sys.executable, '-m', 'robot_formats.cli', 'check', str(path)],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0 and 'valid xmdi' in check.stdout, check.stderr
    document, warnings = read_xmdi(path)
    recorded = recorder.motion('long')
    assert warnings == ()
    assert [(s.name, s.positions, s.frames) for s in document.motions[0].servos] == \
        [(s.name, s.positions, s.frames) for s in recorded.servos]
