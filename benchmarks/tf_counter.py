"""Counts /tf messages; prints ``ready``, then a JSON count once the stream has gone quiet.

It stops after 1.5 s without a message (once the stream has begun), at SIGINT, or at the limit.

Run by benchmarks/tf_stream.py as the third process of the sustained-rate benchmark.
"""

from __future__ import annotations

import json
import os
import sys
import time

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.qos import QoSProfile, ReliabilityPolicy
from tf2_msgs.msg import TFMessage

#: Only /tf stamped in [STREAM_SEC, STREAM_SEC + 1000) s is counted: the measured stream (not
#: the warm-up at 1 s, nor the node's first /tf, stamped with the wall clock).
STREAM_SEC = 1000


def main() -> int:
    limit = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    count = 0
    last = 0.0

    def callback(raw: bytes) -> None:
        nonlocal count, last
        # CDR: 4-byte encapsulation, uint32 transform count, then the first stamp's int32 sec.
        if len(raw) >= 12 and STREAM_SEC <= int.from_bytes(raw[8:12], 'little',
                                                           signed=True) < STREAM_SEC + 1000:
            count += 1
            last = time.monotonic()

    try:
        with rclpy.init(domain_id=int(os.environ.get('ROS_DOMAIN_ID', '150'))):
            node = rclpy.create_node('bench_tf_counter')
            node.create_subscription(TFMessage, '/tf', callback, QoSProfile(
                depth=10000, reliability=ReliabilityPolicy.RELIABLE), raw=True)
            print('ready', flush=True)
            deadline = time.monotonic() + limit
            while time.monotonic() < deadline and not (
                    count > 100 and time.monotonic() - last > 1.5):
                rclpy.spin_once(node, timeout_sec=0.1)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    print(json.dumps({'tf_messages': count}), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
