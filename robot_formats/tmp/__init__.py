"""Task-and-motion-planning problem files (``<problem>``): reader, semantics, scene.

See docs/tmp.md for the format as read, the semantics of grasps, placements and attachments,
and the configuration-tag mapping.
"""

from .problem import (Action, ContinuousGrasp, DiscreteGrasp, Problem, ProblemObject,
                      ProblemRobot, StablePose, SupportRegion)
from .reader import ROTATION_TOLERANCE, parse_problem_element, read_problem

__all__ = ['Action', 'ContinuousGrasp', 'DiscreteGrasp', 'Problem', 'ProblemObject',
           'ProblemRobot', 'StablePose', 'SupportRegion', 'ROTATION_TOLERANCE',
           'parse_problem_element', 'read_problem']
