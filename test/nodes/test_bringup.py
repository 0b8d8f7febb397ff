"""``robot-formats bringup``: the nodes of a YAML file in one process (no ros2 launch here)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

import robot_formats

from .harness import (ARM, DESCRIPTION_QOS, ROOT, TF_QOS, TF_STATIC_QOS, assert_poses_equal,
                      canonical_xml, compose, edges_of, subprocess_env)

DEMO = ROOT / 'config' / 'demo.yaml'
#: config/demo.yaml's initial_positions
DEMO_POSITIONS = {'shoulder_lift': 0.3, 'elbow': 0.6, 'finger_left': 0.02}
MOVING = {'shoulder_link', 'upper_arm_link', 'forearm_link', 'wrist_link', 'left_finger',
          'right_finger'}


def test_bringup_demo_serves_and_stops_on_sigint(launcher) -> None:
    process, ros = launcher.command(
        ['-m', 'robot_formats.cli', 'bringup', str(DEMO), '--duration', '60'], 'bringup')
    process.wait_for_log('bringup: started')
    description = ros.subscribe(String, 'robot_description', DESCRIPTION_QOS)
    static = ros.subscribe(TFMessage, '/tf_static', TF_STATIC_QOS)
    tf = ros.subscribe(TFMessage, '/tf', TF_QOS)

    def full_tf() -> list[TFMessage]:
        return [m for m in tf.messages if {t.child_frame_id for t in m.transforms} == MOVING]

    ros.spin_until(lambda: len(description) and len(static) and full_tf(),
                   what='robot_description, /tf_static and /tf from the bringup', process=process)
    expected = robot_formats.urdf_string(robot_formats.load(ARM).scene)
    assert canonical_xml(description.last.data) == canonical_xml(expected)
    tree = robot_formats.KinematicTree(robot_formats.load(ARM).scene)
    poses = compose({**edges_of(static.messages[-1:]), **edges_of(full_tf()[-1:])})
    assert_poses_equal(poses, tree.forward(DEMO_POSITIONS))

    started = time.monotonic()
    code = process.interrupt(timeout=15.0)
    elapsed = time.monotonic() - started
    assert code == 0, f'exit code {code} after SIGINT; {process.describe()}'
    assert elapsed < 10.0, f'took {elapsed:.1f} s to stop'
    assert 'Traceback' not in process.log(), process.log()


def _bringup(config: Path, allocate_domain, tmp_path: Path, duration: str = '5'
             ) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, '-m', 'robot_formats.cli', 'bringup', str(config), '--duration',
         duration], cwd=ROOT, env=subprocess_env(allocate_domain(), tmp_path),
        capture_output=True, text=True, timeout=60)


def test_bringup_unknown_executable(tmp_path: Path, allocate_domain) -> None:
    config = tmp_path / 'bad_bringup.yaml'
    config.write_text('nodes:\n  - executable: robot_state_publisher_typo\n', encoding='utf-8')
    result = _bringup(config, allocate_domain, tmp_path)
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert 'Traceback' not in result.stderr + result.stdout
    assert 'unknown executable' in result.stderr, result.stderr
    assert 'robot_state_publisher_typo' in result.stderr
    assert str(config) in result.stderr
    assert 'description_publisher' in result.stderr  # the known ones are listed
    assert 'bringup: started' not in result.stdout


def test_bringup_node_that_cannot_start(tmp_path: Path, allocate_domain) -> None:
    """A parameter of the wrong type (an integer for a double) stops the bringup cleanly."""
    config = tmp_path / 'wrong_type.yaml'
    config.write_text('nodes:\n  - executable: description_publisher\n    parameters:\n'
                      f'      - description_file: {ARM}\n        publish_frequency: 10\n',
                      encoding='utf-8')
    result = _bringup(config, allocate_domain, tmp_path)
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert 'Traceback' not in result.stderr + result.stdout
    assert "cannot start 'description_publisher'" in result.stderr, result.stderr
    assert 'publish_frequency' in result.stderr


def test_bringup_duration_ends_with_exit_0(tmp_path: Path, allocate_domain) -> None:
    config = tmp_path / 'short.yaml'
    config.write_text('nodes:\n  - executable: description_publisher\n    parameters:\n'
                      f'      - description_file: {ARM}\n', encoding='utf-8')
    started = time.monotonic()
    result = _bringup(config, allocate_domain, tmp_path, duration='1.5')
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr)
    assert 'bringup: started /description_publisher' in result.stdout
    assert 1.5 <= time.monotonic() - started < 50
    assert 'Traceback' not in result.stderr
