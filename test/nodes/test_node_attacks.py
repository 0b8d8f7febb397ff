"""The nodes under attack (issue 27, class 4): hostile goals, descriptions, problems and
requests from any DDS peer. Each node runs as users start it (``ros2 run robot_formats NODE``),
must stay alive, answer every request (a normal one succeeds afterwards), and exit 0 on SIGINT.

* motion_player: goals asking for unbounded work (``loop_count = 2**32 - 1``, ``speed_factor =
  1e-300``, more trajectory points than one trajectory holds) are aborted with INVALID_GOAL and
  the reason, with bounded memory; a burst of 100 goals gets an answer for every goal; a
  controller killed (SIGKILL) mid-motion ends the play with CONTROLLER_ERROR, and the next goal
  plays on a new controller; after a controller restart (SIGINT or SIGKILL between two plays)
  the first goal sent plays on the new controller.
* sim_controller: a goal or command to 1e308 is refused; a 10,000-joint URDF on
  robot_description is refused while joint_states go on and the old robot keeps working; a
  simulation that MuJoCo finds unstable aborts the goal with the reason; SIGINT while a model
  is being built ends the node.
* problem_server: a problem naming itself as its robot is reported and every service answers.
* motion_recorder: ``~/stop`` output files that leave ``output_directory`` are refused and
  nothing is written outside; ``robot-formats record`` onto an existing file with a full disk
  (RLIMIT_FSIZE) leaves the old file whole.

Time limits in the checks are the nodes' documented promises with generous margins
(docs/nodes.md, "Limits under attack"); every wait is a readiness wait with a deadline.
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import sys
from pathlib import Path

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from control_msgs.action import FollowJointTrajectory
from rclpy.action import ActionClient
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from robot_formats_interfaces.action import PlayMotion
from robot_formats_interfaces.srv import GetProblem, ListObjects, StopRecording
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from .harness import ARM, DESCRIPTION_QOS, ROOT, TIMEOUT, NodeProcess, RosSide
from .test_motion_player import xmdi_text

sys.path.insert(0, str(ROOT / 'test' / 'core'))
from rf_testlib import chain_urdf  # noqa: E402

PERIOD = 0.01
Result = PlayMotion.Result
JOINTS = ['shoulder_pan', 'shoulder_lift', 'elbow', 'wrist_roll', 'finger_left']
#: SIGINT ends every node within 5 s (docs/nodes.md); the checks allow three times that.
STOP_WITHIN = 15.0
#: motion_player's controller_timeout (its default): a vanished controller is reported at most
#: this long after the trajectory's end.
CONTROLLER_TIMEOUT = 5.0
#: A node's memory may grow by this much while it refuses hostile input (the attacks of the
#: issue grew it by gigabytes).
MEMORY_SLACK_MIB = 150
#: name -> {servo: (positions, frames)}; within the bundled arm's limits (2 rad/s, +-2.5 rad)
MOTIONS = {
    'wave': {'shoulder_pan': ([0.0, 0.1, 0.0], [0, 20, 40])},
    'long': {'shoulder_pan': ([0.0, 1.0, 0.0], [0, 300, 600]),
             'elbow': ([0.0, -0.8, 0.0], [0, 300, 600])},
}
#: Goals a burst sends at once (the issue's attack: 11 of 100 were answered in a minute).
BURST = 100


def ros2_run(executable: str, *parameters: str) -> list[str]:
    """The command line ``ros2 run robot_formats EXECUTABLE --ros-args -p ...``."""
    ros2 = shutil.which('ros2')
    assert ros2, 'ros2 is not on PATH: source tools/env.sh after `make build`'
    args = [ros2, 'run', 'robot_formats', executable, '--ros-args']
    for parameter in parameters:
        args += ['-p', parameter]
    return args


def start(launcher, domain: int, name: str, args: list[str]) -> NodeProcess:
    process = NodeProcess(args, domain, launcher.log_dir, name)
    launcher.processes.append(process)
    return process


def node_rss_mib(process: NodeProcess) -> float:
    """Resident memory of the node ``ros2 run`` started (its child process), MiB."""
    children = Path(f'/proc/{process.proc.pid}/task/{process.proc.pid}/children').read_text()
    pid = int(children.split()[0]) if children.split() else process.proc.pid
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024
    raise AssertionError('no VmRSS')


def assert_stops_on_sigint(process: NodeProcess) -> None:
    code = process.interrupt(timeout=STOP_WITHIN)
    assert code == 0, f'exit {code} after SIGINT; ' + process.describe()
    assert 'Traceback' not in process.log(), process.describe()


def wait_result(side: RosSide, handle, process: NodeProcess, timeout: float = TIMEOUT):
    future = handle.get_result_async()
    side.spin_until(future.done, timeout, 'the result', process)
    return future.result()


#: An action client that keeps a burst's answers (ROS' default history of 10 would drop them
#: on this side too).
DEEP = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1000,
                  reliability=ReliabilityPolicy.RELIABLE)


def play_client(node, name: str = 'motion_player') -> ActionClient:
    return ActionClient(node, PlayMotion, f'{name}/play', goal_service_qos_profile=DEEP,
                        result_service_qos_profile=DEEP, cancel_service_qos_profile=DEEP)


# --- motion_player ------------------------------------------------------------------------------

class Player:
    """motion_player (``ros2 run``, trajectory mode) with the robot model published here."""

    def __init__(self, launcher, motion_file: Path) -> None:
        self.domain = launcher.allocate_domain()
        self.side = launcher.side(self.domain, 'attack_player')
        node = self.side.node
        self.trajectories = self.side.subscribe(JointTrajectory, 'arm_controller/joint_trajectory',
                                                10)
        self.client = play_client(node)
        self.process = start(launcher, self.domain, 'attacked_player', ros2_run(
            'motion_player', f'motion_files:=[{str(motion_file)!r}]',
            f'frame_period:={PERIOD}', 'controller:=arm_controller'))
        self.description = node.create_publisher(String, 'robot_description', DESCRIPTION_QOS)
        self.description.publish(String(data=ARM.read_text()))
        self.process.wait_for_log('robot model: ')
        assert self.client.wait_for_server(timeout_sec=TIMEOUT), self.process.describe()

    def send(self, motion: str, **fields):
        future = self.client.send_goal_async(PlayMotion.Goal(motion_name=motion, **fields))
        self.side.spin_until(future.done, what='the goal response', process=self.process)
        assert future.result().accepted
        return future.result()

    def play(self, motion: str, **fields):
        return wait_result(self.side, self.send(motion, **fields), self.process)


@pytest.fixture(scope='module')
def motion_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp('attack_motions') / 'motions.xmdi'
    path.write_text(xmdi_text(MOTIONS), encoding='utf-8')
    return path


@pytest.fixture(scope='module')
def player(module_launcher, motion_file) -> Player:
    return Player(module_launcher, motion_file)


@pytest.mark.parametrize('fields, words', [
    ({'loop_count': 2**32 - 1}, 'the play would last 1.76094e+09 s (4294967295 loop(s)'),
    ({'speed_factor': 1e-300}, 'the play would last 4e+299 s'),
    ({'speed_factor': math.inf}, 'speed factor inf must be a positive number'),
    ({'speed_factor': math.nan}, 'speed factor nan must be a positive number'),
    # 0.4 s loops: 150,000 of them last 17 hours, but would need 450,000 trajectory points
    ({'loop_count': 150_000}, 'more than the 100000 one trajectory may hold'),
], ids=['loops', 'tiny-speed', 'infinite-speed', 'nan-speed', 'points'])
def test_unbounded_goals_are_invalid_and_the_player_keeps_playing(player, fields, words):
    before = node_rss_mib(player.process)
    outcome = player.play('wave', **fields)
    assert outcome.status == GoalStatus.STATUS_ABORTED, outcome.result.message
    assert outcome.result.error_code == Result.INVALID_GOAL
    assert words in outcome.result.message, outcome.result.message
    assert node_rss_mib(player.process) - before < MEMORY_SLACK_MIB
    sent = len(player.trajectories)
    normal = player.play('wave')
    assert normal.status == GoalStatus.STATUS_SUCCEEDED, normal.result.message
    player.side.spin_until(lambda: len(player.trajectories) > sent, what='the trajectory',
                           process=player.process)


def test_a_burst_of_goals_gets_an_answer_for_every_goal(player):
    goals = [player.client.send_goal_async(PlayMotion.Goal(motion_name='long'))
             for _ in range(BURST)]
    player.side.spin_until(lambda: all(g.done() for g in goals), what='every goal response',
                           process=player.process)
    handles = [g.result() for g in goals]
    assert all(h.accepted for h in handles)
    results = [h.get_result_async() for h in handles]
    player.side.spin_until(lambda: sum(r.done() for r in results) >= BURST - 1,
                           what='the result of every goal but the one playing',
                           process=player.process)
    playing = [h for h, r in zip(handles, results) if not r.done()]
    assert len(playing) == 1, 'exactly one goal plays'
    refused = [r.result() for r in results if r.done()]
    for outcome in refused:
        assert outcome.status == GoalStatus.STATUS_ABORTED
        assert (outcome.result.error_code, outcome.result.message) == (
            Result.INVALID_GOAL, 'another motion is playing; cancel it first')
    cancel = playing[0].cancel_goal_async()
    player.side.spin_until(lambda: cancel.done() and all(r.done() for r in results),
                           what='the canceled play', process=player.process)
    assert results[handles.index(playing[0])].result().status == GoalStatus.STATUS_CANCELED
    normal = player.play('wave')
    assert normal.status == GoalStatus.STATUS_SUCCEEDED, normal.result.message


def test_the_player_stops_on_sigint_while_it_plays(player):
    player.send('long')
    player.process.wait_for_log("playing 'long'")
    assert_stops_on_sigint(player.process)


def start_played_controller(launcher, motion_file: Path, label: str):
    """sim_controller (kinematic, the bundled arm) and motion_player in action mode on a domain
    of their own, both ready: (side, PlayMotion client, the controller's `ros2 run` arguments,
    controller process, player process). The robot comes on robot_description, as from
    description_publisher; the motions drive some of its joints."""
    domain = launcher.allocate_domain()
    side = launcher.side(domain, label)
    client = play_client(side.node)
    sim_args = ros2_run('sim_controller', f'description_file:={ARM}', 'mode:=kinematic',
                        'allow_partial_joints_goal:=true')
    sim = start(launcher, domain, f'{label}_sim', sim_args)
    player = start(launcher, domain, f'{label}_player', ros2_run(
        'motion_player', f'motion_files:=[{str(motion_file)!r}]', f'frame_period:={PERIOD}',
        'output_mode:=action'))
    model = side.node.create_publisher(String, 'robot_description', DESCRIPTION_QOS)
    model.publish(String(data=ARM.read_text()))  # the node keeps its publisher alive
    sim.wait_for_log('ready')
    player.wait_for_log('robot model: ')
    assert client.wait_for_server(timeout_sec=TIMEOUT), player.describe()
    return side, client, sim_args, sim, player


def test_a_controller_killed_mid_motion_ends_the_play_and_the_next_goal_plays(launcher,
                                                                               motion_file):
    side, client, sim_args, sim, player = start_played_controller(launcher, motion_file,
                                                                  'killed')

    def send(motion: str, feedback=None):
        future = client.send_goal_async(PlayMotion.Goal(motion_name=motion),
                                        feedback_callback=feedback)
        side.spin_until(future.done, what='the goal response', process=player)
        return future.result()

    feedback = []
    handle = send('long', lambda msg: feedback.append(msg.feedback))
    side.spin_until(lambda: feedback and feedback[-1].progress > 0.05,
                    what='the controller moving the arm', process=player)
    os.killpg(sim.proc.pid, signal.SIGKILL)  # the controller's process dies mid-motion
    sim.proc.wait(timeout=TIMEOUT)
    duration = 6.0  # the 'long' motion
    outcome = wait_result(side, handle, player, duration + CONTROLLER_TIMEOUT + TIMEOUT)
    assert outcome.status == GoalStatus.STATUS_ABORTED
    assert outcome.result.error_code == Result.CONTROLLER_ERROR
    assert ('left the ROS graph' in outcome.result.message
            or 'no result from the controller' in outcome.result.message), outcome.result.message
    start(launcher, sim.domain_id, 'new_sim', sim_args).wait_for_log('ready')

    def played() -> bool:
        """A goal is answered; it plays once the player has discovered the new controller
        (the dead one stays on the graph until its lease ends: a goal sent there is lost)."""
        outcome = wait_result(side, send('wave'), player, CONTROLLER_TIMEOUT + TIMEOUT)
        if outcome.status != GoalStatus.STATUS_SUCCEEDED:
            assert outcome.result.error_code == Result.CONTROLLER_ERROR, outcome.result.message
        return outcome.status == GoalStatus.STATUS_SUCCEEDED
    side.spin_until(played, 3 * TIMEOUT, 'a play on the new controller', player)
    assert_stops_on_sigint(player)


@pytest.mark.parametrize('stop', ['sigint', 'sigkill'])
def test_the_first_goal_after_a_controller_restart_plays(launcher, motion_file, stop):
    """The controller (sim_controller, as any FollowJointTrajectory server) is stopped between
    two plays (SIGINT: it leaves the graph; SIGKILL: it stays on the graph until its lease
    ends, and a goal sent only there is never answered) and started again: the one goal sent
    once the new controller is ready plays on it."""
    side, client, sim_args, sim, player = start_played_controller(launcher, motion_file,
                                                                  f'restart_{stop}')

    def play():
        future = client.send_goal_async(PlayMotion.Goal(motion_name='wave'))
        side.spin_until(future.done, what='the goal response', process=player)
        assert future.result().accepted
        return wait_result(side, future.result(), player, CONTROLLER_TIMEOUT + TIMEOUT)

    first = play()
    assert first.status == GoalStatus.STATUS_SUCCEEDED, first.result.message
    if stop == 'sigint':
        assert_stops_on_sigint(sim)
    else:
        os.killpg(sim.proc.pid, signal.SIGKILL)
        sim.proc.wait(timeout=TIMEOUT)
    start(launcher, sim.domain_id, 'restarted_sim', sim_args).wait_for_log('ready')
    outcome = play()
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.message
    assert outcome.result.controller_error_code == FollowJointTrajectory.Result.SUCCESSFUL
    assert_stops_on_sigint(player)


# --- sim_controller -----------------------------------------------------------------------------

class Simulator:
    """sim_controller (``ros2 run``) fed with the bundled arm on robot_description."""

    def __init__(self, launcher, *parameters: str) -> None:
        self.domain = launcher.allocate_domain()
        self.side = launcher.side(self.domain, 'attack_sim')
        node = self.side.node
        self.states = self.side.subscribe(JointState, 'joint_states', 100)
        self.commands = node.create_publisher(Float64MultiArray,
                                              'forward_position_controller/commands', 10)
        self.client = ActionClient(node, FollowJointTrajectory,
                                   'joint_trajectory_controller/follow_joint_trajectory')
        self.description = node.create_publisher(String, 'robot_description', DESCRIPTION_QOS)
        self.description.publish(String(data=ARM.read_text()))
        self.process = start(launcher, self.domain, 'attacked_sim',
                             ros2_run('sim_controller', *parameters))
        self.process.wait_for_log('ready')
        assert self.client.wait_for_server(timeout_sec=TIMEOUT), self.process.describe()
        self.side.spin_until(lambda: self.commands.get_subscription_count() > 0,
                             what='the commands subscription', process=self.process)

    def send(self, positions, seconds: float = 0.5):
        goal = FollowJointTrajectory.Goal()
        goal.trajectory = JointTrajectory(joint_names=JOINTS, points=[JointTrajectoryPoint(
            positions=list(positions), time_from_start=_duration(seconds))])
        future = self.client.send_goal_async(goal)
        self.side.spin_until(future.done, what='the goal response', process=self.process)
        return future.result()

    def run(self, positions):
        handle = self.send(positions)
        assert handle.accepted, self.process.log()
        return wait_result(self.side, handle, self.process)

    def more_states(self, count: int = 5) -> None:
        """``count`` joint_states published after now."""
        seen = len(self.states)
        self.side.spin_until(lambda: len(self.states) >= seen + count, what='joint_states',
                             process=self.process)


def _duration(seconds: float):
    from builtin_interfaces.msg import Duration
    return Duration(sec=int(seconds), nanosec=int(round((seconds % 1) * 1e9)))


@pytest.fixture(scope='module')
def simulator(module_launcher) -> Simulator:
    return Simulator(module_launcher, 'mode:=kinematic')


def test_goals_and_commands_beyond_the_limits_are_refused(simulator):
    handle = simulator.send([0.0, 0.0, 1e308, 0.0, 0.0])
    assert not handle.accepted  # JTC's default: invalid goals are rejected
    simulator.process.wait_for_log('The position 1e+308 of joint elbow is outside its limits '
                                   '[-2.5, 2.5] at point #0.')
    simulator.commands.publish(Float64MultiArray(data=[1e308, 0.0, 0.0, 0.0, 0.0]))
    simulator.process.wait_for_log('command ignored: the position 1e+308 of joint shoulder_pan '
                                   'is outside its limits [-3.14, 3.14]')
    target = [0.3, -0.2, 0.4, 0.1, 0.02]
    outcome = simulator.run(target)
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.error_string
    simulator.more_states(2)
    reached = dict(zip(simulator.states.last.name, simulator.states.last.position))
    assert np.allclose([reached[j] for j in JOINTS], target, atol=1e-9)


def test_a_huge_description_is_refused_and_the_old_robot_keeps_working(simulator):
    before = node_rss_mib(simulator.process)
    peer = simulator.side.new_node('hostile_peer')
    hostile = peer.create_publisher(String, 'robot_description', DESCRIPTION_QOS)
    hostile.publish(String(data=chain_urdf(10_000)))
    simulator.process.wait_for_log('robot description refused: <robot_description>: the robot '
                                   'has 10000 '
                                   'moving joints; sim_controller simulates at most 200; keeping '
                                   'the previous robot')
    simulator.more_states()  # joint_states go on
    assert node_rss_mib(simulator.process) - before < MEMORY_SLACK_MIB
    outcome = simulator.run([0.0, 0.0, 0.0, 0.0, 0.0])
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.error_string
    assert set(simulator.states.last.name) >= set(JOINTS)  # still the arm


def test_the_simulator_stops_on_sigint_while_it_builds_a_robot(simulator):
    simulator.description.publish(String(data=chain_urdf(200)))  # the largest it simulates
    simulator.process.wait_for_log('robot_description received: building its simulation')
    assert_stops_on_sigint(simulator.process)  # building or built, the node stops


def test_an_unstable_simulation_aborts_the_goal_with_the_reason(launcher):
    sim = Simulator(launcher, 'mode:=servo', 'kp:=1e12')  # far too stiff for a 1 ms step
    outcome = sim.run([0.3, 0.0, 0.0, 0.0, 0.0])
    assert outcome.status == GoalStatus.STATUS_ABORTED
    assert outcome.result.error_code == FollowJointTrajectory.Result.PATH_TOLERANCE_VIOLATED
    assert outcome.result.error_string.startswith('Aborted: the simulation became unstable '
                                                  '(MuJoCo: '), outcome.result.error_string
    sim.more_states()
    assert_stops_on_sigint(sim.process)


# --- problem_server -----------------------------------------------------------------------------

SELF_REFERENCE = """<problem>
<objects><obj><name>box</name><pose>1 0 0 0 0 1 0 0 0 0 1 0</pose><moveable>true</moveable></obj>
</objects>
<robots><robot><name>me</name><urdf>self.xml</urdf></robot></robots>
</problem>
"""


def test_a_self_referencing_problem_is_reported_and_every_service_answers(launcher, tmp_path):
    problem = tmp_path / 'self.xml'
    problem.write_text(SELF_REFERENCE)
    domain = launcher.allocate_domain()
    side = launcher.side(domain, 'attack_problem')
    server = start(launcher, domain, 'attacked_problem_server', ros2_run(
        'problem_server', f'problem_file:={problem}'))
    server.wait_for_log("self.xml:4: robot 'me': the description self.xml is itself a TMP "
                        'problem, not a robot; serving nothing')
    for kind, name in ((GetProblem, 'get_problem'), (ListObjects, 'list_objects')):
        answer = side.call(side.node.create_client(kind, f'problem_server/{name}'),
                           kind.Request(), process=server)
        assert not answer.success and 'no problem is loaded' in answer.message, answer.message
    assert_stops_on_sigint(server)


# --- motion_recorder ----------------------------------------------------------------------------

def test_the_recorder_writes_only_inside_its_directory(launcher, tmp_path):
    directory, outside = tmp_path / 'recordings', tmp_path / 'outside'
    directory.mkdir()
    outside.mkdir()
    (directory / 'link').symlink_to(outside)
    (directory / 'escape.xmdi').symlink_to(outside / 'escaped.xmdi')
    domain = launcher.allocate_domain()
    side = launcher.side(domain, 'attack_recorder')
    states = side.node.create_publisher(JointState, 'joint_states', 10)
    start_client = side.node.create_client(Trigger, 'motion_recorder/start')
    stop_client = side.node.create_client(StopRecording, 'motion_recorder/stop')
    recorder = start(launcher, domain, 'attacked_recorder', ros2_run(
        'motion_recorder', f'output_directory:={directory}', "joints:=['a']"))
    recorder.wait_for_log('ready')

    def publish() -> None:
        msg = JointState(name=['a'], position=[0.1])
        msg.header.stamp = side.node.get_clock().now().to_msg()
        states.publish(msg)

    def stop(output_file: str) -> StopRecording.Response:
        """~/start, joint states, ~/stop (the paths are checked before anything else)."""
        started = side.call(start_client, Trigger.Request(), process=recorder)
        assert started.success, started.message
        for _ in range(3):
            publish()
            side.spin_once(0.05)
        return side.call(stop_client, StopRecording.Request(output_file=output_file),
                         process=recorder)

    for hostile in ('../escaped.xmdi', str(outside / 'absolute.xmdi'), 'link/through.xmdi',
                    'escape.xmdi', '.', '/etc/passwd'):
        stopped = stop(hostile)
        assert not stopped.success
        assert stopped.message == (f'output_file {hostile!r} is outside output_directory '
                                   f'{str(directory)!r}; the recorder writes only there (the '
                                   'recording is kept)'), stopped.message
    assert list(outside.iterdir()) == []

    def wrote() -> StopRecording.Response | None:
        answer = stop('good.xmdi')  # again until the recorder has matched our publisher
        assert answer.success or 'nothing was recorded' in answer.message, answer.message
        return answer if answer.success else None
    written = side.spin_until(wrote, what='a recording with samples', process=recorder)
    assert written.output_file == str(directory / 'good.xmdi')
    assert (directory / 'good.xmdi').is_file() and list(outside.iterdir()) == []
    assert_stops_on_sigint(recorder)


#: ``robot-formats record`` with the file size limit lowered: a write past it fails (EFBIG) as
#: on a full disk.
LIMITED_RECORD = ('import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000));'
                  ' from robot_formats.cli import main; sys.exit(main(sys.argv[1:]))')


def test_record_onto_an_existing_file_with_a_full_disk_keeps_the_old_file(launcher, tmp_path):
    output = tmp_path / 'motion.xmdi'
    old = (ARM.parent.parent / 'xmdi' / 'arm_wave.xmdi').read_bytes()
    output.write_bytes(old)
    names = [f'joint{k}' for k in range(20)]
    domain = launcher.allocate_domain()
    side = launcher.side(domain, 'attack_record')
    states = side.node.create_publisher(JointState, 'joint_states', QoSProfile(
        depth=100, reliability=ReliabilityPolicy.RELIABLE))
    record = start(launcher, domain, 'full_disk_record', [
        '-c', LIMITED_RECORD, 'record', str(output), '--duration', '0.5', '--tolerance', '0',
        '--qos', 'reliable', '--joints', *names])
    rng = np.random.default_rng(27)

    def publish() -> None:  # joint states the tolerance keeps every frame of (random values)
        msg = JointState(name=names, position=rng.uniform(-1, 1, len(names)).tolist())
        msg.header.stamp = side.node.get_clock().now().to_msg()
        states.publish(msg)

    side.spin_until(lambda: record.proc.poll() is not None, what='the recording to end',
                    every=publish, every_period=0.01)
    assert record.proc.returncode == 1, record.describe()
    assert f'{output}: cannot write output: File too large' in record.log()
    assert output.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith('.tmp')) == []
