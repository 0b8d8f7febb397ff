"""Issue 18's SDFormat fast paths held to what they short-cut: each one must give exactly what
the general path gives (or, for the batched pose solve, the same transform to rounding).

* ``pose_from``'s common case (no attribute but ``relative_to``, six plain numbers) vs the
  general reader ``_pose_matrix``;
* ``number``'s and ``_lenient``'s plain-float case vs the strict/lenient readers;
* the scene's batched poses (``_PoseBatch``) vs an inverse, product and ``matrix_to_pose``
  per pose;
* the include key (``SdfLoader._real_path``) vs ``Path.resolve()``, symlinks included;
* relative includes found next to the including file with one stat vs the full search.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from robot_formats.core.errors import FormatError, InvalidValueError
from robot_formats.core.transforms import invert, quat_to_rotation
from robot_formats.formats.sdformat import values
from robot_formats.formats.sdformat.reader import SdfLoader
from robot_formats.formats.sdformat.scene import _PoseBatch, matrix_to_pose
from robot_formats.formats.sdformat.uri import ResolverConfig, resolve_uri


def _ctx(version=(1, 8)):
    return values.Ctx('test.sdf', [], version)


def _random_pose_texts(count: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    texts = ['0 0 0 0 0 0', '1 2 3 0 0 0', ' 0.5\n -1 2e-3 0 0 1.5707963267948966 ',
             '-0 -0 -0 -0 -0 -0', '1e300 0 0 0 0 3.14159']
    for _ in range(count):
        numbers = [rng.uniform(-10, 10) for _ in range(3)]
        numbers += [rng.choice([0.0, rng.uniform(-math.pi, math.pi)]) for _ in range(3)]
        texts.append(' '.join(repr(v) for v in numbers))
    return texts


@pytest.mark.parametrize('attributes', ['', ' relative_to="frame_a"'])
def test_pose_fast_path_equals_the_general_reader(attributes):
    ctx = _ctx()
    for text in _random_pose_texts(300):
        element = etree.fromstring(f'<pose{attributes}>{text}</pose>')
        fast = values.pose_from(ctx, element)
        general = values._pose_matrix(ctx, element)
        assert np.array_equal(fast.matrix, general), text
        assert fast.relative_to == element.get('relative_to', '')
        assert fast.given and fast.line == element.sourceline
        assert fast.matrix.flags.writeable or fast.matrix is values._IDENTITY


@pytest.mark.parametrize('text', ['', '   ', '1 2 3', '1 2 3 4 5 6 7', '1_0 0 0 0 0 0',
                                  'nan 0 0 0 0 0', 'inf 0 0 0 0 0', '1 2 3 0 0 0x1',
                                  '0.5" 0 0 0 0 0'])
def test_pose_texts_the_fast_path_declines_read_as_before(text):
    """Whatever the fast path does not take goes through the general reader unchanged."""
    ctx = _ctx()
    element = etree.fromstring(f'<pose>{text}</pose>')
    try:
        expected = values._pose_matrix(_ctx(), element)
    except InvalidValueError as err:
        with pytest.raises(InvalidValueError) as raised:
            values.pose_from(ctx, element)
        assert raised.value.message == err.message
        return
    assert np.array_equal(values.pose_from(ctx, element).matrix, expected)


def test_pose_with_other_attributes_takes_the_general_path():
    ctx = _ctx()
    degrees = etree.fromstring('<pose degrees="true">1 2 3 0 0 90</pose>')
    assert np.allclose(values.pose_from(ctx, degrees).matrix[:3, :3],
                       [[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    old = etree.fromstring('<pose frame="f">1 2 3 0 0 0</pose>')
    assert values.pose_from(_ctx((1, 6)), old).relative_to == 'f'


@pytest.mark.parametrize('text', ['1', ' 2.5 ', '\n-3e-2\t', '0', '-0', '1e308', 'inf', '-inf',
                                  'Infinity', '+inf', '-infinity', 'nan', '1_0', '0x10',
                                  '0.5"', '', ' 1 2 '])
def test_number_fast_path_equals_the_strict_and_lenient_readers(text):
    element = etree.fromstring(f'<v>{text}</v>')
    value = element.text or ''
    stripped = value.strip()
    ctx = _ctx()
    try:
        if stripped.lower() in ('inf', '+inf', 'infinity'):
            expected: object = math.inf
        elif stripped.lower() in ('-inf', '-infinity'):
            expected = -math.inf
        else:  # the reader before the fast path: always the lenient one
            expected = values._lenient(_ctx(), element, stripped, 1, streamed=True)[0]
    except InvalidValueError as err:
        with pytest.raises(InvalidValueError) as raised:
            values.number(ctx, element, 0.0)
        assert raised.value.message == err.message
        return
    got = values.number(ctx, element, 0.0)
    assert got == expected and math.copysign(1, got) == math.copysign(1, expected)


def _random_transform(rng: np.random.Generator, rotated: bool) -> np.ndarray:
    out = np.eye(4)
    if rotated:
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        out[:3, :3] = quat_to_rotation(q)
    out[:3, 3] = rng.uniform(-2, 2, 3)
    return out


def test_batched_poses_equal_one_inverse_and_product_per_pose():
    rng = np.random.default_rng(5)
    batch = _PoseBatch()
    links = [_random_transform(rng, rotated=i % 2 == 0) for i in range(20)]
    link_slots = [batch.add_link(m) for m in links]
    expected = []
    for i in range(400):
        frame = _random_transform(rng, rotated=i % 3 != 0)
        which = i % 21
        if which == 20:  # absolute (world) poses
            batch.add(frame)
            expected.append(matrix_to_pose(frame))
        else:
            if i % 7 == 0:  # a frame at its link's origin: an exact identity either way
                frame = links[which]
            batch.add(frame, link_slots[which])
            expected.append(matrix_to_pose(invert(links[which]) @ frame))
    solved = batch.solve()
    assert len(solved) == len(expected)
    for got, want in zip(solved, expected):
        assert np.allclose(got.xyz, want.xyz, atol=1e-12)
        q, p = np.array(got.quat), np.array(want.quat)
        assert min(np.abs(q - p).max(), np.abs(q + p).max()) < 1e-12
        assert got.quat[3] >= 0
    assert _PoseBatch().solve() == []


def test_unrotated_batched_poses_keep_the_exact_identity_quaternion():
    batch = _PoseBatch()
    link = batch.add_link(np.array([[1.0, 0, 0, 1], [0, 1.0, 0, 2], [0, 0, 1.0, 3], [0, 0, 0, 1]]))
    frame = np.eye(4)
    frame[:3, 3] = (4.0, 5.0, 6.0)
    batch.add(frame, link)
    batch.add(frame)
    relative, absolute = batch.solve()
    assert relative.xyz == (3.0, 3.0, 3.0) and relative.quat == (0.0, 0.0, 0.0, 1.0)
    assert absolute.xyz == (4.0, 5.0, 6.0) and absolute.quat == (0.0, 0.0, 0.0, 1.0)


def test_include_key_equals_path_resolve(tmp_path):
    real = tmp_path / 'real'
    (real / 'sub').mkdir(parents=True)
    (real / 'a.sdf').write_text('<sdf version="1.8"/>')
    (real / 'sub' / 'b.sdf').write_text('<sdf version="1.8"/>')
    (tmp_path / 'linked_dir').symlink_to(real)
    (real / 'c.sdf').symlink_to(real / 'sub' / 'b.sdf')
    loader = SdfLoader([])
    paths = [real / 'a.sdf', tmp_path / 'linked_dir' / 'a.sdf',
             tmp_path / 'linked_dir' / 'sub' / '..' / 'a.sdf', real / 'c.sdf',
             tmp_path / 'linked_dir' / 'c.sdf', Path(str(real / 'sub' / '.') + '/b.sdf')]
    for path in paths:
        assert loader._real_path(path) == str(path.resolve()), path
    assert loader._real_path(real / 'c.sdf') == str(real / 'sub' / 'b.sdf')


def test_relative_include_next_to_the_including_file_wins_over_the_search_paths(tmp_path):
    here, elsewhere = tmp_path / 'here', tmp_path / 'elsewhere'
    for folder in (here, elsewhere):
        folder.mkdir()
        (folder / 'm.sdf').write_text('<sdf version="1.8"/>')
    (elsewhere / 'only.sdf').write_text('<sdf version="1.8"/>')
    config = ResolverConfig(model_paths=[elsewhere], use_environment=False)
    including = str(here / 'world.sdf')
    assert resolve_uri('m.sdf', including, config, 1) == here / 'm.sdf'
    assert resolve_uri('file://m.sdf', including, config, 1) == here / 'm.sdf'
    assert resolve_uri('only.sdf', including, config, 1) == elsewhere / 'only.sdf'
    (here / 'dir.sdf').mkdir()  # a directory is not taken by the one-stat path
    with pytest.raises(FormatError):  # a model directory without model.config
        resolve_uri('dir.sdf', including, config, 1)


def test_reading_a_world_leaves_no_reference_cycle(tmp_path):
    """The scene builder's per-load tables must not keep the scene, the frame graphs and the
    document alive in a cycle (freed only by the cyclic collector, and counted by it)."""
    import gc

    from robot_formats.formats.sdformat import read_sdf
    for files in (1, 3):  # copies of one file share their build; distinct files do not
        for k in range(files):
            (tmp_path / f'part{k}.sdf').write_text(
                '<sdf version="1.8"><model name="p"><link name="a"/><link name="b">'
                '<pose relative_to="j">0 0 1 0 0 0</pose></link><joint name="j" type="revolute">'
                '<pose relative_to="a">0 0 0.5 0 0 0.3</pose><parent>a</parent><child>b</child>'
                '<axis><xyz>0 0 1</xyz></axis></joint><frame name="f" attached_to="b"/>'
                '<model name="n"><link name="c"/></model></model></sdf>')
        world = tmp_path / f'world_{files}.sdf'
        world.write_text('<sdf version="1.8"><world name="w">' + ''.join(
            f'<include><uri>part{i % files}.sdf</uri><name>m{i}</name>'
            f'<pose>{i} 0 0 0 0 0</pose></include>' for i in range(6)) + '</world></sdf>')
        read_sdf(world, [])
        gc.collect()
        enabled = gc.isenabled()
        gc.disable()
        try:
            scene = read_sdf(world, [])
            assert len(scene.models) == 6
            del scene
            assert gc.collect() == 0
        finally:
            if enabled:
                gc.enable()
