"""Shared helpers for the core tests: references that are NOT robot_formats' own code.

* SE(3) math written here from closed forms (Rodrigues, quaternion -> matrix), never
  ``robot_formats.core.transforms``;
* urdfdom's ``check_urdf`` (from the test venv) and pinocchio's URDF forward kinematics;
* a random model generator covering every joint kind.

pinocchio and check_urdf are test requirements (``make test`` installs them): a missing one is a
failure, never a skip.
"""

from __future__ import annotations

import ast
import configparser
import functools
import math
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from shared_data import shared

from robot_formats.core.model import (Frame, Joint, JointType, Limits, Link, Mimic, Model, Pose,
                                      Scene, dof_names)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / 'test' / 'fixtures'
CORPUS = shared('corpus', 'sdformat')

TOL = 1e-9


# --- independent SE(3) ------------------------------------------------------------------------

def skew(v) -> np.ndarray:
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def rot(axis, angle: float) -> np.ndarray:
    """Rodrigues: R = I + sin(a) K + (1 - cos(a)) K^2 with K = [unit axis]x."""
    axis = np.asarray(axis, dtype=float)
    k = skew(axis / np.linalg.norm(axis))
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


def rotvec(v) -> np.ndarray:
    """SO(3) exponential of a rotation vector."""
    v = np.asarray(v, dtype=float)
    angle = float(np.linalg.norm(v))
    return np.eye(3) if angle == 0.0 else rot(v, angle)


def quat_matrix(quat) -> np.ndarray:
    """Rotation of a unit quaternion (x, y, z, w) via R = I + 2w[v]x + 2[v]x^2."""
    x, y, z, w = np.asarray(quat, dtype=float) / np.linalg.norm(quat)
    k = skew((x, y, z))
    return np.eye(3) + 2.0 * w * k + 2.0 * (k @ k)


def hom(rotation=None, translation=None) -> np.ndarray:
    out = np.eye(4)
    if rotation is not None:
        out[:3, :3] = rotation
    if translation is not None:
        out[:3, 3] = translation
    return out


def pose_h(pose: Pose) -> np.ndarray:
    return hom(quat_matrix(pose.quat), pose.xyz)


def rpy_matrix(rpy) -> np.ndarray:
    r, p, y = rpy
    return rot((0, 0, 1), y) @ rot((0, 1, 0), p) @ rot((1, 0, 0), r)


def inv(h: np.ndarray) -> np.ndarray:
    return hom(h[:3, :3].T, -h[:3, :3].T @ h[:3, 3])


def max_error(a: dict, b: dict, names) -> tuple[float, str]:
    """Largest element-wise difference of two pose dicts over ``names``, and where."""
    worst, where = 0.0, ''
    for name in names:
        err = float(np.max(np.abs(np.asarray(a[name]) - np.asarray(b[name]))))
        if err > worst:
            worst, where = err, name
    return worst, where


# --- urdfdom ------------------------------------------------------------------------------------

def check_urdf_exe() -> str:
    """urdfdom's check_urdf from the test venv (next to this interpreter), else PATH."""
    local = Path(sys.executable).parent / 'check_urdf'
    if local.exists():
        return str(local)
    found = shutil.which('check_urdf')
    assert found, ('check_urdf (urdfdom, installed with the test dependency pin) is missing: '
                   'run `make test` / tools/setup_env.sh --test')
    return found


def check_urdf(path: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([check_urdf_exe(), str(path)], capture_output=True, text=True,
                          errors='replace', timeout=60)  # it prints names as their bytes


@functools.lru_cache(maxsize=None)
def corpus_check_urdf_ok(path: Path) -> bool:
    """check_urdf's verdict on a (read-only) corpus file, run once per session."""
    return check_urdf(path).returncode == 0


def assert_check_urdf(text: str, tmp_path: Path, name: str = 'out.urdf') -> None:
    path = tmp_path / name
    path.write_text(text, encoding='utf-8')
    result = check_urdf(path)
    assert result.returncode == 0, (
        f'check_urdf rejected {path} (exit {result.returncode}):\n{result.stdout}\n'
        f'{result.stderr}\n--- document ---\n{text}')


# --- pinocchio ----------------------------------------------------------------------------------

def urdf_joint_values(urdf_bytes: bytes, dofs: dict[str, float]) -> dict[str, object]:
    """Coordinates of every movable URDF joint from DoF values, by the URDF's own rules.

    1-DoF joints take ``dofs[name]``; mimic joints follow ``multiplier * leader + offset`` as
    written in the document (parsed here, not by robot_formats); floating joints take
    ``(rotation vector, translation)`` from ``name/rot_*`` and ``name/pos_*``; planar joints
    ``(x, y, angle)`` from ``name/trans1``, ``name/trans2``, ``name/rot``.
    """
    root = ET.fromstring(urdf_bytes)
    elements = {j.get('name'): j for j in root.findall('joint')}
    values: dict[str, object] = {}

    def value(name: str, depth: int = 0):
        assert depth < 50, f'mimic chain through {name!r} does not end'
        if name in values:
            return values[name]
        element = elements[name]
        kind = element.get('type')
        mimic = element.find('mimic')
        if mimic is not None:
            lead = value(mimic.get('joint'), depth + 1)
            out = float(mimic.get('multiplier', 1.0)) * lead + float(mimic.get('offset', 0.0))
        elif kind == 'floating':
            rotation = [dofs[f'{name}/rot_{c}'] for c in 'xyz']
            position = [dofs.get(f'{name}/pos_{c}', 0.0) for c in 'xyz']
            out = (np.array(rotation), np.array(position))
        elif kind == 'planar':
            out = (dofs[f'{name}/trans1'], dofs[f'{name}/trans2'], dofs[f'{name}/rot'])
        else:
            out = dofs[name]
        values[name] = out
        return out

    for name, element in elements.items():
        if element.get('type') != 'fixed':
            value(name)
    return values


def pinocchio_forward(urdf: str | Path | bytes, joint_values: dict[str, object],
                      frames) -> dict[str, np.ndarray]:
    """Poses of URDF links ``frames`` (root-link frame) by pinocchio, for URDF joint values.

    ``urdf`` is a path or the document's bytes/text. Every movable joint must have a value.
    """
    import pinocchio as pin

    if isinstance(urdf, Path):
        model = pin.buildModelFromUrdf(str(urdf))
    else:
        text = urdf.decode('utf-8') if isinstance(urdf, bytes) else urdf
        model = pin.buildModelFromXML(text)
    data = model.createData()
    q = pin.neutral(model)
    for jid in range(1, model.njoints):
        name = model.names[jid]
        joint = model.joints[jid]
        assert name in joint_values, f'no value for pinocchio joint {name!r}'
        v = joint_values[name]
        i, nq, kind = joint.idx_q, joint.nq, joint.shortname()
        if kind == 'JointModelFreeFlyer':
            rotation, position = v
            q[i:i + 3] = position
            q[i + 3:i + 7] = pin.Quaternion(pin.exp3(np.asarray(rotation, float))).coeffs()
        elif kind == 'JointModelPlanar':
            x, y, angle = v
            q[i:i + 4] = (x, y, math.cos(angle), math.sin(angle))
        elif nq == 2:  # continuous: (cos, sin)
            q[i:i + 2] = (math.cos(v), math.sin(v))
        else:
            assert nq == 1, f'unexpected pinocchio joint {kind} ({name})'
            q[i] = v
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    out = {}
    for name in frames:
        assert model.existFrame(name, pin.FrameType.BODY), f'pinocchio has no link {name!r}'
        out[name] = np.array(data.oMf[model.getFrameId(name, pin.FrameType.BODY)].homogeneous)
    return out


# --- random models ------------------------------------------------------------------------------

ONE_DOF_CHAIN_KINDS = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC,
                       JointType.SCREW, JointType.UNIVERSAL, JointType.EULER,
                       JointType.TRANSLATIONAL, JointType.PLANAR)
ALL_KINDS = (JointType.FIXED, *ONE_DOF_CHAIN_KINDS, JointType.BALL, JointType.FLOATING)


def random_quat(rng) -> tuple[float, float, float, float]:
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    return tuple(float(v) for v in q)  # type: ignore[return-value]


def random_pose(rng, scale: float = 1.0) -> Pose:
    return Pose(tuple(float(v) for v in rng.uniform(-scale, scale, 3)), random_quat(rng))


def random_axis(rng) -> tuple[float, float, float]:
    """Non-unit on purpose: the library must normalise."""
    v = rng.normal(size=3)
    v *= rng.uniform(0.3, 3.0) / np.linalg.norm(v)
    return tuple(float(x) for x in v)  # type: ignore[return-value]


def random_child_offset(rng, joint_kind: JointType, axis) -> Pose:
    """Non-identity X_CJ of several shapes, so both the folding and helper-frame paths run."""
    shape = rng.integers(4)
    if shape == 0:  # pure rotation (foldable for revolute joints)
        return Pose((0.0, 0.0, 0.0), random_quat(rng))
    if shape == 1:  # translation along the axis (joint axis passes through the child origin)
        a = np.asarray(axis) / np.linalg.norm(axis)
        return Pose(tuple(float(v) for v in a * rng.uniform(-1, 1)), (0.0, 0.0, 0.0, 1.0))
    return random_pose(rng)  # general


def random_joint(rng, kind: JointType, name: str, parent: str, child: str) -> Joint:
    axis = random_axis(rng)
    axis2 = None
    limits: tuple[Limits, ...] = ()
    axis_order = 'xyz'
    pitch = 0.0
    if kind in (JointType.UNIVERSAL, JointType.PLANAR):
        axis2 = random_axis(rng)
    if kind is JointType.EULER:
        axis_order = str(rng.choice(['xyz', 'zyx']))
    if kind is JointType.SCREW:
        pitch = float(rng.uniform(-0.5, 0.5))
    if kind in (JointType.REVOLUTE, JointType.PRISMATIC) and rng.random() < 0.7:
        lower = float(rng.uniform(-3, 0))
        limits = (Limits(lower, lower + float(rng.uniform(0.1, 3)), 10.0, 2.0),)
    return Joint(name, kind, parent, child, random_pose(rng), axis, axis2,
                 random_child_offset(rng, kind, axis), limits, axis_order=axis_order,
                 pitch=pitch)


def random_model(rng, kinds, n_links: int = 8, n_frames: int = 2, mimics: int = 1,
                 name: str = 'gen') -> Model:
    """A random tree: every kind in ``kinds`` at least once, joints in shuffled order."""
    links = [Link(f'link{i}') for i in range(n_links)]
    picked = list(kinds) + [kinds[int(rng.integers(len(kinds)))]
                            for _ in range(max(0, n_links - 1 - len(kinds)))]
    joints = []
    for i in range(1, n_links):
        kind = picked[(i - 1) % len(picked)]
        parent = links[int(rng.integers(i))].name
        joints.append(random_joint(rng, kind, f'j{i}_{kind.value}', parent, links[i].name))
    # Mimic followers: 1-DoF revolute/prismatic joints following an earlier 1-DoF joint.
    leaders = [j for j in joints if j.type in (JointType.REVOLUTE, JointType.CONTINUOUS,
                                                JointType.PRISMATIC, JointType.SCREW)]
    for m in range(mimics if leaders else 0):
        lead = leaders[int(rng.integers(len(leaders)))]
        child = Link(f'mimic_link{m}')
        links.append(child)
        kind = JointType.REVOLUTE if rng.random() < 0.5 else JointType.PRISMATIC
        follower = random_joint(rng, kind, f'mimic{m}', lead.child, child.name)
        joints.append(Joint(follower.name, kind, follower.parent, child.name, follower.origin,
                            follower.axis, child_offset=follower.child_offset,
                            limits=follower.limits,
                            mimic=Mimic(lead.name, float(rng.uniform(-2, 2)),
                                        float(rng.uniform(-0.5, 0.5)))))
    frames = []
    for f in range(n_frames):
        targets = [link.name for link in links] + [fr.name for fr in frames]
        frames.append(Frame(f'frame{f}', targets[int(rng.integers(len(targets)))],
                            random_pose(rng)))
    order = rng.permutation(len(joints))
    return Model(name, tuple(links), tuple(joints[i] for i in order), tuple(frames))


def random_scene(rng, kinds, **kw) -> Scene:
    model = random_model(rng, kinds, **kw)
    return Scene(model.name, (model,), is_world=False)


def chain_urdf(joints: int) -> str:
    """URDF text of a serial chain of ``joints`` revolute joints (limits +-1 rad, 1 cm apart):
    the largest robots a tool must bound (a 10,000-joint chain is the attack of issue 27)."""
    parts = ['<robot name="chain">', '<link name="l0"/>']
    for i in range(1, joints + 1):
        parts.append(f'<link name="l{i}"/><joint name="j{i}" type="revolute"><parent '
                     f'link="l{i - 1}"/><child link="l{i}"/><origin xyz="0 0 0.01"/><axis '
                     'xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>')
    return ''.join(parts) + '</robot>'


def random_positions(rng, names) -> dict[str, float]:
    return {name: float(rng.uniform(-math.pi, math.pi)) for name in names}


def all_dof_names(joints) -> list[str]:
    return [n for j in joints for n in dof_names(j)]


# --- CLI ----------------------------------------------------------------------------------------

def run_cli(*args, timeout: float = 60, env_extra: dict | None = None,
            python_code: str | None = None) -> subprocess.CompletedProcess:
    """``python -m robot_formats.cli ARGS`` with this interpreter and the working tree."""
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join([str(ROOT), env.get('PYTHONPATH', '')]).rstrip(os.pathsep)
    env.pop('ROBOT_FORMATS_DEBUG', None)
    env.update(env_extra or {})
    command = [sys.executable, '-m', 'robot_formats.cli', *map(str, args)]
    if python_code is not None:
        command = [sys.executable, '-c', python_code, *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          cwd=str(ROOT), env=env, stdin=subprocess.DEVNULL)


def absolute_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import of a Python file, wherever it is (inside a
    function too): what the file can load."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def console_scripts() -> dict[str, str]:
    """The package's console scripts, from setup.py's ``entry_points`` and setup.cfg's
    ``[options.entry_points]``: name -> ``module:function``."""
    lines: list[str] = []
    for call in ast.walk(ast.parse((ROOT / 'setup.py').read_text(encoding='utf-8'))):
        if isinstance(call, ast.Call) and getattr(call.func, 'id', None) == 'setup':
            for keyword in call.keywords:
                if keyword.arg == 'entry_points':
                    lines += ast.literal_eval(keyword.value).get('console_scripts', [])
    config = configparser.ConfigParser()
    config.read(ROOT / 'setup.cfg')
    if config.has_option('options.entry_points', 'console_scripts'):
        lines += config.get('options.entry_points', 'console_scripts').strip().splitlines()
    scripts = dict(line.split('=', 1) for line in lines)
    assert scripts, 'setup.py and setup.cfg declare no console scripts'
    return {name.strip(): target.strip() for name, target in scripts.items()}
