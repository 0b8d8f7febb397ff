"""One pick and place: problem_server follows a simulated arm that motion_player drives.

    ros2 launch robot_formats pick_and_place.launch.py        # then, in a sourced shell:
    python examples/tmp/pick_and_place.py                      # asks, plays, attaches, places

* problem_server serves the problem (default: examples/tmp/pick_and_place.xml) and follows the
  robot: it turns ``/<robot>/joint_states`` into the robot's TF (frames ``<robot>/<link>``,
  one /tf message per joint state), keeps every object on TF under whatever carries it, and
  answers the planning services under ``/problem_server/`` (docs/guide-planner.md);
* sim_controller simulates ``<robot>`` in MuJoCo from problem_server's
  ``/<robot>/robot_description`` behind joint_trajectory_controller's interfaces, publishing
  ``/<robot>/joint_states``;
* motion_player plays the bundled motions (examples/xmdi/pick_and_place.xmdi: approach,
  transport, retreat) to it: ``/<robot>/motion_player/play``;
* rviz2 shows the arm, the objects and the grasps asked for (config/pick_and_place.rviz).

``--show-args`` lists the arguments.
"""

from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

from robot_formats.nodes import launch_support


def generate_launch_description():
    share = FindPackageShare('robot_formats')
    robot = LaunchConfiguration('robot')
    arguments = [
        DeclareLaunchArgument(
            'problem_file',
            default_value=PathJoinSubstitution([share, 'examples', 'tmp', 'pick_and_place.xml']),
            description='TMP problem XML'),
        DeclareLaunchArgument(
            'robot', default_value='arm',
            description="the problem's robot to simulate and drive: the namespace of "
                        'sim_controller and motion_player, so that they use '
                        '/<robot>/robot_description and /<robot>/joint_states as problem_server '
                        'does'),
        DeclareLaunchArgument(
            'motion_files',
            default_value=PathJoinSubstitution([share, 'examples', 'xmdi',
                                                'pick_and_place.xmdi']),
            description="XMDI file (or folder of .xmdi files) of the robot's motions"),
        DeclareLaunchArgument('sim_mode', default_value='servo',
                              description='servo (MuJoCo position actuators) or kinematic '
                                          '(exact)'),
        DeclareLaunchArgument('publish_frequency', default_value='0.0',
                              description="problem_server's rate cap (Hz) of the robot's /tf; "
                                          '0: one /tf message per joint_states message'),
        *launch_support.rviz_arguments(share, 'pick_and_place.rviz'),
    ]
    problem_server = Node(
        package='robot_formats', executable='problem_server', name='problem_server',
        output='screen',
        parameters=[{
            'problem_file': LaunchConfiguration('problem_file'),
            'publish_frequency': ParameterValue(LaunchConfiguration('publish_frequency'),
                                                value_type=float),
            # sim_controller publishes its joint states reliably: take every one of them
            'joint_states_qos': 'reliable',
        }])
    sim_controller = Node(
        package='robot_formats', executable='sim_controller', name='sim_controller',
        namespace=robot, output='screen',
        parameters=[{
            'mode': LaunchConfiguration('sim_mode'),
            'trajectory_controller': 'joint_trajectory_controller',
            'forward_controller': 'forward_position_controller',
            'allow_partial_joints_goal': True,
        }])
    motion_player = Node(
        package='robot_formats', executable='motion_player', name='motion_player',
        namespace=robot, output='screen',
        parameters=[{
            # a list of one path (a file or a folder of .xmdi files): motion_files is string[]
            'motion_files': [[LaunchConfiguration('motion_files')]],
            'output_mode': 'action',
            'controller': 'joint_trajectory_controller',
        }])
    return launch_support.launch_description(__file__, arguments, [
        launch_support.rviz(),
        problem_server, sim_controller, motion_player,
    ])
