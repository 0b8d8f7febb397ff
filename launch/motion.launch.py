"""Preview XMDI motions on a robot in rviz2: motion_player -> joint_states -> TF.

    ros2 launch robot_formats motion.launch.py          # the bundled arm and its wave
    ros2 action send_goal /motion_player/play robot_formats_interfaces/action/PlayMotion \
        "{motion_name: wave, loop_count: 3}" --feedback

description_publisher serves the robot (robot_description, TF) and turns the joint_states that
motion_player publishes (output_mode joint_states) into TF, so rviz2 shows the motion without
any controller. To drive a simulated robot instead, use motion_sim.launch.py.
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
            default_value=PathJoinSubstitution([share, 'examples', 'urdf',
                                                'arm_with_gripper.urdf']),
            description='robot file in any format robot_formats reads'),
        DeclareLaunchArgument(
            'motion_files',
            default_value=PathJoinSubstitution([share, 'examples', 'xmdi', 'arm_wave.xmdi']),
            description='XMDI file, or folder of .xmdi files'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='namespace of the nodes (a second robot); TF stays '
                                          'on /tf'),
        DeclareLaunchArgument('servo_map', default_value='',
                              description="servo -> joint mapping YAML ('' = the servos are "
                                          'joint names)'),
        DeclareLaunchArgument('frame_period', default_value='0.032',
                              description='seconds per XMDI key frame'),
        DeclareLaunchArgument('interpolation', default_value='linear',
                              description='linear (as Webots) or cubic'),
        DeclareLaunchArgument('stream_rate', default_value='100.0',
                              description='Hz of the published joint_states while playing'),
        DeclareLaunchArgument('fixed_frame', default_value='base_link',
                              description="rviz2's fixed frame: the robot's root link"),
        *launch_support.rviz_arguments(share, 'motion.rviz'),
    ]
    namespace = LaunchConfiguration('namespace')
    description_publisher = Node(
        package='robot_formats', executable='description_publisher',
        name='description_publisher', namespace=namespace, output='screen',
        parameters=[
            PathJoinSubstitution([share, 'config', 'description_publisher.yaml']),
            {
                'description_file': LaunchConfiguration('description_file'),
                # motion_player publishes the joint states; this node only turns them into TF
                'publish_joint_states': False,
            },
        ])
    motion_player = Node(
        package='robot_formats', executable='motion_player', name='motion_player',
        namespace=namespace, output='screen',
        parameters=[{
            # a list of one path (a file or a folder of .xmdi files): motion_files is string[]
            'motion_files': [[LaunchConfiguration('motion_files')]],
            'servo_map': ParameterValue(LaunchConfiguration('servo_map'), value_type=str),
            'frame_period': ParameterValue(LaunchConfiguration('frame_period'), value_type=float),
            'interpolation': LaunchConfiguration('interpolation'),
            'output_mode': 'joint_states',
            'stream_rate': ParameterValue(LaunchConfiguration('stream_rate'), value_type=float),
        }])
    return launch_support.launch_description(__file__, arguments, [
        launch_support.rviz('namespace', fixed_frame='fixed_frame'),
        description_publisher, motion_player,
    ])
