"""Every launch file, run the way users run it: ``ros2 launch robot_formats X.launch.py``.

Each run is a real ``ros2 launch`` (upstream launch_ros) in a subprocess on a private DDS domain
(``rviz:=false``: rviz2 needs Qt; the launch still writes and logs the rviz2 configuration it
would hand rviz2). The test side then checks, through the ROS graph and the real tools'
interfaces only:

* every node the file starts is up, in the namespace the arguments gave;
* its parameters hold the values the arguments gave (rcl_interfaces GetParameters, as
  ``ros2 param get`` reads them);
* its topics, services and actions exist with the types docs/nodes.md documents;
* the frames arrive through a ``tf2_ros.Buffer`` + ``TransformListener`` (what rviz2 and every
  TF client use): ``lookup_transform(root, frame)`` for every link of the received
  robot_description equals the library's forward kinematics and pinocchio's, run on the received
  URDF;
* every topic the rviz2 configuration the launch wrote reads has a publisher the launch started,
  and its RobotModel's TF prefix and fixed frame are the launch's frames;
* SIGINT (Ctrl-C) ends ``ros2 launch`` with exit code 0, every node "finished cleanly".
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
import yaml
import rclpy.time
from ament_index_python.packages import get_package_share_directory
from rcl_interfaces.srv import GetParameters
from rclpy.action import graph as action_graph
from rclpy.parameter import parameter_value_to_python
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_ros import Buffer, TransformListener

from robot_formats.runtime.description import Description

from .harness import DESCRIPTION_QOS, ROOT, Launcher, quat_to_matrix, transform_matrix

sys.path.insert(0, str(ROOT / 'test'))
sys.path.insert(0, str(ROOT / 'test' / 'core'))
from rf_testlib import pinocchio_forward, urdf_joint_values  # noqa: E402
from shared_data import shared  # noqa: E402

SHARE = Path(get_package_share_directory('robot_formats'))
ARM = SHARE / 'examples' / 'urdf' / 'arm_with_gripper.urdf'
WAVE = SHARE / 'examples' / 'xmdi' / 'arm_wave.xmdi'
#: The launched poses must equal the library and pinocchio to this.
TF_TOL = 1e-9
PIN_TOL = 1e-6

# Types documented in docs/nodes.md.
STRING = 'std_msgs/msg/String'
TF = 'tf2_msgs/msg/TFMessage'
JOINT_STATE = 'sensor_msgs/msg/JointState'
TRAJECTORY = 'trajectory_msgs/msg/JointTrajectory'
COMMANDS = 'std_msgs/msg/Float64MultiArray'
FOLLOW = 'control_msgs/action/FollowJointTrajectory'
CONTROLLER_STATE = 'control_msgs/msg/JointTrajectoryControllerState'


def ros2() -> str:
    found = shutil.which('ros2')
    assert found, 'ros2 is not on PATH: source tools/env.sh after `make build`'
    return found


@dataclass
class Expected:
    """What one node of a launch file must show."""

    name: str
    namespace: str = '/'
    parameters: dict[str, Any] = field(default_factory=dict)
    publishes: dict[str, str] = field(default_factory=dict)
    subscribes: dict[str, str] = field(default_factory=dict)
    services: dict[str, str] = field(default_factory=dict)
    action_servers: dict[str, str] = field(default_factory=dict)
    action_clients: dict[str, str] = field(default_factory=dict)

    @property
    def fqn(self) -> str:
        return f'{self.namespace.rstrip("/")}/{self.name}'


class LaunchRun:
    """``ros2 launch robot_formats <file> rviz:=false <arguments>`` and a test side."""

    def __init__(self, launcher: Launcher, launch_file: str, arguments: dict[str, str],
                 name: str, package: str | None = 'robot_formats') -> None:
        """``package=None``: ``launch_file`` is a path (``ros2 launch FILE``)."""
        where = [package, launch_file, 'rviz:=false'] if package else [launch_file]
        args = [ros2(), 'launch', *where,
                *(f'{key}:={value}' for key, value in arguments.items())]
        self.process, self.side = launcher.command(args, re.sub(r'\W', '_', name))

    # --- the graph ---------------------------------------------------------------------------

    def wait_for_nodes(self, nodes: list[Expected]) -> None:
        wanted = {(n.name, n.namespace) for n in nodes}
        self.side.spin_until(
            lambda: wanted <= set(self.side.node.get_node_names_and_namespaces()),
            what=f'the nodes {sorted(wanted)}', process=self.process)

    def wait_for_endpoints(self, node: Expected) -> None:
        me = self.side.node
        kinds = [
            ('publishes', node.publishes,
             lambda: me.get_publisher_names_and_types_by_node(node.name, node.namespace)),
            ('subscribes', node.subscribes,
             lambda: me.get_subscriber_names_and_types_by_node(node.name, node.namespace)),
            ('services', node.services,
             lambda: me.get_service_names_and_types_by_node(node.name, node.namespace)),
            ('action servers', node.action_servers,
             lambda: action_graph.get_action_server_names_and_types_by_node(
                 me, node.name, node.namespace)),
            ('action clients', node.action_clients,
             lambda: action_graph.get_action_client_names_and_types_by_node(
                 me, node.name, node.namespace)),
        ]
        for kind, expected, query in kinds:
            def present(query=query, expected=expected) -> bool:
                found = {name: set(types) for name, types in query()}
                return all(t in found.get(name, ()) for name, t in expected.items())

            self.side.spin_until(present, what=f'{node.fqn} {kind} {expected}',
                                 process=self.process)

    def parameters(self, node: Expected) -> dict[str, Any]:
        client = self.side.node.create_client(GetParameters, f'{node.fqn}/get_parameters')
        names = sorted(node.parameters)
        response = self.side.call(client, GetParameters.Request(names=names),
                                  process=self.process)
        self.side.node.destroy_client(client)
        return {n: parameter_value_to_python(v) for n, v in zip(names, response.values)}

    # --- what arrives ------------------------------------------------------------------------

    def description(self, topic: str = '/robot_description') -> str:
        inbox = self.side.subscribe(String, topic, DESCRIPTION_QOS)
        self.side.spin_until(lambda: len(inbox), what=f'{topic}', process=self.process)
        return inbox.last.data

    def tf2_poses(self, root: str, frames: list[str], every: Callable[[], None] | None = None
                  ) -> dict[str, np.ndarray]:
        """``lookup_transform(root, frame)`` through a tf2_ros Buffer, for every frame
        (``every``, e.g. publishing a joint state, runs every second while waiting)."""
        buffer = Buffer()
        listener = TransformListener(buffer, self.side.node)
        latest = rclpy.time.Time()
        self.side.spin_until(
            lambda: all(buffer.can_transform(root, f, latest) for f in frames),
            what=f'tf2 resolving {len(frames)} frames from {root!r}', process=self.process,
            every=every)
        poses = {f: transform_matrix(buffer.lookup_transform(root, f, latest).transform)
                 for f in frames}
        listener.unregister()
        return poses

    def rviz_config(self) -> tuple[Path, str]:
        """(the rviz2 configuration the launch wrote, the file it was rendered from), from
        the launch's line ``rviz2 configuration: PATH (from SOURCE, ...)``."""
        pattern = re.compile(r'rviz2 configuration: (\S+) \(from (\S+),')
        self.side.spin_until(lambda: pattern.search(self.process.log()),
                             what='the rviz2 configuration line', process=self.process)
        written, source = pattern.search(self.process.log()).groups()
        return Path(written), source

    def interrupt(self) -> str:
        """Ctrl-C: ros2 launch exits 0 and every node finished cleanly."""
        code = self.process.interrupt(timeout=30)
        log = self.process.log()
        assert code == 0, f'ros2 launch exited with {code} after SIGINT; {self.process.describe()}'
        assert 'process has died' not in log, self.process.describe()
        return log


def links_of(urdf: str) -> list[str]:
    return [link.get('name') for link in ET.fromstring(urdf).findall('link')]


def check_tf(run: LaunchRun, path: Path, topic: str = '/robot_description',
             frame_prefix: str = '', joint_states: str | None = None,
             world: str | None = None) -> None:
    """Every link of the received URDF through tf2 = library FK = pinocchio (initial config).

    Where no launched node publishes joint states (``publish_joint_states:=false``, or
    motion_player before a play), the test publishes the initial configuration on
    ``joint_states``, as joint_state_publisher would: moving joints reach TF only from joint
    states (robot_state_publisher's rule)."""
    urdf = run.description(topic)
    description = Description.load(path, world=world)
    tree = description.urdf_tree
    configuration = dict(zip(tree.dof_names, tree.positions_vector()))
    expected = tree.forward(configuration)
    links = links_of(urdf)
    assert set(links) == set(expected), 'the URDF links are the frames of the library tree'
    root = tree.root or links[0]
    every = None
    if joint_states is not None:
        publisher = run.side.node.create_publisher(JointState, joint_states, 10)
        state = JointState(name=list(configuration),
                           position=[float(v) for v in configuration.values()])
        every = lambda: publisher.publish(state)  # noqa: E731
    received = run.tf2_poses(frame_prefix + root, [frame_prefix + link for link in links],
                             every=every)
    oracle = pinocchio_forward(urdf, urdf_joint_values(urdf.encode(), configuration), links)
    for link in links:
        got = received[frame_prefix + link]
        assert np.max(np.abs(got - expected[link])) <= TF_TOL, f'{path.name}: {link} (library)'
        relative = np.linalg.inv(oracle[root]) @ oracle[link]
        assert np.max(np.abs(got - relative)) <= PIN_TOL, f'{path.name}: {link} (pinocchio)'


def rviz_topics(config: Path) -> list[tuple[str, str]]:
    """(display name, topic) of every display of an rviz2 configuration that reads a topic."""
    found = []

    def walk(displays: list[dict] | None) -> None:
        for display in displays or []:
            if display.get('Class') == 'rviz_common/Group':
                walk(display.get('Displays'))
                continue
            for key in ('Topic', 'Description Topic'):
                value = display.get(key)
                if isinstance(value, dict) and value.get('Value'):
                    found.append((display.get('Name'), value['Value']))

    walk(yaml.safe_load(config.read_text(encoding='utf-8'))['Visualization Manager']['Displays'])
    return found


def check_rviz_config(run: LaunchRun, config: str, tf_prefix: str | None = None,
                      fixed_frame: str | None = None) -> None:
    """rviz2 cannot run here: every topic of the configuration the launch wrote for rviz2
    (rendered from the shipped ``config``) must be published by a node the same launch file
    started; its RobotModel displays' TF prefix and its fixed frame, when given, must be these."""
    written, source = run.rviz_config()
    assert Path(source).name == config, f'rendered from {source}, not {config}'
    topics = rviz_topics(written)
    assert topics, f'{written}: no display reads a topic'
    for display, topic in topics:
        run.side.spin_until(lambda topic=topic: run.side.node.count_publishers(topic) >= 1,
                            what=f'{written}: a publisher of {topic} (display {display!r})',
                            process=run.process)
    loaded = yaml.safe_load(written.read_text(encoding='utf-8'))
    manager = loaded['Visualization Manager']
    if tf_prefix is not None:
        models = [d for d in manager['Displays']
                  if d['Class'] == 'rviz_default_plugins/RobotModel']
        assert models and all(d.get('TF Prefix', '') == tf_prefix for d in models), models
    if fixed_frame is not None:
        assert manager['Global Options']['Fixed Frame'] == fixed_frame


def check_nodes(run: LaunchRun, nodes: list[Expected]) -> None:
    run.wait_for_nodes(nodes)
    for node in nodes:
        run.wait_for_endpoints(node)
        if node.parameters:
            assert run.parameters(node) == node.parameters, node.fqn


def description_publisher(namespace: str = '/', **parameters: Any) -> Expected:
    ns = namespace.rstrip('/')
    return Expected(
        'description_publisher', namespace, parameters,
        publishes={f'{ns}/robot_description': STRING, '/tf': TF, '/tf_static': TF},
        subscribes={f'{ns}/joint_states': JOINT_STATE},
        services={f'{ns}/description_publisher/reload': 'robot_formats_interfaces/srv/Reload'})


# --- display.launch.py, world.launch.py: a file of every format --------------------------------

DISPLAYED = [
    pytest.param('display.launch.py', ARM, id='urdf-defaults'),
    pytest.param('display.launch.py', SHARE / 'examples' / 'hrdf' / 'hebi_arm.hrdf', id='hrdf'),
    pytest.param('display.launch.py',
                 shared('corpus', 'skel', 'dart_tianyang9310_fork', 'data', 'skel',
                        'fullbody1.skel'), id='skel-multi-dof'),
    pytest.param('world.launch.py', SHARE / 'examples' / 'sdf' / 'workcell.sdf',
                 id='sdf-world-defaults'),
    pytest.param('world.launch.py',
                 ROOT / 'test' / 'formats' / 'sdformat' / 'fixtures' / 'node'
                 / 'composed_world.sdf',
                 id='sdf-nested-composed'),
]


@pytest.mark.parametrize('launch_file, path', DISPLAYED)
def test_description_launch_serves_every_frame_through_tf2(launcher, launch_file, path) -> None:
    run = LaunchRun(launcher, launch_file, {'description_file': str(path)},
                    f'{launch_file}-{path.stem}')
    check_nodes(run, [description_publisher(description_file=str(path), frame_prefix='',
                                            publish_joint_states=True)])
    check_tf(run, path)
    if path.name in ('arm_with_gripper.urdf', 'workcell.sdf'):  # the launch file's default
        check_rviz_config(run, launch_file.replace('.launch.py', '.rviz'), tf_prefix='',
                          fixed_frame=FIXED[launch_file])
    run.interrupt()


#: The launch files' default fixed frame.
FIXED = {'display.launch.py': 'base_link', 'world.launch.py': 'world'}


@pytest.mark.parametrize('launch_file', ['display.launch.py', 'world.launch.py'])
def test_description_launch_arguments_namespace_and_prefix(launcher, launch_file) -> None:
    run = LaunchRun(launcher, launch_file,
                    {'description_file': str(ARM), 'namespace': 'left',
                     'frame_prefix': 'left/', 'publish_joint_states': 'false'},
                    f'{launch_file}-namespaced')
    check_nodes(run, [description_publisher('/left', description_file=str(ARM),
                                            frame_prefix='left/', publish_joint_states=False)])
    check_tf(run, ARM, topic='/left/robot_description', frame_prefix='left/',
             joint_states='/left/joint_states')
    # rviz2's RobotModel finds <TF Prefix>/<link>; the fixed frame carries the prefix too
    check_rviz_config(run, launch_file.replace('.launch.py', '.rviz'), tf_prefix='left',
                      fixed_frame=f'left/{FIXED[launch_file]}')
    config, _ = run.rviz_config()
    run.interrupt()
    assert not config.exists(), 'the rendered rviz2 configuration outlived the launch'


def test_world_launch_chooses_a_world_of_several(launcher) -> None:
    """``world:=NAME`` reaches description_publisher's ``world`` parameter: the second world
    of the document is served (the first is what Gazebo, and the default, would load)."""
    path = ROOT / 'test' / 'fixtures' / 'real_world' / 'sdf_several_worlds.sdf'
    run = LaunchRun(launcher, 'world.launch.py',
                    {'description_file': str(path), 'world': 'arm_cell'}, 'world-chosen')
    check_nodes(run, [description_publisher(description_file=str(path), world='arm_cell')])
    assert 'arm::upper' in links_of(run.description('/robot_description'))
    check_tf(run, path, world='arm_cell')
    run.interrupt()


# --- problem.launch.py -------------------------------------------------------------------------

PROBLEM_SERVICES = {
    'get_problem': 'GetProblem', 'list_objects': 'ListObjects', 'get_object': 'GetObject',
    'get_grasps': 'GetGrasps', 'get_placements': 'GetPlacements',
    'get_action_joints': 'GetActionJoints', 'attach': 'AttachObject', 'detach': 'DetachObject',
    'reset': 'ResetProblem'}


def problem_server(namespace: str = '/', **parameters: Any) -> Expected:
    base = f'{namespace.rstrip("/")}/problem_server'
    return Expected(
        'problem_server', namespace, parameters,
        publishes={'/tf': TF, '/tf_static': TF,
                   f'{base}/markers': 'visualization_msgs/msg/MarkerArray'},
        services={f'{base}/{name}': f'robot_formats_interfaces/srv/{kind}'
                  for name, kind in PROBLEM_SERVICES.items()})


@pytest.mark.parametrize('arguments, namespace', [
    ({}, '/'),
    ({'problem_file': str(SHARE / 'examples' / 'tmp' / 'hebi_sorting.xml'),
      'namespace': 'cell2', 'strict': 'true', 'publish_frequency': '5.0'}, '/cell2'),
], ids=['defaults', 'hrdf-robot-namespace-strict-rate'])
def test_problem_launch(launcher, arguments, namespace) -> None:
    problem = Path(arguments.get('problem_file',
                                 SHARE / 'examples' / 'tmp' / 'discs_and_pegs.xml'))
    run = LaunchRun(launcher, 'problem.launch.py', arguments, f'problem-{namespace.strip("/")}')
    expected = problem_server(namespace, problem_file=str(problem), mapping_file='',
                              strict=arguments.get('strict') == 'true',
                              publish_frequency=float(arguments.get('publish_frequency', 10.0)))
    check_nodes(run, [expected])
    check_problem_tf(run, problem)
    if not arguments:
        check_rviz_config(run, 'problem.rviz')
    run.interrupt()


def check_problem_tf(run: LaunchRun, problem: Path) -> None:
    """Every object and robot frame through tf2 = ``robot-formats frames --json`` (the
    library's FK at the problem's configuration). A robot's frames are ``<robot>/<frame>`` on
    TF (``<robot>::<frame>`` in the library's scoped names); the problem's name for a robot's
    base frame is not a TF frame of its own."""
    out = subprocess.run([sys.executable, '-m', 'robot_formats.cli', 'frames', str(problem),
                          '--json'], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    robots = set(report['robots'])
    # a robot's base frame in the problem is where its description's root sits (the same pose)
    aliases = {robot['base_frame'] for robot in report['robots'].values()}
    expected = {}
    for name, frame in report['frames'].items():
        if name in aliases:
            continue
        scope, sep, rest = name.partition('::')
        tf_name = f'{scope}/{rest}' if sep and scope in robots else name
        expected[tf_name] = frame
    root = report['root']
    received = run.tf2_poses(root, sorted(set(expected) - {root}))
    for name, pose in received.items():
        want = np.eye(4)
        want[:3, :3] = quat_to_matrix(*expected[name]['quat'])
        want[:3, 3] = expected[name]['xyz']
        assert np.max(np.abs(pose - want)) <= 1e-9, f'{problem.name}: {name}'


# --- motion.launch.py, motion_sim.launch.py -----------------------------------------------------

def motion_player(namespace: str, output: dict[str, str], clients: dict[str, str],
                  **parameters: Any) -> Expected:
    ns = namespace.rstrip('/')
    return Expected(
        'motion_player', namespace, parameters, publishes=output,
        subscribes={f'{ns}/robot_description': STRING},
        services={f'{ns}/motion_player/list_motions':
                  'robot_formats_interfaces/srv/ListMotions'},
        action_servers={f'{ns}/motion_player/play':
                        'robot_formats_interfaces/action/PlayMotion'},
        action_clients=clients)


@pytest.mark.parametrize('arguments, namespace', [
    ({}, '/'),
    ({'namespace': 'preview', 'frame_period': '0.064', 'interpolation': 'cubic',
      'stream_rate': '50.0'}, '/preview'),
], ids=['defaults', 'namespace-cubic'])
def test_motion_launch(launcher, arguments, namespace) -> None:
    run = LaunchRun(launcher, 'motion.launch.py', arguments,
                    f'motion-{namespace.strip("/") or "root"}')
    ns = namespace.rstrip('/')
    check_nodes(run, [
        description_publisher(namespace, description_file=str(ARM), publish_joint_states=False),
        motion_player(namespace, {f'{ns}/joint_states': JOINT_STATE}, {},
                      motion_files=[str(WAVE)], servo_map='',
                      frame_period=float(arguments.get('frame_period', 0.032)),
                      interpolation=arguments.get('interpolation', 'linear'),
                      output_mode='joint_states',
                      stream_rate=float(arguments.get('stream_rate', 100.0))),
    ])
    check_tf(run, ARM, topic=f'{ns}/robot_description', joint_states=f'{ns}/joint_states')
    check_rviz_config(run, 'motion.rviz', tf_prefix='', fixed_frame='base_link')
    run.interrupt()


@pytest.mark.parametrize('arguments, namespace', [
    ({}, '/'),
    ({'namespace': 'sim2', 'sim_mode': 'kinematic', 'output_mode': 'trajectory'}, '/sim2'),
], ids=['defaults', 'namespace-kinematic-trajectory'])
def test_motion_sim_launch(launcher, arguments, namespace) -> None:
    run = LaunchRun(launcher, 'motion_sim.launch.py', arguments,
                    f'motion-sim-{namespace.strip("/") or "root"}')
    ns = namespace.rstrip('/')
    jtc = f'{ns}/joint_trajectory_controller'
    output_mode = arguments.get('output_mode', 'action')
    output = {f'{jtc}/joint_trajectory': TRAJECTORY} if output_mode == 'trajectory' else {}
    clients = {f'{jtc}/follow_joint_trajectory': FOLLOW} if output_mode == 'action' else {}
    check_nodes(run, [
        description_publisher(namespace, description_file=str(ARM), publish_joint_states=False),
        Expected('sim_controller', namespace,
                 {'mode': arguments.get('sim_mode', 'servo'),
                  'trajectory_controller': 'joint_trajectory_controller',
                  'forward_controller': 'forward_position_controller',
                  'allow_partial_joints_goal': True},
                 publishes={f'{ns}/joint_states': JOINT_STATE,
                            f'{jtc}/controller_state': CONTROLLER_STATE},
                 subscribes={f'{ns}/robot_description': STRING,
                             f'{jtc}/joint_trajectory': TRAJECTORY,
                             f'{ns}/forward_position_controller/commands': COMMANDS},
                 action_servers={f'{jtc}/follow_joint_trajectory': FOLLOW}),
        motion_player(namespace, output, clients, motion_files=[str(WAVE)], servo_map='',
                      output_mode=output_mode, controller='joint_trajectory_controller'),
        Expected('motion_recorder', namespace, {'source': 'joint_states', 'servo_map': ''},
                 subscribes={f'{ns}/joint_states': JOINT_STATE},
                 services={f'{ns}/motion_recorder/start': 'std_srvs/srv/Trigger',
                           f'{ns}/motion_recorder/stop':
                           'robot_formats_interfaces/srv/StopRecording'}),
    ])
    check_tf(run, ARM, topic=f'{ns}/robot_description')
    check_rviz_config(run, 'motion.rviz', tf_prefix='', fixed_frame='base_link')
    run.interrupt()


def test_every_launch_file_is_run_here() -> None:
    """A new launch file needs a run above (each test names its file)."""
    tested = {'display.launch.py', 'world.launch.py', 'problem.launch.py', 'motion.launch.py',
              'motion_sim.launch.py'}
    shipped = {p.name for p in (ROOT / 'launch').glob('*.launch.py')}
    assert shipped <= tested | {'pick_and_place.launch.py'}, sorted(shipped - tested)


def test_every_launch_argument_is_described() -> None:
    """``ros2 launch ... --show-args`` prints a description for every argument."""
    for path in sorted((ROOT / 'launch').glob('*.launch.py')):
        out = subprocess.run([sys.executable, ros2(), 'launch', 'robot_formats', path.name,
                              '--show-args'], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert 'No description given' not in out.stdout, f'{path.name}:\n{out.stdout}'
