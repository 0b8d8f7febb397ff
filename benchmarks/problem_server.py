"""problem_server under a planner's load [issues 6 and 15], over DDS on loopback.

1. ``get_grasps`` of kitchen.xml's glass1 with 360 samples per continuous set (2 sets: 720
   grasps in the world frame), against a trivial service of the same node in the same run
   (``list_objects``: a few names; same node, same executor, same client, calls interleaved so
   both see the same machine load), while both robots' joint states stream at 100 Hz from
   another process and the node turns each into /tf (``publish_frequency`` 0: 200 joint states
   and 200 /tf messages a second, its own /tf read back by its tf2 listener). Measured again
   without joint states, and with glass1 attached to pr2's moving left gripper (every answer
   computed anew), for information. Reported: the server time of get_grasps (the callback plus
   serialising its response, measured in-process with the node's own code) and the client's
   round trip, median and p99, each as a ratio to the trivial service's round-trip p99
   [both ≤ 3×]. The target is measured on the packed answer (``packed: true``: ids, types and
   a float64[] of poses), the form for planners asking for many grasps; the Grasp[] answer is
   measured too and printed for information: rclpy builds one Python object per message and
   sub-message on the receiving side (~4 per grasp), which costs a client tens of ms for 720
   grasps whatever the server does.
2. A sustained mixed load: 4 client processes send 125 requests/s each (500/s in total) for 30 s,
   cycling through get_grasps (360 samples packed; 16 samples as Grasp[]), list_objects,
   get_object, get_placements and get_action_joints without waiting for answers (a request is
   sent on schedule even while earlier ones are pending; answers are taken by the node's
   DrainingExecutor with the node's SERVICE_QOS, as docs/guide-planner.md advises clients
   with many requests in flight). A failure is an answer with success=false, a wrong count, or no
   answer within 5 s. Reported: achieved rate, failures, latency p50/p99 [no failure, ≥ 98% of
   the requested rate].

In ``make bench``'s rounds against the landed main (benchmarks/__main__.py), a round takes its
share of the 400 timed calls of part 1 (100 at least) and of the 30 s of part 2 (10 s at least).

The node runs in its own process (``python -m robot_formats.nodes.problem_server``) like in a
deployment; ROS_DOMAIN_ID comes from benchmarks/__main__ and discovery stays on this machine.

    python -m benchmarks.problem_server [--only latency|load] [--load-seconds S]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections import deque
from pathlib import Path

from . import checkout
from .report import RUN_TIME, record, share, share_seconds

ROOT = Path(__file__).resolve().parents[1]
PROBLEM = ROOT / 'examples' / 'tmp' / 'kitchen.xml'
NODE = '/problem_server'
SAMPLES = 360
GRASPS_PER_ANSWER = 2 * SAMPLES  # glass1 has two continuous sets
TARGET_RATIO = 3.0
LATENCY_CALLS = 400
CLIENTS = 4
TOTAL_RATE = 500.0
LOAD_SECONDS = 30.0
ANSWER_TIMEOUT = 5.0
STREAM_RATE = 100.0  #: Hz of each robot's joint states while latency is measured

#: The load's request cycle: (service, type name, request fields, expected count or None).
MIX = [
    ('get_grasps', 'GetGrasps', {'object': 'glass1', 'samples': SAMPLES, 'packed': True},
     GRASPS_PER_ANSWER),
    ('list_objects', 'ListObjects', {}, 6),
    ('get_object', 'GetObject', {'name': 'tray'}, None),
    ('get_placements', 'GetPlacements', {'object': 'cup1', 'support': 'dining_table',
                                         'samples': 16}, 16),
    ('get_action_joints', 'GetActionJoints', {'action': 'pick-left'}, 9),
    ('get_grasps', 'GetGrasps', {'object': 'cup1', 'samples': 16}, 2),
]


def _label(service: str, fields: dict) -> str:
    return f'{service}({", ".join(f"{k}={v}" for k, v in fields.items())})'


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def _answer_count(answer) -> int:
    if hasattr(answer, 'grasps'):
        return len(answer.ids) if len(answer.ids) else len(answer.grasps)
    for field in ('placements', 'names', 'joints'):
        if hasattr(answer, field):
            return len(getattr(answer, field))
    return 1


def _start_server(publish_frequency: float = 10.0) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, '-m', 'robot_formats.nodes.problem_server',
                             '--ros-args', '-p', f'problem_file:={PROBLEM}',
                             '-p', f'publish_frequency:={publish_frequency}'],
                            env=dict(os.environ), cwd=checkout.child_cwd(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _stop(process: subprocess.Popen) -> str:
    process.send_signal(signal.SIGINT)
    try:
        return process.communicate(timeout=20)[1] or ''
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate()[1] or ''


def _clients(node, names: list[tuple[str, str]]) -> dict:
    """Clients with the node's own service QoS (1000 waiting answers, not ROS' 10), as
    docs/guide-planner.md advises for clients with many requests in flight."""
    import robot_formats_interfaces.srv as srv
    from robot_formats.nodes.problem_server import SERVICE_QOS
    return {service: node.create_client(getattr(srv, kind), f'{NODE}/{service}',
                                        qos_profile=SERVICE_QOS)
            for service, kind in names}


def _wait_for_services(clients: dict, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    return all(client.wait_for_service(timeout_sec=max(0.0, deadline - time.monotonic()))
               for client in clients.values())


def _call(node, client, request, timeout: float = ANSWER_TIMEOUT, executor=None):
    import rclpy
    future = client.call_async(request)
    rclpy.spin_until_future_complete(node, future, executor=executor, timeout_sec=timeout)
    if not future.done():
        client.remove_pending_request(future)
        return None
    return future.result()


# --- 1. get_grasps against a trivial service -------------------------------------------------

def server_time(packed: bool) -> list[float]:
    """Seconds per get_grasps answer inside the node's code: callback + serialisation."""
    import rclpy
    from rclpy.parameter import Parameter
    from rclpy.serialization import serialize_message
    from robot_formats_interfaces.srv import GetGrasps

    from robot_formats.nodes.problem_server import ProblemServer

    with rclpy.init(domain_id=int(os.environ.get('ROS_DOMAIN_ID', '150'))):
        node = ProblemServer(node_name='problem_server_timing', parameter_overrides=[
            Parameter('problem_file', value=str(PROBLEM)),
            Parameter('publish_frequency', value=0.0)])
        request = GetGrasps.Request(object='glass1', samples=SAMPLES, packed=packed)
        times = []
        for index in range(share(LATENCY_CALLS, 100) + 20):
            start = time.perf_counter()
            response = node.get_grasps(request, GetGrasps.Response())
            serialize_message(response)
            if index >= 20:
                times.append(time.perf_counter() - start)
            assert response.success and _answer_count(response) == GRASPS_PER_ANSWER
        node.destroy_node()
    return times


def round_trips(streaming: bool, carried: bool = False
                ) -> tuple[list[float], list[float], list[float]] | None:
    """(packed get_grasps, Grasp[] get_grasps, list_objects) client round trips, interleaved,
    in seconds. ``streaming``: both robots' joint states at STREAM_RATE from another process,
    each turned into /tf (publish_frequency 0). ``carried``: glass1 attached to pr2's left
    gripper first, so it moves with every joint state (no answer can be reused)."""
    import rclpy
    from robot_formats_interfaces.srv import AttachObject, GetGrasps, ListObjects

    server = _start_server(0.0 if streaming else 10.0)
    streamer = _start_streamer() if streaming else None
    try:
        if streamer is not None and 'ready' not in streamer.stdout.readline():
            print(f'  the joint state streamer did not start: {streamer.stdout.read()}')
            return None
        with rclpy.init(domain_id=int(os.environ.get('ROS_DOMAIN_ID', '150'))):
            node = rclpy.create_node('bench_problem_client')
            clients = _clients(node, [('get_grasps', 'GetGrasps'),
                                      ('list_objects', 'ListObjects'), ('attach', 'AttachObject')])
            if not _wait_for_services(clients, 30.0):
                print('  problem_server did not offer its services within 30 s')
                return None
            if carried:
                answer = _call(node, clients['attach'], AttachObject.Request(
                    object='glass1', parent='pr2/l_gripper_tool_frame'))
                if answer is None or not answer.success:
                    print(f'  attach failed: {answer.message if answer else "no answer"}')
                    return None
            packed_request = GetGrasps.Request(object='glass1', samples=SAMPLES, packed=True)
            messages_request = GetGrasps.Request(object='glass1', samples=SAMPLES)
            trivial_request = ListObjects.Request()
            packed, messages, trivial = [], [], []
            cpu, began = _cpu_seconds(server.pid), time.monotonic()
            for index in range(share(LATENCY_CALLS, 100) + 20):
                calls = [(packed_request, clients['get_grasps'], packed),
                         (trivial_request, clients['list_objects'], trivial)]
                if index % 4 == 0:  # slow to receive: a quarter as many
                    calls.append((messages_request, clients['get_grasps'], messages))
                for request, client, out in calls:
                    start = time.perf_counter()
                    answer = _call(node, client, request)
                    elapsed = time.perf_counter() - start
                    if answer is None or not answer.success:
                        print(f'  a {client.srv_name} call failed')
                        return None
                    if client is clients['get_grasps'] and \
                            _answer_count(answer) != GRASPS_PER_ANSWER:
                        print(f'  get_grasps answered {_answer_count(answer)} grasps')
                        return None
                    if index >= 20:
                        out.append(elapsed)
            busy = (_cpu_seconds(server.pid) - cpu) / (time.monotonic() - began)
            print(f'    node CPU {busy:.0%} of one core; load average {os.getloadavg()[0]:.1f}')
            node.destroy_node()
    finally:
        if streamer is not None:
            print(f'    {_stop_streamer(streamer)}')
        _stop(server)
    return packed, messages, trivial


# --- joint states of both robots, streamed from another process ------------------------------

def _start_streamer() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, '-m', 'benchmarks.problem_server', '--stream'],
                            cwd=checkout.child_cwd(), env=dict(os.environ),
                            stdout=subprocess.PIPE, text=True)


def _stop_streamer(streamer: subprocess.Popen) -> str:
    streamer.send_signal(signal.SIGINT)
    try:
        return streamer.communicate(timeout=20)[0].strip().splitlines()[-1]
    except (subprocess.TimeoutExpired, IndexError):
        streamer.kill()
        return 'the joint state streamer did not report'


def stream_joint_states() -> None:
    """Every DoF of every robot of PROBLEM on /<robot>/joint_states at STREAM_RATE (each a slow
    sine, stamped), on an absolute schedule, until SIGINT; prints 'ready' once problem_server
    subscribes, then what was sent."""
    import math

    import rclpy
    from sensor_msgs.msg import JointState

    from robot_formats.formats import read_problem

    robots = read_problem(str(PROBLEM)).robots
    stop = []
    signal.signal(signal.SIGINT, lambda *_: stop.append(True))
    with rclpy.init(domain_id=int(os.environ.get('ROS_DOMAIN_ID', '150')),
                    signal_handler_options=rclpy.signals.SignalHandlerOptions.NO):
        node = rclpy.create_node('bench_joint_states')
        publishers = {name: node.create_publisher(JointState, f'/{name}/joint_states', 10)
                      for name in robots}
        deadline = time.monotonic() + 30.0
        while any(p.get_subscription_count() < 1 for p in publishers.values()):
            if time.monotonic() > deadline:
                print('problem_server did not subscribe within 30 s', flush=True)
                return
            rclpy.spin_once(node, timeout_sec=0.05)
        print('ready', flush=True)
        sent, start = 0, time.monotonic()
        while not stop:
            t = sent / STREAM_RATE
            for name, publisher in publishers.items():
                dofs = robots[name].dof_names
                msg = JointState(name=list(dofs),
                                 position=[0.2 * math.sin(t + 0.1 * i) for i in range(len(dofs))])
                msg.header.stamp = node.get_clock().now().to_msg()
                publisher.publish(msg)
            sent += 1
            time.sleep(max(0.0, start + sent / STREAM_RATE - time.monotonic()))
        elapsed = time.monotonic() - start
        node.destroy_node()
    print(f'joint states streamed: {sent} per robot in {elapsed:.1f} s '
          f'({sent / elapsed:.1f}/s each, {len(robots)} robots)', flush=True)


def run_latency() -> bool:
    """The target with both robots streaming; without them for reference, and with glass1 in a
    moving gripper (every answer computed anew) as information."""
    in_node = {packed: server_time(packed) for packed in (True, False)}
    ok = True
    for label, streaming, carried, target in (
            ('no joint states', False, False, False),
            (f'joint states of both robots at {STREAM_RATE:g} Hz, each turned into /tf', True,
             False, True),
            ('the same, glass1 carried by the moving pr2 gripper', True, True, False)):
        print(f'  {label}:')
        trips = round_trips(streaming, carried)
        if trips is None:
            return False
        ok = _report(in_node, *trips, target) and ok
    return ok


def _report(in_node: dict, packed: list[float], messages: list[float], trivial: list[float],
            target: bool) -> bool:
    trivial_p99 = _percentile(trivial, 0.99)
    print(f'    get_grasps glass1, {SAMPLES} samples per set ({GRASPS_PER_ANSWER} grasps, world '
          f'frame), interleaved with the trivial list_objects on the same node:')
    print(f'    list_objects round trip ({len(trivial)} calls): {_stats(trivial)}')
    ok = True
    rows = [('packed round trip', packed, target), ('Grasp[] round trip', messages, False)]
    if target:
        rows[1:1] = [('packed server time (callback + serialisation, no DDS)', in_node[True],
                      True)]
        rows.append(('Grasp[] server time (callback + serialisation, no DDS)', in_node[False],
                     False))
    for label, times, checked in rows:
        ratio = _percentile(times, 0.99) / trivial_p99
        if checked:
            record(f'problem_server get_grasps {label.split(" (")[0]} p99',
                   _percentile(times, 0.99) * 1e3, 'ms', RUN_TIME)
        verdict = (f'(target <= {TARGET_RATIO:g}x)' if checked else '(information)')
        print(f'    get_grasps {label} ({len(times)} calls): {_stats(times)} = {ratio:.2f}x '
              f'the trivial p99 {verdict}')
        ok = ok and (ratio <= TARGET_RATIO or not checked)
    return ok


def _stats(seconds: list[float]) -> str:
    return (f'median {statistics.median(seconds) * 1e3:.3f} ms, '
            f'p99 {_percentile(seconds, 0.99) * 1e3:.3f} ms')


# --- 2. sustained mixed load from several processes ------------------------------------------

def client_process(rate: float, seconds: float, offset: int) -> dict:
    """One load client: send on schedule, collect answers; a JSON-able report."""
    import rclpy
    import robot_formats_interfaces.srv as srv

    from robot_formats.nodes.executors import draining_executor

    with rclpy.init(domain_id=int(os.environ.get('ROS_DOMAIN_ID', '150'))):
        node = rclpy.create_node(f'bench_problem_load_{os.getpid()}')
        executor = draining_executor()  # takes every waiting answer, not one per wait
        executor.add_node(node)
        clients = _clients(node, [(s, k) for s, k, _, _ in MIX])
        if not _wait_for_services(clients, 30.0):
            return {'error': 'services not found within 30 s'}
        requests = [(clients[s], getattr(srv, k).Request(**fields), count, _label(s, fields))
                    for s, k, fields, count in MIX]
        for client, request, _, _ in requests:  # one answered round of each before the clock
            if _call(node, client, request, 30.0, executor) is None:
                return {'error': f'no answer from {client.srv_name} within 30 s'}
        print('ready', flush=True)
        sys.stdin.readline()  # the parent starts every client at once
        pending: deque = deque()  # (future, sent at, client, label), oldest first
        latencies: list[float] = []
        failures: list[str] = []

        def answered(future, sent_at: float, count: int | None, label: str) -> None:
            latencies.append(time.monotonic() - sent_at)
            answer = future.result()
            if not answer.success:
                failures.append(f'{label}: {answer.message}')
            elif count is not None and _answer_count(answer) != count:
                failures.append(f'{label}: {_answer_count(answer)} answers, expected {count}')

        sent = 0
        period = 1.0 / rate
        start = time.monotonic()
        while True:
            now = time.monotonic()
            sending = now - start < seconds
            if sending and now >= start + sent * period:
                client, request, count, label = requests[(sent + offset) % len(requests)]
                future = client.call_async(request)
                future.add_done_callback(functools.partial(answered, sent_at=now, count=count,
                                                           label=label))
                pending.append((future, now, client, label))
                sent += 1
                continue
            while pending and (pending[0][0].done() or now - pending[0][1] > ANSWER_TIMEOUT):
                future, _, client, label = pending.popleft()
                if not future.done():
                    client.remove_pending_request(future)
                    failures.append(f'{label}: no answer within {ANSWER_TIMEOUT:g} s')
            if not sending and not pending:
                break
            next_send = start + sent * period if sending else now + 0.01
            executor.spin_once(timeout_sec=max(0.0, min(next_send - now, 0.01)))
        timed_out = sum(1 for f in failures if f.endswith(f'within {ANSWER_TIMEOUT:g} s'))
        deadline = time.monotonic() + 5.0  # done-callbacks of the last answers run as tasks
        while len(latencies) + timed_out < sent and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.01)
        elapsed = time.monotonic() - start
        executor.shutdown()
        node.destroy_node()
    kinds: dict[str, int] = {}
    for failure in failures:
        kinds[failure] = kinds.get(failure, 0) + 1
    return {'sent': sent, 'answered': len(latencies), 'failures': kinds,
            'failed': len(failures), 'elapsed': elapsed, 'send_seconds': seconds,
            'latencies': latencies}


def run_load(seconds: float = LOAD_SECONDS) -> bool:
    server = _start_server()  # the load part: no joint states
    workers = []
    try:
        workers = [subprocess.Popen([sys.executable, '-m', 'benchmarks.problem_server',
                                     '--client', str(TOTAL_RATE / CLIENTS), str(seconds),
                                     str(index)], cwd=checkout.child_cwd(), env=dict(os.environ),
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                   for index in range(CLIENTS)]
        for worker in workers:
            line = worker.stdout.readline()
            if 'ready' not in line:
                print(f'  a load client did not start: {line.strip() or worker.stdout.read()}')
                return False
        cpu_before = _cpu_seconds(server.pid)
        clients_before = [_cpu_seconds(w.pid) for w in workers]
        for worker in workers:  # go
            worker.stdin.write('\n')
            worker.stdin.flush()
        time.sleep(seconds)  # the clients' send phase; their CPU is read before they exit
        clients_cpu = [(_cpu_seconds(w.pid) - before) / seconds
                       for w, before in zip(workers, clients_before)]
        cpu = (_cpu_seconds(server.pid) - cpu_before) / seconds
        reports = [json.loads(worker.communicate(timeout=seconds + 120)[0].strip()
                              .splitlines()[-1]) for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
        _stop(server)
    errors = [r['error'] for r in reports if 'error' in r]
    if errors:
        print(f'  load clients failed: {errors}')
        return False
    sent = sum(r['sent'] for r in reports)
    answered = sum(r['answered'] for r in reports)
    failed = sum(r['failed'] for r in reports)
    latencies = [v for r in reports for v in r['latencies']]
    rate = sent / seconds
    record(f'problem_server latency p99 at {TOTAL_RATE:g} requests/s',
           _percentile(latencies, 0.99) * 1e3, 'ms', RUN_TIME)
    print(f'  {CLIENTS} client processes x {TOTAL_RATE / CLIENTS:g} requests/s for {seconds:g} s '
          f'(mix: {", ".join(s for s, _, _, _ in MIX)}):')
    print(f'    sent {sent} ({rate:.1f}/s), answered {answered}, failures {failed}; latency '
          f'p50 {_percentile(latencies, 0.5) * 1e3:.2f} ms, p99 '
          f'{_percentile(latencies, 0.99) * 1e3:.2f} ms, max {max(latencies) * 1e3:.1f} ms; '
          f'node CPU {cpu:.0%} of one core, clients {", ".join(f"{c:.0%}" for c in clients_cpu)}; '
          f'load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores')
    kinds: dict[str, int] = {}
    for report in reports:
        for failure, count in report['failures'].items():
            kinds[failure] = kinds.get(failure, 0) + count
    for failure, count in sorted(kinds.items(), key=lambda item: -item[1])[:10]:
        print(f'    {count} x {failure}')
    return failed == 0 and answered == sent and rate >= 0.98 * TOTAL_RATE


def _cpu_seconds(pid: int) -> float:
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def run(seconds: float = 0.0, load_seconds: float = LOAD_SECONDS) -> bool:
    """Both parts; ``seconds`` (the sustained-rate option of make bench) is not used: the issue
    fixes the load at 30 s, which the runner's rounds share (10 s at least each)."""
    latency_ok = run_latency()
    load_ok = run_load(share_seconds(load_seconds, 10.0))
    return latency_ok and load_ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='python -m benchmarks.problem_server',
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--load-seconds', type=float, default=LOAD_SECONDS)
    parser.add_argument('--only', choices=('latency', 'load'))
    parser.add_argument('--client', nargs=3, metavar=('RATE', 'SECONDS', 'OFFSET'),
                        help=argparse.SUPPRESS)  # a load client process (run_load starts it)
    parser.add_argument('--stream', action='store_true',
                        help=argparse.SUPPRESS)  # the joint state streamer (round_trips)
    args = parser.parse_args(argv)
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.setdefault('ROS_DOMAIN_ID', str(150 + os.getpid() % 50))
    if args.stream:
        stream_joint_states()
        return 0
    if args.client:
        rate, seconds, offset = args.client
        print(json.dumps(client_process(float(rate), float(seconds), int(offset))), flush=True)
        return 0
    if args.only == 'latency':
        return 0 if run_latency() else 1
    if args.only == 'load':
        return 0 if run_load(args.load_seconds) else 1
    return 0 if run(load_seconds=args.load_seconds) else 1


if __name__ == '__main__':
    sys.exit(main())
