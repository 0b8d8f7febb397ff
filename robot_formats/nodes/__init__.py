"""ROS 2 nodes: thin rclpy plumbing over the core library (the only modules importing rclpy)."""
