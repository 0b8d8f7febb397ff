"""Show any robot_formats file in rviz2: description_publisher + rviz2.

    ros2 launch robot_formats display.launch.py description_file:=/path/to/robot.urdf
    ros2 launch robot_formats display.launch.py model:=examples/hrdf/hebi_arm.hrdf gui:=true
    ros2 launch robot_formats display.launch.py --show-args     # every argument, described

description_publisher serves the file (URDF, SDFormat, HRDF, SKEL, xacro) as robot_description
and TF, like robot_state_publisher. urdf_tutorial's (``model``, ``gui``, ``rvizconfig``) and
urdf_launch's (``urdf_package`` + ``urdf_package_path``, ``jsp_gui``, ``rviz_config``) argument
names work too. With ``namespace:=left``, robot_description and joint_states move to /left/...;
TF stays on /tf, so give a second robot a ``frame_prefix``; rviz2 gets a configuration that
follows both. Without rviz2 (``rviz:=false``, or not installed) the node runs alone, for any
other TF client.
"""

from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

from robot_formats.nodes import launch_support
from robot_formats.nodes.launch_support import Alias

IN_PACKAGE = ("a path relative to urdf_package's share directory (robot_formats unless set), "
              'or absolute')
ALIASES = [
    Alias('model', 'description_file', "urdf_tutorial's", IN_PACKAGE, 'urdf_package'),
    Alias('urdf_package_path', 'description_file', "urdf_launch's", IN_PACKAGE, 'urdf_package'),
    Alias('jsp_gui', 'gui', "urdf_launch's", 'true starts joint_state_publisher_gui'),
    Alias('rvizconfig', 'rviz_config', "urdf_tutorial's", 'rviz2 configuration file'),
]


def generate_launch_description():
    share = FindPackageShare('robot_formats')
    arguments = [
        DeclareLaunchArgument(
            'description_file',
            default_value=PathJoinSubstitution([share, 'examples', 'urdf',
                                                'arm_with_gripper.urdf']),
            description='robot or world file in any format robot_formats reads (URDF, SDFormat, '
                        'HRDF, SKEL, xacro)'),
        DeclareLaunchArgument('urdf_package', default_value='robot_formats',
                              description='the package model and urdf_package_path are '
                                          'relative to (urdf_launch)'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='namespace of the nodes (robot_description, '
                                          'joint_states); TF stays on /tf'),
        DeclareLaunchArgument('frame_prefix', default_value='',
                              description='prepended literally to every TF frame id'),
        DeclareLaunchArgument('publish_joint_states', default_value='true',
                              description='publish the current configuration on joint_states '
                                          '(false when another node publishes them)'),
        DeclareLaunchArgument('gui', default_value='false',
                              description='start joint_state_publisher_gui (when installed), '
                                          'which then publishes the joint states instead of '
                                          'description_publisher'),
        DeclareLaunchArgument('fixed_frame', default_value='base_link',
                              description="rviz2's fixed frame without frame_prefix: the "
                                          "robot's root link (HRDF kits and SKEL worlds: "
                                          'world)'),
        *launch_support.rviz_arguments(share, 'display.rviz'),
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
    return launch_support.launch_description(__file__, arguments, [
        launch_support.rviz('namespace', 'frame_prefix', 'fixed_frame'),
        launch_support.joint_state_gui('namespace'),
        description_publisher,
    ], ALIASES)
