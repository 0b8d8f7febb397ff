"""Serve a task-and-motion-planning problem and show it in rviz2.

    ros2 launch robot_formats problem.launch.py                    # the bundled discs and pegs
    ros2 launch robot_formats problem.launch.py problem_file:=/path/to/problem.xml

problem_server puts every object and robot on TF (root ``world``), one robot_description per
robot (``/<robot>/robot_description``), the objects and support regions on
``<namespace>/problem_server/markers``, and answers the planning services under
``<namespace>/problem_server/`` (docs/guide-planner.md). ``--show-args`` lists the arguments.
"""

from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

from robot_formats.nodes import launch_support


def generate_launch_description():
    share = FindPackageShare('robot_formats')
    arguments = [
        DeclareLaunchArgument(
            'problem_file',
            default_value=PathJoinSubstitution([share, 'examples', 'tmp', 'discs_and_pegs.xml']),
            description='TMP problem XML'),
        DeclareLaunchArgument('namespace', default_value='',
                              description="namespace of problem_server's services and markers "
                                          '(a second problem beside the first)'),
        DeclareLaunchArgument('mapping_file', default_value='',
                              description="configuration-tag mapping YAML ('' = "
                                          '<problem>.mapping.yaml beside the problem when it '
                                          'exists)'),
        DeclareLaunchArgument('strict', default_value='false',
                              description="refuse the spec page's typos instead of warning"),
        DeclareLaunchArgument('publish_frequency', default_value='10.0',
                              description='the most /tf messages (Hz) per robot joint-state '
                                          'source (0: one per joint_states message)'),
        DeclareLaunchArgument('publish_planning_scene', default_value='false',
                              description='publish every change of the scene as a MoveIt '
                                          'PlanningScene diff on planning_scene (move_group '
                                          'applies them)'),
        *launch_support.rviz_arguments(share, 'problem.rviz'),
    ]
    problem_server = Node(
        package='robot_formats', executable='problem_server', name='problem_server',
        namespace=LaunchConfiguration('namespace'), output='screen',
        parameters=[{
            'problem_file': LaunchConfiguration('problem_file'),
            'mapping_file': ParameterValue(LaunchConfiguration('mapping_file'), value_type=str),
            'strict': ParameterValue(LaunchConfiguration('strict'), value_type=bool),
            'publish_frequency': ParameterValue(LaunchConfiguration('publish_frequency'),
                                                value_type=float),
            'publish_planning_scene': ParameterValue(
                LaunchConfiguration('publish_planning_scene'), value_type=bool),
        }])
    return launch_support.launch_description(__file__, arguments, [
        launch_support.rviz('namespace'),
        problem_server,
    ])
