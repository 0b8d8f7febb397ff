"""A play's size is bounded before anything is computed: a day of play at most
(``MAX_PLAY_TIME``), at most ``MAX_PLAY_POINTS`` trajectory points, and stream tick times made
when read (``SampleTimes``), so a goal with ``loop_count = 2**32 - 1`` or ``speed_factor =
1e-300`` is refused at once instead of filling memory.

The tick times are compared with a reference written here from their definition (numpy, not
robot_formats); the budgets with counts worked out by hand from the motion's key frames.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from robot_formats.core.errors import InvalidValueError
from robot_formats.formats.xmdi.document import Motion, ServoTrack
from robot_formats.formats.xmdi.playback import (MAX_PLAY_POINTS, MAX_PLAY_TIME, MotionModel,
                                                 Playback, PlayOptions, SampleTimes,
                                                 sample_times)
from robot_formats.formats.xmdi.safety import (JointLimit, MotionRejected, RobotJoints,
                                               check_play)

PERIOD = 0.01
#: keys at frames 0, 5, 10, 20, 30: five key times over 0.3 s
MOTION = Motion('m', (ServoTrack('a', (0.0, 1.0, -0.5), (0, 10, 30)),
                      ServoTrack('b', (0.2, 0.4), (5, 20))))
STILL = Motion('still', (ServoTrack('a', (0.3,), (0,)),))
ROBOT = RobotJoints({'a': JointLimit('a', 'revolute', -2.0, 2.0, 1000.0),
                     'b': JointLimit('b', 'revolute', -2.0, 2.0, 1000.0)}, {})


def reference_times(duration: float, rate: float) -> np.ndarray:
    """0, 1/rate, ... while before the duration (by more than 1 ns), then the duration."""
    grid = np.arange(int(duration * rate) + 2) / rate
    return np.append(grid[grid < duration - 1e-9], duration)


def model(motion: Motion = MOTION) -> MotionModel:
    return MotionModel(motion, frame_period=PERIOD)


@pytest.mark.parametrize('seed', range(5))
def test_sample_times_are_the_grid_then_the_duration(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cases = [(0.0, 100.0), (4.8, 100.0), (0.3, 1 / 0.032)]
    cases += [(float(rng.uniform(0, 5)), float(rng.uniform(1, 1000))) for _ in range(200)]
    cases += [(k * 0.01, 100.0) for k in range(300)]  # durations on the grid
    for duration, rate in cases:
        expected = reference_times(duration, rate)
        times = SampleTimes(duration, rate)
        assert len(times) == len(expected), (duration, rate)
        assert np.array_equal(times[:], expected) and np.array_equal(list(times), expected)
        assert np.array_equal(sample_times(duration, rate), expected)
        middle = len(expected) // 2
        assert np.array_equal(times[middle:middle + 7], expected[middle:middle + 7])
        assert times[-1] == duration and times[0] == 0.0


def test_a_day_of_tick_times_costs_nothing_until_read() -> None:
    times = SampleTimes(MAX_PLAY_TIME, 1000.0)
    assert len(times) == 86_400_001
    assert np.array_equal(times[86_399_998:], [86_399.998, 86_399.999, 86_400.0])
    with pytest.raises(InvalidValueError, match='more than 20000000'):
        sample_times(MAX_PLAY_TIME, 1000.0)  # all at once: refused, not 700 MB


@pytest.mark.parametrize('options, words', [
    (PlayOptions(loops=2**32 - 1), 'the play would last 1.33144e+09 s (4294967295 loop(s)'),
    (PlayOptions(speed=1e-300), 'the play would last 3e+299 s'),
    (PlayOptions(speed=1e-6, loops=1), 'more than the 86400 s a play may last'),
])
def test_a_play_longer_than_a_day_is_refused_at_once(options: PlayOptions, words: str) -> None:
    with pytest.raises(InvalidValueError) as caught:
        Playback(model(), options)
    assert words in caught.value.message


def test_the_longest_play_is_accepted() -> None:
    loops = int((MAX_PLAY_TIME - 0.3) // (0.3 + PERIOD)) + 1  # 0.3 s, then 0.31 s per loop
    playback = Playback(model(), PlayOptions(loops=loops))
    assert playback.total_time <= MAX_PLAY_TIME
    with pytest.raises(InvalidValueError):
        Playback(model(), PlayOptions(loops=loops + 1))


def test_trajectory_points_are_counted_before_they_are_made() -> None:
    # 5 key times per loop, the seek position first: seek 0.1 s leaves keys 0.2 and 0.3
    assert Playback(model(), PlayOptions(start_time=0.1, loops=3)).point_count() == 3 + 2 * 5
    for loops in (1, 2, 5):
        for start in (0.0, 0.05, 0.1, 0.3):
            for reverse in (False, True):
                playback = Playback(model(), PlayOptions(loops=loops, start_time=start,
                                                         reverse=reverse))
                assert playback.point_count() == len(playback.trajectory_points())
    too_many = MAX_PLAY_POINTS // 5 + 1
    playback = Playback(model(), PlayOptions(loops=too_many))
    with pytest.raises(InvalidValueError, match=f'more than the {MAX_PLAY_POINTS}'):
        playback.trajectory_points()


def test_a_still_motion_looped_without_end_is_one_point() -> None:
    playback = Playback(model(STILL), PlayOptions(loops=2**32 - 1))
    assert playback.total_time == 0.0
    points = playback.trajectory_points()
    assert [(p.time, p.positions) for p in points] == [(0.0, (0.3,))]


def test_a_streamed_play_checks_one_loop_and_a_sent_one_every_point() -> None:
    loops = MAX_PLAY_POINTS // 5 + 1  # 6 hours of play: streamable, too many points to send
    playback = Playback(model(), PlayOptions(loops=loops))
    assert check_play(playback, ROBOT, whole_trajectory=False) == []
    with pytest.raises(MotionRejected) as caught:
        check_play(playback, ROBOT)
    assert caught.value.code == 'INVALID_GOAL' and 'lower the loop count' in caught.value.message
    assert len(check_play(Playback(model(), PlayOptions(loops=2)), ROBOT)) == 10
    assert math.isclose(playback.total_time, 0.3 + (loops - 1) * 0.31)
