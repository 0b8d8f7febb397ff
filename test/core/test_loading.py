"""What every load does before a format reader runs, checked against the standard library and
lxml: the file name's suffixes (vs ``Path.suffixes``), detection as the registry changes, the
file read (vs ``open().read()`` and its errors), the parser each thread keeps (vs a new parser
per document, and locked down after errors), and what a load of a URDF imports."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from lxml import etree

import robot_formats
from robot_formats import formats
from robot_formats.core import xmlsafe
from robot_formats.core.errors import (FileAccessError, LimitError, UnsafeXmlError,
                                       XmlSyntaxError)
from robot_formats.core.xmlsafe import local_name, parse_xml_bytes, read_bytes
from robot_formats.formats import FormatSpec, _suffixes

from rf_testlib import ROOT

CORPUS = ROOT.parent / 'shared' / 'corpus'
EXAMPLE = ROOT / 'examples' / 'urdf' / 'arm_with_gripper.urdf'
NAMES = ['arm.urdf', 'arm.URDF', 'arm.urdf.xacro', 'arm.xacro', 'arm.XACRO.urdf',
         'arm.xacro.xacro', 'a.b.c.skel', 'noext', '.hidden', '..', '.', 'a.', 'a..b',
         '...a..b.SDF', 'world.world', 'k.hrdf', 'p.xml', 'a.tar.xacro.Xml', 'x.', '.xacro',
         'robot.urdf.', 'm.Xmdi', 'é.ürdf', 'a b.sdf']


# --- the file name and the format ----------------------------------------------------------

def test_suffixes_are_path_suffixes() -> None:
    for name in NAMES:
        path = Path('dir') / name if name not in ('.', '..') else Path(name)
        xacro = '.xacro' in (suffix.lower() for suffix in path.suffixes)
        others = [s for s in path.suffixes if s.lower() != '.xacro']
        assert _suffixes(path.name) == (xacro, ''.join(others[-1:]).lower()), name
        assert formats.is_xacro(path) == xacro, name


def test_detection_follows_the_registry() -> None:
    """A registry with a format added, or one replaced, detects with it and hands the parser
    its root element names; the formats robot_formats reads stay as they are."""
    root = etree.fromstring('<robot name="r"/>')
    assert formats.detect(Path('r.urdf'), root, []).name == 'urdf'
    claims_all = FormatSpec('claimer', ('.claim',), ('robot', 'thing'), formats.registered()[0]
                            .reader, claims=lambda element: True)
    mine = formats.FORMATS.with_format(claims_all)
    assert formats.detect(Path('r.urdf'), root, [], mine).name == 'claimer'
    assert formats.detect(Path('t.claim'), etree.fromstring('<thing/>'), [], mine).name == \
        'claimer'
    warnings: list = []
    assert formats.detect(Path('r.xml'), root, warnings, mine).name == 'claimer'
    assert [w.code for w in warnings] == ['FORMAT_MISMATCH']
    assert formats.detect(Path('r.hrdf'), root, [], mine).name == 'hrdf'  # the extension decides
    assert 'thing' in mine.root_tags
    assert formats.detect(Path('r.urdf'), root, []).name == 'urdf'
    assert 'thing' not in formats.FORMATS.root_tags
    less = mine.without_format('claimer')
    assert formats.detect(Path('r.urdf'), root, [], less).name == 'urdf'
    assert 'thing' not in less.root_tags
    urdf = formats.registered()[0]
    replaced = formats.FORMATS.with_format(FormatSpec('urdf', ('.urdf',), ('robot', 'thing'),
                                                      urdf.reader))
    assert [spec.name for spec in replaced.specs] == [spec.name for spec in formats.registered()]
    assert 'thing' in replaced.root_tags


def test_an_extension_alone_decides_without_asking_claims() -> None:
    """Claims are not asked when the extension alone decides (an any_root format); they are
    when the root element decides."""
    asked: list[str] = []

    def claims(element: etree._Element) -> bool:
        asked.append(local_name(element))
        return False

    probe = FormatSpec('probe', ('.probe',), ('robot',), formats.registered()[0].reader,
                       claims=claims)
    mine = formats.FORMATS.with_format(probe)
    root = etree.fromstring('<robot/>')
    assert formats.detect(Path('k.hrdf'), root, [], mine).name == 'hrdf'
    assert asked == []
    assert formats.detect(Path('k.urdf'), etree.fromstring('<robot name="r"/>'), [], mine
                          ).name == 'urdf'
    assert asked == ['robot']


def test_a_robot_with_hrdf_children_and_no_name_is_hrdf() -> None:
    for text, expected in [(b'<robot name="r"><link name="a"/></robot>', 'urdf'),
                           (b'<robot name="r" version="1.0"><actuator type="X8-9"/></robot>',
                            'urdf'),
                           (b'<robot version="1.0"><actuator type="X8-9"/></robot>', 'hrdf'),
                           (b'<robot version="1.0"><link type="X5" extension="0.3"/></robot>',
                            'hrdf')]:
        assert formats.detect(Path('r.urdf'), etree.fromstring(text), []).name == expected, text


# --- reading the file ----------------------------------------------------------------------

def _reference_read(path: Path) -> bytes:
    with open(path, 'rb') as handle:
        return handle.read()


def test_read_bytes_reads_what_open_reads(tmp_path: Path) -> None:
    files = {'empty': b'', 'small': b'<robot name="r"/>\n', 'chunked': os.urandom(200_001),
             'exact': b'x' * 65536}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        assert read_bytes(tmp_path / name) == _reference_read(tmp_path / name) == data
        assert read_bytes(str(tmp_path / name)) == data
    for path in sorted(CORPUS.rglob('*.skel'))[:20]:
        assert read_bytes(path) == _reference_read(path)
    status = Path('/proc/self/status')  # fstat says 0 bytes: read to the end all the same
    assert os.stat(status).st_size == 0
    text = read_bytes(status)
    assert text.startswith(b'Name:') and text.endswith(b'\n') and b'VmRSS' in text


def test_read_bytes_refuses_a_pipe_without_opening_it(tmp_path: Path) -> None:
    """A FIFO blocks its reader until a writer comes (and may never end): refused before it is
    opened. A reader of a FIFO is detectable: opening its write end with O_NONBLOCK succeeds
    only while someone has it open for reading."""
    fifo = tmp_path / 'pipe.urdf'
    os.mkfifo(fifo)
    with pytest.raises(FileAccessError, match='named pipe') as info:
        read_bytes(fifo)
    assert info.value.file == str(fifo)
    with pytest.raises(OSError) as nobody:
        os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    assert nobody.value.errno == errno.ENXIO


def test_read_bytes_refuses_devices_and_caps_what_claims_no_size(tmp_path: Path) -> None:
    """/dev/zero never ends and /dev/urandom neither: refused as devices, behind a symbolic
    link too; a /proc file (fstat says 0 bytes) is read to its end, but not beyond the limit."""
    for device in ('/dev/zero', '/dev/urandom', '/dev/null'):
        link = tmp_path / f'{Path(device).name}.urdf'
        link.symlink_to(device)
        for path in (Path(device), link):
            with pytest.raises(FileAccessError, match='character device'):
                read_bytes(path)
    status = Path('/proc/self/status')
    with pytest.raises(LimitError, match='more than 100 bytes'):
        read_bytes(status, 100)
    loop = tmp_path / 'loop.urdf'
    loop.symlink_to(loop)
    with pytest.raises(FileAccessError, match='loop of symbolic links'):
        read_bytes(loop)


def test_read_bytes_errors_are_opens(tmp_path: Path) -> None:
    for path, message in [(tmp_path, 'is a directory, not a file'),
                          (tmp_path / 'missing.urdf', 'no such file'),
                          (tmp_path / 'a' / 'b.urdf', 'no such file')]:
        with pytest.raises(OSError) as opened:
            _reference_read(path)
        with pytest.raises(FileAccessError) as ours:
            read_bytes(path)
        assert ours.value.message == message and ours.value.file == str(path)
        assert type(ours.value.__cause__) is type(opened.value)
    (tmp_path / 'big').write_bytes(b' ' * 101)
    with pytest.raises(LimitError, match='file is 101 bytes; the limit is 100 bytes'):
        read_bytes(tmp_path / 'big', 100)
    assert read_bytes(tmp_path / 'big', 101) == b' ' * 101
    with pytest.raises(FileAccessError, match='no such file'):
        robot_formats.load(tmp_path / 'nothing.skel')
    with pytest.raises(FileAccessError, match='is a directory'):
        robot_formats.load(tmp_path)


def test_read_bytes_leaves_no_descriptor_open(tmp_path: Path) -> None:
    (tmp_path / 'f').write_bytes(b'<a/>')
    before = len(os.listdir('/proc/self/fd'))
    for _ in range(50):
        read_bytes(tmp_path / 'f')
        with pytest.raises(FileAccessError):
            read_bytes(tmp_path)
        with pytest.raises(LimitError):
            read_bytes(tmp_path / 'f', 1)
    assert len(os.listdir('/proc/self/fd')) == before


# --- one parser per thread -----------------------------------------------------------------

def test_the_thread_parser_parses_as_a_new_parser() -> None:
    documents = [path.read_bytes() for path in sorted(CORPUS.rglob('*.skel'))[:15]]
    documents += [path.read_bytes() for path in sorted(CORPUS.rglob('*.hrdf'))[:15]]
    for data in documents * 2:
        ours = parse_xml_bytes(data, 'f', [])
        assert etree.tostring(ours) == etree.tostring(etree.fromstring(
            data, xmlsafe._new_parser()))
    first = parse_xml_bytes(b'<a><b/></a>')
    second = parse_xml_bytes(b'<c/>')  # the first document is untouched by the reuse
    assert etree.tostring(first) == b'<a><b/></a>' and etree.tostring(second) == b'<c/>'
    assert xmlsafe._parser() is xmlsafe._parser()


def test_the_thread_parser_stays_locked_down_after_errors() -> None:
    for _ in range(2):
        with pytest.raises(XmlSyntaxError):
            parse_xml_bytes(b'<a><b></a>', 'f', [])
        with pytest.raises(UnsafeXmlError, match='external'):
            parse_xml_bytes(b'<!DOCTYPE a SYSTEM "file:///etc/passwd"><a/>', 'f', [])
        with pytest.raises(UnsafeXmlError, match='entity'):
            parse_xml_bytes(b'<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', 'f', [])
        comments = parse_xml_bytes(b'<a><!-- c --><?pi x?><b/></a>')
        assert [child.tag for child in comments] == ['b']


def test_each_thread_has_its_own_parser() -> None:
    parsers: list[etree.XMLParser] = []
    roots: list[bytes] = []

    def work(index: int) -> None:
        parsers.append(xmlsafe._parser())
        for _ in range(200):
            roots.append(etree.tostring(parse_xml_bytes(f'<r{index}/>'.encode())))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(parser) for parser in parsers}) == 4
    assert xmlsafe._parser() not in parsers
    assert sorted(set(roots)) == [f'<r{i}/>'.encode() for i in range(4)]


# --- what a load imports -------------------------------------------------------------------

def test_building_and_writing_a_urdf_imports_no_numpy() -> None:
    code = ('import sys, robot_formats\n'
            f'r = robot_formats.load({str(EXAMPLE)!r})\n'
            'robot_formats.urdf_string(r.scene, r.tree)\n'
            'from robot_formats.cli import main\n'
            f'assert main(["check", {str(EXAMPLE)!r}]) == 0\n'
            'assert "numpy" not in sys.modules, "numpy imported"\n')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr


# --- a load's budget -----------------------------------------------------------------------

def test_a_file_loaded_within_its_own_load_is_refused(tmp_path: Path) -> None:
    """By the file's real path (a symbolic link to it is the same file), for loads nested in
    another; and loads nest at most MAX_NESTED_LOADS deep."""
    from robot_formats.core.errors import CycleError, LimitError
    from robot_formats.core.limits import MAX_NESTED_LOADS, LoadBudget
    first, second, link = tmp_path / 'a.urdf', tmp_path / 'b.sdf', tmp_path / 'link.urdf'
    first.write_text('<robot name="r"/>')
    link.symlink_to(first)
    budget = LoadBudget()
    budget.enter(first)
    budget.enter(second)
    with pytest.raises(CycleError) as raised:
        budget.enter(link)
    assert raised.value.code == 'INCLUDE_CYCLE'
    assert '(a.urdf -> b.sdf -> a.urdf)' in raised.value.message
    budget.leave()
    budget.leave()
    budget.enter(link)  # no longer being loaded
    deep = LoadBudget()
    for index in range(MAX_NESTED_LOADS + 1):
        deep.enter(tmp_path / f'{index}.sdf')
    with pytest.raises(LimitError):
        deep.enter(tmp_path / 'last.sdf')
