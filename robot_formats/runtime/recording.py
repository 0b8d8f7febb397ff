"""Joint motion recorded into XMDI key frames: what motion_recorder and ``robot-formats record``
do with every joint state they receive. No ROS here: stamped samples in, a Motion out.

* **Frames**: frame 0 is the first sample; frame ``k`` is ``k · frame_period`` later. A frame's
  value is the linear interpolation of the two samples around its time (the samples' own
  stamps, so transport delays and lost messages do not shift the motion).
* **Servos**: a joint is written as the servo that drives it in the servo map, with the map's
  scale and offset inverted (``servo = (joint - offset) / scale``), so the player, given the
  same map, drives the joint back to the recorded value.
* **Key frames**: a frame is kept only where linear interpolation between the kept ones would
  miss it by more than ``tolerance`` (1e-4 rad by default, in joint units: a scaled servo's
  tolerance is divided by the scale). The reduction is streaming (each
  servo keeps its last key and the slope interval that reproduces every frame since), so a
  recording holds its key frames only: a still or linear stretch of any length costs nothing.

Exactness: the player interpolates linearly between key frames, so the replay reproduces every
recorded frame within ``tolerance``. Between frames it reproduces the recorded signal sampled
at the frame period: a corner between two frames is cut (by at most half the change of
velocity times the frame period, per the sampling theorem's linear case).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from robot_formats.core.errors import InvalidValueError
from robot_formats.formats.xmdi.document import DEFAULT_FRAME_PERIOD, Motion, ServoTrack
from robot_formats.formats.xmdi.mapping import ServoBinding, ServoMapping

__all__ = ['KeyFrameReducer', 'MotionRecorder', 'RecordingStats', 'DEFAULT_TOLERANCE']

#: Default key-frame tolerance, in joint units (rad or m).
DEFAULT_TOLERANCE = 1e-4
#: Slack on the tolerance for rounding: a frame exactly on the line is never a key.
_ROUNDING = 1e-12


class KeyFrameReducer:
    """One servo's key frames, reduced as frames arrive (O(1) state besides the keys).

    From the last key (the anchor), the lines to later frames that pass within ``tolerance``
    of every frame in between form an interval of slopes; a new frame whose own slope is in
    that interval can end the line, else the previous frame becomes a key.
    """

    def __init__(self, tolerance: float) -> None:
        self.tolerance = tolerance
        self.frames: list[int] = []
        self.values: list[float] = []
        self._candidate: tuple[int, float] | None = None
        self._low, self._high = -math.inf, math.inf

    def add(self, frame: int, value: float) -> None:
        if not self.frames:
            self._keep(frame, value)
            return
        candidate = self._candidate
        self._candidate = (frame, value)
        if candidate is None:
            return
        anchor_frame, anchor_value = self.frames[-1], self.values[-1]
        span = candidate[0] - anchor_frame
        slack = self.tolerance + _ROUNDING
        low = max(self._low, (candidate[1] - slack - anchor_value) / span)
        high = min(self._high, (candidate[1] + slack - anchor_value) / span)
        slope = (value - anchor_value) / (frame - anchor_frame)
        if low <= slope <= high:
            self._low, self._high = low, high
            return
        self._keep(*candidate)
        self._candidate = (frame, value)

    def _keep(self, frame: int, value: float) -> None:
        self.frames.append(frame)
        self.values.append(value)
        self._low, self._high = -math.inf, math.inf

    @property
    def key_count(self) -> int:
        """How many key frames :meth:`keys` gives now."""
        return len(self.frames) + (self._candidate is not None)

    def keys(self) -> tuple[tuple[int, ...], tuple[float, ...]]:
        """The key frames so far, the last frame seen included (the recording goes on)."""
        frames, values = list(self.frames), list(self.values)
        if self._candidate is not None:
            frames.append(self._candidate[0])
            values.append(self._candidate[1])
        return tuple(frames), tuple(values)


@dataclass(frozen=True, slots=True)
class RecordingStats:
    samples: int          #: samples used
    dropped: int          #: samples refused: stamp not after the previous, joint missing, NaN
    frames: int           #: frames sampled (the last is frames - 1)
    key_frames: int       #: kept, over all servos
    duration: float       #: seconds from frame 0 to the last frame


class MotionRecorder:
    """Stamped joint states in, an XMDI :class:`Motion` out."""

    def __init__(self, joints: Sequence[str] | None = None, mapping: ServoMapping | None = None,
                 frame_period: float = DEFAULT_FRAME_PERIOD,
                 tolerance: float = DEFAULT_TOLERANCE) -> None:
        if not (math.isfinite(frame_period) and frame_period > 0):
            raise InvalidValueError(f'frame period {frame_period!r} must be a positive number '
                                    'of seconds')
        if not (math.isfinite(tolerance) and tolerance >= 0):
            raise InvalidValueError(f'tolerance {tolerance!r} must be a non-negative number')
        if joints is not None and len(set(joints)) != len(joints):
            raise InvalidValueError('the joints to record name a joint twice')
        self.mapping = mapping or ServoMapping.identity()
        self.frame_period = float(frame_period)
        self.tolerance = float(tolerance)
        self.joints: tuple[str, ...] | None = tuple(joints) if joints else None
        self._bindings: tuple[ServoBinding, ...] = ()
        self._reducers: tuple[KeyFrameReducer, ...] = ()
        if self.joints is not None:
            self._bind(self.joints)
        self._layout: tuple[tuple[str, ...], tuple[int, ...]] | None = None
        self._start: float | None = None
        self._previous: tuple[float, tuple[float, ...]] | None = None
        self._next_frame = 0
        self.samples = 0
        self.dropped = 0

    def _bind(self, joints: tuple[str, ...]) -> None:
        bindings = tuple(self.mapping.binding_for_joint(j) for j in joints)
        servos = [b.servo for b in bindings]
        if len(set(servos)) != len(servos):
            raise InvalidValueError('two recorded joints map to one servo name')
        self.joints, self._bindings = joints, bindings
        # the tolerance is in joint units: a servo scaled by s reproduces its joint within
        # |s| times the servo's own error
        self._reducers = tuple(KeyFrameReducer(self.tolerance / abs(b.scale)) for b in bindings)

    def _indices(self, names: Sequence[str]) -> tuple[int, ...] | None:
        """Where each recorded joint is in a message's ``names`` (cached per name layout)."""
        key = tuple(names)
        if self._layout is not None and self._layout[0] == key:
            return self._layout[1]
        if self.joints is None:
            self._bind(key)
        assert self.joints is not None
        position = {name: i for i, name in enumerate(key)}
        if any(joint not in position for joint in self.joints):
            return None
        indices = tuple(position[joint] for joint in self.joints)
        self._layout = (key, indices)
        return indices

    def add(self, stamp: float, names: Sequence[str], positions: Sequence[float]) -> bool:
        """One joint state; False (and counted as dropped) when it cannot be used: a stamp
        not after the previous one, a recorded joint missing, a non-finite value."""
        indices = self._indices(names) if len(names) == len(positions) else None
        if indices is None or not math.isfinite(stamp):
            self.dropped += 1
            return False
        values = tuple(float(positions[i]) for i in indices)
        if not all(math.isfinite(v) for v in values):
            self.dropped += 1
            return False
        previous = self._previous
        if previous is not None and stamp <= previous[0]:
            self.dropped += 1
            return False
        if self._start is None:
            self._start = stamp
        self._emit_frames(previous, stamp, values)
        self._previous = (stamp, values)
        self.samples += 1
        return True

    def _emit_frames(self, previous: tuple[float, tuple[float, ...]] | None, stamp: float,
                     values: tuple[float, ...]) -> None:
        """Every frame whose time is after the previous sample and not after this one."""
        assert self._start is not None
        while True:
            time = self._start + self._next_frame * self.frame_period
            if time > stamp + 1e-9:
                return
            if previous is None:
                frame_values = values
            else:
                fraction = (time - previous[0]) / (stamp - previous[0])
                fraction = min(max(fraction, 0.0), 1.0)
                frame_values = tuple(a + (b - a) * fraction for a, b in zip(previous[1], values))
            for reducer, binding, value in zip(self._reducers, self._bindings, frame_values):
                reducer.add(self._next_frame, float(binding.to_servo(value)))
            self._next_frame += 1

    @property
    def duration(self) -> float:
        """Seconds from frame 0 to the last frame sampled so far."""
        return max(self._next_frame - 1, 0) * self.frame_period

    def stats(self) -> RecordingStats:
        keys = sum(r.key_count for r in self._reducers)
        return RecordingStats(self.samples, self.dropped, self._next_frame, keys, self.duration)

    def motion(self, name: str) -> Motion:
        """The recording so far as a motion (the recorder can go on)."""
        if not self._next_frame:
            raise InvalidValueError('nothing was recorded: no joint state with every recorded '
                                    'joint arrived')
        tracks = []
        for reducer, binding in zip(self._reducers, self._bindings):
            frames, values = reducer.keys()
            tracks.append(ServoTrack(binding.servo, values, frames))
        return Motion(name, tuple(tracks))
