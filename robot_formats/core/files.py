"""Reading and writing files so that hostile input cannot hang, exhaust or expose anything,
and a failed write never loses data.

Reading: every input file robot_formats reads (documents, includes, robot files of a problem,
meshes, YAML side files, xacro's own reads) goes through :func:`read_input`. It refuses what is
not a regular file before opening it (a FIFO blocks the reader until a writer comes; ``/dev/zero``
never ends; a directory is no document), opens without blocking and checks the opened file
again (the path may have been swapped between the two), and reads at most the caller's limit
plus one byte, whatever size the file claims (``/proc`` files claim 0). Its errors name the file
and the reason, never a byte of the content.

Writing: every file robot_formats writes goes through :func:`replacing` (or
:func:`atomic_write`). The new content goes to a temporary file in the target's directory, is
flushed to the disk, and only then renamed over the target (``os.replace``: atomic on POSIX
within one file system). A write that fails half-way (a full disk, a file size limit, an
exception while the content is produced) removes the temporary file and leaves the old target
whole, byte for byte; readers never see a half-written file. Writing through a symbolic link
replaces the file it points to, as ``open(path, 'w')`` would. A new file gets the permissions
``open`` would give it (0666 less the umask); a replaced one keeps its own.

:func:`path_inside` confines a path a peer names (a node writing where a request says) to a
directory.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO, Iterator

from robot_formats.core.errors import FileAccessError, LimitError

__all__ = ['read_input', 'is_regular_file', 'is_directory', 'atomic_write', 'replacing',
           'path_inside']

#: What each kind of file that is not a regular file is called in a refusal.
_NOT_REGULAR = ((stat.S_ISFIFO, 'is a named pipe (FIFO), not a regular file'),
                (stat.S_ISCHR, 'is a character device, not a regular file'),
                (stat.S_ISBLK, 'is a block device, not a regular file'),
                (stat.S_ISSOCK, 'is a socket, not a regular file'))

#: Flags of every input open: no blocking (a FIFO swapped in after the check does not wait for
#: a writer), no controlling terminal, no descriptor left to child processes.
_INPUT_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def read_input(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the input file ``path``, at most ``limit`` of them.

    Symbolic links are followed (packages installed with ``--symlink-install`` are links).

    Raises:
        FileAccessError: the file is missing, unreadable, or not a regular file (a directory,
            a FIFO, a device, a socket); checked before it is opened.
        LimitError: the file holds more than ``limit`` bytes (checked before reading when its
            size is known, and by reading no more than ``limit + 1`` bytes in any case).
    """
    name = os.fspath(path)
    try:
        _refuse_special(os.stat(name), name)
        descriptor = os.open(name, _INPUT_FLAGS)
    except OSError as err:
        raise _read_error(err, name) from err
    except ValueError as err:  # a NUL character in the name
        raise FileAccessError('the file name is not a valid path', name) from err
    try:
        status = os.fstat(descriptor)
        _refuse_special(status, name)
        if status.st_size > limit:
            raise LimitError(f'file is {status.st_size} bytes; the limit is {limit} bytes', name)
        data = _read_at_most(descriptor, status.st_size, limit + 1)
    except OSError as err:
        raise _read_error(err, name) from err
    finally:
        os.close(descriptor)
    if len(data) > limit:
        raise LimitError(f'file is more than {limit} bytes (the limit)', name)
    return data


def is_regular_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a regular file (links followed): ``Path.is_file`` that says
    False, never raises, for a name the OS refuses (too long, a NUL character, a loop of
    links), as a reader looking for a file among candidates needs."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def is_directory(path: str | os.PathLike) -> bool:
    """``Path.is_dir`` that says False, never raises, for a name the OS refuses."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _refuse_special(status: os.stat_result, name: str) -> None:
    """Raise the OSError ``open`` would raise for a directory, and a FileAccessError for any
    other file that is not a regular file."""
    if stat.S_ISREG(status.st_mode):
        return
    if stat.S_ISDIR(status.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    reason = next((text for test, text in _NOT_REGULAR if test(status.st_mode)),
                  'is not a regular file')
    raise FileAccessError(reason, name)


def _read_at_most(descriptor: int, size: int, most: int) -> bytes:
    """Every byte until end of file, but no more than ``most`` (``size``: what fstat says,
    0 for /proc files). A regular file comes in one read: its size and no more (a short read
    of a regular file is its end, so no second read to see b'')."""
    chunk = size + 1 if size else 65536
    first = os.read(descriptor, min(chunk, most))
    if not first or len(first) == size:
        return first
    chunks, count = [first], len(first)
    while count < most:
        more = os.read(descriptor, min(max(chunk, 65536), most - count))
        if not more:
            break
        chunks.append(more)
        count += len(more)
    return b''.join(chunks)


def _read_error(err: OSError, name: str) -> FileAccessError:
    """The typed error for an OS error checking, opening or reading ``name``."""
    if isinstance(err, IsADirectoryError):
        return FileAccessError('is a directory, not a file', name)
    if isinstance(err, PermissionError):
        return FileAccessError('permission denied', name)
    if isinstance(err, FileNotFoundError):
        return FileAccessError('no such file', name)
    if err.errno == errno.ELOOP:
        return FileAccessError('a loop of symbolic links', name)
    return FileAccessError(f'cannot read file: {err.strerror or err}', name)


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
        name = str(target.parent / f'.{target.name}.{os.urandom(4).hex()}.tmp')
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
