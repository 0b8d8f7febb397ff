"""Seeded generators of hostile documents, one per format (issue 27's classes), for
test_fuzz_formats.py.

Each generator writes one case into a folder of its own and returns the document to run:

* **disclosure**: references to the planted targets (hostile.Plant: secrets in text, XML, YAML
  and binary files, /etc/shadow, /proc/self/environ) by every way a format names a file
  (includes, robot files, meshes, textures, xacro include and load_yaml, DOCTYPE entities),
  plain, ``file://``, through ``..``, and ``package://``/``model://`` URIs trying to leave
  their directory;
* **unbounded work**: the same references to a FIFO, devices, a link loop, a directory, a 2 GB
  sparse file; includes that fan out, nest deep or loop (within a format and across formats);
  long chains of links, frames, includes, attachments and mimics; xacro bombs (rarely: each
  costs the xacro budget); motions sampling billions;
* **numbers**: non-finite, overflowing (``1e308``, formulas reaching ``inf``), tiny, huge but
  finite, empty and duplicate names;
* **special files as the document**: the document itself a FIFO, a device, a directory, a loop
  of links, /proc/self/environ, a secret file.

The secret (hostile.SECRET) is in no generated document, so any output showing it discloses a
file. Every case is deterministic in its ``random.Random``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from hostile import Plant

#: Numbers that are not finite, overflow, or are finite but huge or tiny.
HOSTILE_NUMBERS = ['nan', 'inf', '-inf', '1e309', '-1e309', '1e308', '-1e308', '1e300',
                   '1e19', '-1e19', '1e18', '9.9e17', '1e-320', '1e-300', '0', '-0',
                   '4294967296', '1e16', '-1e16', '1.7976931348623157e308', '5e-324']
#: HRDF formulas that overflow or divide by zero.
HOSTILE_FORMULAS = ['1e300*1e300', '1/0', 'pi*1e308', '-1e308*10', '(1e200)*(1e200)',
                    '0/0', '1e308+1e308', '2^2000']


@dataclass
class Case:
    """One generated document: its path, the format's generator, what it tries."""

    path: Path
    fmt: str
    attack: str
    servo_map: Path | None = None


def _references(rng: random.Random, plant: Plant, folder: Path, scheme: bool = True) -> str:
    """A reference to a planted target, as a format may write it."""
    target = rng.choice(plant.targets())
    depth = len(folder.resolve().parts) + rng.randint(0, 3)
    relative = '../' * depth + target.lstrip('/')
    choices = [target, relative]
    if scheme:
        choices += [f'file://{target}', f'package://robot_formats/{relative}',
                    f'package://robot_formats/{"../" * rng.randint(1, 8)}'
                    f'{target.lstrip("/")}', f'model://{rng.choice([".."])}/{relative}',
                    f'model://x/{"../" * rng.randint(2, 9)}{target.lstrip("/")}']
    return rng.choice(choices)


def _number(rng: random.Random) -> str:
    return rng.choice(HOSTILE_NUMBERS)


def _numbers(rng: random.Random, count: int, fine: str = '0') -> str:
    """``count`` numbers, some of them hostile."""
    return ' '.join(_number(rng) if rng.random() < 0.2 else fine for _ in range(count))


def _long(rng: random.Random) -> int:
    """The length of a long chain: mostly tens or hundreds, sometimes a thousand, rarely 10,000
    (the cost of a case grows with it; the issue's chains were 10,000 long)."""
    draw = rng.random()
    return 10_000 if draw < 0.005 else 1000 if draw < 0.15 else rng.choice([20, 50, 100, 300])


def _name(rng: random.Random, index: int) -> str:
    return rng.choice(['', f'n{index}', f'n{index}', f'n{index}', 'n0', 'world', ' ',
                       '__model__', 'a::b', 'x' * 300]) if rng.random() < 0.2 else f'n{index}'


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def _special(rng: random.Random, plant: Plant, folder: Path, suffix: str) -> Path:
    """The document itself a FIFO, a device, a directory, a link loop or a secret."""
    link = folder / f'special{suffix}'
    link.symlink_to(rng.choice([str(plant.fifo), '/dev/zero', '/dev/urandom', '/dev/null',
                                str(plant.directory), str(plant.loop), '/proc/self/environ',
                                str(plant.secret_text), str(plant.secret_xml),
                                str(plant.secret_binary), '/dev/stdin', str(plant.sparse),
                                str(link)]))
    return link


# --- URDF -------------------------------------------------------------------------------------

def _urdf_link(rng: random.Random, plant: Plant, folder: Path, index: int) -> str:
    parts = []
    if rng.random() < 0.4:
        parts.append(f'<inertial><origin xyz="{_numbers(rng, 3)}" rpy="{_numbers(rng, 3)}"/>'
                     f'<mass value="{_numbers(rng, 1, "1")}"/><inertia ixx='
                     f'"{_numbers(rng, 1, "1")}" ixy="0" ixz="0" iyy="{_numbers(rng, 1, "1")}" '
                     'iyz="0" izz="1"/></inertial>')
    if rng.random() < 0.5:
        geometry = rng.choice([
            f'<mesh filename="{_references(rng, plant, folder)}" '
            f'scale="{_numbers(rng, 3, "1")}"/>',
            f'<box size="{_numbers(rng, 3, "1")}"/>',
            f'<cylinder radius="{_numbers(rng, 1, "1")}" length="{_numbers(rng, 1, "1")}"/>',
            f'<sphere radius="{_numbers(rng, 1, "1")}"/>'])
        texture = (f'<material name="m{index}"><texture filename="'
                   f'{_references(rng, plant, folder)}"/></material>'
                   if rng.random() < 0.2 else '')
        parts.append(f'<visual><geometry>{geometry}</geometry>{texture}</visual>')
    return f'<link name="{_name(rng, index)}">{"".join(parts)}</link>'


def _urdf_joint(rng: random.Random, index: int, parent: int, count: int) -> str:
    kind = rng.choice(['revolute', 'continuous', 'prismatic', 'fixed', 'floating', 'planar'])
    mimic = (f'<mimic joint="j{rng.randrange(count)}" multiplier="{_numbers(rng, 1, "2")}" '
             f'offset="{_numbers(rng, 1)}"/>' if rng.random() < 0.15 else '')
    return (f'<joint name="{_name(rng, index) if rng.random() < 0.1 else f"j{index}"}" '
            f'type="{kind}"><parent link="n{parent}"/><child link="n{index + 1}"/>'
            f'<origin xyz="{_numbers(rng, 3)}" rpy="{_numbers(rng, 3)}"/>'
            f'<axis xyz="{_numbers(rng, 3, "1")}"/><limit lower="{_numbers(rng, 1, "-1")}" '
            f'upper="{_numbers(rng, 1, "1")}" effort="{_numbers(rng, 1, "1")}" '
            f'velocity="{_numbers(rng, 1, "1")}"/>{mimic}</joint>')


def urdf(rng: random.Random, plant: Plant, folder: Path) -> Case:
    attack = rng.choice(['robot', 'robot', 'robot', 'chain', 'entity', 'special'])
    if attack == 'special':
        return Case(_special(rng, plant, folder, '.urdf'), 'urdf', attack)
    count = rng.choice([2, 3, 5, 8]) if attack != 'chain' else _long(rng)
    links = ''.join(_urdf_link(rng, plant, folder, i) if attack == 'robot' else
                    f'<link name="n{i}"/>' for i in range(count + 1))
    joints = ''.join(_urdf_joint(rng, i, rng.randrange(i + 1) if attack == 'robot' else i, count)
                     for i in range(count))
    doctype = ''
    if attack == 'entity':
        doctype = (f'<!DOCTYPE robot [<!ENTITY s SYSTEM "{_references(rng, plant, folder)}">]>\n')
        links = links.replace('<link name="n0"/>', '<link name="n0">&s;</link>')
    return Case(_write(folder, 'robot.urdf', f'<?xml version="1.0"?>\n{doctype}<robot '
                       f'name="r">{links}{joints}</robot>\n'), 'urdf', attack)


# --- SDFormat ---------------------------------------------------------------------------------

def _sdf(body: str, kind: str = 'model', name: str = 'm') -> str:
    return (f'<?xml version="1.0"?>\n<sdf version="1.8"><{kind} name="{name}">{body}</{kind}>'
            '</sdf>\n')


def sdf(rng: random.Random, plant: Plant, folder: Path) -> Case:
    attack = rng.choice(['include', 'include', 'fan_out', 'cycle', 'numbers', 'frames',
                         'nested', 'cross', 'special'])
    if attack == 'special':
        return Case(_special(rng, plant, folder, '.sdf'), 'sdf', attack)
    if attack == 'include':
        includes = ''.join(f'<include><uri>{_references(rng, plant, folder)}</uri><name>i{i}'
                           '</name></include>' for i in range(rng.randint(1, 3)))
        mesh = (f'<link name="l"><visual name="v"><geometry><mesh><uri>'
                f'{_references(rng, plant, folder)}</uri></mesh></geometry></visual></link>')
        return Case(_write(folder, 'world.sdf', _sdf(includes + mesh, 'world', 'w')), 'sdf',
                    attack)
    if attack == 'fan_out':
        levels, fan = rng.randint(3, 30), rng.randint(2, 4)
        for level in range(levels):
            nested = ''.join(f'<include><uri>m{level + 1}.sdf</uri><name>c{k}</name></include>'
                             for k in range(fan)) if level < levels - 1 else ''
            _write(folder, f'm{level}.sdf', _sdf(f'<link name="l"/>{nested}', name=f'm{level}'))
        return Case(folder / 'm0.sdf', 'sdf', attack)
    if attack == 'cycle':
        _write(folder, 'a.sdf', _sdf('<link name="l"/><include><uri>b.sdf</uri></include>'))
        _write(folder, 'b.sdf', _sdf('<link name="l"/><include><uri>'
                                     f'{rng.choice(["a.sdf", "b.sdf", "w.sdf"])}</uri></include>',
                                     name='b'))
        return Case(_write(folder, 'w.sdf', _sdf('<include><uri>a.sdf</uri></include>',
                                                 'world', 'w')), 'sdf', attack)
    if attack == 'numbers':
        kind = rng.choice(['revolute', 'prismatic', 'screw'])
        body = (f'<pose>{_numbers(rng, 6)}</pose><link name="{_name(rng, 0)}"><pose>'
                f'{_numbers(rng, 6)}</pose><inertial><mass>{_numbers(rng, 1, "1")}</mass>'
                f'<inertia><ixx>{_numbers(rng, 1, "1")}</ixx><iyy>1</iyy><izz>1</izz></inertia>'
                f'</inertial><visual name="v"><geometry><box><size>{_numbers(rng, 3, "1")}'
                '</size></box></geometry></visual></link><link name="b"/>'
                f'<joint name="{_name(rng, 1)}" type="{kind}"><parent>{_name(rng, 0)}</parent>'
                f'<child>b</child><axis><xyz>{_numbers(rng, 3, "1")}</xyz><limit><lower>'
                f'{_number(rng)}</lower><upper>{_number(rng)}</upper>'
                f'<effort>{_number(rng)}</effort><velocity>{_number(rng)}</velocity></limit>'
                f'</axis><pose>{_numbers(rng, 6)}</pose></joint>')
        return Case(_write(folder, 'numbers.sdf', _sdf(body)), 'sdf', attack)
    if attack == 'frames':
        count = _long(rng)
        order = list(range(count))
        if rng.random() < 0.5:
            order.reverse()

        def relative(i: int) -> str:
            return rng.choice(['l', f'f{i - 1}', f'f{i + 1}']) if i else 'l'
        frames = ''.join(f'<frame name="f{i}" attached_to="{"l" if i == 0 else f"f{i - 1}"}">'
                         f'<pose relative_to="{relative(i)}">0 0 0.01 0 0 0</pose></frame>'
                         for i in order)
        return Case(_write(folder, 'frames.sdf', _sdf(f'<link name="l"/>{frames}')), 'sdf',
                    attack)
    if attack == 'nested':
        depth = rng.choice([10, 100, 250, 300])
        body = '<link name="l"/>'
        for level in range(depth):
            body = f'<model name="n{level}">{body}</model>'
        return Case(_write(folder, 'nested.sdf', _sdf(body)), 'sdf', attack)
    other = rng.choice(['p.xml', 'r.urdf', 'h.hrdf', 'w.sdf'])  # a loop across formats
    _write(folder, 'p.xml', '<?xml version="1.0"?>\n<problem><objects/><robots><robot><name>r'
           '</name><urdf>w.sdf</urdf></robot></robots></problem>\n')
    _write(folder, 'r.urdf', '<?xml version="1.0"?>\n<robot name="r"><link name="a"/></robot>\n')
    _write(folder, 'h.hrdf', '<?xml version="1.0"?>\n<robot version="1.3.0"><actuator '
           'type="X5-9"/><include path="h.hrdf"/></robot>\n')
    return Case(_write(folder, 'w.sdf', _sdf(f'<include><uri>{other}</uri></include>', 'world',
                                             'w')), 'sdf', attack)


# --- HRDF -------------------------------------------------------------------------------------

def _hrdf(body: str, attributes: str = '') -> str:
    return f'<?xml version="1.0"?>\n<robot version="1.6.0"{attributes}>{body}</robot>\n'


def hrdf(rng: random.Random, plant: Plant, folder: Path) -> Case:
    attack = rng.choice(['include', 'fan_out', 'deep', 'numbers', 'numbers', 'chain', 'mesh',
                         'special'])
    if attack == 'special':
        return Case(_special(rng, plant, folder, '.hrdf'), 'hrdf', attack)
    if attack == 'include':
        _write(folder, 'part.hrdf', _hrdf('<actuator type="X5-4"/><include path="'
                                          f'{_references(rng, plant, folder, scheme=False)}"/>'))
        return Case(_write(folder, 'robot.hrdf', _hrdf('<actuator type="X5-9"/><include '
                                                       'path="part.hrdf"/>')), 'hrdf', attack)
    if attack in ('fan_out', 'deep'):
        levels = rng.randint(3, 30) if attack == 'fan_out' else rng.choice([60, 70, 200])
        fan = rng.randint(2, 4) if attack == 'fan_out' else 1
        for level in range(levels):
            nested = ''.join(f'<include path="h{level + 1}.hrdf"/>' for _ in range(fan))
            _write(folder, f'h{level}.hrdf',
                   _hrdf('<actuator type="X5-9"/>' + (nested if level < levels - 1 else '')))
        return Case(folder / 'h0.hrdf', 'hrdf', attack)
    if attack == 'numbers':
        def value() -> str:
            return rng.choice(HOSTILE_FORMULAS + HOSTILE_NUMBERS)
        body = rng.choice([
            f'<actuator type="X5-9" mass="{value()}" com_trans="{value()} 0 0"/>',
            f'<link type="X5" extension="{value()}" twist="{value()}"/>',
            f'<rigid-body mass="{value()}" output_trans="{value()} 0 0" com_trans="0 {value()} 0"'
            f' ixx="{value()}" iyy="1" izz="1"/>',
            f'<joint axis="{rng.choice(["rx", "ty", "rz"])}" gear_ratio="{value()}"/>',
            f'<end-effector output_trans="{value()} {value()} 0"/>'])
        attributes = f' trans="{value()} 0 0"' if rng.random() < 0.3 else ''
        return Case(_write(folder, 'numbers.hrdf', _hrdf('<actuator type="X5-9"/>' + body,
                                                         attributes)), 'hrdf', attack)
    if attack == 'mesh':
        return Case(_write(folder, 'mesh.hrdf', _hrdf(
            '<actuator type="X5-9"/><rigid-body mass="1" mesh_path="'
            f'{_references(rng, plant, folder, scheme=rng.random() < 0.5)}"/>')), 'hrdf', attack)
    count = _long(rng) // 2
    return Case(_write(folder, 'chain.hrdf', _hrdf(
        '<actuator type="X5-9"/><link type="X5" extension="0.3" twist="0"/>' * count)), 'hrdf',
        attack)


# --- SKEL -------------------------------------------------------------------------------------

def _skel(skeleton: str) -> str:
    return ('<?xml version="1.0"?>\n<skel version="1.0"><world name="w"><skeleton name="s">'
            f'{skeleton}</skeleton></world></skel>\n')


def skel(rng: random.Random, plant: Plant, folder: Path) -> Case:
    attack = rng.choice(['mesh', 'mesh', 'numbers', 'numbers', 'chain', 'special'])
    if attack == 'special':
        return Case(_special(rng, plant, folder, '.skel'), 'skel', attack)
    if attack == 'chain':
        count = _long(rng)
        bodies = ''.join(f'<body name="b{i}"><transformation>0 0 0.01 0 0 0</transformation>'
                         '</body>' for i in range(count))
        joints = ''.join(f'<joint type="revolute" name="j{i}"><parent>'
                         f'{"world" if i == 0 else f"b{i - 1}"}</parent><child>b{i}</child>'
                         '<axis><xyz>0 0 1</xyz></axis></joint>' for i in range(count))
        return Case(_write(folder, 'chain.skel', _skel(bodies + joints)), 'skel', attack)
    geometry = (f'<mesh><file_name>{_references(rng, plant, folder, scheme=rng.random() < 0.3)}'
                f'</file_name><scale>{_numbers(rng, 3, "1")}</scale></mesh>'
                if attack == 'mesh' else f'<box><size>{_numbers(rng, 3, "1")}</size></box>')
    inertia = ('<inertia><mass>1</mass></inertia>' if attack == 'mesh' else
               f'<inertia><mass>{_numbers(rng, 1, "1")}</mass><offset>{_numbers(rng, 3)}</offset>'
               f'<moment_of_inertia><ixx>{_numbers(rng, 1, "1")}</ixx><iyy>1</iyy><izz>1</izz>'
               '<ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></moment_of_inertia></inertia>')
    body = (f'<body name="{_name(rng, 0) or "b"}"><transformation>{_numbers(rng, 6)}'
            f'</transformation>{inertia}<collision_shape><geometry>{geometry}</geometry>'
            '</collision_shape></body>'
            f'<joint type="{rng.choice(["free", "revolute", "prismatic", "ball", "weld"])}" '
            f'name="j"><parent>world</parent><child>{_name(rng, 0) or "b"}</child>'
            f'<axis><xyz>{_numbers(rng, 3, "1")}</xyz><limit><lower>{_number(rng)}</lower>'
            f'<upper>{_number(rng)}</upper></limit></axis></joint>')
    return Case(_write(folder, 'robot.skel', _skel(body)), 'skel', attack)


# --- TMP --------------------------------------------------------------------------------------

def _problem(objects: str, robots: str = '') -> str:
    return (f'<?xml version="1.0"?>\n<problem><objects>{objects}</objects><robots>{robots}'
            '</robots></problem>\n')


def _obj(name: str, pose: str, extra: str = '') -> str:
    return f'<obj><name>{name}</name><pose>{pose}</pose><moveable>true</moveable>{extra}</obj>'


_IDENTITY_POSE = '1 0 0 0 0 1 0 0 0 0 1 0'


def tmp(rng: random.Random, plant: Plant, folder: Path) -> Case:
    attack = rng.choice(['robot', 'robot', 'mesh', 'attachments', 'cycle', 'numbers',
                         'mapping', 'special'])
    if attack == 'special':
        return Case(_special(rng, plant, folder, '.xml'), 'tmp', attack)
    if attack == 'robot':
        target = rng.choice([_references(rng, plant, folder, scheme=False), 'p.xml', 'w.sdf'])
        _write(folder, 'w.sdf', _sdf('<include><uri>p.xml</uri></include>', 'world', 'w'))
        return Case(_write(folder, 'p.xml', _problem(
            _obj('o', _IDENTITY_POSE), f'<robot><name>r</name><urdf>{target}</urdf></robot>')),
            'tmp', attack)
    if attack == 'mesh':
        return Case(_write(folder, 'p.xml', _problem(_obj(
            'o', _IDENTITY_POSE, f'<geom>{_references(rng, plant, folder, scheme=False)}</geom>'))),
            'tmp', attack)
    if attack in ('attachments', 'cycle'):
        count = _long(rng)
        order = list(range(count))
        if rng.random() < 0.3:
            rng.shuffle(order)
        elif rng.random() < 0.5:
            order.reverse()
        last = 0 if attack == 'cycle' else None
        objects = ''.join(_obj(f'o{i}', f'1 0 0 0 0 1 0 0 0 0 1 {i * 0.01}',
                               f'<attachments><name>o{i + 1 if i < count - 1 else last}</name>'
                               '</attachments>' if i < count - 1 or last is not None else '')
                          for i in order)
        return Case(_write(folder, 'p.xml', _problem(objects)), 'tmp', attack)
    if attack == 'mapping':
        mapping = folder / 'p.mapping.yaml'
        mapping.symlink_to(rng.choice(plant.targets()))
        return Case(_write(folder, 'p.xml', _problem(_obj('o', _IDENTITY_POSE))), 'tmp', attack)
    return Case(_write(folder, 'p.xml', _problem(_obj(
        'o', _numbers(rng, 12, '1'),
        f'<grasps><gf type="top">{_numbers(rng, 12, "1")}</gf></grasps><sssp><xmin>'
        f'{_number(rng)}</xmin><xmax>{_number(rng)}</xmax><ymin>0</ymin><ymax>1</ymax><zmin>0'
        f'</zmin><zmax>0</zmax></sssp>'))), 'tmp', attack)


# --- XMDI -------------------------------------------------------------------------------------

def xmdi(rng: random.Random, plant: Plant, folder: Path) -> Case:
    attack = rng.choice(['billions', 'numbers', 'numbers', 'servo_map', 'special'])
    if attack == 'special':
        return Case(_special(rng, plant, folder, '.xmdi'), 'xmdi', attack)
    if attack == 'billions':
        motions = ''.join(f'<motion name="m{i}"><servo name="j"><position>0 1</position>'
                          f'<frames>0 {rng.choice([10 ** 6, 19 * 10 ** 6, 2 ** 31])}</frames>'
                          '</servo></motion>' for i in range(rng.choice([1, 10, 200])))
    else:
        motions = ''.join(f'<motion name="m{i}"><servo name="j{k}"><position>'
                          f'{_numbers(rng, 3, "0.5")}</position><frames>{_numbers(rng, 3, "10")}'
                          '</frames></servo></motion>' for i in range(2) for k in range(2))
    servo_map = None
    if attack == 'servo_map':
        servo_map = folder / 'map.yaml'
        servo_map.symlink_to(rng.choice(plant.targets()))
    return Case(_write(folder, 'motion.xmdi', '<?xml version="1.0"?>\n<xmdi><motions>'
                       f'{motions}</motions></xmdi>\n'), 'xmdi', attack, servo_map)


# --- xacro ------------------------------------------------------------------------------------

_XACRO = 'xmlns:xacro="http://www.ros.org/wiki/xacro"'


def xacro(rng: random.Random, plant: Plant, folder: Path) -> Case:
    """xacro cases: the expansion runs in a process of its own, so these are the slow ones;
    bombs (each spends the whole processor-time budget) are rare."""
    attack = rng.choice(['include', 'load_yaml', 'load_yaml', 'numbers', 'errors', 'special']
                        + ['bomb'] * (rng.random() < 0.02))
    if attack == 'special':
        return Case(_special(rng, plant, folder, '.urdf.xacro'), 'xacro', attack)
    if attack == 'include':
        body = f'<xacro:include filename="{_references(rng, plant, folder, scheme=False)}"/>'
    elif attack == 'load_yaml':
        body = ('<xacro:property name="p" value="${xacro.load_yaml(\''
                f'{_references(rng, plant, folder, scheme=False)}\')}}"/>'
                '<link name="a${len(p)}"/>')
    elif attack == 'numbers':
        body = (f'<xacro:property name="v" value="{_number(rng)}"/><link name="b"/><joint '
                'name="j" type="prismatic"><parent link="a"/><child link="b"/><origin '
                'xyz="${v} ${v*2} 0"/><axis xyz="${v} 0 1"/><limit lower="-1" upper="1" '
                'effort="1" velocity="1"/></joint>')
    elif attack == 'errors':
        body = rng.choice(['<link name="${undefined}"/>', '<xacro:m/>', '$(arg missing)',
                           '<link name="$(find no_such_package)"/>', '${1/0}',
                           '<xacro:macro name="m" params="a"><link name="${a}"/></xacro:macro>'
                           '<xacro:m/>', '${[1]*10**5}', '<xacro:if value="${nan}"/>'])
    else:
        body = rng.choice([
            '<link name="${9**9**9}"/>',
            '<xacro:property name="p0" value="xxxxxxxxxx"/>'
            + ''.join(f'<xacro:property name="p{i}" value="${{p{i - 1}}}${{p{i - 1}}}"/>'
                      for i in range(1, 40)) + '<link name="${p39}"/>',
            '<xacro:macro name="m" params="n"><link name="l${n}"/><xacro:m n="${n+1}"/>'
            '</xacro:macro><xacro:m n="0"/>'])
    return Case(_write(folder, 'robot.urdf.xacro', f'<?xml version="1.0"?>\n<robot name="r" '
                       f'{_XACRO}><link name="a"/>{body}</robot>\n'), 'xacro', attack)


GENERATORS = {'urdf': urdf, 'sdf': sdf, 'hrdf': hrdf, 'skel': skel, 'tmp': tmp, 'xmdi': xmdi,
              'xacro': xacro}
