"""description_publisher where robot_state_publisher stood: the xacro/urdf_launch pipeline.

ROS launch files hand robot_state_publisher its URDF as the ``robot_description`` string
parameter, usually ``Command(['xacro ', file])``. The same launch description, with
description_publisher as the executable, must serve the same robot; a ``.xacro`` file given as
``description_file`` is expanded the same way (``xacro_args``); ``strict`` refuses a file that
loads only with warnings. Everything runs under real ``ros2 launch`` and is read through a
tf2_ros Buffer.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from .harness import ROOT
from .test_launch_files import LaunchRun, ros2  # noqa: F401 - ros2 asserts the CLI exists

XACRO = ROOT / 'test' / 'fixtures' / 'xacro' / 'two_link.urdf.xacro'
WARNINGS = ROOT / 'test' / 'fixtures' / 'urdf' / 'warnings.urdf'


def write_launch(tmp_path: Path, parameters: str) -> Path:
    """A launch file as a ROS package would write it for robot_state_publisher."""
    path = tmp_path / 'robot.launch.py'
    path.write_text(textwrap.dedent(f'''\
        from launch import LaunchDescription
        from launch.substitutions import Command
        from launch_ros.actions import Node
        from launch_ros.parameter_descriptions import ParameterValue


        def generate_launch_description():
            return LaunchDescription([Node(
                package='robot_formats', executable='description_publisher',
                name='description_publisher', output='screen',
                parameters=[{parameters}])])
        '''), encoding='utf-8')
    return path


def arm_height(run: LaunchRun) -> float:
    pose = run.tf2_poses('base', ['arm'])['arm']
    assert np.allclose(pose[:3, :3], np.eye(3), atol=1e-12)
    return float(pose[2, 3])


def test_robot_description_parameter_from_xacro_command(launcher, tmp_path) -> None:
    """``robot_description: Command(['xacro ', file, ' length:=0.8'])``, as for
    robot_state_publisher."""
    launch = write_launch(tmp_path, f'''{{
                    'robot_description': ParameterValue(
                        Command(['xacro ', '{XACRO}', ' length:=0.8']), value_type=str),
                    'publish_joint_states': True}}''')
    run = LaunchRun(launcher, str(launch), {}, 'xacro_command', package=None)
    run.process.wait_for_log('serving robot_description (urdf, 2 frames, 1 DoF)')
    printed = subprocess.run([str(Path(sys.executable).parent / 'xacro'), str(XACRO),
                              'length:=0.8'], capture_output=True, timeout=120, check=True)
    assert run.description() == printed.stdout.decode('utf-8'), 'served as the parameter gave it'
    assert abs(arm_height(run) - 0.8) < 1e-12
    run.interrupt()


def test_xacro_description_file_with_arguments(launcher, tmp_path) -> None:
    launch = write_launch(tmp_path, f'''{{
                    'description_file': '{XACRO}', 'xacro_args': ['length:=0.3'],
                    'publish_joint_states': True}}''')
    run = LaunchRun(launcher, str(launch), {}, 'xacro_file', package=None)
    assert abs(arm_height(run) - 0.3) < 1e-12
    run.interrupt()


def test_strict_refuses_a_file_with_warnings_and_keeps_running(launcher, tmp_path) -> None:
    strict = LaunchRun(launcher, str(write_launch(
        tmp_path, f"{{'description_file': '{WARNINGS}', 'strict': True}}")), {}, 'strict',
        package=None)
    log = strict.process.wait_for_log('still serving nothing')
    assert 'strict: 2 warning(s) refuse the description' in log, log
    assert strict.process.alive()
    strict.interrupt()
    lenient_dir = tmp_path / 'lenient'
    lenient_dir.mkdir()
    lenient = LaunchRun(launcher, str(write_launch(
        lenient_dir, f"{{'description_file': '{WARNINGS}'}}")), {}, 'lenient', package=None)
    log = lenient.process.wait_for_log('serving ')
    assert "revolute joint 'hinge' has no <limit>" in log
    lenient.interrupt()
