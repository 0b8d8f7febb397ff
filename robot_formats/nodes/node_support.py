"""What every robot_formats node does the same way: latched QoS, guarded callbacks, and
Ctrl-C/SIGTERM ending ``spin()`` in the node's own code."""

from __future__ import annotations

import functools
import signal

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

__all__ = ['JOINT_STATES_QOS_CHOICES', 'LATCHED_QOS', 'guarded', 'ignore_further_interrupts',
           'joint_states_qos', 'raise_keyboard_interrupt_on_signals']

#: robot_description and /tf_static as robot_state_publisher offers them: late subscribers get
#: the last message.
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)

#: Values of the ``joint_states_qos`` parameter of the nodes that turn joint states into TF.
JOINT_STATES_QOS_CHOICES = ('sensor_data', 'reliable')


def joint_states_qos(choice: str) -> tuple[QoSProfile, str | None]:
    """The joint_states subscription's QoS for a ``joint_states_qos`` parameter value, and a
    warning when the value is not one of :data:`JOINT_STATES_QOS_CHOICES` (sensor_data is used).

    ``sensor_data``: best effort, as robot_state_publisher, so every publisher can connect;
    ``reliable``: no loss from reliable publishers (best-effort ones cannot connect)."""
    if choice == 'reliable':
        return QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE), None
    warning = None
    if choice != 'sensor_data':
        warning = (f"joint_states_qos {choice!r} is not 'sensor_data' or 'reliable'; using "
                   "'sensor_data'")
    return QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT), warning


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


def _interrupt(signum: int, frame: object) -> None:
    # Ctrl-C in a terminal reaches every process of the foreground group, and ros2 launch /
    # ros2 run forward it once more: a second SIGINT must not break the clean shutdown the
    # first one started. SIGTERM stays the way to end a shutdown that hangs.
    ignore_further_interrupts()
    raise KeyboardInterrupt


def raise_keyboard_interrupt_on_signals() -> None:
    """Make SIGINT and SIGTERM raise KeyboardInterrupt in the main thread, so ``spin()`` ends in
    the node's ``main`` with the context still valid (rclpy is initialised without its own
    handlers); SIGINT also when the process was started with it ignored (``cmd &``)."""
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)


def ignore_further_interrupts() -> None:
    """Once shutting down, let a second Ctrl-C (the terminal's, after ros2 launch's or ros2
    run's) pass instead of breaking the clean shutdown; SIGTERM still ends the process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
