"""``robot-formats controllers`` for every bundled robot, and the files it writes in use.

What is generated is checked with other tools than the generator: urdfdom's check_urdf reads the
URDF; its joints and limits are read back with ElementTree (the commanded joints must be exactly
the URDF's revolute, continuous and prismatic joints without ``<mimic>``, each mimic joint
listed with state interfaces only, as ros2_control (Jazzy and later) wants them); the
controllers file sets only keys (of the types) Kilted's controller_manager and controllers
declare, for every bundled robot and command interface (kilted_parameters, which reads their
generate_parameter_library definitions); the gazebo variant carries gz_ros2_control's
documented plugin names.

Then in use, over real DDS: description_publisher serves the robot with the ``ros2_control``
parameter (robot_description carries the same block), sim_controller takes its joints, rules
and tolerances from the generated controllers file (``controllers_file``), publishes JTC's
controller_state, and motion_player plays every bundled motion to it.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from control_msgs.msg import JointTrajectoryControllerState
from rclpy.action import ActionClient
from robot_formats_interfaces.action import PlayMotion
from std_msgs.msg import String

from .harness import (DESCRIPTION_QOS, ROOT, TIMEOUT, NodeProcess, assert_ros2_controllers_file,
                      canonical_xml, run_check_urdf)
from .kilted_parameters import controllers_file_problems, flatten

sys.path.insert(0, str(ROOT / 'test' / 'formats' / 'xmdi'))
from bundled_reference import BUNDLES  # noqa: E402

EXAMPLES = ROOT / 'examples'
#: Every bundled robot or scene file of every scene format.
ROBOTS = sorted([*EXAMPLES.glob('urdf/*.urdf'), *EXAMPLES.glob('sdf/*.sdf'),
                 *EXAMPLES.glob('skel/*.skel'), *EXAMPLES.glob('hrdf/*.hrdf'),
                 *EXAMPLES.glob('tmp/*.xml')])
GZ_PLUGIN = ('gz_ros2_control-system', 'gz_ros2_control::GazeboSimROS2ControlPlugin')


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'robot_formats.cli', *args],
                          capture_output=True, text=True, timeout=120)


def generate(robot: Path, out: Path, *options: str) -> tuple[Path, Path, dict]:
    run = cli('controllers', str(robot), '-o', str(out), '--json', *options)
    assert run.returncode == 0, run.stderr
    answer = yaml.safe_load(run.stdout)
    return Path(answer['urdf']), Path(answer['controllers']), answer


def control_block(urdf: ET.Element) -> ET.Element:
    blocks = urdf.findall('ros2_control')
    assert len(blocks) == 1
    return blocks[0]


def urdf_joint_kinds(urdf: ET.Element) -> tuple[list[str], list[str]]:
    """(revolute/continuous/prismatic joints without <mimic>, those with), document order."""
    moving = [j for j in urdf.findall('joint')
              if j.get('type') in ('revolute', 'continuous', 'prismatic')]
    return ([j.get('name') for j in moving if j.find('mimic') is None],
            [j.get('name') for j in moving if j.find('mimic') is not None])


def interfaces(joint: ET.Element, kind: str) -> list[str]:
    return [i.get('name') for i in joint.findall(f'{kind}_interface')]


def params(interface: ET.Element) -> dict[str, float]:
    return {p.get('name'): float(p.text) for p in interface.findall('param')}


@pytest.mark.parametrize('robot', ROBOTS, ids=[p.name for p in ROBOTS])
def test_generated_urdf_and_controllers_for_every_bundled_robot(robot: Path, tmp_path):
    urdf_path, yaml_path, answer = generate(robot, tmp_path)
    text = urdf_path.read_text()
    checked = run_check_urdf(text, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    root = ET.fromstring(text)
    commandable, mimics = urdf_joint_kinds(root)
    block = control_block(root)
    assert block.find('hardware/plugin').text == 'mock_components/GenericSystem'
    listed = {j.get('name'): j for j in block.findall('joint')}
    commanded = [name for name, j in listed.items() if interfaces(j, 'command')]
    assert commanded == commandable == answer['joints']
    assert [name for name in listed if name not in commanded] == mimics
    limits = {j.get('name'): (j.get('type'), j.find('limit')) for j in root.findall('joint')}
    for name in commanded:
        joint = listed[name]
        assert interfaces(joint, 'command') == ['position']
        assert interfaces(joint, 'state') == ['position', 'velocity']
        kind, limit = limits[name]
        bounds = params(joint.find('command_interface'))
        if kind == 'continuous':
            assert bounds == {}
        else:
            assert bounds == {'min': float(limit.get('lower', 0)),
                              'max': float(limit.get('upper', 0))}
        assert 'initial_value' in params(joint.find('state_interface'))
    for name in mimics:
        assert interfaces(listed[name], 'command') == []
        assert interfaces(listed[name], 'state') == ['position', 'velocity']
    # the rest of the URDF is what description_publisher serves without ros2_control
    converted = cli('convert', str(robot), '-o', '-')
    assert converted.returncode == 0, converted.stderr
    root.remove(block)
    assert canonical_xml(ET.tostring(root, encoding='unicode')) == \
        canonical_xml(converted.stdout)
    config = yaml.safe_load(yaml_path.read_text())
    assert_ros2_controllers_file(config, commandable, 'forward_position_controller', 'position')
    constraints = config['joint_trajectory_controller']['ros__parameters']['constraints']
    for name in commandable:
        kind, limit = limits[name]
        tolerance = constraints[name]
        assert 0 < tolerance['goal'] < tolerance['trajectory']
        if kind != 'continuous':  # within the joint's range
            assert tolerance['trajectory'] <= (float(limit.get('upper')) -
                                               float(limit.get('lower'))) / 4 + 1e-12


def test_gazebo_variant_carries_gz_ros2_control(tmp_path):
    robot = EXAMPLES / 'urdf' / 'arm_with_gripper.urdf'
    urdf_path, yaml_path, _ = generate(robot, tmp_path / 'out', '--hardware', 'gazebo')
    root = ET.fromstring(urdf_path.read_text())
    block = control_block(root)
    assert block.get('name') == 'GazeboSimSystem' and block.get('type') == 'system'
    assert block.find('hardware/plugin').text == 'gz_ros2_control/GazeboSimSystem'
    plugins = root.findall('gazebo/plugin')
    assert [(p.get('filename'), p.get('name')) for p in plugins] == [GZ_PLUGIN]
    assert plugins[0].find('parameters').text == str(yaml_path.resolve())
    assert run_check_urdf(urdf_path.read_text(), tmp_path).returncode == 0


@pytest.mark.parametrize('interface', ['velocity', 'effort'])
def test_velocity_and_effort_interfaces_take_their_limits(interface: str, tmp_path):
    robot = EXAMPLES / 'urdf' / 'arm_with_gripper.urdf'
    urdf_path, yaml_path, answer = generate(robot, tmp_path, '--interface', interface,
                                            '--hardware', 'my_driver/MySystem')
    root = ET.fromstring(urdf_path.read_text())
    block = control_block(root)
    assert block.find('hardware/plugin').text == 'my_driver/MySystem'
    limits = {j.get('name'): j.find('limit') for j in root.findall('joint')}
    for joint in block.findall('joint'):
        name = joint.get('name')
        if name not in answer['joints']:
            continue
        assert interfaces(joint, 'command') == [interface]
        expected_states = ['position', 'velocity'] + (['effort'] if interface == 'effort' else [])
        assert interfaces(joint, 'state') == expected_states
        limit = limits[name]
        bound = float(limit.get(interface)) if limit is not None else None
        assert params(joint.find('command_interface')) == (
            {'min': -bound, 'max': bound} if bound else {})
    config = yaml.safe_load(yaml_path.read_text())
    forward = f'forward_{interface}_controller'
    assert_ros2_controllers_file(config, answer['joints'], forward, interface)
    jtc = flatten(config['joint_trajectory_controller']['ros__parameters'])
    assert jtc[('command_interfaces',)] == [interface]
    if interface == 'effort':  # JTC cannot command efforts without a PID per joint
        assert all(('gains', j, 'p') in jtc for j in answer['joints'])


INTERFACES = ('position', 'velocity', 'effort')
HARDWARE = ('mock', 'gazebo', 'my_driver/MySystem')


@pytest.mark.parametrize('interface', INTERFACES)
@pytest.mark.parametrize('robot', ROBOTS, ids=[p.name for p in ROBOTS])
def test_every_written_key_is_declared_by_kilted(robot: Path, interface: str, tmp_path):
    _, yaml_path, answer = generate(robot, tmp_path, '--interface', interface)
    config = yaml.safe_load(yaml_path.read_text())
    assert_ros2_controllers_file(config, answer['joints'], f'forward_{interface}_controller',
                                 interface)


@pytest.mark.parametrize('hardware', HARDWARE)
@pytest.mark.parametrize('interface', INTERFACES)
def test_every_hardware_writes_keys_kilted_declares(hardware: str, interface: str, tmp_path):
    _, yaml_path, answer = generate(EXAMPLES / 'urdf' / 'arm_with_gripper.urdf', tmp_path,
                                    '--interface', interface, '--hardware', hardware)
    assert not controllers_file_problems(yaml.safe_load(yaml_path.read_text()))


@pytest.mark.parametrize(('change', 'complaint'), [
    (lambda jtc, manager, joint: jtc['gains'][joint].update(i_clamp=0.0),
     'gains.shoulder_pan.i_clamp is not a parameter Kilted declares'),
    (lambda jtc, manager, joint: jtc['gains'].update(not_a_joint={'p': 1.0}),
     'gains.not_a_joint.p is not a parameter Kilted declares'),
    (lambda jtc, manager, joint: jtc['gains'][joint].update(p=5),
     'gains.shoulder_pan.p is 5, not of type double'),
    (lambda jtc, manager, joint: jtc.update(interpolation_method='cubic'),
     "interpolation_method is 'cubic', not one of ['splines', 'none']"),
    (lambda jtc, manager, joint: manager.update(update_rate=100.0),
     'update_rate is 100.0, not of type int'),
    (lambda jtc, manager, joint: manager.update(update_period=0.01),
     'controller_manager: update_period is not a parameter Kilted declares'),
    (lambda jtc, manager, joint: manager['joint_trajectory_controller'].update(
        params_file='x.yaml'), "joint_trajectory_controller sets ['params_file', 'type']"),
], ids=['i_clamp', 'map_key', 'int_for_double', 'one_of', 'manager_type', 'manager_key',
        'controller_key'])
def test_a_key_or_value_kilted_does_not_declare_is_found(change, complaint, tmp_path):
    """The check can fail: the i_clamp of Jazzy's controllers (Kilted has i_clamp_max /
    i_clamp_min), a map key that is not in its list, a wrong type, a value outside one_of,
    an unknown controller_manager key."""
    _, yaml_path, _ = generate(EXAMPLES / 'urdf' / 'arm_with_gripper.urdf', tmp_path,
                               '--interface', 'velocity')
    config = yaml.safe_load(yaml_path.read_text())
    assert not controllers_file_problems(config)
    change(config['joint_trajectory_controller']['ros__parameters'],
           config['controller_manager']['ros__parameters'], 'shoulder_pan')
    problems = controllers_file_problems(config)
    assert any(complaint in problem for problem in problems), problems


def test_joints_option_orders_and_refuses(tmp_path):
    robot = EXAMPLES / 'urdf' / 'arm_with_gripper.urdf'
    _, yaml_path, answer = generate(robot, tmp_path, '--joints', 'elbow', 'shoulder_pan')
    assert answer['joints'] == ['elbow', 'shoulder_pan'] and answer['mimic_joints'] == []
    config = yaml.safe_load(yaml_path.read_text())
    assert config['joint_trajectory_controller']['ros__parameters']['joints'] == \
        ['elbow', 'shoulder_pan']
    refused = cli('controllers', str(robot), '-o', str(tmp_path), '--joints', 'finger_right')
    assert refused.returncode == 1
    assert refused.stderr.startswith(f'{robot}: --joints names \'finger_right\'')
    assert 'shoulder_pan, shoulder_lift, elbow, wrist_roll, finger_left' in refused.stderr
    blocked = tmp_path / 'a_file'
    blocked.write_text('')
    unwritable = cli('controllers', str(robot), '-o', str(blocked / 'sub'))
    assert unwritable.returncode == 2 and 'cannot create the output directory' in \
        unwritable.stderr


# --- the generated files in use ----------------------------------------------------------------

def _module(name: str) -> list[str]:
    return ['-m', f'robot_formats.nodes.{name}', '--ros-args']


PLAYED = list(BUNDLES)


@pytest.mark.parametrize('bundle', PLAYED, ids=[b.name for b in PLAYED])
def test_sim_controller_configured_by_the_generated_file_plays_every_bundled_motion(
        bundle, launcher, tmp_path):
    urdf_path, yaml_path, answer = generate(bundle.robot, tmp_path)
    joints = answer['joints']
    domain = launcher.allocate_domain()
    processes = {}
    for name, args in (
            ('description', [*_module('description_publisher'), '-p',
                             f'description_file:={bundle.robot}', '-p', 'ros2_control:=mock']),
            ('sim', [*_module('sim_controller'), '-p', 'mode:=kinematic', '-p',
                     f'controllers_file:={yaml_path}']),
            ('player', [*_module('motion_player'), '-p', f'motion_files:=["{bundle.motions}"]',
                        *(['-p', f'servo_map:={bundle.servo_map}'] if bundle.servo_map else []),
                        '-p', 'output_mode:=action'])):
        processes[name] = NodeProcess(args, domain, launcher.log_dir, name)
        launcher.processes.append(processes[name])
    side = launcher.side(domain, 'controllers')
    descriptions = side.subscribe(String, 'robot_description', DESCRIPTION_QOS)
    states = side.subscribe(JointTrajectoryControllerState,
                            'joint_trajectory_controller/controller_state', 10)
    side.spin_until(lambda: len(descriptions) > 0, what='robot_description',
                    process=processes['description'])
    # robot_description carries the block the CLI wrote
    served = control_block(ET.fromstring(descriptions.last.data))
    written = control_block(ET.fromstring(urdf_path.read_text()))
    assert canonical_xml(ET.tostring(served, encoding='unicode')) == \
        canonical_xml(ET.tostring(written, encoding='unicode'))
    processes['sim'].wait_for_log(f'controllers from {yaml_path}')
    processes['sim'].wait_for_log('ready')
    side.spin_until(lambda: len(states) > 0, what='controller_state', process=processes['sim'])
    state = states.last
    assert list(state.joint_names) == joints
    assert len(state.reference.positions) == len(state.feedback.positions) == len(joints)
    assert state.speed_scaling_factor == 1.0  # control_msgs 6.x: unscaled, as JTC's default
    processes['player'].wait_for_log('robot model:')
    client = ActionClient(side.node, PlayMotion, 'motion_player/play')
    assert client.wait_for_server(timeout_sec=TIMEOUT)
    root = ET.parse(bundle.motions).getroot()
    for motion in root.iter('motion'):
        future = client.send_goal_async(PlayMotion.Goal(motion_name=motion.get('name')))
        side.spin_until(future.done, what='the goal response', process=processes['player'])
        handle = future.result()
        assert handle.accepted
        result = handle.get_result_async()
        side.spin_until(result.done, 2 * TIMEOUT, 'the play result', processes['player'])
        answer_ = result.result().result
        # the arm's wave leaves the gripper out: only the file's allow_partial_joints_goal
        # (the parameter's default is false) lets the controller accept it
        assert (answer_.success, answer_.controller_error_code) == (True, 0), answer_.message


def test_a_controllers_file_without_the_controller_stops_sim_controller(launcher, tmp_path):
    path = tmp_path / 'other.yaml'
    path.write_text('other_controller:\n  ros__parameters:\n    joints: [a]\n')
    process = NodeProcess([*_module('sim_controller'), '-p', f'controllers_file:={path}', '-p',
                           f'description_file:={EXAMPLES / "urdf" / "arm_with_gripper.urdf"}'],
                          launcher.allocate_domain(), launcher.log_dir, 'sim_refused')
    launcher.processes.append(process)
    assert process.proc.wait(timeout=TIMEOUT) == 1, process.describe()
    assert (f'sim_controller: controllers_file: {path}: no joint_trajectory_controller section '
            '(the file configures: other_controller)') in process.log()


def test_a_ros2_control_interface_it_cannot_write_stops_description_publisher(launcher):
    process = NodeProcess([*_module('description_publisher'), '-p',
                           f'description_file:={EXAMPLES / "urdf" / "arm_with_gripper.urdf"}',
                           '-p', 'ros2_control:=mock', '-p', 'ros2_control_interface:=torque'],
                          launcher.allocate_domain(), launcher.log_dir, 'publisher_refused')
    launcher.processes.append(process)
    assert process.proc.wait(timeout=TIMEOUT) == 1, process.describe()
    assert "command interface 'torque' is not one of position, velocity, effort" in process.log()
