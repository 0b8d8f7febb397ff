"""What every robot_formats node does the same way: one ``main`` (:func:`run_node`), one policy
for bad parameters (:class:`StartupError`), latched QoS, guarded callbacks, and Ctrl-C/SIGTERM
ending ``spin()`` in the node's own code.

The parameter policy (docs/nodes.md): a parameter value a node cannot use (a rate that is not a
positive finite number, a choice outside its list, the wrong type, a value outside its
descriptor's range) is refused when the node starts: it exits 1 with the reason, before
serving anything. At run time rclpy refuses such values at set time (the descriptors carry the
ranges). What a parameter *names* (a description or problem file, a robot's settings) is loaded
by the node: a file that does not load is an error of that load, the node keeps running and
answers with the error until a ``~/reload`` succeeds.
"""

from __future__ import annotations

import faulthandler
import functools
import math
import signal
import sys
from typing import Callable

import rclpy
from rclpy.exceptions import ParameterException
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

__all__ = ['JOINT_STATES_QOS_CHOICES', 'LATCHED_QOS', 'StartupError', 'choice', 'guarded',
           'ignore_further_interrupts', 'joint_states_qos', 'positive', 'StopRequest',
           'STOP_POLL', 'ranged', 'run_node', 'RATE_RANGE',
           'CAP_RANGE', 'PERIOD_RANGE']


class StartupError(Exception):
    """A parameter value the node cannot use: the node exits 1 with this sentence."""


def positive(node: Node, name: str, unit: str = 'Hz', allow_zero: bool = False) -> float:
    """A rate (Hz) or period parameter: a positive finite number (or 0 when ``allow_zero``,
    which the node documents, e.g. "no cap"); anything else is a :class:`StartupError`."""
    value = float(node.get_parameter(name).value)
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        need = 'a finite number >= 0' if allow_zero else 'a positive finite number'
        raise StartupError(f'parameter {name} is {value:g}; it must be {need} ({unit})')
    return value


#: The ranges the nodes' parameter descriptors carry (rclpy refuses values outside them when
#: the node starts and at set time): rates in Hz (0 where the node documents "no cap") and
#: periods in seconds.
RATE_RANGE = (0.001, 100_000.0)
CAP_RANGE = (0.0, 100_000.0)
PERIOD_RANGE = (1e-6, 3600.0)


def ranged(descriptor: ParameterDescriptor, low: float, high: float) -> ParameterDescriptor:
    """``descriptor`` with an inclusive floating-point range (shown by ``ros2 param describe``,
    enforced by rclpy)."""
    descriptor.floating_point_range = [FloatingPointRange(from_value=low, to_value=high, step=0.0)]
    return descriptor


def choice(node: Node, name: str, options: tuple[str, ...]) -> str:
    """A parameter that names one of ``options``; anything else is a :class:`StartupError`."""
    value = str(node.get_parameter(name).value)
    if value not in options:
        raise StartupError(f'parameter {name} is {value!r}, not one of {", ".join(options)}')
    return value


#: How long the executor waits for work before looking at the stop request again (s): the
#: latency of Ctrl-C, and the only periodic wake-up a node without timers has.
STOP_POLL = 0.05
#: a stop still under way this many seconds after it was requested prints every thread's stack
STOP_REPORT_AFTER = 3.0


def run_node(name: str, make_node: Callable[[], Node], args: list[str] | None = None, *,
             make_executor: Callable[[], Executor] | None = None,
             before_destroy: Callable[[Node], int | None] | None = None,
             refused: tuple[type, ...] = (),
             until: Callable[[Node], bool] | None = None) -> int:
    """Every node's ``main``: initialise rclpy, build the node (a :class:`StartupError`, an
    rclpy ParameterException or one of ``refused`` ends it with exit 1 and the reason on
    stderr), spin it until Ctrl-C / SIGTERM / an external shutdown (or ``until(node)`` is
    true), then ``before_destroy`` (e.g. a statistics line, or writing what the node made; an
    int it returns is the exit code) and destroy it: exit 0.

    SIGINT and SIGTERM only *request* the stop (:class:`StopRequest`): nothing is interrupted
    half-way. A KeyboardInterrupt raised into the middle of the node's start-up (an import of
    MuJoCo under way, say) would be turned into another error by that code and lost, and the
    node would then never stop. The request is honoured when the node is built, between two
    pieces of work of the executor (at most :data:`STOP_POLL` later); the context is still
    valid for ``before_destroy``. A stop (``before_destroy``, destroying the node, shutting
    rclpy down, the process' exit, where the DDS participant goes) still under way
    :data:`STOP_REPORT_AFTER` seconds after it began prints every thread's stack to stderr, so a
    stop that hangs until ros2 launch escalates to SIGTERM shows where it hung (the report stays
    armed after the return: ``main`` is meant to end the process)."""
    stop = StopRequest()
    code: int | None = None
    try:
        with rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO):
            try:
                node = make_node()
            except (StartupError, ParameterException, *refused) as err:
                print(f'{name}: {err}', file=sys.stderr, flush=True)
                return 1
            executor = make_executor() if make_executor is not None else SingleThreadedExecutor()
            executor.add_node(node)
            try:
                while not stop.requested and rclpy.ok():
                    executor.spin_once(timeout_sec=STOP_POLL)
                    if until is not None and until(node):
                        break
            except ExternalShutdownException:
                pass
            ignore_further_interrupts()
            faulthandler.dump_traceback_later(STOP_REPORT_AFTER)  # a stop that hangs says where
            code = before_destroy(node) if before_destroy is not None else None
            executor.shutdown()
            node.destroy_node()
    except ExternalShutdownException:
        pass
    return code or 0


class StopRequest:
    """SIGINT/SIGTERM handlers that record a request to stop instead of raising anything, also
    for SIGINT when the process was started with it ignored (``cmd &``). After the first
    signal, further SIGINTs are ignored (a terminal's Ctrl-C reaches a node twice: directly and
    forwarded by ros2 launch / ros2 run); a second SIGTERM ends a stop that hangs."""

    def __init__(self) -> None:
        self.requested = False
        signal.signal(signal.SIGINT, self._request)
        signal.signal(signal.SIGTERM, self._request)

    def _request(self, signum: int, frame: object) -> None:
        self.requested = True
        ignore_further_interrupts()


#: robot_description and /tf_static as robot_state_publisher offers them: late subscribers get
#: the last message.
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)

#: Values of the ``joint_states_qos`` parameter of the nodes that turn joint states into TF.
JOINT_STATES_QOS_CHOICES = ('sensor_data', 'reliable')


def joint_states_qos(node: Node) -> QoSProfile:
    """The joint_states subscription's QoS for the node's ``joint_states_qos`` parameter, one of
    :data:`JOINT_STATES_QOS_CHOICES` (another value is a :class:`StartupError`).

    ``sensor_data``: best effort, as robot_state_publisher, so every publisher can connect;
    ``reliable``: no loss from reliable publishers (best-effort ones cannot connect)."""
    if choice(node, 'joint_states_qos', JOINT_STATES_QOS_CHOICES) == 'reliable':
        return QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    return QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT)


def guarded(callback=None, *, throttle_sec: float = 10.0):
    """Decorate a node method so an unexpected exception is logged instead of ending the node.

    ``@guarded`` logs at most one such error per ``throttle_sec`` (a callback at 1 kHz must not
    flood the log); ``@guarded(throttle_sec=0)`` logs every one."""
    if callback is None:
        return functools.partial(guarded, throttle_sec=throttle_sec)
    log_options = {'throttle_duration_sec': throttle_sec} if throttle_sec else {}

    @functools.wraps(callback)
    def guarded_callback(self, *args):
        try:
            return callback(self, *args)
        except Exception as err:  # noqa: BLE001 - nothing may take the node down
            self.get_logger().error(f'internal error in {callback.__name__}: '
                                    f'{type(err).__name__}: {err}', **log_options)
            return None
    return guarded_callback


def ignore_further_interrupts() -> None:
    """Once shutting down, let a second Ctrl-C (the terminal's, after ros2 launch's or ros2
    run's) pass instead of breaking the clean shutdown; SIGTERM still ends the process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
