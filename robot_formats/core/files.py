"""Writing files so that a failure never loses data: every file robot_formats writes goes
through :func:`replacing` (or :func:`atomic_write`).

The new content goes to a temporary file in the target's directory, is flushed to the disk, and
only then renamed over the target (``os.replace``: atomic on POSIX within one file system). A
write that fails half-way (a full disk, a file size limit, an exception while the content is
produced) removes the temporary file and leaves the old target whole, byte for byte; readers
never see a half-written file. Writing through a symbolic link replaces the file it points to,
as ``open(path, 'w')`` would. A new file gets the permissions ``open`` would give it (0666 less
the umask); a replaced one keeps its own.

:func:`path_inside` confines a path a peer names (a node writing where a request says) to a
directory.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from typing import BinaryIO, Iterator

from robot_formats.core.errors import FileAccessError

__all__ = ['atomic_write', 'replacing', 'path_inside']


def atomic_write(path: str | os.PathLike, data: str | bytes, encoding: str = 'utf-8') -> None:
    """Replace ``path`` with ``data`` (text is encoded with ``encoding``) atomically.

    FileAccessError (``PATH: cannot write output: reason``) when it cannot be written; the old
    file, if any, is then unchanged."""
    payload = data.encode(encoding) if isinstance(data, str) else data
    with replacing(path) as stream:
        stream.write(payload)


@contextlib.contextmanager
def replacing(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary stream whose content replaces ``path`` when the ``with`` block ends normally.

    An OSError on the way (opening, writing, syncing, renaming) becomes a FileAccessError; any
    exception leaves ``path`` as it was and removes the temporary file."""
    target = Path(os.path.realpath(os.fspath(path)))
    try:
        descriptor, temporary = _create_temporary(target)
    except OSError as err:
        raise _write_error(path, err) from err
    try:
        with os.fdopen(descriptor, 'wb') as stream:
            yield stream
            stream.flush()
            _keep_mode(target, stream.fileno())
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except OSError as err:
        _remove(temporary)
        raise _write_error(path, err) from err
    except BaseException:
        _remove(temporary)
        raise
    _sync_directory(target.parent)


def path_inside(root: str | os.PathLike, name: str | os.PathLike) -> Path | None:
    """``name`` (relative to ``root``, or absolute) with every symbolic link resolved, if it
    lies strictly inside ``root`` (resolved too); None if it leaves it (``..``, an absolute
    path elsewhere, a symbolic link pointing out) or is ``root`` itself.

    The check for a directory that confines what a peer may name (a node writing where a
    request says); the path returned is the one to use, so a link is not followed twice."""
    base = Path(os.path.realpath(os.fspath(root)))
    candidate = Path(os.path.realpath(os.path.join(base, os.fspath(name))))
    return candidate if base in candidate.parents else None


def _create_temporary(target: Path) -> tuple[int, str]:
    """A new file next to ``target``, created as ``open(..., 'w')`` creates one (mode 0666
    less the umask, which the kernel applies)."""
    for _ in range(100):
        name = str(target.parent / f'.{target.name}.{secrets.token_hex(4)}.tmp')
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, 'no free temporary name', str(target.parent))


def _keep_mode(target: Path, descriptor: int) -> None:
    """A replaced file keeps its permissions."""
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        return
    os.fchmod(descriptor, mode)


def _remove(temporary: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(temporary)


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable (best effort: some file systems refuse a directory
    fsync, and the data is already safe)."""
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _write_error(path: str | os.PathLike, err: OSError) -> FileAccessError:
    return FileAccessError(f'cannot write output: {err.strerror or err}', os.fspath(path))
