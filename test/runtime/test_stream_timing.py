"""The stream timing motion_player's stream outputs run on (robot_formats/runtime/stream_timing.py),
without ROS: samples evaluated a chunk at a time equal the play's state at every tick, lateness
statistics, and a wait that never returns before its deadline."""

from __future__ import annotations

import time

import numpy as np
import pytest

from robot_formats.formats.xmdi.document import Motion, ServoTrack
from robot_formats.formats.xmdi.playback import MotionModel, Playback, PlayOptions, SampleTimes
from robot_formats.runtime.stream_timing import (SPIN_MARGIN, TIMED_TICKS, StreamSamples,
                                                 TickTiming, timing_thread_setup, wait_until)

MOTION = Motion('m', (ServoTrack('a', (0.0, 1.0, -0.5), (0, 10, 30)),
                      ServoTrack('b', (0.2, 0.4), (5, 20))))


@pytest.mark.parametrize('chunk', [1, 7, 64, 10_000])
def test_samples_in_chunks_equal_the_state_at_every_tick(chunk: int) -> None:
    playback = Playback(MotionModel(MOTION, frame_period=0.01, interpolation='cubic'),
                        PlayOptions(loops=2))
    taus = np.arange(0.0, playback.total_time, 0.004)
    samples = StreamSamples(playback, taus, chunk)
    for tick in [*range(len(taus)), 3, 0]:  # in order, then back: a new chunk is evaluated
        positions, velocities = samples.get(tick)
        state = playback.state(taus[tick])
        assert np.array_equal(positions, state.positions), tick
        assert np.array_equal(velocities, state.velocities), tick
    assert len(samples.positions) <= chunk  # bounded memory, whatever the play's length


def test_tick_timing_percentiles_and_summary() -> None:
    timing = TickTiming(5)
    assert timing.summary() == 'no message published'
    for tick, late in enumerate([0.001, -0.002, 0.0005, 0.004]):
        timing.record(tick, late)
    assert timing.recorded == 4
    assert timing.percentile_ms(100) == pytest.approx(4.0)
    assert timing.percentile_ms(50) == pytest.approx(1.5)
    assert timing.summary() == ('publish time - schedule: p50 1.5000 ms, p99 3.9400 ms, '
                                'max 4.0000 ms')


def test_a_day_long_stream_keeps_bounded_memory() -> None:
    playback = Playback(MotionModel(MOTION, frame_period=0.01), PlayOptions(loops=200_000))
    taus = SampleTimes(playback.total_time, 1000.0)  # 62 million ticks, none made yet
    samples = StreamSamples(playback, taus, 64)
    last = len(taus) - 1
    positions, _ = samples.get(last)
    assert np.array_equal(positions, playback.state(playback.total_time).positions)
    timing = TickTiming(len(taus))
    assert len(timing.lateness) == TIMED_TICKS
    for tick, late in ((0, 0.001), (TIMED_TICKS - 1, 0.002), (last, -0.05)):
        timing.record(tick, late)
    assert timing.recorded == TIMED_TICKS  # the percentiles: the first ticks
    assert timing.summary().endswith('max 50.0000 ms')  # the maximum: every tick


def test_wait_until_never_returns_early() -> None:
    timing_thread_setup(0)  # 1 µs timer slack where the OS allows it; no priority asked
    for delay in (0.0, SPIN_MARGIN / 2, 0.002, 0.01):
        deadline = time.monotonic() + delay
        wait_until(deadline)
        assert time.monotonic() >= deadline
