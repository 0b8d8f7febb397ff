"""runtime.description without ROS: which text a node serves as ``robot_description``.

robot_state_publisher publishes the URDF it was given, unchanged; a description of another
format is served as robot_formats' URDF of it. The ``<ros2_control>`` option adds its block to
either, and never makes a second one. Checked against the files' own bytes, xacro's command
line and ElementTree reading the served text.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from robot_formats.core.errors import InvalidValueError
from robot_formats.runtime.description import Description
from robot_formats.runtime.ros2_control import ControlOptions

ROOT = Path(__file__).resolve().parents[2]
EXTENDED = ROOT / 'test' / 'fixtures' / 'urdf' / 'extensions.urdf'
ARM = ROOT / 'examples' / 'urdf' / 'arm_with_gripper.urdf'
XACRO = ROOT / 'test' / 'fixtures' / 'xacro' / 'two_link.urdf.xacro'
PLANAR = """<?xml version="1.0"?>
<robot name="sled">
  <link name="floor"/><link name="cart"/><link name="pole"/>
  <joint name="glide" type="planar"><parent link="floor"/><child link="cart"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="tilt" type="revolute"><parent link="cart"/><child link="pole"/>
    <axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <transmission name="t"><type>x</type></transmission>
</robot>
"""


def commanded(text: str) -> list[str]:
    (block,) = ET.fromstring(text.encode('utf-8')).findall('ros2_control')
    return [j.get('name') for j in block.findall('joint')
            if j.find('command_interface') is not None]


def test_a_urdf_file_is_served_byte_for_byte() -> None:
    description = Description.load(EXTENDED)
    assert description.passthrough
    assert description.robot_description == EXTENDED.read_bytes().decode('utf-8')
    # what the library reads is unchanged: the written URDF has none of the extensions
    assert '<gazebo' not in description.urdf and '<gazebo' in description.robot_description
    assert [str(w) for w in description.warnings] == [
        f'{EXTENDED}:62: ignored unknown element <vendor_calibration_data>']


def test_urdf_text_is_served_as_given() -> None:
    text = EXTENDED.read_text(encoding='utf-8')
    assert Description.from_text(text).robot_description == text


def test_a_xacro_file_is_served_as_xacro_prints_it() -> None:
    printed = subprocess.run([str(Path(sys.executable).parent / 'xacro'), str(XACRO),
                              'length:=0.6'], capture_output=True, timeout=120, check=True)
    description = Description.load(XACRO, xacro_args={'length': '0.6'})
    assert description.robot_description == printed.stdout.decode('utf-8')


def test_another_format_is_served_as_the_written_urdf() -> None:
    description = Description.load(ROOT / 'examples' / 'hrdf' / 'hebi_arm.hrdf')
    assert not description.passthrough and description.robot_description == description.urdf


def test_a_urdf_that_is_not_utf8_is_served_as_the_written_urdf(tmp_path) -> None:
    path = tmp_path / 'latin.urdf'
    path.write_bytes('<?xml version="1.0" encoding="ISO-8859-1"?>\n<!-- café -->\n'
                     '<robot name="r"><link name="a"/></robot>\n'.encode('latin-1'))
    description = Description.load(path)
    assert not description.passthrough and description.robot_description == description.urdf
    assert any(note.code == 'NOT_UTF8' for note in description.notes)


def test_ros2_control_joins_a_urdf_as_given_before_its_end() -> None:
    text = ARM.read_text(encoding='utf-8')
    served = Description.load(ARM).with_ros2_control(ControlOptions('mock')).robot_description
    end = text.rindex('</robot>')
    assert served.startswith(text[:end]) and served.endswith(text[end:])
    assert commanded(served) == ['shoulder_pan', 'shoulder_lift', 'elbow', 'wrist_roll',
                                 'finger_left']
    # the written URDF's block is the same one (robot-formats controllers writes it too)
    written = Description.load(ARM).urdf
    assert Description.from_text(written).with_ros2_control(
        ControlOptions('mock')).robot_description.endswith(served[end:])


def test_ros2_control_of_a_urdf_as_given_names_the_documents_own_joints() -> None:
    """A planar joint is one URDF joint (TF publishes it as a chain of helper frames):
    ros2_control cannot command it, and no helper joint of the chain appears."""
    served = Description.from_text(PLANAR).with_ros2_control(ControlOptions('mock'))
    assert commanded(served.robot_description) == ['tilt']
    assert len(served.urdf_tree.dof_names) > 2  # the chain TF publishes


def test_a_urdf_with_its_own_block_is_refused() -> None:
    with pytest.raises(InvalidValueError) as info:
        Description.load(EXTENDED).with_ros2_control(ControlOptions('mock'))
    assert info.value.line == 39 and 'already has a <ros2_control> block' in info.value.message
