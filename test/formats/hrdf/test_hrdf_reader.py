"""HRDF reader behaviour beyond the goldens: includes, format detection, naming, gear ratios in
the model, meshes, the implicit end effector, the public entry point and the CLI.

Expected poses here are written out by hand from the spec and INDEX.md's rules (an X5
actuator's output is 0.03105 m up its z axis), never taken from the reader.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robot_formats.core import errors as E
from robot_formats.formats import load
from robot_formats.formats.hrdf import parse_hrdf_file
from robot_formats.core.model import JointType, Mesh

ROOT = Path(__file__).resolve().parents[3]
X5_HEIGHT = 0.03105


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- includes ---------------------------------------------------------------------------------

def test_include_paths_are_relative_to_the_including_file(tmp_path: Path) -> None:
    _write(tmp_path, 'parts/arm/wrist.hrdf',
           '<robot version="1.6.0"><include path="../common/x5.hrdf"/></robot>')
    _write(tmp_path, 'parts/common/x5.hrdf',
           '<robot version="1.6.0" trans="5 5 5" rot="Rx(1)"><actuator type="X5-1" tag="w"/>'
           '</robot>')
    main = _write(tmp_path, 'robot.hrdf', '<robot version="1.6.0">'
                  '<include path="./parts/arm/wrist.hrdf"/><bracket type="X5LightLeft"/>'
                  '<include path="parts/common/../common/x5.hrdf"/>'
                  '</robot>')
    with pytest.raises(E.DuplicateNameError, match="'w'"):
        load(main)  # the same tagged part twice: tags are unique over includes too
    main.write_text('<robot version="1.6.0"><include path="./parts/arm/wrist.hrdf"/>'
                    '<bracket type="X5LightLeft"/></robot>')
    result = load(main)
    poses = result.tree.forward({'w': 0.0})
    # the included file's <robot trans rot> are ignored: the actuator sits at the origin
    assert np.allclose(poses['w'], np.eye(4))
    assert np.allclose(poses['w/output'][:3, 3], (0, 0, X5_HEIGHT))
    assert np.allclose(poses['bracket_1'][:3, 3], (0, 0, X5_HEIGHT))


def test_include_self_cycle_and_missing_file(tmp_path: Path) -> None:
    loop = _write(tmp_path, 'loop.hrdf', '<robot version="1.6.0">\n<include path="loop.hrdf"/>'
                  '</robot>')
    with pytest.raises(E.CycleError) as info:
        load(loop)
    assert info.value.line == 2 and 'loop.hrdf -> loop.hrdf' in info.value.message
    missing = _write(tmp_path, 'missing.hrdf', '<robot version="1.6.0">\n\n'
                     '<include path="nope/part.hrdf"/></robot>')
    with pytest.raises(E.FileAccessError) as info:
        load(missing)
    assert info.value.line == 3 and 'nope/part.hrdf' in info.value.message


def test_include_and_mesh_names_the_os_refuses_are_format_errors(tmp_path: Path) -> None:
    long_name = '9' * 400
    path = _write(tmp_path, 'long.hrdf', f'<robot version="1.6.0"><include path="{long_name}"/>'
                  '</robot>')
    with pytest.raises(E.FileAccessError):
        load(path)
    path.write_text(f'<robot version="1.6.0"><rigid-body mass="1" mesh_path="{long_name}"/>'
                    '</robot>')
    assert any(w.code == 'HRDF_MESH_MISSING' for w in load(path).warnings)


def test_include_of_other_version_warns_and_uses_its_own_rules(tmp_path: Path) -> None:
    _write(tmp_path, 'old.hrdf', '<robot><link type="X5" extension="0.1+0.2" twist="0"/></robot>')
    main = _write(tmp_path, 'main.hrdf', '<robot version="1.6.0"><actuator type="X5-1"/>'
                  '<include path="old.hrdf"/></robot>')
    result = load(main)
    codes = [w.code for w in result.warnings]
    assert 'HRDF_INCLUDE_VERSION' in codes
    assert 'HRDF_VERSION_1_0_NUMBER' in codes  # 1.0.0 reads '0.1+0.2' as 0.1, as HEBI does
    poses = result.tree.forward({'actuator_0': 0.0})
    assert np.allclose(poses['link_1/output'][:3, 3], (0.1, 0, X5_HEIGHT + 0.04))


# --- detection ----------------------------------------------------------------------------------

def test_hrdf_without_its_extension_is_still_hrdf(tmp_path: Path) -> None:
    xml = _write(tmp_path, 'arm.xml', '<robot version="1.6.0"><actuator type="X5-1"/></robot>')
    assert load(xml).format == 'hrdf'
    urdf = _write(tmp_path, 'robot.xml', '<robot name="r"><link name="a"/></robot>')
    assert load(urdf).format == 'urdf'
    misnamed = _write(tmp_path, 'arm.urdf', '<robot version="1.6.0"><actuator type="X5-1"/>'
                      '</robot>')
    result = load(misnamed)
    assert result.format == 'hrdf'
    assert [w.code for w in result.warnings] == ['FORMAT_MISMATCH']


def test_hrdf_root_name_is_not_checked_like_hebi(tmp_path: Path) -> None:
    path = _write(tmp_path, 'odd.hrdf', '<robots version="1.6.0"><actuator type="X5-1"/></robots>')
    result = load(path)
    assert result.format == 'hrdf'
    assert any(w.code == 'HRDF_ROOT_NAME' for w in result.warnings)


# --- the model ----------------------------------------------------------------------------------

def test_dof_names_order_and_root_placement(tmp_path: Path) -> None:
    path = _write(tmp_path, 'k.hrdf', '<robot version="1.6.0" trans="1 2 3" rot="Rz(pi/2)">'
                  '<joint axis="tx" tag="slide"/><actuator type="X5-1"/>'
                  '<bracket type="X5LightLeft"/><actuator type="X5-9" tag="wrist"/></robot>')
    tree = load(path).tree
    assert tree.dof_names == ('slide', 'actuator_1', 'wrist')
    poses = tree.forward([0.5, 0.0, 0.0])
    # base at (1,2,3) turned 90° about z: the slide's +x is the world's +y
    assert np.allclose(poses['base'][:3, 3], (1, 2, 3))
    assert np.allclose(poses['slide/output'][:3, 3], (1, 2.5, 3))
    assert np.allclose(poses['actuator_1/output'][:3, 3], (1, 2.5, 3 + X5_HEIGHT))


def test_gear_ratio_is_a_motor_joint_and_a_mimic_output(tmp_path: Path) -> None:
    path = _write(tmp_path, 'g.hrdf', '<robot version="1.6.0">'
                  '<joint axis="rz" gear_ratio="4" tag="drive"/></robot>')
    tree = load(path).tree
    assert tree.dof_names == ('drive',)
    output = tree.joints['drive/output']
    assert output.mimic is not None and output.mimic.joint == 'drive'
    assert output.mimic.multiplier == pytest.approx(0.25)
    poses = tree.forward([1.0])
    angle = math.atan2(poses['drive/output'][1, 0], poses['drive/output'][0, 0])
    assert angle == pytest.approx(0.25)   # the output turns at q / gear_ratio
    motor = math.atan2(poses['drive/motor'][1, 0], poses['drive/motor'][0, 0])
    assert motor == pytest.approx(1.0)    # the motor shaft turns at q


def test_negative_axis_is_accepted_with_a_warning(tmp_path: Path) -> None:
    path = _write(tmp_path, 'n.hrdf', '<robot version="1.6.0"><joint axis="-tx"/></robot>')
    result = load(path)
    assert any(w.code == 'HRDF_NEGATIVE_AXIS' for w in result.warnings)
    assert np.allclose(result.tree.forward([0.5])['joint_0/output'][:3, 3], (-0.5, 0, 0))


def test_versions_up_to_1_1_0_get_an_implicit_end_effector(tmp_path: Path) -> None:
    path = _write(tmp_path, 'v.hrdf', '<robot><actuator type="X5-1"/></robot>')
    tree = load(path).tree
    assert 'end_effector_1/output' in tree.frame_names()
    path.write_text('<robot version="1.2.0"><actuator type="X5-1"/></robot>')
    assert 'end_effector_1/output' not in load(path).tree.frame_names()


def test_tags_that_look_like_default_names_do_not_clash(tmp_path: Path) -> None:
    path = _write(tmp_path, 't.hrdf', '<robot version="1.6.0"><actuator type="X5-1"/>'
                  '<bracket type="X5LightLeft" tag="actuator_0"/></robot>')
    tree = load(path).tree
    assert tree.dof_names == ('actuator_0_',)
    assert 'actuator_0' in tree.links


def test_tags_named_like_the_root_links_are_fine(tmp_path: Path) -> None:
    path = _write(tmp_path, 'r.hrdf', '<robot version="1.6.0"><actuator type="X5-1" tag="base"/>'
                  '<bracket type="X5LightLeft" tag="world"/></robot>')
    tree = load(path).tree
    assert tree.root == 'world_' and tree.dof_names == ('base',)
    assert 'base_' in tree.links and 'world' in tree.links


def test_meshes_local_file_url_and_missing(tmp_path: Path) -> None:
    _write(tmp_path, 'meshes/body.stl', 'solid x\nendsolid x\n')
    path = _write(tmp_path, 'm.hrdf', '<robot version="1.6.0">'
                  '<rigid-body mass="1" mesh_path="meshes/body.stl" mesh_trans="0 0 0.1"/>'
                  '<rigid-body mass="1" mesh_path="https://example.invalid/a.obj"/>'
                  '<rigid-body mass="1" mesh_path="meshes/none.stl"/></robot>')
    result = load(path)
    links = result.tree.links
    [local] = links['rigid_body_0'].visuals
    assert isinstance(local.geometry, Mesh)
    assert local.geometry.uri == (tmp_path / 'meshes/body.stl').resolve().as_uri()
    assert local.origin.xyz == pytest.approx((0, 0, 0.1))
    assert links['rigid_body_1'].visuals and not any(
        isinstance(v.geometry, Mesh) for v in links['rigid_body_1'].visuals)
    assert any(w.code == 'HRDF_MESH_MISSING' for w in result.warnings)


def test_overrides_and_offsets(tmp_path: Path) -> None:
    path = _write(tmp_path, 'o.hrdf', '<robot version="1.6.0">'
                  '<actuator type="X5-1" mass_offset="0.1" com_trans_offset="0.01 0 0"/>'
                  '<bracket type="X5LightLeft" mass="1" com_trans="0 0 0.5" ixx="0.25"/></robot>')
    links = load(path).tree.links
    actuator, bracket = links['actuator_0'].inertial, links['bracket_1'].inertial
    assert actuator.mass == pytest.approx(0.415)
    assert actuator.origin.xyz == pytest.approx((-0.0142 + 0.01, -0.0031, 0.0165))
    assert bracket.mass == 1.0 and bracket.origin.xyz == pytest.approx((0, 0, 0.5))
    assert bracket.inertia[0] == 0.25


@pytest.mark.parametrize('element, line', [
    ('<robot version="1.6.0" trans="1e19 0 0"><actuator type="X5-9"/></robot>', 1),
    ('<robot version="1.6.0" rot="Rz(1)" trans="1e309 0 0"/>', 1),
    ('<robot version="1.6.0">\n<actuator type="X5-9" com_trans="0 0 1e300"/></robot>', 2),
    ('<robot version="1.6.0">\n<actuator type="X5-9" com_trans_offset="0 1e19 0"/></robot>', 2),
    ('<robot version="1.6.0">\n<actuator type="X5-9" mass_offset="1e300"/></robot>', 2),
    ('<robot version="1.6.0">\n<bracket type="X5LightLeft" ixx="1e300"/></robot>', 2),
    ('<robot version="1.6.0">\n<rigid-body mass="1e300"/></robot>', 2),
    ('<robot version="1.6.0">\n<rigid-body mass="1" output_trans="1e18 1e18 0"/></robot>', 2),
    ('<robot version="1.6.0">\n<end-effector output_trans="0 -1e300 0"/></robot>', 2),
    ('<robot version="1.6.0">\n<link type="X5" extension="1e10" twist="0"/></robot>', 2),
    ('<robot version="1.6.0">\n<link type="X5" extension="-1e19" twist="pi"/></robot>', 2),
    ('<robot version="1.6.0">\n<joint axis="rz" gear_ratio="1e-300"/></robot>', 2),
    ('<robot version="1.6.0">\n<rigid-body mass="1"><output trans="0 0 -1e19"/></rigid-body>'
     '</robot>', 2),
])
def test_every_number_is_in_range_where_the_builder_makes_it(tmp_path: Path, element: str,
                                                             line: int) -> None:
    """The HRDF reader alone (no check after it) refuses a number no model may hold, at the
    element that gives it: what it reads (a translation) and what it derives from what it reads
    (a link's mass and inertia grow with its extension, a gear ratio's multiplier is 1/ratio)."""
    path = _write(tmp_path, 'r.hrdf', element)
    with pytest.raises(E.InvalidValueError) as raised:
        parse_hrdf_file(path, [])
    assert raised.value.code == 'VALUE_OUT_OF_RANGE' and raised.value.line == line, raised.value
    with pytest.raises(E.InvalidValueError):
        load(path)


def test_public_entry_point_for_other_formats(tmp_path: Path) -> None:
    path = _write(tmp_path, 'p.hrdf', '<robot version="1.6.0" description="demo arm">'
                  '<actuator type="X8-3"/></robot>')
    warnings: list = []
    scene = parse_hrdf_file(path, warnings)
    assert scene.name == 'demo arm' and not scene.is_world and len(scene.models) == 1
    assert scene.models[0].links[0].name == 'world'
    renamed = parse_hrdf_file(path, warnings, root_link='hebi_world')
    assert [link.name for link in renamed.models[0].links[:2]] == ['hebi_world', 'base']
    assert [j.type for j in scene.models[0].joints if j.name == 'actuator_0'] == \
        [JointType.CONTINUOUS]


def test_cli_frames_takes_hebi_dof_order(tmp_path: Path) -> None:
    path = _write(tmp_path, 'c.hrdf', '<robot version="1.6.0"><joint axis="tz" tag="lift"/>'
                  '<joint axis="tx" tag="slide"/></robot>')
    run = subprocess.run([sys.executable, '-m', 'robot_formats.cli', 'frames', str(path),
                          '--positions', '0.2,0.3', '--json'], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    frames = json.loads(run.stdout)['frames']
    assert frames['slide/output']['xyz'] == pytest.approx([0.3, 0.0, 0.2])
