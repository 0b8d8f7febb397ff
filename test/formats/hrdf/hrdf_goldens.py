"""Shared access to the HRDF goldens (shared/goldens/hrdf, see its INDEX.md).

The goldens list HEBI's frames by kind in HEBI's order; these helpers name each one with the
documented naming rule of docs/hrdf.md (tag, else ``<kind>_<index>``; ``E/output`` or
``E/output<k>``), so tests compare HEBI's numbers with our frames by name, never by order.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from shared_data import shared

GOLDENS = shared('goldens', 'hrdf')
CORPUS = shared('corpus', 'hrdf')
INVALID = GOLDENS / 'invalid'


def corpus_goldens() -> list[Path]:
    return sorted(p for p in GOLDENS.rglob('*.hrdf.json'))


def source_of(golden: Path) -> Path:
    return CORPUS / json.loads(golden.read_text())['source']


def element_names(data: dict) -> list[str]:
    """Our name of every element, in HEBI's element order."""
    by_index = {index: tag for tag, index in data['tags'].items() if tag}
    names = []
    for element in data['elements']:
        index = element['index']
        names.append(by_index.get(index, f'{element["kind"].replace("-", "_")}_{index}'))
    return names


def output_frame_names(data: dict) -> list[str]:
    """Our frame name of every golden output frame (topology rows give the owner element)."""
    names = element_names(data)
    rows = data['topology']['output']
    seen: dict[int, int] = {}
    out = []
    for row in rows:
        element = row['element']
        k = seen.get(element, 0)
        seen[element] = k + 1
        out.append(f'{names[element]}/output{k}' if k else f'{names[element]}/output')
    return out


def com_elements(data: dict) -> list[int]:
    """Element index of each golden COM frame / mass (every element except joints)."""
    return [e['index'] for e in data['elements'] if e['kind'] != 'joint']


def end_effector_elements(data: dict) -> list[int]:
    return [e['index'] for e in data['elements'] if e['kind'] == 'end-effector']


def matrix(values) -> np.ndarray:
    return np.array(values, dtype=float)
