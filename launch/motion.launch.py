"""Preview XMDI motions on a robot in rviz2: motion_player -> joint_states -> TF (ROS installs).

    ros2 launch robot_formats motion.launch.py          # the bundled arm and its wave
    ros2 action send_goal /motion_player/play robot_formats_interfaces/action/PlayMotion \
        "{motion_name: wave, loop_count: 3}" --feedback

description_publisher serves the robot (robot_description, TF) and turns the joint_states that
motion_player publishes (output_mode joint_states) into TF, so rviz2 shows the motion without
any controller. To drive a simulated robot instead, use motion_sim.launch.py.

Arguments:
    description_file      robot file in any format robot_formats reads
                          (default: examples/urdf/arm_with_gripper.urdf)
    motion_files          XMDI file or directory of .xmdi files
                          (default: examples/xmdi/arm_wave.xmdi)
    servo_map             servo -> joint mapping YAML (default: '' = servos are joint names)
    frame_period          seconds per XMDI key frame (default: 0.032)
    interpolation         linear (as Webots) or cubic (default: linear)
    stream_rate           Hz of the published joint_states while playing (default: 100.0)
    fixed_frame           rviz2's fixed frame: the robot's root link (default: base_link)
    rviz                  start rviz2 (default: true)
    rviz_config           rviz2 configuration (default: config/motion.rviz)

Without launch_ros, ``robot-formats bringup config/motion_bringup.yaml`` runs the same nodes
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
        DeclareLaunchArgument('description_file', default_value=PathJoinSubstitution(
            [share, 'examples', 'urdf', 'arm_with_gripper.urdf'])),
        DeclareLaunchArgument('motion_files', default_value=PathJoinSubstitution(
            [share, 'examples', 'xmdi', 'arm_wave.xmdi'])),
        DeclareLaunchArgument('servo_map', default_value=''),
        DeclareLaunchArgument('frame_period', default_value='0.032'),
        DeclareLaunchArgument('interpolation', default_value='linear'),
        DeclareLaunchArgument('stream_rate', default_value='100.0'),
        DeclareLaunchArgument('fixed_frame', default_value='base_link'),
        DeclareLaunchArgument('rviz', default_value='true'),
        DeclareLaunchArgument('rviz_config', default_value=PathJoinSubstitution(
            [share, 'config', 'motion.rviz'])),
    ]
    description_publisher = Node(
        package='robot_formats', executable='description_publisher',
        name='description_publisher', output='screen',
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
        output='screen',
        parameters=[{
            # a list of one path (a file or a folder of .xmdi files): motion_files is string[]
            'motion_files': [[LaunchConfiguration('motion_files')]],
            'servo_map': ParameterValue(LaunchConfiguration('servo_map'), value_type=str),
            'frame_period': ParameterValue(LaunchConfiguration('frame_period'), value_type=float),
            'interpolation': LaunchConfiguration('interpolation'),
            'output_mode': 'joint_states',
            'stream_rate': ParameterValue(LaunchConfiguration('stream_rate'), value_type=float),
        }])
    rviz = Node(
        package='rviz2', executable='rviz2', name='rviz2', output='screen',
        arguments=['-d', LaunchConfiguration('rviz_config'),
                   '-f', LaunchConfiguration('fixed_frame')],
        condition=IfCondition(LaunchConfiguration('rviz')))
    return LaunchDescription([*arguments, description_publisher, motion_player, rviz])
