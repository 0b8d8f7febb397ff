"""``problem_server``: a TMP problem file served to task planners over ROS 2 (docs/tmp.md).

* TF: every object on ``/tf_static``, its parent ``world`` or the object (or robot frame)
  carrying it; attach/detach/reset republish the whole static set at once, so TF changes
  immediately. Each robot's frames are ``<robot>/<link>``: its base at ``<basepose>`` and its
  fixed joints on ``/tf_static``, its moving joints on ``/tf`` at the problem's configuration
  (``publish_frequency``), computed by the description machinery (Description, TransformSolver).
* ``<robot>/robot_description`` (latched): each robot's URDF, for rviz's RobotModel with TF
  prefix ``<robot>``.
* ``~/markers`` (visualization_msgs/MarkerArray, latched): object meshes, labels, support
  regions, and the grasps last asked for with ``show``.
* Services ``~/get_problem``, ``~/list_objects``, ``~/get_object``, ``~/get_grasps``,
  ``~/get_placements``, ``~/get_action_joints``, ``~/attach``, ``~/detach``, ``~/reset``
  (robot_formats_interfaces): a bad name or argument is answered ``success=false`` with a
  message, and the node keeps serving.

The node never parses XML: robot_formats.tmp reads the problem, robot_formats.description the
robots.
"""

from __future__ import annotations

import functools
from array import array
from pathlib import Path

import numpy as np
import rclpy
from geometry_msgs.msg import Point, Pose
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.exceptions import InvalidHandle
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor, await_or_execute
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from robot_formats_interfaces.msg import (Grasp, Placement, ProblemAction, ProblemObject,
                                          ProblemRobot)
from robot_formats_interfaces.srv import (AttachObject, DetachObject, GetActionJoints, GetGrasps,
                                          GetObject, GetPlacements, GetProblem, ListObjects,
                                          ResetProblem)
from std_msgs.msg import ColorRGBA, String
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import Marker, MarkerArray

from ..description import Description
from ..errors import FormatError
from ..model import WORLD
from ..tmp.problem import Problem, ProblemObject as CoreObject
from ..tmp.reader import read_problem
from ..tmp.semantics import (MAX_SAMPLES, ProblemState, grasp_rows, grasp_set, placements,
                                 pose_rows)
from ..transforms import rotation_to_quat
from .description_publisher import TF_QOS
from .node_support import LATCHED_QOS, raise_keyboard_interrupt_on_signals
from .tf_wire import TfMessageTemplate

__all__ = ['ProblemServer', 'DrainingExecutor', 'draining_executor', 'main', 'DEFAULT_SAMPLES',
           'SERVICE_QOS']

DEFAULT_SAMPLES = 16
#: Services keep up to 1000 requests (and answers) waiting, not ROS' default 10: several
#: planners firing requests at once must not lose any while the node answers an earlier one,
#: and an answer must not leave the history before a slow client has taken it (measured: with
#: 100, 4 clients at 500 requests/s on an overloaded machine lost a fifth of their answers;
#: with 1000, answers only came late, the latencies running on up to the clients' timeout).
SERVICE_QOS = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1000,
                         reliability=ReliabilityPolicy.RELIABLE)
ANSWER_CACHE_SIZE = 64  #: answers (message lists) kept for repeated questions
ANSWER_CACHE_MAX_ITEMS = 4096  #: larger answers are built every time (memory)
_PALETTE = [(0.85, 0.55, 0.25), (0.3, 0.6, 0.85), (0.45, 0.75, 0.4), (0.8, 0.35, 0.4),
            (0.65, 0.5, 0.8), (0.75, 0.75, 0.35), (0.4, 0.75, 0.75)]


class RequestError(Exception):
    """A request the node refuses: answered success=false with this message."""


def _answers(callback):
    """Run a service callback; a bad request or any error becomes success=false + message."""
    @functools.wraps(callback)
    def answered(self, request, response):
        try:
            callback(self, request, response)
            response.success = True
        except (RequestError, FormatError) as err:
            response.success = False
            response.message = getattr(err, 'message', None) or str(err)
        except Exception as err:  # noqa: BLE001 - the node keeps serving whatever happens
            self.get_logger().error(f'internal error in {callback.__name__}: '
                                    f'{type(err).__name__}: {err}')
            response.success = False
            response.message = f'internal error: {type(err).__name__}: {err}'
        return response
    return answered


def pose_msg(matrix: np.ndarray) -> Pose:
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in matrix[:3, 3])
    x, y, z, w = rotation_to_quat(matrix[:3, :3])
    pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w = x, y, z, w
    return pose


def _pose_row(matrix: np.ndarray) -> tuple[float, ...]:
    return (*(float(v) for v in matrix[:3, 3]), *rotation_to_quat(matrix[:3, :3]))


def _float64s(rows: np.ndarray) -> array:
    """A float64[] field's value without per-element checks: an array('d') is taken as is."""
    values = array('d')
    values.frombytes(np.ascontiguousarray(rows, dtype=float).tobytes())
    return values


def _point(values) -> Point:
    return Point(x=float(values[0]), y=float(values[1]), z=float(values[2]))


class RobotView:
    """One robot as the node publishes it: description, frame names, static and moving TF."""

    def __init__(self, name: str, description: Description, basepose: np.ndarray) -> None:
        self.name = name
        self.description = description
        self.basepose = basepose
        self.positions = description.initial_vector()
        tree = description.urdf_tree
        self.root = tree.root
        self.base_frame = self.frame(tree.root)
        solver = description.solver
        self.moving_plan = solver.plan(np.arange(len(solver.moving), dtype=np.intp))
        self.moving_wire = TfMessageTemplate([(self.frame(p), self.frame(c))
                                              for p, c in self.moving_plan.pairs])
        self.world_frames = {self.frame(n): basepose @ m
                             for n, m in tree.forward(self.positions).items()}

    def frame(self, name: str) -> str:
        return f'{self.name}/{name}'

    def static_rows(self) -> list[tuple[str, str, tuple[float, ...]]]:
        rows = [(WORLD, self.base_frame, _pose_row(self.basepose))]
        for static in self.description.static:
            rows.append((self.frame(static.parent), self.frame(static.child),
                         (*static.xyz, *static.quat)))
        return rows

    def moving_message(self, sec: int, nanosec: int) -> bytes | None:
        if self.moving_plan.edges.size == 0:
            return None
        poses = self.description.solver.solve_plan(self.positions, self.moving_plan)
        return self.moving_wire.fill(sec, nanosec, poses)


class ProblemServer(Node):
    """Serves one problem file; its state changes only through attach, detach and reset."""

    def __init__(self, node_name: str = 'problem_server', **kwargs) -> None:
        super().__init__(node_name, **kwargs)
        text = lambda d: ParameterDescriptor(description=d, read_only=True)  # noqa: E731
        self.declare_parameter('problem_file', '', text('The TMP problem file (<problem>).'))
        self.declare_parameter('mapping_file', '', text(
            "Configuration-tag mapping YAML; '' = <problem stem>.mapping.yaml if it exists."))
        self.declare_parameter('strict', False, text(
            "Refuse the spec page's typos instead of reading them with a warning."))
        self.declare_parameter('publish_frequency', 10.0, text(
            'Rate (Hz) of the robots\' moving-joint transforms on /tf.'))
        self.tf_static_pub = self.create_publisher(TFMessage, '/tf_static', LATCHED_QOS)
        self.tf_pub = self.create_publisher(TFMessage, '/tf', TF_QOS)
        self.markers_pub = self.create_publisher(MarkerArray, '~/markers', LATCHED_QOS)
        self.problem: Problem | None = None
        self.state: ProblemState | None = None
        self.robots: dict[str, RobotView] = {}
        self.grasp_markers: list[Marker] = []
        self._answer_cache: dict = {}  # insertion-ordered: oldest first (see _remembered)
        self._state_version = 0  # +1 at every attach, detach, reset: keys of remembered answers
        self._load()
        services = [(GetProblem, 'get_problem', self.get_problem),
                    (ListObjects, 'list_objects', self.list_objects),
                    (GetObject, 'get_object', self.get_object),
                    (GetGrasps, 'get_grasps', self.get_grasps),
                    (GetPlacements, 'get_placements', self.get_placements),
                    (GetActionJoints, 'get_action_joints', self.get_action_joints),
                    (AttachObject, 'attach', self.attach),
                    (DetachObject, 'detach', self.detach),
                    (ResetProblem, 'reset', self.reset)]
        for kind, name, callback in services:
            self.create_service(kind, f'~/{name}', callback, qos_profile=SERVICE_QOS)
        frequency = float(self.get_parameter('publish_frequency').value)
        self.create_timer(1.0 / frequency if frequency > 0 else 0.1, self._publish_moving)

    # --- loading ----------------------------------------------------------------------------
    def _load(self) -> None:
        path = str(self.get_parameter('problem_file').value)
        if not path:
            self.get_logger().error('parameter problem_file is empty; serving nothing (every '
                                    'service answers success=false)')
            return
        mapping = str(self.get_parameter('mapping_file').value) or None
        warnings: list = []
        try:
            problem = read_problem(path, warnings, strict=bool(self.get_parameter('strict').value),
                                   mapping=mapping)
            robots = {name: self._robot_view(robot) for name, robot in problem.robots.items()}
        except FormatError as err:
            self.get_logger().error(f'{err}; serving nothing (every service answers '
                                    'success=false)')
            return
        for warning in warnings:
            self.get_logger().warning(str(warning))
        self.problem, self.robots = problem, robots
        extra = {frame: pose for view in robots.values() for frame, pose in
                 view.world_frames.items()}
        self.state = ProblemState(problem, extra)
        for name, view in robots.items():
            publisher = self.create_publisher(String, f'{name}/robot_description', LATCHED_QOS)
            publisher.publish(String(data=view.description.urdf))
        self._publish_static()
        self._publish_markers()
        self._publish_moving()
        self.get_logger().info(f'serving {path}: {len(problem.objects)} objects, '
                               f'{len(problem.robots)} robots, {len(problem.actions)} actions')

    def _robot_view(self, robot) -> RobotView:
        try:
            description = Description.load(robot.description_path, robot.joint_positions)
        except FormatError:  # a configuration naming DoFs the URDF form does not have
            description = Description.load(robot.description_path)
            self.get_logger().warning(f'robot {robot.name!r}: its configuration tags name '
                                      'joints its URDF form does not have; using its own '
                                      'initial configuration')
        return RobotView(robot.name, description, robot.basepose)

    # --- publishing -------------------------------------------------------------------------
    def _stamp(self) -> tuple[int, int]:
        nanoseconds = self.get_clock().now().nanoseconds
        return nanoseconds // 1_000_000_000, nanoseconds % 1_000_000_000

    def _publish_static(self) -> None:
        """Every object and every robot's fixed frames, as one latched message."""
        assert self.state is not None
        rows = [(parent, child, _pose_row(local)) for parent, child, local in self.state.edges()]
        for view in self.robots.values():
            rows.extend(view.static_rows())
        template = TfMessageTemplate([(parent, child) for parent, child, _ in rows])
        poses = np.array([row for _, _, row in rows], dtype=float).reshape(-1, 7)
        self.tf_static_pub.publish(template.fill(*self._stamp(), poses))

    def _publish_moving(self) -> None:
        sec, nanosec = self._stamp()
        for view in self.robots.values():
            message = view.moving_message(sec, nanosec)
            if message is not None:
                self.tf_pub.publish(message)

    def _publish_markers(self) -> None:
        assert self.problem is not None
        markers: list[Marker] = [Marker(action=Marker.DELETEALL)]
        for index, obj in enumerate(self.problem.objects.values()):
            red, green, blue = _PALETTE[index % len(_PALETTE)]
            color = ColorRGBA(r=red, g=green, b=blue, a=0.9 if obj.moveable else 0.6)
            if obj.mesh_path and Path(obj.mesh_path).is_file():
                markers.append(self._marker(obj.name, 'objects', index, Marker.MESH_RESOURCE,
                                            color, mesh=Path(obj.mesh_path).as_uri()))
            label = self._marker(obj.name, 'labels', index, Marker.TEXT_VIEW_FACING,
                                 ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0), scale=(0.04, 0.04, 0.04))
            label.text = obj.name
            markers.append(label)
            if obj.support is not None:
                markers.append(self._support_marker(obj, index))
        markers.extend(self.grasp_markers)
        self.markers_pub.publish(MarkerArray(markers=markers))

    def _marker(self, frame: str, ns: str, index: int, kind: int, color: ColorRGBA,
                scale=(1.0, 1.0, 1.0), mesh: str = '') -> Marker:
        marker = Marker(ns=ns, id=index, type=kind, action=Marker.ADD, color=color)
        marker.header.frame_id = frame
        marker.pose.orientation.w = 1.0
        marker.scale.x, marker.scale.y, marker.scale.z = scale
        marker.mesh_resource = mesh
        return marker

    def _support_marker(self, obj: CoreObject, index: int) -> Marker:
        region = obj.support
        green = ColorRGBA(r=0.2, g=0.9, b=0.3, a=0.5)
        if region.kind == 'polygon':
            marker = self._marker(obj.name, 'supports', index, Marker.LINE_STRIP, green,
                                  scale=(0.01, 0.0, 0.0))
            marker.points = [_point(p) for p in (*region.points, region.points[0])]
            return marker
        if region.kind == 'point':
            marker = self._marker(obj.name, 'supports', index, Marker.SPHERE, green,
                                  scale=(0.02, 0.02, 0.02))
            marker.pose.position = _point(region.low)
            return marker
        size = np.maximum(region.high - region.low, 0.002)
        marker = self._marker(obj.name, 'supports', index, Marker.CUBE, green,
                              scale=tuple(float(v) for v in size))
        marker.pose.position = _point((region.low + region.high) / 2)
        return marker

    def _grasp_marker_list(self, frames: np.ndarray) -> list[Marker]:
        markers = []
        towards_z = np.array([[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0],
                              [0.0, 0.0, 0.0, 1.0]])  # an arrow (+x) along the approach axis z
        for index, frame in enumerate(frames):
            marker = self._marker(WORLD, 'grasps', index, Marker.ARROW,
                                  ColorRGBA(r=0.9, g=0.2, b=0.9, a=0.8), scale=(0.06, 0.006, 0.01))
            marker.pose = pose_msg(frame @ towards_z)
            markers.append(marker)
        return markers

    # --- requests ---------------------------------------------------------------------------
    def _loaded(self) -> tuple[Problem, ProblemState]:
        if self.problem is None or self.state is None:
            raise RequestError('no problem is loaded (see the node log for why)')
        return self.problem, self.state

    def _object(self, name: str) -> CoreObject:
        problem, _ = self._loaded()
        if name not in problem.objects:
            raise RequestError(f'no object named {name!r} (objects: '
                               f'{", ".join(problem.objects) or "none"})')
        return problem.objects[name]

    @staticmethod
    def _samples(value: int) -> int:
        if value == 0:
            return DEFAULT_SAMPLES
        if value > MAX_SAMPLES:
            raise RequestError(f'samples must be at most {MAX_SAMPLES}, not {value}')
        return int(value)

    def _object_msg(self, obj: CoreObject) -> ProblemObject:
        _, state = self._loaded()
        msg = ProblemObject(name=obj.name, mesh=obj.mesh_path or '', moveable=obj.moveable,
                            parent=state.parents[obj.name])
        msg.pose = pose_msg(state.world_pose(obj.name))
        msg.pose_in_parent = pose_msg(state.local[obj.name])
        msg.attached = state.children_of(obj.name)
        msg.discrete_grasps = [Grasp(id=f'gf{i}', type=g.type, pose=pose_msg(g.frame))
                               for i, g in enumerate(obj.grasps)]
        msg.continuous_grasp_sets = len(obj.continuous_grasps)
        types = [g.type for g in (*obj.grasps, *obj.continuous_grasps)]
        msg.grasp_types = list(dict.fromkeys(types))
        if obj.support is not None:
            msg.support_kind = obj.support.kind
            region = obj.support
            corners = ([region.low] if region.kind == 'point' else
                       [region.low, region.high] if region.kind == 'rectangle' else region.points)
            msg.support_region = [_point(p) for p in corners]
        msg.stable_poses = len(obj.stable_poses)
        return msg

    def _robot_msg(self, robot) -> ProblemRobot:
        view = self.robots[robot.name]
        return ProblemRobot(
            name=robot.name, description_file=robot.description_path, format=robot.format,
            description_topic=self.resolve_topic_name(f'{robot.name}/robot_description'),
            base_frame=view.base_frame, base_pose=pose_msg(robot.basepose),
            movebase=robot.movebase, joint_names=list(view.description.dof_names),
            joint_positions=[float(v) for v in view.positions])

    @_answers
    def get_problem(self, request, response) -> None:
        problem, _ = self._loaded()
        response.path = problem.path
        response.objects = [self._object_msg(o) for o in problem.objects.values()]
        response.robots = [self._robot_msg(r) for r in problem.robots.values()]
        response.actions = [ProblemAction(name=a.name, joints=list(a.joints))
                            for a in problem.actions.values()]

    @_answers
    def list_objects(self, request, response) -> None:
        problem, _ = self._loaded()
        response.names = list(problem.objects)
        response.moveable = [o.moveable for o in problem.objects.values()]

    @_answers
    def get_object(self, request, response) -> None:
        obj = self._object(request.name)
        response.object = self._remembered(('object', obj.name, self._state_version), 1,
                                           lambda: self._object_msg(obj))

    @_answers
    def get_grasps(self, request, response) -> None:
        _, state = self._loaded()
        obj = self._object(request.object)
        frame = request.frame or 'world'
        if frame not in ('world', 'object'):
            raise RequestError(f"frame must be 'world' or 'object', not {request.frame!r}")
        found = grasp_set(obj, self._samples(request.samples), request.type or None)
        world = state.world_pose(obj.name)
        pose = world if frame == 'world' else None
        response.frame_id = WORLD if frame == 'world' else obj.name
        key = (found, frame, self._state_version)
        if request.packed:
            ids, types, poses = self._remembered(
                ('packed', *key), len(found.ids),
                lambda: (list(found.ids), list(found.types), _float64s(grasp_rows(found, pose))))
            response.ids, response.types, response.poses = ids, types, poses
        else:
            response.grasps = self._remembered(
                ('grasps', *key), len(found.ids),
                lambda: self._build_grasp_messages(found, grasp_rows(found, pose)))
        response.message = f'{len(found.ids)} grasps'
        if request.show:
            self.grasp_markers = self._grasp_marker_list(world @ found.frames)
            self._publish_markers()

    def _remembered(self, key: tuple, size: int, build):
        """``build()``, remembered under ``key`` for the next identical question. Planners ask
        the same questions again and again, and building rclpy messages is most of an answer's
        cost; keys include the state version, so attach/detach/reset invalidate them. The last
        ANSWER_CACHE_SIZE answers of at most ANSWER_CACHE_MAX_ITEMS items are kept (never
        changed after they are built)."""
        if size > ANSWER_CACHE_MAX_ITEMS:
            return build()
        found = self._answer_cache.pop(key, None)
        if found is None:
            found = build()
        self._answer_cache[key] = found
        while len(self._answer_cache) > ANSWER_CACHE_SIZE:
            self._answer_cache.pop(next(iter(self._answer_cache)))
        return found

    @staticmethod
    def _build_grasp_messages(found, rows: np.ndarray) -> list[Grasp]:
        out = []
        for gid, kind, (x, y, z, qx, qy, qz, qw) in zip(found.ids, found.types, rows.tolist()):
            msg = Grasp(id=gid, type=kind)  # fills its pose with default messages: set those
            position, orientation = msg.pose.position, msg.pose.orientation
            position.x, position.y, position.z = x, y, z
            orientation.x, orientation.y, orientation.z, orientation.w = qx, qy, qz, qw
            out.append(msg)
        return out

    @_answers
    def get_placements(self, request, response) -> None:
        _, state = self._loaded()
        obj = self._object(request.object)
        support = self._object(request.support)
        samples, seed = self._samples(request.samples), int(request.seed)
        response.placements = self._remembered(
            ('placements', obj.name, support.name, samples, seed, self._state_version), samples,
            lambda: self._placement_messages(placements(obj, support,
                                                        state.world_pose(support.name),
                                                        samples, seed)))
        response.message = f'{len(response.placements)} placements'

    @staticmethod
    def _placement_messages(found) -> list[Placement]:
        rows = pose_rows(np.array([p.frame for p in found]))
        messages = []
        for placement, (x, y, z, qx, qy, qz, qw) in zip(found, rows.tolist()):
            msg = Placement(id=placement.id, sop=placement.sop, theta=placement.theta)
            point, position, orientation = (msg.support_point, msg.pose.position,
                                            msg.pose.orientation)
            point.x, point.y, point.z = placement.point.tolist()
            position.x, position.y, position.z = x, y, z
            orientation.x, orientation.y, orientation.z, orientation.w = qx, qy, qz, qw
            messages.append(msg)
        return messages

    @_answers
    def get_action_joints(self, request, response) -> None:
        problem, _ = self._loaded()
        action = problem.actions.get(request.action)
        if action is None:
            raise RequestError(f'no AMmapping action named {request.action!r} (actions: '
                               f'{", ".join(problem.actions) or "none"})')
        response.joints = list(action.joints)
        response.robots = [next((r.name for r in problem.robots.values()
                                 if joint in r.joint_names or joint in r.dof_names), '')
                           for joint in action.joints]

    @_answers
    def attach(self, request, response) -> None:
        _, state = self._loaded()
        self._object(request.object)
        if request.parent == WORLD:
            raise RequestError("use detach to put an object back in the world frame")
        state.attach(request.object, request.parent)
        self._state_version += 1
        self._publish_static()
        response.message = f'{request.object} attached to {request.parent}'

    @_answers
    def detach(self, request, response) -> None:
        _, state = self._loaded()
        self._object(request.object)
        previous = state.parents[request.object]
        state.detach(request.object)
        self._state_version += 1
        self._publish_static()
        response.message = f'{request.object} detached from {previous}'

    @_answers
    def reset(self, request, response) -> None:
        _, state = self._loaded()
        state.reset()
        self._state_version += 1
        self.grasp_markers = []
        self._publish_static()
        self._publish_markers()
        response.message = 'back to the initial state'


class DrainingExecutor(SingleThreadedExecutor):
    """A single-threaded executor that answers every waiting request of a ready service (and
    takes every waiting answer of a ready client).

    rclpy's executors take one request per service per wait: a service asked 200 times a
    second by several planners falls behind (and its clients time out) while the node is far
    from busy, because each wait also costs a pass over every other entity. Taking up to
    ``batch`` requests at once keeps each service's throughput independent of the others'
    (a small batch: a long burst of large answers can outrun DDS' buffers).
    Clients with many requests in flight have the same problem with answers, and one more: DDS
    delivers a service's answers to EVERY client of that service, and rmw discards the other
    clients' answers inside ``take`` (which then returns nothing). Stopping at the first empty
    take left this client's own answers queued behind the others' for later wakes, which did not
    keep up: with 4 client processes at 500 requests/s the backlog grew to the 5 s timeout while
    no process was busy (measured: answers taken 1.5-3.5 s after they arrived; docs/tmp.md). A
    client therefore takes until ``client_misses`` takes in a row bring nothing (an empty take
    costs ~3 us), or ``client_batch`` answers. Overrides ``Executor._take_service`` and
    ``_take_client`` (rclpy Kilted); :func:`main` falls back to the plain executor if those
    hooks are missing.
    """

    batch = 16
    client_batch = 64  #: answers taken per wake at most
    client_misses = 16  #: empty takes in a row that end a client's pass (others' answers)

    def _take_service(self, srv):
        taken = []
        try:
            with srv.handle:
                for _ in range(self.batch):
                    request, header = srv.handle.service_take_request(srv.srv_type.Request)
                    if header is None:
                        break
                    taken.append((request, header))
        except InvalidHandle:  # the service was destroyed: nothing to answer
            return None

        async def _execute() -> None:
            for request, header in taken:
                response = await await_or_execute(srv.callback, request,
                                                  srv.srv_type.Response())
                srv.send_response(response, header)
        return _execute

    def _take_client(self, client):
        taken = []
        misses = 0
        try:
            with client.handle:
                while misses < self.client_misses and len(taken) < self.client_batch:
                    header, response = client.handle.take_response(client.srv_type.Response)
                    if header is None:  # nothing left, or another client's answer
                        misses += 1
                        continue
                    misses = 0
                    taken.append((header.request_id.sequence_number, response))
        except InvalidHandle:
            return None

        async def _execute() -> None:
            for sequence, response in taken:
                try:
                    future = client.get_pending_request(sequence)
                except KeyError:  # the request was cancelled
                    continue
                future._set_executor(self)
                future.set_result(response)
        return _execute


def draining_executor() -> SingleThreadedExecutor:
    """A :class:`DrainingExecutor`, or rclpy's own if this rclpy lacks the hooks it needs."""
    if all(callable(getattr(SingleThreadedExecutor, hook, None))
           for hook in ('_take_service', '_take_client')):
        return DrainingExecutor()
    return SingleThreadedExecutor()


def main(args: list[str] | None = None) -> int:
    raise_keyboard_interrupt_on_signals()
    try:
        with rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO):
            node = ProblemServer()
            executor = draining_executor()
            executor.add_node(node)
            try:
                executor.spin()
            except KeyboardInterrupt:
                pass
            executor.shutdown()
            node.destroy_node()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
