"""The motions a player serves: XMDI files or directories of them, read and modelled once.

Motion names must be unique across all the files (a player plays by name). Reading is all or
nothing: any bad file raises the FormatError family, so a player never serves half a library.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from robot_formats.core.errors import Diagnostic, DuplicateNameError, FileAccessError
from robot_formats.formats.xmdi.document import DEFAULT_FRAME_PERIOD
from robot_formats.formats.xmdi.mapping import ServoMapping
from robot_formats.formats.xmdi.playback import Interpolation, MotionModel
from robot_formats.formats.xmdi.reader import read_xmdi

__all__ = ['LibraryEntry', 'MotionLibrary', 'motion_files']


def motion_files(paths: Iterable[str | Path]) -> list[Path]:
    """Files named by ``paths``: a file as is, a directory's ``*.xmdi`` files sorted by name."""
    out: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() == '.xmdi' and p.is_file())
            if not found:
                raise FileAccessError('the directory holds no .xmdi files', path)
            out.extend(found)
        elif path.exists():
            out.append(path)
        else:
            raise FileAccessError('no such file or directory', path)
    return out


@dataclass(frozen=True)
class LibraryEntry:
    model: MotionModel
    file: str


class MotionLibrary:
    """Motion models by name, in load order."""

    def __init__(self, entries: dict[str, LibraryEntry], warnings: tuple[Diagnostic, ...] = ()
                 ) -> None:
        self.entries = entries
        self.warnings = warnings

    @classmethod
    def load(cls, paths: Iterable[str | Path], mapping: ServoMapping | None = None,
             frame_period: float = DEFAULT_FRAME_PERIOD,
             interpolation: Interpolation | str = Interpolation.LINEAR) -> MotionLibrary:
        entries: dict[str, LibraryEntry] = {}
        warnings: list[Diagnostic] = []
        for path in motion_files(paths):
            document, file_warnings = read_xmdi(path)
            warnings.extend(file_warnings)
            for motion in document.motions:
                if motion.name in entries:
                    raise DuplicateNameError(f'motion {motion.name!r} is also defined in '
                                             f'{entries[motion.name].file}; motion names must be '
                                             'unique across the files a player loads', path,
                                             motion.line)
                model = MotionModel(motion, mapping, frame_period, interpolation, str(path))
                entries[motion.name] = LibraryEntry(model, str(path))
        return cls(entries, tuple(warnings))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.entries)

    def get(self, name: str) -> LibraryEntry | None:
        return self.entries.get(name)
