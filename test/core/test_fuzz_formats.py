"""Nothing may crash, hang, exhaust memory or disclose a file: seeded fuzzing of every format
through the command line (issue 27).

For each format (URDF, SDFormat, HRDF, SKEL, TMP, XMDI, xacro) a seeded generator mixes:

* mutations of real documents: the shared corpus (URDF, SDFormat, SKEL, HRDF), random HRDF kits
  of test/formats/hrdf/kit_generator.py, the bundled examples (TMP problems with their mapping
  YAML, XMDI motions), the xacro fixture and URDF seeds wrapped as xacro. Each seed is copied,
  with its neighbours (includes, meshes, models), into a temporary tree and its mutants written
  next to it, so relative references still resolve and the readers get deep into the document.
  Mutations: byte flips, truncation, element deletion/duplication/renaming/moving, attribute
  deletion and duplication, values transplanted from elsewhere in the document (name
  collisions, cycles, self-references), number mangling (NaN, ±inf, huge, tiny, malformed,
  hexadecimal), very long and non-ASCII values, deep nesting;
* the hostile classes of fuzz_hostile.py: references to planted secrets, FIFOs, devices, link
  loops, directories and a 2 GB file by every way a format names a file; includes that fan out,
  nest or loop; long chains; xacro bombs; overflowing numbers and empty names; and the document
  itself a FIFO, a device, a directory or a secret.

Every case runs ``check`` and, when check accepts it, ``frames --json``, ``info`` and ``convert``
(``motion --json`` for motions) in a worker process (fuzz_worker.py) under an address-space cap,
with a time bound per case. A case fails on an exit code other than 0 or 1 (an internal error,
MemoryError at the cap), no answer in time, an output showing a planted secret, a refusal
without a ``file:line: message`` line, a command refusing what check accepted, descriptors left
open; the URDF written for a sample of accepted cases must pass check_urdf. The YAML side files
(TMP configuration mappings, XMDI servo maps) are fuzzed through their readers.

Budget: ``FUZZ_CASES`` cases per format (default 50: ``make test``), ``FUZZ_WORKERS`` worker
processes (default 2); ``make fuzz`` runs 10,000 per format. ``FUZZ_FIRST`` (default 0) is the
number of the first case, so a large budget can run in pieces (cases 0-2999, then 3000-9999
are cases 0-9999). The seed is fixed, so a failure reproduces; a failing case's files are kept
in pytest's tmp dir, the others removed once run.
"""

from __future__ import annotations

import json
import os
import random
import re
import selectors
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lxml import etree
from shared_data import shared

import fuzz_hostile
from hostile import Plant, run_cli_capped, secret_env, verdict
from rf_testlib import check_urdf

ROOT = Path(__file__).resolve().parents[2]
SHARED = shared('corpus')
EXAMPLES = ROOT / 'examples'

SEED = 20261123
#: Cases per format (``make fuzz`` sets 10,000).
CASES = int(os.environ.get('FUZZ_CASES', '50'))
#: The number of the first case (``FUZZ_FIRST``): a budget run in pieces.
FIRST = int(os.environ.get('FUZZ_FIRST', '0'))
#: Worker processes running cases side by side.
WORKERS = max(1, int(os.environ.get('FUZZ_WORKERS', '2')))
#: Bound of one case, every command included (generous: the shared machine is slow; real files
#: take < 0.1 s; a 10,000-link chain a few seconds). xacro cases may spend the whole xacro
#: budget (formats.xacro_expansion) once per command.
CASE_TIMEOUT = 90.0
XACRO_CASE_TIMEOUT = 240.0
#: One accepted case in this many has its written URDF checked by check_urdf.
CHECK_URDF_EVERY = 5


# --- seeds --------------------------------------------------------------------------------------

def _sample(paths: list[Path], count: int, salt: str) -> list[Path]:
    paths = sorted(paths)
    return sorted(random.Random(f'{SEED}-{salt}').sample(paths, min(count, len(paths))))


def _is_sdformat_document(path: Path) -> bool:
    """An <sdf> document (not one of libsdformat's spec-description files, root <element>)."""
    return b'<sdf' in path.read_bytes()[:2000]


def seed_files(copy_root: Path) -> dict[str, list[Path]]:
    """Per format, the seed documents inside the copied trees."""
    corpus = copy_root / 'corpus'
    examples = copy_root / 'examples'
    return {
        'urdf': _sample(list(corpus.rglob('*.urdf')), 8, 'urdf')
        + [examples / 'urdf' / 'arm_with_gripper.urdf', examples / 'tmp/models/dual_arm.urdf'],
        'sdf': _sample([p for p in corpus.joinpath('sdformat').rglob('*')
                        if p.suffix in ('.sdf', '.world') and _is_sdformat_document(p)],
                       12, 'sdf')
        + [examples / 'sdf' / 'workcell.sdf'],
        'skel': _sample(list(corpus.rglob('*.skel')), 8, 'skel')
        + [examples / 'skel' / 'quadruped.skel'],
        'hrdf': _sample(list(corpus.rglob('*.hrdf')), 8, 'hrdf')
        + [examples / 'hrdf' / 'hebi_arm.hrdf'],
        'tmp': sorted(examples.joinpath('tmp').glob('*.xml')),
        'xmdi': sorted(examples.joinpath('xmdi').glob('*.xmdi')),
        'hrdf-kits': sorted(copy_root.joinpath('kits').rglob('kit.hrdf')),
        'xacro': sorted(copy_root.joinpath('xacro').glob('*.urdf.xacro')),
        'tmp-mapping': sorted(examples.joinpath('tmp').glob('*.mapping.yaml')),
        'servo-map': sorted(examples.joinpath('xmdi').glob('*.map.yaml')),
    }


# --- mutations ----------------------------------------------------------------------------------

NUMBER = re.compile(rb'-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?')
ATTRIBUTE = re.compile(rb'\s[\w:.-]+\s*=\s*("[^"]*"|\'[^\']*\')')
BAD_NUMBERS = [b'nan', b'NaN', b'inf', b'-inf', b'1e309', b'-1e309', b'1e-320', b'0', b'-0',
               b'99999999999999999999999999', b'1.2.3', b'0x10', b'1e', b'--1', b'', b' ',
               b'.', b'1/0', b'pi', b'1e100000', b'-', b'+', b'0.0.', b'2147483648',
               b'-9223372036854775809', b'1,5', b'\xc2\xbd', b'0/0', b'-1/0', b'1e308*10']
WILD_VALUES = [b'', b' ', b'x' * 5000, 'ñ日本\u202e'.encode(), b'../' * 40 + b'x',
               b'/dev/zero', b'/etc/passwd', b'http://127.0.0.1:9/x', b'package://nowhere/x',
               b'file:///nonexistent', b'%s%n', b'0 0', b'1 2 3 4 5 6 7 8 9 10', b'true', b'-1']


def _byte_flips(data: bytes, rng: random.Random) -> bytes:
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if buffer:
            buffer[rng.randrange(len(buffer))] = rng.randrange(256)
    return bytes(buffer)


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[:rng.randrange(len(data) + 1)]


def _mangle_numbers(data: bytes, rng: random.Random) -> bytes:
    matches = list(NUMBER.finditer(data))
    if not matches:
        return _byte_flips(data, rng)
    out = bytearray(data)
    for match in sorted(rng.sample(matches, min(len(matches), rng.randint(1, 6))),
                        key=lambda m: -m.start()):
        out[match.start():match.end()] = rng.choice(BAD_NUMBERS)
    return bytes(out)


def _wild_attribute(data: bytes, rng: random.Random) -> bytes:
    matches = list(ATTRIBUTE.finditer(data))
    if not matches:
        return _byte_flips(data, rng)
    match = rng.choice(matches)
    value = match.group(1)
    quote = value[:1]
    new = quote + rng.choice(WILD_VALUES).replace(quote, b'') + quote
    return data[:match.start(1)] + new + data[match.end(1):]


def _duplicate_attribute(data: bytes, rng: random.Random) -> bytes:
    matches = list(ATTRIBUTE.finditer(data))
    if not matches:
        return _byte_flips(data, rng)
    match = rng.choice(matches)
    return data[:match.end()] + match.group(0) + data[match.end():]


def _tree(data: bytes):
    try:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=False)
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError:
        return None


def _elements(root) -> list:
    return [e for e in root.iter() if isinstance(e.tag, str)]


def _tree_mutation(data: bytes, rng: random.Random) -> bytes:
    root = _tree(data)
    if root is None:
        return _byte_flips(data, rng)
    elements = _elements(root)
    element = rng.choice(elements)
    choice = rng.randrange(6)
    parent = element.getparent()
    if choice == 0 and parent is not None:                          # delete an element
        parent.remove(element)
    elif choice == 1 and parent is not None:                        # duplicate it
        parent.insert(parent.index(element) + 1, _copy(element))
    elif choice == 2 and element.attrib:                            # delete an attribute
        del element.attrib[rng.choice(list(element.attrib))]
    elif choice == 3:                                               # rename it
        element.tag = rng.choice(elements).tag if rng.random() < 0.7 else 'unexpected'
    elif choice == 4 and parent is not None:                        # move it elsewhere
        parent.remove(element)
        target = rng.choice(_elements(root))
        target.insert(rng.randint(0, len(target)), element)
    else:                                                           # text in an element
        element.text = rng.choice(BAD_NUMBERS + WILD_VALUES[:4]).decode('utf-8', 'replace')
    return etree.tostring(root, xml_declaration=True, encoding='utf-8')


def _transplant(data: bytes, rng: random.Random) -> bytes:
    """An attribute value or element text replaced by another one of the same document:
    well-formed, but names now collide, references point elsewhere (cycles, self-parents),
    numbers stand where names belong and vice versa."""
    root = _tree(data)
    if root is None:
        return _byte_flips(data, rng)
    slots = [(e, k) for e in _elements(root) for k in e.attrib]
    slots += [(e, None) for e in _elements(root) if e.text and e.text.strip()]
    if len(slots) < 2:
        return _byte_flips(data, rng)
    values = [e.get(k) if k else e.text for e, k in slots]
    for _ in range(rng.randint(1, 3)):
        element, key = rng.choice(slots)
        value = rng.choice(values)
        if key:
            element.set(key, value)
        else:
            element.text = value
    return etree.tostring(root, xml_declaration=True, encoding='utf-8')


def _copy(element):
    from copy import deepcopy
    return deepcopy(element)


def _deep_nesting(data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.3:  # deeply parenthesised numbers (formula parsers)
        depth = rng.choice([50, 200, 2000, 20000])
        matches = list(NUMBER.finditer(data))
        if matches:
            match = rng.choice(matches)
            return (data[:match.start()] + b'(' * depth + match.group(0) + b')' * depth
                    + data[match.end():])
    root = _tree(data)
    if root is None:
        return _byte_flips(data, rng)
    element = rng.choice(_elements(root))
    depth = rng.choice([20, 100, 400, 3000])
    inner = _copy(element)
    for _ in range(depth):
        outer = etree.Element(element.tag, dict(element.attrib))
        outer.append(inner)
        inner = outer
    parent = element.getparent()
    if parent is None:
        root = inner
    else:
        parent.replace(element, inner)
    return etree.tostring(root, xml_declaration=True, encoding='utf-8')


YAML_SPECIALS = [b'~', b'null', b'[]', b'{}', b'!!python/object/apply:os.system ["true"]',
                 b'&a x', b'*a', b'*undefined', b'<<: *a', b'!!binary aGk=', b'yes', b'1e999',
                 b'.nan', b'-.inf', b'"\\x00"', b'? [complex, key]', b'|', b'>', b'---', b'...',
                 b'{a: 1, a: 2}', b'[1, [2, [3]]]', b'!!set {a}', b'!!timestamp 2001-12-14',
                 b'0o777', b'0x_1', b'"' + b'x' * 5000 + b'"', '日本'.encode()]


def _yaml_lines(data: bytes, rng: random.Random) -> bytes:
    """Line-level YAML damage: delete, duplicate, swap, re-indent, or replace a value."""
    lines = data.split(b'\n')
    index = rng.randrange(len(lines))
    choice = rng.randrange(5)
    if choice == 0:
        del lines[index]
    elif choice == 1:
        lines.insert(index, lines[index])
    elif choice == 2:
        other = rng.randrange(len(lines))
        lines[index], lines[other] = lines[other], lines[index]
    elif choice == 3:
        lines[index] = (b'  ' + lines[index]) if rng.random() < 0.5 else lines[index][2:]
    else:
        head, colon, _ = lines[index].partition(b':')
        special = rng.choice(YAML_SPECIALS + BAD_NUMBERS)
        lines[index] = head + b': ' + special if colon else head + b' ' + special
    return b'\n'.join(lines)


def _yaml_deep(data: bytes, rng: random.Random) -> bytes:
    depth = rng.choice([100, 1000, 5000])
    opener, closer = rng.choice([(b'[', b']'), (b'{a: ', b'}')])
    lines = data.split(b'\n')
    index = rng.randrange(len(lines))
    head, colon, value = lines[index].partition(b':')
    if colon:
        lines[index] = head + b': ' + opener * depth + (value.strip() or b'1') + closer * depth
    else:
        lines.insert(index, b'- ' * depth + b'x')
    return b'\n'.join(lines)


YAML_MUTATIONS = [_byte_flips, _truncate, _mangle_numbers, _yaml_lines, _yaml_lines,
                  _yaml_lines, _yaml_deep]


MUTATIONS = [_byte_flips, _truncate, _mangle_numbers, _mangle_numbers, _wild_attribute,
             _duplicate_attribute, _tree_mutation, _tree_mutation, _tree_mutation,
             _deep_nesting, _transplant, _transplant]


def _mutate(data: bytes, mutations: list, rng: random.Random) -> tuple[bytes, str]:
    mutation = rng.choice(mutations)
    data = mutation(data, rng)
    for _ in range(rng.choice([0, 0, 0, 1, 2])):  # sometimes several at once
        data = rng.choice(mutations)(data, rng)
    return data, mutation.__name__


def _beside_mapping(seed: Path) -> Path:
    """Where a TMP problem's configuration mapping is looked for (tmp.mapping.mapping_beside)."""
    return seed.with_name(seed.name.split('.')[0] + '.mapping.yaml')


def _mutant(fmt: str, seed: Path, number: int, rng: random.Random) -> tuple[list[Path], str]:
    """A mutant of ``seed`` written next to it (its files, the mutation's name). A TMP
    problem's mutant gets its seed's mapping YAML beside it, itself mutated half the time;
    a YAML side file keeps its seed's stem (a servo map's motion file is <stem>.xmdi)."""
    yaml_side = fmt in ('tmp-mapping', 'servo-map')
    data, mutation = _mutate(seed.read_bytes(), YAML_MUTATIONS if yaml_side else MUTATIONS, rng)
    if yaml_side:
        path = seed.with_name(f'{seed.name.split(".")[0]}_zzfuzz_{number:05d}_'
                              f'{mutation.strip("_")}{"".join(seed.suffixes)}')
    else:
        suffix = '.urdf.xacro' if fmt == 'xacro' else seed.suffix
        path = seed.with_name(f'zz_fuzz_{fmt}_{number:05d}_{mutation.strip("_")}{suffix}')
    path.write_bytes(data)
    files = [path]
    mapping = _beside_mapping(seed)
    if fmt == 'tmp' and mapping.is_file():
        text = mapping.read_bytes()
        if rng.random() < 0.5:
            text, mutation = _mutate(text, YAML_MUTATIONS, rng)
            mutation = f'mapping{mutation}'
        _beside_mapping(path).write_bytes(text)
        files.append(_beside_mapping(path))
    return files, mutation


def fuzz_cases(fmt: str, seeds: list[Path], plant: Plant, scratch: Path, count: int,
               first: int = 0):
    """(case for the worker, its files to remove once run, a label) — ``count`` of them from
    case number ``first`` on, deterministic: mutants of the seeds and hostile documents
    (fuzz_hostile.py), about half each, a tenth of the hostile ones mutated too."""
    generator = fuzz_hostile.GENERATORS.get(fmt)
    for number in range(first, first + count):
        rng = random.Random(f'{SEED}-{fmt}-{number}')
        if generator is None or (seeds and rng.random() < 0.5):
            files, label = _mutant(fmt, seeds[number % len(seeds)], number, rng)
            kind = fmt if fmt in ('tmp-mapping', 'servo-map') else 'cli'
            yield {'kind': kind, 'path': str(files[0]), 'fmt': fmt}, files, label
            continue
        folder = scratch / f'{fmt}-{number:05d}'
        folder.mkdir(parents=True)
        case = generator(rng, plant, folder)
        label = f'hostile {case.attack}'
        if rng.random() < 0.1 and case.path.is_file() and not case.path.is_symlink():
            data, mutation = _mutate(case.path.read_bytes(), MUTATIONS, rng)
            case.path.write_bytes(data)
            label += f' {mutation}'
        yield ({'kind': 'cli', 'path': str(case.path), 'fmt': fmt,
                'servo_map': str(case.servo_map) if case.servo_map else None}, [folder], label)


# --- the workers ----------------------------------------------------------------------------------

class Worker:
    """fuzz_worker.py in a subprocess; a case that takes too long kills and restarts it."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        scratch.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen | None = None
        self.deadline = 0.0
        self.case: dict | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name('fuzz_worker.py')), str(self.scratch)],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1, env=secret_env())
        ready = self.proc.stdout.readline()
        assert json.loads(ready) == {'outcome': 'ready'}, ready

    def send(self, case: dict) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.case = case
        timeout = XACRO_CASE_TIMEOUT if case.get('fmt') == 'xacro' else CASE_TIMEOUT
        self.deadline = time.monotonic() + timeout
        self.proc.stdin.write(json.dumps(case) + '\n')
        self.proc.stdin.flush()

    def answer(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            self.close()
            return {'outcome': 'crash', 'type': 'process died', 'message': f'exit code {code}',
                    'traceback': ''}
        return json.loads(line)

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait(timeout=30)
            self.proc.stdin.close()
            self.proc.stdout.close()
            self.proc = None


class Pool:
    """Workers running cases side by side, each case bounded in time."""

    def __init__(self, root: Path, size: int = WORKERS) -> None:
        self.workers = [Worker(root / f'worker{index}') for index in range(size)]

    def run(self, cases, on_answer) -> None:
        """Send every case; ``on_answer(case, files, label, answer)`` as each ends."""
        pending = iter(cases)
        busy: dict[int, tuple[Worker, tuple]] = {}
        idle = list(self.workers)
        with selectors.DefaultSelector() as selector:
            while True:
                while idle:
                    item = next(pending, None)
                    if item is None:
                        break
                    worker = idle.pop()
                    worker.send(item[0])
                    busy[id(worker)] = (worker, item)
                    selector.register(worker.proc.stdout, selectors.EVENT_READ, worker)
                if not busy:
                    return
                timeout = max(0.0, min(w.deadline for w, _ in busy.values()) - time.monotonic())
                ready = {key.data for key, _ in selector.select(timeout)}
                for worker, item in list(busy.values()):
                    if worker in ready:
                        answer = worker.answer()
                    elif time.monotonic() >= worker.deadline:
                        answer = {'outcome': 'hang', 'message': 'no answer within '
                                  f'{worker.deadline:g}'}
                        worker.close()
                    else:
                        continue
                    if worker.proc is not None:
                        selector.unregister(worker.proc.stdout)
                    else:
                        with _quiet():
                            selector.unregister(_registered(selector, worker))
                    del busy[id(worker)]
                    idle.append(worker)
                    on_answer(item[0], item[1], item[2], answer)

    def close(self) -> None:
        for worker in self.workers:
            worker.close()


def _registered(selector: selectors.BaseSelector, worker: Worker):
    return next(key.fileobj for key in selector.get_map().values() if key.data is worker)


class _quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return exc[0] in (KeyError, StopIteration, ValueError)


@pytest.fixture(scope='module')
def copies(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp('fuzz')
    for name in ('sdformat', 'skel', 'hrdf'):  # URDF seeds live in sdformat/
        shutil.copytree(SHARED / name, root / 'corpus' / name)
    shutil.copytree(EXAMPLES, root / 'examples')
    _write_random_kits(root / 'kits')
    _write_xacro_seeds(root / 'xacro', root / 'corpus')
    return root


def _write_random_kits(folder: Path, count: int = 21) -> None:
    """HRDF kits from test/formats/hrdf/kit_generator.py (every element kind, all versions,
    formulas, rotations, includes): denser in formulas and rotations than the corpus kits, where
    the corpus fuzzing found nothing but these found a hang and a crash."""
    sys.path.insert(0, str(ROOT / 'test' / 'formats' / 'hrdf'))
    try:
        from kit_generator import generate
    finally:
        sys.path.pop(0)
    versions = ['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0', '1.6.0']
    for seed in range(count):
        kit_dir = folder / f'k{seed}'
        kit_dir.mkdir(parents=True)
        generate(seed, versions[seed % 7], seed % 3 == 0).write(kit_dir, 'kit.hrdf')


def _write_xacro_seeds(folder: Path, corpus: Path) -> None:
    """The xacro fixture, and URDF seeds as xacro documents (the namespace declared, a
    property used by the first origin): mutants reach xacro's parser and evaluator."""
    folder.mkdir(parents=True)
    shutil.copy(ROOT / 'test' / 'fixtures' / 'xacro' / 'two_link.urdf.xacro', folder)
    for index, seed in enumerate(_sample(list(corpus.rglob('*.urdf')), 6, 'xacro')):
        text = seed.read_text(errors='replace')
        text = re.sub(r'<robot\b', '<robot xmlns:xacro="http://www.ros.org/wiki/xacro"', text,
                      count=1)
        text = re.sub(r'(<robot\b[^>]*>)', r'\1<xacro:property name="zz" value="0.1"/>', text,
                      count=1)
        text = text.replace('xyz="0 0 0"', 'xyz="0 0 ${zz*2}"', 1)
        (folder / f'{index}_{seed.stem}.urdf.xacro').write_text(text)


@pytest.fixture(scope='module')
def plant(tmp_path_factory) -> Plant:
    return Plant(tmp_path_factory.mktemp('plant'))


@pytest.fixture(scope='module')
def pool(tmp_path_factory):
    pool = Pool(tmp_path_factory.mktemp('workers'))
    yield pool
    pool.close()


@pytest.fixture(scope='module')
def outcomes() -> dict:
    """A few refused cases by format (kept on disk), for the subprocess CLI test."""
    return {}


def _remove(files: list[Path]) -> None:
    for path in files:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


DOCUMENT_FORMATS = ['urdf', 'sdf', 'skel', 'hrdf', 'hrdf-kits', 'tmp', 'xmdi', 'xacro']


@pytest.mark.parametrize('fmt', DOCUMENT_FORMATS + ['tmp-mapping', 'servo-map'])
def test_fuzzed_inputs_never_crash_hang_or_disclose(fmt: str, copies: Path, plant: Plant,
                                                    pool: Pool, outcomes: dict,
                                                    tmp_path: Path) -> None:
    seeds = seed_files(copies)[fmt]
    assert seeds and all(seed.is_file() for seed in seeds), seeds
    count = CASES
    kind = fmt if fmt in ('tmp-mapping', 'servo-map') else 'cli'
    tally: dict[str, int] = {}
    problems: list[str] = []
    checked: list[str] = []
    kept: list[str] = []  # refused cases left on disk for the subprocess test

    def on_answer(case: dict, files: list[Path], label: str, answer: dict) -> None:
        outcome = answer['outcome']
        tally[outcome] = tally.get(outcome, 0) + 1
        if outcome == 'ok' and answer.get('urdf') and tally['ok'] % CHECK_URDF_EVERY == 1:
            written = check_urdf(answer['urdf'])
            checked.append(case['path'])
            if written.returncode != 0:
                outcome = 'urdf-refused'
                answer = {**answer, 'message': written.stdout[-500:] + written.stderr[-500:]}
        if outcome == 'refused' and case['kind'] == 'cli' and len(kept) < 3:
            kept.append(case['path'])
        elif outcome in ('ok', 'refused'):
            _remove(files)
        else:
            problems.append(f'[{label}] {case["path"]}: {outcome} {answer.get("type", "")}: '
                            f'{answer.get("message", "")}\n{answer.get("traceback", "")}')

    seed_cases = [({'kind': kind, 'path': str(seed), 'fmt': fmt}, [], 'seed')
                  for seed in seeds]  # the unmutated seeds are read (else nothing is proven)
    seen: list[tuple[dict, dict]] = []
    pool.run(seed_cases, lambda case, files, label, answer: seen.append((case, answer)))
    unread = [(c['path'], a) for c, a in seen if a['outcome'] not in ('ok', 'refused')]
    assert not unread, f'seeds not read cleanly: {unread}'
    start = time.monotonic()
    pool.run(fuzz_cases(fmt, seeds, plant, tmp_path / 'cases', count, FIRST), on_answer)
    outcomes[fmt] = kept
    print(f'fuzz {fmt}: {sum(tally.values())} cases (from case {FIRST}) {tally}, '
          f'{len(checked)} written URDFs through check_urdf, {time.monotonic() - start:.0f} s')
    assert sum(tally.values()) == count
    assert not problems, (f'{len(problems)} of {count} cases failed:\n'
                          + '\n'.join(problems[:8]))
    if fmt in DOCUMENT_FORMATS:
        assert tally.get('refused', 0) >= count // 10, f'few refusals: weak cases ({tally})'
    if fmt in fuzz_hostile.GENERATORS:
        assert tally.get('ok', 0) >= 1, f'nothing accepted: the cases stop early ({tally})'


def test_cli_in_a_process_of_its_own_on_refused_cases(outcomes: dict) -> None:
    """The worker runs the CLI in its process; a few refused cases through
    ``python -m robot_formats.cli check`` as users run it, under the memory cap."""
    if not outcomes:
        pytest.fail('run with the fuzz tests above (they choose the cases)')
    chosen = [random.Random(f'{SEED}-cli-{fmt}').choice(kept)
              for fmt, kept in sorted(outcomes.items()) if kept]
    assert len(chosen) >= len(DOCUMENT_FORMATS), outcomes
    for path in chosen:
        problem = verdict(run_cli_capped('check', path), expected=(1,))
        assert problem is None or 'one "file:line: message" line' in problem, problem


def test_cli_motion_with_a_huge_frame_number_exits_1(tmp_path: Path) -> None:
    """Found by fuzzing: one frame number mangled to 2^31 made `motion` allocate 25 GB."""
    text = (EXAMPLES / 'xmdi' / 'hebi_arm_wave.xmdi').read_text()
    assert '150</frames>' in text
    path = tmp_path / 'huge.xmdi'
    path.write_text(text.replace('150</frames>', '2147483648</frames>', 1))
    run = subprocess.run([sys.executable, '-m', 'robot_formats.cli', 'motion', '--json',
                          str(path)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 1, run.stderr
    assert 'Traceback' not in run.stderr and 'lower the rate' in run.stderr, run.stderr
    assert run.stderr.startswith(f'{path}:'), run.stderr
