"""``problem_server``: a TMP problem file served to task planners over ROS 2, following the world
while a plan executes (docs/tmp.md, docs/guide-planner.md).

* Robots follow their joints: each robot's ``joint_states`` (``<robot>/joint_states`` unless
  ``robots.<robot>.joint_states_topic`` says otherwise) set its configuration; the problem's
  configuration tags are the state until the first message. Its frames are ``<robot>/<link>``.
  Per robot (``robots.<robot>.publish_tf``) this node publishes them as description_publisher
  does (``all``: base at ``<basepose>`` and fixed joints on ``/tf_static``, moving joints on
  ``/tf`` from joint states, rate-capped by ``publish_frequency``; the same
  :class:`~robot_formats.runtime.tf_solver.JointStateTf` rules), or only the base placement
  (``base``: robot_state_publisher / description_publisher with ``frame_prefix:=<robot>/``
  publishes the rest), or nothing (``none``: Gazebo or another node publishes the whole robot).
* Objects are on ``/tf_static`` as children of their parent — ``world``, the object carrying
  them, or any TF frame such as a gripper link — so an attached object rides on its parent
  frame as TF reports it, whoever publishes that frame. Attach fixes the pose relative to the
  parent (the grasp) at that moment, detach leaves the object where it is in the world; both
  re-send the whole static set at once. Frames this node does not publish itself are read
  from a ``tf2_ros.Buffer`` in this node, fed with everything on /tf and /tf_static except this
  node's own /tf (:class:`ForeignTfListener`).
* ``~/scene`` (robot_formats_interfaces/Scene, latched): every object's parent, world pose and
  attachments in one message, re-sent on attach/detach/reset and whenever a carried object
  moved (checked at ``publish_frequency``).
* ``<robot>/robot_description`` (latched): each robot's URDF, for rviz's RobotModel with TF
  prefix ``<robot>``.
* ``~/markers`` (visualization_msgs/MarkerArray, latched): object meshes, labels, support
  regions, and the grasps last asked for with ``show``.
* MoveIt's view of the same state (:mod:`robot_formats.nodes.moveit_view`, one robot's):
  ``~/get_planning_scene`` (moveit_msgs/srv/GetPlanningScene), ``~/plan_grasps``
  (moveit_msgs/srv/GraspPlanning) and, with ``publish_planning_scene``, every change as a
  PlanningScene diff on ``planning_scene`` for move_group.
* Services ``~/get_problem``, ``~/list_objects``, ``~/get_object``, ``~/get_grasps``,
  ``~/get_placements``, ``~/get_action_joints``, ``~/attach``, ``~/detach``, ``~/reset``
  (robot_formats_interfaces): answers use the current poses; a bad name or argument, a refused
  attachment (an object that is not moveable, a frame not on TF, a cycle) is answered
  ``success=false`` with a message, changes nothing, and the node keeps serving.

The node never parses XML: robot_formats.formats.tmp reads the problem (and holds its state:
:class:`~robot_formats.formats.tmp.semantics.ProblemState`), robot_formats.runtime.description the
robots.

At start-up the problem's frames go on TF first: the message modules of the markers, ~/scene,
the services and the tf2 Buffer are imported where they are used, after the first /tf_static
and /tf are out, not with this module.
"""

from __future__ import annotations

import functools
import math
import time
from array import array
from typing import TYPE_CHECKING, Any

import numpy as np
import rclpy
import rclpy.time
from geometry_msgs.msg import TransformStamped
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from moveit_msgs.msg import MoveItErrorCodes, PlanningScene
from rclpy.event_handler import PublisherEventCallbacks

from robot_formats.runtime.description import Description
from robot_formats.core.errors import FormatError
from robot_formats.formats import read_problem
from robot_formats.core.model import WORLD
from robot_formats.runtime.tf_solver import JointStateRefused, JointStateTf, SolvePlan
from robot_formats.formats.tmp.problem import Problem
from robot_formats.formats.tmp.problem import ProblemObject as CoreObject
from robot_formats.formats.tmp.semantics import (MAX_SAMPLES, FrameUnavailable, ProblemState,
                                                 grasp_rows, grasp_set, placements, pose_rows)
from robot_formats.core.transforms import quat_to_rotation, rotation_to_quat
from robot_formats.nodes.executors import draining_executor
from robot_formats.nodes.moveit_view import (PLANNING_SCENE_QOS, PLANNING_SCENE_TOPIC,
                                             GraspRefused, MoveItView, read_settings)
from robot_formats.nodes.moveit_view import declare_parameters as declare_moveit_parameters
from robot_formats.nodes.pose_messages import point_msg, pose_msg
from robot_formats.nodes.node_support import (CAP_RANGE, LATCHED_QOS, TF_QOS, guarded,
                                              joint_states_qos, positive, ranged, run_node)
from robot_formats.nodes.tf_wire import TfMessageTemplate, TfTemplates

if TYPE_CHECKING:
    from robot_formats_interfaces.msg import Grasp, Placement, ProblemObject, ProblemRobot
    from tf2_ros import Buffer

__all__ = ['ProblemServer', 'main', 'DEFAULT_SAMPLES',
           'PUBLISH_TF_CHOICES', 'SERVICE_QOS']

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
#: ``robots.<robot>.publish_tf``: who publishes a robot's frames (see the module docstring).
PUBLISH_TF_CHOICES = ('all', 'base', 'none')
#: Without a rate cap (publish_frequency 0) the scene is checked, and a robot's initial
#: configuration re-sent, at this period (s).
UNCAPPED_PERIOD = 0.02
INITIAL_TF_PERIOD = 0.1  #: at most this often: a robot's configuration before its joint states


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


def _pose_row(matrix: np.ndarray) -> tuple[float, ...]:
    return (*(float(v) for v in matrix[:3, 3]), *rotation_to_quat(matrix[:3, :3]))


def _float64s(rows: np.ndarray) -> array:
    """A float64[] field's value without per-element checks: an array('d') is taken as is."""
    values = array('d')
    values.frombytes(np.ascontiguousarray(rows, dtype=float).tobytes())
    return values


def _transform_matrix(transform) -> np.ndarray:
    """4x4 of a geometry_msgs/Transform."""
    matrix = np.eye(4)
    rotation, translation = transform.rotation, transform.translation
    matrix[:3, :3] = quat_to_rotation((rotation.x, rotation.y, rotation.z, rotation.w))
    matrix[:3, 3] = (translation.x, translation.y, translation.z)
    return matrix


class RobotView:
    """One robot of the problem: its description, where its joints are, and its TF.

    ``positions`` follow the robot's joint states; ``tf_positions`` are the positions of the
    last transforms this node published (what TF reports), which answers use for frames this
    node publishes itself. ``publish_tf``: ``all``, ``base`` or ``none`` (PUBLISH_TF_CHOICES).
    """

    def __init__(self, name: str, description: Description, basepose: np.ndarray,
                 publish_tf: str = 'all', frequency: float = 0.0,
                 joint_states_topic: str = '') -> None:
        self.name = name
        self.description = description
        self.basepose = basepose
        self.publish_tf = publish_tf
        self.joint_states_topic = joint_states_topic or f'{name}/joint_states'
        self.positions = description.initial_vector()
        self.tf_positions = self.positions.copy()
        self.joint_tf = JointStateTf(description.solver, self.positions, frequency)
        self.joint_states_received = 0
        self.last_initial_tf = -math.inf
        # world poses of links at tf_positions, cleared when those change
        self._link_poses: dict[str, np.ndarray] = {}
        self.tf_stamp = (0, 0)           #: the stamp of the last /tf message sent for it
        self.buffered_stamp = (-1, 0)    #: the tf_stamp last copied into the node's tf2 Buffer
        tree = description.urdf_tree
        self.root = tree.root
        self.base_frame = self.frame(tree.root)
        solver = description.solver
        self.all_moving = solver.plan(np.arange(len(solver.moving), dtype=np.intp))
        self.tf_templates = TfTemplates(self.frame)  #: the /tf message of each plan

    def frame(self, name: str) -> str:
        return f'{self.name}/{name}'

    def own_frames(self) -> dict[str, str]:
        """TF frame -> link, for the frames whose world pose this node knows itself: every
        link when it publishes the robot's TF, the base link when it places the base only."""
        if self.publish_tf == 'all':
            return {self.frame(link): link for link in self.description.urdf_tree.frame_names()}
        if self.publish_tf == 'base':
            return {self.base_frame: self.root}
        return {}

    def world_pose(self, link: str) -> np.ndarray:
        """X_W_link as this node's TF has it."""
        pose = self._link_poses.get(link)
        if pose is None:
            pose = self.basepose @ self.description.link_pose(link, self.tf_positions)
            self._link_poses[link] = pose
        return pose

    def static_rows(self) -> list[tuple[str, str, tuple[float, ...]]]:
        if self.publish_tf == 'none':
            return []
        rows = [(WORLD, self.base_frame, _pose_row(self.basepose))]
        if self.publish_tf == 'all':
            for static in self.description.static:
                rows.append((self.frame(static.parent), self.frame(static.child),
                             (*static.xyz, *static.quat)))
        return rows

    def moving_message(self, plan: SolvePlan, sec: int, nanosec: int) -> bytes:
        """The /tf message of ``plan``'s transforms at the current positions; records them as
        what TF now has."""
        poses = self.description.solver.solve_plan(self.positions, plan)
        if plan is self.all_moving:
            self.tf_positions[:] = self.positions
        else:
            self.tf_positions[plan.dof_index] = self.positions[plan.dof_index]
        self._link_poses.clear()
        self.tf_stamp = (sec, nanosec)
        return self.tf_templates[plan].fill(sec, nanosec, poses)

    def buffer_transforms(self) -> list[TransformStamped]:
        """Every moving transform as this node's TF has it (for its own tf2 Buffer)."""
        poses = self.description.solver.solve_plan(self.tf_positions, self.all_moving)
        out = []
        for (parent, child), (x, y, z, qx, qy, qz, qw) in zip(self.all_moving.pairs,
                                                               poses.tolist()):
            transform = TransformStamped(child_frame_id=self.frame(child))
            transform.header.frame_id = self.frame(parent)
            transform.header.stamp.sec, transform.header.stamp.nanosec = self.tf_stamp
            translation, rotation = transform.transform.translation, transform.transform.rotation
            translation.x, translation.y, translation.z = x, y, z
            rotation.x, rotation.y, rotation.z, rotation.w = qx, qy, qz, qw
            out.append(transform)
        return out


class ForeignTfListener:
    """tf2_ros.TransformListener's work for problem_server's Buffer, minus the node's own /tf.

    Every /tf_static message and every /tf message of other nodes goes into the Buffer as
    TransformListener does it. The node's own /tf (each robot's moving joints, up to one
    message per joint state) is recognised by its publisher's gid and dropped undecoded: the
    node knows those frames itself, and reading them back cost about a third of a core at 200
    joint states a second (measured: benchmarks/problem_server.py); it copies them into the
    Buffer only when a lookup needs them (``_copy_own_tf_into_buffer``).
    """

    def __init__(self, node: Node, buffer: Buffer, own_publisher) -> None:
        self.node, self.buffer, self.own_publisher = node, buffer, own_publisher
        self.own_gid: bytes | None = None
        listener_qos = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST)
        static_qos = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                                durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(TFMessage, '/tf', self._dynamic, listener_qos, raw=True)
        node.create_subscription(TFMessage, '/tf_static', self._static, static_qos)

    def get_logger(self):  # for @guarded
        return self.node.get_logger()

    def _own(self, gid: bytes) -> bool:
        if self.own_gid is None:  # the local graph knows our publisher at once, normally
            for info in self.node.get_publishers_info_by_topic(self.own_publisher.topic_name):
                if (info.node_name, info.node_namespace) == (self.node.get_name(),
                                                               self.node.get_namespace()):
                    self.own_gid = bytes(info.endpoint_gid)
        return gid == self.own_gid

    @guarded
    def _dynamic(self, raw: bytes, info) -> None:
        if self._own(info['publisher_gid']['data']):
            return
        for transform in deserialize_message(raw, TFMessage).transforms:
            self.buffer.set_transform(transform, 'default_authority')

    @guarded
    def _static(self, msg: TFMessage) -> None:
        for transform in msg.transforms:
            self.buffer.set_transform_static(transform, 'default_authority')


class ProblemServer(Node):
    """Serves one problem file; objects change parent only through attach, detach and reset,
    and move with whatever carries them."""

    def __init__(self, node_name: str = 'problem_server', **kwargs) -> None:
        super().__init__(node_name, **kwargs)
        self._declare_parameters()
        self.frequency = positive(self, 'publish_frequency', allow_zero=True)  # 0: no cap
        self.joint_states_qos = joint_states_qos(self)
        self.tf_static_pub = self.create_publisher(TFMessage, '/tf_static', LATCHED_QOS)
        self.tf_pub = self.create_publisher(TFMessage, '/tf', TF_QOS)
        self.problem: Problem | None = None
        self.state: ProblemState | None = None
        self.robots: dict[str, RobotView] = {}
        self._own_frames: dict[str, tuple[RobotView, str]] = {}
        self._answer_cache: dict = {}  # insertion-ordered: oldest first (see _remembered)
        self._scene_key: tuple | None = None
        self._last_world: dict[str, np.ndarray] = {}  # object -> last world pose known
        self.moveit: MoveItView | None = None
        self.planning_scene_pub = None
        if self.get_parameter('publish_planning_scene').value:
            self.planning_scene_pub = self.create_publisher(
                PlanningScene, PLANNING_SCENE_TOPIC, PLANNING_SCENE_QOS,
                event_callbacks=PublisherEventCallbacks(matched=self._planning_scene_matched))
        self._load()  # the problem's frames on TF first; then what answers requests
        self._serve_requests()

    def _serve_requests(self) -> None:
        """The markers and ~/scene publishers, the tf2 Buffer of other nodes' frames, the
        services and the timer; the markers and the scene of a loaded problem published."""
        from moveit_msgs.srv import GetPlanningScene, GraspPlanning
        from robot_formats_interfaces.msg import Scene
        from robot_formats_interfaces.srv import (AttachObject, DetachObject, GetActionJoints,
                                                  GetGrasps, GetObject, GetPlacements,
                                                  GetProblem, ListObjects, ResetProblem)
        from tf2_ros import Buffer

        from robot_formats.nodes.problem_markers import ProblemMarkers
        self.markers: ProblemMarkers = ProblemMarkers(self)
        self.scene_pub = self.create_publisher(Scene, '~/scene', LATCHED_QOS)
        self.tf_buffer: Buffer = Buffer(node=self)
        self.tf_listener = ForeignTfListener(self, self.tf_buffer, self.tf_pub)
        if self.problem is not None:
            self.markers.publish(self.problem)
            self._publish_scene_if_changed()
        services = [(GetProblem, 'get_problem', self.get_problem),
                    (ListObjects, 'list_objects', self.list_objects),
                    (GetObject, 'get_object', self.get_object),
                    (GetGrasps, 'get_grasps', self.get_grasps),
                    (GetPlacements, 'get_placements', self.get_placements),
                    (GetActionJoints, 'get_action_joints', self.get_action_joints),
                    (AttachObject, 'attach', self.attach),
                    (DetachObject, 'detach', self.detach),
                    (ResetProblem, 'reset', self.reset),
                    (GetPlanningScene, 'get_planning_scene', self.get_planning_scene),
                    (GraspPlanning, 'plan_grasps', self.plan_grasps)]
        for kind, name, callback in services:
            self.create_service(kind, f'~/{name}', callback, qos_profile=SERVICE_QOS)
        self.create_timer(1.0 / self.frequency if self.frequency > 0 else UNCAPPED_PERIOD,
                          self._tick)
        if self.problem is not None:
            self.get_logger().info(f'serving {self.problem.path}: {len(self.problem.objects)} '
                                   f'objects, {len(self.problem.robots)} robots, '
                                   f'{len(self.problem.actions)} actions')

    # --- parameters -------------------------------------------------------------------------
    def _declare_parameters(self) -> None:
        self.declare_parameter('problem_file', '', _read_only('The TMP problem file (<problem>).'))
        self.declare_parameter('mapping_file', '', _read_only(
            "Configuration-tag mapping YAML; '' = <problem stem>.mapping.yaml if it exists."))
        self.declare_parameter('strict', False, _read_only(
            "Refuse every irregularity: the spec page's typos and any warning of the robot "
            'files the problem names (as robot-formats check --strict).'))
        self.declare_parameter('publish_frequency', 10.0, ranged(_read_only(
            "Maximum rate (Hz) of each robot's moving-joint transforms on /tf (0: one /tf "
            'message per joint_states message), of re-sending a robot\'s configuration before '
            'its first joint states, and of checking ~/scene for moved objects.'), *CAP_RANGE))
        self.declare_parameter('joint_states_qos', 'sensor_data', _read_only(
            "QoS of the robots' joint_states subscriptions: 'sensor_data' (best effort, accepts "
            "every publisher, as robot_state_publisher) or 'reliable'."))
        declare_moveit_parameters(self)

    def _declare_robot_parameters(self, robot: str) -> tuple[str, str]:
        """``robots.<robot>.…``, declared once the problem names its robots: (joint_states
        topic, publish_tf) as set."""
        prefix = f'robots.{robot}.'
        topic: object = self.declare_parameter(
            prefix + 'joint_states_topic', f'{robot}/joint_states', _read_only(
                f'Where the joint states of robot {robot!r} come from.')).value
        publish_tf: object = self.declare_parameter(
            prefix + 'publish_tf', 'all', _read_only(
                f"Who publishes the frames <robot>/<link> of robot {robot!r}: 'all' (this "
                "node: base, fixed and moving joints), 'base' (this node places the base at "
                '<basepose>; another node publishes the joints with frame_prefix <robot>/), '
                "'none' (another node publishes everything).")).value
        return str(topic), str(publish_tf)

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
            moveit = MoveItView(problem, robots, read_settings(self), self.get_logger().warning)
        except (FormatError, ValueError) as err:  # a bad file, or a bad robots.<name> setting
            self.get_logger().error(f'{err}; serving nothing (every service answers '
                                    'success=false)')
            return
        except Exception as err:  # noqa: BLE001 - a file the library fails on must not end us
            self.get_logger().error(f'internal error loading {path}: {type(err).__name__}: '
                                    f'{err}; serving nothing (every service answers '
                                    'success=false)')
            return
        irregular = [w for w in warnings if not w.is_note]
        if irregular and self.get_parameter('strict').value:  # e.g. a robot file's warnings
            self.get_logger().error(f'{irregular[0]} (strict: {len(irregular)} warning(s) '
                                    'refuse the problem); serving nothing (every service '
                                    'answers success=false)')
            return
        for warning in warnings:
            if warning.is_note:
                self.get_logger().info(f'note: {warning}')
            else:
                self.get_logger().warning(str(warning))
        self.problem, self.robots, self.moveit = problem, robots, moveit
        self._own_frames = {frame: (view, link) for view in robots.values()
                            for frame, link in view.own_frames().items()}
        self.state = ProblemState(problem, frame_pose=self._frame_pose)
        self._warn_about_unknown_robot_parameters()
        qos = self.joint_states_qos
        for name, view in robots.items():
            publisher = self.create_publisher(String, f'{name}/robot_description', LATCHED_QOS)
            publisher.publish(String(data=view.description.robot_description))
            self.create_subscription(JointState, view.joint_states_topic,
                                     functools.partial(self.joint_states_callback, view), qos)
        self._publish_static()
        self._publish_initial_tf(time.monotonic())

    def _robot_view(self, robot) -> RobotView:
        try:
            description = Description.load(robot.description_path, robot.joint_positions)
        except FormatError:  # a configuration naming DoFs the URDF form does not have
            description = Description.load(robot.description_path)
            self.get_logger().warning(f'robot {robot.name!r}: its configuration tags name '
                                      'joints its URDF form does not have; using its own '
                                      'initial configuration')
        topic, publish_tf = self._declare_robot_parameters(robot.name)
        if publish_tf not in PUBLISH_TF_CHOICES:
            raise ValueError(f'parameter robots.{robot.name}.publish_tf is {publish_tf!r}, not '
                             f'one of {", ".join(PUBLISH_TF_CHOICES)}')
        return RobotView(robot.name, description, robot.basepose, publish_tf, self.frequency,
                         topic)

    def _warn_about_unknown_robot_parameters(self) -> None:
        """A ``robots.<name>.…`` override naming no robot of the problem is a typo: say so."""
        assert self.problem is not None
        for name in getattr(self, '_parameter_overrides', {}):
            if name.startswith('robots.') and not self.has_parameter(name):
                self.get_logger().warning(
                    f'parameter {name} is not used: the problem has no such robot setting '
                    f'(robots: {", ".join(self.problem.robots) or "none"}; settings: '
                    'joint_states_topic, publish_tf)')

    # --- where frames are ---------------------------------------------------------------------
    def _frame_pose(self, frame: str) -> np.ndarray:
        """X_W_frame of a frame that is not an object: from this node's own robot state for the
        frames it publishes, else as TF reports it (the node's tf2 Buffer, latest data)."""
        own = self._own_frames.get(frame)
        if own is not None:
            view, link = own
            return view.world_pose(link)
        from tf2_ros import TransformException
        self._copy_own_tf_into_buffer()
        try:
            found = self.tf_buffer.lookup_transform(WORLD, frame, rclpy.time.Time())
        except TransformException as err:
            raise FrameUnavailable(f'no object or robot frame named {frame!r}, and TF has no '
                                   f'transform from world to it ({str(err).strip()})') from None
        return _transform_matrix(found.transform)

    def _copy_own_tf_into_buffer(self) -> None:
        """The moving frames this node publishes, into its tf2 Buffer (its listener skips its
        own /tf): a frame another node hangs below them (a camera on the gripper) resolves."""
        for view in self.robots.values():  # (tf2 takes one state per stamp)
            if view.publish_tf == 'all' and view.buffered_stamp != view.tf_stamp:
                for transform in view.buffer_transforms():
                    self.tf_buffer.set_transform(transform, 'problem_server')
                view.buffered_stamp = view.tf_stamp

    # --- robots' joint states -------------------------------------------------------------------
    @guarded
    def joint_states_callback(self, view: RobotView, msg: JointState) -> None:
        joint_tf = view.joint_tf
        clock = self.get_clock().now().nanoseconds
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec or clock
        try:
            if view.publish_tf != 'all':  # no TF from here: positions only, no rate cap
                joint_tf.update(msg.name, msg.position)
                publish = False
            else:
                if joint_tf.clock_moved_back(clock):
                    self.get_logger().warning(f'{view.name}: the clock moved backwards: the /tf '
                                              'rate cap starts again', throttle_duration_sec=10.0)
                plan, publish = joint_tf.receive(msg.name, msg.position, stamp)
        except JointStateRefused as err:
            self.get_logger().warning(f'{view.name}: dropped {err}', throttle_duration_sec=10.0)
            return
        view.joint_states_received += 1
        if publish:
            self._publish_moving(view, plan, stamp)

    def _publish_moving(self, view: RobotView, plan: SolvePlan, stamp: int) -> None:
        self.tf_pub.publish(view.moving_message(plan, *divmod(stamp, 1_000_000_000)))

    def _publish_initial_tf(self, now: float) -> None:
        """Robots whose joint states have not come yet: their configuration tags on /tf."""
        for view in self.robots.values():
            if view.publish_tf != 'all' or view.joint_states_received or \
                    view.all_moving.edges.size == 0 or \
                    now - view.last_initial_tf < INITIAL_TF_PERIOD * 0.999:
                continue
            view.last_initial_tf = now
            self.tf_pub.publish(view.moving_message(view.all_moving, *self._stamp()))

    @guarded
    def _tick(self) -> None:
        """Held-back /tf updates whose period has passed, the initial configurations, and
        ~/scene if an object moved."""
        clock = self.get_clock().now().nanoseconds
        for view in self.robots.values():
            for plan, stamp in view.joint_tf.due(clock):
                self._publish_moving(view, plan, stamp)
        self._publish_initial_tf(time.monotonic())
        if self.state is not None:
            self._publish_scene_if_changed()

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

    def _publish_scene_if_changed(self) -> None:
        """~/scene when an object changed parent or world pose since the last one."""
        assert self.state is not None
        from robot_formats_interfaces.msg import Scene, SceneObject
        snapshot = self.state.snapshot()
        for item in snapshot:
            if item.world is not None:
                self._last_world[item.name] = item.world
        key = (self.state.version, tuple(item.world.tobytes() if item.world is not None
                                         else item.unknown_reason for item in snapshot))
        if key == self._scene_key:
            return
        self._scene_key = key
        scene = Scene(version=self.state.version)
        scene.header.frame_id = WORLD
        scene.header.stamp = self.get_clock().now().to_msg()
        for item in snapshot:
            world = item.world if item.world is not None else self._last_world.get(item.name)
            scene.objects.append(SceneObject(
                name=item.name, moveable=item.moveable, parent=item.parent,
                pose=pose_msg(world if world is not None else np.eye(4)),
                pose_in_parent=pose_msg(item.local), attached=list(item.attached),
                pose_known=item.world is not None, reason=item.unknown_reason))
        self.scene_pub.publish(scene)
        self._publish_planning_scene(snapshot)

    def _publish_planning_scene(self, snapshot) -> None:
        """With publish_planning_scene: what changed for MoveIt, as one PlanningScene diff."""
        if self.planning_scene_pub is None or self.moveit is None:
            return
        diff = self.moveit.diff(self.moveit.entries(snapshot, self._last_world))
        if diff is not None:
            self.planning_scene_pub.publish(diff)

    @guarded
    def _planning_scene_matched(self, info) -> None:
        """A new subscriber of planning_scene (move_group started later, say) gets the whole
        scene as one diff: it missed the diffs before it joined."""
        publisher = self.planning_scene_pub
        if info.current_count_change > 0 and self.moveit is not None and publisher is not None:
            sync = self.moveit.sync()
            if sync is not None:
                publisher.publish(sync)

    def _state_changed(self) -> None:
        """After attach, detach or reset: TF's static set, and the scene, at once."""
        self._publish_static()
        self._publish_scene_if_changed()

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

    def _world_pose(self, name: str) -> np.ndarray:
        """An object's world pose now; RequestError saying why when its parent frame is not
        on TF."""
        _, state = self._loaded()
        try:
            return state.world_pose(name)
        except FrameUnavailable as err:
            raise RequestError(f'where {name!r} is now is unknown: {err.message}') from None

    @staticmethod
    def _samples(value: int) -> int:
        if value == 0:
            return DEFAULT_SAMPLES
        if value > MAX_SAMPLES:
            raise RequestError(f'samples must be at most {MAX_SAMPLES}, not {value}')
        return int(value)

    def _object_msg(self, obj: CoreObject, world: np.ndarray) -> ProblemObject:
        from robot_formats_interfaces.msg import Grasp, ProblemObject
        _, state = self._loaded()
        msg = ProblemObject(name=obj.name, mesh=obj.mesh_path or '', moveable=obj.moveable,
                            parent=state.parents[obj.name])
        msg.pose = pose_msg(world)
        msg.pose_in_parent = pose_msg(state.local[obj.name])
        msg.attached = state.children_of(obj.name)
        msg.discrete_grasps = [Grasp(id=f'gf{i}', type=g.type, pose=pose_msg(g.frame))
                               for i, g in enumerate(obj.grasps)]
        msg.continuous_grasp_sets = len(obj.continuous_grasps)
        types = [g.type for g in obj.grasps] + [g.type for g in obj.continuous_grasps]
        msg.grasp_types = list(dict.fromkeys(types))
        region = obj.support
        if region is not None:
            msg.support_kind = region.kind
            if region.kind == 'polygon':
                assert region.points is not None  # a polygon has its points
                corners = list(region.points)
            else:
                assert region.low is not None and region.high is not None  # points, rectangles
                corners = [region.low] if region.kind == 'point' else [region.low, region.high]
            msg.support_region = [point_msg(p) for p in corners]
        msg.stable_poses = len(obj.stable_poses)
        return msg

    def _robot_msg(self, robot) -> ProblemRobot:
        from robot_formats_interfaces.msg import ProblemRobot
        view = self.robots[robot.name]
        return ProblemRobot(
            name=robot.name, description_file=robot.description_path, format=robot.format,
            description_topic=self.resolve_topic_name(f'{robot.name}/robot_description'),
            base_frame=view.base_frame, base_pose=pose_msg(robot.basepose),
            movebase=robot.movebase, joint_names=list(view.description.dof_names),
            joint_positions=[float(v) for v in view.positions])

    @_answers
    def get_problem(self, request, response) -> None:
        from robot_formats_interfaces.msg import ProblemAction
        problem, state = self._loaded()
        response.path = problem.path
        stale = []
        for item in state.snapshot():
            world = item.world
            if world is None:
                world = self._last_world.get(item.name, problem.objects[item.name].pose)
                stale.append(f'{item.name} ({item.unknown_reason})')
            response.objects.append(self._object_msg(problem.objects[item.name], world))
        response.robots = [self._robot_msg(r) for r in problem.robots.values()]
        response.actions = [ProblemAction(name=a.name, joints=list(a.joints))
                            for a in problem.actions.values()]
        if stale:
            response.message = ('the last known poses of objects whose parent frame is not on '
                                 'TF now: ' + '; '.join(stale))

    @_answers
    def list_objects(self, request, response) -> None:
        problem, _ = self._loaded()
        response.names = list(problem.objects)
        response.moveable = [o.moveable for o in problem.objects.values()]

    @_answers
    def get_object(self, request, response) -> None:
        _, state = self._loaded()
        obj = self._object(request.name)
        world = self._world_pose(obj.name)
        response.object = self._remembered(('object', obj.name, state.version, world.tobytes()),
                                           1, lambda: self._object_msg(obj, world))

    @_answers
    def get_grasps(self, request, response) -> None:
        obj = self._object(request.object)
        frame = request.frame or 'world'
        if frame not in ('world', 'object'):
            raise RequestError(f"frame must be 'world' or 'object', not {request.frame!r}")
        found = grasp_set(obj, self._samples(request.samples), request.type or None)
        world = self._world_pose(obj.name) if frame == 'world' or request.show else None
        response.frame_id = WORLD if frame == 'world' else obj.name
        pose = world if frame == 'world' else None
        key = (found, frame, pose.tobytes() if pose is not None else None)
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
            problem, _ = self._loaded()
            self.markers.show_grasps(world @ found.frames)
            self.markers.publish(problem)

    def _remembered(self, key: tuple, size: int, build):
        """``build()``, remembered under ``key`` for the next identical question. Planners ask
        the same questions again and again, and building rclpy messages is most of an answer's
        cost; keys hold the state version and the world poses the answer depends on (bytes), so
        attach/detach/reset and moving parents invalidate them. The last ANSWER_CACHE_SIZE
        answers of at most ANSWER_CACHE_MAX_ITEMS items are kept (never changed after they are
        built)."""
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
        from robot_formats_interfaces.msg import Grasp
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
        obj = self._object(request.object)
        support = self._object(request.support)
        samples, seed = self._samples(request.samples), int(request.seed)
        support_pose = self._world_pose(support.name)
        response.placements = self._remembered(
            ('placements', obj.name, support.name, samples, seed, support_pose.tobytes()),
            samples, lambda: self._placement_messages(placements(obj, support, support_pose,
                                                                 samples, seed)))
        response.message = f'{len(response.placements)} placements'

    @staticmethod
    def _placement_messages(found) -> list[Placement]:
        from robot_formats_interfaces.msg import Placement
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
        state.attach(request.object, request.parent)
        self._state_changed()
        response.message = f'{request.object} attached to {request.parent}'

    @_answers
    def detach(self, request, response) -> None:
        _, state = self._loaded()
        self._object(request.object)
        previous = state.parents[request.object]
        state.detach(request.object)
        self._state_changed()
        response.message = f'{request.object} detached from {previous}'

    @_answers
    def reset(self, request, response) -> None:
        problem, state = self._loaded()
        state.reset()
        self.markers.clear_grasps()
        self._state_changed()
        self.markers.publish(problem)
        response.message = 'back to the initial state'

    # --- MoveIt's view ------------------------------------------------------------------------
    def get_planning_scene(self, request, response):
        """moveit_msgs GetPlanningScene: the requested components of the scene now (an empty
        scene, and the reason in the log, when no problem is loaded)."""
        try:
            if self.moveit is None or self.state is None:
                self.get_logger().warning('get_planning_scene: no problem is loaded; answered '
                                          'an empty scene', throttle_duration_sec=10.0)
                return response
            entries = self.moveit.entries(self.state.snapshot(), self._last_world)
            response.scene = self.moveit.scene(request.components.components, entries,
                                               self.get_clock().now().to_msg())
        except Exception as err:  # noqa: BLE001 - the node keeps serving whatever happens
            self.get_logger().error(f'internal error in get_planning_scene: '
                                    f'{type(err).__name__}: {err}')
        return response

    def plan_grasps(self, request, response):
        """moveit_msgs GraspPlanning: every grasp of the object ``target.id`` as MoveIt grasps;
        a refusal is an error_code with its reason in ``error_code.message``."""
        code = response.error_code
        code.source = self.get_fully_qualified_name()
        try:
            if self.moveit is None:
                raise GraspRefused(MoveItErrorCodes.FAILURE,
                                   'no problem is loaded (see the node log for why)')
            try:
                obj = self._object(request.target.id)
            except RequestError as err:
                raise GraspRefused(MoveItErrorCodes.INVALID_OBJECT_NAME, str(err)) from None
            response.grasps = self.moveit.grasps(obj, request.group_name,
                                                 self.get_clock().now().to_msg())
            code.val, code.message = MoveItErrorCodes.SUCCESS, f'{len(response.grasps)} grasps'
        except GraspRefused as err:
            code.val, code.message = err.code, err.message
        except Exception as err:  # noqa: BLE001 - the node keeps serving whatever happens
            self.get_logger().error(f'internal error in plan_grasps: {type(err).__name__}: '
                                    f'{err}')
            code.val = MoveItErrorCodes.FAILURE
            code.message = f'internal error: {type(err).__name__}: {err}'
        return response


def _declare_every_parameter(node: Any) -> None:
    """Every parameter the node takes, the per-robot ones as ``robots.<robot>.…`` (--help):
    on the node, or a :class:`ParameterListing` standing in for it."""
    ProblemServer._declare_parameters(node)
    ProblemServer._declare_robot_parameters(node, '<robot>')


def _read_only(description: str) -> ParameterDescriptor:
    return ParameterDescriptor(description=description, read_only=True)


def main(args: list[str] | None = None) -> int:
    return run_node('problem_server', ProblemServer, args, parameters=_declare_every_parameter,
                    make_executor=draining_executor)


if __name__ == '__main__':
    raise SystemExit(main())
