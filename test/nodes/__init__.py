"""End-to-end tests of robot_formats' ROS 2 nodes (real DDS on loopback, nodes in subprocesses)."""
