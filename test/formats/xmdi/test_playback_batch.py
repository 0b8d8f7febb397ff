"""Playback.states_at / Playback.where (what motion_player streams and reports as feedback) equal
Playback.state at every time, and a linear case equals values written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from robot_formats.formats.xmdi.document import Motion, ServoTrack
from robot_formats.formats.xmdi.playback import MotionModel, Playback, PlayOptions

MOTION = Motion('m', (ServoTrack('a', (0.0, 1.0, -0.5), (0, 10, 30)),
                      ServoTrack('b', (0.2, 0.4), (5, 20))))


@pytest.mark.parametrize('interpolation', ['linear', 'cubic'])
@pytest.mark.parametrize('options', [PlayOptions(), PlayOptions(speed=1.7, loops=3),
                                     PlayOptions(reverse=True, start_time=0.1, loops=2),
                                     PlayOptions(speed=0.6, reverse=True)])
def test_batch_sampling_equals_state(interpolation, options):
    playback = Playback(MotionModel(MOTION, frame_period=0.01, interpolation=interpolation),
                        options)
    taus = np.append(np.linspace(-0.01, playback.total_time + 0.01, 997), playback.total_time)
    positions, velocities = playback.states_at(taus)
    for index, tau in enumerate(taus):
        state = playback.state(tau)
        assert np.array_equal(positions[index], state.positions), tau
        assert np.array_equal(velocities[index], state.velocities), tau
        assert playback.where(tau) == (state.motion_time, state.loop, state.progress), tau


def test_batch_sampling_of_a_linear_motion_by_hand():
    playback = Playback(MotionModel(MOTION, frame_period=0.01), PlayOptions(speed=2.0))
    positions, velocities = playback.states_at([0.0, 0.025, 0.05, 0.1, 0.15])
    # play time x 2 = motion time; frame = motion time / 0.01 -> frames 0, 5, 10, 20, 30
    expected = [[0.0, 0.2], [0.5, 0.2], [1.0, 0.2 + 0.2 * 5 / 15], [0.25, 0.4], [-0.5, 0.4]]
    assert np.allclose(positions, expected, atol=1e-12, rtol=0)
    # at frame 5 servo a rises 1 per 0.1 s and b starts 0.2 per 0.15 s (x speed 2); at rest at
    # the end
    assert np.allclose(velocities[1], [2 * 1.0 / 0.1, 2 * 0.2 / 0.15], atol=1e-9, rtol=0)
    assert velocities[-1].tolist() == [0.0, 0.0]
