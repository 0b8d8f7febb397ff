"""What the pick-and-place tests expect, written here from the files' numbers and closed forms,
never with robot_formats' own code.

* the arm of examples/urdf/arm_with_gripper.urdf, forward kinematics of its tool_frame from the
  URDF's joint origins and axes (translations and elementary rotations);
* the poses of examples/tmp/pick_and_place.xml (row-major 3x4 matrices in the file);
* whether a pose lies on a stable placement, from the answers of get_placements and
  get_object only (docs/tmp.md: a placement's centre is ``distance · n`` from a point of the
  support region, its orientation ``Rot(axis, θ) · template``).
"""

from __future__ import annotations

import math

import numpy as np

from .harness import ROOT, quat_to_matrix

PROBLEM = ROOT / 'examples' / 'tmp' / 'pick_and_place.xml'
KITCHEN = ROOT / 'examples' / 'tmp' / 'kitchen.xml'
MOTIONS = ROOT / 'examples' / 'xmdi' / 'pick_and_place.xmdi'
SCRIPT = ROOT / 'examples' / 'tmp' / 'pick_and_place.py'
JOINTS = ('shoulder_pan', 'shoulder_lift', 'elbow', 'wrist_roll', 'finger_left')
HAND = 'arm/tool_frame'


def translation(x: float, y: float, z: float) -> np.ndarray:
    out = np.eye(4)
    out[:3, 3] = (x, y, z)
    return out


def rotation(axis: str, angle: float) -> np.ndarray:
    """Rotation about the x, y or z axis (4x4)."""
    c, s = math.cos(angle), math.sin(angle)
    i, j = {'x': (1, 2), 'y': (2, 0), 'z': (0, 1)}[axis]
    out = np.eye(4)
    out[i, i], out[i, j], out[j, i], out[j, j] = c, -s, s, c
    return out


def row_major(text: str) -> np.ndarray:
    m = np.eye(4)
    m[:3, :] = np.array([float(v) for v in text.split()]).reshape(3, 4)
    return m


def pose_matrix(pose) -> np.ndarray:
    """4x4 of a geometry_msgs/Pose."""
    out = np.eye(4)
    o = pose.orientation
    out[:3, :3] = quat_to_matrix(o.x, o.y, o.z, o.w)
    out[:3, 3] = (pose.position.x, pose.position.y, pose.position.z)
    return out


def arm_frames(q, base: np.ndarray) -> list[np.ndarray]:
    """World poses of arm_with_gripper's joint frames shoulder_pan, shoulder_lift, elbow,
    wrist_roll (each at its joint's position) and tool_frame, at q (JOINTS order) with its base
    at ``base``: the URDF's joints shoulder_pan (z, origin 0 0 0.1), shoulder_lift (y, origin
    0 0 0.3 rpy 0 0.5 0), elbow (y, origin 0 0 0.25 rpy 0 0.8 0), wrist_roll (z, origin 0 0 0.2),
    tool (fixed, origin 0 0 0.09 rpy pi 0 0)."""
    pan, lift, elbow, roll = q[:4]
    frames = [base @ translation(0, 0, 0.1) @ rotation('z', pan)]
    frames.append(frames[-1] @ translation(0, 0, 0.3) @ rotation('y', 0.5) @ rotation('y', lift))
    frames.append(frames[-1] @ translation(0, 0, 0.25) @ rotation('y', 0.8)
                  @ rotation('y', elbow))
    frames.append(frames[-1] @ translation(0, 0, 0.2) @ rotation('z', roll))
    frames.append(frames[-1] @ translation(0, 0, 0.09) @ rotation('x', math.pi))
    return frames


def arm_tool(q, base: np.ndarray) -> np.ndarray:
    """X_W_tool_frame of arm_with_gripper at q (see :func:`arm_frames`)."""
    return arm_frames(q, base)[-1]


#: pick_and_place.xml: the arm's <basepose> and the block's initial <pose>.
ARM_BASE = translation(0.0, 0.0, 0.72)
BLOCK = row_major('1.0 0.0 0.0 0.249374 0.0 1.0 0.0 0.0 0.0 0.0 1.0 0.845')
STAND_B = row_major('1.0 0.0 0.0 0.0 0.0 1.0 0.0 0.249374 0.0 0.0 1.0 0.72')
#: The configurations the motions reach: at the block (shoulder_pan 0) and at stand_b.
Q_HOME = (0.0, 0.0, 0.0, 0.0, 0.0)
Q_PICK = (0.0, 1.0, 0.841593, 0.0, 0.02)
Q_PLACE = (1.570796, 1.0, 0.841593, 0.0, 0.02)
Q_ABOVE = (0.0, 0.75, 1.091593, 0.0, 0.02)
#: kitchen.xml's helper robot (arm_with_gripper): <basepose> and its configuration tags.
HELPER_BASE = row_major('0.0 -1.0 0.0 0.9 1.0 0.0 0.0 -1.2 0.0 0.0 1.0 0.0')
TRAY = row_major('0.0 -1.0 0.0 1.5 1.0 0.0 0.0 0.4 0.0 0.0 1.0 0.91')
GLASS1 = row_major('1.0 0.0 0.0 1.45 0.0 1.0 0.0 0.3 0.0 0.0 1.0 0.98')


def path(start, end, steps: int) -> list[tuple[float, ...]]:
    """``steps`` configurations from ``start`` to ``end`` (both included), evenly spaced."""
    a, b = np.asarray(start, float), np.asarray(end, float)
    return [tuple(a + (b - a) * k / (steps - 1)) for k in range(steps)]


def largest(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)))


def placement_violation(pose: np.ndarray, placements, support) -> tuple[float, float]:
    """(metres the object's support point lies outside the support's region, radians its
    orientation is tilted off the SOP's axis) for the best-fitting SOP, from get_placements'
    ``placements`` of the object on ``support`` (a ProblemObject from get_object).

    Per SOP j: every placement's centre minus its support point is the same offset
    (distance · n); its orientations differ by turns about one axis (from two samples).
    """
    support_pose = pose_matrix(support.pose)
    corners = np.array([[p.x, p.y, p.z] for p in support.support_region])
    best = (math.inf, math.inf)
    for sop in sorted({p.sop for p in placements}):
        mine = [p for p in placements if p.sop == sop]
        first, second = pose_matrix(mine[0].pose), pose_matrix(mine[1].pose)
        turn = second[:3, :3] @ first[:3, :3].T
        axis = np.array([turn[2, 1] - turn[1, 2], turn[0, 2] - turn[2, 0],
                         turn[1, 0] - turn[0, 1]])
        axis /= np.linalg.norm(axis)
        for p in mine:  # the offset is the same for every sample of the SOP
            point = np.array([p.support_point.x, p.support_point.y, p.support_point.z])
            assert largest(pose_matrix(p.pose)[:3, 3] - point,
                           first[:3, 3] - np.array([mine[0].support_point.x,
                                                    mine[0].support_point.y,
                                                    mine[0].support_point.z])) < 1e-9
        offset = first[:3, 3] - np.array([mine[0].support_point.x, mine[0].support_point.y,
                                          mine[0].support_point.z])
        local = np.linalg.inv(support_pose) @ np.append(pose[:3, 3] - offset, 1.0)
        assert support.support_kind == 'rectangle', 'this check knows rectangles'
        low, high = corners
        outside = float(np.linalg.norm(np.maximum(np.maximum(low - local[:3],
                                                             local[:3] - high), 0.0)))
        tilt = float(np.linalg.norm(pose[:3, :3] @ first[:3, :3].T @ axis - axis))
        if outside + tilt < sum(best):
            best = (outside, tilt)
    return best
