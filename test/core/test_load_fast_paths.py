"""Issue 18's second round on the fixed cost of ``load()``, each shortcut held to the general
path it replaces: the file name's suffixes read once (vs ``Path.suffixes``), detection from
tables made once per registry content (vs the per-load list scans, kept here as the
reference), the file read on a descriptor (vs ``open().read()`` and its errors), one parser
per thread (vs a new parser per document), the shared default load context and the result of
a load without warnings."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from lxml import etree

import robot_formats
from robot_formats import formats
from robot_formats.core import xmlsafe
from robot_formats.core.errors import (Diagnostic, FileAccessError, FormatError,
                                       UnknownFormatError, UnsafeXmlError, XmlSyntaxError)
from robot_formats.core.xmlsafe import local_name, parse_xml_bytes, read_bytes
from robot_formats.formats import FormatSpec, LoadContext, _suffixes

from rf_testlib import ROOT

CORPUS = ROOT.parent / 'shared' / 'corpus'
NAMES = ['arm.urdf', 'arm.URDF', 'arm.urdf.xacro', 'arm.xacro', 'arm.XACRO.urdf',
         'arm.xacro.xacro', 'a.b.c.skel', 'noext', '.hidden', '..', '.', 'a.', 'a..b',
         '...a..b.SDF', 'world.world', 'k.hrdf', 'p.xml', 'a.tar.xacro.Xml', 'x.', '.xacro',
         'robot.urdf.', 'm.Xmdi', 'é.ürdf', 'a b.sdf']


# --- the reference: detection and suffixes as they were before the tables ------------------

def _reference_is_xacro(path: Path) -> bool:
    return '.xacro' in (suffix.lower() for suffix in path.suffixes)


def _reference_detect(path: Path, root: etree._Element, warnings: list[Diagnostic]
                      ) -> FormatSpec:
    specs = formats.registered()
    tag = local_name(root)
    suffixes = [suffix for suffix in path.suffixes if suffix.lower() != '.xacro']
    suffix = ''.join(suffixes[-1:]).lower()
    by_extension = [s for s in specs if suffix in s.extensions]
    by_root = [s for s in specs if tag in s.root_tags]
    claimed = [s for s in by_root if s.claims is not None and s.claims(root)]
    for spec in by_extension:
        if spec.any_root or (spec in by_root and (not claimed or spec in claimed)):
            return spec
    if claimed:
        by_root = claimed
    if by_root:
        if by_extension:
            warnings.append(Diagnostic(
                f'the extension {suffix!r} suggests {by_extension[0].name} but the root element '
                f'<{tag}> is {by_root[0].name}; reading it as {by_root[0].name}', str(path),
                root.sourceline, 'FORMAT_MISMATCH'))
        return by_root[0]
    known = ', '.join(f'{s.name} ({"/".join(s.extensions)}, <{"|".join(s.root_tags)}>)'
                      for s in specs)
    raise UnknownFormatError(f'unknown format: root element <{tag}> with extension '
                             f'{suffix or "(none)"!r}; supported: {known}', str(path),
                             root.sourceline)


def _outcome(function, path: Path, root: etree._Element) -> tuple:
    warnings: list[Diagnostic] = []
    try:
        spec = function(path, root, warnings)
    except FormatError as err:
        return ('error', type(err), str(err), err.line, warnings)
    return ('spec', spec.name, warnings)


def test_suffixes_are_path_suffixes_read_once() -> None:
    for name in NAMES:
        path = Path('dir') / name if name not in ('.', '..') else Path(name)
        suffixes = [s for s in path.suffixes if s.lower() != '.xacro']
        assert _suffixes(path.name) == (_reference_is_xacro(path),
                                        ''.join(suffixes[-1:]).lower()), name
        assert formats.is_xacro(path) == _reference_is_xacro(path), name


_ROOTS = ['<robot name="r"><link name="a"/></robot>', '<robot><link name="a"/></robot>',
          '<robot version="1.1" fnames="x"><actuator type="X5-1"/></robot>',
          '<skel><world/></skel>', '<sdf version="1.9"/>', '<problem/>', '<xmdi/>', '<Xmdi/>',
          '<other/>', '<n:robot xmlns:n="urn:x" name="q"/>', '<n:skel xmlns:n="urn:y"/>']


def _documents() -> list[tuple[Path, etree._Element]]:
    out = []
    for text in _ROOTS:
        for name in NAMES:
            if name in ('.', '..'):
                continue
            out.append((Path('d') / name, etree.fromstring(text)))
    for kind in ('urdf', 'skel', 'hrdf', 'sdformat', 'tmp', 'xmdi'):
        for path in sorted((CORPUS / kind).rglob('*'))[:60]:
            if path.is_file() and path.suffix.lower() in {'.urdf', '.skel', '.hrdf', '.sdf',
                                                          '.world', '.xml', '.xmdi'}:
                try:
                    out.append((path, etree.parse(str(path)).getroot()))
                except etree.XMLSyntaxError:
                    continue
    return out


def test_detection_from_tables_is_the_per_load_scan() -> None:
    documents = _documents()
    assert len(documents) > 250
    kinds = set()
    for path, root in documents:
        ours, theirs = (_outcome(formats.detect, path, root),
                        _outcome(_reference_detect, path, root))
        assert ours == theirs, (path, etree.tostring(root)[:80])
        kinds.add(ours[0] if ours[0] == 'error' else ours[1])
        if ours[-1]:
            kinds.add('warning')
    assert kinds >= {'urdf', 'skel', 'hrdf', 'sdf', 'tmp', 'xmdi', 'error', 'warning'}


def test_detection_tables_follow_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A format registered, replaced or set into the registry directly (as tests do) is seen
    by the next detection and by the root element names the parser is handed."""
    root = etree.fromstring('<robot name="r"/>')
    assert formats.detect(Path('r.urdf'), root, []).name == 'urdf'
    claims_all = FormatSpec('claimer', ('.claim',), ('robot', 'thing'), formats.registered()[0]
                            .reader, claims=lambda element: True)
    monkeypatch.setitem(formats._REGISTRY, 'claimer', claims_all)
    for path, element in [(Path('r.urdf'), root), (Path('t.claim'), etree.fromstring('<thing/>')),
                          (Path('r.xml'), root), (Path('r.hrdf'), root)]:
        assert (_outcome(formats.detect, path, element)
                == _outcome(_reference_detect, path, element))
    assert formats.detect(Path('r.urdf'), root, []).name == 'claimer'
    assert 'thing' in formats._root_tags()
    monkeypatch.delitem(formats._REGISTRY, 'claimer')
    assert formats.detect(Path('r.urdf'), root, []).name == 'urdf'
    assert 'thing' not in formats._root_tags()


def test_an_extension_alone_decides_without_asking_claims(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The shortcut: claims are not asked when the extension alone decides (an any_root
    format); they are when the root element decides, as before."""
    asked: list[str] = []

    def claims(element: etree._Element) -> bool:
        asked.append(local_name(element))
        return False

    probe = FormatSpec('probe', ('.probe',), ('robot',), formats.registered()[0].reader,
                       claims=claims)
    monkeypatch.setitem(formats._REGISTRY, 'probe', probe)
    root = etree.fromstring('<robot/>')
    assert formats.detect(Path('k.hrdf'), root, []).name == 'hrdf'
    assert asked == []
    assert formats.detect(Path('k.urdf'), etree.fromstring('<robot name="r"/>'), []).name == 'urdf'
    assert asked == ['robot']


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


def test_read_bytes_reads_a_pipe_to_its_end(tmp_path: Path) -> None:
    """Not a regular file (fstat says 0 bytes): read until end of file, in chunks."""
    fifo = tmp_path / 'pipe.urdf'
    os.mkfifo(fifo)
    data = os.urandom(150_000)

    def write() -> None:
        with open(fifo, 'wb') as handle:
            for start in range(0, len(data), 7_000):
                handle.write(data[start:start + 7_000])
                handle.flush()

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert read_bytes(fifo) == data
    finally:
        writer.join(timeout=30)


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
    with pytest.raises(UnsafeXmlError, match='file is 101 bytes; the limit is 100 bytes'):
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
        with pytest.raises(UnsafeXmlError):
            read_bytes(tmp_path / 'f', 1)
    assert len(os.listdir('/proc/self/fd')) == before


# --- one parser per thread -----------------------------------------------------------------

def _fresh_parse(data: bytes) -> etree._Element:
    """parse_xml_bytes with a new parser (the general path before the per-thread one)."""
    return etree.fromstring(data, xmlsafe._new_parser())


def test_the_thread_parser_parses_as_a_new_parser() -> None:
    documents = [path.read_bytes() for path in sorted(CORPUS.rglob('*.skel'))[:15]]
    documents += [path.read_bytes() for path in sorted(CORPUS.rglob('*.hrdf'))[:15]]
    for data in documents * 2:
        ours = parse_xml_bytes(data, 'f', [])
        assert etree.tostring(ours) == etree.tostring(_fresh_parse(data))
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


# --- the load context and the result -------------------------------------------------------

def test_the_default_context_is_a_new_default_context() -> None:
    shared = formats._context(None, None)
    assert shared is formats._context(None, None)
    assert isinstance(shared, LoadContext)
    assert (shared.world, shared.sdf_config) == (None, None)
    assert shared.load_nested.func is formats.load
    assert shared.load_nested.keywords == {'sdf_config': None}
    other = formats._context('w', None)
    assert other is not shared and other.world == 'w'


def test_a_load_without_warnings_is_the_split_result() -> None:
    for path in sorted(CORPUS.rglob('*.skel'))[:30] + sorted(CORPUS.rglob('*.hrdf'))[:10]:
        try:
            result = robot_formats.load(path)
        except FormatError:
            continue
        assert type(result.warnings) is tuple and type(result.notes) is tuple
        assert result.path == str(path)
        warnings: list[Diagnostic] = []
        root = formats._parse(path, warnings)
        spec = _reference_detect(path, root, warnings)
        scene = spec.reader(path, root, warnings, formats._context(None, None))
        irregular, notes = formats._split_notes(warnings)
        assert (result.scene, result.format, result.warnings, result.notes) == (
            scene, spec.name, irregular, notes)
