"""Show any robot_formats file in rviz2: description_publisher + rviz2 (ROS installs only).

    ros2 launch robot_formats display.launch.py description_file:=/path/to/robot.urdf

Arguments:
    description_file      file in any format robot_formats reads (default: the bundled arm)
    frame_prefix          prepended literally to every TF frame id (default: '')
    publish_joint_states  publish the current configuration on joint_states (default: true)
    fixed_frame           rviz2's fixed frame: the robot's root link (default: base_link, the
                          bundled arm's; HRDF kits: world; add frame_prefix if you set one)
    rviz                  start rviz2 (default: true)
    rviz_config           rviz2 configuration (default: config/display.rviz)

The same node and parameter file run without launch_ros via
``robot-formats bringup config/demo.yaml`` (see docs/bringup.md).
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
        DeclareLaunchArgument('description_file', default_value=PathJoinSubstitution(
            [share, 'examples', 'urdf', 'arm_with_gripper.urdf'])),
        DeclareLaunchArgument('frame_prefix', default_value=''),
        DeclareLaunchArgument('publish_joint_states', default_value='true'),
        DeclareLaunchArgument('fixed_frame', default_value='base_link'),
        DeclareLaunchArgument('rviz', default_value='true'),
        DeclareLaunchArgument('rviz_config', default_value=PathJoinSubstitution(
            [share, 'config', 'display.rviz'])),
    ]
    description_publisher = Node(
        package='robot_formats', executable='description_publisher',
        name='description_publisher', output='screen',
        parameters=[
            PathJoinSubstitution([share, 'config', 'description_publisher.yaml']),
            {
                'description_file': LaunchConfiguration('description_file'),
                'frame_prefix': ParameterValue(LaunchConfiguration('frame_prefix'), value_type=str),
                'publish_joint_states': ParameterValue(
                    LaunchConfiguration('publish_joint_states'), value_type=bool),
            },
        ])
    rviz = Node(
        package='rviz2', executable='rviz2', name='rviz2', output='screen',
        arguments=['-d', LaunchConfiguration('rviz_config'),
                   '-f', LaunchConfiguration('fixed_frame')],
        condition=IfCondition(LaunchConfiguration('rviz')))
    return LaunchDescription([*arguments, description_publisher, rviz])
