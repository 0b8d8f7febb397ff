"""docs/sdformat.md's interface API example runs as printed: the custom parser's model joins the
world and the printed poses are the ones the comments promise (written from the example's
numbers: include pose x = 10, mast 2.5 + light 0.1, lookout 1 further along x)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import robot_formats.formats.sdformat as sdformat

DOC = Path(__file__).resolve().parents[3] / 'docs' / 'sdformat.md'


def _example() -> str:
    blocks = re.findall(r'```python\n(.*?)```', DOC.read_text(), flags=re.S)
    (example,) = [b for b in blocks if 'register_custom_model_parser' in b]
    return example


def test_interface_api_example_runs_and_prints_what_it_says() -> None:
    example = _example()
    promised = re.findall(r'# (\[.*?\])', example)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(DOC), 'exec'), {'__name__': 'docs_example'})
    printed = [line.strip() for line in out.getvalue().splitlines()]
    assert printed == promised
    # the parser lived in the example's config only: a plain load does not know .beacon files
    assert not hasattr(sdformat, 'register_custom_model_parser')
