"""Loading rules of issue 3 not covered by the proposal examples: pose forms of later versions
(``degrees="true"``, ``rotation_format="quat_xyzw"``), ``//include/static`` as the spec's
tri-state, ``//include/joint`` and ``//include/plugin``, and where include URIs are looked up
(the configured model path list, model.config, the ament index, ROS_PACKAGE_PATH).

Expected poses are written here from closed forms (rotation about one axis, a 90° turn as a
quaternion), never from robot_formats' transforms.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import robot_formats.formats.sdformat as sdformat
from robot_formats.core.errors import FormatError
from robot_formats.formats import load
from robot_formats.formats.sdformat.reader import SdfLoader
from robot_formats.core.xmlsafe import read_xml
from shared_data import shared  # noqa: E402  (shared/ beside the clone)
from sdf_testlib import sdf, write


def about_z(angle: float, xyz=(0.0, 0.0, 0.0)) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    out = np.eye(4)
    out[:3, :3] = [[c, -s, 0], [s, c, 0], [0, 0, 1]]
    out[:3, 3] = xyz
    return out


def frames_of(path: Path) -> dict[str, np.ndarray]:
    return load(path).tree.forward()


def document(path: Path):
    """The reader's document model (includes expanded, before frame resolution)."""
    return SdfLoader([], sdformat.ResolverConfig()).document(read_xml(path), str(path))


# --- pose forms -----------------------------------------------------------------------------------

@pytest.mark.parametrize('pose', [
    '<pose degrees="true">1 2 3 0 0 90</pose>',
    '<pose degrees="1">1 2 3 0 0 90</pose>',
    '<pose rotation_format="quat_xyzw">1 2 3 0 0 0.7071067811865476 0.7071067811865476</pose>',
    # quaternions are normalized on input, as libsdformat does
    '<pose rotation_format="quat_xyzw">1 2 3 0 0 2 2</pose>',
    '<pose rotation_format="euler_rpy">1 2 3 0 0 1.5707963267948966</pose>',
])
def test_later_pose_forms(tmp_path: Path, pose: str) -> None:
    body = f'<model name="m"><link name="l">{pose}</link></model>'
    frames = frames_of(write(tmp_path, 'm.sdf', sdf(body, '1.9')))
    assert np.allclose(frames['m::l'], about_z(math.pi / 2, (1, 2, 3)), atol=1e-12)


@pytest.mark.parametrize('pose, code', [
    ('<pose degrees="true" rotation_format="quat_xyzw">0 0 0 0 0 0 1</pose>', 'ELEMENT_INVALID'),
    ('<pose rotation_format="quat_xyzw">0 0 0 0 0 0</pose>', 'ELEMENT_INVALID'),
    ('<pose rotation_format="quat_xyzw">0 0 0 0 0 0 0</pose>', 'ELEMENT_INVALID'),
    ('<pose rotation_format="axis_angle">0 0 0 0 0 1 0</pose>', 'ELEMENT_INVALID'),
    ('<pose degrees="yes">0 0 0 0 0 0</pose>', 'ATTRIBUTE_INVALID'),
    ('<pose>0 0 0 0 0</pose>', 'ELEMENT_INVALID'),
])
def test_bad_pose_forms(tmp_path: Path, pose: str, code: str) -> None:
    path = write(tmp_path, 'm.sdf', sdf(f'<model name="m"><link name="l">\n{pose}</link></model>',
                                        '1.9'))
    with pytest.raises(FormatError) as info:
        load(path)
    assert info.value.code == code and info.value.line == 4, str(info.value)


# --- //include/static (spec 1.4.6: unspecified, true, false) --------------------------------------

STATIC_CHILD = '<model name="c"><static>{}</static><link name="l"/>' \
               '<model name="inner"><link name="k"/></model></model>'


@pytest.mark.parametrize('own, include, expected', [
    ('false', '', False),           # unspecified: the model's own value
    ('true', '', True),
    ('false', '<static>true</static>', True),    # true: static, transitively
    ('false', '<static>false</static>', False),  # false: allowed, nothing was static
])
def test_include_static_tri_state(tmp_path: Path, own: str, include: str,
                                  expected: bool) -> None:
    write(tmp_path, 'c.sdf', sdf(STATIC_CHILD.format(own)))
    top = write(tmp_path, 'top.sdf', sdf(f'<world name="w"><include><uri>c.sdf</uri>{include}'
                                         '</include></world>'))
    (model,) = document(top).models
    assert model.static is expected
    assert model.models[0].static is (expected if include else False)
    assert load(top).scene.models[0].static is expected


def test_include_static_false_cannot_unstatic_a_model(tmp_path: Path) -> None:
    write(tmp_path, 'c.sdf', sdf(STATIC_CHILD.format('true')))
    top = write(tmp_path, 'top.sdf', sdf('<world name="w"><include><uri>c.sdf</uri>\n'
                                         '<static>false</static></include></world>'))
    with pytest.raises(FormatError) as info:
        load(top)
    assert info.value.code == 'ELEMENT_INVALID' and info.value.line == 4
    assert "'c'" in info.value.message


# --- //include/joint and //include/plugin ---------------------------------------------------------

def test_include_joint_and_plugin_join_the_included_model(tmp_path: Path) -> None:
    write(tmp_path, 'c.sdf', sdf('<model name="c"><link name="a"/><link name="b">'
                                 '<pose>1 0 0 0 0 0</pose></link>'
                                 '<plugin name="own" filename="libown.so"/></model>'))
    top = write(tmp_path, 'top.sdf', sdf('''<world name="w"><include><uri>c.sdf</uri>
      <name>cc</name>
      <joint name="hinge" type="revolute"><parent>a</parent><child>b</child>
        <axis><xyz>0 0 1</xyz></axis></joint>
      <plugin name="controller" filename="libcontroller.so"><gain>2</gain></plugin>
    </include></world>'''))
    (model,) = document(top).models
    assert [(p.name, p.filename) for p in model.plugins] == [
        ('own', 'libown.so'), ('controller', 'libcontroller.so')]
    tree = load(top).tree
    assert tree.joints['cc::hinge'].parent == 'cc::a'  # names resolve inside the included model
    # the joint frame defaults to the child's: b turns in place about its own z
    moved = tree.forward({'cc::hinge': math.pi / 2})
    assert np.allclose(moved['cc::b'], about_z(math.pi / 2, (1, 0, 0)), atol=1e-12)


# --- where URIs are looked up ---------------------------------------------------------------------

def _model_dir(root: Path, name: str, config: str | None, files: dict[str, str]) -> None:
    if config is not None:
        write(root, f'{name}/model.config', config)
    for file, model_name in files.items():
        write(root, f'{name}/{file}', sdf(f'<model name="{model_name}"><link name="l"/></model>'))


def test_configured_model_paths_come_before_the_environment(tmp_path: Path,
                                                            monkeypatch) -> None:
    config = ('<?xml version="1.0"?><model><name>thing</name>'
              '<sdf version="1.8">model.sdf</sdf></model>')
    _model_dir(tmp_path / 'configured', 'thing', config, {'model.sdf': 'configured'})
    _model_dir(tmp_path / 'env', 'thing', config, {'model.sdf': 'from_env'})
    monkeypatch.setenv('GZ_SIM_RESOURCE_PATH', str(tmp_path / 'env'))
    top = write(tmp_path, 'w/top.sdf', sdf('<world name="w"><include><uri>model://thing</uri>'
                                           '</include></world>'))
    assert 'from_env::l' in frames_of(top)
    resolver = sdformat.ResolverConfig(model_paths=[tmp_path / 'configured'])
    scene = sdformat.read_sdf(top, config=resolver)
    assert [m.name for m in scene.models] == ['configured']
    alone = sdformat.ResolverConfig(model_paths=[tmp_path / 'configured'],
                                    use_environment=False)
    monkeypatch.setenv('GZ_SIM_RESOURCE_PATH', str(tmp_path / 'nowhere'))
    assert [m.name for m in sdformat.read_sdf(top, config=alone).models] == ['configured']


def test_model_directory_lookup_rules(tmp_path: Path) -> None:
    models = tmp_path / 'models'
    # manifest.xml is the deprecated fallback for model.config
    _model_dir(models, 'legacy', None, {'legacy.sdf': 'legacy'})
    write(models, 'legacy/manifest.xml', '<?xml version="1.0"?><model><name>legacy</name>'
          '<sdf version="1.4">legacy.sdf</sdf></model>')
    # only versions robot_formats reads count; a named file must exist
    _model_dir(models, 'broken', '<?xml version="1.0"?><model><sdf version="1.8">gone.sdf</sdf>'
               '</model>', {})
    _model_dir(models, 'bare', None, {'model.sdf': 'bare'})
    resolver = sdformat.ResolverConfig(model_paths=[models], use_environment=False)

    def include(uri: str) -> Path:
        return write(tmp_path, 'top.sdf', sdf(f'<world name="w"><include><uri>{uri}</uri>'
                                              '</include></world>'))

    assert [m.name for m in sdformat.read_sdf(include('model://legacy'),
                                              config=resolver).models] == ['legacy']
    # a file inside a model directory, named through model://
    assert [m.name for m in sdformat.read_sdf(include('model://bare/model.sdf'),
                                              config=resolver).models] == ['bare']
    for uri, words in (('model://broken', 'names no SDFormat file'),
                       ('model://bare', 'no model.config'),
                       ('model://absent', 'no such file')):
        with pytest.raises(FormatError) as info:
            sdformat.read_sdf(include(uri), config=resolver)
        assert info.value.code == 'URI_LOOKUP' and words in info.value.message, uri
        assert info.value.line == 3


def test_package_uri_through_the_ament_index(tmp_path: Path, monkeypatch) -> None:
    prefix = tmp_path / 'install' / 'my_robot'
    write(prefix, 'share/ament_index/resource_index/packages/my_robot', '')
    write(prefix, 'share/my_robot/models/arm.sdf',
          sdf('<model name="arm"><link name="base"/></model>'))
    monkeypatch.setenv('AMENT_PREFIX_PATH', f'/nonexistent:{prefix}')
    monkeypatch.delenv('ROS_PACKAGE_PATH', raising=False)
    top = write(tmp_path, 'top.sdf', sdf('<world name="w"><include>'
                                         '<uri>package://my_robot/models/arm.sdf</uri>'
                                         '</include></world>'))
    scene = sdformat.read_sdf(top, config=sdformat.ResolverConfig())
    assert [m.name for m in scene.models] == ['arm']


@pytest.mark.parametrize('how', ['ROS_PACKAGE_PATH', 'package_paths'])
def test_package_uri_through_package_xml_search(tmp_path: Path, monkeypatch, how: str) -> None:
    source = tmp_path / 'src'
    write(source, 'deep/folder/package.xml',
          '<?xml version="1.0"?><package format="3"><name>gripper_pkg</name></package>')
    write(source, 'deep/folder/urdf/gripper.urdf',
          '<?xml version="1.0"?><robot name="g"><link name="palm"/></robot>')
    monkeypatch.setenv('AMENT_PREFIX_PATH', '')
    top = write(tmp_path, 'top.sdf', sdf('<world name="w"><include>'
                                         '<uri>package://gripper_pkg/urdf/gripper.urdf</uri>'
                                         '<name>g</name></include></world>'))
    if how == 'ROS_PACKAGE_PATH':
        monkeypatch.setenv('ROS_PACKAGE_PATH', str(source))
        resolver = sdformat.ResolverConfig()
    else:
        monkeypatch.delenv('ROS_PACKAGE_PATH', raising=False)
        resolver = sdformat.ResolverConfig(package_paths=[source], use_environment=False)
    (model,) = load(top, sdf_config=resolver).scene.models  # a URDF: the registry reads it
    assert model.name == 'g' and [link.name for link in model.links] == ['palm']
    with pytest.raises(FormatError, match='needs robot_formats.load'):
        sdformat.read_sdf(top, config=resolver)  # SDFormat alone: no reader for the URDF


def test_including_a_world_is_element_incorrect_type(tmp_path: Path) -> None:
    write(tmp_path, 'inner.sdf', sdf('<world name="inner"><model name="m"><link name="l"/>'
                                     '</model></world>'))
    top = write(tmp_path, 'top.sdf', sdf('<world name="w">\n<include><uri>inner.sdf</uri>'
                                         '</include></world>'))
    with pytest.raises(FormatError) as info:
        load(top)
    assert info.value.code == 'ELEMENT_INCORRECT_TYPE' and info.value.line == 4
    assert info.value.file == str(top)


# --- merge-include into a world (SDFormat 1.10, libsdformat >= 13) -------------------------------

UPSTREAM = shared('corpus', 'sdformat', 'gazebosim_sdformat', 'test')


def test_world_merge_include_as_libsdformat_13() -> None:
    """The corpus world of libsdformat's IncludesTest.WorldMergeInclude (not in the goldens:
    libsdformat 12 predates it). Its expectations: the proxy frame at the include pose in the
    world, the merged models posed relative to the proxy, F1 (attached to the model frame)
    attached to the proxy, the joint merged; here also every pose, from the file's numbers."""
    resolver = sdformat.ResolverConfig(model_paths=[UPSTREAM / 'integration/model'],
                                       use_environment=False)
    frames = sdformat.resolve_document(UPSTREAM / 'sdf/world_merge_include.sdf',
                                       config=resolver)
    proxy = '_merged__model_for_world_merge_include__model__'
    expected = {proxy: (100, 0, 0), 'M1': (100, 0, 0), 'M1::link': (100, 0, 0),
                'M2': (100, 10, 0), 'M2::link': (100, 10, 0), 'F1': (100, 0, 0),
                'F2': (100, 10, 0), 'J1': (100, 10, 0)}
    assert set(frames) == set(expected)
    for name, xyz in expected.items():
        assert np.allclose(frames[name].pose, about_z(0, xyz), atol=1e-12), name
    assert frames['M1'].relative_to == proxy and frames['M2'].relative_to == proxy
    assert frames['F1'].attached_to == 'M1::link'  # through the proxy, to M1's canonical link
    tree = load(UPSTREAM / 'sdf/world_merge_include.sdf', sdf_config=resolver).tree
    assert tree.edges['M2::link'].parent == 'M1::link'  # J1 welds M2 to M1


def test_world_merge_include_of_a_model_with_links_is_refused(tmp_path: Path) -> None:
    write(tmp_path, 'part.sdf', sdf('<model name="part"><link name="l"/></model>'))
    top = write(tmp_path, 'top.sdf', sdf('<world name="w">\n<include merge="true">'
                                         '<uri>part.sdf</uri></include></world>', '1.10'))
    with pytest.raises(FormatError) as info:
        load(top)
    assert info.value.code == 'MERGE_INCLUDE_UNSUPPORTED' and info.value.line == 4


# --- one file included many times -----------------------------------------------------------------

def test_copies_of_one_file_stay_independent(tmp_path: Path) -> None:
    """A file included several times is read once and copied: each copy keeps its own name,
    pose, static flag and include-level additions, and a merge of one copy changes no other."""
    write(tmp_path, 'arm.sdf', sdf('''<model name="arm"><link name="base"/>
      <link name="tip"><pose>0 0 1 0 0 0</pose></link>
      <joint name="j" type="revolute"><parent>base</parent><child>tip</child>
        <axis><xyz>1 0 0</xyz></axis></joint>
      <model name="cam"><pose relative_to="tip">0 0 0.1 0 0 0</pose><link name="body"/></model>
    </model>'''))
    top = write(tmp_path, 'top.sdf', sdf('''<world name="w">
      <include><uri>arm.sdf</uri><name>a</name><pose>1 0 0 0 0 0</pose></include>
      <include><uri>arm.sdf</uri><name>b</name><pose>0 2 0 0 0 1.5707963267948966</pose>
        <frame name="extra" attached_to="tip"><pose>0 0 0.5 0 0 0</pose></frame></include>
      <include><uri>arm.sdf</uri><name>c</name><static>true</static></include>
      <model name="host"><link name="l"/>
        <include merge="true"><uri>arm.sdf</uri><pose>0 0 3 0 0 0</pose></include></model>
      <include><uri>arm.sdf</uri><name>d</name><pose>0 0 -1 0 0 0</pose></include>
    </world>''', '1.9'))
    result = load(top)
    models = {m.name: m for m in result.scene.models}
    assert [models[n].static for n in 'abcd'] == [False, False, True, False]
    poses = result.tree.forward({'a::j': 0.5, 'b::j': -0.5, 'd::j': 0.25})
    for name, base, angle in (('a', about_z(0, (1, 0, 0)), 0.5),
                              ('b', about_z(math.pi / 2, (0, 2, 0)), -0.5),
                              ('c', about_z(0), 0.0), ('d', about_z(0, (0, 0, -1)), 0.25)):
        c, s = math.cos(angle), math.sin(angle)
        turn = np.eye(4)
        turn[1:3, 1:3] = [[c, -s], [s, c]]
        tip = base @ about_z(0, (0, 0, 1)) @ turn
        assert np.allclose(poses[f'{name}::tip'], tip, atol=1e-12), name
        # the nested model is posed relative to the tip but no joint ties it: it stays where
        # the document puts it (at the tip's zero-configuration pose, 0.1 above)
        assert np.allclose(poses[f'{name}::cam::body'], base @ about_z(0, (0, 0, 1.1)),
                           atol=1e-12), name
    assert np.allclose(poses['b::extra'], poses['b::tip'] @ about_z(0, (0, 0, 0.5)), atol=1e-12)
    assert not any(name.startswith(('a::extra', 'c::extra', 'd::extra')) for name in poses)
    assert np.allclose(poses['host::tip'], about_z(0, (0, 0, 4)), atol=1e-12)  # merged copy
    assert 'host::arm' not in poses and 'host::_merged__arm__model__' in poses


@pytest.mark.parametrize('text', ['2.5 junk', '2.5junk'])
def test_a_text_read_past_warns_in_every_document_of_a_load(tmp_path: Path, text: str) -> None:
    """The documents of one load share their table of numbers read (ReadingContext's
    NumberTables), which keeps only what the strict reader read: a text libsdformat reads past
    warns at its own line in the included file and again in the world that repeats it."""
    link = f'<link name="base"><inertial><mass>{text}</mass></inertial></link>'
    write(tmp_path, 'part.sdf', sdf(f'<model name="part">{link}</model>'))
    world = write(tmp_path, 'world.sdf', sdf(
        '<world name="w"><include><uri>part.sdf</uri><name>a</name></include>\n'
        f'<model name="b">\n{link}</model></world>'))
    read_past = [(Path(w.file).name, w.line) for w in load(world).warnings
                 if 'reads past' in w.message]
    assert read_past == [('part.sdf', 3), ('world.sdf', 5)]
    masses = {link.name: link.inertial.mass for model in load(world).scene.models
              for link in model.links}
    assert set(masses.values()) == {2.5}
