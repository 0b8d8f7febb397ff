"""The core library (everything but robot_formats.nodes) works without ROS: importing it loads
no rclpy, and no core source file imports rclpy, even lazily inside a function."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import robot_formats

from rf_testlib import ROOT, absolute_imports

PACKAGE = ROOT / 'robot_formats'
ROS_MODULES = ('rclpy', 'rosidl_runtime_py', 'tf2_ros', 'launch_ros')


def is_ros(module: str) -> bool:
    top = module.split('.')[0]
    return top in ROS_MODULES or top.endswith(('_msgs', '_srvs'))


def core_files() -> list:
    return sorted(p for p in PACKAGE.rglob('*.py') if 'nodes' not in p.relative_to(PACKAGE).parts)


def core_modules() -> list[str]:
    """Module names from the file tree (walking packages would import robot_formats.nodes)."""
    names = []
    for path in core_files():
        parts = list(path.relative_to(ROOT).with_suffix('').parts)
        if parts[-1] == '__init__':
            parts.pop()
        if parts[-1] != '__main__':  # `python -m` entry points run when imported
            names.append('.'.join(parts))
    return sorted(names)


def test_core_modules_found():
    modules = core_modules()
    for expected in ('robot_formats.cli', 'robot_formats.core.kinematics',
                     'robot_formats.formats.urdf.writer', 'robot_formats.core.xmlsafe',
                     'robot_formats.formats.builtin'):
        assert expected in modules
    assert robot_formats.__file__.startswith(str(PACKAGE))


def test_importing_the_core_loads_no_ros():
    code = (
        'import importlib, json, sys\n'
        f'names = {core_modules()!r}\n'
        'for name in names:\n'
        '    importlib.import_module(name)\n'
        'import robot_formats\n'
        'robot_formats.registered()  # the lazy format registry too\n'
        'print(json.dumps(sorted(sys.modules)))\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get('PYTHONPATH')])))
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            env=env, timeout=60, cwd=str(ROOT))
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    assert 'robot_formats.core.kinematics' in loaded  # the probe really imported the library
    assert not [m for m in loaded if is_ros(m)], 'the core imported ROS modules'


def test_no_core_file_imports_ros():
    offenders = []
    for path in core_files():
        offenders += [f'{path}:{line}: {name}' for line, name in absolute_imports(path)
                      if is_ros(name)]
        if 'import rclpy' in path.read_text(encoding='utf-8'):
            offenders.append(f'{path}: contains "import rclpy"')
    assert core_files(), 'no core files found'
    assert not offenders, '\n'.join(offenders)


def test_the_detector_detects():
    """The checks above are not vacuous."""
    assert is_ros('rclpy.node') and is_ros('tf2_msgs.msg') and is_ros('std_srvs')
    assert not is_ros('numpy') and not is_ros('robot_formats.core.kinematics')
