"""Run hebi-py on HRDF files in a subprocess (HEBI crashes on include cycles and can spin for
minutes on some inputs, so never in the test process) and return its frames as JSON.

Usage: python hebi_oracle.py SPEC.json  (SPEC: [{"path": ..., "q": [...]}, ...])
Prints one JSON list: per file {"ok", "error", "frames": {kind: [4x4...]}, "masses"}.
Tests call :func:`ask`, which runs this script so.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path


def ask(jobs: list[dict], folder: Path, timeout: float = 180) -> list[dict]:
    """HEBI's answer to each job (``{"path", "q"}``), from this script in a subprocess; the
    jobs are written to ``folder``."""
    spec = Path(folder) / 'hebi_jobs.json'
    spec.write_text(json.dumps(jobs))
    run = subprocess.run([sys.executable, __file__, str(spec)], capture_output=True, text=True,
                         timeout=timeout)
    assert run.returncode == 0, f'hebi_oracle.py failed:\n{run.stderr[-2000:]}'
    return json.loads(run.stdout.strip().splitlines()[-1])


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
