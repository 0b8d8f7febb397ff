"""motion_recorder and ``robot-formats record`` over real DDS: what a robot did, back to XMDI.

Round trip: motion_player plays the bundled HEBI wave (through its servo map) into a
kinematic-mode sim_controller; motion_recorder records the controller's controller_state
between ~/start and ~/stop with the same servo map; the recorded file is read back WITHOUT
robot_formats (test/formats/xmdi/bundled_reference.py: ElementTree, yaml, numpy.interp) and
must replay the wave:

* everywhere within the sampling bound: a key frame's corner falls between two samples and two
  frames, so it is cut by at most (change of velocity) x (frame period + update period) / 2;
* away from the wave's key frames (more than a frame and an update period from any), within
  the recorder's key-frame tolerance (1e-4 rad) plus rounding.

A mirrored or unscaled servo, a wrong frame time or a dropped segment is off by far more.
``robot-formats record`` then records joint_states from the command line for a given duration,
and a ten-minute recording at 100 Hz (60,000 stamped joint states published as fast as the
recorder takes them) stays within a bounded memory.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from control_msgs.msg import JointTrajectoryControllerState
from rclpy.action import ActionClient
from rclpy.qos import QoSProfile, ReliabilityPolicy
from robot_formats_interfaces.action import PlayMotion
from robot_formats_interfaces.srv import StopRecording
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from .harness import ROOT, TIMEOUT, NodeProcess, subprocess_env

sys.path.insert(0, str(ROOT / 'test' / 'formats' / 'xmdi'))
from bundled_reference import BUNDLES, Bundle, reference_motions  # noqa: E402

BUNDLE = next(b for b in BUNDLES if b.robot.suffix == '.hrdf')
MOTION = 'hebi_wave'
FRAME_PERIOD = 0.032
UPDATE_RATE = 200.0
KEY_TOLERANCE = 1e-4


def _module(name: str) -> list[str]:
    return ['-m', f'robot_formats.nodes.{name}', '--ros-args']


def record_round(side, start, stop, process: NodeProcess, source, request=None,
                 samples: int = 5) -> StopRecording.Response:
    """~/start, ``samples`` new messages on ``source`` (our inbox of the recorded topic),
    ~/stop; repeated until the stop has written samples.

    The recorder's subscription may match the publisher later than ours did (each participant
    matches on its own), and only a recording shows it from outside: a round without samples
    fails with 'nothing was recorded' and the recording is started again."""
    def one_round() -> StopRecording.Response | None:
        started = side.call(start, Trigger.Request(), process=process)
        assert started.success, started.message
        seen = len(source)
        side.spin_until(lambda: len(source) >= seen + samples, what='the recorded topic',
                        process=process)
        stopped = side.call(stop, request or StopRecording.Request(), process=process)
        if stopped.success:
            return stopped
        assert 'nothing was recorded' in stopped.message, stopped.message
        return None
    return side.spin_until(one_round, what='a recording with samples', process=process)


class Recording:
    """description_publisher, sim_controller (kinematic), motion_player and motion_recorder."""

    def __init__(self, launcher, output: Path) -> None:
        self.domain = launcher.allocate_domain()
        self.launcher = launcher
        self.processes: dict[str, NodeProcess] = {}
        for name, args in (
                ('description', [*_module('description_publisher'), '-p',
                                 f'description_file:={BUNDLE.robot}']),
                ('sim', [*_module('sim_controller'), '-p', 'mode:=kinematic', '-p',
                         f'update_rate:={UPDATE_RATE}']),
                ('player', [*_module('motion_player'), '-p',
                            f'motion_files:=["{BUNDLE.motions}"]', '-p',
                            f'servo_map:={BUNDLE.servo_map}', '-p', 'output_mode:=action']),
                ('recorder', [*_module('motion_recorder'), '-p', 'source:=controller_state',
                              '-p', f'servo_map:={BUNDLE.servo_map}', '-p',
                              f'output_directory:={output.parent}', '-p',
                              f'output_file:={output.name}', '-p',
                              f'tolerance:={KEY_TOLERANCE}'])):
            process = NodeProcess(args, self.domain, launcher.log_dir, name)
            launcher.processes.append(process)
            self.processes[name] = process
        self.side = launcher.side(self.domain, 'recording')
        self.start = self.side.node.create_client(Trigger, 'motion_recorder/start')
        self.stop = self.side.node.create_client(StopRecording, 'motion_recorder/stop')
        self.player = ActionClient(self.side.node, PlayMotion, 'motion_player/play')
        self.processes['sim'].wait_for_log('ready')
        self.processes['player'].wait_for_log('robot model:')
        self.processes['recorder'].wait_for_log('ready')
        assert self.player.wait_for_server(timeout_sec=TIMEOUT)
        # a probe recording of the idle arm to a scratch file: the recorder receives
        # controller_state before the real one starts
        states = self.side.subscribe(JointTrajectoryControllerState,
                                     'joint_trajectory_controller/controller_state', 10)
        record_round(self.side, self.start, self.stop, self.processes['recorder'], states,
                     StopRecording.Request(output_file=str(output.with_name('probe.xmdi'))))
        self.side.node.destroy_subscription(states.subscription)

    def play(self) -> None:
        future = self.player.send_goal_async(PlayMotion.Goal(motion_name=MOTION))
        self.side.spin_until(future.done, what='the goal response',
                             process=self.processes['player'])
        result = future.result().get_result_async()
        self.side.spin_until(result.done, 2 * TIMEOUT, 'the play result',
                             self.processes['player'])
        answer = result.result().result
        assert answer.success, answer.message


def best_offset(recorded, original, times: np.ndarray, fit: np.ndarray,
                step: float = 0.0005) -> tuple[float, np.ndarray]:
    """(offset, errors at ``times``) of the shift of the recording that reproduces the original
    best at the motion times ``fit`` marks (the play starts at the controller's next update,
    which is not observable from outside)."""
    expected = original.positions(np.clip(times, 0.0, original.duration))
    best = (0.0, np.full(expected.shape, np.inf))

    def search(offsets: np.ndarray) -> None:
        nonlocal best
        for offset in offsets:
            error = np.abs(recorded.positions(np.clip(times + offset, 0, recorded.duration))
                           - expected)
            if error[fit].max() < best[1][fit].max():
                best = (float(offset), error)
    # the play may have begun up to a frame before the first recorded frame, and the
    # recording may end as the play does
    search(np.arange(-0.1, recorded.duration - original.duration + 0.1, step))
    search(best[0] + np.arange(-step, step, step / 50))  # then to 10 microseconds
    return best


def test_a_played_motion_is_recorded_and_replays_the_same_trajectory(launcher, tmp_path):
    output = tmp_path / 'recorded.xmdi'
    rig = Recording(launcher, output)
    started = rig.side.call(rig.start, Trigger.Request(), process=rig.processes['recorder'])
    assert started.success, started.message
    again = rig.side.call(rig.start, Trigger.Request())
    assert not again.success and 'already recording' in again.message
    rig.play()
    stopped = rig.side.call(rig.stop, StopRecording.Request(motion_name='replayed'),
                            process=rig.processes['recorder'])
    assert stopped.success, stopped.message
    assert stopped.output_file == str(output.resolve()) and output.is_file()
    assert stopped.dropped == 0 and stopped.samples > UPDATE_RATE * 4  # the wave lasts 4.8 s
    assert stopped.key_frames < stopped.frames  # reduced
    check = subprocess.run([sys.executable, '-m', 'robot_formats.cli', 'check', str(output)],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0 and 'valid xmdi' in check.stdout, check.stderr

    original = reference_motions(BUNDLE)[MOTION]
    recorded = reference_motions(Bundle(BUNDLE.robot, output, BUNDLE.servo_map))['replayed']
    assert [t.servo for t in recorded.tracks] == [t.servo for t in original.tracks]
    assert recorded.joints == original.joints
    velocity_change = max(float(np.max(np.abs(np.diff(np.diff(t.values) / np.diff(t.times)))))
                          for t in original.tracks)
    sampling = FRAME_PERIOD + 1.0 / UPDATE_RATE
    times = np.arange(-0.2, original.duration + 0.2, 0.001)
    keys = np.unique(np.concatenate([t.times for t in original.tracks]))
    far = np.min(np.abs(times[:, None] - keys[None, :]), axis=1) > sampling + 0.001
    far &= (times > 0) & (times < original.duration)
    assert far.mean() > 0.3
    offset, errors = best_offset(recorded, original, times, far)
    assert errors[far].max() <= KEY_TOLERANCE + 1e-6, (
        f'{errors[far].max():.6f} rad away from the key frames (offset {offset:.4f} s)')
    bound = velocity_change * sampling / 2 + KEY_TOLERANCE
    assert errors.max() <= bound, (f'largest replay error {errors.max():.5f} rad, bound '
                                   f'{bound:.5f} rad (offset {offset:.4f} s)')
    # nothing recorded since: a second stop has nothing to write
    empty = rig.side.call(rig.stop, StopRecording.Request())
    assert not empty.success and 'call ~/start first' in empty.message

    # robot-formats record: joint_states from the command line, for a given duration
    cli_output = tmp_path / 'cli.xmdi'
    record = subprocess.run(
        [sys.executable, '-m', 'robot_formats.cli', 'record', str(cli_output), '--duration',
         '1.0', '--joints', *original.joints, '--motion-name', 'held'],
        capture_output=True, text=True, timeout=TIMEOUT * 2, cwd=ROOT,
        env=subprocess_env(rig.domain, launcher.log_dir))
    assert record.returncode == 0, record.stderr
    assert "wrote motion 'held'" in record.stdout
    held = reference_motions(Bundle(BUNDLE.robot, cli_output))['held']
    final = original.positions(np.array(original.duration))
    assert held.duration == pytest.approx(32 * FRAME_PERIOD)  # the first frame at >= 1.0 s
    for track, value in zip(held.tracks, final):  # the arm holds the wave's last pose
        assert len(track.times) == 2 and np.allclose(track.values, value, atol=1e-9)


def _rss_kib(pid: int) -> int:
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1])
    raise AssertionError('no VmRSS')


def test_ten_minutes_at_100_hz_stay_within_bounded_memory(launcher, tmp_path):
    """60,000 joint states stamped 10 ms apart (ten minutes of motion) into `robot-formats
    record --duration 599.9`: it ends by itself, memory grows by a bounded amount."""
    domain = launcher.allocate_domain()
    output = tmp_path / 'long.xmdi'
    names = [f'joint{k}' for k in range(6)]
    recorder = NodeProcess(['-m', 'robot_formats.cli', 'record', str(output), '--duration',
                            '599.9', '--qos', 'reliable', '--joints', *names],
                           domain, launcher.log_dir, 'record_long')
    launcher.processes.append(recorder)
    recorder.wait_for_log('recording joint_states')
    side = launcher.side(domain, 'long_publisher')
    publisher = side.node.create_publisher(
        JointState, 'joint_states', QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
    side.spin_until(lambda: publisher.get_subscription_count() > 0, what='the recorder',
                    process=recorder)
    baseline = _rss_kib(recorder.proc.pid)
    peak = baseline
    corners = np.arange(0.0, 601.0, 7.3)
    heights = np.sin(corners)
    msg = JointState(name=names)
    begin = time.monotonic()
    # 601 s of stamps end the recording if the recorder's first sample is the first sent; DDS
    # may lose the first ones (the recorder's reader can match the publisher after the publisher
    # matched it), so stamps go on, up to 620 s, until the recorder has ended by itself
    for i in range(62_000):
        t = 1000.0 + i * 0.01
        q = float(np.interp(t - 1000.0, corners, heights))
        msg.header.stamp.sec, msg.header.stamp.nanosec = int(t), int(round((t % 1) * 1e9))
        msg.position = [q * (k + 1) for k in range(6)]
        publisher.publish(msg)
        if i % 500 == 0:
            if not recorder.alive():
                break
            peak = max(peak, _rss_kib(recorder.proc.pid))
        # pace: 2,000 messages a second, which the recorder (one rclpy subscription in Python)
        # keeps up with: ten minutes of motion in half a minute
        while time.monotonic() - begin < i / 2000.0:
            time.sleep(0.0002)  # pacing a publisher, not waiting for readiness
    code = recorder.proc.wait(timeout=TIMEOUT * 2)
    assert code == 0, recorder.describe()
    log = recorder.log()
    assert "wrote motion 'recording'" in log, log
    samples = int(log.split(' key frames from ')[1].split()[0])
    assert samples >= 0.95 * 59_990, f'only {samples} joint states arrived'
    growth_mib = (peak - baseline) / 1024
    # keeping the 60,000 samples (6 floats each, as Python objects) would take over 10 MiB;
    # the key frames take well under one (0.4 MiB measured, the process' own noise included)
    assert growth_mib < 4, f'the recorder grew by {growth_mib:.2f} MiB over ten minutes'
    motion = reference_motions(Bundle(BUNDLE.robot, output))['recording']
    assert motion.duration == pytest.approx(18747 * FRAME_PERIOD)  # first frame >= 599.9 s
    # Frame 0 is the first joint state received (DDS may have lost a few before it): find it
    # on the 10 ms grid of the stamps.
    times = np.arange(0.0, 590.0, 0.05)
    first = min(np.arange(0.0, 5.0, 0.01), key=lambda start: float(np.median(np.abs(
        motion.tracks[0].at(times) - np.interp(times + start, corners, heights)))))
    expected = np.interp(times + first, corners, heights)
    for k, track in enumerate(motion.tracks):
        error = np.abs(track.at(times) - expected * (k + 1))
        # corners every 7.3 s are cut by at most velocity change x frame period / 2
        assert np.percentile(error, 95) <= 1e-3 * (k + 1), (k, error.max())
        assert error.max() <= 0.02 * (k + 1)


def test_without_joints_the_commandable_joints_of_robot_description_are_recorded(launcher,
                                                                                 tmp_path):
    """sim_controller's joint_states name the bundled arm's mimic finger too (as
    joint_state_broadcaster's do); a player cannot drive a mimic joint, so the recording leaves
    it out (robot_description says which joints are which)."""
    domain = launcher.allocate_domain()
    output = tmp_path / 'arm.xmdi'
    processes = {}
    for name, args in (
            ('arm', [*_module('description_publisher'), '-p',
                     f'description_file:={ROOT / "examples" / "urdf" / "arm_with_gripper.urdf"}']),
            ('arm_sim', [*_module('sim_controller'), '-p', 'mode:=kinematic']),
            ('arm_recorder', [*_module('motion_recorder'), '-p',
                              f'output_directory:={tmp_path}', '-p', f'output_file:={output}'])):
        processes[name] = NodeProcess(args, domain, launcher.log_dir, name)
        launcher.processes.append(processes[name])
    processes['arm_recorder'].wait_for_log('robot_description: the next recording takes '
                                           'shoulder_pan, shoulder_lift, elbow, wrist_roll, '
                                           'finger_left')
    side = launcher.side(domain, 'arm_recording')
    states = side.subscribe(JointState, 'joint_states', 10)
    start = side.node.create_client(Trigger, 'motion_recorder/start')
    stop = side.node.create_client(StopRecording, 'motion_recorder/stop')
    stopped = record_round(side, start, stop, processes['arm_recorder'], states)
    assert stopped.samples >= 1, stopped.message
    assert 'finger_right' in states.last.name
    recorded = reference_motions(Bundle(ROOT / 'examples' / 'urdf' / 'arm_with_gripper.urdf',
                                        output))['recording']
    assert recorded.joints == ['shoulder_pan', 'shoulder_lift', 'elbow', 'wrist_roll',
                               'finger_left']
