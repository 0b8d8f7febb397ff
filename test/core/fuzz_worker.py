"""Reads documents named on stdin, one ``kind<TAB>path`` per line, and answers one JSON line each.

Run by test_fuzz_formats.py in a subprocess, so that a hang (the parent's timeout kills this
process) or a hard crash of one mutant cannot take the test process down. For every path:
kind ``document``: ``robot_formats.read_document`` (every registered format, kinematic or not:
what `check` runs)
and, for scenes, ``robot_formats.load``, the URDF writer (``convert``) and forward kinematics at
the initial configuration (``frames``); kind ``tmp-mapping``: a TMP configuration mapping
(``load_mapping``); kind ``servo-map``: an XMDI servo mapping (``ServoMapping.from_yaml``). The
answer classifies the outcome:

* ``{"outcome": "ok"}`` — read;
* ``{"outcome": "format_error", "type", "file", "line", "message"}`` — the documented refusal;
* ``{"outcome": "crash", "type", "message", "traceback"}`` — any other exception (a bug).
"""

from __future__ import annotations

import json
import sys
import traceback
import warnings


def read(kind: str, path: str) -> None:
    """Read ``path`` as a document (any format) or as one of the YAML side files."""
    from robot_formats.formats import load, read_document
    from robot_formats.formats.tmp.mapping import load_mapping
    from robot_formats.formats.urdf.writer import urdf_string
    from robot_formats.formats.xmdi.mapping import ServoMapping
    if kind == 'tmp-mapping':
        load_mapping(path)
    elif kind == 'servo-map':  # and `motion --servo-map` with it on its motion file
        mapping = ServoMapping.from_yaml(path)
        _sample_motions(path.rsplit('/', 1)[0] + '/' + path.rsplit('/', 1)[1].split('.')[0]
                        .split('_zzfuzz')[0] + '.xmdi', mapping)
    else:
        result = read_document(path)
        if result.kind == 'motion':  # what `robot-formats motion` does next
            _sample_motions(path, None)
        if result.kind == 'scene':
            loaded = load(path)
            # what `convert` and `frames` do next must not crash either
            urdf_string(loaded.scene, loaded.tree)
            loaded.tree.forward()


def _sample_motions(path: str, mapping) -> None:
    """`robot-formats motion --json` without printing: every motion sampled at 50 Hz."""
    from robot_formats.cli.motion import motions_document
    from robot_formats.formats.xmdi import DEFAULT_FRAME_PERIOD, MotionModel, read_xmdi
    document, _ = read_xmdi(path)
    models = [MotionModel(motion, mapping, DEFAULT_FRAME_PERIOD, 'cubic', path)
              for motion in document.motions]
    motions_document(models, 50.0)


def classify(kind: str, path: str) -> dict:
    from robot_formats.core.errors import FormatError
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # numpy overflow warnings are not our outcome
            read(kind, path)
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
        kind, _, path = line.rstrip('\n').partition('\t')
        if path:
            print(json.dumps(classify(kind, path)), flush=True)


if __name__ == '__main__':
    main()
