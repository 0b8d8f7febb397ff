import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parents[1] / 'core'):  # core: rf_testlib (check_urdf, pinocchio helpers)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
