"""Mutated SKEL files never crash the reader: every load either succeeds or raises a
FormatError (with a file), without numpy overflow warnings — DART segfaults or loops
forever on many of these.

Seeded mutations of corpus files and golden worlds: elements removed, duplicated, moved,
renamed to other SKEL tags, texts and attributes replaced by junk (garbage numbers, wrong
counts, infinities, unknown joint types, empty), new elements added. The same mutator ran
13500 times while writing this test; it found a NaN inertia from huge sizes, an axis whose norm
overflowed to a zero axis and an OverflowError from a huge radius, all fixed.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lxml import etree

from robot_formats.core.errors import FormatError
from robot_formats.formats import load
from shared_data import shared  # noqa: E402  (shared/ beside the clone)

SOURCES = (sorted(shared('corpus', 'skel').rglob('*.skel'))
           + sorted(shared('goldens', 'skel', 'generated', 'random').glob('*.skel')))
JUNK = ['', 'abc', '1e999', 'nan', '-1', '0', '1 2', '1 2 3 4 5 6 7', 'world', 'inf', '-0',
        '1e-320', ' ', '0 0 0', '1,2,3', '1e308 1e308 1e308', '-5 -5 -5', '1.0x', '0x1g',
        '1e200', '1e200 1e200 1e200', '1e200 0 0 0 0 0']
TAGS = ['body', 'joint', 'parent', 'child', 'axis', 'axis2', 'xyz', 'init_pos', 'init_vel',
        'transformation', 'inertia', 'mass', 'moment_of_inertia', 'geometry', 'box', 'size',
        'plane', 'axis_order', 'dof', 'soft_shape', 'skeleton', 'world', 'multi_sphere', 'mesh',
        'file_name', 'limit', 'lower', 'upper', 'offset', 'radius', 'height', 'frags']
ATTRIBUTES = ['type', 'name', 'local_index', 'actuator', 'initial', 'lower', 'upper']
TYPES = ['weld', 'revolute', 'prismatic', 'universal', 'ball', 'euler', 'translational',
         'planar', 'free', 'screw', 'arbitrary', 'xy']
CASES = 250


def mutate(root: etree._Element, rng: random.Random) -> None:
    """One to four random edits of the tree."""
    for _ in range(rng.randint(1, 4)):
        elements = list(root.iter(etree.Element))
        element = rng.choice(elements)
        parent = element.getparent()
        operation = rng.randrange(7)
        if operation == 0 and parent is not None:
            parent.remove(element)
        elif operation == 1:
            element.text = rng.choice(JUNK)
        elif operation == 2:
            element.tag = rng.choice(TAGS)
        elif operation == 3 and parent is not None:
            parent.append(etree.fromstring(etree.tostring(element)))
        elif operation == 4:
            element.set(rng.choice(ATTRIBUTES), rng.choice(JUNK + TYPES))
        elif operation == 5 and parent is not None:
            target = rng.choice(elements)
            if target is not element and element not in target.iterancestors():
                target.append(element)
        else:
            added = etree.SubElement(element, rng.choice(TAGS))
            added.text = rng.choice(JUNK)


@pytest.mark.filterwarnings('error::RuntimeWarning')  # no silent overflow to inf or NaN
def test_mutated_files_load_or_are_refused(tmp_path: Path) -> None:
    trees: dict[Path, bytes] = {}
    outcomes = {'loaded': 0, 'refused': 0}
    for case in range(CASES):
        rng = random.Random(case)
        source = rng.choice(SOURCES)
        if source not in trees:
            trees[source] = etree.tostring(etree.parse(str(source)).getroot())
        root = etree.fromstring(trees[source])
        mutate(root, rng)
        path = tmp_path / f'case_{case}.skel'
        path.write_bytes(etree.tostring(root))
        try:
            load(path)
            outcomes['loaded'] += 1
        except FormatError as err:
            assert err.file, f'case {case} ({source.name}): {err} has no file'
            outcomes['refused'] += 1
        except Exception as err:  # noqa: BLE001 - the point of the test
            pytest.fail(f'case {case} (mutated {source}): {type(err).__name__}: {err}\n'
                        f'{path.read_text()}')
    assert outcomes['loaded'] > CASES // 5 and outcomes['refused'] > CASES // 5, outcomes
