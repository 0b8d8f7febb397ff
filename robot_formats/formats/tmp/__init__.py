"""Task-and-motion-planning problem files (``<problem>``): reader, semantics, scene.

See docs/tmp.md for the format as read, the semantics of grasps, placements and attachments,
and the configuration-tag mapping.
"""

from robot_formats.formats.tmp.problem import (
                      Action,
                      ContinuousGrasp,
                      DiscreteGrasp,
                      Problem,
                      ProblemObject,
                      ProblemRobot,
                      StablePose,
                      SupportRegion,
)
from robot_formats.formats.tmp.reader import ROTATION_TOLERANCE, parse_problem_element

__all__ = ['Action', 'ContinuousGrasp', 'DiscreteGrasp', 'Problem', 'ProblemObject',
           'ProblemRobot', 'StablePose', 'SupportRegion', 'ROTATION_TOLERANCE',
           'parse_problem_element']

# Reading a problem with its robots needs the loader of every format:
# robot_formats.formats.read_problem (also robot_formats.read_problem).
