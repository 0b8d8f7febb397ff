"""``python -m robot_formats.cli``: the command-line tool."""

import sys

from robot_formats.cli import main

sys.exit(main())
