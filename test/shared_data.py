"""Where the shared reference data lies, for every test: one place, never a skip.

The corpus of real files from other projects, the goldens computed by the reference
implementations and the specs live in ``shared/`` beside the clone (CI lays it there), or in the
folder named by the environment variable ``ROBOT_FORMATS_SHARED``. A test that needs them and
does not find them fails with a sentence saying where they were looked for.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Names another folder holding ``corpus/``, ``goldens/``, ``specs/`` and ``vendor/``.
SHARED_ENV = 'ROBOT_FORMATS_SHARED'


class SharedDataMissing(RuntimeError):
    """The shared reference data a test needs is not where it is looked for."""


def shared_root() -> Path:
    """``$ROBOT_FORMATS_SHARED``, else ``shared/`` beside the repository."""
    configured = os.environ.get(SHARED_ENV, '').strip()
    return Path(configured) if configured else ROOT.parent / 'shared'


def shared(*parts: str) -> Path:
    """A path inside the shared data, which must exist."""
    path = shared_root().joinpath(*parts)
    if not path.exists():
        raise SharedDataMissing(
            f'the shared reference data is missing: {path} does not exist (the tests look in '
            f'shared/ beside the repository, or in the folder named by {SHARED_ENV})')
    return path
