"""The largest scenes: a generated 5,000-link tree and a 1,000-model world in description_publisher.

For each scene, inside one process (a real ``DescriptionPublisher`` node and a listener node on
one executor, DDS on loopback):

* served: the time from creating the node (load, URDF, static transforms) until the listener
  has ``robot_description`` (the node's URDF, byte for byte) and a tf2_ros Buffer holds every
  static transform (/tf_static); after the /tf stream below, every frame of the description
  resolves to its root [served, TF complete];
* /tf: joint_states for the scene's moving joints sent to the node's callback at 100 Hz (paced
  by the clock), each ``joint_states_callback`` timed (positions in, /tf message published),
  as ``tf_callback`` times the 100-joint robot; median and p99 of its thread's CPU time, judged
  (the machine may be shared: a wall-clock p99 there measures the other processes), and of the
  wall clock, printed [tree: 1,000 moving joints, CPU p99 ≤ 2 ms; the world's 2,000 moving
  joints are reported];
* memory: what a loaded scene keeps (``robot_formats.load``: scene and kinematic tree), and
  what the node keeps (``Description``: that plus URDF text, solver and static transforms),
  traced by tracemalloc (Python and numpy allocations), per 1,000 links [reported].

The tree: 5,000 links, 4,999 joints of which 1,000 move (revolute, continuous, prismatic) and
the others are fixed, random geometry, each link's parent among the fifth of the links before
it (chains of a few dozen links: tf2 refuses chains deeper than 1,000). The world:
benchmarks/sdformat_load.py's generated world of 1,000 included models (4 links, 2 revolute
joints, frames and a nested model each: 4,000 links, 2,000 moving joints).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

from .tf_stream import generated_urdf

TARGET_P99 = 2e-3
RATE_HZ = 100.0
MESSAGES = 500          # 5 s at 100 Hz
TREE_LINKS = 5000
TREE_MOVING = 1000
WORLD_MODELS = 1000
SERVE_TIMEOUT = 60.0


def generated_tree(links: int = TREE_LINKS, moving: int = TREE_MOVING, seed: int = 11) -> str:
    """A URDF tree of ``links`` links; ``moving`` of its joints move, spread evenly; chains of
    a few dozen links at most (tf2 refuses chains deeper than 1,000)."""
    joints = links - 1
    moving_at = {round(i * joints / moving) + 1 for i in range(moving)}
    return generated_urdf('scale_tree', links, seed, lambda index: index * 4 // 5, moving_at)


def _domain() -> int:
    return int(os.environ.get('ROS_DOMAIN_ID', '150'))


def memory(path: Path) -> tuple[int, int, int]:
    """(links, bytes a LoadResult keeps, bytes a Description keeps), traced by tracemalloc."""
    import robot_formats
    from robot_formats.runtime.description import Description
    robot_formats.load(path)  # imports and one-time tables outside the trace
    Description.load(path)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = robot_formats.load(path)
        loaded = tracemalloc.get_traced_memory()[0] - before
        del result
        before = tracemalloc.get_traced_memory()[0]
        description = Description.load(path)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    links = sum(len(model.links) for model in description.scene.models)
    return links, loaded, kept


def serve(path: Path, messages: int = MESSAGES) -> dict:
    """Serve ``path`` in a DescriptionPublisher node; see the module docstring."""
    import numpy as np
    import rclpy
    import rclpy.time
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String
    from tf2_ros import Buffer, TransformListener

    from robot_formats.nodes.description_publisher import DescriptionPublisher

    out: dict = {}
    with rclpy.init(domain_id=_domain()):
        listener_node = rclpy.create_node('scale_benchmark_listener')
        buffer = Buffer()
        listener = TransformListener(buffer, listener_node, spin_thread=False)
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        received: list[str] = []
        listener_node.create_subscription(String, 'robot_description',
                                          lambda msg: received.append(msg.data), latched)
        executor = SingleThreadedExecutor()
        executor.add_node(listener_node)
        start = time.perf_counter()
        node = DescriptionPublisher(parameter_overrides=[
            Parameter('description_file', value=str(path)),
            Parameter('publish_frequency', value=0.0)])  # no rate cap: time every message
        out['created'] = time.perf_counter() - start
        executor.add_node(node)
        description = node.description
        if description is None:
            raise RuntimeError(f'description_publisher did not load {path}')
        tree = description.urdf_tree
        frames = [name for name in tree.forward({}) if name != tree.root]
        static = [(t.parent, t.child) for t in description.static]
        latest = rclpy.time.Time()

        def wait(pairs: list[tuple[str, str]], until: float) -> list[tuple[str, str]]:
            """Spin until robot_description is in and every pair resolves; the unresolved."""
            pending = list(pairs)
            while time.perf_counter() < until:
                executor.spin_once(timeout_sec=0.01)
                pending = [p for p in pending if not buffer.can_transform(*p, latest)]
                if received and not pending:
                    break
            return pending

        # robot_description and /tf_static (latched) first; the moving joints' /tf follows
        # joint_states, as robot_state_publisher's does
        pending_static = wait(static, start + SERVE_TIMEOUT)
        out['served'] = time.perf_counter() - start
        out['description_ok'] = bool(received) and received[-1] == description.robot_description
        out['static'], out['static_unresolved'] = len(static), len(pending_static)
        names = list(description.dof_names)
        out['moving'] = len(description.solver.moving)
        rng = np.random.default_rng(1)
        batch = [JointState(name=names, position=rng.uniform(-1.5, 1.5, len(names)).tolist())
                 for _ in range(messages)]
        # unstamped: the node stamps them with its clock (a stamp older than the first /tf
        # would be dropped by tf2 as old data)
        for msg in batch[:20]:
            node.joint_states_callback(msg)  # warm up: the plan and its message template
        samples, cpu = [], []
        period = 1.0 / RATE_HZ
        begin = time.perf_counter()
        for index, msg in enumerate(batch):
            delay = begin + index * period - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            tick, cpu_tick = time.perf_counter(), time.thread_time()
            node.joint_states_callback(msg)
            samples.append(time.perf_counter() - tick)
            cpu.append(time.thread_time() - cpu_tick)
        out['rate'] = len(batch) / (time.perf_counter() - begin)
        samples.sort()
        out['median'] = statistics.median(samples)
        out['p99'] = samples[int(len(samples) * 0.99)]
        out['max'] = samples[-1]
        cpu.sort()
        out['cpu_median'], out['cpu_p99'] = statistics.median(cpu), cpu[int(len(cpu) * 0.99)]
        # after the stream: the whole tree, moving frames included, resolves to the root
        pending = wait([(tree.root, f) for f in frames], time.perf_counter() + SERVE_TIMEOUT)
        out['frames'], out['unresolved'] = len(frames), len(pending)
        listener.unregister()
        executor.shutdown()
        node.destroy_node()
        listener_node.destroy_node()
    return out


def _report(label: str, path: Path, judge_p99: bool) -> bool:
    links, loaded, kept = memory(path)
    result = serve(path)
    complete = (result['description_ok'] and result['static_unresolved'] == 0
                and result['unresolved'] == 0)
    print(f'  {label}: {links} links, {result["moving"]} moving joints, {result["static"]} '
          f'static transforms')
    print(f'    served: node created (load, URDF, static transforms) in {result["created"]:.2f} '
          f's; robot_description {"received" if result["description_ok"] else "NOT received"} '
          f'and {result["static"] - result["static_unresolved"]}/{result["static"]} static '
          f'transforms in the tf2 Buffer {result["served"]:.2f} s after the start; after the '
          f'joint_states stream {result["frames"] - result["unresolved"]}/{result["frames"]} '
          f'frames resolve to the root: {"met" if complete else "MISSED"}')
    # judged on the callback's CPU time (its thread's), as sdformat_load judges CPU time: the
    # benchmark machine may be shared, and a wall-clock p99 then measures the other processes
    p99_ok = result['cpu_p99'] <= TARGET_P99
    verdict = ('met' if p99_ok else 'MISSED') if judge_p99 else 'reported'
    print(f'    /tf: {MESSAGES} joint_states at {result["rate"]:.0f} Hz; callback CPU time median '
          f'{result["cpu_median"] * 1e3:.3f} ms, p99 {result["cpu_p99"] * 1e3:.3f} ms (wall '
          f'clock median {result["median"] * 1e3:.3f} ms, p99 {result["p99"] * 1e3:.3f} ms, max '
          f'{result["max"] * 1e3:.3f} ms); target CPU p99 <= {TARGET_P99 * 1e3:.0f} ms for '
          f'1,000 moving joints: {verdict}')
    print(f'    memory (tracemalloc): load() keeps {loaded / 2**20:.1f} MiB = '
          f'{loaded / links * 1000 / 2**20:.2f} MiB per 1,000 links; the node\'s Description '
          f'{kept / 2**20:.1f} MiB = {kept / links * 1000 / 2**20:.2f} MiB per 1,000 links')
    return complete and (p99_ok or not judge_p99)


def run_tree(seconds: float = 0.0) -> bool:
    """The 5,000-link tree with 1,000 moving joints [served, TF complete, p99 <= 2 ms]."""
    with tempfile.TemporaryDirectory(prefix='scale_tree_') as tmp:
        path = Path(tmp) / 'scale_tree.urdf'
        path.write_text(generated_tree())
        return _report('generated tree', path, judge_p99=True)


def run_world(seconds: float = 0.0) -> bool:
    """The 1,000-model world [served, TF complete; /tf p99 reported]."""
    from .sdformat_load import generated_world
    with tempfile.TemporaryDirectory(prefix='scale_world_') as tmp:
        path = generated_world(Path(tmp), WORLD_MODELS)
        return _report(f'world of {WORLD_MODELS} included models', path, judge_p99=False)
