"""Helpers for the end-to-end node tests: a node under test in a subprocess, a test-side rclpy
context on the same (private) domain, and independent SE(3) math to compare what arrived.

Rules these helpers enforce:

* DDS stays on loopback (``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``) and every node process gets
  its own ``ROS_DOMAIN_ID`` (see ``conftest.py``), so tests never see each other's nodes;
* every wait polls with a deadline (:data:`TIMEOUT`), never a fixed sleep: discovery alone can
  take 2.75 s;
* the node under test is always stopped in teardown (SIGINT, then SIGKILL after a timeout).

The math here is written from closed forms and never calls ``robot_formats.core.transforms``.
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

from .kilted_parameters import controllers_file_problems

ROOT = Path(__file__).resolve().parents[2]
ARM = ROOT / 'examples' / 'urdf' / 'arm_with_gripper.urdf'

#: Deadline of every readiness wait (discovery can take 2.75 s; CI machines are slow).
TIMEOUT = 30.0
#: Poses received over DDS must equal the library's forward kinematics to this.
TOL = 1e-9

#: robot_description as rviz2 / robot_state_publisher subscribe to it.
DESCRIPTION_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: /tf_static as tf2 listeners subscribe to it.
TF_STATIC_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                           durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: /tf as tf2 listeners subscribe to it.
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                    durability=DurabilityPolicy.VOLATILE)
#: A subscription that keeps every message until taken, as motion_recorder's: a test process
#: that falls behind (a loaded machine) loses nothing meanwhile.
EVERY_MESSAGE = QoSProfile(history=HistoryPolicy.KEEP_ALL, reliability=ReliabilityPolicy.RELIABLE)


def check_urdf_binary() -> str:
    """urdfdom's check_urdf from the venv (a test requirement: missing is a failure)."""
    candidate = ROOT / '.venv' / 'bin' / 'check_urdf'
    if candidate.exists():
        return str(candidate)
    found = shutil.which('check_urdf')
    assert found, 'check_urdf not found (.venv/bin/check_urdf); run `make setup-test`'
    return found


LOST_RESPONSE = 'client will not receive response'

# --- the node under test ----------------------------------------------------------------------

def subprocess_env(domain_id: int, log_dir: Path,
                   base: dict[str, str] | None = None) -> dict[str, str]:
    """The sourced environment (tools/env.sh, or ``base``) with a private domain, DDS on
    loopback."""
    env = dict(os.environ if base is None else base)
    env['ROS_DOMAIN_ID'] = str(domain_id)
    env['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    env['ROS_LOG_DIR'] = str(log_dir / 'ros_log')
    env['ROS_HOME'] = str(log_dir / 'ros_home')  # what nodes write by default stays here
    env['PYTHONUNBUFFERED'] = '1'
    env['RCUTILS_LOGGING_BUFFERED_STREAM'] = '0'
    env['RCUTILS_COLORIZED_OUTPUT'] = '0'
    # Every lost service response is printed, not only a location's first (see RosSide.call).
    env['PYTHONWARNINGS'] = 'always::RuntimeWarning'
    return env


class NodeProcess:
    """A node (or bringup) in a subprocess on its own domain; output goes to a log file."""

    def __init__(self, args: list[str], domain_id: int, log_dir: Path, name: str,
                 env: dict[str, str] | None = None) -> None:
        env = subprocess_env(domain_id, log_dir, env)
        self.args = list(args)
        self.domain_id = domain_id
        self.log_path = log_dir / f'{name}.log'
        self._log_file = open(self.log_path, 'wb')  # noqa: SIM115 - closed in stop()
        # cwd=ROOT: `python -m robot_formats...` runs the working tree, not an installed copy.
        # A session (process group) of its own: Ctrl-C in a terminal signals the whole
        # foreground group (``ros2 run`` relies on its child receiving it too), and so does
        # interrupt() here.
        self.proc = subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env,
                                     stdin=subprocess.DEVNULL, stdout=self._log_file,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.returncode: int | None = None

    @classmethod
    def description_publisher(cls, domain_id: int, log_dir: Path, name: str,
                              ros_args: Sequence[str] = (), **parameters: Any) -> NodeProcess:
        args = ['-m', 'robot_formats.nodes.description_publisher', '--ros-args', *ros_args]
        for key, value in parameters.items():
            args += ['-p', f'{key}:={_param_text(value)}']
        return cls(args, domain_id, log_dir, name)

    def log(self) -> str:
        try:
            return self.log_path.read_text(encoding='utf-8', errors='replace')
        except OSError:
            return ''

    def alive(self) -> bool:
        return self.proc.poll() is None

    def describe(self) -> str:
        state = 'running' if self.alive() else f'exited with {self.proc.returncode}'
        return (f'node process ({" ".join(self.args)}) on domain {self.domain_id}, {state}; '
                f'its output:\n{self.log()}')

    def wait_for_log(self, text: str, timeout: float = TIMEOUT) -> str:
        """Poll the output until ``text`` appears (or fail at the deadline)."""
        deadline = time.monotonic() + timeout
        while True:
            log = self.log()
            if text in log:
                return log
            if time.monotonic() > deadline:
                raise AssertionError(f'{text!r} did not appear within {timeout:g} s; '
                                     + self.describe())
            if not self.alive():
                raise AssertionError(f'the process exited before printing {text!r}; '
                                     + self.describe())
            time.sleep(0.05)  # poll interval of a deadline wait

    def interrupt(self, timeout: float = 15.0) -> int | None:
        """SIGINT (Ctrl-C) and wait up to ``timeout``; the exit code, or None if still alive."""
        if self.alive():
            self._signal_group(signal.SIGINT)
        try:
            self.returncode = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.returncode

    def _signal_group(self, signum: int) -> None:
        try:
            os.killpg(self.proc.pid, signum)
        except ProcessLookupError:
            pass  # the whole group has ended

    def stop(self, timeout: float = 15.0) -> int:
        """Always ends the process: SIGINT, then SIGKILL after ``timeout``."""
        code = self.interrupt(timeout)
        if code is None:
            self._signal_group(signal.SIGKILL)
            code = self.proc.wait(timeout=30)
        else:
            self._signal_group(signal.SIGKILL)  # nothing of the group may outlive the test
        self.returncode = code
        if not self._log_file.closed:
            self._log_file.close()
        return code


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (list, tuple)):
        return '[' + ','.join(repr(str(v)) if isinstance(v, str) else str(v) for v in value) + ']'
    return str(value)


# --- the test side ------------------------------------------------------------------------------

class Inbox:
    """Messages received by one subscription, in arrival order."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.subscription: Any = None

    def __call__(self, msg: Any) -> None:
        self.messages.append(msg)

    def __len__(self) -> int:
        return len(self.messages)

    @property
    def last(self) -> Any:
        return self.messages[-1]


class RosSide:
    """A private rclpy context + node + executor on one domain, for the pytest process."""

    def __init__(self, domain_id: int, name: str = 'node_test') -> None:
        assert os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE') == 'LOCALHOST'
        self.domain_id = domain_id
        self.context = Context()
        self.context.init(domain_id=domain_id)
        self.node = rclpy.create_node(name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._extra_nodes: list[Any] = []

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=5)
        for node in [*self._extra_nodes, self.node]:
            node.destroy_node()
        self.context.try_shutdown()

    def new_node(self, name: str) -> Any:
        """Another node in this context (a fresh participant-level late joiner)."""
        node = rclpy.create_node(name, context=self.context)
        self.executor.add_node(node)
        self._extra_nodes.append(node)
        return node

    def subscribe(self, msg_type: Any, topic: str, qos: QoSProfile, node: Any = None) -> Inbox:
        inbox = Inbox()
        inbox.subscription = (node or self.node).create_subscription(msg_type, topic, inbox, qos)
        return inbox

    def spin_once(self, timeout: float = 0.05) -> None:
        self.executor.spin_once(timeout_sec=timeout)

    def spin_until(self, predicate: Callable[[], Any], timeout: float = TIMEOUT,
                   what: str = 'a condition', process: NodeProcess | None = None,
                   every: Callable[[], None] | None = None, every_period: float = 1.0) -> Any:
        """Spin until ``predicate()`` is truthy; fail after ``timeout``.

        ``every`` (e.g. re-publishing a joint state until the node has matched us) runs at once
        and then every ``every_period`` seconds while waiting.
        """
        deadline = time.monotonic() + timeout
        next_every = time.monotonic()
        while True:
            result = predicate()
            if result:
                return result
            now = time.monotonic()
            if now > deadline:
                raise AssertionError(f'timed out after {timeout:g} s waiting for {what}'
                                     + (f'; {process.describe()}' if process else ''))
            if process is not None and not process.alive():
                raise AssertionError(f'the node died while waiting for {what}; '
                                     + process.describe())
            if every is not None and now >= next_every:
                every()
                next_every = now + every_period
            self.spin_once(0.02)

    def spin_for(self, seconds: float) -> None:
        """Keep receiving for ``seconds`` (only for bounded *absence* checks, never readiness)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.spin_once(min(0.02, max(0.0, end - time.monotonic())))

    def call(self, client: Any, request: Any, timeout: float = TIMEOUT,
             process: NodeProcess | None = None) -> Any:
        """Call and wait for the answer; ask again when the node reports its answer lost.

        rmw_fastrtps sends a response only once the server has matched the client's response
        reader, and waits only briefly for that (rmw_fastrtps_shared_cpp's send_response).
        ``wait_for_service`` sees only the client's side of discovery, so on a loaded machine
        the first answer can be dropped; rclpy then warns ``client will not receive response``
        in the node's output. The request is sent again only on that notice, so a call is never
        repeated while its first answer may still come.
        """
        assert client.wait_for_service(timeout_sec=timeout), (
            f'service {client.srv_name} not available within {timeout:g} s'
            + (f'; {process.describe()}' if process else ''))
        lost_before = process.log().count(LOST_RESPONSE) if process else 0
        futures = [client.call_async(request)]

        def answered() -> Any:
            done = [future for future in futures if future.done()]
            if done:
                return done[0]
            if process and process.log().count(LOST_RESPONSE) >= lost_before + len(futures):
                futures.append(client.call_async(request))
            return None

        future = self.spin_until(answered, timeout, f'the response of {client.srv_name}', process)
        return future.result()


# --- independent SE(3) and TF composition --------------------------------------------------------

def quat_to_matrix(x: float, y: float, z: float, w: float) -> np.ndarray:
    """Rotation of a quaternion (x, y, z, w), closed form (normalising first)."""
    n = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def transform_matrix(transform: Any) -> np.ndarray:
    """4x4 matrix of a geometry_msgs/Transform."""
    t, r = transform.translation, transform.rotation
    out = np.eye(4)
    out[:3, :3] = quat_to_matrix(r.x, r.y, r.z, r.w)
    out[:3, 3] = (t.x, t.y, t.z)
    return out


def edges_of(messages: Iterable[Any]) -> dict[str, tuple[str, np.ndarray]]:
    """child -> (parent, X_parent_child) from TFMessages (later messages win)."""
    out: dict[str, tuple[str, np.ndarray]] = {}
    for msg in messages:
        for ts in msg.transforms:
            out[ts.child_frame_id] = (ts.header.frame_id, transform_matrix(ts.transform))
    return out


def compose(edges: dict[str, tuple[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """X_root_frame of every frame reachable from a root (frames that are nobody's child)."""
    poses: dict[str, np.ndarray] = {}
    parents = {parent for parent, _ in edges.values()}
    for root in parents - set(edges):
        poses[root] = np.eye(4)

    def resolve(frame: str, depth: int = 0) -> np.ndarray:
        if frame in poses:
            return poses[frame]
        assert depth < 10_000, f'TF loop at {frame!r}'
        parent, local = edges[frame]
        poses[frame] = resolve(parent, depth + 1) @ local
        return poses[frame]

    for frame in edges:
        resolve(frame)
    return poses


def assert_poses_equal(received: dict[str, np.ndarray], expected: dict[str, np.ndarray],
                       tol: float = TOL, context: str = '') -> None:
    """Same frames, every pose equal to ``tol`` (rotation entries and translation)."""
    assert set(received) == set(expected), (
        f'{context}frames differ: missing {sorted(set(expected) - set(received))}, '
        f'extra {sorted(set(received) - set(expected))}')
    worst, where = 0.0, None
    for name, pose in expected.items():
        error = float(np.max(np.abs(received[name] - pose)))
        if error > worst:
            worst, where = error, name
    assert worst <= tol, f'{context}largest pose difference {worst:.3e} at frame {where!r}'


def stamp_of(msg: Any) -> tuple[int, int]:
    return (msg.header.stamp.sec, msg.header.stamp.nanosec)


def stamp_seconds(msg: Any) -> float:
    """A message's header.stamp in seconds."""
    return msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9


def tf_with_stamp(inbox: Inbox, stamp: tuple[int, int]) -> list[Any]:
    """The /tf messages whose every transform carries ``stamp``."""
    return [m for m in inbox.messages
            if m.transforms and all(stamp_of(t) == stamp for t in m.transforms)]


def any_tf_with_stamp(inbox: Inbox, stamp: tuple[int, int]) -> bool:
    return any(stamp_of(t) == stamp for m in inbox.messages for t in m.transforms)


# --- URDF helpers -----------------------------------------------------------------------------

def urdf_names(text: str) -> tuple[list[str], list[str]]:
    """(link names, joint names) of a URDF document, in document order."""
    root = ET.fromstring(text.encode('utf-8'))
    assert root.tag == 'robot', root.tag
    return ([e.get('name') for e in root.findall('link')],
            [e.get('name') for e in root.findall('joint')])


def canonical_xml(text: str) -> str:
    """C14N of a document without comments (the generator comment names the source path)."""
    return ET.canonicalize(text, with_comments=False, strip_text=True)


def run_check_urdf(text: str, tmp_dir: Path) -> subprocess.CompletedProcess:
    path = tmp_dir / 'received_robot_description.urdf'
    path.write_text(text, encoding='utf-8')
    return subprocess.run([check_urdf_binary(), str(path)], capture_output=True, text=True,
                          timeout=60)


# --- fixtures' workhorse ----------------------------------------------------------------------

class Launcher:
    """Starts node processes, each on a fresh domain with its own test-side context."""

    def __init__(self, allocate_domain: Callable[[], int], log_dir: Path) -> None:
        self.allocate_domain = allocate_domain
        self.log_dir = log_dir
        self.processes: list[NodeProcess] = []
        self.sides: list[RosSide] = []

    def publisher(self, name: str, ros_args: Sequence[str] = (), **parameters: Any
                  ) -> tuple[NodeProcess, RosSide]:
        """description_publisher with ``parameters`` and a RosSide on the same domain."""
        domain = self.allocate_domain()
        process = NodeProcess.description_publisher(domain, self.log_dir, name, ros_args,
                                                    **parameters)
        self.processes.append(process)
        return process, self.side(domain, name)

    def command(self, args: list[str], name: str, env: dict[str, str] | None = None
                ) -> tuple[NodeProcess, RosSide]:
        """``args`` run by this Python; ``env`` (default: this process's) is the environment
        they start in, e.g. another workspace's."""
        domain = self.allocate_domain()
        process = NodeProcess(args, domain, self.log_dir, name, env)
        self.processes.append(process)
        return process, self.side(domain, name)

    def side(self, domain: int, name: str) -> RosSide:
        side = RosSide(domain, f'test_{name}'.replace('-', '_'))
        self.sides.append(side)
        return side

    def close(self) -> None:
        errors = []
        for process in self.processes:
            try:
                process.stop()
            except Exception as err:  # noqa: BLE001 - stop every process whatever happens
                errors.append(err)
        for side in self.sides:
            side.close()
        if errors:
            raise errors[0]


# --- ros2_controllers' parameter files --------------------------------------------------------

#: The controllers every controllers file of robot_formats configures.
MANAGER_TYPES = {'joint_state_broadcaster/JointStateBroadcaster',
                 'joint_trajectory_controller/JointTrajectoryController',
                 'forward_command_controller/ForwardCommandController'}


def assert_ros2_controllers_file(config: dict, joints: list[str], forward: str,
                                 interface: str) -> None:
    """``config`` (a controller_manager YAML, loaded) declares the three controllers with
    ros2_controllers' own types over ``joints`` in that order, and every key it sets (with its
    value's type) is one Kilted's controller_manager and controllers declare
    (:mod:`kilted_parameters`, read from their parameter definitions)."""
    manager = config['controller_manager']['ros__parameters']
    types = {k: v['type'] for k, v in manager.items() if isinstance(v, dict)}
    assert set(types.values()) == MANAGER_TYPES
    assert types[forward] == 'forward_command_controller/ForwardCommandController'
    jtc_params = config['joint_trajectory_controller']['ros__parameters']
    assert jtc_params['joints'] == joints and len(joints) == len(set(joints))
    forward_params = config[forward]['ros__parameters']
    assert forward_params['joints'] == joints and forward_params['interface_name'] == interface
    problems = controllers_file_problems(config)
    assert not problems, 'not what Kilted declares:\n' + '\n'.join(problems)
