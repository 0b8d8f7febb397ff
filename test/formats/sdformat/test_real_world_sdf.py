"""SDFormat as libsdformat 12 and Gazebo read it: several worlds in one document, Fuel includes
from the local cache, numbers with stray characters; and the two places where libsdformat is
shown wrong, where robot_formats keeps the exact behaviour (docs/real_world.md#sdformat).
Fixtures: test/fixtures/real_world/sdf_*.sdf.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robot_formats import cli
from robot_formats.core.errors import FormatError, InvalidValueError, ReferenceError, StructureError
from robot_formats.formats import load

REAL = Path(__file__).resolve().parents[2] / 'fixtures' / 'real_world'
WORLDS = REAL / 'sdf_several_worlds.sdf'
STRAY = REAL / 'sdf_stray_number_characters.sdf'


# --- several worlds --------------------------------------------------------------------------

def test_the_first_world_loads_with_a_warning_naming_the_others() -> None:
    result = load(WORLDS)
    assert result.scene.name == 'empty_table'
    assert [m.name for m in result.scene.models] == ['table']
    assert [(w.code, w.line) for w in result.warnings] == [('SDF_SEVERAL_WORLDS', 4)]
    assert "'arm_cell'" in result.warnings[0].message
    assert '--world' in result.warnings[0].message


def test_the_named_world_loads_and_the_rest_is_a_note() -> None:
    result = load(WORLDS, world='arm_cell')
    assert result.scene.name == 'arm_cell'
    assert not result.warnings
    assert [(n.code, n.line) for n in result.notes] == [('SDF_SEVERAL_WORLDS', 10)]
    tree = result.tree
    pose = tree.forward({'arm::shoulder': 0.5})['arm::upper']
    c, s = np.cos(0.5), np.sin(0.5)
    rotation = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]]) @ np.array(
        [[c, 0, s], [0, 1, 0], [-s, 0, c]])
    assert np.allclose(pose[:3, :3], rotation, atol=1e-12)
    assert np.allclose(pose[:3, 3], [0.5, -0.25, 1.05], atol=1e-12)


def test_a_world_the_document_lacks_is_an_error_listing_its_worlds() -> None:
    with pytest.raises(ReferenceError, match="no world named 'cell'.*'empty_table', "
                                             "'arm_cell'") as info:
        load(WORLDS, world='cell')
    assert info.value.line == 4


def test_cli_world_option_and_strict_mode(capsys) -> None:
    assert cli.main(['check', '--strict', str(WORLDS)]) == 1  # which world: ambiguous
    capsys.readouterr()
    assert cli.main(['check', '--strict', '--world', 'arm_cell', str(WORLDS)]) == 0
    out = capsys.readouterr()
    assert 'valid sdf (2 links' in out.out and 'note:' in out.err
    assert cli.main(['info', '--world', 'empty_table', str(WORLDS)]) == 0
    assert "sdf world 'empty_table'" in capsys.readouterr().out
    assert cli.main(['frames', '--world', 'nowhere', str(WORLDS)]) == 1
    assert "no world named 'nowhere'" in capsys.readouterr().err


def test_a_model_file_has_no_world_to_choose(tmp_path: Path) -> None:
    path = tmp_path / 'model.sdf'
    path.write_text('<sdf version="1.8"><model name="m"><link name="l"/></model></sdf>')
    with pytest.raises(ReferenceError, match="no world named 'w'"):
        load(path, world='w')


# --- Fuel includes from the local cache -------------------------------------------------------

def _fuel_model(cache: Path, owner: str, name: str, version: int, x: float) -> None:
    folder = cache / 'fuel.gazebosim.org' / owner / 'models' / name / str(version)
    folder.mkdir(parents=True)
    (folder / 'model.config').write_text(
        '<?xml version="1.0"?><model><name>Coke</name><sdf version="1.8">model.sdf</sdf></model>')
    (folder / 'model.sdf').write_text(
        f'<sdf version="1.8"><model name="{name}"><link name="body"><pose>{x} 0 0 0 0 0</pose>'
        '</link></model></sdf>')


def _world_including(tmp_path: Path, uri: str) -> Path:
    path = tmp_path / 'fuel_world.sdf'
    path.write_text(f'<?xml version="1.0"?>\n<sdf version="1.8"><world name="w">\n'
                    f'<include><uri>{uri}</uri><name>can</name></include>\n</world></sdf>\n')
    return path


@pytest.mark.parametrize('uri, x', [
    ('https://fuel.gazebosim.org/1.0/OpenRobotics/models/Coke', 0.3),      # newest version
    ('https://fuel.gazebosim.org/1.0/OpenRobotics/models/Coke/tip', 0.3),
    ('https://fuel.gazebosim.org/1.0/OpenRobotics/models/Coke/2', 0.2),
    ('https://fuel.gazebosim.org/1.0/OpenRobotics/models/Coke/2/files/model.sdf', 0.2),
    ('https://fuel.gazebosim.org/1.0/openrobotics/models/coke/10', 0.3),
])
def test_fuel_includes_resolve_from_the_local_cache(tmp_path: Path, monkeypatch, uri: str,
                                                     x: float) -> None:
    """Gazebo's cache layout: HOST/OWNER/models/NAME/VERSION/ (owner and name lower-case)."""
    cache = tmp_path / 'cache'
    _fuel_model(cache, 'openrobotics', 'coke', 2, 0.2)
    _fuel_model(cache, 'openrobotics', 'coke', 10, 0.3)  # 10 > 2: numbers, not text
    monkeypatch.setenv('GZ_FUEL_CACHE_PATH', str(cache))
    result = load(_world_including(tmp_path, uri))
    assert not result.warnings
    assert np.allclose(result.tree.forward()['can::body'][:3, 3], [x, 0, 0])


def test_a_fuel_model_not_in_the_cache_says_how_to_fetch_it(tmp_path: Path,
                                                             monkeypatch) -> None:
    monkeypatch.setenv('GZ_FUEL_CACHE_PATH', str(tmp_path / 'empty'))
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    uri = 'https://fuel.gazebosim.org/1.0/OpenRobotics/models/Sofa'
    with pytest.raises(ReferenceError) as info:
        load(_world_including(tmp_path, uri))
    message = str(info.value)
    assert '\n' not in message and info.value.line == 3 and info.value.code == 'URI_LOOKUP'
    assert f'gz fuel download -u {uri}' in message and 'not in the local Fuel cache' in message


def test_other_web_uris_stay_refused(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match='does not download'):
        load(_world_including(tmp_path, 'https://example.com/models/thing.sdf'))


# --- numbers with stray characters ------------------------------------------------------------

def test_stray_characters_are_read_past_as_libsdformat_does() -> None:
    result = load(STRAY)
    assert [(w.code, w.line) for w in result.warnings] == [
        ('SDF_NUMBER', 6), ('SDF_NUMBER', 8), ('SDF_NUMBER', 11), ('SDF_NUMBER', 15),
        ('SDF_NUMBER', 15)]
    tree = result.tree
    assert tree.links['typos::base'].inertial.mass == 2.5
    joint = tree.joints['typos::hinge']
    assert joint.limits[0].upper == 1.5 and tuple(joint.axis) == (0.0, 0.0, 1.0)
    assert np.allclose(tree.forward()['typos::arm'][:3, 3],
                       [0.1 * np.cos(0.3) - 0.2 * np.sin(0.3),
                        0.1 * np.sin(0.3) + 0.2 * np.cos(0.3), 0.9])


def test_strict_mode_refuses_stray_characters(capsys) -> None:
    assert cli.main(['check', '--strict', str(STRAY)]) == 1
    assert f'{STRAY}:6: warning: <pose>' in capsys.readouterr().err


@pytest.mark.parametrize('element, text', [
    ('xyz', '0 1x 0'),      # a stream stops at the x: the next value cannot be read
    ('xyz', 'up'),
    ('upper', 'one'),
])
def test_what_libsdformat_cannot_read_stays_refused(tmp_path: Path, element: str,
                                                    text: str) -> None:
    path = tmp_path / 'bad.sdf'
    path.write_text(STRAY.read_text().replace('0 0 1"' if element == 'xyz' else "1.5'", text))
    with pytest.raises(InvalidValueError) as info:
        load(path)
    assert info.value.line == 15


# --- where libsdformat 12 is shown wrong: the exact behaviour is kept -------------------------

def test_merge_include_keeps_poses_exact(tmp_path: Path) -> None:
    """libsdformat 12 merges an include by printing the model to text and reading it back,
    which rounds every pose to 6 significant digits; robot_formats keeps the digits written."""
    (tmp_path / 'part').mkdir()
    (tmp_path / 'part' / 'model.sdf').write_text(
        '<sdf version="1.8"><model name="part"><link name="p">'
        '<pose>0.123456789 1.000000049 0 0 0 0.3141592653589793</pose></link></model></sdf>')
    path = tmp_path / 'merged.sdf'
    path.write_text(
        '<sdf version="1.9"><model name="m"><link name="base"/>'
        '<include merge="true"><uri>part/model.sdf</uri><pose>0.1234567891 0 0 0 0 0</pose>'
        '</include><joint name="j" type="fixed"><parent>base</parent><child>p</child></joint>'
        '</model></sdf>')
    pose = load(path).tree.forward()['m::p']
    assert pose[0, 3] == pytest.approx(0.2469135781, abs=1e-15)  # libsdformat: 0.246914
    assert pose[1, 3] == pytest.approx(1.000000049, abs=1e-15)   # libsdformat: 1


def test_a_nested_joint_between_frames_of_one_link_is_refused(tmp_path: Path) -> None:
    """libsdformat 12 checks 'parent and child are the same link' only for top-level models
    and loads this joint, which cannot move anything; robot_formats refuses it everywhere."""
    path = tmp_path / 'nested_same_link.sdf'
    path.write_text(
        '<sdf version="1.8"><model name="outer"><link name="base"/>\n'
        '<model name="inner"><link name="l"/><frame name="f1" attached_to="l"/>'
        '<frame name="f2" attached_to="l"/>\n'
        '<joint name="j" type="revolute"><parent>f1</parent><child>f2</child>'
        '<axis><xyz>0 0 1</xyz></axis></joint></model></model></sdf>\n')
    with pytest.raises(FormatError, match="both attached to 'l'") as info:
        load(path)
    assert info.value.line == 3
    assert isinstance(info.value, (StructureError, ReferenceError, FormatError))


# --- a validation stage reports every problem it finds --------------------------------------

def test_every_problem_of_a_stage_is_reported_with_its_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / 'three_problems.sdf'
    path.write_text('<?xml version="1.0"?>\n<sdf version="1.8">\n  <model name="m">\n'
                    '    <link name="base"/>\n'
                    '    <frame name="a" attached_to="nowhere"/>\n'
                    '    <frame name="b" attached_to="neither"/>\n'
                    '    <joint name="j" type="revolute"><parent>base</parent><child>ghost</child>'
                    '<axis><xyz>0 0 1</xyz></axis></joint>\n  </model>\n</sdf>\n')
    with pytest.raises(FormatError) as info:
        load(path)
    assert [(p.code, p.line) for p in info.value.problems()] == [
        ('FRAME_ATTACHED_TO_INVALID', 5), ('FRAME_ATTACHED_TO_INVALID', 6),
        ('JOINT_CHILD_LINK_INVALID', 7)]
    assert cli.main(['check', str(path)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(':')[1] for line in lines] == ['5', '6', '7']
