"""Show any robot_formats file in rviz2: description_publisher + rviz2.

    ros2 launch robot_formats display.launch.py description_file:=/path/to/robot.urdf
    ros2 launch robot_formats display.launch.py --show-args     # every argument, described

description_publisher serves the file (URDF, SDFormat, HRDF, SKEL, xacro) as robot_description
and TF, like robot_state_publisher. With ``namespace:=left``, robot_description and
joint_states move to /left/...; TF stays on /tf, so give a second robot a ``frame_prefix``.
Without rviz2 (``rviz:=false``) the node runs alone, for any other TF client.
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
        DeclareLaunchArgument(
            'description_file',
            default_value=PathJoinSubstitution([share, 'examples', 'urdf',
                                                'arm_with_gripper.urdf']),
            description='robot or world file in any format robot_formats reads (URDF, SDFormat, '
                        'HRDF, SKEL, xacro)'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='namespace of the nodes (robot_description, '
                                          'joint_states); TF stays on /tf'),
        DeclareLaunchArgument('frame_prefix', default_value='',
                              description='prepended literally to every TF frame id'),
        DeclareLaunchArgument('publish_joint_states', default_value='true',
                              description='publish the current configuration on joint_states '
                                          '(false when another node publishes them)'),
        DeclareLaunchArgument('fixed_frame', default_value='base_link',
                              description="rviz2's fixed frame: the robot's root link (HRDF "
                                          'kits and SKEL worlds: world; add frame_prefix if '
                                          'you set one)'),
        DeclareLaunchArgument('rviz', default_value='true', description='start rviz2'),
        DeclareLaunchArgument(
            'rviz_config', default_value=PathJoinSubstitution([share, 'config', 'display.rviz']),
            description='rviz2 configuration file'),
    ]
    description_publisher = Node(
        package='robot_formats', executable='description_publisher',
        name='description_publisher', namespace=LaunchConfiguration('namespace'), output='screen',
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
        namespace=LaunchConfiguration('namespace'),
        arguments=['-d', LaunchConfiguration('rviz_config'),
                   '-f', LaunchConfiguration('fixed_frame')],
        condition=IfCondition(LaunchConfiguration('rviz')))
    return LaunchDescription([*arguments, description_publisher, rviz])
