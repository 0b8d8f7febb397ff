"""tools/build_ros_tools.sh: the upstream ROS 2 tools are built only where the environment lacks
them, and a machine without their sources is told so in one line (never a traceback)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / 'tools' / 'build_ros_tools.sh'


def run(**env: str) -> subprocess.CompletedProcess:
    return subprocess.run(['bash', str(SCRIPT), '--list'], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **env}, cwd=ROOT)


def test_lists_what_it_would_build_from_the_shared_sources() -> None:
    out = run()
    assert out.returncode == 0, out.stderr
    for package in ('launch_ros', 'ros2launch', 'ros2topic', 'tf2_ros_py', 'launch_testing'):
        assert f'build: {package} from ' in out.stdout, out.stdout


def test_missing_sources_are_one_clear_line(tmp_path) -> None:
    missing = tmp_path / 'no_such_folder'
    out = run(ROS2_TOOLS_SRC=str(missing))
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert 'the environment lacks the ROS 2 tools launch' in lines[0]
    assert str(missing) in lines[0] and 'ROS2_TOOLS_SRC' in lines[0]
    assert 'source a ROS 2 installation' in lines[0]
    assert 'Traceback' not in out.stderr
