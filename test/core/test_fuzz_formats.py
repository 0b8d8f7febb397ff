"""Nothing may crash the process: seeded mutation fuzzing of real files of every format.

Seeds are real documents: the shared corpus (URDF, SDFormat, SKEL, HRDF), random HRDF kits of
test/formats/hrdf/kit_generator.py, and the bundled
examples (TMP problems with their configuration-mapping YAML, XMDI motions and servo-mapping
YAML, and one of each other format). Each is copied, with its
neighbours (includes, meshes, models), into a temporary tree, and mutants are written next to
it, so that relative references still resolve and the readers get deep into the document.

Mutations: byte flips, truncation, element deletion/duplication/renaming/moving, attribute
deletion and (textual) duplication, values transplanted from elsewhere in the document (name
collisions, cycles, self-references), number mangling (NaN, ±inf, huge, tiny, malformed,
hexadecimal), very long and non-ASCII values, and deep nesting (an element nested in copies of
itself, and deeply parenthesised numbers).

For every mutant, ``read_document`` (what ``robot-formats check`` runs; for scenes also
``load``) either succeeds or raises the FormatError family with a file and a sentence; never
another exception and never a hang: the readers run in a worker subprocess and each document
is bounded by a timeout. A few mutants also go through the CLI: exit 0 or 1, no traceback.
The seed is fixed, so a failure reproduces; the mutant files are kept in pytest's tmp dir.
"""

from __future__ import annotations

import json
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

ROOT = Path(__file__).resolve().parents[2]
SHARED = shared('corpus')
EXAMPLES = ROOT / 'examples'

SEED = 20261123
MUTANTS_PER_FORMAT = 150
#: Bound of one document (generous: the shared machine is slow; real files take < 0.1 s).
DOCUMENT_TIMEOUT = 10.0


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


def mutants(fmt: str, seeds: list[Path], count: int):
    """(mutant path, mutation name) — written next to their seeds, deterministic. A TMP
    problem's mutant gets its seed's mapping YAML beside it, itself mutated half the time."""
    rng = random.Random(f'{SEED}-{fmt}')
    yaml_side = fmt in ('tmp-mapping', 'servo-map')
    originals = {seed: seed.read_bytes() for seed in seeds}
    for number in range(count):
        seed = seeds[number % len(seeds)]
        data, mutation = _mutate(originals[seed], YAML_MUTATIONS if yaml_side else MUTATIONS,
                                 rng)
        if yaml_side:  # keep the seed's stem: a servo map's motion file is <stem>.xmdi
            path = seed.with_name(f'{seed.name.split(".")[0]}_zzfuzz_{number:03d}_'
                                  f'{mutation.strip("_")}{"".join(seed.suffixes)}')
        else:
            path = seed.with_name(f'zz_fuzz_{fmt}_{number:03d}_{mutation.strip("_")}'
                                  f'{seed.suffix}')
        path.write_bytes(data)
        mapping = _beside_mapping(seed)
        if fmt == 'tmp' and mapping.is_file():
            text = mapping.read_bytes()
            if rng.random() < 0.5:
                text, mutation = _mutate(text, YAML_MUTATIONS, rng)
                mutation = f'mapping{mutation}'
            _beside_mapping(path).write_bytes(text)
        yield path, mutation


# --- the worker -----------------------------------------------------------------------------------

class Worker:
    """fuzz_worker.py in a subprocess; a document that takes too long kills and restarts it."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.selector: selectors.DefaultSelector | None = None

    def _start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name(
            'fuzz_worker.py'))], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)
        ready = self._answer(60.0)
        assert ready == {'outcome': 'ready'}, ready

    def _answer(self, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                return None
            line = self.proc.stdout.readline()
            if not line:
                return {'outcome': 'crash', 'type': 'process died',
                        'message': f'exit code {self.proc.wait()}', 'traceback': ''}
            return json.loads(line)

    def classify(self, path: Path, kind: str = 'document') -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write(f'{kind}\t{path}\n')
        self.proc.stdin.flush()
        answer = self._answer(DOCUMENT_TIMEOUT)
        if answer is None:
            self.close()
            return {'outcome': 'hang', 'message': f'no answer within {DOCUMENT_TIMEOUT:g} s'}
        if answer['outcome'] == 'crash' and answer['type'] == 'process died':
            self.close()
        return answer

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait(timeout=30)
            self.proc.stdin.close()
            self.proc.stdout.close()
            self.proc = None


@pytest.fixture(scope='module')
def copies(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp('fuzz')
    for name in ('sdformat', 'skel', 'hrdf'):  # URDF seeds live in sdformat/
        shutil.copytree(SHARED / name, root / 'corpus' / name)
    shutil.copytree(EXAMPLES, root / 'examples')
    _write_random_kits(root / 'kits')
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


@pytest.fixture(scope='module')
def worker():
    worker = Worker()
    yield worker
    worker.close()


@pytest.fixture(scope='module')
def outcomes() -> dict:
    """Every mutant's outcome by format, for the CLI test to pick from."""
    return {}


def _problem(path: Path, answer: dict) -> str | None:
    outcome = answer['outcome']
    if outcome == 'ok':
        return None
    if outcome == 'format_error':
        message = answer['message'] or ''
        if not answer['file'] or not re.search(r'[A-Za-z]{3}', message) or len(message) < 10:
            return f'{path.name}: FormatError without a file or sentence: {answer}'
        return None
    return (f'{path.name}: {outcome} {answer.get("type", "")}: {answer.get("message", "")}\n'
            f'{answer.get("traceback", "")}')


@pytest.mark.parametrize('fmt', ['urdf', 'sdf', 'skel', 'hrdf', 'hrdf-kits', 'tmp', 'xmdi',
                                 'tmp-mapping', 'servo-map'])
def test_mutants_are_read_or_refused_never_crash(fmt: str, copies: Path, worker: Worker,
                                                 outcomes: dict) -> None:
    kind = fmt if fmt in ('tmp-mapping', 'servo-map') else 'document'
    seeds = seed_files(copies)[fmt]
    assert seeds and all(seed.is_file() for seed in seeds), seeds
    for seed in seeds:  # the unmutated seeds are read (else the fuzzing proves nothing)
        assert worker.classify(seed, kind)['outcome'] != 'crash', seed
    problems, results = [], []
    count = {'document': MUTANTS_PER_FORMAT, 'hrdf-kits': 2 * MUTANTS_PER_FORMAT}.get(
        fmt if fmt == 'hrdf-kits' else kind, MUTANTS_PER_FORMAT // 3)
    for path, mutation in mutants(fmt, seeds, count):
        answer = worker.classify(path, kind)
        results.append((path, answer))
        problem = _problem(path, answer)
        if problem:
            problems.append(f'[{mutation}] {problem}')
    outcomes[fmt] = results
    refused = sum(a['outcome'] == 'format_error' for _, a in results)
    assert refused >= 10, f'only {refused} of the mutants were refused: weak mutations'
    assert not problems, f'{len(problems)} mutants crashed or hung:\n' + '\n'.join(problems[:8])


def test_cli_check_on_mutants_exits_0_or_1_without_traceback(outcomes: dict) -> None:
    if not outcomes:
        pytest.fail('run with the fuzz tests above (they choose the mutants)')
    chosen = []
    for fmt, results in sorted(outcomes.items()):
        if fmt in ('tmp-mapping', 'servo-map'):
            continue  # side files: `check` reads documents
        refused = [p for p, a in results if a['outcome'] == 'format_error']
        if refused:
            chosen.append(random.Random(f'{SEED}-cli-{fmt}').choice(refused))
    for path in chosen:
        run = subprocess.run([sys.executable, '-m', 'robot_formats.cli', 'check', str(path)],
                             capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert run.returncode in (0, 1), f'{path.name}: exit {run.returncode}\n{run.stderr}'
        assert 'Traceback' not in run.stderr + run.stdout, f'{path.name}:\n{run.stderr}'
        if run.returncode == 1:
            assert re.search(r':\S*:? .*[A-Za-z]{3}', run.stderr), run.stderr


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
