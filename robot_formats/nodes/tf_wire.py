"""Serialise ``tf2_msgs/msg/TFMessage`` straight to CDR bytes for ``Publisher.publish``.

Building 100 ``TransformStamped`` Python objects per joint state costs more than the whole
kinematics; the frame names never change, so :class:`TfMessageTemplate` lays out the message
once (XCDR1 little endian, as rmw_fastrtps_cpp sends it) and per message only writes stamps and
7 doubles per transform into fixed offsets. rclpy publishes ``bytes`` with ``publish_raw``.
The tests deserialise the bytes with ``rclpy.serialization.deserialize_message`` (rclpy's own
serialiser leaves padding bytes uninitialised, so bytes are not compared one to one).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

if TYPE_CHECKING:
    from robot_formats.runtime.tf_solver import SolvePlan

__all__ = ['TfMessageTemplate', 'TfTemplates']

_HEADER = b'\x00\x01\x00\x00'  # CDR_LE encapsulation, options 0


def _pad(buffer: bytearray, alignment: int) -> None:
    # Alignment is relative to the payload, which starts after the 4-byte encapsulation header.
    buffer.extend(b'\x00' * (-(len(buffer) - 4) % alignment))


def _string(buffer: bytearray, text: str) -> None:
    data = text.encode('utf-8') + b'\x00'
    _pad(buffer, 4)
    buffer.extend(struct.pack('<I', len(data)))
    buffer.extend(data)


class TfMessageTemplate:
    """A TFMessage with fixed (parent, child) frame pairs; fill in stamps and poses."""

    def __init__(self, pairs: Sequence[tuple[str, str]]) -> None:
        buffer = bytearray(_HEADER)
        buffer.extend(struct.pack('<I', len(pairs)))
        stamp_offsets, pose_offsets = [], []
        for parent, child in pairs:
            _pad(buffer, 4)
            stamp_offsets.append(len(buffer))
            buffer.extend(b'\x00' * 8)          # builtin_interfaces/Time: int32 sec, uint32 ns
            _string(buffer, parent)              # header.frame_id
            _string(buffer, child)               # child_frame_id
            _pad(buffer, 8)
            pose_offsets.append(len(buffer))
            buffer.extend(struct.pack('<7d', 0, 0, 0, 0, 0, 0, 1))
        self.count = len(pairs)
        self._stamp = (0, 0)
        # The message sits 4 bytes into an array of its own, so that its payload (after the
        # encapsulation header) starts 8-aligned: CDR aligns every double and every stamp
        # word to the payload, so each transform's 7 doubles and 2 stamp words are elements of
        # a float64 and a uint32 view of the payload, written per message with one assignment
        # of n x 7 doubles and n x 2 words (not byte by byte).
        backing = np.zeros(len(buffer) + 8, dtype=np.uint8)
        backing[4:4 + len(buffer)] = np.frombuffer(bytes(buffer), dtype=np.uint8)
        self._message = backing[4:4 + len(buffer)]
        payload = backing[8:8 + len(buffer) - 4]
        self._doubles = payload[:len(payload) // 8 * 8].view('<f8')
        self._words = payload[:len(payload) // 4 * 4].view('<u4')
        self._stamp_index = ((np.asarray(stamp_offsets, dtype=np.intp)[:, None] - 4) // 4
                             + np.arange(2, dtype=np.intp))
        self._pose_index = ((np.asarray(pose_offsets, dtype=np.intp)[:, None] - 4) // 8
                            + np.arange(7, dtype=np.intp))

    def fill(self, sec: int, nanosec: int, poses: np.ndarray) -> bytes:
        """The message with every transform stamped ``sec.nanosec`` at ``poses``.

        ``poses`` (n, 7) rows are x, y, z, qx, qy, qz, qw, in the order of the pairs.
        """
        if (sec, nanosec) != self._stamp:
            words = np.frombuffer(struct.pack('<iI', sec, nanosec), dtype='<u4')
            self._words[self._stamp_index] = words
            self._stamp = (sec, nanosec)
        self._doubles[self._pose_index] = poses
        return self._message.tobytes()


class TfTemplates(dict['SolvePlan', TfMessageTemplate]):
    """The message template of each :class:`~robot_formats.runtime.tf_solver.SolvePlan` a
    node publishes, made on first use: ``templates[plan]`` is one dictionary look-up (keyed by
    the plan's identity) on every /tf message after the first.

    The frame names on the wire come from ``frame`` (a frame prefix, a robot's scope), fixed
    for the mapping's life: a node makes a new one when they change or the model does. The
    solver keeps a bounded number of plans (one per joint name list) and makes new ones once
    it forgot them, so past :data:`LIMIT` templates this mapping starts again too."""

    #: templates kept before the mapping starts again
    LIMIT = 128

    def __init__(self, frame: Callable[[str], str]) -> None:
        super().__init__()
        self._frame = frame

    def __missing__(self, plan: SolvePlan) -> TfMessageTemplate:
        if len(self) >= self.LIMIT:
            self.clear()
        frame = self._frame
        template = self[plan] = TfMessageTemplate([(frame(parent), frame(child))
                                                   for parent, child in plan.pairs])
        return template
