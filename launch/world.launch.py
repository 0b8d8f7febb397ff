"""Show a world (SDFormat world, SKEL world, any multi-model document) in rviz2.

    ros2 launch robot_formats world.launch.py                      # the bundled workcell
    ros2 launch robot_formats world.launch.py description_file:=/path/to/world.sdf

description_publisher serves the whole world as one URDF tree rooted at ``world``: every model,
nested models flattened with scoped names (``model::link``), on robot_description and TF.
``--show-args`` lists the arguments with their descriptions.
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
            default_value=PathJoinSubstitution([share, 'examples', 'sdf', 'workcell.sdf']),
            description='world file in any format robot_formats reads (default: two URDF arms '
                        'on a table in SDFormat)'),
        DeclareLaunchArgument('world', default_value='',
                              description='the world to load from an SDFormat file holding '
                                          'several (empty: the first, with a warning)'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='namespace of the nodes (robot_description, '
                                          'joint_states); TF stays on /tf'),
        DeclareLaunchArgument('frame_prefix', default_value='',
                              description='prepended literally to every TF frame id'),
        DeclareLaunchArgument('publish_joint_states', default_value='true',
                              description='publish the current configuration on joint_states'),
        DeclareLaunchArgument('fixed_frame', default_value='world',
                              description="rviz2's fixed frame (add frame_prefix if you set one)"),
        DeclareLaunchArgument('rviz', default_value='true', description='start rviz2'),
        DeclareLaunchArgument(
            'rviz_config', default_value=PathJoinSubstitution([share, 'config', 'world.rviz']),
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
                'world': ParameterValue(LaunchConfiguration('world'), value_type=str),
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
