"""joint_states → /tf: per-message cost in a real node, and a sustained 1 kHz stream over DDS."""

from __future__ import annotations

import json
import math
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import rclpy

from . import checkout, report
from .tf_counter import STREAM_SEC

TARGET_SECONDS = 0.2e-3
RATE_HZ = 1000.0
JOINTS = 100
MESSAGES = 2000  #: timed messages of tf_callback (a round takes its share, 400 at least)


def generated_urdf(name: str, links: int, seed: int, parent_window: Callable[[int], int],
                   moving_at: set[int] | None = None) -> str:
    """A URDF tree of ``links`` links with random geometry: joint ``i`` hangs from a link drawn
    from ``parent_window(i)`` up to ``i - 1``; it is revolute, continuous or prismatic when
    ``moving_at`` is None or holds ``i``, else fixed (the scale benchmark's tree)."""
    rng = random.Random(seed)
    lines = [f'<robot name="{name}">', '<link name="link0"/>']
    for index in range(1, links):
        parent = rng.randrange(parent_window(index), index)
        kind = rng.choice(['revolute', 'revolute', 'continuous', 'prismatic']) \
            if moving_at is None or index in moving_at else 'fixed'
        axis = ' '.join(f'{rng.uniform(-1, 1):.6f}' for _ in range(3))
        xyz = ' '.join(f'{rng.uniform(-0.2, 0.2):.6f}' for _ in range(3))
        rpy = ' '.join(f'{rng.uniform(-3, 3):.6f}' for _ in range(3))
        limit = '<limit lower="-2" upper="2" effort="1" velocity="1"/>' \
            if kind in ('revolute', 'prismatic') else ''
        lines += [f'<link name="link{index}"/>',
                  f'<joint name="joint{index}" type="{kind}"><parent link="link{parent}"/>'
                  f'<child link="link{index}"/><origin xyz="{xyz}" rpy="{rpy}"/>'
                  f'<axis xyz="{axis}"/>{limit}</joint>']
    lines.append('</robot>')
    return '\n'.join(lines)


def generated_robot(joints: int = JOINTS, seed: int = 7) -> str:
    """A URDF tree of ``joints`` revolute/prismatic/continuous joints with random geometry."""
    return generated_urdf('generated', joints + 1, seed, lambda index: max(0, index - 4))


def _write_robot(directory: str) -> Path:
    path = Path(directory) / 'generated_100.urdf'
    path.write_text(generated_robot())
    return path


def run_callback(seconds: float = 0.0) -> bool:
    """Time DescriptionPublisher.joint_states_callback (kinematics + serialise + publish)."""
    import numpy as np
    import rclpy
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import JointState

    from robot_formats.nodes.description_publisher import DescriptionPublisher

    with tempfile.TemporaryDirectory() as tmp, rclpy.init(domain_id=_domain()):
        path = _write_robot(tmp)
        node = DescriptionPublisher(parameter_overrides=[
            Parameter('description_file', value=str(path)),
            Parameter('publish_frequency', value=0.0)])  # no rate cap: time every message
        names = list(node.description.dof_names)
        rng = np.random.default_rng(1)
        messages = []
        for _ in range(report.share(MESSAGES, 400)):
            msg = JointState(name=names, position=rng.uniform(-1.5, 1.5, len(names)).tolist())
            msg.header.stamp.sec = 1
            messages.append(msg)
        for msg in messages[:200]:
            node.joint_states_callback(msg)  # warm up caches
        samples = []
        for msg in messages:
            start = time.perf_counter()
            node.joint_states_callback(msg)
            samples.append(time.perf_counter() - start)
        node.destroy_node()
    samples.sort()
    median, p99 = statistics.median(samples), samples[int(len(samples) * 0.99)]
    report.record('tf_callback median (100 joints)', median * 1e3, 'ms', report.RUN_TIME)
    print(f'  {len(names)}-joint robot, {len(samples)} messages: median {median * 1e3:.3f} ms, '
          f'p99 {p99 * 1e3:.3f} ms per message (target <= {TARGET_SECONDS * 1e3:.1f} ms); '
          f'{1.0 / median:,.0f} messages/s on one core')
    return median <= TARGET_SECONDS


def _domain() -> int:
    return int(os.environ.get('ROS_DOMAIN_ID', '150'))


def run_sustained(seconds: float = 5.0) -> bool:
    """Node in one process, a 1 kHz JointState source here, a /tf counter in a third."""
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState

    with tempfile.TemporaryDirectory() as tmp:
        path = _write_robot(tmp)
        env = dict(os.environ)
        node = subprocess.Popen([sys.executable, '-m', 'robot_formats.nodes.description_publisher',
                                 '--ros-args', '-p', f'description_file:={path}',
                                 '-p', 'publish_frequency:=0.0',
                                '-p', 'joint_states_qos:=reliable'], env=env,
                                cwd=checkout.child_cwd(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        counter = subprocess.Popen([sys.executable, '-m', 'benchmarks.tf_counter',
                                    str(seconds + 30.0)], env=env, cwd=checkout.child_cwd(),
                                   stdout=subprocess.PIPE, text=True)
        try:
            with rclpy.init(domain_id=_domain()):
                source = rclpy.create_node('bench_joint_states')
                qos = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
                publisher = source.create_publisher(JointState, 'joint_states', qos)
                names = [f'joint{i}' for i in range(1, JOINTS + 1)]
                if not _wait_for(lambda: publisher.get_subscription_count() > 0, 30.0):
                    print('  the node did not subscribe to joint_states within 30 s')
                    return False
                if not _wait_for(lambda: counter_ready(counter), 30.0) or not _wait_for(
                        lambda: source.count_subscribers('/tf') > 0
                        and source.count_publishers('/tf') > 0, 30.0):
                    print('  the /tf counter did not start')
                    return False
                warm_ups = _warm_up(source, publisher, names)
                if not warm_ups:
                    print('  the node did not answer joint_states with /tf within 30 s')
                    return False
                cpu_before = _cpu_seconds(node.pid)
                counter_cpu_before = _cpu_seconds(counter.pid)
                sent, start = _stream(publisher, names, seconds)
                elapsed = time.monotonic() - start
                cpu = (_cpu_seconds(node.pid) - cpu_before) / elapsed
                counter_cpu = (_cpu_seconds(counter.pid) - counter_cpu_before) / elapsed
                source.destroy_node()
        finally:
            try:  # the counter ends by itself once /tf has been quiet for 1.5 s
                counter.wait(timeout=seconds + 60.0)
            except subprocess.TimeoutExpired:
                counter.send_signal(signal.SIGINT)
            output = counter.communicate(timeout=30)[0] or '{}'
            report = json.loads(output.strip().splitlines()[-1])
            node.send_signal(signal.SIGINT)
            try:
                log = node.communicate(timeout=20)[1]
            except subprocess.TimeoutExpired:
                node.kill()
                log = ''
    match = re.search(r'statistics: (\d+) joint_states messages received, (\d+) /tf', log)
    processed, published = (int(match.group(1)), int(match.group(2))) if match else (0, 0)
    received = int(report.get('tf_messages', 0))
    rate = sent / elapsed
    # Node totals include the warm-up messages (all counted as if received: a conservative
    # bound) and the /tf it publishes once at startup.
    processed_stream, published_stream = processed - warm_ups, published - warm_ups - 1
    print(f'  sent {sent} JointState in {elapsed:.2f} s ({rate:.0f} Hz): the node processed '
          f'{processed_stream} and published {published_stream} /tf messages (node CPU {cpu:.0%} '
          f'of one core); a third process received {received} ({received / max(sent, 1):.1%}: '
          'what DDS delivers on /tf, KEEP_LAST 100 as tf2_ros, with three processes on two cores; '
          f'its CPU {counter_cpu:.0%} of one core)')
    return rate >= 0.98 * RATE_HZ and processed_stream >= sent and published_stream >= sent


def counter_ready(counter: subprocess.Popen) -> bool:
    line = counter.stdout.readline() if counter.stdout else ''
    return 'ready' in line


def _wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _stream(publisher, names: list[str], seconds: float) -> tuple[int, float]:
    """Publish at RATE_HZ with a sleep-to-deadline loop; returns (messages sent, start time)."""
    from sensor_msgs.msg import JointState
    period = 1.0 / RATE_HZ
    start = time.monotonic()
    sent = 0
    msg = JointState(name=names, position=[0.0] * len(names))
    while True:
        now = time.monotonic()
        if now - start >= seconds:
            break
        angle = math.sin(now)
        msg.position = [angle] * len(names)
        # stamps from STREAM_SEC on mark the measured messages for the counter
        msg.header.stamp.sec, msg.header.stamp.nanosec = STREAM_SEC + sent // 1000, \
            (sent % 1000) * 1_000_000
        publisher.publish(msg)
        sent += 1
        delay = start + sent * period - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    return sent, start


def _warm_up(source, publisher, names: list[str]) -> int:
    """Publish stamped-at-1 s joint states until the node's /tf answer arrives here.

    Returns how many were published (0 if no answer came).

    Discovery is asymmetric: the publisher may see the node's subscription before the node's
    reader has matched it, and messages sent in between are lost. The measured stream starts
    only once a round trip has been seen.
    """
    from rclpy.qos import QoSProfile
    from sensor_msgs.msg import JointState
    from tf2_msgs.msg import TFMessage
    answered = []
    subscription = source.create_subscription(
        TFMessage, '/tf', lambda msg: answered.append(msg.transforms[0].header.stamp.sec == 1),
        QoSProfile(depth=100))
    deadline = time.monotonic() + 30.0
    msg = JointState(name=names, position=[0.0] * len(names))
    msg.header.stamp.sec = 1
    published = 0
    try:
        while time.monotonic() < deadline and not any(answered):
            publisher.publish(msg)
            published += 1
            end = time.monotonic() + 0.1
            while time.monotonic() < end and not any(answered):
                rclpy.spin_once(source, timeout_sec=0.02)
    finally:
        source.destroy_subscription(subscription)
    return published if any(answered) else 0


def _cpu_seconds(pid: int) -> float:
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
