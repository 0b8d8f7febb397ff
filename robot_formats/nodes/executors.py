"""Executors for nodes and clients with many service requests in flight.

rclpy's executors take one request per service (and one answer per client) per wait; the
:class:`DrainingExecutor` takes every waiting one. problem_server spins it; planners with many
requests in flight may spin :func:`draining_executor` too (docs/guide-planner.md).
"""

from __future__ import annotations

from rclpy.exceptions import InvalidHandle
from rclpy.executors import SingleThreadedExecutor, await_or_execute

__all__ = ['DrainingExecutor', 'draining_executor']


class DrainingExecutor(SingleThreadedExecutor):
    """A single-threaded executor that answers every waiting request of a ready service (and
    takes every waiting answer of a ready client).

    rclpy's executors take one request per service per wait: a service asked 200 times a
    second by several planners falls behind (and its clients time out) while the node is far
    from busy, because each wait also costs a pass over every other entity. Taking up to
    ``batch`` requests at once keeps each service's throughput independent of the others'
    (a small batch: a long burst of large answers can outrun DDS' buffers).
    Clients with many requests in flight have the same problem with answers, and one more: DDS
    delivers a service's answers to EVERY client of that service, and rmw discards the other
    clients' answers inside ``take`` (which then returns nothing). Stopping at the first empty
    take left this client's own answers queued behind the others' for later wakes, which did not
    keep up: with 4 client processes at 500 requests/s the backlog grew to the 5 s timeout while
    no process was busy (answers were taken seconds after they arrived). A
    client therefore takes until ``client_misses`` takes in a row bring nothing (an empty take
    costs ~3 us), or ``client_batch`` answers. Overrides ``Executor._take_service`` and
    ``_take_client`` (rclpy Kilted); :func:`draining_executor` falls back to the plain executor if
    those hooks are missing.
    """

    batch = 16
    client_batch = 64  #: answers taken per wake at most
    client_misses = 16  #: empty takes in a row that end a client's pass (others' answers)

    def _take_service(self, srv):
        taken = []
        try:
            with srv.handle:
                for _ in range(self.batch):
                    request, header = srv.handle.service_take_request(srv.srv_type.Request)
                    if header is None:
                        break
                    taken.append((request, header))
        except InvalidHandle:  # the service was destroyed: nothing to answer
            return None

        async def _execute() -> None:
            for request, header in taken:
                response = await await_or_execute(srv.callback, request,
                                                  srv.srv_type.Response())
                srv.send_response(response, header)
        return _execute

    def _take_client(self, client):
        taken = []
        misses = 0
        try:
            with client.handle:
                while misses < self.client_misses and len(taken) < self.client_batch:
                    header, response = client.handle.take_response(client.srv_type.Response)
                    if header is None:  # nothing left, or another client's answer
                        misses += 1
                        continue
                    misses = 0
                    taken.append((header.request_id.sequence_number, response))
        except InvalidHandle:
            return None

        async def _execute() -> None:
            for sequence, response in taken:
                try:
                    future = client.get_pending_request(sequence)
                except KeyError:  # the request was cancelled
                    continue
                future._set_executor(self)
                future.set_result(response)
        return _execute


def draining_executor() -> SingleThreadedExecutor:
    """A :class:`DrainingExecutor`, or rclpy's own if this rclpy lacks the hooks it needs."""
    if all(callable(getattr(SingleThreadedExecutor, hook, None))
           for hook in ('_take_service', '_take_client')):
        return DrainingExecutor()
    return SingleThreadedExecutor()
