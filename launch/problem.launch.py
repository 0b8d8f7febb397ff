"""Serve a task-and-motion-planning problem and show it in rviz2 (ROS installs).

    ros2 launch robot_formats problem.launch.py                    # the bundled discs and pegs
    ros2 launch robot_formats problem.launch.py problem_file:=/path/to/problem.xml

problem_server puts every object and robot on TF (root ``world``), one robot_description per
robot (``/<robot>/robot_description``), the objects and support regions on
``/problem_server/markers``, and answers the planning services (docs/guide-planner.md).

Arguments:
    problem_file          TMP problem XML (default: examples/tmp/discs_and_pegs.xml)
    mapping_file          configuration-tag mapping YAML (default: '' = <problem>.mapping.yaml
                          beside the problem when it exists)
    strict                refuse the spec page's typos instead of warning (default: false)
    publish_frequency     rate (Hz) of the robots' moving joints on /tf (default: 10.0)
    rviz                  start rviz2 (default: true)
    rviz_config           rviz2 configuration (default: config/problem.rviz)

Without launch_ros, ``robot-formats bringup config/problem_bringup.yaml`` runs the same node
(see docs/bringup.md).
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare


def generate_launch_description() -> LaunchDescription:
    share = FindPackageShare('robot_formats')
    arguments = [
        DeclareLaunchArgument('problem_file', default_value=PathJoinSubstitution(
            [share, 'examples', 'tmp', 'discs_and_pegs.xml'])),
        DeclareLaunchArgument('mapping_file', default_value=''),
        DeclareLaunchArgument('strict', default_value='false'),
        DeclareLaunchArgument('publish_frequency', default_value='10.0'),
        DeclareLaunchArgument('rviz', default_value='true'),
        DeclareLaunchArgument('rviz_config', default_value=PathJoinSubstitution(
            [share, 'config', 'problem.rviz'])),
    ]
    problem_server = Node(
        package='robot_formats', executable='problem_server', name='problem_server',
        output='screen',
        parameters=[{
            'problem_file': LaunchConfiguration('problem_file'),
            'mapping_file': ParameterValue(LaunchConfiguration('mapping_file'), value_type=str),
            'strict': ParameterValue(LaunchConfiguration('strict'), value_type=bool),
            'publish_frequency': ParameterValue(LaunchConfiguration('publish_frequency'),
                                                value_type=float),
        }])
    rviz = Node(
        package='rviz2', executable='rviz2', name='rviz2', output='screen',
        arguments=['-d', LaunchConfiguration('rviz_config')],
        condition=IfCondition(LaunchConfiguration('rviz')))
    return LaunchDescription([*arguments, problem_server, rviz])
