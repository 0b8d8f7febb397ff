"""Play XMDI motions to a simulated robot: motion_player -> sim_controller (MuJoCo), and record
what the robot did with motion_recorder.

    ros2 launch robot_formats motion_sim.launch.py     # the bundled arm and its wave
    ros2 action send_goal /motion_player/play robot_formats_interfaces/action/PlayMotion \
        "{motion_name: wave}" --feedback
    ros2 service call /motion_recorder/start std_srvs/srv/Trigger
    ros2 service call /motion_recorder/stop robot_formats_interfaces/srv/StopRecording \
        "{output_file: /tmp/recorded.xmdi}"

sim_controller simulates the robot from robot_description in MuJoCo and offers
joint_trajectory_controller's topic and FollowJointTrajectory action and
forward_command_controller's topic, as a ros2_control robot would; motion_player plays motions
to it exactly as it would to real controllers (docs/controllers.md); description_publisher turns
the simulated joint_states into TF for rviz2; motion_recorder records the simulated joint_states
between its ~/start and ~/stop calls into an XMDI file, servos named through the same servo_map
(it records nothing until ~/start). ``--show-args`` lists the arguments.
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
                              description='namespace of the nodes and controllers (a second '
                                          'robot); TF stays on /tf'),
        DeclareLaunchArgument('servo_map', default_value='',
                              description="servo -> joint mapping YAML of motion_player and "
                                          "motion_recorder ('' = the servos are joint names)"),
        DeclareLaunchArgument('output_mode', default_value='action',
                              description='how motion_player sends motions: action '
                                          '(FollowJointTrajectory), trajectory (JointTrajectory '
                                          'topic) or stream (with '
                                          'controller:=forward_position_controller)'),
        DeclareLaunchArgument('controller', default_value='joint_trajectory_controller',
                              description='the controller motion_player talks to'),
        DeclareLaunchArgument('sim_mode', default_value='servo',
                              description='servo (MuJoCo position actuators) or kinematic '
                                          '(exact)'),
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
                # sim_controller publishes the joint states; this node only turns them into TF
                'publish_joint_states': False,
            },
        ])
    sim_controller = Node(
        package='robot_formats', executable='sim_controller', name='sim_controller',
        namespace=namespace, output='screen',
        parameters=[{
            'mode': LaunchConfiguration('sim_mode'),
            'trajectory_controller': 'joint_trajectory_controller',
            'forward_controller': 'forward_position_controller',
            # a motion drives only some joints (the wave leaves the gripper alone): others hold
            'allow_partial_joints_goal': True,
        }])
    motion_player = Node(
        package='robot_formats', executable='motion_player', name='motion_player',
        namespace=namespace, output='screen',
        parameters=[{
            # a list of one path (a file or a folder of .xmdi files): motion_files is string[]
            'motion_files': [[LaunchConfiguration('motion_files')]],
            'servo_map': ParameterValue(LaunchConfiguration('servo_map'), value_type=str),
            'output_mode': LaunchConfiguration('output_mode'),
            'controller': LaunchConfiguration('controller'),
        }])
    # records joint_states between ~/start and ~/stop (nothing before ~/start), written as the
    # servos of the same map the player uses, so the player can replay the recording
    motion_recorder = Node(
        package='robot_formats', executable='motion_recorder', name='motion_recorder',
        namespace=namespace, output='screen',
        parameters=[{
            'source': 'joint_states',
            'servo_map': ParameterValue(LaunchConfiguration('servo_map'), value_type=str),
        }])
    return launch_support.launch_description(__file__, arguments, [
        launch_support.rviz('namespace', fixed_frame='fixed_frame'),
        description_publisher, sim_controller, motion_player, motion_recorder,
    ])
