"""Play XMDI motions to a simulated robot: motion_player -> sim_controller (MuJoCo) (ROS installs).

    ros2 launch robot_formats motion_sim.launch.py     # the bundled arm and its wave
    ros2 action send_goal /motion_player/play robot_formats_interfaces/action/PlayMotion \
        "{motion_name: wave}" --feedback

sim_controller simulates the robot from robot_description in MuJoCo and offers
joint_trajectory_controller's topic and FollowJointTrajectory action and
forward_command_controller's topic, as a ros2_control robot would; motion_player plays motions
to it exactly as it would to real controllers (docs/controllers.md); description_publisher turns
the simulated joint_states into TF for rviz2.

Arguments:
    description_file      robot file in any format robot_formats reads
                          (default: examples/urdf/arm_with_gripper.urdf)
    motion_files          XMDI file or directory of .xmdi files
                          (default: examples/xmdi/arm_wave.xmdi)
    servo_map             servo -> joint mapping YAML (default: '' = servos are joint names)
    output_mode           how motion_player sends motions: action (FollowJointTrajectory),
                          trajectory (JointTrajectory topic) or stream (set controller to
                          forward_position_controller) (default: action)
    controller            the controller motion_player talks to
                          (default: joint_trajectory_controller)
    sim_mode              servo (MuJoCo position actuators) or kinematic (exact) (default: servo)
    fixed_frame           rviz2's fixed frame: the robot's root link (default: base_link)
    rviz                  start rviz2 (default: true)
    rviz_config           rviz2 configuration (default: config/motion.rviz)

Without launch_ros, ``robot-formats bringup config/motion_sim_bringup.yaml`` runs the same
nodes (see docs/bringup.md).
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
        DeclareLaunchArgument('output_mode', default_value='action'),
        DeclareLaunchArgument('controller', default_value='joint_trajectory_controller'),
        DeclareLaunchArgument('sim_mode', default_value='servo'),
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
                # sim_controller publishes the joint states; this node only turns them into TF
                'publish_joint_states': False,
            },
        ])
    sim_controller = Node(
        package='robot_formats', executable='sim_controller', name='sim_controller',
        output='screen',
        parameters=[{
            'mode': LaunchConfiguration('sim_mode'),
            'trajectory_controller': 'joint_trajectory_controller',
            'forward_controller': 'forward_position_controller',
            # a motion drives only some joints (the wave leaves the gripper alone): others hold
            'allow_partial_joints_goal': True,
        }])
    motion_player = Node(
        package='robot_formats', executable='motion_player', name='motion_player',
        output='screen',
        parameters=[{
            # a list of one path (a file or a folder of .xmdi files): motion_files is string[]
            'motion_files': [[LaunchConfiguration('motion_files')]],
            'servo_map': ParameterValue(LaunchConfiguration('servo_map'), value_type=str),
            'output_mode': LaunchConfiguration('output_mode'),
            'controller': LaunchConfiguration('controller'),
        }])
    rviz = Node(
        package='rviz2', executable='rviz2', name='rviz2', output='screen',
        arguments=['-d', LaunchConfiguration('rviz_config'),
                   '-f', LaunchConfiguration('fixed_frame')],
        condition=IfCondition(LaunchConfiguration('rviz')))
    return LaunchDescription([*arguments, description_publisher, sim_controller, motion_player,
                              rviz])
