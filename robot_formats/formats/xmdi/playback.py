"""The motion model: key frames → continuous joint trajectories, and one play of a motion.

* Time: key frame ``f`` is reached at ``t = f · frame_period`` (default 0.032 s, one Webots
  step). A motion lasts until its last key frame over all servos.
* Interpolation between a servo's key frames: ``linear`` (as Webots plays motions) or ``cubic``
  (piecewise cubic Hermite; monotone Fritsch–Carlson tangents inside, zero velocity at the
  first and last key frames, so it never overshoots the key values and starts/ends at rest).
* Outside its own key frames a servo holds its first (before) or last (after) value.
* Servos drive joints through a :class:`~robot_formats.formats.xmdi.mapping.ServoMapping`.
* A play (:class:`Playback`) adds the controls of Webots' Motion API: speed factor, reverse,
  loop count and seek (start time). Between two loops the jump from the last to the first pose
  takes one frame period (Webots wraps within one step); a controller is never asked to jump.

Pure numpy, no ROS: the CLI, the tests and the motion_player node share it.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Sequence, overload

import numpy as np

from robot_formats.core.errors import DuplicateNameError, InvalidValueError, LimitError
from robot_formats.formats.xmdi.document import DEFAULT_FRAME_PERIOD, Motion
from robot_formats.formats.xmdi.mapping import ServoMapping

__all__ = ['Interpolation', 'JointCurve', 'MotionModel', 'PlayOptions', 'PlayState', 'Playback',
           'TrajectoryPoint', 'SampleTimes', 'sample_times', 'MAX_PLAY_TIME', 'MAX_PLAY_POINTS',
           'MAX_SAMPLED_VALUES', 'check_sampling']

#: Two sample times closer than this are the same instant (grid point vs. the duration).
TIME_EPSILON = 1e-9


class Interpolation(enum.Enum):
    LINEAR = 'linear'
    CUBIC = 'cubic'

    @classmethod
    def parse(cls, value: str | Interpolation) -> Interpolation:
        if isinstance(value, Interpolation):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise InvalidValueError(f'interpolation {value!r} is not "linear" or "cubic"') from None


def _monotone_tangents(times: np.ndarray, values: np.ndarray) -> np.ndarray:
    """dq/dt at each key: 0 at both ends and where the slope changes sign, else the weighted
    harmonic mean of the neighbouring slopes (Fritsch–Carlson / PCHIP): no overshoot."""
    tangents = np.zeros(len(times))
    if len(times) < 3:
        return tangents
    h = np.diff(times)
    d = np.diff(values) / h
    for k in range(1, len(times) - 1):
        if d[k - 1] * d[k] <= 0.0:
            continue
        w1, w2 = 2 * h[k] + h[k - 1], h[k] + 2 * h[k - 1]
        tangents[k] = (w1 + w2) / (w1 / d[k - 1] + w2 / d[k])
    return tangents


@dataclass(frozen=True, eq=False)
class JointCurve:
    """One joint's trajectory over motion time: key times (s), values (joint units)."""

    joint: str
    servo: str
    times: np.ndarray
    values: np.ndarray
    tangents: np.ndarray   #: dq/dt at the keys (cubic); unused by linear
    interpolation: Interpolation

    def _segments(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(clamped t, segment index, segment start) for each t."""
        tc = np.clip(t, self.times[0], self.times[-1])
        index = np.clip(np.searchsorted(self.times, tc, side='right') - 1, 0,
                        max(len(self.times) - 2, 0))
        return tc, index, self.times[index]

    def position(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        if len(self.times) == 1:
            return np.full(t.shape, self.values[0])
        if self.interpolation is Interpolation.LINEAR:
            return np.interp(t, self.times, self.values)
        tc, k, t0 = self._segments(t)
        h = self.times[k + 1] - t0
        s = (tc - t0) / h
        p0, p1 = self.values[k], self.values[k + 1]
        m0, m1 = self.tangents[k] * h, self.tangents[k + 1] * h
        s2, s3 = s * s, s * s * s
        return ((2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * m0
                + (-2 * s3 + 3 * s2) * p1 + (s3 - s2) * m1)

    def velocity(self, t) -> np.ndarray:
        """dq/dt; 0 where the servo holds. Linear: the slope of the segment that starts at or
        before t (right-continuous at keys)."""
        t = np.asarray(t, dtype=float)
        if len(self.times) == 1:
            return np.zeros(t.shape)
        tc, k, t0 = self._segments(t)
        h = self.times[k + 1] - t0
        inside = (t >= self.times[0]) & (t < self.times[-1])
        if self.interpolation is Interpolation.LINEAR:
            slope = (self.values[k + 1] - self.values[k]) / h
            return np.where(inside, slope, 0.0)
        s = (tc - t0) / h
        p0, p1 = self.values[k], self.values[k + 1]
        m0, m1 = self.tangents[k] * h, self.tangents[k + 1] * h
        ds = ((6 * s * s - 6 * s) * p0 + (3 * s * s - 4 * s + 1) * m0
              + (-6 * s * s + 6 * s) * p1 + (3 * s * s - 2 * s) * m1)
        return ds / h

    def max_speed(self) -> float:
        """Largest |dq/dt| over the curve (exact: a cubic's derivative peaks at a segment end
        or at its vertex)."""
        if len(self.times) == 1:
            return 0.0
        h = np.diff(self.times)
        if self.interpolation is Interpolation.LINEAR:
            return float(np.max(np.abs(np.diff(self.values) / h)))
        best = float(np.max(np.abs(self.tangents)))
        for k in range(len(h)):
            p0, p1 = self.values[k], self.values[k + 1]
            m0, m1 = self.tangents[k] * h[k], self.tangents[k + 1] * h[k]
            a = 6 * p0 + 3 * m0 - 6 * p1 + 3 * m1   # ds = a s² + b s + c
            b = -6 * p0 - 4 * m0 + 6 * p1 - 2 * m1
            if a != 0.0:
                s = -b / (2 * a)
                if 0.0 < s < 1.0:
                    best = max(best, abs(a * s * s + b * s + m0) / h[k])
        return best


class MotionModel:
    """A motion ready to sample: its servos as joint curves over motion time (seconds)."""

    def __init__(self, motion: Motion, mapping: ServoMapping | None = None,
                 frame_period: float = DEFAULT_FRAME_PERIOD,
                 interpolation: Interpolation | str = Interpolation.LINEAR,
                 source: str | None = None) -> None:
        if not (math.isfinite(frame_period) and frame_period > 0):
            raise InvalidValueError(f'frame period {frame_period!r} must be a positive number '
                                    'of seconds')
        self.motion = motion
        self.source = source  #: the XMDI file, for messages
        self.mapping = mapping or ServoMapping.identity()
        self.frame_period = float(frame_period)
        self.interpolation = Interpolation.parse(interpolation)
        self.curves = tuple(self._curve(servo) for servo in motion.servos)
        self._check_one_servo_per_joint()
        self.duration = motion.last_frame * self.frame_period

    def _curve(self, servo) -> JointCurve:
        binding = self.mapping.binding(servo.name)
        times = np.asarray(servo.frames, dtype=float) * self.frame_period
        values = binding.to_joint(np.asarray(servo.positions, dtype=float))
        tangents = (_monotone_tangents(times, values)
                    if self.interpolation is Interpolation.CUBIC else np.zeros(len(times)))
        return JointCurve(binding.joint, servo.name, times, values, tangents, self.interpolation)

    def _check_one_servo_per_joint(self) -> None:
        owner: dict[str, str] = {}
        for curve in self.curves:
            if curve.joint in owner:
                raise DuplicateNameError(
                    f'motion {self.motion.name!r}: servos {owner[curve.joint]!r} and '
                    f'{curve.servo!r} both drive joint {curve.joint!r}', self.motion_source,
                    self.motion.line)
            owner[curve.joint] = curve.servo

    @property
    def motion_source(self) -> str | None:
        """Where a problem of this model is reported: the XMDI file, else the mapping file."""
        return self.source or self.mapping.source

    @property
    def name(self) -> str:
        return self.motion.name

    @property
    def joints(self) -> tuple[str, ...]:
        """Joint names, in the motion's servo order."""
        return tuple(curve.joint for curve in self.curves)

    def positions(self, t) -> np.ndarray:
        """Joint positions at motion time(s) ``t``: shape ``t.shape + (joints,)``."""
        t = np.asarray(t, dtype=float)
        return np.stack([curve.position(t) for curve in self.curves], axis=-1)

    def velocities(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        return np.stack([curve.velocity(t) for curve in self.curves], axis=-1)

    def key_times(self) -> np.ndarray:
        """Every servo's key times, 0 and the duration: where the trajectory may bend."""
        keys = np.concatenate([curve.times for curve in self.curves]
                              + [np.array([0.0, self.duration])])
        return np.unique(keys)

    def samples(self, rate: float) -> list[list[float]]:
        """``[[t, q1, q2, ...], ...]`` at t = 0, 1/rate, 2/rate, ... and at the duration."""
        times = sample_times(self.duration, rate)
        values = self.positions(times)
        return [[float(t), *map(float, row)] for t, row in zip(times, values)]


#: Most samples :func:`sample_times` gives at once: a bound on memory (160 MB of times), as a
#: motion file's times can be huge. A stream reads :class:`SampleTimes` a chunk at a time
#: instead, in bounded memory whatever its length.
MAX_SAMPLES = 20_000_000


class SampleTimes:
    """0, 1/rate, 2/rate, ... before ``duration``, then ``duration`` itself (once), computed
    when read: ``len``, an index or a slice (a numpy array), iteration."""

    def __init__(self, duration: float, rate: float) -> None:
        if not (math.isfinite(rate) and rate > 0):
            raise InvalidValueError(f'sample rate {rate!r} must be a positive number of hertz')
        if not (math.isfinite(duration) and duration >= 0):
            raise InvalidValueError(f'a motion of {duration!r} s cannot be sampled')
        self.duration, self.rate = float(duration), float(rate)
        grid = int(math.floor(duration * rate + TIME_EPSILON)) + 1  # k / rate, k < grid ...
        while grid > 0 and (grid - 1) / rate >= duration - TIME_EPSILON:
            grid -= 1  # ... and only those before the duration
        self.grid = grid
        self.count = grid + 1

    def __len__(self) -> int:
        return self.count

    @overload
    def __getitem__(self, index: int) -> float: ...

    @overload
    def __getitem__(self, index: slice) -> np.ndarray: ...

    def __getitem__(self, index: int | slice) -> float | np.ndarray:
        if isinstance(index, slice):
            start, stop, step = index.indices(self.count)
            ticks = np.arange(start, stop, step, dtype=float)
            times = ticks / self.rate
            times[ticks == self.grid] = self.duration
            return times
        if index < 0:
            index += self.count
        if not 0 <= index < self.count:
            raise IndexError(index)
        return self.duration if index == self.grid else index / self.rate

    def __iter__(self):
        for tick in range(self.grid):
            yield tick / self.rate
        yield self.duration


#: Most values one sampling of a whole file gives (samples × (1 + joints), every motion
#: counted): a bound on the memory and the output of ``robot-formats motion`` (1 hour of 13
#: joints at 100 Hz). :data:`MAX_SAMPLES` bounds one motion; a file of 200 motions, each
#: within it, asked for billions of samples.
MAX_SAMPLED_VALUES = 5_000_000


def check_sampling(models: Sequence[MotionModel], rate: float) -> None:
    """LimitError when sampling every one of ``models`` at ``rate`` gives more than
    :data:`MAX_SAMPLED_VALUES` values (computed from the durations, before any sample)."""
    total = 0
    for model in models:
        total += len(SampleTimes(model.duration, rate)) * (1 + len(model.curves))
        if total > MAX_SAMPLED_VALUES:
            raise LimitError(f'sampling the motions at {rate:g} Hz gives more than '
                             f'{MAX_SAMPLED_VALUES} values (samples times joints, every motion '
                             'counted), the limit; lower the rate or choose a motion',
                             model.source)


def sample_times(duration: float, rate: float) -> np.ndarray:
    """0, 1/rate, 2/rate, ... before ``duration``, then ``duration`` itself (once): every
    :class:`SampleTimes` at once (InvalidValueError beyond :data:`MAX_SAMPLES`)."""
    times = SampleTimes(duration, rate)
    if len(times) > MAX_SAMPLES:  # found by fuzzing: a 25 GB array for one mangled time
        raise InvalidValueError(f'sampling {duration:g} s at {rate:g} Hz gives {len(times)} '
                                f'samples, more than {MAX_SAMPLES}; lower the rate')
    return times[:]


#: Longest play (seconds, loops and speed factor included): a day. A loop count or speed factor
#: beyond it is refused up front, before anything is computed or sent (a uint32 loop count can
#: ask for a play longer than the universe's age).
MAX_PLAY_TIME = 86_400.0
#: Most trajectory points one play sends to a trajectory controller (every key frame of every
#: loop; a JointTrajectory message, built whole before it is sent).
MAX_PLAY_POINTS = 100_000


@dataclass(frozen=True, slots=True)
class PlayOptions:
    """Webots' Motion API controls: speed factor, loops, reverse, seek.

    ``start_time`` is the seek position in seconds of motion played (at speed 1, counted in the
    direction of play: 0 is the first frame played, the last frame when reversed).
    """

    speed: float = 1.0
    loops: int = 1
    reverse: bool = False
    start_time: float = 0.0

    def problems(self, duration: float) -> list[str]:
        out = []
        if not (math.isfinite(self.speed) and self.speed > 0):
            out.append(f'speed factor {self.speed!r} must be a positive number (use reverse to '
                       'play backwards)')
        if self.loops < 1:
            out.append(f'loop count {self.loops} must be at least 1')
        if not (math.isfinite(self.start_time) and 0 <= self.start_time <= duration
                + TIME_EPSILON):
            out.append(f'start time {self.start_time!r} s is outside the motion (0 to '
                       f'{duration:g} s)')
        return out


@dataclass(frozen=True, slots=True)
class PlayState:
    """Where a play is at playing time ``tau`` (seconds since it started)."""

    tau: float
    motion_time: float      #: seconds in the motion's own timeline (frame = this / period)
    loop: int               #: 0-based loop index
    positions: np.ndarray
    velocities: np.ndarray  #: d position / d tau (speed and direction included)
    progress: float         #: 0..1 over the whole play (all loops)


@dataclass(frozen=True, slots=True)
class TrajectoryPoint:
    time: float                         #: seconds from the start of the play
    positions: tuple[float, ...]
    velocities: tuple[float, ...] | None  #: None in linear mode (the controller interpolates
    #: positions linearly when a trajectory has no velocities)


class Playback:
    """One play of a motion with :class:`PlayOptions`: playing time → joint values.

    The played path is the motion from the seek position to its end, then ``loops - 1`` times
    a one-frame transition back to the first pose followed by the whole motion.
    """

    def __init__(self, model: MotionModel, options: PlayOptions = PlayOptions()) -> None:
        problems = options.problems(model.duration)
        if problems:
            raise InvalidValueError('; '.join(problems))
        self.model = model
        self.options = options
        self.wrap = model.frame_period if model.duration > 0 else 0.0
        self.start = min(options.start_time, model.duration)
        first = model.duration - self.start
        self.played_length = first + (options.loops - 1) * (self.wrap + model.duration)
        #: Seconds the play lasts.
        self.total_time = self.played_length / options.speed
        if not self.total_time <= MAX_PLAY_TIME:  # (inf and nan too)
            raise InvalidValueError(
                f'the play would last {self.total_time:.6g} s ({options.loops} loop(s) of '
                f'{model.duration:g} s at speed factor {options.speed:g}), more than the '
                f'{MAX_PLAY_TIME:g} s a play may last; raise the speed factor or lower the '
                'loop count')

    # --- the timeline ---------------------------------------------------------------------
    def _motion_time(self, u: float) -> float:
        """Motion time of played position u ∈ [0, duration] (u runs in the play direction)."""
        return self.model.duration - u if self.options.reverse else u

    def _locate(self, played: float) -> tuple[int, float | None, float]:
        """(loop, u or None while wrapping, wrap fraction) of a played length."""
        duration = self.model.duration
        first = duration - self.start
        if played <= first or self.options.loops == 1:
            return 0, self.start + min(played, first), 0.0
        rest = played - first
        period = self.wrap + duration
        loop = min(int(rest // period), self.options.loops - 2)
        within = rest - loop * period
        if within < self.wrap:
            return loop + 1, None, within / self.wrap
        return loop + 1, min(within - self.wrap, duration), 0.0

    def state(self, tau: float) -> PlayState:
        tau = min(max(float(tau), 0.0), self.total_time)
        speed, sign = self.options.speed, (-1.0 if self.options.reverse else 1.0)
        loop, u, fraction = self._locate(tau * speed)
        progress = tau / self.total_time if self.total_time > 0 else 1.0
        if u is not None:
            t = self._motion_time(u)
            velocities = sign * speed * self.model.velocities(t)
            if tau >= self.total_time:
                velocities = np.zeros(len(self.model.curves))
            return PlayState(tau, t, loop, self.model.positions(t), velocities, progress)
        return self._wrap_state(tau, loop, fraction, progress)

    def where(self, tau: float) -> tuple[float, int, float]:
        """(motion time, loop, progress) at playing time ``tau``: :meth:`state` without the joint
        values, cheap enough for feedback between two stream ticks."""
        tau = min(max(float(tau), 0.0), self.total_time)
        loop, u, fraction = self._locate(tau * self.options.speed)
        progress = tau / self.total_time if self.total_time > 0 else 1.0
        if u is None:
            u = 0.0 if fraction >= 1.0 else self.model.duration
        return self._motion_time(u), loop, progress

    def states_at(self, taus) -> tuple[np.ndarray, np.ndarray]:
        """(positions, velocities) at many playing times at once, shape (len(taus), joints):
        the values :meth:`state` gives, with one vectorised evaluation of the curves (a
        streaming player samples ahead of its deadlines with this)."""
        taus = np.clip(np.asarray(taus, dtype=float), 0.0, self.total_time)
        joints = len(self.model.curves)
        motion_times = np.zeros(len(taus))
        wrapping = []
        for index, tau in enumerate(taus):
            _, u, _ = self._locate(float(tau) * self.options.speed)
            if u is None:
                wrapping.append(index)
            else:
                motion_times[index] = self._motion_time(u)
        sign = -1.0 if self.options.reverse else 1.0
        positions = self.model.positions(motion_times).reshape(len(taus), joints)
        velocities = (sign * self.options.speed
                      * self.model.velocities(motion_times).reshape(len(taus), joints))
        velocities[taus >= self.total_time] = 0.0
        for index in wrapping:
            state = self.state(float(taus[index]))
            positions[index], velocities[index] = state.positions, state.velocities
        return positions, velocities

    def _wrap_state(self, tau: float, loop: int, fraction: float, progress: float) -> PlayState:
        """Between loops: from the last played pose back to the first, in one frame period."""
        end = self.model.positions(self._motion_time(self.model.duration))
        start = self.model.positions(self._motion_time(0.0))
        rate = self.options.speed / self.wrap
        if self.model.interpolation is Interpolation.LINEAR:
            weight, dweight = fraction, rate
        else:  # smoothstep: a Hermite segment with zero velocity at both ends
            weight = fraction * fraction * (3 - 2 * fraction)
            dweight = 6 * fraction * (1 - fraction) * rate
        t = self._motion_time(0.0) if fraction >= 1.0 else self._motion_time(self.model.duration)
        return PlayState(tau, t, loop, end + weight * (start - end),
                         dweight * (start - end), progress)

    # --- what a trajectory controller receives --------------------------------------------
    def _played_keys(self) -> np.ndarray:
        """Every key time of the motion as played position u (reversed when playing back)."""
        duration = self.model.duration
        return np.unique(np.array([duration - k if self.options.reverse else k
                                   for k in self.model.key_times()]))

    def point_count(self) -> int:
        """How many points :meth:`trajectory_points` gives, without making them."""
        if self.total_time == 0.0:
            return 1
        keys_u = self._played_keys()
        first = int(np.count_nonzero(keys_u > self.start + TIME_EPSILON)) + 1
        return first + (self.options.loops - 1) * len(keys_u)

    def trajectory_points(self) -> list[TrajectoryPoint]:
        """The play as trajectory points: every key time (in every loop), the seek position,
        the loop transitions. time = (frame · period − seek) / speed (+ earlier loops).
        InvalidValueError beyond :data:`MAX_PLAY_POINTS`."""
        count = self.point_count()
        if count > MAX_PLAY_POINTS:
            raise InvalidValueError(
                f'the play would send {count} trajectory points ({self.options.loops} loop(s)), '
                f'more than the {MAX_PLAY_POINTS} one trajectory may hold; lower the loop count')
        duration, speed = self.model.duration, self.options.speed
        keys_u = self._played_keys()
        if self.total_time == 0.0:
            return [self._point(0.0, self.start)]
        points: list[TrajectoryPoint] = []
        offset = 0.0
        for loop in range(self.options.loops):
            lower = self.start if loop == 0 else 0.0
            loop_keys = keys_u[keys_u > lower + TIME_EPSILON] if loop == 0 else keys_u
            if loop == 0:
                loop_keys = np.insert(loop_keys, 0, lower)
            for u in loop_keys:
                points.append(self._point(offset + (u - lower) / speed, u))
            offset += (duration - lower) / speed + self.wrap / speed
        return points

    def _point(self, time: float, u: float) -> TrajectoryPoint:
        t = self._motion_time(u)
        positions = tuple(float(v) for v in self.model.positions(t))
        if self.model.interpolation is Interpolation.LINEAR:
            return TrajectoryPoint(float(time), positions, None)
        sign = -1.0 if self.options.reverse else 1.0
        velocities = sign * self.options.speed * self._key_velocity(t, u)
        return TrajectoryPoint(float(time), positions, tuple(float(v) for v in velocities))

    def _key_velocity(self, t: float, u: float) -> np.ndarray:
        """Velocity at a point; the ends of the motion are at rest (zero tangents there)."""
        if u <= 0.0 or u >= self.model.duration:
            return np.zeros(len(self.model.curves))
        return self.model.velocities(t)

    def max_speeds(self) -> dict[str, float]:
        """Largest |d joint / d tau| of each joint over the play, loop transitions included."""
        out = {}
        transition = np.zeros(len(self.model.curves))
        if self.options.loops > 1 and self.wrap > 0:
            gap = np.abs(self.model.positions(self.model.duration) - self.model.positions(0.0))
            factor = 1.0 if self.model.interpolation is Interpolation.LINEAR else 1.5
            transition = factor * gap / self.wrap
        for index, curve in enumerate(self.model.curves):
            out[curve.joint] = self.options.speed * max(curve.max_speed(), transition[index])
        return out
