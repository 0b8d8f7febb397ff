"""``robot-formats tf-echo``: show what a description publisher put on ROS 2, then exit.

Reads TF the way rviz2 and every TF client do, through a ``tf2_ros.Buffer`` fed by a
``TransformListener``, and ``robot_description`` (or another description topic) as rviz2
subscribes to it (reliable, transient local). It waits until the description and a connected
tree of at least ``min_frames`` frames have arrived, every frame resolvable from the root with
``lookup_transform``, and prints the tree with each frame's pose in the root frame.

The ``robot-formats`` CLI runs this module as a program of its own (``python -m
robot_formats.nodes.tf_echo ARGS``, in the CLI's place), so the CLI imports no ROS and nothing
of the nodes; :func:`main` is its command line (docs/cli.md#tf-echo).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Sequence

import numpy as np
import rclpy
import rclpy.time
import yaml
from rclpy.node import Node
from std_msgs.msg import String
from tf2_ros import Buffer, TransformListener

from robot_formats.core.transforms import quat_to_rotation, rotation_to_quat
from robot_formats.nodes.node_support import LATCHED_QOS

__all__ = ['TfTreeReader', 'main', 'parser', 'run_tf_echo']

#: tf2 reports static transforms with this "most recent transform" time.
_STATIC_TIME = 0.0


class TfTreeReader(Node):
    """A tf2_ros Buffer + TransformListener, and the latest robot_description."""

    def __init__(self, node_name: str = 'tf_echo',
                 description_topic: str = 'robot_description') -> None:
        super().__init__(node_name)
        self.buffer = Buffer()
        self.listener = TransformListener(self.buffer, self)
        self.description: str | None = None
        self.create_subscription(String, description_topic, self._description_callback,
                                 LATCHED_QOS)

    def _description_callback(self, msg: String) -> None:
        self.description = msg.data

    def frames(self) -> dict[str, dict]:
        """tf2's frame table: child -> {'parent': ..., 'most_recent_transform': ...}."""
        table = yaml.safe_load(self.buffer.all_frames_as_yaml()) or {}
        return table if isinstance(table, dict) else {}

    def roots(self, frames: dict[str, dict]) -> list[str]:
        parents = {entry['parent'] for entry in frames.values()}
        return sorted(p for p in parents if p not in frames)

    def resolvable(self, root: str, frames: dict[str, dict]) -> bool:
        latest = rclpy.time.Time()
        return all(self.buffer.can_transform(root, name, latest) for name in frames)

    def poses(self, root: str, frames: dict[str, dict]) -> dict[str, np.ndarray]:
        """X_root_frame of every frame, by ``lookup_transform(root, frame)``."""
        latest = rclpy.time.Time()
        out = {root: np.eye(4)}
        for name in frames:
            transform = self.buffer.lookup_transform(root, name, latest).transform
            t, r = transform.translation, transform.rotation
            pose = np.eye(4)
            pose[:3, :3] = quat_to_rotation((r.x, r.y, r.z, r.w))
            pose[:3, 3] = (t.x, t.y, t.z)
            out[name] = pose
        return out


def run_tf_echo(timeout: float = 30.0, min_frames: int = 1, as_json: bool = False,
                description_topic: str = 'robot_description') -> int:
    """Print the received tree; exit 0 when complete, 1 on timeout."""
    with rclpy.init():
        node = TfTreeReader(description_topic=description_topic)
        complete = _wait_complete(node, timeout, min_frames)
        frames = node.frames()
        roots = node.roots(frames)
        if complete:
            _report(node, frames, roots[0], as_json)
        description = node.description
        node.destroy_node()
    if not complete:
        print(f'tf-echo: timed out after {timeout:g} s ({description_topic} '
              f'{"received" if description else "missing"}, {len(frames) + len(roots)} frames '
              f'in {len(roots)} tree(s))', file=sys.stderr)
        return 1
    return 0


def _wait_complete(node: TfTreeReader, timeout: float, min_frames: int) -> bool:
    """Spin until the description and one resolvable tree of ``min_frames`` frames are in."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
        frames = node.frames()
        roots = node.roots(frames)
        if (node.description is not None and len(roots) == 1
                and len(frames) + 1 >= min_frames and node.resolvable(roots[0], frames)):
            # one more short spin so the /tf messages of the same instant are in
            end = time.monotonic() + 0.3
            while time.monotonic() < end:
                rclpy.spin_once(node, timeout_sec=0.05)
            return node.resolvable(roots[0], node.frames())
    return False


def _report(node: TfTreeReader, frames: dict[str, dict], root: str, as_json: bool) -> None:
    poses = node.poses(root, frames)
    parent_of = {name: entry['parent'] for name, entry in frames.items()}
    static = {name for name, entry in frames.items()
              if float(entry.get('most_recent_transform', -1.0)) == _STATIC_TIME}
    if as_json:
        out = {name: {'parent': parent_of.get(name), 'xyz': [float(v) for v in pose[:3, 3]],
                      'quat': list(rotation_to_quat(pose[:3, :3])), 'static': name in static}
               for name, pose in poses.items()}
        json.dump({'roots': [root], 'description_bytes': len(node.description or ''),
                   'frames': out}, sys.stdout, indent=1)
        sys.stdout.write('\n')
        return
    print(f'robot_description: {len(node.description or "")} bytes of URDF')
    print(f'TF tree through tf2: {len(poses)} frames, {len(static)} static transforms')
    children: dict[str, list[str]] = {}
    for name, parent in parent_of.items():
        children.setdefault(parent, []).append(name)

    def walk(name: str, depth: int) -> None:
        x, y, z = poses[name][:3, 3]
        kind = '' if name == root else (' static' if name in static else ' moving')
        print(f'  {"  " * depth}{name}{kind}  xyz=({x:.3f}, {y:.3f}, {z:.3f})')
        for child in sorted(children.get(name, [])):
            walk(child, depth + 1)

    walk(root, 0)


def parser() -> argparse.ArgumentParser:
    """The command line (``robot-formats tf-echo --help``)."""
    echo = argparse.ArgumentParser(
        prog='robot-formats tf-echo',
        description='print the TF tree (through a tf2_ros Buffer) and robot_description '
                    'received over ROS 2, then exit')
    echo.add_argument('--description-topic', default='robot_description',
                      help='the description topic (default: robot_description)')
    echo.add_argument('--timeout', type=float, default=30.0)
    echo.add_argument('--min-frames', type=int, default=1,
                      help='wait until at least this many frames (root included) are known')
    echo.add_argument('--json', action='store_true')
    return echo


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    return run_tf_echo(timeout=args.timeout, min_frames=args.min_frames, as_json=args.json,
                       description_topic=args.description_topic)


if __name__ == '__main__':
    sys.exit(main())
