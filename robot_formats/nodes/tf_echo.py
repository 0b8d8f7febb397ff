"""``robot-formats tf-echo``: show what a description publisher put on ROS 2, then exit.

Subscribes like rviz does (``robot_description`` and ``/tf_static`` transient-local, ``/tf``
volatile), waits until the description and a connected tree of at least ``min_frames`` frames
have arrived, and prints the tree with each frame's pose in the root frame. Without tf2_ros
(not installable from PyPI) it composes transforms itself.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import rclpy
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from ..transforms import quat_to_rotation, rotation_to_quat

__all__ = ['TfListener', 'run_tf_echo']

_STATIC_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
_DESCRIPTION_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                              durability=DurabilityPolicy.TRANSIENT_LOCAL)


class TfListener(Node):
    """Keeps the latest transform per child frame and the latest robot_description."""

    def __init__(self, node_name: str = 'tf_echo', description_topic: str = 'robot_description'
                 ) -> None:
        super().__init__(node_name)
        self.edges: dict[str, tuple[str, np.ndarray]] = {}  # child -> (parent, X_parent_child)
        self.static_children: set[str] = set()
        self.description: str | None = None
        self.tf_messages = 0
        self.create_subscription(TFMessage, '/tf_static', self._static_callback, _STATIC_QOS)
        self.create_subscription(TFMessage, '/tf', self._tf_callback, 100)
        self.create_subscription(String, description_topic, self._description_callback,
                                 _DESCRIPTION_QOS)

    def _store(self, msg: TFMessage) -> None:
        for transform in msg.transforms:
            t, r = transform.transform.translation, transform.transform.rotation
            matrix = np.eye(4)
            matrix[:3, :3] = quat_to_rotation((r.x, r.y, r.z, r.w))
            matrix[:3, 3] = (t.x, t.y, t.z)
            self.edges[transform.child_frame_id] = (transform.header.frame_id, matrix)

    def _static_callback(self, msg: TFMessage) -> None:
        self._store(msg)
        self.static_children.update(t.child_frame_id for t in msg.transforms)

    def _tf_callback(self, msg: TFMessage) -> None:
        self.tf_messages += 1
        self._store(msg)

    def _description_callback(self, msg: String) -> None:
        self.description = msg.data

    def frame_count(self) -> int:
        """Frames known, roots included."""
        return len(self.edges) + len(self.roots())

    def roots(self) -> list[str]:
        parents = {parent for parent, _ in self.edges.values()}
        return sorted(p for p in parents if p not in self.edges)

    def poses(self) -> dict[str, tuple[str | None, np.ndarray]]:
        """Every frame's (parent, X_root_frame), composing edges up to its root."""
        out: dict[str, tuple[str | None, np.ndarray]] = {r: (None, np.eye(4)) for r in self.roots()}

        def resolve(frame: str, depth: int = 0) -> np.ndarray | None:
            if frame in out:
                return out[frame][1]
            if frame not in self.edges or depth > 10_000:
                return None
            parent, local = self.edges[frame]
            above = resolve(parent, depth + 1)
            if above is None:
                return None
            out[frame] = (parent, above @ local)
            return out[frame][1]

        for frame in list(self.edges):
            resolve(frame)
        return out


def run_tf_echo(timeout: float = 30.0, min_frames: int = 1, as_json: bool = False) -> int:
    """Print the received tree; exit 0 when complete, 1 on timeout."""
    with rclpy.init():
        node = TfListener()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.1)
            if node.description is not None and node.frame_count() >= min_frames and (
                    len(node.roots()) == 1):
                # one more short spin so the /tf messages of the same instant are in
                end = time.monotonic() + 0.3
                while time.monotonic() < end:
                    rclpy.spin_once(node, timeout_sec=0.05)
                break
        complete = node.description is not None and node.frame_count() >= min_frames
        _report(node, as_json)
        node.destroy_node()
    if not complete:
        print(f'tf-echo: timed out after {timeout:g} s (robot_description '
              f'{"received" if node.description else "missing"}, {node.frame_count()} frames)',
              file=sys.stderr)
        return 1
    return 0


def _report(node: TfListener, as_json: bool) -> None:
    poses = node.poses()
    if as_json:
        frames = {name: {'parent': parent, 'xyz': [float(v) for v in pose[:3, 3]],
                         'quat': list(rotation_to_quat(pose[:3, :3])),
                         'static': name in node.static_children}
                  for name, (parent, pose) in poses.items()}
        json.dump({'roots': node.roots(), 'description_bytes': len(node.description or ''),
                   'frames': frames}, sys.stdout, indent=1)
        sys.stdout.write('\n')
        return
    print(f'robot_description: {len(node.description or "")} bytes of URDF'
          if node.description else 'robot_description: not received')
    print(f'TF tree over DDS: {len(poses)} frames, {len(node.static_children)} static transforms, '
          f'{node.tf_messages} /tf messages')
    children: dict[str | None, list[str]] = {}
    for name, (parent, _) in poses.items():
        children.setdefault(parent, []).append(name)

    def walk(name: str, depth: int) -> None:
        pose = poses[name][1]
        x, y, z = pose[:3, 3]
        kind = '' if poses[name][0] is None else (
            ' static' if name in node.static_children else ' moving')
        print(f'  {"  " * depth}{name}{kind}  xyz=({x:.3f}, {y:.3f}, {z:.3f})')
        for child in children.get(name, []):
            walk(child, depth + 1)

    for root in children.get(None, []):
        walk(root, 0)
