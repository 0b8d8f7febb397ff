"""XMDI reader and writer: the documented reconstruction, round trips, every validation error
(class, line, message), variants accepted with warnings, and `check` on motion files."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from robot_formats.core.errors import (DuplicateNameError, InvalidValueError, SchemaError,
                                       UnsupportedError)
from robot_formats.formats import load, read_document
from robot_formats.formats.xmdi import Motion, MotionDocument, ServoTrack, read_xmdi, xmdi_string

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / 'examples' / 'xmdi').glob('*.xmdi'))


def write(tmp_path: Path, text: str, name: str = 'motion.xmdi') -> Path:
    path = tmp_path / name
    path.write_text(text, encoding='utf-8')
    return path


def without_lines(document: MotionDocument) -> list:
    return [(m.name, m.attributes, [(s.name, s.positions, s.frames) for s in m.servos])
            for m in document.motions]


CANONICAL = """<?xml version="1.0"?>
<xmdi>
  <motions>
    <motion name="nod" speed="slow">
      <servo name="neck">
        <position>0 -.7 .2</position>
        <frames>0 10 40</frames>
      </servo>
      <servo name="jaw">
        <position>1.5</position>
        <frames>5</frames>
      </servo>
    </motion>
    <motion name="still">
      <servo name="neck">
        <position>0</position>
        <frames>0</frames>
      </servo>
    </motion>
  </motions>
</xmdi>
"""


def test_reads_the_documented_reconstruction(tmp_path):
    document, warnings = read_xmdi(write(tmp_path, CANONICAL))
    assert warnings == ()
    assert document.names == ('nod', 'still')
    nod = document.motion('nod')
    assert nod.attributes == (('speed', 'slow'),)
    assert nod.line == 4
    assert nod.servos[0] == ServoTrack('neck', (0.0, -0.7, 0.2), (0, 10, 40), 5)
    assert nod.servos[1].positions == (1.5,) and nod.servos[1].frames == (5,)
    assert nod.last_frame == 40
    assert nod.duration() == 40 * 0.032


@pytest.mark.parametrize('path', EXAMPLES, ids=lambda p: p.name)
def test_examples_round_trip_exactly(path, tmp_path):
    document, warnings = read_xmdi(path)
    assert warnings == ()
    again, again_warnings = read_xmdi(write(tmp_path, xmdi_string(document)))
    assert again_warnings == ()
    assert without_lines(again) == without_lines(document)


def test_random_documents_round_trip_bit_exactly(tmp_path):
    rng = random.Random(7)
    motions = []
    for m in range(4):
        servos = []
        for s in range(rng.randint(1, 5)):
            count = rng.randint(1, 12)
            frames = sorted(rng.sample(range(0, 500), count))
            positions = tuple(rng.uniform(-1e3, 1e3) * 10 ** rng.randint(-12, 3)
                              for _ in range(count))
            servos.append(ServoTrack(f'servo <{s}> & "q"', positions, tuple(frames)))
        motions.append(Motion(f'motion {m}', tuple(servos), (('note', 'a<b & "c"'),)))
    document = MotionDocument(tuple(motions))
    again, warnings = read_xmdi(write(tmp_path, xmdi_string(document)))
    assert warnings == ()
    assert without_lines(again) == without_lines(document)


# --- every validation error: class, line, message -----------------------------------------

def servo(body: str, name: str = 'neck') -> str:
    return (f'<xmdi>\n<motions>\n<motion name="m">\n<servo name="{name}">\n{body}\n</servo>\n'
            '</motion>\n</motions>\n</xmdi>\n')


INVALID = {
    'motion_without_name': ('<xmdi>\n<motions>\n<motion>\n<servo name="a"><position>0</position>'
                            '<frames>0</frames></servo>\n</motion>\n</motions>\n</xmdi>',
                            SchemaError, 3, 'needs a "name" attribute'),
    'motion_with_empty_name': ('<xmdi>\n<motions>\n<motion name=" ">\n<servo name="a"><position>0'
                               '</position><frames>0</frames></servo>\n</motion>\n</motions>\n'
                               '</xmdi>', SchemaError, 3, 'non-empty "name"'),
    'duplicate_motion': ('<xmdi><motions>\n<motion name="m"><servo name="a"><position>0</position>'
                         '<frames>0</frames></servo></motion>\n<motion name="m"><servo name="a">'
                         '<position>0</position><frames>0</frames></servo></motion>\n'
                         '</motions></xmdi>', DuplicateNameError, 3,
                         "motion name 'm' is used twice"),
    'servo_without_name': ('<xmdi><motions><motion name="m">\n<servo>\n<position>0</position>'
                           '<frames>0</frames></servo></motion></motions></xmdi>',
                           SchemaError, 2, 'needs a "name" attribute'),
    'duplicate_servo': ('<xmdi><motions><motion name="m">\n<servo name="a"><position>0</position>'
                        '<frames>0</frames></servo>\n<servo name="a"><position>0</position>'
                        '<frames>0</frames></servo>\n</motion></motions></xmdi>',
                        DuplicateNameError, 3, "servo 'a' appears twice in motion 'm'"),
    'no_frames_object': (servo('<position>0 1</position>'), SchemaError, 4,
                         'exactly one position object followed by one frames object'),
    'three_objects': (servo('<position>0</position>\n<frames>0</frames>\n<frames>1</frames>'),
                      SchemaError, 4, 'has 3 child element(s)'),
    'frames_before_position': (servo('<frames>0 1</frames>\n<position>0 1</position>'),
                               SchemaError, 5, 'position object must come before the frames'),
    'unequal_counts': (servo('<position>0 1 2</position>\n<frames>0 10</frames>'),
                       InvalidValueError, 6, '3 position values but 2 frames'),
    'empty_objects': (servo('<position></position>\n<frames></frames>'), InvalidValueError, 5,
                      'no key frames'),
    'position_not_a_number': (servo('<position>0 abc</position>\n<frames>0 10</frames>'),
                              InvalidValueError, 5, "'abc' is not a number"),
    'position_not_finite': (servo('<position>0 inf</position>\n<frames>0 10</frames>'),
                            InvalidValueError, 5, "'inf' is not a finite number"),
    'position_nan': (servo('<position>nan 0</position>\n<frames>0 10</frames>'),
                     InvalidValueError, 5, 'not a finite number'),
    'frame_not_integer': (servo('<position>0 1</position>\n<frames>0 1.5</frames>'),
                          InvalidValueError, 6, "frame '1.5' is not an integer"),
    'frame_not_a_number': (servo('<position>0 1</position>\n<frames>0 x</frames>'),
                           InvalidValueError, 6, "'x' is not a number"),
    'frame_negative': (servo('<position>0 1</position>\n<frames>-3 4</frames>'),
                       InvalidValueError, 6, 'frame -3 is negative'),
    'frames_not_increasing': (servo('<position>0 1 2</position>\n<frames>0 10 10</frames>'),
                              InvalidValueError, 6, 'strictly increasing (10 then 10)'),
    'frames_decreasing': (servo('<position>0 1</position>\n<frames>10 3</frames>'),
                          InvalidValueError, 6, 'strictly increasing (10 then 3)'),
    'motion_without_servos': ('<xmdi>\n<motions>\n<motion name="m"/>\n</motions>\n</xmdi>',
                              SchemaError, 3, "motion 'm' contains no servo elements"),
    'no_motions': ('<xmdi>\n<motions/>\n</xmdi>', SchemaError, 1, 'no <motion> elements'),
    'empty_root': ('<xmdi>\n</xmdi>', SchemaError, 1, 'contains no motions'),
}


@pytest.mark.parametrize('case', sorted(INVALID))
def test_every_validation_error_has_class_line_and_sentence(case, tmp_path):
    text, error_class, line, fragment = INVALID[case]
    path = write(tmp_path, text, f'xmdi_invalid_{case}.xmdi')
    with pytest.raises(error_class) as info:
        read_xmdi(path)
    assert info.value.line == line, str(info.value)
    assert info.value.file == str(path)
    assert fragment in info.value.message


def test_malformed_xml_and_entities_are_refused_by_xmlsafe(tmp_path):
    from robot_formats.core.errors import UnsafeXmlError, XmlSyntaxError
    with pytest.raises(XmlSyntaxError):
        read_xmdi(write(tmp_path, '<xmdi><motions>\n<motion name="m"></motions></xmdi>'))
    with pytest.raises(UnsafeXmlError):
        read_xmdi(write(tmp_path, '<!DOCTYPE x [<!ENTITY a "b">]><xmdi>&a;</xmdi>'))


# --- variants: accepted, same data, one warning per unexpected name ------------------------

VARIANT_CASE = CANONICAL.replace('<xmdi>', '<XMDI>').replace('</xmdi>', '</XMDI>').replace(
    'motions>', 'Motions>').replace('<motion ', '<Motion ').replace(
    '</motion>', '</Motion>').replace('servo', 'Servo').replace(
    'position>', 'Position>').replace('frames>', 'Frames>')

VARIANT_NAMES = """<?xml version="1.0"?>
<motiondata>
  <list>
    <move name="nod" speed="slow">
      <joint name="neck"><positions>0 -.7 .2</positions><keyframes>0 10 40</keyframes></joint>
      <joint name="jaw"><values>1.5</values><steps>5</steps></joint>
    </move>
    <move name="still">
      <joint name="neck"><positions>0</positions><keyframes>0</keyframes></joint>
    </move>
  </list>
</motiondata>
"""

BARE_MOTIONS = """<xmdi>
  <motion name="nod" speed="slow">
    <servo name="neck"><position>0 -.7 .2</position><frames>0 10 40</frames></servo>
    <servo name="jaw"><position>1.5</position><frames>5</frames></servo>
  </motion>
  <motion name="still"><servo name="neck"><position>0</position><frames>0</frames></servo></motion>
</xmdi>
"""


@pytest.mark.parametrize('text, expected', [
    (VARIANT_CASE, ['<XMDI> differs in letter case from <xmdi>',
                    '<Motions> differs in letter case from <motions>',
                    '<Motion> differs in letter case from <motion>',
                    '<Servo> differs in letter case from <servo>',
                    '<Position> differs in letter case from <position>',
                    '<Frames> differs in letter case from <frames>']),
    (VARIANT_NAMES, ['<motiondata> is not <xmdi>', '<list> is not <motions>',
                     '<move> is not <motion>', '<joint> is not <servo>',
                     '<positions> is not <position>', '<keyframes> is not <frames>',
                     '<values> in servo \'jaw\' is read as the position object by its place',
                     '<steps> in servo \'jaw\' is read as the frames object by its place']),
    (BARE_MOTIONS, ['the <motion> elements sit directly in <xmdi>']),
], ids=['letter_case', 'other_names', 'no_container'])
def test_variants_read_the_same_with_warnings(text, expected, tmp_path):
    reference, _ = read_xmdi(write(tmp_path, CANONICAL, 'canonical.xmdi'))
    document, warnings = read_xmdi(write(tmp_path, text))
    assert without_lines(document) == without_lines(reference)
    messages = [w.message for w in warnings]
    assert len(messages) == len(expected), messages
    for fragment, message in zip(expected, messages):
        assert fragment in message
    assert all(w.line and w.file for w in warnings)


def test_object_attributes_are_a_warning(tmp_path):
    _, warnings = read_xmdi(write(tmp_path, servo('<position unit="rad">0</position>\n'
                                                  '<frames>0</frames>')))
    assert len(warnings) == 1 and 'carry none' in warnings[0].message and warnings[0].line == 5


# --- format registry and `check` ----------------------------------------------------------

def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'robot_formats.cli', *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_check_validates_xmdi_like_any_format(tmp_path):
    result = read_document(ROOT / 'examples' / 'xmdi' / 'arm_wave.xmdi')
    assert (result.format, result.kind, result.tree) == ('xmdi', 'motion', None)
    run = cli('check', 'examples/xmdi/arm_wave.xmdi')
    assert run.returncode == 0, run.stderr
    assert run.stdout == ('examples/xmdi/arm_wave.xmdi: valid xmdi (2 motions, 7 servo tracks, '
                          '35 key frames)\n')
    # a .xml file with an <xmdi> root is XMDI too
    xml = write(tmp_path, CANONICAL, 'motions.xml')
    assert cli('check', str(xml)).stdout.startswith(f'{xml}: valid xmdi (2 motions')


def test_check_reports_invalid_xmdi_with_file_and_line(tmp_path):
    path = write(tmp_path, INVALID['unequal_counts'][0])
    run = cli('check', str(path))
    assert run.returncode == 1
    assert run.stderr.startswith(f'{path}:6: servo \'neck\' has 3 position values but 2 frames')
    assert 'Traceback' not in run.stderr


def test_check_strict_refuses_variants(tmp_path):
    path = write(tmp_path, VARIANT_CASE)
    assert cli('check', str(path)).returncode == 0
    run = cli('check', '--strict', str(path))
    assert run.returncode == 1 and 'warning(s) in strict mode' in run.stderr


def test_kinematic_commands_refuse_a_motion_file():
    with pytest.raises(UnsupportedError) as info:
        load(ROOT / 'examples' / 'xmdi' / 'arm_wave.xmdi')
    assert 'motion file (xmdi)' in info.value.message
    run = cli('info', 'examples/xmdi/arm_wave.xmdi')
    assert run.returncode == 1 and 'not a robot, scene or problem' in run.stderr
