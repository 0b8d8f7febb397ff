"""problem_server's ``~/markers`` (visualization_msgs/MarkerArray, latched), for rviz: each
object's mesh (when its file exists) and name label, its support region, and the grasp arrows
last asked for with ``show``.

Its own module so that the problem server imports visualization_msgs only where it starts
serving requests, after the problem's frames are on TF.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rclpy.node import Node
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from robot_formats.core.model import WORLD
from robot_formats.formats.tmp.problem import Problem, SupportRegion
from robot_formats.nodes.node_support import LATCHED_QOS
from robot_formats.nodes.pose_messages import point_msg, pose_msg

__all__ = ['ProblemMarkers']

_PALETTE = [(0.85, 0.55, 0.25), (0.3, 0.6, 0.85), (0.45, 0.75, 0.4), (0.8, 0.35, 0.4),
            (0.65, 0.5, 0.8), (0.75, 0.75, 0.35), (0.4, 0.75, 0.75)]
#: Colours (red, green, blue, alpha) of the support regions, the labels and the grasp arrows.
_SUPPORT_COLOR = (0.2, 0.9, 0.3, 0.5)
_LABEL_COLOR = (1.0, 1.0, 1.0, 1.0)
_GRASP_COLOR = (0.9, 0.2, 0.9, 0.8)
#: Turns a grasp frame so that an arrow marker (+x) points along its approach axis (z).
_TOWARDS_Z = np.array([[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0],
                       [0.0, 0.0, 0.0, 1.0]])


class ProblemMarkers:
    """The ``~/markers`` publisher of a node and the grasp arrows it shows."""

    def __init__(self, node: Node) -> None:
        self.publisher = node.create_publisher(MarkerArray, '~/markers', LATCHED_QOS)
        self.grasps: list[Marker] = []

    def publish(self, problem: Problem) -> None:
        """Every marker of ``problem``, replacing what rviz showed before (DELETEALL first)."""
        markers = [Marker(action=Marker.DELETEALL)]
        for index, obj in enumerate(problem.objects.values()):
            color = (*_PALETTE[index % len(_PALETTE)], 0.9 if obj.moveable else 0.6)
            if obj.mesh_path and Path(obj.mesh_path).is_file():
                markers.append(_marker(obj.name, 'objects', index, Marker.MESH_RESOURCE, color,
                                       mesh=Path(obj.mesh_path).as_uri()))
            label = _marker(obj.name, 'labels', index, Marker.TEXT_VIEW_FACING, _LABEL_COLOR,
                            scale=(0.04, 0.04, 0.04))
            label.text = obj.name
            markers.append(label)
            if obj.support is not None:
                markers.append(_support_marker(obj.name, obj.support, index))
        markers.extend(self.grasps)
        self.publisher.publish(MarkerArray(markers=markers))

    def show_grasps(self, frames: np.ndarray) -> None:
        """Arrows for the grasp ``frames`` (4x4 world poses) from the next :meth:`publish`
        on, in place of those shown before."""
        self.grasps = [_marker(WORLD, 'grasps', index, Marker.ARROW, _GRASP_COLOR,
                               scale=(0.06, 0.006, 0.01), pose=frame @ _TOWARDS_Z)
                       for index, frame in enumerate(frames)]

    def clear_grasps(self) -> None:
        """No grasp arrows from the next :meth:`publish` on."""
        self.grasps = []


def _marker(frame: str, ns: str, index: int, kind: int, color: tuple[float, ...],
            scale=(1.0, 1.0, 1.0), mesh: str = '', pose: np.ndarray | None = None) -> Marker:
    red, green, blue, alpha = color
    marker = Marker(ns=ns, id=index, type=kind, action=Marker.ADD,
                    color=ColorRGBA(r=red, g=green, b=blue, a=alpha))
    marker.header.frame_id = frame
    if pose is None:
        marker.pose.orientation.w = 1.0
    else:
        marker.pose = pose_msg(pose)
    marker.scale.x, marker.scale.y, marker.scale.z = scale
    marker.mesh_resource = mesh
    return marker


def _support_marker(name: str, region: SupportRegion, index: int) -> Marker:
    """A polygon's outline, a point's sphere or a rectangle's thin box, in the object's frame."""
    if region.kind == 'polygon':
        assert region.points is not None  # a polygon has its points
        marker = _marker(name, 'supports', index, Marker.LINE_STRIP, _SUPPORT_COLOR,
                         scale=(0.01, 0.0, 0.0))
        marker.points = [point_msg(p) for p in (*region.points, region.points[0])]
        return marker
    assert region.low is not None and region.high is not None  # points and rectangles do
    if region.kind == 'point':
        marker = _marker(name, 'supports', index, Marker.SPHERE, _SUPPORT_COLOR,
                         scale=(0.02, 0.02, 0.02))
        marker.pose.position = point_msg(region.low)
        return marker
    size = np.maximum(region.high - region.low, 0.002)
    marker = _marker(name, 'supports', index, Marker.CUBE, _SUPPORT_COLOR,
                     scale=tuple(float(v) for v in size))
    marker.pose.position = point_msg((region.low + region.high) / 2)
    return marker
