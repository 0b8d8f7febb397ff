"""What the SDFormat tests share: writing a document into a test folder, wrapping a body in
an ``<sdf>`` element."""

from __future__ import annotations

from pathlib import Path


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def sdf(body: str, version: str = '1.8') -> str:
    return f'<?xml version="1.0"?>\n<sdf version="{version}">\n{body}\n</sdf>\n'
