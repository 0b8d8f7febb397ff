"""Reads documents named on stdin, one path per line, and answers one JSON line each.

Run by test_fuzz_formats.py in a subprocess, so that a hang (the parent's timeout kills this
process) or a hard crash of one mutant cannot take the test process down. For every path:
``robot_formats.read_document`` (every registered format, kinematic or not: what `check` runs)
and, for scenes, ``robot_formats.load``, the URDF writer (``convert``) and forward kinematics at
the initial configuration (``frames``). The answer classifies the outcome:

* ``{"outcome": "ok"}`` — read;
* ``{"outcome": "format_error", "type", "file", "line", "message"}`` — the documented refusal;
* ``{"outcome": "crash", "type", "message", "traceback"}`` — any other exception (a bug).
"""

from __future__ import annotations

import json
import sys
import traceback
import warnings


def classify(path: str) -> dict:
    from robot_formats.errors import FormatError
    from robot_formats.formats import load, read_document
    from robot_formats.urdf.writer import urdf_string
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # numpy overflow warnings are not our outcome
            result = read_document(path)
            if result.kind == 'scene':
                loaded = load(path)
                # what `convert` and `frames` do next must not crash either
                urdf_string(loaded.scene, loaded.tree)
                loaded.tree.forward()
        return {'outcome': 'ok'}
    except FormatError as error:
        return {'outcome': 'format_error', 'type': type(error).__name__, 'file': error.file,
                'line': error.line, 'message': error.message}
    except RecursionError as error:
        return {'outcome': 'crash', 'type': 'RecursionError', 'message': str(error)[:300],
                'traceback': traceback.format_exc()[-3000:]}
    except Exception as error:  # noqa: BLE001 - reporting every non-FormatError is the point
        return {'outcome': 'crash', 'type': type(error).__name__, 'message': str(error)[:300],
                'traceback': traceback.format_exc()[-3000:]}


def main() -> None:
    import robot_formats.formats  # noqa: F401 - import once, before the first timed document
    print(json.dumps({'outcome': 'ready'}), flush=True)
    for line in sys.stdin:
        path = line.rstrip('\n')
        if path:
            print(json.dumps(classify(path)), flush=True)


if __name__ == '__main__':
    main()
