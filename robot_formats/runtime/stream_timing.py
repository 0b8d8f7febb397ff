"""Timing of a stream of messages published at fixed instants, without ROS: the samples a play
needs at each tick (evaluated a chunk at a time), when each message really left relative to its
schedule, and a thread that wakes on time (sleep, then spin the last fraction of a millisecond).

motion_player's stream outputs (forward_command_controller, joint_states) run on it; its
measurements are what ``benchmarks/motion_stream.py`` reads.
"""

from __future__ import annotations

import ctypes
import os
import time

import numpy as np

from robot_formats.formats.xmdi.playback import Playback

__all__ = ['StreamSamples', 'TickTiming', 'TIMED_TICKS', 'SPIN_MARGIN', 'wait_until',
           'timing_thread_setup']


class StreamSamples:
    """Positions and velocities of a play at the stream's ticks, evaluated a chunk at a time
    (vectorised) as the stream reaches them: bounded memory for long plays, no per-tick
    interpolation work."""

    def __init__(self, playback: Playback, taus, chunk: int) -> None:
        """``taus``: the tick times, any sequence whose slices are arrays (an array, or a
        :class:`~robot_formats.formats.xmdi.playback.SampleTimes` computing them when read)."""
        self.playback, self.taus, self.chunk = playback, taus, chunk
        self.first = -chunk
        self.positions = self.velocities = np.zeros((0, 0))

    def get(self, tick: int) -> tuple[np.ndarray, np.ndarray]:
        if not self.first <= tick < self.first + self.chunk:
            self.first = tick
            self.positions, self.velocities = self.playback.states_at(
                self.taus[tick:tick + self.chunk])
        return self.positions[tick - self.first], self.velocities[tick - self.first]


#: Publish instants a :class:`TickTiming` keeps for its percentiles (8 MB): those of the first
#: ticks of a longer stream (its maximum counts every tick), so a day-long play's memory stays
#: bounded.
TIMED_TICKS = 1_000_000


class TickTiming:
    """When each streamed message was actually published, relative to its scheduled instant
    (measured right after ``publish`` returned, with the same monotonic clock): percentiles over
    the first :data:`TIMED_TICKS` ticks, the maximum over all."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.lateness = np.zeros(min(count, TIMED_TICKS))
        self.recorded = 0
        self.worst = 0.0

    def record(self, tick: int, late: float) -> None:
        if tick < len(self.lateness):
            self.lateness[tick] = late
            self.recorded = tick + 1
        self.worst = max(self.worst, abs(late))

    def percentile_ms(self, q: float) -> float:
        return float(np.percentile(np.abs(self.lateness[:self.recorded]), q) * 1e3)

    def summary(self) -> str:
        """One sentence: the benchmark (benchmarks/motion_stream.py) parses these numbers."""
        if not self.recorded:
            return 'no message published'
        return (f'publish time - schedule: p50 {self.percentile_ms(50):.4f} ms, '
                f'p99 {self.percentile_ms(99):.4f} ms, max {self.worst * 1e3:.4f} ms')


#: The play thread sleeps until this long before a deadline, then spins: longer than a sleep's
#: wake-up latency (timer slack set to 1 µs), short enough to keep the spinning share of a core
#: small (a thread that burns CPU loses the scheduler's favour when the machine is busy).
SPIN_MARGIN = 0.0002


def wait_until(deadline: float) -> None:
    """Sleep to SPIN_MARGIN before ``deadline`` (monotonic), then spin the rest."""
    remaining = deadline - time.monotonic()
    if remaining > SPIN_MARGIN:
        time.sleep(remaining - SPIN_MARGIN)
    while time.monotonic() < deadline:
        pass


def timing_thread_setup(realtime_priority: int) -> str | None:
    """Make the calling (play) thread wake on time: 1 µs timer slack (Linux prctl) and, when
    ``realtime_priority`` > 0, SCHED_FIFO at that priority (as ros2_control's realtime
    threads). Returns why the priority could not be set, or None."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_TIMERSLACK, ctypes.c_ulong(1000), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the default slack only costs accuracy
    if realtime_priority <= 0:
        return None
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(realtime_priority))
    except (OSError, AttributeError, ValueError) as err:
        return f'realtime_priority {realtime_priority} not applied ({err}); normal scheduling'
    return None


_PR_SET_TIMERSLACK = 29
