"""description_publisher's ~/reload service and description_file parameter, over real DDS.

A reload parses the new file completely before anything changes: on success a new
robot_description and /tf_static are latched (a NEW late subscriber gets the new ones); on any
failure the answer says why (file, line) and the old model keeps being served.
Each test gets its own node (reloads change its state).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest
from rcl_interfaces.srv import GetParameters, SetParameters, SetParametersAtomically
from rclpy.parameter import Parameter
from robot_formats_interfaces.srv import Reload
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

import robot_formats

from .harness import (ARM, DESCRIPTION_QOS, TF_QOS, TF_STATIC_QOS, TIMEOUT, NodeProcess,
                      RosSide, assert_poses_equal, compose, edges_of, tf_with_stamp)

SECOND_URDF = """<?xml version="1.0"?>
<robot name="second">
  <link name="plate"/>
  <link name="column"/>
  <link name="boom"/>
  <link name="flange"/>
  <joint name="lift" type="prismatic">
    <parent link="plate"/><child link="column"/>
    <origin xyz="0.1 0.2 0.05" rpy="0 0 0.3"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="1" effort="1" velocity="1"/>
  </joint>
  <joint name="swing" type="continuous">
    <parent link="column"/><child link="boom"/>
    <origin xyz="0 0 0.5" rpy="0.2 0 0"/><axis xyz="1 0 0"/>
  </joint>
  <joint name="flange_mount" type="fixed">
    <parent link="boom"/><child link="flange"/>
    <origin xyz="0.4 0 0" rpy="0 1.5707963267948966 0"/>
  </joint>
</robot>
"""

MALFORMED_URDF = """<?xml version="1.0"?>
<robot name="broken">
  <link name="a">
  </lnk>
</robot>
"""  # the mismatched end tag is on line 4

CYCLE_URDF = """<?xml version="1.0"?>
<robot name="cycle">
  <link name="base"/>
  <link name="a"/>
  <link name="b"/>
  <link name="c"/>
  <joint name="j0" type="fixed"><parent link="base"/><child link="a"/></joint>
  <joint name="j1" type="continuous"><parent link="b"/><child link="c"/></joint>
  <joint name="j2" type="continuous"><parent link="c"/><child link="b"/></joint>
</robot>
"""  # b -> c -> b never reaches the root; the joints are on lines 8 and 9

_late_counter = iter(range(1, 1_000_000))


class Reloadable:
    def __init__(self, process: NodeProcess, ros: RosSide) -> None:
        self.process, self.ros = process, ros
        self.reload_client = ros.node.create_client(Reload, '/description_publisher/reload')
        self.set_client = ros.node.create_client(SetParameters,
                                                 '/description_publisher/set_parameters')
        self.get_client = ros.node.create_client(GetParameters,
                                                 '/description_publisher/get_parameters')
        assert self.reload_client.wait_for_service(timeout_sec=TIMEOUT), process.describe()
        self.joint_states = ros.node.create_publisher(JointState, 'joint_states', 10)
        self.tf = ros.subscribe(TFMessage, '/tf', TF_QOS)
        self._stamp = 0

    def reload(self, path: str) -> Reload.Response:
        request = Reload.Request()
        request.path = path
        response = self.ros.call(self.reload_client, request, process=self.process)
        assert self.process.alive(), self.process.describe()
        return response

    def set_description_file(self, path: str):
        request = SetParameters.Request()
        request.parameters = [Parameter('description_file', value=path).to_parameter_msg()]
        response = self.ros.call(self.set_client, request, process=self.process)
        (result,) = response.results
        return result

    def description_file(self) -> str:
        return self.string_parameter('description_file')

    def string_parameter(self, name: str) -> str:
        request = GetParameters.Request()
        request.names = [name]
        response = self.ros.call(self.get_client, request, process=self.process)
        return response.values[0].string_value

    def late_latched(self) -> tuple[str, TFMessage]:
        """(robot_description, /tf_static) as a brand-new node subscribing now receives them."""
        node = self.ros.new_node(f'late_joiner_{next(_late_counter)}')
        description = self.ros.subscribe(String, 'robot_description', DESCRIPTION_QOS, node)
        static = self.ros.subscribe(TFMessage, '/tf_static', TF_STATIC_QOS, node)
        self.ros.spin_until(lambda: len(description) and len(static),
                            what='latched robot_description and /tf_static', process=self.process)
        assert len(description) == 1, 'a late joiner must get only the latest description'
        return description.last.data, static.last

    def check_tf(self, path: Path, seed: int, static: TFMessage) -> None:
        """Joint states move the model of ``path`` exactly as the library says."""
        tree = robot_formats.KinematicTree(robot_formats.load(path).scene)
        rng = random.Random(seed)
        configuration = {name: rng.uniform(-1.0, 1.0) for name in tree.dof_names}
        self._stamp += 1
        stamp = (100 + self._stamp, 5)
        msg = JointState()
        msg.header.stamp.sec, msg.header.stamp.nanosec = stamp
        msg.name = list(configuration)
        msg.position = list(configuration.values())
        self.ros.spin_until(lambda: tf_with_stamp(self.tf, stamp),
                            what=f'/tf for {configuration}', process=self.process,
                            every=lambda: self.joint_states.publish(msg))
        poses = compose({**edges_of([static]), **edges_of(tf_with_stamp(self.tf, stamp))})
        assert_poses_equal(poses, tree.forward(configuration))


def assert_same_urdf(received: str, path: Path) -> None:
    """``received`` is the URDF file ``path`` as given (robot_state_publisher's contract)."""
    assert received == path.read_text(encoding='utf-8')


def static_children(static: TFMessage) -> set[str]:
    return {t.child_frame_id for t in static.transforms}


@pytest.fixture
def arm_node(launcher) -> Reloadable:
    process, ros = launcher.publisher('reload', description_file=str(ARM), publish_frequency=50.0)
    node = Reloadable(process, ros)
    process.wait_for_log('serving ')
    return node


def test_reload_valid_file(arm_node: Reloadable, tmp_path: Path) -> None:
    old_description, old_static = arm_node.late_latched()
    assert_same_urdf(old_description, ARM)
    standing = arm_node.ros.subscribe(String, 'robot_description', DESCRIPTION_QOS)
    arm_node.ros.spin_until(lambda: len(standing), what='robot_description',
                            process=arm_node.process)

    second = tmp_path / 'second.urdf'
    second.write_text(SECOND_URDF, encoding='utf-8')
    response = arm_node.reload(str(second))
    assert response.success, response.message
    assert response.format == 'urdf'
    assert str(second) in response.message

    # a subscriber that was already there gets the new description too ...
    arm_node.ros.spin_until(lambda: len(standing) >= 2, what='the new robot_description',
                            process=arm_node.process)
    assert_same_urdf(standing.last.data, second)
    # ... and so does a new late joiner, with the new /tf_static
    description, static = arm_node.late_latched()
    assert_same_urdf(description, second)
    assert static_children(static) == {'flange'}
    tree = robot_formats.KinematicTree(robot_formats.load(second).scene)
    poses = tree.forward()
    local = edges_of([static])['flange'][1]
    assert np.max(np.abs(local - np.linalg.inv(poses['boom']) @ poses['flange'])) <= 1e-9
    arm_node.check_tf(second, seed=1, static=static)
    assert arm_node.description_file() == str(second)
    assert arm_node.string_parameter('robot_description') == SECOND_URDF  # what is published


def _bad_files(tmp_path: Path) -> list[tuple[str, str, int | None]]:
    malformed = tmp_path / 'malformed.urdf'
    malformed.write_text(MALFORMED_URDF, encoding='utf-8')
    cycle = tmp_path / 'cycle.urdf'
    cycle.write_text(CYCLE_URDF, encoding='utf-8')
    missing = tmp_path / 'does_not_exist.urdf'
    folder = tmp_path / 'a_directory.urdf'
    folder.mkdir()
    return [(str(malformed), 'malformed', 4), (str(missing), 'no such file', None),
            (str(cycle), 'loop', 8), (str(folder), 'directory', None)]


def test_reload_failures_keep_the_old_model(arm_node: Reloadable, tmp_path: Path) -> None:
    _, static = arm_node.late_latched()
    standing = arm_node.ros.subscribe(String, 'robot_description', DESCRIPTION_QOS)
    arm_node.ros.spin_until(lambda: len(standing), what='robot_description',
                            process=arm_node.process)
    for path, words, line in _bad_files(tmp_path):
        response = arm_node.reload(path)
        assert not response.success, f'reloading {path} succeeded: {response.message}'
        assert path in response.message, response.message
        assert words in response.message.lower(), response.message
        if line is not None:
            assert f'{path}:{line}' in response.message or f'{path}:{line + 1}' in \
                response.message, f'expected {path}:{line} in {response.message!r}'
        # still the old model, for new late joiners and for /tf
        description, static_now = arm_node.late_latched()
        assert_same_urdf(description, ARM)
        assert static_children(static_now) == {'tool_frame'}
        arm_node.check_tf(ARM, seed=len(path), static=static_now)
    assert len(standing) == 1, 'a failed reload published a robot_description'
    assert arm_node.description_file() == str(ARM)
    assert arm_node.string_parameter('robot_description') == ARM.read_text(encoding='utf-8')
    assert arm_node.process.alive(), arm_node.process.describe()


def test_reload_empty_path_rereads_the_current_file(launcher, tmp_path: Path) -> None:
    path = tmp_path / 'robot.urdf'
    shutil.copyfile(ARM, path)
    process, ros = launcher.publisher('reload_same', description_file=str(path),
                                      publish_frequency=50.0)
    node = Reloadable(process, ros)
    process.wait_for_log('serving ')
    description, static = node.late_latched()
    assert_same_urdf(description, ARM)
    # edit the file in place: the tool frame moves from z = 0.09 to z = 0.125
    text = ARM.read_text(encoding='utf-8')
    edited = text.replace('<origin xyz="0 0 0.09" rpy="3.14159265358979 0 0"/>',
                          '<origin xyz="0 0 0.125" rpy="3.14159265358979 0 0"/>')
    assert edited != text
    path.write_text(edited, encoding='utf-8')
    response = node.reload('')
    assert response.success, response.message
    assert str(path) in response.message
    description, static = node.late_latched()
    assert_same_urdf(description, path)
    (tool,) = static.transforms
    assert tool.child_frame_id == 'tool_frame'
    assert abs(tool.transform.translation.z - 0.125) < 1e-12
    node.check_tf(path, seed=3, static=static)


def test_set_parameter_description_file(arm_node: Reloadable, tmp_path: Path) -> None:
    malformed = tmp_path / 'malformed.urdf'
    malformed.write_text(MALFORMED_URDF, encoding='utf-8')
    result = arm_node.set_description_file(str(malformed))
    assert not result.successful
    assert f'{malformed}:4' in result.reason, result.reason
    assert arm_node.description_file() == str(ARM)
    description, _ = arm_node.late_latched()
    assert_same_urdf(description, ARM)

    result = arm_node.set_description_file(str(tmp_path / 'missing.urdf'))
    assert not result.successful and 'missing.urdf' in result.reason, result.reason

    # a good file through the parameter works like ~/reload
    second = tmp_path / 'second.urdf'
    second.write_text(SECOND_URDF, encoding='utf-8')
    result = arm_node.set_description_file(str(second))
    assert result.successful, result.reason
    assert arm_node.description_file() == str(second)
    description, static = arm_node.late_latched()
    assert_same_urdf(description, second)
    arm_node.check_tf(second, seed=4, static=static)

    # parameters read at startup cannot change while running
    for name, value in (('publish_joint_states', True), ('joint_states_qos', 'reliable'),
                        ('ros2_control', 'mock')):
        request = SetParameters.Request()
        request.parameters = [Parameter(name, value=value).to_parameter_msg()]
        response = arm_node.ros.call(arm_node.set_client, request, process=arm_node.process)
        assert not response.results[0].successful, name
        assert 'read-only' in response.results[0].reason, response.results[0].reason
    # nothing of a refused batch is applied, even the parts that would load
    request = SetParameters.Request()
    third = tmp_path / 'third.urdf'
    shutil.copyfile(ARM, third)
    atomic = arm_node.ros.node.create_client(SetParametersAtomically,
                                             '/description_publisher/set_parameters_atomically')
    request = SetParametersAtomically.Request()
    request.parameters = [Parameter('description_file', value=str(third)).to_parameter_msg(),
                          Parameter('publish_joint_states', value=True).to_parameter_msg()]
    result = arm_node.ros.call(atomic, request, process=arm_node.process).result
    assert not result.successful
    assert arm_node.description_file() == str(second)
    description, _ = arm_node.late_latched()
    assert_same_urdf(description, second)


RIGID_URDF = """<?xml version="1.0"?>
<robot name="rigid">
  <link name="block"/>
  <link name="marker"/>
  <joint name="marker_mount" type="fixed">
    <parent link="block"/><child link="marker"/><origin xyz="0 0 0.2"/>
  </joint>
</robot>
"""


def test_reload_to_a_model_without_moving_joints_while_joint_states_flow(launcher,
                                                                          tmp_path: Path) -> None:
    """A rate-capped /tf update of the OLD model may be pending when the reload lands; it must
    not be published with the new model (here: one without moving joints at all)."""
    process, ros = launcher.publisher('reload_rigid', description_file=str(ARM),
                                      publish_joint_states=True, publish_frequency=4.0)
    node = Reloadable(process, ros)
    states = ros.subscribe(JointState, 'joint_states', 10)
    ros.spin_until(lambda: len(node.tf) >= 2 and len(states) >= 2,
                   what='the node publishing joint_states and /tf', process=process)
    # a stream stamped 10 ms apart (the cap is 250 ms): a held update is pending most of the
    # time, also when the reload lands
    stream = JointState(name=['elbow'], position=[0.0])
    stamps = iter(range(10**9, 2 * 10**9, 10**7))

    def feed() -> None:
        stream.header.stamp.sec, stream.header.stamp.nanosec = divmod(next(stamps), 10**9)
        stream.position = [stream.header.stamp.nanosec * 1e-9]
        node.joint_states.publish(stream)

    first = len(node.tf)
    ros.spin_until(lambda: len(node.tf) >= first + 2, what='/tf from the stream',
                   process=process, every=feed, every_period=0.01)
    feed()
    rigid = tmp_path / 'rigid.urdf'
    rigid.write_text(RIGID_URDF, encoding='utf-8')
    response = node.reload(str(rigid))
    assert response.success, response.message
    feed()
    # the node's timer keeps running with the new model (its joint states now name no DoF) ...
    count = len([m for m in states.messages if not m.name])
    ros.spin_until(lambda: len([m for m in states.messages if not m.name]) >= count + 3,
                   what='joint_states of the new (rigid) model', process=process)
    assert process.alive(), process.describe()
    assert 'Traceback' not in process.log(), process.log()
    description, static = node.late_latched()
    assert_same_urdf(description, rigid)
    assert static_children(static) == {'marker'}


def test_initial_positions_parameter_with_reload(launcher, tmp_path: Path) -> None:
    """initial_positions is validated when set, and a batch that changes it together with
    description_file loads the new file with the NEW initial positions."""
    process, ros = launcher.publisher('initial', description_file=str(ARM),
                                      initial_positions=['elbow=0.5'], publish_joint_states=True,
                                      publish_frequency=20.0)
    node = Reloadable(process, ros)
    states = ros.subscribe(JointState, 'joint_states', 10)
    ros.spin_until(lambda: any(dict(zip(m.name, m.position)).get('elbow') == 0.5
                               for m in states.messages),
                   what='joint_states with elbow=0.5', process=process)

    request = SetParameters.Request()
    request.parameters = [Parameter('initial_positions', value=['elbow']).to_parameter_msg()]
    (result,) = ros.call(node.set_client, request, process=process).results
    assert not result.successful, 'a malformed initial_positions value was accepted'
    assert 'initial_positions' in result.reason and 'elbow' in result.reason, result.reason

    second = tmp_path / 'second.urdf'
    second.write_text(SECOND_URDF, encoding='utf-8')
    atomic = ros.node.create_client(SetParametersAtomically,
                                    '/description_publisher/set_parameters_atomically')
    request = SetParametersAtomically.Request()
    request.parameters = [Parameter('initial_positions', value=['lift=0.25']).to_parameter_msg(),
                          Parameter('description_file', value=str(second)).to_parameter_msg()]
    result = ros.call(atomic, request, process=process).result
    assert result.successful, result.reason
    description, _ = node.late_latched()
    assert_same_urdf(description, second)
    ros.spin_until(lambda: any(dict(zip(m.name, m.position)) == {'lift': 0.25, 'swing': 0.0}
                               for m in states.messages),
                   what='joint_states of the new model at lift=0.25', process=process)
    # and the working reload still works with them
    response = node.reload('')
    assert response.success, response.message
