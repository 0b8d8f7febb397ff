#!/usr/bin/env python3
"""A planner's loop, end to end: pick the block of examples/tmp/pick_and_place.xml and place it
on stand_b, with the robot simulated by sim_controller.

Start the nodes, then run this in a sourced workspace (same ROS_DOMAIN_ID)::

    ros2 launch robot_formats pick_and_place.launch.py
    python examples/tmp/pick_and_place.py

Each step is one request to a node, as a task planner would send it:

0. ``/problem_server/reset``: the problem's initial state (the block on stand_a);
1. ``/problem_server/get_grasps`` (block, type ``top``): the grasps, in the world frame;
2. ``/arm/motion_player/play`` ``approach``; once the arm is at rest, its grasp frame (read
   through a tf2_ros Buffer) must be one of those grasps;
3. ``/problem_server/attach`` block → ``arm/tool_frame``: the grasp is fixed, and the block
   now rides on the gripper on TF;
4. ``play`` ``transport``, then ``/problem_server/detach`` block once the arm is at rest: the
   block stays where it is;
5. ``play`` ``retreat`` (``--no-retreat`` skips it); the block's TF pose must lie on a stable
   placement of stand_b as ``/problem_server/get_placements`` and ``get_object`` define them.

Exit code 0 when every step succeeded and the block stands on stand_b within the tolerances;
1 otherwise, with the reason.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
import rclpy
import rclpy.time
from rclpy.action import ActionClient
from rclpy.duration import Duration
from rclpy.node import Node
from robot_formats_interfaces.action import PlayMotion
from robot_formats_interfaces.srv import (AttachObject, DetachObject, GetGrasps, GetObject,
                                          GetPlacements, ResetProblem)
from sensor_msgs.msg import JointState
from tf2_ros import Buffer, TransformListener

#: arm_with_gripper's tool_frame sits at the fingertips with its z pointing back along the
#: fingers (rpy pi about x in the URDF); a grasp frame approaches along its z and closes along
#: its y (docs/tmp.md), so the hand's grasp frame is tool_frame turned by pi about x.
HAND_TO_GRASP = np.diag([1.0, -1.0, -1.0, 1.0])
#: The arm is at rest when every joint moves slower than this (rad/s or m/s).
REST_SPEED = 2e-3


def matrix(position, orientation) -> np.ndarray:
    """4x4 of a position and an (x, y, z, w) quaternion (geometry_msgs fields)."""
    x, y, z, w = orientation.x, orientation.y, orientation.z, orientation.w
    out = np.eye(4)
    out[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                   [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                   [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    out[:3, 3] = (position.x, position.y, position.z)
    return out


def angle_between(a: np.ndarray, b: np.ndarray) -> float:
    """The rotation angle from a's orientation to b's (radians)."""
    cosine = (np.trace(a[:3, :3].T @ b[:3, :3]) - 1.0) / 2.0
    return math.acos(max(-1.0, min(1.0, cosine)))


class Failure(Exception):
    """A step that did not succeed: the sentence says which and why."""


class PickAndPlace:
    """The nodes' interfaces as one planner node uses them."""

    def __init__(self, node: Node, args: argparse.Namespace) -> None:
        self.node, self.args = node, args
        server = args.problem_server.rstrip('/')
        self.services = {name: node.create_client(kind, f'{server}/{name}') for name, kind in
                         (('get_grasps', GetGrasps), ('get_object', GetObject),
                          ('get_placements', GetPlacements), ('attach', AttachObject),
                          ('detach', DetachObject), ('reset', ResetProblem))}
        self.player = ActionClient(node, PlayMotion, f'/{args.robot}/motion_player/play')
        self.buffer = Buffer(cache_time=Duration(seconds=60))
        self.listener = TransformListener(self.buffer, node)
        self.velocities: list[float] | None = None
        node.create_subscription(JointState, f'/{args.robot}/joint_states', self._joint_states,
                                 10)

    def _joint_states(self, msg: JointState) -> None:
        self.velocities = list(msg.velocity)

    # --- waiting --------------------------------------------------------------------------
    def spin_until(self, done, what: str, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout or self.args.timeout)
        while not done():
            if time.monotonic() > deadline:
                raise Failure(f'{what}: not within {timeout or self.args.timeout:g} s')
            rclpy.spin_once(self.node, timeout_sec=0.05)

    def wait_for_nodes(self) -> None:
        for _name, client in self.services.items():
            self.spin_until(client.service_is_ready, f'the service {client.srv_name}')
        self.spin_until(self.player.server_is_ready, 'the motion_player play action')
        self.spin_until(lambda: self.velocities is not None, f'/{self.args.robot}/joint_states')

    def wait_until_at_rest(self) -> None:
        """Until every joint of the simulated arm is (nearly) still: the servos have settled."""
        self.spin_until(lambda: self.velocities is not None and
                        max(map(abs, self.velocities), default=0.0) < REST_SPEED,
                        'the arm coming to rest')

    # --- requests -------------------------------------------------------------------------
    def call(self, service: str, **fields):
        """Ask ``service`` of problem_server with the request ``fields``; its answer, or
        Failure with its message."""
        client = self.services[service]
        future = client.call_async(client.srv_type.Request(**fields))
        self.spin_until(future.done, f'the answer of {client.srv_name}')
        answer = future.result()
        if not answer.success:
            raise Failure(f'{service} {fields}: {answer.message}')
        return answer

    def play(self, motion: str) -> None:
        """Play ``motion`` and wait for its result (motion_player may still be waiting for the
        robot model right after start-up: it says so, and the play is asked again)."""
        deadline = time.monotonic() + self.args.timeout
        while True:
            sent = self.player.send_goal_async(PlayMotion.Goal(motion_name=motion,
                                                               speed_factor=self.args.speed))
            self.spin_until(sent.done, f'the goal response of {motion}')
            handle = sent.result()
            if not handle.accepted:
                raise Failure(f'motion_player did not accept {motion}')
            done = handle.get_result_async()
            self.spin_until(done.done, f'the end of {motion}', self.args.timeout + 60.0)
            result = done.result().result
            if result.success:
                print(f'played {motion}: {result.message}')
                return
            if result.error_code != PlayMotion.Result.NO_ROBOT_MODEL or \
                    time.monotonic() > deadline:
                raise Failure(f'play {motion}: {result.message} (code {result.error_code})')
            retry = time.monotonic() + 0.2
            self.spin_until(lambda retry=retry: time.monotonic() >= retry, 'a retry')

    def tf_pose(self, frame: str) -> np.ndarray:
        """X_world_frame as TF has it now (the latest data)."""
        latest = rclpy.time.Time()
        self.spin_until(lambda: self.buffer.can_transform('world', frame, latest),
                        f'TF from world to {frame}')
        found = self.buffer.lookup_transform('world', frame, latest).transform
        return matrix(found.translation, found.rotation)

    # --- the plan -------------------------------------------------------------------------
    def run(self) -> None:
        args = self.args
        self.wait_for_nodes()
        self.call('reset')
        answer = self.call('get_grasps', object=args.object, type='top', frame='world',
                           show=True)
        grasps = {g.id: matrix(g.pose.position, g.pose.orientation) for g in answer.grasps}
        print(f'{args.object}: {len(grasps)} top grasps ({", ".join(grasps)})')

        self.play('approach')
        self.wait_until_at_rest()
        hand = self.tf_pose(args.hand_frame) @ HAND_TO_GRASP
        chosen = min(grasps, key=lambda g: np.linalg.norm(grasps[g][:3, 3] - hand[:3, 3])
                     + 0.1 * angle_between(grasps[g], hand))
        distance = float(np.linalg.norm(grasps[chosen][:3, 3] - hand[:3, 3]))
        turn = angle_between(grasps[chosen], hand)
        print(f'the hand is at grasp {chosen}: {distance * 1e3:.2f} mm, '
              f'{math.degrees(turn):.2f} deg away')
        if distance > args.position_tolerance or turn > args.angle_tolerance:
            raise Failure(f'the hand did not reach a grasp of {args.object} (nearest: {chosen}, '
                          f'{distance * 1e3:.2f} mm and {math.degrees(turn):.2f} deg away)')
        print(self.call('attach', object=args.object, parent=args.hand_frame).message)

        self.play('transport')
        self.wait_until_at_rest()
        print(self.call('detach', object=args.object).message)
        block = self.call('get_object', name=args.object).object
        placed = matrix(block.pose.position, block.pose.orientation)  # where it was left
        self.spin_until(lambda: np.max(np.abs(self.tf_pose(args.object) - placed)) < 1e-9,
                        f'TF with {args.object} detached')
        if args.retreat:
            self.play('retreat')
            self.wait_until_at_rest()
            after = self.tf_pose(args.object)
            moved = float(np.max(np.abs(after - placed)))
            if moved > 1e-9:
                raise Failure(f'{args.object} moved by {moved:.2e} after detach')
        outside, tilt, sop = self.placement_error(placed)
        print(f'{args.object} on {args.target}: at {np.round(placed[:3, 3], 4).tolist()}, '
              f'stable pose {sop}: {outside * 1e3:.2f} mm from the support region, '
              f'{math.degrees(tilt):.2f} deg from its orientations')
        if outside > args.position_tolerance or tilt > args.angle_tolerance:
            raise Failure(f'{args.object} is not on a stable placement of {args.target}')

    def placement_error(self, pose: np.ndarray) -> tuple[float, float, int]:
        """How far ``pose`` is from a stable placement of the object on the target: (metres
        its support point is outside the support region, radians its orientation is tilted
        away from the SOP's, the SOP) for the SOP that fits best.

        The constraints come from the server: get_placements gives, per stable pose (SOP),
        placements whose orientations differ by turns about the SOP's axis and whose centres
        sit a fixed offset (distance · normal) from their support point; get_object gives the
        support region (in the support's frame) and the support's world pose."""
        args = self.args
        found = self.call('get_placements', object=args.object, support=args.target,
                          samples=16).placements
        support = self.call('get_object', name=args.target).object
        support_pose = matrix(support.pose.position, support.pose.orientation)
        best = (math.inf, math.inf, -1)
        for sop in sorted({p.sop for p in found}):
            samples = [p for p in found if p.sop == sop]
            first = matrix(samples[0].pose.position, samples[0].pose.orientation)
            other = matrix(samples[1].pose.position, samples[1].pose.orientation)
            axis = _rotation_axis(other[:3, :3] @ first[:3, :3].T)
            turn = pose[:3, :3] @ first[:3, :3].T
            # 0 for a turn about the SOP's axis; else about the angle it is tilted by
            tilt = float(np.linalg.norm(turn @ axis - axis))
            point = samples[0].support_point
            offset = first[:3, 3] - np.array([point.x, point.y, point.z])
            local = np.linalg.inv(support_pose) @ np.append(pose[:3, 3] - offset, 1.0)
            outside = _outside_region(local[:3], support.support_kind, support.support_region)
            if max(outside, 0.1 * tilt) < max(best[0], 0.1 * best[1]):
                best = (outside, tilt, sop)
        return best


def _rotation_axis(rotation: np.ndarray) -> np.ndarray:
    axis = np.array([rotation[2, 1] - rotation[1, 2], rotation[0, 2] - rotation[2, 0],
                     rotation[1, 0] - rotation[0, 1]])
    return axis / np.linalg.norm(axis)


def _outside_region(point: np.ndarray, kind: str, corners) -> float:
    """How far (m) a point (support frame) is from the support region: 0 inside."""
    vertices = np.array([[c.x, c.y, c.z] for c in corners])
    if kind == 'point':
        return float(np.linalg.norm(point - vertices[0]))
    if kind == 'rectangle':
        low, high = vertices
        return float(np.linalg.norm(np.maximum(np.maximum(low - point, point - high), 0.0)))
    # polygon: distance to its plane, and to its boundary when outside (even-odd rule)
    normal = np.cross(vertices[1] - vertices[0], vertices[2] - vertices[0])
    normal /= np.linalg.norm(normal)
    height = float(abs((point - vertices[0]) @ normal))
    flat = point - ((point - vertices[0]) @ normal) * normal
    u = (vertices[1] - vertices[0]) / np.linalg.norm(vertices[1] - vertices[0])
    v = np.cross(normal, u)
    xy = np.stack([(vertices - vertices[0]) @ u, (vertices - vertices[0]) @ v], axis=1)
    p = np.array([(flat - vertices[0]) @ u, (flat - vertices[0]) @ v])
    inside, gap = False, math.inf
    for a, b in zip(xy, np.roll(xy, -1, axis=0)):
        if (a[1] > p[1]) != (b[1] > p[1]) and \
                p[0] < a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]):
            inside = not inside
        along = np.clip((p - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
        gap = min(gap, float(np.linalg.norm(p - (a + along * (b - a)))))
    return max(height, 0.0 if inside else gap)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--problem-server', default='/problem_server',
                        help='the problem_server node (its services are under it)')
    parser.add_argument('--robot', default='arm', help="the robot's name in the problem")
    parser.add_argument('--object', default='block', help='the object to pick')
    parser.add_argument('--target', default='stand_b', help='the support to place it on')
    parser.add_argument('--hand-frame', default='arm/tool_frame',
                        help='the TF frame the object is attached to')
    parser.add_argument('--speed', type=float, default=1.0, help='speed factor of the motions')
    parser.add_argument('--no-retreat', dest='retreat', action='store_false',
                        help='end after the detach (the arm stays at the place)')
    parser.add_argument('--position-tolerance', type=float, default=0.002,
                        help='metres: hand to grasp, block to placement (default 2 mm)')
    parser.add_argument('--angle-tolerance', type=float, default=0.02,
                        help='radians: hand to grasp (default 0.02)')
    parser.add_argument('--timeout', type=float, default=60.0,
                        help='seconds to wait for each node, answer and play')
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rclpy.init()
    node = rclpy.create_node('pick_and_place_planner')
    try:
        PickAndPlace(node, args).run()
    except Failure as failure:
        print(f'pick_and_place: FAILED: {failure}', file=sys.stderr)
        return 1
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    print('pick_and_place: OK')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
