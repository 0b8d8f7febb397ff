"""The XMDI document model: named motions, each a set of per-servo key-frame tracks.

This is what the file says, nothing more: servo names, key positions (in the servo's own
units) and key frame indices. Turning frames into seconds, servos into robot joints and key
frames into a continuous trajectory is :mod:`robot_formats.formats.xmdi.playback`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ['ServoTrack', 'Motion', 'MotionDocument', 'DEFAULT_FRAME_PERIOD']

#: One Webots simulation step: the time between two XMDI frames (seconds).
DEFAULT_FRAME_PERIOD = 0.032


@dataclass(frozen=True, slots=True)
class ServoTrack:
    """Key frames of one servo: ``positions[i]`` is reached at frame ``frames[i]``.

    Frames are non-negative, strictly increasing integers; both tuples have the same length
    (at least one). The reader guarantees this; :meth:`Motion` users may rely on it.
    """

    name: str
    positions: tuple[float, ...]
    frames: tuple[int, ...]
    line: int | None = None

    @property
    def last_frame(self) -> int:
        return self.frames[-1]


@dataclass(frozen=True, slots=True)
class Motion:
    """A named set of servo trajectories; extra attributes of ``<motion>`` kept in order."""

    name: str
    servos: tuple[ServoTrack, ...]
    attributes: tuple[tuple[str, str], ...] = ()
    line: int | None = None

    @property
    def last_frame(self) -> int:
        """The motion ends at its last key frame, over all servos."""
        return max(servo.last_frame for servo in self.servos)

    def duration(self, frame_period: float = DEFAULT_FRAME_PERIOD) -> float:
        """Seconds from frame 0 to the last key frame."""
        return self.last_frame * frame_period

    @property
    def servo_names(self) -> tuple[str, ...]:
        return tuple(servo.name for servo in self.servos)

    @property
    def key_frame_count(self) -> int:
        return sum(len(servo.frames) for servo in self.servos)


@dataclass(frozen=True, slots=True)
class MotionDocument:
    """Every motion of one XMDI file, in document order (names are unique)."""

    motions: tuple[Motion, ...]
    source: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(motion.name for motion in self.motions)

    def motion(self, name: str) -> Motion:
        """The motion called ``name``; KeyError naming the known ones otherwise."""
        for motion in self.motions:
            if motion.name == name:
                return motion
        raise KeyError(f'no motion named {name!r} (motions: {", ".join(self.names) or "none"})')

    def summary(self) -> str:
        """One line for ``robot-formats check``."""
        servos = sum(len(motion.servos) for motion in self.motions)
        keys = sum(motion.key_frame_count for motion in self.motions)
        return (f'{len(self.motions)} motion{"s" if len(self.motions) != 1 else ""}, '
                f'{servos} servo tracks, {keys} key frames')
