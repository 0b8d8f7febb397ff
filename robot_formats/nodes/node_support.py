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

import argparse
import copy
import faulthandler
import functools
import inspect
import math
import signal
import sys
import textwrap
from typing import Any, Callable, TypeVar

import rclpy
from rclpy.exceptions import ParameterException
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.signals import SignalHandlerOptions
from rclpy.time_source import USE_SIM_TIME_NAME
from rclpy.type_description_service import START_TYPE_DESCRIPTION_SERVICE_PARAM
from rclpy.utilities import remove_ros_args

from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor, SetParametersResult
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

__all__ = ['CAP_RANGE', 'JOINT_STATES_QOS_CHOICES', 'LATCHED_QOS', 'PERIOD_RANGE',
           'ParameterListing', 'RATE_RANGE', 'STOP_POLL', 'StartupError', 'StopRequest', 'TF_QOS',
           'choice', 'declare_array', 'guarded', 'ignore_further_interrupts', 'joint_states_qos',
           'node_usage', 'positive', 'ranged', 'run_node']


#: The node class a :func:`run_node` builds, spins and hands to its callbacks.
NodeT = TypeVar('NodeT', bound=Node)


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


def declare_array(node: Any, name: str, kind: Parameter.Type,
                  descriptor: ParameterDescriptor) -> None:
    """Declare the array parameter ``name`` of type ``kind`` (``Parameter.Type.STRING_ARRAY``,
    ...) whose default is the empty array, on a node or a :class:`ParameterListing`.

    rclpy takes a default's type from its value, and reads an empty list as a byte array; a
    parameter declared with its type and no value instead is "uninitialized", and rclpy answers
    any GetParameters request naming one with no values at all (``ros2 param dump`` prints
    ``{}`` for the whole node). So the parameter is declared with its type, then given the
    typed empty array unless an override set a value, and only then made read-only when
    ``descriptor`` says so (a read-only parameter cannot be set after its declaration). No
    set-parameter callback is registered yet when a node declares its parameters."""
    writable = copy.deepcopy(descriptor)
    writable.read_only = False
    node.declare_parameter(name, kind, writable)
    if node.get_parameter_or(name).type_ is Parameter.Type.NOT_SET:
        node.set_parameters([Parameter(name, kind, [])])
    if descriptor.read_only:
        descriptor.type = kind.value
        node.set_descriptor(name, descriptor)


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


def run_node(name: str, make_node: Callable[[], NodeT], args: list[str] | None = None, *,
             parameters: Callable[[Any], object] | None = None,
             make_executor: Callable[[], Executor] | None = None,
             before_destroy: Callable[[NodeT], int | None] | None = None,
             refused: tuple[type[Exception], ...] = (),
             until: Callable[[NodeT], bool] | None = None) -> int:
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
    armed after the return: ``main`` is meant to end the process).

    ``parameters`` declares every parameter the node takes on what it is given: the node, or
    a :class:`ParameterListing` for ``--help`` (one source for both). It defaults to the
    ``_declare_parameters`` method of ``make_node`` when that is a node class with one (the
    nodes' convention); a node with parameters declared later (per robot, per joint) gives a
    function that declares those too. With it, the arguments that are not ROS's are the node's
    own command line: ``-h``/``--help`` prints the node's usage and parameters and returns 0
    without initialising rclpy (nothing is loaded, nothing goes on DDS); any other argument,
    and an unknown or malformed ROS argument, is refused with exit 2. Without it (e.g.
    ``robot-formats record``, whose command line is :mod:`robot_formats.nodes.record`'s), the
    arguments are not looked at."""
    if parameters is None and isinstance(make_node, type):
        parameters = getattr(make_node, '_declare_parameters', None)
    if parameters is not None:
        answered = _node_command_line(name, parameters, args)
        if answered is not None:
            return answered
    stop = StopRequest()
    code: int | None = None
    startup_errors: tuple[type[Exception], ...] = (StartupError, ParameterException, *refused)
    try:
        with rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO):
            try:
                node = make_node()
            except startup_errors as err:
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


def _node_command_line(name: str, parameters: Callable[[Any], object],
                       args: list[str] | None) -> int | None:
    """The node's own arguments (``args``, else ``sys.argv``, without ROS's): None when the
    node may start, else the exit code (0 after ``--help``, 2 for a refused argument)."""
    try:
        own = remove_ros_args(args)[1:]  # [0] is the program
    except _rclpy.UnknownROSArgsError as err:
        print(f'{name}: unknown ROS arguments after --ros-args: {err} (see {name} --help)',
              file=sys.stderr, flush=True)
        return 2
    except _rclpy.RCLInvalidROSArgsError as err:
        print(f'{name}: {err}', file=sys.stderr, flush=True)
        return 2
    parser = argparse.ArgumentParser(
        prog=name, usage=f'ros2 run robot_formats {name} [-h] [--ros-args ARGUMENT ...]',
        description=_summary(inspect.getmodule(parameters)),
        epilog=node_usage(parameters), formatter_class=argparse.RawDescriptionHelpFormatter)
    try:
        parser.parse_args(own)
    except SystemExit as done:  # --help (0) or an argument argparse refuses (2)
        return done.code if isinstance(done.code, int) else 2
    return None


def _summary(module: object) -> str:
    """What the node does: the first paragraph of its module's docstring, without the
    ``name``: lead and the reST markup."""
    doc = inspect.getdoc(module) or ''
    first = ' '.join(doc.split('\n\n')[0].split())
    if first.startswith('``') and '``: ' in first:
        first = first.split('``: ', 1)[1]
    return textwrap.fill(first.replace('``', ''), width=79)


class ParameterListing:
    """Stands in for a node in its parameter-declaring methods (they call only
    ``declare_parameter``, ``has_parameter`` and, through :func:`declare_array`,
    ``get_parameter_or``, ``set_parameters`` and ``set_descriptor``) to list the parameters for
    ``--help`` without building the node: nothing is loaded, nothing is created on DDS.
    Per-robot or per-joint parameters are declared with a placeholder (``<robot>``,
    ``<joint>``) for the name."""

    def __init__(self) -> None:
        #: name -> (type, default or None, descriptor), in declaration order
        self.declared: dict[str, tuple[Parameter.Type, Any, ParameterDescriptor]] = {}

    def declare_parameter(self, name: str, value: Any = None,
                          descriptor: ParameterDescriptor | None = None,
                          ignore_override: bool = False) -> Parameter:
        """As :meth:`rclpy.node.Node.declare_parameter` with no overrides: the default."""
        if isinstance(value, Parameter.Type):
            kind, default = value, None
        else:
            kind, default = Parameter.Type.from_parameter_value(value), value
        self.declared[name] = (kind, default, descriptor or ParameterDescriptor())
        return Parameter(name, value=default)

    def has_parameter(self, name: str) -> bool:
        return name in self.declared

    def get_parameter_or(self, name: str, alternative: Parameter | None = None) -> Parameter:
        """The default, as rclpy's (``alternative``, or not set, for none)."""
        kind, default, _ = self.declared[name]
        if default is None:
            return alternative if alternative is not None else Parameter(name)
        return Parameter(name, kind, default)

    def set_parameters(self, parameters: list[Parameter]) -> list[SetParametersResult]:
        """The values become the defaults."""
        for parameter in parameters:
            _, _, descriptor = self.declared[parameter.name]
            self.declared[parameter.name] = (parameter.type_, parameter.value, descriptor)
        return [SetParametersResult(successful=True) for _ in parameters]

    def set_descriptor(self, name: str, descriptor: ParameterDescriptor) -> None:
        kind, default, _ = self.declared[name]
        self.declared[name] = (kind, default, descriptor)


#: rclpy's QoS override parameters (``QoSOverridingOptions``) as ``--help`` names them.
QOS_OVERRIDES = 'qos_overrides.<topic>.<entity>.<policy>'
#: The parameters rclpy declares on every node (the QoS overrides: on the topics whose code
#: allows them), shown after the node's own by ``--help``.
_RCLPY_PARAMETERS = (
    (USE_SIM_TIME_NAME, 'boolean, default false',
     'Take the time from /clock (a simulator, ros2 bag play --clock) instead of the system '
     'clock.'),
    (START_TYPE_DESCRIPTION_SERVICE_PARAM, 'boolean, default true, read-only',
     "Serve ~/get_type_description (the definitions of the node's message types)."),
    (QOS_OVERRIDES, 'read-only; depth: integer, history and reliability: string',
     "Only for the topics whose QoS the node lets you override (ros2 param list shows them; "
     'the node\'s documentation says which): <policy> (history, depth or reliability) of its '
     '<entity> (publisher or subscription) on <topic> (the full name), e.g. '
     'qos_overrides./joint_states.subscription.reliability:=reliable; default: the QoS the '
     'node chose.'),
)


def node_usage(parameters: Callable[[Any], object]) -> str:
    """The parameters ``parameters`` declares, with type, default, range and description, then
    rclpy's own (``--help``)."""
    listing = ParameterListing()
    parameters(listing)
    lines = ['parameters (--ros-args -p NAME:=VALUE ..., or --params-file FILE):']
    for name, (kind, default, descriptor) in listing.declared.items():
        lines += _parameter_entry(name, _facts(kind, default, descriptor), descriptor.description)
    lines += ['', 'parameters rclpy declares:']
    for name, facts, description in _RCLPY_PARAMETERS:
        lines += _parameter_entry(name, facts, description)
    return '\n'.join(lines)


def _parameter_entry(name: str, facts: str, description: str) -> list[str]:
    return [f'  {name}  ({facts})', *textwrap.wrap(description, width=79, initial_indent=' ' * 6,
                                                    subsequent_indent=' ' * 6)]


def _facts(kind: Parameter.Type, default: Any, descriptor: ParameterDescriptor) -> str:
    """``type, default X[, range A to B][, read-only]``, in ``ros2 param describe``'s words."""
    facts = [kind.name.lower().replace('bool', 'boolean').replace('_', ' ')]
    if default is None:
        facts.append('no default')
    elif isinstance(default, bool):
        facts.append(f'default {str(default).lower()}')
    elif isinstance(default, str):
        facts.append(f"default '{default}'")
    elif isinstance(default, (list, tuple)):  # as typed after -p NAME:= (no ', ' inside)
        facts.append(f"default [{','.join(repr(v) for v in default)}]")
    else:
        facts.append(f'default {default!r}')
    for bounds in (*descriptor.floating_point_range, *descriptor.integer_range):
        facts.append(f'range {bounds.from_value:g} to {bounds.to_value:g}')
    if descriptor.read_only:
        facts.append('read-only')
    return ', '.join(facts)


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
#: /tf as tf2_ros publishes it.
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                    durability=DurabilityPolicy.VOLATILE)

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
