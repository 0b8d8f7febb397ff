"""Show a world (SDFormat world, SKEL world, any multi-model document) in rviz2.

    ros2 launch robot_formats world.launch.py                      # the bundled workcell
    ros2 launch robot_formats world.launch.py description_file:=/path/to/world.sdf

description_publisher serves the whole world as one URDF tree rooted at ``world``: every model,
nested models flattened with scoped names (``model::link``), on robot_description and TF.
``--show-args`` lists the arguments with their descriptions.
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
                              description="rviz2's fixed frame without frame_prefix"),
        *launch_support.rviz_arguments(share, 'world.rviz'),
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
    return launch_support.launch_description(__file__, arguments, [
        launch_support.rviz('namespace', 'frame_prefix', 'fixed_frame'),
        description_publisher,
    ])
