"""What the nodes run on, without ROS: a description ready to publish, TF solving from joint
states, joint trajectory controller rules, the MuJoCo simulation."""
