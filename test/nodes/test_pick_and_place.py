"""One pick and place, end to end, as a user runs it: ``ros2 launch robot_formats
pick_and_place.launch.py rviz:=false`` (problem_server, sim_controller, motion_player) on a
private domain, and the planner script ``python examples/tmp/pick_and_place.py`` beside it
(get_grasps, play approach, attach, play transport, detach, play retreat).

The test watches as any other ROS node would — a joint_states subscriber, a tf2_ros Buffer,
``~/scene`` and the services — and checks, with the arm's forward kinematics written in closed
form (pick_place_reference.py):

* at every joint state the simulator publishes, TF has the gripper at FK(q) (1e-6: problem_server
  turns the simulated joints into TF); while the block is attached, its TF pose is FK(q) × the
  grasp fixed at attach (1e-6), and after detach it stays where it was left (1e-9) while the arm
  moves away;
* the block ends on a stable placement of stand_b as get_placements and get_object define it,
  and where the plan puts it, within what MuJoCo's position servos settle to (SETTLE_TOL,
  measured in test_motion_sim.py) carried through the arm's lever arms;
* the nodes, their parameters and interfaces are up as the launch file says, every topic of
  config/pick_and_place.rviz has a publisher, and Ctrl-C ends the launch cleanly.
"""

from __future__ import annotations

import numpy as np
import rclpy.time
from rclpy.duration import Duration
from robot_formats_interfaces.msg import Scene
from robot_formats_interfaces.srv import GetObject, GetPlacements
from sensor_msgs.msg import JointState
from tf2_ros import Buffer, TransformListener

from .harness import DESCRIPTION_QOS, NodeProcess, transform_matrix
from .pick_place_reference import (ARM_BASE, BLOCK, HAND, JOINTS, PROBLEM, Q_PICK, Q_PLACE,
                                   SCRIPT, arm_frames, arm_tool, largest, placement_violation,
                                   pose_matrix)
from .test_launch_files import (FOLLOW, JOINT_STATE, SHARE, STRING, TRAJECTORY, Expected,
                                LaunchRun, check_nodes, check_rviz_config, motion_player,
                                problem_server)
from .test_motion_sim import SETTLE_TOL

#: TF computed by problem_server from the joint state it came with.
EXACT = 1e-6
#: A frozen (static) pose.
SAME = 1e-9
#: The play takes 3 motions of ~3.3 s, and settling, on a machine shared with other work.
SCRIPT_TIMEOUT = 240.0


def lever_arm_tolerance(q) -> tuple[float, float]:
    """(metres, radians) the block may be off the plan when each arm joint is within SETTLE_TOL
    of its target: SETTLE_TOL × the distance from each joint to the block, summed over the four
    arm joints, and SETTLE_TOL per joint for the orientation."""
    frames = arm_frames(q, ARM_BASE)
    block = frames[-1][:3, 3]
    levers = [float(np.linalg.norm(block - joint[:3, 3])) for joint in frames[:4]]
    return SETTLE_TOL * sum(levers), 4 * SETTLE_TOL


class Watcher:
    """Checks every joint state the simulator publishes against TF, as soon as TF has it."""

    def __init__(self, run: LaunchRun) -> None:
        self.run, self.side = run, run.side
        self.buffer = Buffer(cache_time=Duration(seconds=300))
        self.listener = TransformListener(self.buffer, self.side.node)
        self.states = self.side.subscribe(JointState, '/arm/joint_states', 200)
        self.scenes = self.side.subscribe(Scene, '/problem_server/scene', DESCRIPTION_QOS)
        self.next = 0
        self.attached_checks = self.frozen_checks = self.unclassified = 0
        self.frozen: np.ndarray | None = None
        self.farthest = 0.0  # how far the gripper went from the frozen block

    def step(self) -> None:
        """Check the joint states whose transforms have arrived, in order."""
        while self.next < len(self.states):
            msg = self.states.messages[self.next]
            stamp = rclpy.time.Time.from_msg(msg.header.stamp)
            if not (self.buffer.can_transform('world', HAND, stamp)
                    and self.buffer.can_transform('world', 'block', stamp)):
                return
            self.check(msg, stamp)
            self.next += 1

    def check(self, msg: JointState, stamp) -> None:
        values = dict(zip(msg.name, msg.position))
        q = [values[j] for j in JOINTS]
        hand = self.lookup('world', HAND, stamp)
        assert largest(hand, arm_tool(q, ARM_BASE)) < EXACT, 'the gripper is not at FK(q) on TF'
        if not len(self.scenes):
            self.unclassified += 1
            return
        block = next(o for o in self.scenes.last.objects if o.name == 'block')
        world = self.lookup('world', 'block', stamp)
        if block.parent == HAND and largest(self.lookup(HAND, 'block', rclpy.time.Time()),
                                            pose_matrix(block.pose_in_parent)) < SAME:
            assert largest(world, arm_tool(q, ARM_BASE) @ pose_matrix(block.pose_in_parent)) \
                < EXACT, 'the attached block is not at FK(q) x grasp on TF'
            self.attached_checks += 1
        elif block.parent == 'world' and self.attached_checks and \
                largest(self.lookup('world', 'block', rclpy.time.Time()),
                        pose_matrix(block.pose)) < SAME:
            self.frozen = pose_matrix(block.pose)
            assert largest(world, self.frozen) < SAME, 'the detached block moved'
            self.farthest = max(self.farthest,
                                float(np.linalg.norm(hand[:3, 3] - self.frozen[:3, 3])))
            self.frozen_checks += 1
        else:
            self.unclassified += 1  # before the pick, or between a change and its scene

    def lookup(self, target: str, source: str, stamp) -> np.ndarray:
        return transform_matrix(self.buffer.lookup_transform(target, source, stamp).transform)


def test_the_launched_pick_and_place_puts_the_block_on_a_stable_placement(launcher):
    run = LaunchRun(launcher, 'pick_and_place.launch.py', {}, 'pick_and_place')
    problem = SHARE / 'examples' / 'tmp' / 'pick_and_place.xml'
    motions = SHARE / 'examples' / 'xmdi' / 'pick_and_place.xmdi'
    server = problem_server(problem_file=str(problem), publish_frequency=0.0,
                            joint_states_qos='reliable')
    server.publishes.update({'/problem_server/scene': 'robot_formats_interfaces/msg/Scene',
                             '/arm/robot_description': STRING})
    server.subscribes['/arm/joint_states'] = JOINT_STATE
    jtc = '/arm/joint_trajectory_controller'
    check_nodes(run, [
        server,
        Expected('sim_controller', '/arm', {'mode': 'servo', 'allow_partial_joints_goal': True},
                 publishes={'/arm/joint_states': JOINT_STATE},
                 subscribes={'/arm/robot_description': STRING,
                             f'{jtc}/joint_trajectory': TRAJECTORY},
                 action_servers={f'{jtc}/follow_joint_trajectory': FOLLOW}),
        motion_player('/arm', {}, {f'{jtc}/follow_joint_trajectory': FOLLOW},
                      motion_files=[str(motions)], output_mode='action'),
    ])
    check_rviz_config(run, 'pick_and_place.rviz')
    assert problem.read_bytes() == PROBLEM.read_bytes()

    watcher = Watcher(run)
    script = NodeProcess([str(SCRIPT)], run.process.domain_id, run.process.log_path.parent,
                         'pick_and_place_script')
    launcher.processes.append(script)
    run.side.spin_until(lambda: (watcher.step(), not script.alive())[1],
                        timeout=SCRIPT_TIMEOUT, what='the pick-and-place script to finish',
                        process=run.process)
    assert script.proc.returncode == 0, script.describe()
    assert 'pick_and_place: OK' in script.log(), script.describe()
    run.side.spin_until(lambda: (watcher.step(), watcher.next == len(watcher.states))[1],
                        what='TF of every joint state', process=run.process)
    # transport ~3.5 s and retreat ~3.2 s of 50 Hz joint states, each checked on TF
    assert watcher.attached_checks >= 100, vars(watcher)
    assert watcher.frozen_checks >= 100 and watcher.farthest > 0.2, vars(watcher)

    # where the block ended: on stand_b, as get_placements and get_object define its placements
    placed = watcher.lookup('world', 'block', rclpy.time.Time())
    side = run.side
    placements = side.call(side.node.create_client(GetPlacements,
                                                   '/problem_server/get_placements'),
                           GetPlacements.Request(object='block', support='stand_b', samples=8))
    stand = side.call(side.node.create_client(GetObject, '/problem_server/get_object'),
                      GetObject.Request(name='stand_b'))
    assert placements.success and stand.success
    metres, radians = lever_arm_tolerance(Q_PLACE)
    outside, tilt = placement_violation(placed, placements.placements, stand.object)
    assert outside <= metres and tilt <= radians, (outside, tilt, metres, radians)
    # and where the plan puts it: the grasp at the pick configuration carried to the place
    planned = arm_tool(Q_PLACE, ARM_BASE) @ np.linalg.inv(arm_tool(Q_PICK, ARM_BASE)) @ BLOCK
    pick_metres, _ = lever_arm_tolerance(Q_PICK)
    assert float(np.linalg.norm(placed[:3, 3] - planned[:3, 3])) <= metres + pick_metres
    run.interrupt()
