"""joint_trajectory_controller's rules, without ROS: validation, spline sampling, tolerances.

ros2_controllers' ``joint_trajectory_controller`` (JTC, Jazzy 4.x) decides which trajectories it
executes and how it moves between their points. ``sim_controller`` applies the same rules, and
``motion_player`` can check a trajectory with :func:`validate` before it sends anything, so what
the simulator accepts a real controller accepts too. Everything here takes plain numbers, so the
node converts messages and the rules stay testable without DDS.

* :func:`validate` — ``validate_trajectory_msg``: the checks in JTC's order and its error text;
  each failure also carries the FollowJointTrajectory error code a ROS 1 controller returned
  (``INVALID_JOINTS`` for joint-name problems, ``OLD_HEADER_TIMESTAMP`` for a trajectory that ends
  in the past, ``INVALID_GOAL`` otherwise).
* :func:`check_limits` — beyond JTC (which leaves position limits to the hardware's limiter):
  every position within its joint's limits, so a simulator is never sent where it cannot go.
* :class:`Trajectory` — JTC's ``Trajectory::sample``: from the state at the first sample to the
  first point, then point to point; per segment a linear (positions only), cubic (with
  velocities) or quintic (with velocities and accelerations) polynomial; after the last point
  the last point holds.
* :func:`segment_tolerances` and :func:`within_tolerance` — JTC's ``get_segment_tolerances``
  and ``check_state_tolerance_per_joint`` (0 = not checked, -1 in a goal = erase the default).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

__all__ = [
    'SUCCESSFUL', 'INVALID_GOAL', 'INVALID_JOINTS', 'OLD_HEADER_TIMESTAMP',
    'PATH_TOLERANCE_VIOLATED', 'GOAL_TOLERANCE_VIOLATED', 'TrajectoryRejected', 'Point',
    'validate', 'check_limits', 'position_limit_problem', 'LIMIT_TOLERANCE', 'reorder',
    'Trajectory', 'Sample', 'StateTolerance', 'SegmentTolerances',
    'segment_tolerances', 'within_tolerance', 'position_errors',
]

# control_msgs/action/FollowJointTrajectory Result.error_code values
SUCCESSFUL = 0
INVALID_GOAL = -1
INVALID_JOINTS = -2
OLD_HEADER_TIMESTAMP = -3
PATH_TOLERANCE_VIOLATED = -4
GOAL_TOLERANCE_VIOLATED = -5

#: JTC compares the last point's velocities with std::numeric_limits<float>::epsilon().
_FLOAT_EPSILON = float(np.finfo(np.float32).eps)


class TrajectoryRejected(ValueError):
    """A trajectory JTC would refuse: ``code`` (FollowJointTrajectory) and JTC's sentence."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Point:
    """One trajectory_msgs/JointTrajectoryPoint: empty sequences = not given."""

    time: float                      #: time_from_start, seconds
    positions: Sequence[float] = ()
    velocities: Sequence[float] = ()
    accelerations: Sequence[float] = ()
    effort: Sequence[float] = ()


def validate(joint_names: Sequence[str], points: Sequence[Point],
             controller_joints: Sequence[str], *, start_time: float = 0.0, now: float = 0.0,
             allow_partial_joints_goal: bool = False,
             allow_nonzero_velocity_at_trajectory_end: bool = False) -> None:
    """Raise :class:`TrajectoryRejected` where JTC's ``validate_trajectory_msg`` returns false.

    ``start_time`` is header.stamp in seconds (0 = start now), ``now`` the controller's clock.
    Beyond JTC (which would pass them to the hardware) duplicate joint names and non-finite
    numbers are refused too.
    """
    joints = list(joint_names)
    if not allow_partial_joints_goal and len(joints) != len(controller_joints):
        raise TrajectoryRejected(INVALID_JOINTS, "Joints on incoming trajectory don't match the "
                                 'controller joints.')
    if not joints:
        raise TrajectoryRejected(INVALID_JOINTS, 'Empty joint names on incoming trajectory.')
    if not points:
        raise TrajectoryRejected(INVALID_GOAL, 'Empty trajectory received.')
    known = set(controller_joints)
    for name in joints:
        if name not in known:
            raise TrajectoryRejected(INVALID_JOINTS, f"Incoming joint {name} doesn't match the "
                                     "controller's joints.")
    if len(set(joints)) != len(joints):
        duplicates = sorted({n for n in joints if joints.count(n) > 1})
        raise TrajectoryRejected(INVALID_JOINTS, 'Incoming trajectory names joints more than '
                                 f'once: {", ".join(duplicates)}.')
    if not allow_nonzero_velocity_at_trajectory_end:
        for name, velocity in zip(joints, points[-1].velocities):
            if abs(velocity) > _FLOAT_EPSILON:
                raise TrajectoryRejected(INVALID_GOAL, 'Velocity of last trajectory point of '
                                         f'joint {name} is not zero: {velocity:.15f}')
    if start_time != 0.0:
        end_time = start_time + points[-1].time
        if end_time < now:
            raise TrajectoryRejected(OLD_HEADER_TIMESTAMP, 'Received trajectory with non-zero '
                                     f'start time ({start_time:f}) that ends in the past '
                                     f'({end_time:f})')
    _validate_points(len(joints), points)


def _validate_points(joint_count: int, points: Sequence[Point]) -> None:
    previous = 0.0
    for i, point in enumerate(points):
        if i > 0 and point.time <= previous:
            raise TrajectoryRejected(INVALID_GOAL, f'Time between points {i - 1} and {i} is not '
                                     f'strictly increasing, it is {previous:f} and '
                                     f'{point.time:f} respectively')
        previous = point.time
        for name, values, allow_empty in (('positions', point.positions, False),
                                          ('velocities', point.velocities, True),
                                          ('accelerations', point.accelerations, True)):
            if allow_empty and len(values) == 0:
                continue
            if len(values) != joint_count:
                raise TrajectoryRejected(INVALID_GOAL, f'Mismatch between joint_names size '
                                         f'({joint_count}) and {name} ({len(values)}) at point '
                                         f'#{i}.')
            if not all(math.isfinite(v) for v in values):
                raise TrajectoryRejected(INVALID_GOAL, f'Non-finite {name} at point #{i}.')
        if len(point.effort):
            raise TrajectoryRejected(INVALID_GOAL, 'Trajectories with effort fields are only '
                                     "supported for controllers using the 'effort' command "
                                     'interface.')
        if not math.isfinite(point.time) or point.time < 0:
            raise TrajectoryRejected(INVALID_GOAL, f'Invalid time_from_start {point.time} at '
                                     f'point #{i}.')


#: How far beyond a limit a position may be (rounding of a value written at the limit).
LIMIT_TOLERANCE = 1e-9


#: Joint values, one per joint: a message's sequence or a node's array.
Values = Sequence[float] | np.ndarray


def position_limit_problem(joint_names: Sequence[str], positions: Values,
                           limits: Mapping[str, tuple[float, float]]) -> str | None:
    """Why one set of positions (finite, one per name) leaves the joints' (lower, upper)
    limits, or None."""
    values = np.asarray(positions, dtype=float)
    lower, upper = np.array([limits[name] for name in joint_names], dtype=float).reshape(-1, 2).T
    outside = np.flatnonzero((values < lower - LIMIT_TOLERANCE)
                             | (values > upper + LIMIT_TOLERANCE))
    if not len(outside):
        return None
    k = int(outside[0])
    return (f'position {values[k]:.9g} of joint {joint_names[k]} is outside its limits '
            f'[{lower[k]:.9g}, {upper[k]:.9g}]')


def check_limits(joint_names: Sequence[str], points: Sequence[Point],
                 limits: Mapping[str, tuple[float, float]]) -> None:
    """Raise :class:`TrajectoryRejected` (``INVALID_GOAL``) when a point of a validated
    trajectory puts a joint outside its limits (``limits``: name -> (lower, upper))."""
    for index, point in enumerate(points):
        problem = position_limit_problem(joint_names, point.positions, limits)
        if problem is not None:
            raise TrajectoryRejected(INVALID_GOAL, f'The {problem} at point #{index}.')


def reorder(joint_names: Sequence[str], points: Sequence[Point],
            controller_joints: Sequence[str], hold: Values) -> list[Point]:
    """Points in the controller's joint order; joints the trajectory omits hold ``hold``.

    JTC's ``fill_partial_goal`` + ``sort_to_local_joint_order``: a missing joint keeps its
    current command with zero velocity and acceleration.
    """
    index = {name: i for i, name in enumerate(joint_names)}
    source = [index.get(name) for name in controller_joints]

    def arrange(values: Values, fill: Values) -> tuple[float, ...]:
        if len(values) == 0:
            return ()
        return tuple(float(values[s]) if s is not None else float(fill[k])
                     for k, s in enumerate(source))

    zeros = [0.0] * len(controller_joints)
    return [Point(p.time, arrange(p.positions, hold), arrange(p.velocities, zeros),
                  arrange(p.accelerations, zeros)) for p in points]


@dataclass(frozen=True)
class Sample:
    """The desired state at one time and where it lies in the trajectory."""

    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray
    segment: int          #: index of the point the sample moves towards (len(points) = past end)
    past_end: bool        #: at or after the last point's time


class Trajectory:
    """A validated trajectory in controller order, sampled as JTC's ``Trajectory::sample``.

    ``start`` is the absolute start time (header.stamp, or the first sample's time when 0);
    the segment before the first point starts from ``state_before`` at ``time_before`` (the
    controller's state when it first sampled the trajectory).
    """

    def __init__(self, points: Sequence[Point], start: float, time_before: float,
                 positions_before: Values, velocities_before: Values = ()
                 ) -> None:
        self.points = list(points)
        self.start = float(start)
        self.time_before = float(time_before)
        self.before = Point(0.0, tuple(positions_before), tuple(velocities_before))

    @property
    def end_time(self) -> float:
        return self.start + self.points[-1].time

    def sample(self, t: float) -> Sample | None:
        """The desired state at absolute time ``t``; None before the trajectory's own start."""
        if t < self.time_before:
            return None
        first = self.start + self.points[0].time
        if t < first:
            return _interpolate(self.before, self.points[0], first - self.time_before,
                                t - self.time_before, 0, False)
        for i in range(len(self.points) - 1):
            t1 = self.start + self.points[i + 1].time
            if t < t1:
                t0 = self.start + self.points[i].time
                return _interpolate(self.points[i], self.points[i + 1], t1 - t0, t - t0,
                                    i + 1, False)
        last = self.points[-1]
        dof = len(last.positions)
        return Sample(np.asarray(last.positions, float),
                      np.asarray(last.velocities or (0.0,) * dof, float),
                      np.asarray(last.accelerations or (0.0,) * dof, float),
                      len(self.points), True)


def _interpolate(a: Point, b: Point, duration: float, elapsed: float, segment: int,
                 past_end: bool) -> Sample:
    """JTC's ``interpolate_between_points``: linear, cubic or quintic by the data both have."""
    p0, p1 = np.asarray(a.positions, float), np.asarray(b.positions, float)
    T = max(duration, 0.0)
    t = min(max(elapsed, 0.0), T)
    has_velocity = len(a.velocities) > 0 and len(b.velocities) > 0
    has_acceleration = len(a.accelerations) > 0 and len(b.accelerations) > 0
    if T == 0.0:
        zero = np.zeros_like(p1)
        return Sample(p1.copy(), np.asarray(b.velocities or zero, float), zero, segment,
                      past_end)
    if not has_velocity:
        slope = (p1 - p0) / T
        return Sample(p0 + slope * t, slope, np.zeros_like(p0), segment, past_end)
    v0, v1 = np.asarray(a.velocities, float), np.asarray(b.velocities, float)
    if not has_acceleration:
        c = [p0, v0, (-3.0 * p0 + 3.0 * p1 - 2.0 * v0 * T - v1 * T) / T ** 2,
             (2.0 * p0 - 2.0 * p1 + v0 * T + v1 * T) / T ** 3]
    else:
        a0, a1 = np.asarray(a.accelerations, float), np.asarray(b.accelerations, float)
        c = [p0, v0, 0.5 * a0,
             (-20.0 * p0 + 20.0 * p1 - 3.0 * a0 * T ** 2 + a1 * T ** 2 - 12.0 * v0 * T
              - 8.0 * v1 * T) / (2.0 * T ** 3),
             (30.0 * p0 - 30.0 * p1 + 3.0 * a0 * T ** 2 - 2.0 * a1 * T ** 2 + 16.0 * v0 * T
              + 14.0 * v1 * T) / (2.0 * T ** 4),
             (-12.0 * p0 + 12.0 * p1 - a0 * T ** 2 + a1 * T ** 2 - 6.0 * v0 * T
              - 6.0 * v1 * T) / (2.0 * T ** 5)]
    position, velocity, acceleration = np.zeros_like(p0), np.zeros_like(p0), np.zeros_like(p0)
    for k, ck in enumerate(c):
        position = position + ck * t ** k
        if k >= 1:
            velocity = velocity + k * ck * t ** (k - 1)
        if k >= 2:
            acceleration = acceleration + k * (k - 1) * ck * t ** (k - 2)
    return Sample(position, velocity, acceleration, segment, past_end)


# --- tolerances -----------------------------------------------------------------------------

@dataclass(frozen=True)
class StateTolerance:
    """Allowed |error| per quantity; 0 = not checked."""

    position: float = 0.0
    velocity: float = 0.0
    acceleration: float = 0.0


@dataclass(frozen=True)
class SegmentTolerances:
    """Per controller joint: while moving (``state``) and at the end (``goal``)."""

    state: tuple[StateTolerance, ...]
    goal: tuple[StateTolerance, ...]
    goal_time: float = 0.0   #: seconds after the end the goal may take; 0 = wait forever
    notes: list[str] = field(default_factory=list)


def _resolve(default: float, requested: float) -> float:
    """A goal's tolerance: > 0 replaces the default, 0 keeps it, -1 erases it (not checked)."""
    if requested > 0:
        return requested
    if requested == -1.0:
        return 0.0
    return default


def segment_tolerances(defaults: SegmentTolerances, joints: Sequence[str],
                       path_tolerance: Sequence[tuple[str, float, float, float]],
                       goal_tolerance: Sequence[tuple[str, float, float, float]],
                       goal_time_tolerance: float) -> SegmentTolerances:
    """The tolerances of one goal: JTC's ``get_segment_tolerances``.

    A tolerance naming a joint the controller lacks, or a negative value other than -1,
    makes the whole goal fall back to ``defaults`` (with the reason in ``notes``), as JTC does.
    """
    index = {name: i for i, name in enumerate(joints)}
    tables = []
    for which, requested, base in (('path_tolerance', path_tolerance, defaults.state),
                                   ('goal_tolerance', goal_tolerance, defaults.goal)):
        table = list(base)
        for name, position, velocity, acceleration in requested:
            if name not in index:
                return _fallback(defaults, f'joint {name} in goal.{which} is not a joint of '
                                 'the controller; using the default tolerances')
            if any(v < 0 and v != -1.0 for v in (position, velocity, acceleration)):
                return _fallback(defaults, f'illegal tolerance for joint {name} in '
                                 f'goal.{which} (negative and not -1); using the defaults')
            old = table[index[name]]
            table[index[name]] = StateTolerance(_resolve(old.position, position),
                                                _resolve(old.velocity, velocity),
                                                _resolve(old.acceleration, acceleration))
        tables.append(tuple(table))
    if goal_time_tolerance < 0 and goal_time_tolerance != -1.0:
        return _fallback(defaults, 'negative goal_time_tolerance; using the defaults')
    return SegmentTolerances(tables[0], tables[1],
                             _resolve(defaults.goal_time, goal_time_tolerance))


def _fallback(defaults: SegmentTolerances, note: str) -> SegmentTolerances:
    return SegmentTolerances(defaults.state, defaults.goal, defaults.goal_time, [note])


def within_tolerance(tolerance: StateTolerance, position_error: float,
                     velocity_error: float = 0.0, acceleration_error: float = 0.0) -> bool:
    """JTC's ``check_state_tolerance_per_joint``: only positive tolerances are checked."""
    return not ((tolerance.position > 0 and abs(position_error) > tolerance.position)
                or (tolerance.velocity > 0 and abs(velocity_error) > tolerance.velocity)
                or (tolerance.acceleration > 0
                    and abs(acceleration_error) > tolerance.acceleration))


def position_errors(desired: np.ndarray, actual: np.ndarray, wraps: np.ndarray) -> np.ndarray:
    """desired - actual; for continuous joints (``wraps``) the shortest angular distance."""
    error = np.asarray(desired, float) - np.asarray(actual, float)
    wrapped = (error + math.pi) % (2 * math.pi) - math.pi
    return np.where(wraps, wrapped, error)
