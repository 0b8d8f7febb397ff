"""runtime.ros2_control without ROS: which joints a <ros2_control> block holds, and reading a
controllers file back (what sim_controller's ``controllers_file`` accepts and refuses).
The generated files in use (check_urdf, ros2_controllers' names, the nodes) are
test/nodes/test_controllers.py's."""

from __future__ import annotations

import pytest

from robot_formats import load_text
from robot_formats.core.errors import FileAccessError, InvalidValueError
from robot_formats.runtime.description import Description
from robot_formats.runtime.ros2_control import (ControlOptions, control_joints, controllers_yaml,
                                                read_controllers_file, read_controllers_text)

ROBOT = """<robot name="r">
  <link name="world"/><link name="base"/><link name="a"/><link name="b"/><link name="c"/>
  <joint name="free" type="floating"><parent link="world"/><child link="base"/></joint>
  <joint name="spin" type="continuous"><parent link="base"/><child link="a"/>
    <axis xyz="0 0 1"/><limit effort="3" velocity="4"/></joint>
  <joint name="lift" type="prismatic"><parent link="a"/><child link="b"/>
    <limit lower="0" upper="0.2" effort="50" velocity="0.5"/></joint>
  <joint name="follow" type="prismatic"><parent link="a"/><child link="c"/>
    <limit lower="0" upper="0.2" effort="50" velocity="0.5"/><mimic joint="lift"/></joint>
</robot>"""


def description() -> Description:
    return Description.from_result(load_text(ROBOT, 'r.urdf'), 'r.urdf')


def test_floating_joints_are_named_not_commanded_and_mimics_follow_their_leader():
    selection = control_joints(description().urdf_tree)
    assert [j.name for j in selection.commanded] == ['spin', 'lift']
    assert [j.name for j in selection.mimics] == ['follow']
    assert selection.uncommandable == ('free',)
    spin, lift = selection.commanded
    assert (spin.lower, spin.upper, spin.velocity, spin.effort) == (None, None, 4.0, 3.0)
    assert (lift.lower, lift.upper, lift.prismatic) == (0.0, 0.2, True)
    only_lift = control_joints(description().urdf_tree, ['lift'])
    assert only_lift.mimics == selection.mimics
    assert control_joints(description().urdf_tree, ['spin']).mimics == ()


@pytest.mark.parametrize('chosen, message', [
    (['follow'], "--joints names 'follow'; the commandable joints are spin, lift"),
    (['free'], "--joints names 'free'"),
    (['spin', 'spin'], '--joints names a joint twice')])
def test_joints_that_cannot_be_commanded_are_refused(chosen, message):
    with pytest.raises(InvalidValueError) as raised:
        control_joints(description().urdf_tree, chosen)
    assert raised.value.message.startswith(message) and raised.value.file == 'r.urdf'


def test_the_written_file_reads_back():
    selection = control_joints(description().urdf_tree)
    text = controllers_yaml('r', selection.commanded, ControlOptions())
    config = read_controllers_text(text)
    assert config.joints == ('spin', 'lift') and config.forward_joints == ('spin', 'lift')
    assert config.allow_partial_joints_goal is True and config.update_rate == 100.0
    assert config.tolerance('lift') == (0.02, 0.002)
    assert config.tolerance('spin') == (0.2, 0.02)
    assert config.goal_time == 0.5 and config.tolerance('other') == (None, None)


@pytest.mark.parametrize('text, message', [
    ('a: [', 'not valid YAML'),
    ('- 1\n', 'expected a mapping of node names to ros__parameters'),
    ('other:\n  ros__parameters: {joints: [a]}\n',
     'no joint_trajectory_controller section (the file configures: other)'),
    ('joint_trajectory_controller:\n  ros__parameters: {}\n',
     'joint_trajectory_controller.joints is missing or empty'),
    ('joint_trajectory_controller:\n  ros__parameters: {joints: [a, a]}\n', 'names a joint twice'),
    ('joint_trajectory_controller:\n  ros__parameters:\n    joints: [a]\n'
     '    allow_partial_joints_goal: maybe\n', "allow_partial_joints_goal is 'maybe', not a bool"),
    ('joint_trajectory_controller:\n  ros__parameters:\n    joints: [a]\n'
     '    constraints: {a: {goal: .nan}}\n', 'constraints.a.goal is nan, not a float'),
    ('controller_manager:\n  ros__parameters: {update_rate: 0}\n'
     'joint_trajectory_controller:\n  ros__parameters: {joints: [a]}\n',
     'update_rate must be positive'),
    ('joint_trajectory_controller:\n  ros__parameters: {joints: [a], action_monitor_rate: 0}\n',
     'joint_trajectory_controller.action_monitor_rate must be positive'),
])
def test_a_controllers_file_it_cannot_use_is_refused_with_the_reason(text, message):
    with pytest.raises(InvalidValueError) as raised:
        read_controllers_text(text, file='c.yaml')
    assert message in raised.value.message and raised.value.file == 'c.yaml'


def test_a_missing_controllers_file_is_a_file_error(tmp_path):
    with pytest.raises(FileAccessError):
        read_controllers_file(str(tmp_path / 'none.yaml'))
