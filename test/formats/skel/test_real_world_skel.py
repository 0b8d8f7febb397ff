"""SKEL as DART reads it: every irregular file dartpy 6.20 loads is loaded, with a SKEL_* warning
per irregularity at its line, and the same frames, DoFs and mass properties as DART; what DART
refuses (or crashes on before building anything) stays refused; strict mode refuses every
irregularity. DART's verdict comes from dartpy itself, run here in a subprocess
(dart_oracle.py). Fixtures: test/fixtures/real_world/skel_*.skel, one per class.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from robot_formats import cli
from robot_formats.core.errors import FormatError
from robot_formats.formats import load

from shared_data import shared
from test_skel_dartpy_random import (_assert_frames, _expected_dof_name, assert_mass_properties,
                                     run_oracle)

REAL = Path(__file__).resolve().parents[2] / 'fixtures' / 'real_world'
#: The goldens' invalid variants (shared/goldens/skel/generated/invalid): those DART loads are
#: compared with dartpy here, frame by frame.
INVALID = sorted(shared('goldens', 'skel', 'generated', 'invalid').glob('*.skel'))

#: fixture -> the warnings it must give, (code, line); nothing else may be reported.
FIXTURES = {
    'skel_geometry_extras.skel': [('SKEL_UNKNOWN_ELEMENT', 14), ('SKEL_UNKNOWN_ELEMENT', 19)],
    'skel_several_shapes.skel': [('SKEL_SEVERAL_SHAPES', 14), ('SKEL_SEVERAL_SHAPES', 19),
                                 ('SKEL_SEVERAL_SHAPES', 24)],
    'skel_pyramid.skel': [('SKEL_UNSUPPORTED_SHAPE', 14), ('SKEL_UNSUPPORTED_SHAPE', 19)],
    'skel_planar_without_plane.skel': [('SKEL_PLANE', 24), ('SKEL_PLANE', 30)],
    'skel_init_pos_length.skel': [('SKEL_INITIAL_VECTOR', 31), ('SKEL_INITIAL_VECTOR', 35),
                                  ('SKEL_INITIAL_VECTOR', 39)],
    'skel_invalid_sizes.skel': [('SKEL_INVALID_SIZE', line)
                                for line in (14, 20, 25, 25, 30, 35, 40, 45)],
    'skel_missing_mesh.skel': [('SKEL_MISSING_MESH', 14)],
    'skel_stray_number_characters.skel': [('SKEL_NUMBER', 7), ('SKEL_NUMBER', 12),
                                          ('SKEL_NUMBER', 21), ('SKEL_NUMBER', 21)],
    'skel_default_axes.skel': [('SKEL_MISSING_AXIS', 34), ('SKEL_MISSING_AXIS', 38),
                               ('SKEL_MISSING_AXIS', 42), ('SKEL_AXIS_ORDER', 48)],
    'skel_zero_axis.skel': [('SKEL_ZERO_AXIS', 26)],
    'skel_limits_inverted.skel': [('SKEL_LIMIT_ORDER', 19)],
    'skel_duplicates.skel': [('SKEL_DUPLICATE_NAME', 16), ('SKEL_SECOND_PARENT', 37),
                             ('SKEL_UNKNOWN_BODY', 41)],
    'skel_unknown_parent.skel': [('SKEL_UNKNOWN_BODY', 14)],
    'skel_collada_mesh.skel': [],  # no irregularity: DART's inertia from a Collada mesh
    'skel_malformed_elements.skel': [('SKEL_MALFORMED_ELEMENT', 9),
                                     ('SKEL_MALFORMED_ELEMENT', 14),
                                     ('SKEL_MALFORMED_ELEMENT', 21)],
}

#: Where DART's initial frames are no reference: it reads undefined memory past a short
#: init_pos (measured: -inf, then an identity transform); robot_formats reads zeros there.
UNDEFINED_INITIAL = {'skel_init_pos_length.skel'}

#: Files DART refuses (returns nothing, throws, or crashes before building the world) stay
#: refused: a <body>'s shapes (or joint) as written into a two-body skeleton.
REFUSED = {
    'mesh_without_scale': ('<visualization_shape><geometry><mesh><file_name>m.obj</file_name>'
                           '</mesh></geometry></visualization_shape>', ''),
    'no_geometry': ('<visualization_shape><transformation>0 0 0 0 0 0</transformation>'
                    '</visualization_shape>', ''),
    'not_a_number': ('', '<joint type="revolute" name="j"><parent>a</parent><child>b</child>'
                     '<axis><xyz>0 0 1</xyz><dynamics><damping>abc</damping></dynamics></axis>'
                     '</joint>'),
    'empty_init_pos': ('', '<joint type="revolute" name="j"><parent>a</parent><child>b</child>'
                       '<axis><xyz>0 0 1</xyz></axis><init_pos></init_pos></joint>'),
    'euler_without_order': ('', '<joint type="euler" name="j"><parent>a</parent>'
                            '<child>b</child></joint>'),
}
_TWO_BODIES = '''<?xml version="1.0"?>
<skel version="1.0"><world name="w"><skeleton name="s">
 <body name="a"><transformation>0 0 0.5 0 0 0</transformation>
  <visualization_shape><geometry><box><size>0.1 0.2 0.3</size></box></geometry>
  </visualization_shape></body>
 <body name="b"><transformation>0.2 0 1 0 0 0</transformation>{shapes}</body>
 <joint type="free" name="j0"><parent>world</parent><child>a</child></joint>
 {joint}
</skeleton></world></skel>
'''
#: Files DART crashes on: a missing mesh it computes an inertia from, an unknown shape.
CRASHES = {
    'missing_mesh': _TWO_BODIES.format(
        shapes='<visualization_shape><geometry><mesh><file_name>not_shipped.obj</file_name>'
               '<scale>1 1 1</scale></mesh></geometry></visualization_shape>'
               '<inertia><mass>1</mass></inertia>',
        joint='<joint type="revolute" name="j"><parent>a</parent><child>b</child>'
              '<axis><xyz>0 0 1</xyz></axis></joint>'),
    'unknown_shape': _TWO_BODIES.format(
        shapes='<visualization_shape><geometry><torus/></geometry></visualization_shape>'
               '<collision_shape><geometry><box><size>1 2 3</size></box></geometry>'
               '</collision_shape><inertia><mass>1</mass></inertia>',
        joint='<joint type="revolute" name="j"><parent>a</parent><child>b</child>'
              '<axis><xyz>0 0 1</xyz></axis></joint>'),
}
_HINGE = ('<joint type="revolute" name="j"><parent>a</parent><child>b</child>'
          '<axis><xyz>0 0 1</xyz></axis></joint>')


@pytest.fixture(scope='module')
def dart(tmp_path_factory) -> dict[str, dict]:
    """dartpy's answer per fixture (and per refused snippet), all in one subprocess run."""
    folder = tmp_path_factory.mktemp('real_world_skel')
    jobs = {}
    for name in FIXTURES:
        jobs[name] = REAL / name
    for path in INVALID:
        if _loops_forever(path):  # DART never returns: its recorded verdict stands
            continue
        jobs[f'invalid:{path.name}'] = path
    for name, text in CRASHES.items():
        path = folder / f'crash_{name}.skel'
        path.write_text(text)
        jobs[f'crash:{name}'] = path
    for name, (shapes, joint) in REFUSED.items():
        path = folder / f'refused_{name}.skel'
        path.write_text(_TWO_BODIES.format(shapes=shapes, joint=joint or _HINGE))
        jobs[f'refused:{name}'] = path
    answers = run_oracle([{'path': str(p), 'seed': 7, 'configurations': 2}
                          for p in jobs.values()], folder)
    return {'paths': dict(jobs), **dict(zip(jobs, answers))}


def _loops_forever(path: Path) -> bool:
    """A variant DART loops on forever (a cycle of joints, recorded in the goldens)."""
    return json.loads(path.with_suffix('.json').read_text())['dart_behaviour'] == 'timeout'


def _our_positions(tree, skeletons: list[dict], q: list[float]) -> np.ndarray:
    """DART's configuration ``q`` in our DoF order, by name (a DART coordinate we do not have,
    the zero-axis joint's, moves nothing)."""
    values = {}
    for name, value in zip((_expected_dof_name(s['name'], d) for s in skeletons
                            for d in s['dofs']), q):
        values[name] = value
    missing = [n for n in values if n not in tree.dof_names]
    assert all(n.endswith('::stuck') for n in missing), missing
    return np.array([values[name] for name in tree.dof_names])


@pytest.mark.parametrize('name', sorted(FIXTURES))
def test_dart_loads_it_and_so_do_we_with_the_same_frames(dart, name: str) -> None:
    answer = dart[name]
    assert answer['loaded'], f'dartpy did not load {name}: {answer}'
    result = load(REAL / name)
    assert sorted((w.code, w.line) for w in result.warnings) == sorted(FIXTURES[name])
    assert all(str(REAL / name) == w.file for w in result.warnings)
    _assert_same_as_dart(REAL / name, answer, initial=name not in UNDEFINED_INITIAL)


def _assert_same_as_dart(path: Path, answer: dict, initial: bool = True) -> None:
    """Frames at DART's initial and random configurations, and every body's mass properties."""
    tree = load(path).tree
    skeletons = answer['skeletons']
    if initial:
        _assert_frames(tree.forward(), answer['initial_frames'], f'{path.name} initial')
    assert len(tree.forward()) == len(answer['initial_frames']) + 1  # + the world frame
    for index, config in enumerate(answer['configurations']):
        q = _our_positions(tree, skeletons, config['positions'])
        _assert_frames(tree.forward(q), config['frames'], f'{path.name} configuration {index}')
    assert_mass_properties(tree, skeletons, f'{path.name}: ')


@pytest.mark.parametrize('path', INVALID, ids=lambda p: p.name)
def test_invalid_variants_dart_loads_have_darts_frames(dart, path: Path) -> None:
    """Every goldens' invalid variant dartpy loads in this run: loaded with warnings, the
    same frames and mass properties (a short init_pos aside: DART reads undefined memory)."""
    answer = dart.get(f'invalid:{path.name}', {'loaded': False})
    category = json.loads(path.with_suffix('.json').read_text())['category']
    if 'crash' in answer and category.startswith('unknown_'):
        assert load(path).warnings  # DART discarded the joint, then crashed: loaded here
        return
    if not answer['loaded']:
        with pytest.raises(FormatError):
            load(path)
        return
    result = load(path)
    assert result.warnings, 'an irregular file gives warnings'
    short = any(w.code == 'SKEL_INITIAL_VECTOR' and 'read as 0' in w.message
                for w in result.warnings)
    _assert_same_as_dart(path, answer, initial=not short)


def test_dart_crashes_on_a_missing_mesh_we_warn(dart, tmp_path: Path) -> None:
    """Without <moment_of_inertia> DART computes the inertia from the missing mesh and
    crashes; robot_formats loads the file (its frames do not depend on the mesh)."""
    assert not dart['crash:missing_mesh']['loaded']
    assert 'crash' in dart['crash:missing_mesh']
    path = tmp_path / 'missing_mesh.skel'
    path.write_text(CRASHES['missing_mesh'])
    result = load(path)
    assert [w.code for w in result.warnings] == ['SKEL_MISSING_MESH', 'WARNING']
    assert 'not_shipped.obj' in result.warnings[0].message
    assert 'identity' in result.warnings[1].message  # the inertia it cannot compute


def test_an_unknown_shape_is_refused_dart_crashes(dart, tmp_path: Path) -> None:
    """DART adds no shape for it and crashes (nearly always; it is undefined behaviour)."""
    assert not dart['crash:unknown_shape']['loaded']
    path = tmp_path / 'unknown_shape.skel'
    path.write_text(CRASHES['unknown_shape'])
    with pytest.raises(FormatError, match='unknown shape <torus>') as info:
        load(path)
    assert info.value.line == 6


def test_inverted_limits_are_read_in_order(dart) -> None:
    """DART keeps lower > upper, which no position satisfies; the model holds them in order
    (docs/real_world.md)."""
    dof = dart['skel_limits_inverted.skel']['skeletons'][0]['dofs'][6]
    assert dof['position_limits'] == [1.0, -1.0]
    joint = load(REAL / 'skel_limits_inverted.skel').tree.joints['limits::j']
    assert (joint.limits[0].lower, joint.limits[0].upper) == (-1.0, 1.0)


def test_shape_priority_is_darts(dart) -> None:
    scene = load(REAL / 'skel_several_shapes.skel').scene
    links = {link.name: link for link in scene.models[0].links}
    assert [type(c.geometry).__name__ for c in links['a'].collisions] == ['Sphere']
    assert [type(c.geometry).__name__ for c in links['b'].collisions] == ['Cone']
    assert [type(c.geometry).__name__ for c in links['c'].collisions] == ['Cylinder']


@pytest.mark.parametrize('name', sorted(FIXTURES))
def test_strict_mode_refuses_each_skel_irregularity(name: str, capsys) -> None:
    if not FIXTURES[name]:
        assert cli.main(['check', '--strict', str(REAL / name)]) == 0
        return
    assert cli.main(['check', '--strict', str(REAL / name)]) == 1
    err = capsys.readouterr().err
    code, line = FIXTURES[name][0]
    assert f'{REAL / name}:{line}:' in err or f'{REAL / name}:' in err, err


@pytest.mark.parametrize('name', sorted(REFUSED))
def test_what_dart_refuses_stays_refused(dart, name: str, tmp_path: Path) -> None:
    answer = dart[f'refused:{name}']
    assert not answer['loaded'], f'dartpy loads {name}: the reader must too'
    path = tmp_path / f'{name}.skel'
    shutil.copy(dart['paths'][f'refused:{name}'], path)
    with pytest.raises(FormatError) as info:
        load(path)
    assert info.value.file == str(path) and info.value.line
