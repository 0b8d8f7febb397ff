"""The stream timing motion_player's stream outputs run on (robot_formats/runtime/stream_timing.py),
without ROS: samples evaluated a chunk at a time equal the play's state at every tick, lateness
statistics, and a wait that never returns before its deadline."""

from __future__ import annotations

import time

import numpy as np
import pytest

from robot_formats.formats.xmdi.document import Motion, ServoTrack
from robot_formats.formats.xmdi.playback import MotionModel, Playback, PlayOptions
from robot_formats.runtime.stream_timing import (SPIN_MARGIN, StreamSamples, TickTiming,
                                                 timing_thread_setup, wait_until)

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


def test_wait_until_never_returns_early() -> None:
    timing_thread_setup(0)  # 1 µs timer slack where the OS allows it; no priority asked
    for delay in (0.0, SPIN_MARGIN / 2, 0.002, 0.01):
        deadline = time.monotonic() + delay
        wait_until(deadline)
        assert time.monotonic() >= deadline
