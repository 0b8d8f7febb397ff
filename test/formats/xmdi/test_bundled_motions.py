"""The bundled robots and the motions written for them.

* every bundled robot loads, its URDF passes urdfdom's check_urdf, and at poses the motions
  visit pinocchio's forward kinematics of that URDF equals the format's own reference
  implementation run on the original file (hebi-py for HRDF, dartpy for SKEL);
* every bundled motion passes the play checks of the library (joints, limits, the
  joint_trajectory_controller rules) in the ways a player plays it (once, looped, reversed); a
  one-way motion (it ends elsewhere than it starts: pick_and_place.xmdi) is refused looped;
* the same facts computed independently: each servo drives an existing, commandable joint of
  the URDF (read with ElementTree), key values within the position limits, key-to-key speeds
  within the velocity limits; and the library's samples equal numpy.interp of the key frames;
* every .xmdi under examples/ belongs to a bundle (none is forgotten by these tests).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robot_formats.runtime.description import Description
from robot_formats.formats.xmdi import MotionModel, Playback, PlayOptions, ServoMapping, read_xmdi
from robot_formats.formats.xmdi.safety import MotionRejected, RobotJoints, check_play

from bundled_reference import BUNDLES, EXAMPLES, ROOT, reference_motions, urdf_joints

sys.path.insert(0, str(ROOT / 'test' / 'core'))
from rf_testlib import assert_check_urdf, pinocchio_forward, urdf_joint_values  # noqa: E402

IDS = [bundle.name for bundle in BUNDLES]
#: Forward kinematics of two implementations of one robot agree to this (metres, rotation).
FK_TOL = 1e-6
#: Motion samples compared with the reference implementations.
SAMPLES = 7


@pytest.fixture(scope='module')
def urdfs() -> dict[str, str]:
    return {bundle.name: Description.load(bundle.robot).urdf for bundle in BUNDLES}


def test_every_bundled_motion_file_has_a_robot() -> None:
    files = {path.relative_to(EXAMPLES) for path in EXAMPLES.rglob('*.xmdi')}
    assert files == {bundle.motions.relative_to(EXAMPLES) for bundle in BUNDLES}
    for bundle in BUNDLES:
        assert bundle.robot.is_file(), bundle.robot
        assert bundle.servo_map is None or bundle.servo_map.is_file(), bundle.servo_map


@pytest.mark.parametrize('bundle', BUNDLES, ids=IDS)
def test_robot_converts_to_a_urdf_check_urdf_accepts(bundle, urdfs, tmp_path: Path) -> None:
    assert_check_urdf(urdfs[bundle.name], tmp_path, f'{bundle.robot.stem}.urdf')


def _models(bundle) -> dict[str, MotionModel]:
    """The library's motion models of the bundle's file (warnings are a failure)."""
    mapping = ServoMapping.from_yaml(bundle.servo_map) if bundle.servo_map else None
    document, warnings = read_xmdi(bundle.motions)
    assert not warnings, warnings
    return {motion.name: MotionModel(motion, mapping, source=str(bundle.motions))
            for motion in document.motions}


@pytest.mark.parametrize('options', [PlayOptions(), PlayOptions(loops=3),
                                     PlayOptions(reverse=True), PlayOptions(speed=0.5)],
                         ids=['once', 'looped', 'reversed', 'half-speed'])
@pytest.mark.parametrize('bundle', BUNDLES, ids=IDS)
def test_bundled_motion_passes_the_play_checks(bundle, options, urdfs) -> None:
    robot = RobotJoints.from_urdf_text(urdfs[bundle.name])
    models = _models(bundle)
    assert models
    for model in models.values():
        playback = Playback(model, options)
        one_way = np.max(np.abs(model.positions(0.0) - model.positions(model.duration))) > 0
        if options.loops > 1 and one_way:  # pick_and_place.xmdi: looping jumps back to the start
            with pytest.raises(MotionRejected, match='above its velocity limit'):
                check_play(playback, robot)
            continue
        points = check_play(playback, robot)
        assert points[-1].time == pytest.approx(playback.total_time, abs=1e-12)


@pytest.mark.parametrize('bundle', BUNDLES, ids=IDS)
def test_bundled_motion_fits_its_robot_independently(bundle, urdfs) -> None:
    joints = urdf_joints(urdfs[bundle.name])
    for motion in reference_motions(bundle).values():
        assert len(set(motion.joints)) == len(motion.joints), motion.joints
        for track in motion.tracks:
            where = f'{motion.name}: servo {track.servo} -> joint {track.joint}'
            joint = joints.get(track.joint)
            assert joint is not None, f'{where}: no such joint in the URDF'
            assert joint.kind in ('revolute', 'continuous', 'prismatic'), where
            assert joint.mimic is None, f'{where}: a mimic joint cannot be commanded'
            if joint.lower is not None:
                assert joint.lower <= track.values.min() and track.values.max() <= joint.upper, (
                    f'{where}: keys {track.values} outside [{joint.lower}, {joint.upper}]')
            if joint.velocity is not None:
                assert track.max_speed() <= joint.velocity, (
                    f'{where}: {track.max_speed():.3f}/s above {joint.velocity}/s')


@pytest.mark.parametrize('bundle', BUNDLES, ids=IDS)
def test_library_samples_equal_numpy_interp_of_the_key_frames(bundle) -> None:
    models = _models(bundle)
    assert set(models) == set(reference_motions(bundle))
    for name, reference in reference_motions(bundle).items():
        model = models[name]
        assert list(model.joints) == reference.joints
        assert model.duration == pytest.approx(reference.duration, abs=1e-12)
        times = np.linspace(-0.1, reference.duration + 0.1, 301)
        assert np.allclose(model.positions(times), reference.positions(times), atol=1e-12)


# --- the robots against their formats' reference implementations -----------------------------

def _sample_poses(bundle) -> list[dict[str, float]]:
    """Joint values at SAMPLES times of every motion of the bundle (independent reference)."""
    out = []
    for motion in reference_motions(bundle).values():
        for t in np.linspace(0.0, motion.duration, SAMPLES):
            out.append(dict(zip(motion.joints, motion.positions(np.array(t)).tolist())))
    return out


def _run_oracle(script: Path, *args: str) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, f'{script.name} failed:\n{run.stderr[-3000:]}'
    return run


def _assert_same(reference: dict[str, np.ndarray], pinocchio: dict[str, np.ndarray],
                 where: str) -> None:
    assert reference, f'{where}: the reference gave no frames'
    for name, expected in reference.items():
        error = float(np.max(np.abs(np.asarray(expected) - pinocchio[name])))
        assert error <= FK_TOL, f'{where}: {name} differs by {error:.3g}'


def test_hebi_arm_urdf_moves_as_hebi_py_says(urdfs, tmp_path: Path) -> None:
    bundle = BUNDLES[1]
    urdf = urdfs[bundle.name].encode('utf-8')
    dofs = ['base_yaw', 'shoulder', 'elbow', 'wrist']  # HEBI's DoF order: element order
    poses = _sample_poses(bundle)
    jobs = [{'path': str(bundle.robot), 'q': [pose.get(d, 0.0) for d in dofs]} for pose in poses]
    spec = tmp_path / 'jobs.json'
    spec.write_text(json.dumps(jobs))
    run = _run_oracle(ROOT / 'test' / 'formats' / 'hrdf' / 'hebi_oracle.py', str(spec))
    answers = json.loads(run.stdout.strip().splitlines()[-1])
    # HEBI's output frames, in element order: the outputs of every element but the end effector
    outputs = ['base_yaw/output', 'bracket_1/output', 'shoulder/output', 'link_3/output',
               'elbow/output', 'link_5/output', 'wrist/output', 'end_effector_7/output']
    for job, answer in zip(jobs, answers):
        assert answer['ok'] and answer['dof'] == 4, answer
        assert len(answer['frames']['output']) == len(outputs)
        values = urdf_joint_values(urdf, dict(zip(dofs, job['q'])))
        # the URDF's root link is HEBI's world frame
        mine = pinocchio_forward(urdf, values, outputs)
        _assert_same(dict(zip(outputs, answer['frames']['output'])), mine, f'q={job["q"]}')


def test_quadruped_urdf_moves_as_dartpy_says(urdfs, tmp_path: Path) -> None:
    bundle = BUNDLES[2]
    urdf = urdfs[bundle.name].encode('utf-8')
    dofs = [f'quadruped::{leg}_{joint}' for leg in ('fl', 'fr', 'hl', 'hr')
            for joint in ('hip', 'knee')]  # DART's generalized coordinates: joint order
    poses = _sample_poses(bundle)
    positions = [[pose.get(d, 0.0) for d in dofs] for pose in poses]
    script = tmp_path / 'dart_fk.py'
    script.write_text(_DART_FK)
    run = _run_oracle(script, str(bundle.robot), json.dumps(positions))
    answer = json.loads(run.stdout.strip().splitlines()[-1])
    assert answer['dofs'] == [d.split('::')[1] for d in dofs]
    for q, frames in zip(positions, answer['frames']):
        values = urdf_joint_values(urdf, dict(zip(dofs, q)))
        mine = pinocchio_forward(urdf, values, [f'quadruped::{body}' for body in frames])
        _assert_same({f'quadruped::{b}': m for b, m in frames.items()}, mine, f'q={q}')


#: dartpy in a subprocess (DART may crash; never in the test process): the DoF names (a 1-DoF
#: joint's DoF is named as the joint) and every body's world transform at each configuration.
_DART_FK = '''
import json, sys
import dartpy as dart
world = dart.utils.SkelParser.readWorld(sys.argv[1])
skeleton = world.getSkeleton(0)
dofs = [skeleton.getDof(i).getName() for i in range(skeleton.getNumDofs())]
frames = []
for q in json.loads(sys.argv[2]):
    skeleton.setPositions(q)
    frames.append({skeleton.getBodyNode(b).getName():
                   skeleton.getBodyNode(b).getWorldTransform().matrix().tolist()
                   for b in range(skeleton.getNumBodyNodes())})
print(json.dumps({'dofs': dofs, 'frames': frames}))
'''
