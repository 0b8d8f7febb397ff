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
The recording is also exactly the states the recorder received (this test receives them too,
keeping every message as the recorder does): every frame is the states at its time, and no state
between its first and its last is missing, however loaded the machine.
``robot-formats record`` then records joint_states from the command line for a given duration,
and a ten-minute recording at 100 Hz (60,000 stamped joint states, at the pace the recorder
acknowledges them) loses none and stays within a bounded memory.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from control_msgs.msg import JointTrajectoryControllerState
from rclpy.action import ActionClient
from rclpy.duration import Duration as RosDuration
from rclpy.qos import ReliabilityPolicy
from robot_formats_interfaces.action import PlayMotion
from robot_formats_interfaces.srv import StopRecording
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from .harness import (EVERY_MESSAGE, ROOT, TIMEOUT, NodeProcess, stamp_seconds,
                      subprocess_env)

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
        #: controller_state as the recorder receives it, every message
        self.states = self.side.subscribe(JointTrajectoryControllerState,
                                          'joint_trajectory_controller/controller_state',
                                          EVERY_MESSAGE)
        # a probe recording of the idle arm to a scratch file: the recorder receives
        # controller_state before the real one starts
        record_round(self.side, self.start, self.stop, self.processes['recorder'], self.states,
                     StopRecording.Request(output_file=str(output.with_name('probe.xmdi'))))

    def play(self) -> float:
        """Play the wave; the wall time its successful result arrived."""
        future = self.player.send_goal_async(PlayMotion.Goal(motion_name=MOTION))
        self.side.spin_until(future.done, what='the goal response',
                             process=self.processes['player'])
        result = future.result().get_result_async()
        self.side.spin_until(result.done, 2 * TIMEOUT, 'the play result',
                             self.processes['player'])
        answer = result.result().result
        assert answer.success, answer.message
        return time.time()

    def states_until(self, moment: float, joints: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(stamps, positions in ``joints`` order) of every controller_state received, once
        one stamped after ``moment`` has arrived."""
        self.side.spin_until(lambda: len(self.states) and stamp_seconds(self.states.last) > moment,
                             what=f'controller_state stamped after {moment:.3f}',
                             process=self.processes['sim'])
        return inbox_arrays(self.states.messages, joints,
                            lambda msg: (msg.joint_names, msg.feedback.positions))


def inbox_arrays(messages, joints: list[str], named) -> tuple[np.ndarray, np.ndarray]:
    """(stamps, positions in ``joints`` order) of messages; ``named(msg)`` gives (names,
    positions)."""
    stamps, rows = [], []
    for msg in messages:
        values = dict(zip(*named(msg)))
        stamps.append(stamp_seconds(msg))
        rows.append([values[j] for j in joints])
    return np.array(stamps), np.array(rows)


def first_recorded(recorded, frames: int, stamps: np.ndarray, positions: np.ndarray,
                   candidates: np.ndarray) -> tuple[float, float]:
    """(stamp, largest error) of the state that, as the recording's frame 0, makes its frames
    closest to our states interpolated at the frame times. The recorder's frame 0 is its first
    state; each frame is the interpolation of the states around its time, kept within the
    key-frame tolerance."""
    frame_times = np.arange(frames) * FRAME_PERIOD
    replay = recorded.positions(frame_times)
    best = (float('nan'), float('inf'))
    for first in candidates:
        expected = np.stack([np.interp(first + frame_times, stamps, column)
                             for column in positions.T], axis=-1)
        error = float(np.max(np.abs(replay - expected)))
        if error < best[1]:
            best = (float(first), error)
    return best


def motion_start(original, stamps: np.ndarray, positions: np.ndarray, earliest: float,
                 latest: float, step: float = 0.001) -> float:
    """The stamp of the wave's motion time 0 (the play starts at the controller's next update,
    which is not observable from outside): kinematic sim_controller writes the trajectory
    exactly, so its states are the wave at their stamps; the start in [earliest, latest] that
    fits them best, to 10 microseconds."""
    latest = max(latest, earliest)
    played = (stamps >= earliest) & (stamps <= latest + original.duration)

    def misfit(start: float) -> float:
        expected = original.positions(np.clip(stamps[played] - start, 0.0, original.duration))
        return float(np.mean((positions[played] - expected) ** 2))
    best = min(np.arange(earliest, latest + step, step), key=misfit)
    return float(min(best + np.arange(-step, step, step / 100), key=misfit))


def replay_errors(recorded, original, times: np.ndarray, offset: float) -> np.ndarray:
    """|replay - wave| at the motion ``times``, the recording shifted by ``offset``."""
    expected = original.positions(np.clip(times, 0.0, original.duration))
    return np.abs(recorded.positions(np.clip(times + offset, 0, recorded.duration)) - expected)


def test_a_played_motion_is_recorded_and_replays_the_same_trajectory(launcher, tmp_path):
    output = tmp_path / 'recorded.xmdi'
    original = reference_motions(BUNDLE)[MOTION]
    rig = Recording(launcher, output)
    starting = time.time()
    started = rig.side.call(rig.start, Trigger.Request(), process=rig.processes['recorder'])
    assert started.success, started.message
    again = rig.side.call(rig.start, Trigger.Request())
    assert not again.success and 'already recording' in again.message
    playing = time.time()
    ended = rig.play()
    # the play's last states are out (one stamped after its result came): the recorder has
    # them, or they wait in its queue, which ~/stop records first
    rig.states_until(ended, original.joints)
    stopped = rig.side.call(rig.stop, StopRecording.Request(motion_name='replayed'),
                            process=rig.processes['recorder'])
    assert stopped.success, stopped.message
    assert stopped.output_file == str(output.resolve()) and output.is_file()
    assert stopped.dropped == 0
    assert stopped.key_frames < stopped.frames  # reduced
    check = subprocess.run([sys.executable, '-m', 'robot_formats.cli', 'check', str(output)],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0 and 'valid xmdi' in check.stdout, check.stderr

    recorded = reference_motions(Bundle(BUNDLE.robot, output, BUNDLE.servo_map))['replayed']
    assert [t.servo for t in recorded.tracks] == [t.servo for t in original.tracks]
    assert recorded.joints == original.joints
    # The recording is the states it received: its frame 0 is one of ours (the first it took
    # after ~/start: one that waited in its queue may be older), and every frame is our states
    # at its time within the key-frame tolerance (servo map inverted and applied again, frame
    # times right).
    stamps, positions = rig.states_until(ended, original.joints)
    candidates = stamps[stamps >= starting - 5.0]
    first, error = first_recorded(recorded, stopped.frames, stamps, positions, candidates)
    assert error <= KEY_TOLERANCE + 1e-9, (
        f'no state as frame 0 makes the frames the states at their times ({error:.6f} rad)')
    # ... and nothing was lost: the states from its frame 0 to the one that made its last
    # frame (at or after the last frame's time, before the next frame's)
    stamps, positions = rig.states_until(first + stopped.duration + FRAME_PERIOD,
                                         original.joints)
    taken = stamps[stamps >= first]
    fewest = int(np.sum(taken < first + stopped.duration - 1e-9)) + 1
    most = int(np.sum(taken < first + stopped.duration + FRAME_PERIOD - 1e-9))
    assert fewest <= stopped.samples <= most, (stopped.samples, fewest, most)

    # The replay is the wave, from the independent reader: within the key-frame tolerance away
    # from the wave's key frames; a key frame's corner falls between two states and two frames,
    # so near it the replay is off by at most (change of velocity) x (frame period + that
    # states' gap) / 2. The gaps are the ones sim_controller published: wider on a loaded
    # machine, where its updates come late.
    start = motion_start(original, stamps, positions, playing, ended - original.duration)
    keys = np.unique(np.concatenate([t.times for t in original.tracks]))
    around = np.clip(np.searchsorted(stamps, start + keys, side='right') - 1, 0, len(stamps) - 2)
    gaps = stamps[around + 1] - stamps[around]
    times = np.arange(-0.2, original.duration + 0.2, 0.001)
    far = np.all(np.abs(times[:, None] - keys[None, :]) > FRAME_PERIOD + gaps + 0.001, axis=1)
    far &= (times > 0) & (times < original.duration)
    assert far.mean() > 0.3, f'states gaps at the key frames: {np.round(gaps, 3)}'
    # the start to 10 microseconds, so the recording's own fit to the wave away from the keys
    offset = min(start - first + np.arange(-0.0005, 0.0005, 0.00001),
                 key=lambda shift: replay_errors(recorded, original, times, shift)[far].max())
    errors = replay_errors(recorded, original, times, offset)
    assert errors[far].max() <= KEY_TOLERANCE + 1e-6, (
        f'{errors[far].max():.6f} rad away from the key frames (offset {offset:.4f} s)')
    velocity_change = max(float(np.max(np.abs(np.diff(np.diff(t.values) / np.diff(t.times)))))
                          for t in original.tracks)
    bound = velocity_change * (FRAME_PERIOD + gaps.max()) / 2 + KEY_TOLERANCE
    assert errors.max() <= bound, (f'largest replay error {errors.max():.5f} rad, bound '
                                   f'{bound:.5f} rad (offset {offset:.4f} s)')
    # nothing recorded since: a second stop has nothing to write
    empty = rig.side.call(rig.stop, StopRecording.Request())
    assert not empty.success and 'call ~/start first' in empty.message

    # robot-formats record: joint_states from the command line, for a given duration
    joint_states = rig.side.subscribe(JointState, 'joint_states', EVERY_MESSAGE)
    rig.side.spin_until(lambda: len(joint_states), what='joint_states',
                        process=rig.processes['sim'])
    cli_output = tmp_path / 'cli.xmdi'
    recording = time.time()
    record = subprocess.run(
        [sys.executable, '-m', 'robot_formats.cli', 'record', str(cli_output), '--duration',
         '1.0', '--qos', 'reliable', '--joints', *original.joints, '--motion-name', 'held'],
        capture_output=True, text=True, timeout=TIMEOUT * 2, cwd=ROOT,
        env=subprocess_env(rig.domain, launcher.log_dir))
    recorded_until = time.time()
    assert record.returncode == 0, record.stderr
    assert "wrote motion 'held'" in record.stdout
    held = reference_motions(Bundle(BUNDLE.robot, cli_output))['held']
    final = original.positions(np.array(original.duration))
    # The first frame at or after 1.0 s (frame 32) ends the recording; the state that reaches
    # it makes every frame up to its own time, so a gap in joint_states (a late publisher)
    # lengthens the recording by less than the gap.
    rig.side.spin_until(lambda: stamp_seconds(joint_states.last) > recorded_until,
                        what='joint_states after the recording', process=rig.processes['sim'])
    published = np.array([stamp_seconds(m) for m in joint_states.messages])
    published = published[(published >= recording) & (published <= recorded_until)]
    gap = float(np.max(np.diff(published)))
    assert 32 * FRAME_PERIOD - 1e-9 <= held.duration < 32 * FRAME_PERIOD + gap, (
        held.duration, gap)
    for track, value in zip(held.tracks, final):  # the arm holds the wave's last pose
        assert len(track.times) == 2 and np.allclose(track.values, value, atol=1e-9)


def _rss_kib(pid: int) -> int:
    """The resident memory of a process, KiB; 0 once it has exited (a zombie has none)."""
    try:
        status = Path(f'/proc/{pid}/status').read_text()
    except FileNotFoundError:
        return 0
    return next((int(line.split()[1]) for line in status.splitlines()
                 if line.startswith('VmRSS:')), 0)


#: The ten-minute recording: joint states stamped STAMP_STEP apart (100 Hz) for LONG_DURATION s
#: of motion, sent in batches of ACK_BATCH, each acknowledged by the recorder before the next.
STAMP_STEP = 0.01
LONG_DURATION = 599.9
ACK_BATCH = 2000
#: Corners of the recorded signal (piecewise linear between them, sin(corner) at each).
CORNER_STEP = 7.3
#: Memory the recorder may grow by over ten minutes, MiB: the key frames (about a thousand),
#: the samples waiting in its subscription's queue (bounded by the middleware: Fast DDS keeps
#: at most 5000, about 2 MiB with its pools) and the process' own noise; 3.5 MiB seen at load 9
#: on 2 cores. Keeping the 60,000 samples as Python objects grew it by 28 MiB.
LONG_GROWTH_MIB = 8.0


def long_signal(t: np.ndarray) -> np.ndarray:
    """The recorded signal at motion time(s) ``t``: joint k is (k + 1) times it."""
    corners = np.arange(0.0, 2 * LONG_DURATION, CORNER_STEP)
    return np.interp(t, corners, np.sin(corners))


def recording_ended(recorder: NodeProcess) -> bool:
    """The recording has ended by itself: written (the process then exits), or the process is
    gone."""
    return not recorder.alive() or "wrote motion 'recording'" in recorder.log()


def wait_acknowledged(publisher, recorder: NodeProcess, peak: int) -> int:
    """Wait until the recorder's subscription acknowledged every sample published (or the
    recording ended); the largest RSS seen meanwhile is returned."""
    deadline = time.monotonic() + 2 * TIMEOUT
    while not recording_ended(recorder):
        peak = max(peak, _rss_kib(recorder.proc.pid))
        if publisher.wait_for_all_acked(RosDuration(seconds=0.5)):
            return peak
        assert time.monotonic() < deadline, (
            f'the recorder acknowledged no batch of {ACK_BATCH} joint states within '
            f'{2 * TIMEOUT:g} s; {recorder.describe()}')
    return peak


def test_ten_minutes_at_100_hz_stay_within_bounded_memory(launcher, tmp_path):
    """Joint states stamped 10 ms apart (ten minutes of motion) into `robot-formats record
    --duration 599.9 --qos reliable`: it ends by itself, no sample after its first is lost,
    memory grows by a bounded amount and the key frames replay the signal.

    The publisher is reliable and keeps every sample until acknowledged (KEEP_ALL, as the
    recorder's subscription), and waits for each batch's acknowledgement before the next: the
    pace is the recorder's, whatever the machine's load. Only samples sent before the
    recorder's reader matched the publisher (each participant matches on its own) may miss it,
    so stamps go on until the recorder has ended by itself, and a 'clock' joint (its position is
    the sample's motion time) tells which sample was the first recorded."""
    domain = launcher.allocate_domain()
    output = tmp_path / 'long.xmdi'
    names = [*(f'joint{k}' for k in range(6)), 'clock']
    recorder = NodeProcess(['-m', 'robot_formats.cli', 'record', str(output), '--duration',
                            str(LONG_DURATION), '--qos', 'reliable', '--joints', *names],
                           domain, launcher.log_dir, 'record_long')
    launcher.processes.append(recorder)
    recorder.wait_for_log('recording joint_states')
    side = launcher.side(domain, 'long_publisher')
    publisher = side.node.create_publisher(JointState, 'joint_states', EVERY_MESSAGE)
    side.spin_until(lambda: publisher.get_subscription_count() > 0, what='the recorder',
                    process=recorder)
    baseline = peak = _rss_kib(recorder.proc.pid)
    assert baseline, recorder.describe()
    msg = JointState(name=names)
    sent = 0
    # the first batch may be lost whole; one more batch of slack
    most = round(LONG_DURATION / STAMP_STEP) + 3 * ACK_BATCH
    while not recording_ended(recorder):
        assert sent < most, f'{sent} joint states did not end the recording; ' \
                            f'{recorder.describe()}'
        times = (sent + np.arange(ACK_BATCH)) * STAMP_STEP
        rows = np.column_stack([long_signal(times)[:, None] * np.arange(1, 7), times])
        for i, row in enumerate(rows, start=sent):
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(
                1000 * 10**9 + i * round(STAMP_STEP * 1e9), 10**9)
            msg.position = row.tolist()
            publisher.publish(msg)
        sent += ACK_BATCH
        peak = wait_acknowledged(publisher, recorder, peak)
    code = recorder.proc.wait(timeout=TIMEOUT)
    assert code == 0, recorder.describe()
    log = recorder.log()
    summary = re.search(r"wrote motion 'recording' to .*: ([0-9.]+) s, (\d+) frames, (\d+) key "
                        r'frames from (\d+) samples \((\d+) dropped\)', log)
    assert summary, log
    duration, frames, key_frames, samples, dropped = (
        float(summary[1]), *(int(summary[k]) for k in range(2, 6)))

    # the first frame at or after 599.9 s ends the recording: frame 18747, at 599.904 s; the
    # sample that reaches it is the 59,992nd after the first one (stamps 10 ms apart)
    last_frame = math.ceil(LONG_DURATION / FRAME_PERIOD - 1e-9)
    assert (frames, duration) == (last_frame + 1, pytest.approx(last_frame * FRAME_PERIOD))
    assert dropped == 0
    assert samples == math.ceil(last_frame * FRAME_PERIOD / STAMP_STEP - 1e-9) + 1, (
        f'{samples} samples: joint states were lost after the first one recorded')
    growth_mib = (peak - baseline) / 1024
    assert growth_mib < LONG_GROWTH_MIB, (
        f'the recorder grew by {growth_mib:.2f} MiB over ten minutes ({key_frames} key frames '
        f'from {samples} samples)')

    motion = reference_motions(Bundle(BUNDLE.robot, output))['recording']
    assert motion.joints == names
    clock = motion.tracks[-1]
    first = float(clock.values[0])  # the motion time of the first sample recorded
    times = np.arange(0.0, motion.duration, 0.01)
    assert len(clock.times) == 2 and np.allclose(clock.at(times), first + times, atol=1e-9)
    assert 0 <= first < sent * STAMP_STEP - LONG_DURATION
    # Key frames replay the signal within the tolerance away from its corners; a corner is cut
    # by at most (change of velocity) x (frame period + sample step) / 2.
    corners = np.arange(0.0, 2 * LONG_DURATION, CORNER_STEP)
    slopes = np.diff(np.sin(corners)) / CORNER_STEP
    velocity_change = float(np.max(np.abs(np.diff(slopes))))
    sampling = FRAME_PERIOD + STAMP_STEP
    far = np.min(np.abs((first + times)[:, None] - corners[None, :]), axis=1) > sampling + 0.001
    assert far.mean() > 0.9
    for k, track in enumerate(motion.tracks[:-1]):
        error = np.abs(track.at(times) - long_signal(first + times) * (k + 1))
        assert error[far].max() <= KEY_TOLERANCE + 1e-9, (k, float(error[far].max()))
        bound = velocity_change * (k + 1) * sampling / 2 + KEY_TOLERANCE
        assert error.max() <= bound, (k, float(error.max()), bound)


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


def test_the_recorded_subscription_takes_qos_overrides(launcher):
    """The recorded topic's reliability is joint_states_qos's, and rclpy's qos_overrides change
    it (as description_publisher's); an override rclpy cannot use stops the node with the
    reason."""
    domain = launcher.allocate_domain()
    override = 'qos_overrides./joint_states.subscription.reliability'
    recorder = NodeProcess([*_module('motion_recorder'), '-p', 'joint_states_qos:=reliable',
                            '-p', f'{override}:=best_effort'], domain, launcher.log_dir,
                           'qos_recorder')
    launcher.processes.append(recorder)
    recorder.wait_for_log('ready')
    side = launcher.side(domain, 'qos_recorder')

    def subscription():
        return next((endpoint for endpoint in
                     side.node.get_subscriptions_info_by_topic('/joint_states')
                     if endpoint.node_name == 'motion_recorder'), None)
    endpoint = side.spin_until(subscription, what="the recorder's joint_states subscription",
                               process=recorder)
    assert endpoint.qos_profile.reliability == ReliabilityPolicy.BEST_EFFORT

    bad = NodeProcess([*_module('motion_recorder'), '-p', f'{override}:=sometimes'], domain,
                      launcher.log_dir, 'bad_qos_recorder')
    launcher.processes.append(bad)
    assert bad.proc.wait(timeout=TIMEOUT) == 1, bad.describe()
    log = bad.log()
    assert 'qos_overrides of joint_states' in log and 'sometimes' in log, log
    assert 'Traceback' not in log
