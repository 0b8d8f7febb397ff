"""description_publisher keeps robot_state_publisher's contract, checked as a ROS user checks it:
the node started by ``ros2 launch`` / ``ros2 run``, read with the ``ros2`` CLI, a tf2_ros Buffer
and plain subscriptions.

robot_state_publisher's behaviour is its source's (../shared/reference/ros-anchors/
robot_state_publisher/src/robot_state_publisher.cpp; docs/nodes.md cites the lines):

* ``/robot_description`` and the ``robot_description`` parameter are the URDF as given, byte for
  byte, whatever other tools' elements it holds; another format is served as the URDF
  robot_formats writes, and the ``ros2_control`` option adds the block controller_manager reads;
* ``robot_description`` always holds what is published; an empty or invalid value is refused
  with the reason and the old model stays; ``description_file`` follows (emptied by a
  ``robot_description`` change, the file's name after a reload);
* ``publish_frequency`` and ``frame_prefix`` change at run time; ``ignore_timestamp`` exists and
  is honoured; the rate cap follows ``header.stamp``, not the wall clock;
* the ``joint_states`` subscription's QoS takes rclpy's ``qos_overrides`` parameters.
"""

from __future__ import annotations

import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import rclpy.time
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from robot_formats_interfaces.srv import Reload
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from tf2_ros import Buffer, TransformListener

from robot_formats.runtime.description import Description

from .harness import (ARM, DESCRIPTION_QOS, ROOT, TF_QOS, TF_STATIC_QOS, TIMEOUT, Launcher,
                      NodeProcess, any_tf_with_stamp, subprocess_env, tf_with_stamp)
from .test_launch_files import LaunchRun, check_tf, ros2

EXTENDED = ROOT / 'test' / 'fixtures' / 'urdf' / 'extensions.urdf'
HRDF = ROOT / 'examples' / 'hrdf' / 'hebi_arm.hrdf'
SECOND_URDF = """<?xml version="1.0"?>
<robot name="second">
  <link name="plate"/>
  <link name="column"/>
  <joint name="lift" type="prismatic">
    <parent link="plate"/><child link="column"/>
    <axis xyz="0 0 1"/><limit lower="0" upper="1" effort="1" velocity="1"/>
  </joint>
  <gazebo reference="column"><material>Gazebo/Blue</material></gazebo>
</robot>
"""
RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
SECOND = 1_000_000_000


class Cli:
    """The ``ros2`` CLI pointed at a node process's domain."""

    def __init__(self, process: NodeProcess, env: dict[str, str]) -> None:
        self.process, self.env = process, env

    def ros2(self, *command: str, until=lambda output: True) -> str:
        """``ros2 COMMAND --no-daemon``'s output, once it succeeds and ``until(output)`` (the
        CLI's own node discovers the node after a while)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            run = subprocess.run([sys.executable, ros2(), *command, '--no-daemon'], cwd=ROOT,
                                 env=self.env, capture_output=True, timeout=120)
            output = (run.stdout + run.stderr).decode('utf-8')
            if run.returncode == 0 and 'Node not found' not in output and until(output):
                return output
            assert time.monotonic() < deadline, f'ros2 {" ".join(command)}: exit ' \
                f'{run.returncode}: {output}\n{self.process.describe()}'
            assert self.process.alive(), self.process.describe()

    def param_get(self, name: str) -> str:
        """``ros2 param get --hide-type``: the value as the CLI prints it (minus its newline)."""
        text = self.ros2('param', 'get', '/description_publisher', name, '--hide-type')
        assert text.endswith('\n'), text
        return text[:-1]

    def param_set(self, name: str, value: str) -> str:
        """``ros2 param set``: what it prints (success on stdout, refusal on stderr)."""
        return self.ros2('param', 'set', '/description_publisher', name, value)


class Served(Cli):
    """``ros2 run robot_formats description_publisher`` with parameters, a test side on its
    domain, and the ``ros2`` CLI pointed at it."""

    def __init__(self, launcher: Launcher, name: str, *ros_args: str, wait: bool = True,
                 **parameters: Any) -> None:
        args = [ros2(), 'run', 'robot_formats', 'description_publisher', '--ros-args',
                *ros_args]
        for key, value in parameters.items():
            args += ['-p', f'{key}:={value}']
        process, self.side = launcher.command(args, name)
        super().__init__(process, subprocess_env(process.domain_id, launcher.log_dir))
        self.tf = self.side.subscribe(TFMessage, '/tf', TF_QOS)
        self.joint_states = self.side.node.create_publisher(JointState, 'joint_states',
                                                            RELIABLE)
        if wait:
            self.process.wait_for_log('serving ')

    # --- rclpy ---------------------------------------------------------------------------------
    def latched_description(self) -> str:
        """robot_description as a late joiner receives it (transient local)."""
        node = self.side.new_node(f'late_{time.monotonic_ns()}')
        inbox = self.side.subscribe(String, 'robot_description', DESCRIPTION_QOS, node)
        self.side.spin_until(lambda: len(inbox), what='robot_description', process=self.process)
        assert len(inbox) == 1
        return inbox.last.data

    def set_parameter(self, name: str, value: Any):
        """One parameter through the parameter service (as ``ros2 param set`` sends it, but
        with a value the CLI's YAML parsing would not leave a string)."""
        client = self.side.node.create_client(SetParameters,
                                              '/description_publisher/set_parameters')
        request = SetParameters.Request(parameters=[Parameter(name, value=value)
                                                    .to_parameter_msg()])
        (result,) = self.side.call(client, request, process=self.process).results
        self.side.node.destroy_client(client)
        return result

    def send(self, stamp: int, names: list[str], positions: list[float]) -> tuple[int, int]:
        """One joint state stamped ``stamp`` (ns), once the node subscribes; its stamp as
        (sec, nanosec)."""
        self.side.spin_until(lambda: self.joint_states.get_subscription_count() >= 1,
                             what='the node subscribing to joint_states', process=self.process)
        msg = JointState(name=names, position=[float(p) for p in positions])
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp, SECOND)
        self.joint_states.publish(msg)
        return divmod(stamp, SECOND)

    def wait_tf(self, stamp: tuple[int, int]) -> None:
        self.side.spin_until(lambda: tf_with_stamp(self.tf, stamp), what=f'/tf stamped {stamp}',
                             process=self.process)


def future(seconds: float = 0.0) -> int:
    """A stamp a day ahead of now (plus ``seconds``): the node's clock never reaches the
    moment a held update would be due, so held means not published in the test."""
    return time.time_ns() + 86_400 * SECOND + int(seconds * SECOND)


def control_blocks(urdf: str) -> list[ET.Element]:
    return ET.fromstring(urdf.encode('utf-8')).findall('ros2_control')


def commandable_joints(urdf: str) -> list[str]:
    """The URDF's revolute, continuous and prismatic joints without <mimic>, in order."""
    return [j.get('name') for j in ET.fromstring(urdf.encode('utf-8')).findall('joint')
            if j.get('type') in ('revolute', 'continuous', 'prismatic')
            and j.find('mimic') is None]


def commanded(block: ET.Element) -> list[str]:
    return [j.get('name') for j in block.findall('joint') if j.find('command_interface')
            is not None]


# --- robot_description: the document as given -------------------------------------------------

def test_a_urdf_with_other_tools_elements_is_served_as_given(launcher) -> None:
    """display.launch.py with a URDF holding ros2_control, gazebo, transmission,
    safety_controller, calibration and an unknown element: the topic and the parameter are the
    file, byte for byte; TF and warnings are what the library reads from it."""
    text = EXTENDED.read_bytes().decode('utf-8')
    run = LaunchRun(launcher, 'display.launch.py', {'description_file': str(EXTENDED)},
                    'extended')
    assert run.description() == text
    cli = Cli(run.process, subprocess_env(run.process.domain_id, launcher.log_dir))
    assert cli.param_get('robot_description') == text
    assert cli.param_get('description_file') == str(EXTENDED)
    check_tf(run, EXTENDED)
    log = run.process.wait_for_log('serving ')
    assert 'ignored unknown element <vendor_calibration_data>' in log, log
    run.interrupt()


def test_a_xacro_file_is_served_as_xacro_prints_it(launcher) -> None:
    xacro_file = ROOT / 'test' / 'fixtures' / 'xacro' / 'two_link.urdf.xacro'
    printed = subprocess.run([str(Path(sys.executable).parent / 'xacro'), str(xacro_file),
                              'length:=0.3'], capture_output=True, timeout=120, check=True)
    served = Served(launcher, 'xacro', description_file=str(xacro_file),
                    xacro_args='["length:=0.3"]')
    expected = printed.stdout.decode('utf-8')
    assert served.latched_description() == expected
    assert served.param_get('robot_description') == expected


def test_another_format_with_ros2_control_names_its_commanded_joints(launcher) -> None:
    """An HRDF robot with ``ros2_control:=mock``: the served URDF is robot_formats' URDF of it
    with one <ros2_control> block commanding each of its commandable joints."""
    served = Served(launcher, 'hrdf_mock', description_file=str(HRDF), ros2_control='mock')
    urdf = served.latched_description()
    written = Description.load(HRDF).urdf
    (block,) = control_blocks(urdf)
    assert block.find('hardware/plugin').text == 'mock_components/GenericSystem'
    assert commanded(block) == commandable_joints(urdf) and commanded(block)
    assert urdf.replace(urdf[urdf.index('  <ros2_control'):urdf.rindex('</robot>')], '') == \
        written, 'besides the block, the written URDF'
    assert served.param_get('robot_description') == urdf


def test_a_urdf_as_given_gets_the_block_and_one_with_its_own_is_refused(launcher) -> None:
    text = ARM.read_text(encoding='utf-8')
    served = Served(launcher, 'urdf_mock', description_file=str(ARM), ros2_control='mock')
    urdf = served.latched_description()
    end = text.rindex('</robot>')
    assert urdf.startswith(text[:end]) and urdf.endswith(text[end:]), \
        'the document as given, the block added before </robot>'
    (block,) = control_blocks(urdf)
    assert commanded(block) == commandable_joints(text)
    # a document with its own block would get a second one: refused, nothing served
    refused = Served(launcher, 'extended_mock', wait=False, description_file=str(EXTENDED),
                     ros2_control='mock')
    log = refused.process.wait_for_log('still serving nothing')
    assert 'the URDF already has a <ros2_control> block' in log and f'{EXTENDED}:39' in log, log
    assert refused.param_get('robot_description') == ''
    inbox = refused.side.subscribe(String, 'robot_description', DESCRIPTION_QOS)
    refused.side.spin_until(lambda: inbox.subscription.get_publisher_count() >= 1,
                            what="the node's robot_description publisher",
                            process=refused.process)
    refused.side.spin_for(1.0)  # (bounded absence check: nothing latched)
    assert len(inbox) == 0 and refused.process.alive()


# --- parameters as robot_state_publisher's ------------------------------------------------------

def test_robot_description_parameter_holds_what_is_published(launcher, tmp_path) -> None:
    text = ARM.read_text(encoding='utf-8')
    served = Served(launcher, 'parameters', description_file=str(ARM))
    assert served.param_get('robot_description') == text
    # an empty value is refused with the reason, the old model stays
    answer = served.param_set('robot_description', "''")
    assert 'Setting parameter failed' in answer and 'empty robot_description' in answer, answer
    assert served.param_get('robot_description') == text
    assert served.latched_description() == text
    # so is a document that does not load, with its line
    result = served.set_parameter('robot_description', '<robot name="x">\n<link name="a">\n'
                                                       '</robot>\n')
    assert not result.successful and '<robot_description>:3' in result.reason, result.reason
    assert served.param_get('robot_description') == text
    # a good one is published; description_file is emptied (the model is no file's now)
    result = served.set_parameter('robot_description', SECOND_URDF)
    assert result.successful, result.reason
    assert served.latched_description() == SECOND_URDF
    assert served.param_get('robot_description') == SECOND_URDF
    assert served.param_get('description_file') == ''
    static = served.side.subscribe(TFMessage, '/tf_static', TF_STATIC_QOS)
    served.side.spin_until(lambda: static.messages and not static.last.transforms,
                           what='the new (empty) /tf_static', process=served.process)
    # ~/reload of a file: description_file names it, robot_description holds it
    client = served.side.node.create_client(Reload, '/description_publisher/reload')
    answer = served.side.call(client, Reload.Request(path=''), process=served.process)
    assert not answer.success and 'description_file is empty' in answer.message
    answer = served.side.call(client, Reload.Request(path=str(ARM)), process=served.process)
    assert answer.success, answer.message
    assert served.param_get('description_file') == str(ARM)
    assert served.param_get('robot_description') == text
    assert served.latched_description() == text


def test_frame_prefix_and_publish_frequency_change_at_run_time(launcher) -> None:
    served = Served(launcher, 'runtime', description_file=str(ARM),
                    joint_states_qos='reliable')
    base = future()
    buffer = Buffer()
    listener = TransformListener(buffer, served.side.node)
    latest = rclpy.time.Time()
    served.side.spin_until(lambda: buffer.can_transform('wrist_link', 'tool_frame', latest),
                           what="the arm's fixed joint on TF", process=served.process)
    assert 'Set parameter successful' in served.param_set('frame_prefix', 'moved/')
    served.side.spin_until(
        lambda: buffer.can_transform('moved/wrist_link', 'moved/tool_frame', latest),
        what='the arm under the new prefix (a new /tf_static)', process=served.process)
    assert served.param_get('frame_prefix') == 'moved/'
    stamp = served.send(base, ['elbow'], [0.5])
    served.wait_tf(stamp)
    assert {t.child_frame_id for t in tf_with_stamp(served.tf, stamp)[0].transforms} == \
        {'moved/forearm_link'}
    listener.unregister()

    # publish_frequency 20 Hz (50 ms): a state 0.5 s of stamps later is published at once
    served.wait_tf(served.send(base + 10 * SECOND, ['elbow'], [0.1]))
    served.wait_tf(served.send(base + 10 * SECOND + SECOND // 2, ['elbow'], [0.2]))
    assert 'Set parameter successful' in served.param_set('publish_frequency', '1.0')
    assert served.param_get('publish_frequency') == '1.0'
    # 1 Hz: 0.5 s of stamps is too soon (held, and never due: the stamps are a day ahead)
    served.wait_tf(served.send(base + 20 * SECOND, ['elbow'], [0.3]))
    too_soon = served.send(base + 20 * SECOND + SECOND // 2, ['elbow'], [0.4])
    served.wait_tf(served.send(base + 21 * SECOND + SECOND // 5, ['elbow'], [0.5]))
    assert not any_tf_with_stamp(served.tf, too_soon)
    answer = served.param_set('publish_frequency', '-1.0')
    assert 'Setting parameter failed' in answer and 'out of range' in answer, answer


def test_ignore_timestamp_exists_and_is_honoured(launcher) -> None:
    served = Served(launcher, 'timestamps', description_file=str(ARM),
                    joint_states_qos='reliable')
    assert served.param_get('ignore_timestamp') == 'False'
    base = future()
    served.wait_tf(served.send(base, ['elbow'], [0.1]))
    older = [served.send(base - k * SECOND, ['elbow'], [0.1 * k]) for k in (1, 2)]
    served.wait_tf(served.send(base + 5 * SECOND, ['elbow'], [0.9]))
    assert not any(any_tf_with_stamp(served.tf, s) for s in older), \
        'with ignore_timestamp false, states older than the published one are dropped'
    assert 'Set parameter successful' in served.param_set('ignore_timestamp', 'true')
    older = [served.send(base - k * SECOND, ['elbow'], [0.1 * k]) for k in (3, 4)]
    for stamp in older:
        served.wait_tf(stamp)  # every message, whatever its stamp


def test_the_rate_cap_follows_the_stamps_not_the_wall_clock(launcher) -> None:
    """At 1 Hz, a burst sent at once whose stamps are 2 s apart is published whole (a
    wall-clock cap would publish its first and last message); one whose stamps are 0.1 s
    apart is capped."""
    served = Served(launcher, 'stamped_cap', description_file=str(ARM), publish_frequency=1.0,
                    joint_states_qos='reliable')
    base = future()
    served.wait_tf(served.send(base, ['wrist_roll'], [0.0]))
    burst = [served.send(base + 2 * k * SECOND, ['wrist_roll'], [0.1 * k]) for k in range(1, 8)]
    for stamp in burst:
        served.wait_tf(stamp)
    close = [served.send(base + 20 * SECOND + k * SECOND // 10, ['wrist_roll'], [0.1 * k])
             for k in range(6)]
    served.wait_tf(close[0])
    served.wait_tf(served.send(base + 30 * SECOND, ['wrist_roll'], [1.0]))
    assert not any(any_tf_with_stamp(served.tf, s) for s in close[1:])


def test_qos_overrides_set_the_joint_states_subscription(launcher) -> None:
    """rclpy's qos_overrides parameters override the joint_states_qos profile."""
    cases = (('reliable', {}), ('best_effort', {'joint_states_qos': 'reliable'}))
    for reliability, parameters in cases:
        served = Served(launcher, f'qos_{reliability}', '-p',
                        f'qos_overrides./joint_states.subscription.reliability:={reliability}',
                        description_file=str(ARM), **parameters)

        def subscription(output: str) -> str | None:
            """The node's joint_states subscription in ``ros2 topic info -v``'s output."""
            return next((entry for entry in output.split('\n\n')
                         if 'Node name: description_publisher' in entry
                         and 'Endpoint type: SUBSCRIPTION' in entry), None)

        info = served.ros2('topic', 'info', '-v', '/joint_states', until=subscription)
        assert f'Reliability: {reliability.upper()}' in subscription(info), info
        assert served.param_get(
            'qos_overrides./joint_states.subscription.reliability') == reliability


def test_a_bad_qos_override_stops_the_node_with_the_reason(launcher) -> None:
    process = NodeProcess(['-m', 'robot_formats.nodes.description_publisher', '--ros-args', '-p',
                           f'description_file:={ARM}', '-p',
                           'qos_overrides./joint_states.subscription.reliability:=sometimes'],
                          launcher.allocate_domain(), launcher.log_dir, 'bad_qos')
    launcher.processes.append(process)
    assert process.proc.wait(timeout=TIMEOUT) == 1, process.describe()
    log = process.log()
    assert 'qos_overrides of joint_states' in log and 'sometimes' in log, log
    assert 'Traceback' not in log
