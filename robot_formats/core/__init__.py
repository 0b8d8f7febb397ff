"""The core: the neutral robot model, rotations and transforms, kinematics, the typed errors,
safe XML (and XML as TinyXML2 reads it) and mesh files. No format, no ROS."""
