"""4x4 poses and points as geometry_msgs, for the nodes that answer with them (problem_server,
its markers and its MoveIt view)."""

from __future__ import annotations

import numpy as np
from geometry_msgs.msg import Point, Pose

from robot_formats.core.transforms import rotation_to_quat

__all__ = ['point_msg', 'pose_msg']


def pose_msg(matrix: np.ndarray) -> Pose:
    """The geometry_msgs/Pose of a 4x4 pose (quaternion w >= 0)."""
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in matrix[:3, 3])
    x, y, z, w = rotation_to_quat(matrix[:3, :3])
    pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w = x, y, z, w
    return pose


def point_msg(values) -> Point:
    """The geometry_msgs/Point of three numbers."""
    return Point(x=float(values[0]), y=float(values[1]), z=float(values[2]))
