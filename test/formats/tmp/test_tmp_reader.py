"""TMP problem reader: the spec page's typos (warnings, refused in strict mode) and one test per
class of malformed input, each checking the error class, the line and the sentence."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from robot_formats.core import errors
from robot_formats.formats import load
from robot_formats.formats import read_problem

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = Path(__file__).resolve().parent / 'fixtures'
SPEC_PAGE = FIXTURES / 'spec_page_example.xml'
ROBOT = (ROOT / 'examples' / 'tmp' / 'models' / 'dual_arm.urdf').as_posix()

IDENTITY = '1 0 0 0 0 1 0 0 0 0 1 0'


def problem(objects: str, robots: str = '', extra: str = '') -> str:
    """A document whose line 1 is <problem>, objects starting on line 3."""
    return (f'<problem>\n<objects>\n{objects}</objects>\n<robots>\n{robots}</robots>\n'
            f'{extra}</problem>\n')


def obj(name: str = 'box', pose: str = IDENTITY, body: str = '') -> str:
    return (f'<obj>\n<name>{name}</name>\n<pose>{pose}</pose>\n<moveable>true</moveable>\n'
            f'{body}</obj>\n')


def robot(body: str = '<torso>0.1</torso>\n') -> str:
    return f'<robot>\n<name>pr2</name>\n<urdf>{ROBOT}</urdf>\n{body}</robot>\n'


def write(tmp_path: Path, text: str, name: str = 'problem.xml') -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'robot_formats.cli', *args], capture_output=True,
                          text=True, timeout=60)


# --- the spec page's own mistakes -------------------------------------------------------------

def test_spec_page_example_reads_with_a_warning_per_typo():
    warnings: list[errors.Diagnostic] = []
    problem_ = read_problem(SPEC_PAGE, warnings)
    by_code: dict[str, list[int]] = {}
    for warning in warnings:
        assert warning.file == str(SPEC_PAGE)
        by_code.setdefault(warning.code, []).append(warning.line)
    assert by_code['TMP_QUIRK_MINMAX'] == [38, 39, 40, 60, 61, 62]
    assert by_code['TMP_QUIRK_CLOSING_TAG'] == [76]
    assert by_code['TMP_QUIRK_STRAY_PAREN'] == [10, 28, 57, 74]
    table = problem_.objects['table'].support
    assert table.kind == 'rectangle' and list(table.low) == [-0.68, 0.0, 0.78]
    assert list(table.high) == [0.0, 0.83, 0.78]
    assert problem_.objects['disc2'].support.kind == 'point'
    assert problem_.objects['disc1'].pose[2, 3] == 0.028
    assert problem_.robots['pr2'].configurations['torso'] == (0.1,)
    assert problem_.robots['pr2'].joint_positions['torso_lift_joint'] == 0.1
    assert problem_.parent_of() == {'disc1': 'disc2'}


@pytest.mark.parametrize('typo, code, line', [
    ('<pose>1 0 0 0 0 1 0 0 0 0 1 0)</pose>', 'TMP_QUIRK_STRAY_PAREN', 6),
    ('<sssp>\n<xmin>0<xmax><xmin>1<xmax>\n<ymin>0</ymin><ymax>1</ymax>\n'
     '<zmin>0</zmin><zmax>0</zmax>\n</sssp>', 'TMP_QUIRK_MINMAX', 8),
    ('<sssp>\n<xmin>0</xmin><xmax>1</xmax>\n<ymin>0</ymin><ymax>1</ymax>\n'
     '<zmin>0</zmin><zmax>0</zmxa>\n</sssp>', 'TMP_QUIRK_CLOSING_TAG', 10),
])
def test_each_typo_warns_and_is_refused_in_strict_mode(tmp_path, typo, code, line):
    body = typo if not typo.startswith('<pose>') else ''
    pose = IDENTITY + ')' if typo.startswith('<pose>') else IDENTITY
    path = write(tmp_path, problem('<obj>\n<name>box</name>\n<moveable>true</moveable>\n'
                                   f'<pose>{pose}</pose>\n{body}\n</obj>\n'))
    warnings: list[errors.Diagnostic] = []
    read_problem(path, warnings)
    assert [(w.code, w.line) for w in warnings] == [(code, line)]
    with pytest.raises(errors.FormatError) as caught:
        read_problem(path, strict=True)
    assert caught.value.line == line and 'strict' in caught.value.message
    assert caught.value.file == str(path)


def test_cli_check_warns_and_strict_fails():
    done = cli('check', str(SPEC_PAGE))
    assert done.returncode == 0, done.stderr
    assert f'{SPEC_PAGE}:76: warning: <torso> is closed by </tordo>' in done.stderr
    assert 'valid tmp' in done.stdout
    done = cli('check', '--strict', str(SPEC_PAGE))
    assert done.returncode == 1 and 'strict mode' in done.stderr


def test_recovery_never_opens_entities_or_dtds(tmp_path):
    text = ('<?xml version="1.0"?>\n<!DOCTYPE problem [<!ENTITY big "x">]>\n'
            + problem(obj(body='<sssp><xmin>0<xmax><xmin>1<xmax></sssp>\n'))).replace(
                '<name>box</name>', '<name>&big;</name>')
    path = write(tmp_path, text)
    with pytest.raises(errors.UnsafeXmlError):
        load(path)
    with pytest.raises(errors.UnsafeXmlError):
        read_problem(path)


def test_other_syntax_errors_are_not_repaired(tmp_path):
    path = write(tmp_path, problem(obj()).replace('</objects>', '</objects'))
    with pytest.raises(errors.XmlSyntaxError):
        read_problem(path)
    done = cli('check', str(path))
    assert (done.returncode == 1 and 'malformed XML' in done.stderr
            and 'Traceback' not in done.stderr)


# --- one test per class of malformed input ----------------------------------------------------

GRASP_REFLECTION = '<grasps>\n<gf type="side">1 0 0 0 0 1 0 0 0 0 -1 0</gf>\n</grasps>\n'
TWO_PARENTS = (obj('a', body='<attachments><name>c</name></attachments>\n')
               + obj('b', body='<attachments><name>c</name></attachments>\n') + obj('c'))
CYCLE = (obj('a', body='<attachments><name>b</name></attachments>\n')
         + obj('b', body='<attachments><name>c</name></attachments>\n')
         + obj('c', body='<attachments><name>a</name></attachments>\n'))
SOP = ('<sop>\n<template>1 0 0 0 1 0 0 0 1</template>\n<axis>0 0 1</axis>\n'
       '<distance>{}</distance>\n</sop>\n')
POLYGON = '<pssp>\n{}</pssp>\n'


def points(*xyz) -> str:
    return ''.join(f'<point><x>{x}</x><y>{y}</y><z>{z}</z></point>\n' for x, y, z in xyz)


@pytest.mark.parametrize('text, error, line, words', [
    (problem(obj(pose='2 0 0 0 0 2 0 0 0 0 2 0')), errors.InvalidValueError, 5,
     'is not orthonormal'),
    (problem(obj(body=GRASP_REFLECTION)), errors.InvalidValueError, 8, 'reflection'),
    (problem(obj(pose='1 0 0 nan 0 1 0 0 0 0 1 0')), errors.InvalidValueError, 5,
     'not a finite number'),
    (problem(obj(pose='1 0 0 0 0 1 0 0 0 0 1')), errors.InvalidValueError, 5,
     'expected 12 numbers, got 11'),
    (problem(obj(body=SOP.format('inf'))), errors.InvalidValueError, 10, 'not a finite number'),
    (problem(obj(body=SOP.replace('0 0 1</axis>', '0 0 0</axis>').format(0.1))),
     errors.InvalidValueError, 9, 'zero length'),
    (problem(obj(body='<attachments><name>ghost</name></attachments>\n')),
     errors.ReferenceError, 3, "'ghost', which is not an object"),
    (problem(obj(body='<attachments><name>box</name></attachments>\n')), errors.CycleError, 3,
     'attached to itself'),
    (problem(CYCLE), errors.CycleError, None, 'the attachments form a cycle'),
    (problem(TWO_PARENTS), errors.StructureError, 9, "'c' is attached to both 'a' and 'b'"),
    (problem(obj() + obj()), errors.DuplicateNameError, 8, "two objects are named 'box'"),
    (problem(obj(body='<sssp><xmin>1</xmin><xmax>0</xmax><ymin>0</ymin><ymax>0</ymax>'
                      '<zmin>0</zmin><zmax>0</zmax></sssp>\n')),
     errors.InvalidValueError, 7, 'xmin 1 is greater than xmax 0'),
    (problem(obj(body=POLYGON.format(points((0, 0, 0), (1, 0, 0), (2, 0, 0))))),
     errors.InvalidValueError, 7, 'collinear'),
    (problem(obj(body=POLYGON.format(points((0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0.2))))),
     errors.InvalidValueError, 7, 'not in one plane'),
    (problem(obj(body=POLYGON.format(points((0, 0, 0), (1, 0, 0))))),
     errors.InvalidValueError, 7, 'at least 3'),
    (problem(obj(body=POLYGON.format(points((0, 0, 0), (1, 0, 0), (1, 1, 0)))
                 + '<sssp><xmin>0</xmin><xmax>0</xmax><ymin>0</ymin><ymax>0</ymax>'
                   '<zmin>0</zmin><zmax>0</zmax></sssp>\n')),
     errors.SchemaError, 12, 'one <sssp> or <pssp>'),
    (problem(obj().replace('true', 'maybe')), errors.InvalidValueError, 6,
     "<moveable> must be true/false or 1/0, not 'maybe'"),
    (problem(obj().replace(f'<pose>{IDENTITY}</pose>\n', '')), errors.SchemaError, 3,
     '<obj> needs a <pose>'),
    (problem(obj(), robot(), '<AMmapping>\n<action>\n<name>pick</name>\n'
             '<joints>l_elbow_flex_joint elbow_of_nobody</joints>\n</action>\n</AMmapping>\n'),
     errors.ReferenceError, 17, "names joint 'elbow_of_nobody', which no robot"),
    (problem(obj(), robot().replace(ROBOT, 'no/such/robot.urdf')), errors.FileAccessError, None,
     'no such file'),
    # a problem naming itself as its robot: refused before it is loaded (loading it would load
    # its robots, itself again, without end: a RecursionError before)
    (problem(obj(), robot().replace(ROBOT, 'problem.xml')), errors.StructureError, 12,
     "robot 'pr2': the description problem.xml is itself a TMP problem, not a robot"),
    (problem(obj(), robot('<left_arm>1 2 x</left_arm>\n')), errors.InvalidValueError, 13,
     "'x' is not a number"),
    (problem(obj('pr2'), robot()), errors.DuplicateNameError, 10, "'pr2' is used by more"),
    ('<robot name="x"/>', errors.SchemaError, 1, 'a TMP problem has a <problem> root'),
    # every rotation the format carries is checked: a continuous grasp's template, a SOP's
    # template, a robot's base pose; and numbers are finite everywhere
    (problem(obj(body='<grasps>\n<gc type="side">\n<template>1 0 0 0 0 1 0 0 1 0 0 0</template>\n'
                      '<axis>0 0 1</axis>\n</gc>\n</grasps>\n')),
     errors.InvalidValueError, 9, 'the rotation part of <template> is not orthonormal'),
    (problem(obj(body=SOP.replace('1 0 0 0 1 0 0 0 1', '-1 0 0 0 1 0 0 0 1').format(0.1))),
     errors.InvalidValueError, 8, 'reflection'),
    (problem(obj(), robot().replace('<torso>', '<basepose>1 0 0 0 0 1 0 0 0 0 0.5 0</basepose>\n'
                                    '<torso>')),
     errors.InvalidValueError, 13, 'the rotation part of <basepose> is not orthonormal'),
    (problem(obj(body='<grasps>\n<gf type="top">1 0 0 0 0 1 0 0 0 0 1 -inf</gf>\n</grasps>\n')),
     errors.InvalidValueError, 8, 'not a finite number'),
    (problem(obj(body='<sssp><xmin>0</xmin><xmax>nan</xmax><ymin>0</ymin><ymax>0</ymax>'
                      '<zmin>0</zmin><zmax>0</zmax></sssp>\n')),
     errors.InvalidValueError, 7, 'not a finite number'),
])
def test_malformed_problems(tmp_path, text, error, line, words):
    path = write(tmp_path, text)
    with pytest.raises(error) as caught:
        read_problem(path)
    assert words in caught.value.message, caught.value.message
    if line is not None:
        assert caught.value.line == line, str(caught.value)
    done = cli('check', str(path))
    assert done.returncode == 1 and 'Traceback' not in done.stderr


def test_problems_naming_each_other_as_robots_are_refused_before_loading(tmp_path):
    first = write(tmp_path, problem(obj(), robot().replace(ROBOT, 'second.xml')), 'first.xml')
    write(tmp_path, problem(obj(), robot().replace(ROBOT, 'first.xml')), 'second.xml')
    for read in (read_problem, load):  # the problem reader, and the loader (robots nested)
        with pytest.raises(errors.StructureError) as caught:
            read(first)
        assert (caught.value.file, caught.value.line) == (str(first), 12)
        assert 'second.xml is itself a TMP problem' in caught.value.message
    done = cli('check', str(first))
    assert done.returncode == 1 and done.stderr.count('\n') == 1, done.stderr


# --- configuration mapping ----------------------------------------------------------------------

def test_mapping_yaml_beside_the_problem_and_its_errors(tmp_path):
    path = write(tmp_path, problem(obj(), robot('<torso>0.1</torso>\n<wrists>0.3 0.4</wrists>\n'
                                                '<mystery>1</mystery>\n')), 'p.xml')
    warnings: list[errors.Diagnostic] = []
    problem_ = read_problem(path, warnings)
    assert problem_.robots['pr2'].joint_positions == {'torso_lift_joint': 0.1}
    assert sorted(w.line for w in warnings if w.code == 'TMP_UNMAPPED_CONFIGURATION') == [14, 15]
    (tmp_path / 'p.mapping.yaml').write_text(
        'robots:\n  pr2:\n    wrists: [l_wrist_roll_joint, r_wrist_roll_joint]\n'
        'defaults:\n  mystery: [r_elbow_flex_joint]\n')
    problem_ = read_problem(path)
    assert problem_.robots['pr2'].joint_positions == {
        'torso_lift_joint': 0.1, 'l_wrist_roll_joint': 0.3, 'r_wrist_roll_joint': 0.4,
        'r_elbow_flex_joint': 1.0}
    (tmp_path / 'p.mapping.yaml').write_text('robots:\n  pr2:\n    wrists: [l_wrist_roll_joint]\n')
    with pytest.raises(errors.InvalidValueError, match='has 2 values but'):
        read_problem(path)
    (tmp_path / 'p.mapping.yaml').write_text('defaults:\n  mystery: [no_such_joint]\n')
    with pytest.raises(errors.ReferenceError, match='no_such_joint'):
        read_problem(path)
    (tmp_path / 'p.mapping.yaml').write_text('robots: [1, 2\n')
    with pytest.raises(errors.InvalidValueError, match='not valid YAML'):
        read_problem(path)
    (tmp_path / 'p.mapping.yaml').write_text('arms: {}\n')
    with pytest.raises(errors.SchemaError, match="'robots' and/or 'defaults'"):
        read_problem(path)
