"""Run hebi-py on HRDF files in a subprocess (HEBI crashes on include cycles and can spin for
minutes on some inputs, so never in the test process) and return its frames as JSON.

Usage: python hebi_oracle.py SPEC.json  (SPEC: [{"path": ..., "q": [...]}, ...])
Prints one JSON list: per file {"ok", "error", "frames": {kind: [4x4...]}, "masses"}.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys


def main() -> None:
    with contextlib.redirect_stdout(io.StringIO()):  # hebi prints "matplotlib not found"
        import hebi
        import numpy as np
    jobs = json.loads(open(sys.argv[1]).read())
    out = []
    for job in jobs:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                model = hebi.robot_model.import_from_hrdf(job['path'])
            q = np.array(job['q'], dtype=float)
            frames = {kind: [np.asarray(f).tolist() for f in
                             model.get_forward_kinematics(kind, q)]
                      for kind in ('output', 'com', 'input', 'endeffector')}
            out.append({'ok': True, 'dof': model.dof_count, 'frames': frames,
                        'masses': [float(m) for m in model.masses]})
        except Exception as err:  # noqa: BLE001 - reported to the test as HEBI's verdict
            out.append({'ok': False, 'error': str(err)})
    print(json.dumps(out))


if __name__ == '__main__':
    main()
