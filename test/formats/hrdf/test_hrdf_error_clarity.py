"""Our error message is at least as clear as HEBI's, for every file of goldens/hrdf/invalid/
that HEBI rejects (verdicts.json holds HEBI's message).

"At least as clear" is checked mechanically: every specific thing HEBI's message names — the
element, the attribute, the offending value, the child element, the missing file — is named in
ours too, and ours also gives the file and line (HEBI gives neither). Where HEBI only says
"Unable to add <element> at position <n>", ours must also say why (the interfaces, or the end
effector / <output> children in the way). Where HEBI crashes, ours must name the problem.
"""

from __future__ import annotations

import json
import re

import pytest

from hrdf_goldens import INVALID
from robot_formats.core import errors as E
from robot_formats.formats import load

VERDICTS = json.loads((INVALID / 'verdicts.json').read_text())
CASES = {case['file']: case for case in VERDICTS['cases']}
REJECTED = sorted(f for f, c in CASES.items() if c['hebi'] == 'reject')

#: HEBI's message forms (INDEX.md "Parsing facts") → the parts that carry information.
FORMS = [
    re.compile(r"Invalid value for (?P<element>[\w-]+) element '(?P<attr>\w+)' attribute: "
               r"(?P<value>.*)"),
    re.compile(r'Attribute (?P<attr>\w+) not supported for (?P<element>[\w-]+) element\.'),
    re.compile(r'Child element (?P<child>[\w-]*) not supported for (?P<element>[\w-]+) element'),
    re.compile(r'Element of type (?P<element>[\w-]+) did not have required (?P<attr>\w+) '
               r'attribute\.'),
    re.compile(r'Element (?P<element>[\w-]+) cannot contain both (?P<attr>\w+) attribute and '
               r'(?P<other>\w+)\.'),
    re.compile(r'Element (?P<element>[\w-]+) cannot contain (?P<attr>\w+) without '
               r'(?P<other>\w+)\.'),
    re.compile(r'Unable to add (?P<element>[\w-]+) at position \d+ of the robot model'),
    re.compile(r'Could not parse XML file: (?P<value>.+)'),
    re.compile(r'Could not parse XML file\.'),
]

#: What HEBI's message names that is an explanation rather than a name (never a value).
EXPLANATIONS = ('<include> paths must be relative.', '<mesh> paths must be relative.',
                'duplicate value found: ', 'cannot have inline output for this link type')


def _named_parts(message: str) -> dict[str, str]:
    for form in FORMS:
        match = form.match(message)
        if match:
            return {k: v for k, v in match.groupdict().items() if v}
    raise AssertionError(f'HEBI message of an unknown form: {message}')


def _value_words(value: str) -> list[str]:
    for explanation in EXPLANATIONS:
        if value.startswith(explanation):
            rest = value[len(explanation):]
            return [rest] if rest else []
    return [value]


@pytest.mark.parametrize('name', REJECTED)
def test_our_message_names_everything_hebis_does(name: str) -> None:
    hebi = CASES[name]['message']
    with pytest.raises(E.FormatError) as info:
        load(INVALID / name)
    ours = str(info.value)
    error = info.value
    assert error.file and error.line, 'HEBI gives no location; we must'
    parts = _named_parts(hebi)
    wanted = []
    if 'element' in parts and parts['element'] != 'robot':
        wanted.append(parts['element'])
    wanted += [parts[k] for k in ('attr', 'child', 'other') if k in parts]
    if 'value' in parts:
        wanted += _value_words(parts['value'])
    lowered = ours.lower()
    missing = [w for w in wanted if w.lower() not in lowered]
    assert not missing, f'HEBI: {hebi!r}\nours: {ours!r}\nmissing: {missing}'
    if hebi.startswith('Unable to add'):
        assert any(word in ours for word in ('interface', 'polarity', 'end effector',
                                              '<output>')), ours
    if hebi.startswith('Child element  not supported'):
        assert 'text' in ours


def test_hebi_crashes_we_explain() -> None:
    crashes = [f for f, c in CASES.items() if c['hebi'] == 'crash']
    assert crashes == ['include_cycle.hrdf']
    with pytest.raises(E.CycleError, match='include cycle'):
        load(INVALID / crashes[0])
