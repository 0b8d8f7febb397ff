"""Every bad document is a typed FormatError with file, line (where one applies) and a useful
sentence; the same through the CLI: exit 1, ``file:line:`` on stderr, never a traceback.

Fixtures: test/fixtures/bad/urdf_invalid_<defect>.*, one defect each. The line(s) the error may
point at carry an ``ERROR-LINE`` comment.
"""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

import robot_formats
from robot_formats import FormatError, KinematicTree
from robot_formats.core import errors as E
from robot_formats import cli
from robot_formats.core import xmlsafe

from rf_testlib import FIXTURES, ROOT, check_urdf, run_cli

BAD = FIXTURES / 'bad'


def load_checked(path):
    """What every consumer does: read, then build the kinematic tree (which validates it)."""
    result = robot_formats.load(path)
    return KinematicTree(result.scene)


def marked_lines(path: Path) -> set[int]:
    return {i for i, line in enumerate(path.read_text().splitlines(), 1) if 'ERROR-LINE' in line}


# defect -> (fixture, error class, words the message must contain (lower case))
CASES = {
    'malformed_xml': ('urdf_invalid_malformed_xml.urdf', E.XmlSyntaxError, ['malformed', 'tag']),
    'unknown_root': ('urdf_invalid_unknown_root.urdf', E.UnknownFormatError, ['unknown', '<foo>']),
    'unknown_format': ('urdf_invalid_unknown_format.xml', E.UnknownFormatError,
                       ['unknown', '<foo>', 'urdf']),
    'cycle': ('urdf_invalid_cycle.urdf', E.CycleError, ['loop']),
    'cycle_no_root': ('urdf_invalid_cycle_no_root.urdf', E.CycleError, ['loop']),
    'two_roots': ('urdf_invalid_two_roots.urdf', E.StructureError, ['root', "'island'"]),
    'two_parents': ('urdf_invalid_two_parents.urdf', E.StructureError, ["'b'", 'two joints']),
    'duplicate_link': ('urdf_invalid_duplicate_link.urdf', E.DuplicateNameError, ["'arm'"]),
    'duplicate_joint': ('urdf_invalid_duplicate_joint.urdf', E.DuplicateNameError, ["'j'"]),
    'nan_origin': ('urdf_invalid_nan_origin.urdf', E.InvalidValueError, ['finite', 'xyz']),
    'inf_origin': ('urdf_invalid_inf_origin.urdf', E.InvalidValueError, ['finite', 'rpy']),
    'non_numeric': ('urdf_invalid_non_numeric.urdf', E.InvalidValueError,
                    ["'one'", 'not a number', 'upper']),
    'wrong_count': ('urdf_invalid_wrong_count.urdf', E.InvalidValueError, ['3', 'xyz']),
    'unknown_link': ('urdf_invalid_unknown_link.urdf', E.ReferenceError,
                     ["'hand'", "'arm_to_hand'"]),
    'unknown_joint_type': ('urdf_invalid_unknown_joint_type.urdf', E.SchemaError, ["'hinge'"]),
    'missing_name': ('urdf_invalid_missing_name.urdf', E.SchemaError, ['name', '<link>']),
    'same_parent_child': ('urdf_invalid_same_parent_child.urdf', E.StructureError,
                          ["'base'", 'same parent and child']),
    'billion_laughs': ('urdf_invalid_billion_laughs.urdf', E.UnsafeXmlError, ['entit']),
    'external_entity': ('urdf_invalid_external_entity.urdf', E.UnsafeXmlError, ['entit']),
    'external_dtd': ('urdf_invalid_external_dtd.urdf', E.UnsafeXmlError, ['dtd', 'robot.dtd']),
}

# Invalid by the URDF specification, but urdfdom (check_urdf, robot_state_publisher) loads them:
# loaded with a warning at the marked line, refused by strict mode.
# defect -> (fixture, warning code, words the warning must contain (lower case))
LOADED_AS_URDFDOM_DOES = {
    'mimic_unknown': ('urdf_invalid_mimic_unknown.urdf', 'URDF_MIMIC_IGNORED',
                      ["'no_such_joint'", 'moves on its own']),
    'limit_order': ('urdf_invalid_limit_order.urdf', 'URDF_LIMIT_ORDER', ['lower', 'upper']),
    'zero_axis': ('urdf_invalid_zero_axis.urdf', 'URDF_ZERO_AXIS', ['axis', 'fixed']),
    'negative_mass': ('urdf_invalid_negative_mass.urdf', 'URDF_NEGATIVE_MASS', ['negative']),
}


def test_every_fixture_has_a_case():
    on_disk = {p.name for p in BAD.iterdir()} - {'urdf_invalid_empty.urdf',
                                                   'urdf_invalid_oversize.urdf'}
    assert on_disk == {fixture for fixture, _, _ in
                       [*CASES.values(), *LOADED_AS_URDFDOM_DOES.values()]}


# Loaded by urdfdom but refused here, as docs/urdf-representation.md says and why.
REFUSED_THOUGH_URDFDOM_LOADS = ['cycle', 'two_parents', 'billion_laughs', 'external_dtd',
                                'external_entity']


@pytest.mark.parametrize('defect', REFUSED_THOUGH_URDFDOM_LOADS)
def test_documented_refusals_of_what_urdfdom_loads(defect: str):
    assert check_urdf(BAD / CASES[defect][0]).returncode == 0, f'urdfdom refuses {defect} now'


@pytest.mark.parametrize('defect', LOADED_AS_URDFDOM_DOES)
def test_what_urdfdom_loads_is_loaded_with_a_warning(defect: str):
    fixture, code, words = LOADED_AS_URDFDOM_DOES[defect]
    path = BAD / fixture
    assert check_urdf(path).returncode == 0, f'urdfdom no longer loads {fixture}'
    result = robot_formats.load(path)
    warning = next((w for w in result.warnings if w.code == code), None)
    assert warning is not None, [str(w) for w in result.warnings]
    assert warning.file == str(path) and warning.line in marked_lines(path), str(warning)
    for word in words:
        assert word in warning.message.lower(), warning.message


@pytest.mark.parametrize('defect', LOADED_AS_URDFDOM_DOES)
def test_strict_check_refuses_what_urdfdom_loads(defect: str, capsys):
    path = BAD / LOADED_AS_URDFDOM_DOES[defect][0]
    assert cli.main(['check', str(path)]) == 0
    capsys.readouterr()
    assert cli.main(['check', '--strict', str(path)]) == 1
    err = capsys.readouterr().err
    assert any(f'{path}:{line}: warning: ' in err for line in marked_lines(path)), err


@pytest.mark.parametrize('defect', CASES)
def test_bad_document_raises_typed_error_with_file_and_line(defect: str):
    fixture, kind, words = CASES[defect]
    path = BAD / fixture
    with pytest.raises(FormatError) as info:
        load_checked(path)
    error = info.value
    assert type(error) is kind, f'{defect}: {type(error).__name__}: {error}'
    assert error.file == str(path)
    assert error.line in marked_lines(path), f'{defect}: line {error.line}: {error}'
    text = error.message.lower()
    for word in words:
        assert word.lower() in text, f'{defect}: {word!r} not in {error.message!r}'
    assert str(error) == f'{path}:{error.line}: {error.message}'
    assert error.code and error.code.isupper()


def test_missing_file(tmp_path):
    path = tmp_path / 'nowhere.urdf'
    with pytest.raises(E.FileAccessError) as info:
        robot_formats.load(path)
    assert info.value.file == str(path) and 'no such file' in info.value.message


def test_directory(tmp_path):
    path = tmp_path / 'robot.urdf'
    path.mkdir()
    with pytest.raises(E.FileAccessError) as info:
        robot_formats.load(path)
    assert info.value.file == str(path) and 'directory' in info.value.message


@pytest.mark.parametrize('content', ['', '   \n\n  '], ids=['empty', 'blank'])
def test_empty_file(tmp_path, content):
    path = BAD / 'urdf_invalid_empty.urdf'
    if content:
        path = tmp_path / 'blank.urdf'
        path.write_text(content)
    with pytest.raises(E.XmlSyntaxError) as info:
        robot_formats.load(path)
    assert info.value.file == str(path) and 'empty' in info.value.message


# --- resource exhaustion ------------------------------------------------------------------------

def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


LAUGHS_IN_CONTENT = (BAD / 'urdf_invalid_billion_laughs.urdf').read_text().replace(
    '<robot name="&lol9;">', '<robot name="r">').replace('<link name="&lol9;"/>',
                                                         '<link name="a"/>&lol9;')
QUADRATIC = ('<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY a "' + 'x' * 50_000 + '">]>\n'
             '<robot name="' + '&a;' * 20_000 + '"><link name="a"/></robot>\n')


@pytest.mark.parametrize('text', [None, LAUGHS_IN_CONTENT, QUADRATIC],
                         ids=['fixture_attribute', 'element_content', 'quadratic_blowup'])
def test_entity_expansion_is_refused_fast_and_small(tmp_path, text):
    path = BAD / 'urdf_invalid_billion_laughs.urdf'
    if text is not None:
        path = tmp_path / 'laughs.urdf'
        path.write_text(text)
    before = _peak_rss_mb()
    start = time.perf_counter()
    with pytest.raises(E.UnsafeXmlError) as info:
        load_checked(path)
    assert time.perf_counter() - start < 1.0
    assert _peak_rss_mb() - before < 100, 'entity expansion consumed memory'
    assert info.value.file == str(path) and info.value.line is not None


def test_external_entity_is_not_read():
    with pytest.raises(E.UnsafeXmlError) as info:
        load_checked(BAD / 'urdf_invalid_external_entity.urdf')
    assert 'root:' not in str(info.value)


def _opens_fifo(document: str, tmp_path: Path) -> tuple[bool, str]:
    """Load ``document`` (FIFO = path of a named pipe) in a subprocess; report whether the
    parser opened the pipe. A reader of a FIFO is detectable: opening its write end with
    O_NONBLOCK succeeds only while someone has it open for reading."""
    fifo = tmp_path / 'secret.fifo'
    os.mkfifo(fifo)
    path = tmp_path / 'doc.urdf'
    path.write_text(document.replace('FIFO', str(fifo)))
    code = ('import sys, robot_formats as r\n'
            'try:\n    r.KinematicTree(r.load(sys.argv[1]).scene); print("LOADED")\n'
            'except r.FormatError as e:\n    print(type(e).__name__, e)\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get('PYTHONPATH')])))
    proc = subprocess.Popen([sys.executable, '-c', code, str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    opened, deadline = False, time.monotonic() + 30
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as err:
            assert err.errno == errno.ENXIO, err
            time.sleep(0.005)
            continue
        opened = True
        try:
            os.write(fd, b'SECRET-CONTENT')
        except OSError:
            pass
        os.close(fd)
    if proc.poll() is None:
        proc.kill()
    return opened, proc.communicate()[0]


FIFO_DOCUMENTS = {
    'entity_in_content': '<?xml version="1.0"?>\n<!DOCTYPE robot [\n<!ENTITY s SYSTEM "FIFO">\n]>'
                         '\n<robot name="r"><link name="a"/>&s;</robot>\n',
    'entity_in_attribute': '<?xml version="1.0"?>\n<!DOCTYPE robot [\n<!ENTITY s SYSTEM "FIFO">\n'
                           ']>\n<robot name="r"><link name="&s;"/></robot>\n',
    'external_dtd': '<?xml version="1.0"?>\n<!DOCTYPE robot SYSTEM "FIFO">\n'
                    '<robot name="r"><link name="a"/></robot>\n',
    'parameter_entity': '<?xml version="1.0"?>\n<!DOCTYPE robot [\n<!ENTITY % p SYSTEM "FIFO">\n'
                        '%p;\n]>\n<robot name="r"><link name="a"/></robot>\n',
    # the same behind irregularities read as TinyXML2 reads them (the repaired document goes
    # through the same locked-down parser)
    'entity_after_repair': '\n <?xml version="1.0"?>\n<!-- a -- b -->\n<!DOCTYPE robot [\n'
                           '<!ENTITY s SYSTEM "FIFO">\n]>\n<robot name="r"><link name="&s;"/>'
                           '</robot>\n',
    'external_dtd_after_repair': '<?xml version="0.0"?>\n<!DOCTYPE robot SYSTEM "FIFO">\n'
                                 '<robot name="r"><link name="a" x="&"/></robot>\n',
}


@pytest.mark.parametrize('kind', FIFO_DOCUMENTS)
def test_external_resources_are_never_opened(kind, tmp_path):
    opened, output = _opens_fifo(FIFO_DOCUMENTS[kind], tmp_path)
    assert not opened, f'the parser opened the external resource ({kind}): {output}'
    assert output.startswith('UnsafeXmlError'), output
    assert 'SECRET' not in output


def test_oversize_file_is_refused_before_reading(monkeypatch):
    path = BAD / 'urdf_invalid_oversize.urdf'
    load_checked(path)  # valid apart from its size
    monkeypatch.setattr(xmlsafe, 'MAX_XML_BYTES', 4096)

    def no_reading(self, *args, **kwargs):
        raise AssertionError(f'{self} was read although it is over the limit')

    monkeypatch.setattr(Path, 'read_bytes', no_reading)
    with pytest.raises(E.LimitError) as info:
        robot_formats.load(path)
    assert info.value.file == str(path)
    assert '4096' in info.value.message and str(path.stat().st_size) in info.value.message


def test_oversize_bytes_are_refused(monkeypatch):
    monkeypatch.setattr(xmlsafe, 'MAX_XML_BYTES', 100)
    with pytest.raises(E.LimitError):
        xmlsafe.parse_xml_bytes(b'<robot name="r">' + b' ' * 200 + b'<link name="a"/></robot>')


# --- the same through the CLI -------------------------------------------------------------------

def _assert_cli_error(result: subprocess.CompletedProcess, path: Path, lines: set[int] | None):
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert 'Traceback' not in result.stderr and 'Traceback' not in result.stdout
    if lines:
        assert any(f'{path}:{line}: ' in result.stderr for line in lines), result.stderr
    else:
        assert f'{path}' in result.stderr, result.stderr
    assert result.stdout == ''


@pytest.mark.parametrize('defect', CASES)
def test_cli_main_check_reports_file_and_line(defect: str, capsys):
    """Every case through the CLI entry point, in-process (fast)."""
    path = BAD / CASES[defect][0]
    code = cli.main(['check', str(path)])
    out, err = capsys.readouterr()
    _assert_cli_error(subprocess.CompletedProcess([], code, out, err), path, marked_lines(path))


SUBPROCESS_CASES = ['malformed_xml', 'unknown_format', 'cycle', 'two_roots', 'nan_origin',
                    'unknown_link', 'billion_laughs', 'external_dtd']


@pytest.mark.parametrize('defect', SUBPROCESS_CASES)
def test_cli_check_reports_file_and_line(defect: str):
    """``python -m robot_formats.cli check FILE`` in a subprocess, for a representative set."""
    path = BAD / CASES[defect][0]
    _assert_cli_error(run_cli('check', path), path, marked_lines(path))


def test_cli_missing_directory_empty(tmp_path):
    missing = tmp_path / 'missing.urdf'
    _assert_cli_error(run_cli('check', missing), missing, None)
    directory = tmp_path / 'dir.urdf'
    directory.mkdir()
    _assert_cli_error(run_cli('check', directory), directory, None)
    empty = BAD / 'urdf_invalid_empty.urdf'
    _assert_cli_error(run_cli('check', empty), empty, {1})


def test_cli_oversize():
    path = BAD / 'urdf_invalid_oversize.urdf'
    code = ('import sys\nimport robot_formats.core.xmlsafe as x\nx.MAX_XML_BYTES = 4096\n'
            'from robot_formats.cli import main\nsys.exit(main(sys.argv[1:]))\n')
    _assert_cli_error(run_cli('check', path, python_code=code), path, None)
    assert run_cli('check', path).returncode == 0
