"""Launch files, bringup files and rviz configurations agree with the nodes they start.

launch_ros is not installable here, so launch files are checked as syntax trees (see
launch_check.py); bringup files go through the real bringup loader. The reference for what a
node accepts is its own source (declare_parameter calls and endpoint names), and setup.py's
console_scripts for what exists. The checker is itself tested on broken files, so these
tests can fail.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
import yaml

import launch_check
from launch_check import ROOT

LAUNCH_FILES = sorted((ROOT / 'launch').glob('*.launch.py'))
CONFIG_YAML = sorted((ROOT / 'config').glob('*.yaml'))
BRINGUP_FILES = [p for p in CONFIG_YAML if launch_check.is_bringup_file(p)]
#: Each launch workflow and the bringup file that runs the same nodes without ros2 launch.
WORKFLOWS = {
    'display.launch.py': 'demo.yaml',
    'world.launch.py': 'world_bringup.yaml',
    'problem.launch.py': 'problem_bringup.yaml',
    'motion.launch.py': 'motion_bringup.yaml',
    'motion_sim.launch.py': 'motion_sim_bringup.yaml',
}


def test_the_workflows_are_all_there():
    assert {p.name for p in LAUNCH_FILES} >= set(WORKFLOWS)
    assert {p.name for p in BRINGUP_FILES} >= set(WORKFLOWS.values())


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=lambda p: p.name)
def test_launch_file_matches_its_nodes(path):
    assert launch_check.launch_file_problems(path) == []


@pytest.mark.parametrize('path', BRINGUP_FILES, ids=lambda p: p.name)
def test_bringup_file_matches_its_nodes(path):
    assert launch_check.bringup_file_problems(path) == []


@pytest.mark.parametrize('launch_name, bringup_name', sorted(WORKFLOWS.items()))
def test_launch_and_bringup_start_the_same_nodes(launch_name, bringup_name):
    from robot_formats.nodes.bringup import load_bringup
    tree = ast.parse((ROOT / 'launch' / launch_name).read_text(encoding='utf-8'))
    launched = {(n.executable, n.name or n.executable, n.namespace or '')
                for n in launch_check.launch_nodes(tree) if n.package == 'robot_formats'}
    brought_up = {(s.executable, s.name, s.namespace.strip('/'))
                  for s in load_bringup(ROOT / 'config' / bringup_name)}
    assert launched == brought_up


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=lambda p: p.name)
def test_rviz_configs_listen_where_the_nodes_publish(path):
    """Each rviz display's topic is published by a node of the same launch file."""
    tree = ast.parse(path.read_text(encoding='utf-8'))
    scripts = launch_check.console_scripts()
    nodes = [(launch_check.node_interface(scripts[n.executable]), f'/{n.name or n.executable}')
             for n in launch_check.launch_nodes(tree) if n.package == 'robot_formats']
    assert all(not n.namespace for n in launch_check.launch_nodes(tree)), \
        'namespaced nodes: resolve names in their namespace here first'
    configs = [p for p in _default_paths(tree) if p.suffix == '.rviz']
    assert configs, f'{path.name} has no default rviz configuration'
    for config in configs:
        topics = rviz_topics(yaml.safe_load(config.read_text(encoding='utf-8')))
        assert topics, f'{config.name}: no display reads a topic'
        for display, topic in topics:
            assert any(interface.publishes(topic, name) for interface, name in nodes), (
                f'{config.name}: display {display!r} reads {topic}, which no node of '
                f'{path.name} publishes')


def _default_paths(tree: ast.Module) -> list[Path]:
    paths = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        if launch_check._call_name(call) == 'DeclareLaunchArgument':
            default = next((k.value for k in call.keywords if k.arg == 'default_value'), None)
            path = launch_check._share_path(default) if default is not None else None
            if path is not None:
                paths.append(path)
    return paths


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=lambda p: p.name)
def test_default_files_of_launch_arguments_exist(path):
    for default in _default_paths(ast.parse(path.read_text(encoding='utf-8'))):
        assert default.exists(), f'{path.name}: default {default} does not exist'


def rviz_topics(config: dict) -> list[tuple[str, str]]:
    """(display name, topic) of every enabled display that subscribes to a topic."""
    found = []

    def walk(displays):
        for display in displays or []:
            if display.get('Class') == 'rviz_common/Group':
                walk(display.get('Displays'))
                continue
            for key in ('Topic', 'Description Topic'):
                value = display.get(key)
                if isinstance(value, dict) and value.get('Value'):
                    found.append((display.get('Name'), value['Value']))
    walk(config['Visualization Manager']['Displays'])
    return found


# --- the checker finds real mistakes -------------------------------------------------------

def test_node_interface_reads_the_description_publisher():
    interface = launch_check.node_interface('robot_formats.nodes.description_publisher')
    assert {'description_file', 'frame_prefix', 'publish_joint_states',
            'initial_positions'} <= interface.parameters
    assert {'robot_description', 'joint_states', '/tf', '~/reload'} <= interface.names


BROKEN_LAUNCH = '''
"""Broken on purpose.

Arguments:
    documented      used and documented
"""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare


def generate_launch_description():
    share = FindPackageShare('robot_formats')
    return LaunchDescription([
        DeclareLaunchArgument('documented', default_value='x'),
        DeclareLaunchArgument('undocumented', default_value='x'),
        Node(package='robot_formats', executable='description_publisher',
             name='description_publisher',
             parameters=[PathJoinSubstitution([share, 'config', 'description_publisher.yaml']),
                         {'description_file': LaunchConfiguration('documented'),
                          'no_such_parameter': LaunchConfiguration('undocumented'),
                          'typo': LaunchConfiguration('never_declared')}],
             remappings=[('joint_states', '/a/joint_states'), ('no_such_topic', '/x')]),
        Node(package='robot_formats', executable='no_such_node', name='x'),
        Node(package='robot_formats', executable='description_publisher', name='renamed',
             parameters=[PathJoinSubstitution([share, 'config', 'description_publisher.yaml'])]),
    ])
'''


def test_launch_checker_reports_each_kind_of_mistake(tmp_path):
    path = tmp_path / 'broken.launch.py'
    path.write_text(BROKEN_LAUNCH, encoding='utf-8')
    problems = '\n'.join(launch_check.launch_file_problems(path))
    for expected in ("'no_such_parameter', which robot_formats.nodes.description_publisher "
                     'does not declare', "'typo'", "remaps 'no_such_topic'",
                     "no executable 'no_such_node'", "LaunchConfiguration('never_declared') "
                     'is never declared', "'undocumented' is not documented",
                     'description_publisher.yaml has no section for node /renamed'):
        assert expected in problems, problems
    assert "remaps 'joint_states'" not in problems and "'description_file'" not in problems


def test_bringup_checker_reports_each_kind_of_mistake(tmp_path):
    params = tmp_path / 'params.yaml'
    params.write_text('other_node:\n  ros__parameters:\n    frame_prefix: ""\n', encoding='utf-8')
    path = tmp_path / 'broken.yaml'
    path.write_text(textwrap.dedent('''\
        nodes:
          - executable: description_publisher
            parameters:
              - $(dirname)/params.yaml
              - description_file: x.urdf
                publish_rate: 3.0
            remappings:
              robot_description: /r/robot_description
              joint_state: /r/joint_states
        '''), encoding='utf-8')
    problems = '\n'.join(launch_check.bringup_file_problems(path))
    assert "gets parameter 'publish_rate'" in problems, problems
    assert "remaps 'joint_state'" in problems, problems
    assert 'params.yaml has no section for node /description_publisher' in problems, problems
    assert "'robot_description'" not in problems and "'description_file'" not in problems
    path.write_text('nodes:\n  - executable: no_such_node\n', encoding='utf-8')
    assert 'unknown executable' in '\n'.join(launch_check.bringup_file_problems(path))


def test_rviz_topic_resolution_can_fail():
    interface = launch_check.node_interface('robot_formats.nodes.problem_server')
    assert interface.publishes('/problem_server/markers', '/problem_server')
    assert interface.publishes('/pr2/robot_description', '/problem_server')  # f'{name}/...'
    assert not interface.publishes('/problem_server/markers', '/other_name')
    assert not interface.publishes('/pr2/robot_descriptions', '/problem_server')
    # borrowed constants do not make problem_server a description_publisher
    assert 'initial_positions' not in interface.parameters
    assert {'problem_file', 'mapping_file', 'strict', 'publish_frequency'} <= interface.parameters
