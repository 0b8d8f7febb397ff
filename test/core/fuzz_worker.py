"""Runs fuzzing cases named on stdin, one JSON object per line, and answers one JSON line each.

Run by test_fuzz_formats.py in a subprocess under an address-space cap (hostile.MEMORY_CAP,
set here with RLIMIT_AS), so that a hang (the parent's timeout kills this process), a hard
crash or memory exhaustion of one case cannot take the test process down. Cases:

* ``{"kind": "cli", "path", "fmt", "servo_map"}`` — the command line's path, in this process
  (``robot_formats.cli.main``, output captured): ``check``; when it accepts a scene, ``frames
  --json``, ``info`` and ``convert -o`` (the URDF written is named in the answer, for
  check_urdf); when it accepts a motion file, ``motion --json`` (with ``--servo-map``);
* ``{"kind": "tmp-mapping", "path"}`` — a TMP configuration mapping (``load_mapping``);
* ``{"kind": "servo-map", "path"}`` — an XMDI servo mapping with its motion file sampled.

Answers: ``{"outcome": "ok" | "refused"}`` (exit 0, or exit 1 with ``file:line: message``
lines; FormatError for the side files), or a problem: ``crash`` (an exit code other than 0 or
1, i.e. an internal error, MemoryError under the cap included; any other exception of a side
file), ``inconsistent`` (``check`` accepted a document another command refuses), ``leak``
(an output shows a planted secret or a system file's entries),
``bad-refusal`` (exit 1 without a ``file:line: message`` line), ``fd-leak`` (the case left
file descriptors open).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import sys
import traceback
import warnings
from pathlib import Path

from hostile import _DISCLOSED, MEMORY_CAP

_ERROR_LINE = re.compile(r'^\S.*?: \S')


def _cli(*args: str) -> tuple[int, str, str]:
    from robot_formats.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def _problem(args: tuple[str, ...], code: int, out: str, err: str) -> dict | None:
    where = ' '.join(str(a) for a in args)
    if code not in (0, 1):
        return {'outcome': 'crash', 'type': f'exit {code}', 'message': where,
                'traceback': err[-3000:]}
    found = _DISCLOSED.search(out + err)
    if found:
        return {'outcome': 'leak', 'type': found.group(), 'message': where,
                'traceback': (out + err)[-3000:]}
    if code == 1 and not any(_ERROR_LINE.match(line) for line in err.splitlines()):
        return {'outcome': 'bad-refusal', 'type': 'exit 1', 'message': where,
                'traceback': err[-3000:]}
    return None


def cli_case(case: dict, scratch: Path) -> dict:
    """The command line on one document (see the module docstring)."""
    path = case['path']
    runs = [('check', path)]
    code, out, err = _cli(*runs[0])
    problem = _problem(runs[0], code, out, err)
    if problem or code == 1:
        return problem or {'outcome': 'refused', 'message': err.strip().splitlines()[-1:]}
    converted = scratch / 'converted.urdf'
    converted.unlink(missing_ok=True)
    if re.search(r': valid xmdi ', out):
        runs = [('motion', '--json', path, *(('--servo-map', case['servo_map'])
                                             if case.get('servo_map') else ()))]
    else:
        runs = [('frames', '--json', path), ('info', path), ('convert', path, '-o', converted)]
    for args in runs:
        code, out, err = _cli(*args)
        problem = _problem(args, code, out, err)
        if problem:
            return problem
        if code and args[0] != 'motion':  # what check accepts, every command accepts
            return {'outcome': 'inconsistent', 'type': 'check accepted it, this refused it',
                    'message': ' '.join(map(str, args)), 'traceback': err[-3000:]}
    return {'outcome': 'ok', 'urdf': str(converted) if converted.exists() else None}


def side_file(kind: str, path: str) -> None:
    """Read a YAML side file (and, for a servo map, sample its motion file with it)."""
    from robot_formats.formats.tmp.mapping import load_mapping
    from robot_formats.formats.xmdi.mapping import ServoMapping
    if kind == 'tmp-mapping':
        load_mapping(path)
        return
    mapping = ServoMapping.from_yaml(path)
    from robot_formats.cli.motion import motions_document
    from robot_formats.formats.xmdi import DEFAULT_FRAME_PERIOD, MotionModel, read_xmdi
    motion = path.rsplit('/', 1)[0] + '/' + path.rsplit('/', 1)[1].split('.')[0] \
        .split('_zzfuzz')[0] + '.xmdi'
    document, _ = read_xmdi(motion)
    motions_document([MotionModel(m, mapping, DEFAULT_FRAME_PERIOD, 'cubic', motion)
                      for m in document.motions], 50.0)


def classify(case: dict, scratch: Path) -> dict:
    from robot_formats.core.errors import FormatError
    descriptors = len(os.listdir('/proc/self/fd'))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # numpy overflow warnings are not our outcome
            if case['kind'] == 'cli':
                answer = cli_case(case, scratch)
            else:
                side_file(case['kind'], case['path'])
                answer = {'outcome': 'ok'}
    except FormatError as error:
        answer = {'outcome': 'refused', 'type': type(error).__name__, 'file': error.file,
                  'line': error.line, 'message': error.message}
        if not error.file or len(error.message) < 10:
            answer['outcome'] = 'bad-refusal'
    except Exception as error:  # noqa: BLE001 - reporting every non-FormatError is the point
        answer = {'outcome': 'crash', 'type': type(error).__name__,
                  'message': str(error)[:300], 'traceback': traceback.format_exc()[-3000:]}
    if answer['outcome'] in ('ok', 'refused'):
        if len(os.listdir('/proc/self/fd')) > descriptors:
            answer = {'outcome': 'fd-leak', 'type': 'descriptors', 'message': case['path']}
    return answer


def main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    import robot_formats.cli  # noqa: F401 - import once, before the first timed case
    import robot_formats.formats  # noqa: F401
    scratch = Path(sys.argv[1])
    print(json.dumps({'outcome': 'ready'}), flush=True)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(classify(json.loads(line), scratch)), flush=True)


if __name__ == '__main__':
    main()
