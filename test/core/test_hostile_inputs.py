"""The examples of issue 27 through the command line, each the way an attacker would try it: every
run ends with exit 0 or 1 (never 3, never killed by the memory cap, never a hang), a refusal is
one ``file:line: message`` line, and no output shows a byte of a file other than the document
(a secret planted in files, in /proc/self/environ, and /etc/shadow's and /etc/passwd's entries).

Classes: file disclosure (includes, a problem's robot file, xacro's load_yaml, package:// leaving
its package), unbounded work (FIFOs and devices as input or referenced, xacro bombs, includes
that fan out, sampling billions, recursion on long chains, a cubic attachment check, a mesh link
loop, a 2 GB mesh), and numbers that overflow (a file check accepts must be accepted by frames,
convert and render, and the URDF written passes check_urdf). Run under hostile.MEMORY_CAP;
the limits are docs/limits.md's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hostile import SECRET, Plant, run_cli_capped, verdict
from rf_testlib import check_urdf

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope='module')
def plant(tmp_path_factory) -> Plant:
    return Plant(tmp_path_factory.mktemp('plant'))


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def refused(*args) -> None:
    """The command refuses its input with exit 1 and one line, disclosing nothing."""
    outcome = run_cli_capped(*args)
    problem = verdict(outcome, expected=(1,))
    assert problem is None, problem


def accepted(*args) -> str:
    """The command ends with exit 0, disclosing nothing; its stdout."""
    outcome = run_cli_capped(*args)
    problem = verdict(outcome, expected=(0,))
    assert problem is None, problem
    return outcome.stdout


# --- 1. file disclosure -------------------------------------------------------------------------

def sdf_world(body: str) -> str:
    return f'<?xml version="1.0"?>\n<sdf version="1.8"><world name="w">\n{body}\n</world></sdf>\n'


@pytest.mark.parametrize('target', ['secret_text', 'secret_xml', 'secret_binary', 'etc_shadow',
                                    'proc_environ'])
def test_an_sdformat_include_shows_nothing_of_the_file(plant: Plant, tmp_path: Path,
                                                       target: str) -> None:
    path = {'etc_shadow': '/etc/shadow', 'proc_environ': '/proc/self/environ'}.get(target) or str(
        getattr(plant, target))
    world = write(tmp_path, 'w.sdf', sdf_world(f'<include><uri>file://{path}</uri></include>'))
    refused('check', world)


def test_an_hrdf_include_shows_nothing_of_the_file(plant: Plant, tmp_path: Path) -> None:
    robot = write(tmp_path, 'a/b/robot.hrdf', '<?xml version="1.0"?>\n<robot version="1.3.0">'
                  '<actuator type="X5-9"/>\n<include path="../../../plant/secret.txt"/></robot>\n')
    (tmp_path / 'plant').symlink_to(plant.root)
    refused('check', robot)


@pytest.mark.parametrize('target', ['secret_text', 'secret_xml', 'secret_yaml'])
def test_a_problem_robot_file_shows_nothing_of_the_file(plant: Plant, tmp_path: Path,
                                                        target: str) -> None:
    problem = write(tmp_path, 'p.xml', '<?xml version="1.0"?>\n<problem><objects/><robots>'
                    f'<robot><name>r</name><urdf>{getattr(plant, target)}</urdf></robot>'
                    '</robots></problem>\n')
    refused('check', problem)


def test_proc_self_environ_as_the_document_shows_nothing() -> None:
    refused('check', '/proc/self/environ')


def load_yaml_document(folder: Path, path: str | Path, name: str = 'r.urdf.xacro') -> Path:
    """A xacro document using what load_yaml reads in a link name (which messages quote)."""
    return write(folder, name, '<?xml version="1.0"?>\n<robot name="r" xmlns:xacro='
                 '"http://www.ros.org/wiki/xacro">\n<xacro:property name="p" value="${xacro.'
                 f"load_yaml('{path}')" '}"/>\n<link name="${p}"/><link name="a${len(p)}"/>'
                 '</robot>\n')


@pytest.mark.parametrize('target', ['/etc/passwd', 'secret_text', 'secret_xml', 'secret_yaml',
                                    'pipe', 'zero', '/etc/shadow'])
def test_xacro_load_yaml_shows_nothing_of_the_file(plant: Plant, tmp_path: Path,
                                                   target: str) -> None:
    """load_yaml reads only .yaml files of the document's package and of ROS packages: what it
    reads becomes the document, which messages quote. /etc/shadow's lines end with ':', so YAML
    would read it as a mapping; a mapping from elsewhere (the planted secret.yaml) is refused
    too. Both are used in a link name here, which the two-roots message would quote."""
    path = {'pipe': plant.fifo, 'zero': plant.zero}.get(target) or getattr(plant, target, target)
    refused('check', load_yaml_document(tmp_path, path))


def test_xacro_load_yaml_reads_the_documents_package_and_ros_packages(tmp_path: Path) -> None:
    """What descriptions load: a sibling folder of the package (``../config``) and a ROS
    package's share folder through ``$(find pkg)``."""
    write(tmp_path, 'package.xml', '<package format="3"><name>r</name></package>\n')
    write(tmp_path, 'config/limits.yaml', 'shoulder: {upper: 1.5}\n')
    doc = write(tmp_path, 'urdf/r.urdf.xacro', '<?xml version="1.0"?>\n<robot name="r" '
                'xmlns:xacro="http://www.ros.org/wiki/xacro">\n<xacro:property name="p" '
                "value=\"${xacro.load_yaml('../config/limits.yaml')}\"/>\n<xacro:property "
                'name="q" value="${xacro.load_yaml(\'$(find robot_formats)/config/'
                'description_publisher.yaml\')}"/>\n<link name="a${p.shoulder.upper}_${len(q)}"/>'
                '</robot>\n')
    assert 'a1.5_1' in accepted('frames', '--json', doc)
    refused('check', load_yaml_document(tmp_path / 'urdf', '../../outside.yaml', 's.urdf.xacro'))
    (tmp_path / 'config/planted.yaml').symlink_to('/etc/shadow')
    refused('check', load_yaml_document(tmp_path / 'urdf', '../config/planted.yaml',
                                        't.urdf.xacro'))


def test_xacro_include_of_a_file_shows_nothing(plant: Plant, tmp_path: Path) -> None:
    for target in (plant.secret_text, plant.fifo, plant.zero, '/etc/shadow'):
        doc = write(tmp_path, 'r.urdf.xacro', '<?xml version="1.0"?>\n<robot name="r" xmlns:'
                    f'xacro="http://www.ros.org/wiki/xacro">\n<xacro:include filename="{target}"/>'
                    '\n<link name="a"/></robot>\n')
        refused('check', doc)


def test_package_uri_cannot_leave_its_package(plant: Plant, tmp_path: Path) -> None:
    """An SDFormat include is refused with one line; a mesh is drawn without, one warning."""
    escape = f'package://robot_formats/../../../../../../../..{plant.secret_xml}'
    refused('check', write(tmp_path, 'w.sdf', sdf_world(f'<include><uri>{escape}</uri></include>')))
    refused('check', write(tmp_path, 'm.sdf', sdf_world(
        f'<include><uri>model://../../../../../..{plant.root}</uri></include>')))
    robot = write(tmp_path, 'r.urdf', '<?xml version="1.0"?>\n<robot name="r"><link name="a">'
                  f'<visual><geometry><mesh filename="{escape}"/></geometry></visual></link>'
                  '</robot>\n')
    outcome = run_cli_capped('render', robot, '-o', tmp_path / 'r.png')
    assert verdict(outcome, expected=(0,)) is None, verdict(outcome)
    assert 'leaves the directory of package' in outcome.stderr, outcome.stderr


# --- 2. unbounded work --------------------------------------------------------------------------

@pytest.mark.parametrize('suffix', ['.urdf', '.sdf', '.hrdf', '.skel', '.xml', '.xmdi',
                                    '.urdf.xacro'])
def test_a_fifo_or_a_device_as_input_is_refused_at_once(plant: Plant, tmp_path: Path,
                                                        suffix: str) -> None:
    for target in (plant.fifo, '/dev/zero', '/dev/urandom', plant.directory):
        link = tmp_path / f'input{suffix}'
        link.unlink(missing_ok=True)
        link.symlink_to(target)
        refused('check', link)


def test_a_fifo_or_a_device_named_by_a_problem_or_an_include_is_refused(plant: Plant,
                                                                       tmp_path: Path) -> None:
    for target in (plant.fifo, plant.zero, plant.urandom, plant.loop, plant.directory):
        refused('check', write(tmp_path, 'p.xml', '<?xml version="1.0"?>\n<problem><objects/>'
                               f'<robots><robot><name>r</name><urdf>{target}</urdf></robot>'
                               '</robots></problem>\n'))
        refused('check', write(tmp_path, 'w.sdf', sdf_world(
            f'<include><uri>{target}</uri></include>')))


@pytest.mark.parametrize('body', [
    '<link name="${9**9**9}"/>',
    '<xacro:property name="p0" value="xxxxxxxxxx"/>'
    + ''.join(f'<xacro:property name="p{i}" value="${{p{i - 1}}}${{p{i - 1}}}"/>'
              for i in range(1, 40)) + '<link name="${p39}"/>',
    '<xacro:macro name="m" params="n"><link name="l${n}"/><xacro:m n="${n+1}"/></xacro:macro>'
    '<xacro:m n="0"/>',
], ids=['power', 'property_bomb', 'endless_macro'])
def test_xacro_bombs_end_within_the_budget(tmp_path: Path, body: str) -> None:
    doc = write(tmp_path, 'bomb.urdf.xacro', '<?xml version="1.0"?>\n<robot name="r" '
                f'xmlns:xacro="http://www.ros.org/wiki/xacro">\n{body}\n</robot>\n')
    refused('check', doc)


def test_includes_that_fan_out_are_refused(tmp_path: Path) -> None:
    """Each file including the next twice, 25 levels: 2^25 models."""
    for level in range(25):
        nested = (f'<include><uri>m{level + 1}.sdf</uri><name>a</name></include>'
                  f'<include><uri>m{level + 1}.sdf</uri><name>b</name></include>'
                  if level < 24 else '')
        write(tmp_path, f'm{level}.sdf', f'<?xml version="1.0"?>\n<sdf version="1.8"><model '
              f'name="m{level}"><link name="l"/>{nested}</model></sdf>\n')
        nested = (f'<include path="h{level + 1}.hrdf"/><include path="h{level + 1}.hrdf"/>'
                  if level < 24 else '')
        write(tmp_path, f'h{level}.hrdf', '<?xml version="1.0"?>\n<robot version="1.3.0">'
              f'<actuator type="X5-9"/>{nested}</robot>\n')
    refused('check', tmp_path / 'm0.sdf')
    refused('check', tmp_path / 'h0.hrdf')


def test_includes_nested_deeper_than_the_limit_are_refused(tmp_path: Path) -> None:
    for level in range(200):
        write(tmp_path, f'h{level}.hrdf', '<?xml version="1.0"?>\n<robot version="1.3.0">'
              f'<actuator type="X5-9"/><include path="h{level + 1}.hrdf"/></robot>\n')
    write(tmp_path, 'h200.hrdf', '<?xml version="1.0"?>\n<robot version="1.3.0"/>\n')
    refused('check', tmp_path / 'h0.hrdf')


def test_problems_and_worlds_naming_each_other_are_refused(tmp_path: Path) -> None:
    """A problem whose robot is a world that includes the problem (a loop across formats)."""
    write(tmp_path, 'w.sdf', sdf_world('<include><uri>p.xml</uri></include>'))
    problem = write(tmp_path, 'p.xml', '<?xml version="1.0"?>\n<problem><objects/><robots>'
                    '<robot><name>r</name><urdf>w.sdf</urdf></robot></robots></problem>\n')
    refused('check', problem)
    refused('check', write(tmp_path, 'self.xml', '<?xml version="1.0"?>\n<problem><objects/>'
                           '<robots><robot><name>r</name><urdf>self.xml</urdf></robot></robots>'
                           '</problem>\n'))


def test_sampling_billions_is_refused(tmp_path: Path) -> None:
    """Each motion alone within the per-motion bound, together billions of samples."""
    motions = ''.join(f'<motion name="m{i}"><servo name="j"><position>0 1</position>'
                      f'<frames>0 19000000</frames></servo></motion>' for i in range(200))
    doc = write(tmp_path, 'many.xmdi', f'<?xml version="1.0"?>\n<xmdi><motions>{motions}'
                '</motions></xmdi>\n')
    refused('motion', '--json', doc)


def test_a_10000_link_chain_is_walked_without_recursion(tmp_path: Path) -> None:
    links = ''.join(f'<link name="l{i}"/>' for i in range(10_000))
    joints = ''.join(f'<joint name="j{i}" type="revolute"><parent link="l{i}"/><child '
                     f'link="l{i + 1}"/><origin xyz="0 0 0.01"/><axis xyz="0 0 1"/><limit '
                     'lower="-1" upper="1" effort="1" velocity="1"/></joint>'
                     for i in range(9_999))
    chain = write(tmp_path, 'chain.urdf', f'<?xml version="1.0"?>\n<robot name="c">{links}'
                  f'{joints}</robot>\n')
    assert 'l9999' in accepted('info', chain)
    assert 'l9999' in json.loads(accepted('frames', '--json', chain))['frames']
    accepted('convert', chain, '-o', tmp_path / 'out.urdf')
    accepted('render', chain, '-o', tmp_path / 'chain.png')


def test_sdformat_frame_chains_10000_deep_are_walked_without_recursion(tmp_path: Path) -> None:
    """Each frame attached to and posed relative to the next, listed from the first (the
    first resolved is the deepest); and 10,000 relative_to cycles, each reported."""
    frames = ''.join(f'<frame name="f{i}" attached_to="{"l" if i == 9_999 else f"f{i + 1}"}">'
                     f'<pose relative_to="{"l" if i == 9_999 else f"f{i + 1}"}">0 0 0.01 0 0 0'
                     '</pose></frame>' for i in range(10_000))
    deep = write(tmp_path, 'deep.sdf', '<?xml version="1.0"?>\n<sdf version="1.8"><model '
                 f'name="m"><link name="l"/>{frames}</model></sdf>\n')
    assert 'm::f0' in json.loads(accepted('frames', '--json', deep))['frames']
    accepted('info', deep)
    links = ''.join(f'<link name="l{i}"><pose relative_to="j{i - 1}"/></link>'
                    for i in range(1, 10_000))
    joints = ''.join(f'<joint name="j{i}" type="fixed"><parent>l{i}</parent><child>l{i + 1}'
                     '</child></joint>' for i in range(9_999))
    cycles = write(tmp_path, 'cycles.sdf', '<?xml version="1.0"?>\n<sdf version="1.8"><model '
                   f'name="m"><link name="l0"/>{links}{joints}</model></sdf>\n')
    outcome = run_cli_capped('check', cycles)
    assert outcome.returncode == 1 and 'Traceback' not in outcome.stderr, outcome.stderr[-500:]
    assert outcome.stderr.count('relative_to graph has a cycle') >= 9_999


def test_a_10000_object_attachment_chain_is_checked(tmp_path: Path) -> None:
    """Each object carries the next, listed from the last: near-linear work (was cubic)."""
    objects = ''.join(
        f'<obj><name>o{i}</name><pose>1 0 0 0 0 1 0 0 0 0 1 {i * 0.01}</pose>'
        f'<moveable>true</moveable>'
        + (f'<attachments><name>o{i + 1}</name></attachments>' if i < 9_999 else '')
        + '</obj>' for i in reversed(range(10_000)))
    problem = write(tmp_path, 'chain.xml', f'<?xml version="1.0"?>\n<problem><objects>{objects}'
                    '</objects><robots/></problem>\n')
    accepted('check', problem)
    assert 'o9999' in json.loads(accepted('frames', '--json', problem))['frames']


def test_meshes_that_loop_or_never_end_are_drawn_without(plant: Plant, tmp_path: Path) -> None:
    for target in (plant.loop, plant.sparse, plant.fifo, plant.zero, plant.secret_text,
                   plant.directory):
        robot = write(tmp_path, 'r.urdf', '<?xml version="1.0"?>\n<robot name="r"><link name='
                      f'"a"><visual><geometry><mesh filename="{target}"/></geometry></visual>'
                      '</link></robot>\n')
        outcome = run_cli_capped('render', robot, '-o', tmp_path / 'r.png')
        assert verdict(outcome, expected=(0,)) is None, verdict(outcome)


# --- 3. numbers that overflow, names that are empty -------------------------------------------

@pytest.mark.parametrize('name, text', [
    ('axis.urdf', '<?xml version="1.0"?>\n<robot name="r"><link name="a"/><link name="b"/>'
                  '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis '
                  'xyz="1e308 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
                  '</joint></robot>\n'),
    ('planar.urdf', '<?xml version="1.0"?>\n<robot name="r"><link name="a"/><link name="b"/>'
                    '<joint name="j" type="planar"><parent link="a"/><child link="b"/><axis '
                    'xyz="1 1 1e308"/></joint></robot>\n'),  # (found by fuzzing)
    ('trans.hrdf', '<?xml version="1.0"?>\n<robot version="1.3.0" trans="1e309 0 0">'
                   '<actuator type="X5-9"/></robot>\n'),
    ('com.hrdf', '<?xml version="1.0"?>\n<robot version="1.3.0"><actuator type="X5-9" '
                 'com_trans="1e300*1e300 0 0"/></robot>\n'),
    ('mass.sdf', '<?xml version="1.0"?>\n<sdf version="1.8"><model name="m"><link name="l">'
                 '<inertial><mass>-inf</mass></inertial></link></model></sdf>\n'),
    ('pose.sdf', '<?xml version="1.0"?>\n<sdf version="1.8"><model name="m"><link name="l">'
                 '<pose>1e300 0 0 0 0 0</pose></link></model></sdf>\n'),
    ('huge.urdf', '<?xml version="1.0"?>\n<robot name="r"><link name="a"><inertial><mass '
                  'value="1e300"/><inertia ixx="1e300" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>'
                  '</inertial></link></robot>\n'),
    ('mimic.urdf', '<?xml version="1.0"?>\n<robot name="r"><link name="a"/><link name="b"/>'
                   '<link name="c"/><joint name="j1" type="revolute"><parent link="a"/><child '
                   'link="b"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
                   '<joint name="j2" type="revolute"><parent link="b"/><child link="c"/><limit '
                   'lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="j1" '
                   'multiplier="1e200" offset="1e200"/></joint></robot>\n'),
    ('mimic_chain.urdf', '<?xml version="1.0"?>\n<robot name="r"><link name="a"/><link name="b"/>'
                         '<link name="c"/><link name="d"/><joint name="j1" type="revolute">'
                         '<parent link="a"/><child link="b"/><limit lower="-1" upper="1" '
                         'effort="1" velocity="1"/></joint><joint name="j2" type="revolute">'
                         '<parent link="b"/><child link="c"/><limit lower="-1" upper="1" '
                         'effort="1" velocity="1"/><mimic joint="j1" multiplier="1e10"/></joint>'
                         '<joint name="j3" type="revolute"><parent link="c"/><child link="d"/>'
                         '<limit lower="-1" upper="1" effort="1" velocity="1"/><mimic '
                         'joint="j2" multiplier="1e10"/></joint></robot>\n'),  # 1e20 in all
    ('empty_link.urdf', '<?xml version="1.0"?>\n<robot name="r"><link name=""/></robot>\n'),
    ('empty_joint.urdf', '<?xml version="1.0"?>\n<robot name="r"><link name="a"/><link '
                         'name="b"/><joint name="" type="fixed"><parent link="a"/><child '
                         'link="b"/></joint></robot>\n'),
])
def test_numbers_out_of_range_and_empty_names_are_refused_by_check(tmp_path: Path, name: str,
                                                                   text: str) -> None:
    """What check refuses, no command accepts: so convert never writes inf."""
    path = write(tmp_path, name, text)
    for command in (('check',), ('frames',), ('info',), ('convert', '-o', tmp_path / 'o.urdf'),
                    ('render', '-o', tmp_path / 'o.png')):
        refused(*command, path)
    assert not (tmp_path / 'o.urdf').exists() and not (tmp_path / 'o.png').exists()
    if name in ('axis.urdf', 'empty_link.urdf', 'empty_joint.urdf'):  # documented differences
        assert check_urdf(path).returncode == 0, f'urdfdom refuses {name} now'


def test_positions_beyond_the_model_range_are_a_usage_error(tmp_path: Path) -> None:
    robot = write(tmp_path, 'slide.urdf', '<?xml version="1.0"?>\n<robot name="r"><link '
                  'name="a"/><link name="b"/><joint name="s" type="prismatic"><parent link="a"/>'
                  '<child link="b"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
                  '</joint></robot>\n')
    outcome = run_cli_capped('frames', '--json', robot, '--set', 's=1e308')
    assert outcome.returncode == 2 and 'magnitude' in outcome.stderr, outcome


def test_the_secret_is_planted_where_the_tests_look(plant: Plant) -> None:
    """The detector is live: the planted files hold the secret (else nothing is proven)."""
    assert SECRET in plant.secret_text.read_text() and SECRET in plant.secret_xml.read_text()
    assert verdict(run_cli_capped('check', plant.secret_text), expected=(1,)) is None
    from hostile import Outcome
    assert verdict(Outcome(('x',), 1, '', f'x.urdf:1: {SECRET}'), (1,)) is not None
    assert verdict(Outcome(('x',), 1, '', 'x.urdf:1: root:x:0:0:'), (1,)) is not None


# --- found by the fuzzing -----------------------------------------------------------------------

def test_a_name_too_long_for_the_file_system_is_no_file(tmp_path: Path) -> None:
    """os.stat raises ENAMETOOLONG for a name over 255 bytes (Path.is_file lets it through)."""
    long = 'x' * 300
    refused('check', write(tmp_path, 'w.sdf', sdf_world(f'<include><uri>{long}</uri></include>')))
    refused('check', write(tmp_path, 'h.hrdf', '<?xml version="1.0"?>\n<robot version="1.3.0">'
                           f'<actuator type="X5-9"/><include path="{long}"/></robot>\n'))
    refused('check', write(tmp_path, 'p.xml', '<?xml version="1.0"?>\n<problem><objects/>'
                           f'<robots><robot><name>r</name><urdf>{long}</urdf></robot></robots>'
                           '</problem>\n'))
    accepted('check', write(tmp_path, 'm.hrdf', '<?xml version="1.0"?>\n<robot version="1.3.0">'
                            f'<actuator type="X5-9"/><rigid-body mass="1" mesh_path="{long}.stl"/>'
                            '</robot>\n'))
    accepted('check', write(tmp_path, 'o.xml', '<?xml version="1.0"?>\n<problem><objects><obj>'
                            f'<name>o</name><geom>{long}.obj</geom><pose>1 0 0 0 0 1 0 0 0 0 1 0'
                            '</pose></obj></objects><robots/></problem>\n'))


def test_double_hyphens_in_names_are_written_as_urdf(tmp_path: Path) -> None:
    """The URDF written carries the file name and multi-DoF joint names in comments, where XML
    allows no '--' (a file robot--v2.urdf, a ball joint 'j--1')."""
    robot = write(tmp_path, 'robot--v2-.urdf', '<?xml version="1.0"?>\n<robot name="r"><link '
                  'name="a"/><link name="b"/><joint name="j--1" type="floating"><parent link="a"/>'
                  '<child link="b"/></joint></robot>\n')
    written = tmp_path / 'out.urdf'
    accepted('convert', robot, '-o', written)
    assert check_urdf(written).returncode == 0
