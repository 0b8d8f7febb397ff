"""A robot description simulated in MuJoCo with position servos, for ``sim_controller``. No ROS.

The robot arrives as URDF text (``robot_description``, or a file any reader loads, lowered to
URDF by :class:`robot_formats.runtime.description.Description`). :func:`mujoco_urdf` rewrites it for
MuJoCo through the library (never by hand-editing XML): visuals go (the simulator draws
nothing), primitive collisions stay, and a collision mesh becomes the box of its bounds when the
file can be read, or is left out otherwise, so that loading never fails on a missing or
``package://`` mesh. Contacts are disabled: this is a servo simulator for trajectories, not a
collision checker.

MuJoCo's URDF import fuses a fixed root link into the world, turns fixed children into frames
and turns URDF mimic joints into equality constraints, so everything here maps joints **by
name**. Every independent 1-DoF joint gets a position actuator (``kp``, ``kv``, with
``armature`` added so stiff servos stay stable at a 1 ms step), bodies are gravity-compensated
by default (as a real arm's controller does), and :meth:`MujocoRobot.set_exact` offers the exact
kinematic mode: positions written to ``qpos`` + ``mj_forward``.

Bounds, because any peer may publish a description: a text over
:data:`MAX_DESCRIPTION_BYTES`, or a robot with more than :data:`MAX_SIMULATED_JOINTS` moving
joints or :data:`MAX_SIMULATED_LINKS` links, is refused before MuJoCo builds anything (MuJoCo's
cost grows quickly with a chain's length: a 1,000-joint chain takes seconds to build and
about a third of a second per simulated millisecond). A simulation that becomes unstable
(MuJoCo's warnings of a NaN, infinite or huge control, position, velocity or acceleration,
after which MuJoCo resets the state) raises :class:`SimulationUnstable` from the step that
saw it, so a goal cannot "succeed" on a reset robot.
"""

from __future__ import annotations

import math
import threading
from dataclasses import replace
from typing import Callable, Generic, TypeVar

import numpy as np

from robot_formats.core.errors import Diagnostic, FormatError, InvalidValueError
from robot_formats.core.kinematics import KinematicTree
from robot_formats.core.meshes import mesh_bounds, resolve_mesh_path
from robot_formats.core.model import (Box, Capsule, Collision, Cylinder, JointType, Link, Mesh,
                                      Model, Scene, Sphere)
from robot_formats.formats.urdf.reader import parse_urdf_element
from robot_formats.formats.urdf.writer import model_to_urdf
from robot_formats.core.xmlsafe import parse_xml_bytes

__all__ = ['SimulatedJoint', 'MujocoRobot', 'mujoco_urdf', 'robot_from_urdf', 'movable_joints',
           'SimulationUnstable', 'ModelBuilder', 'description_size_problem',
           'MAX_DESCRIPTION_BYTES',
           'MAX_SIMULATED_JOINTS', 'MAX_SIMULATED_LINKS', 'UNLIMITED_RANGE']

_ONE_DOF = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC)
#: Largest robot description (URDF text) simulated.
MAX_DESCRIPTION_BYTES = 16 * 1024 * 1024
#: Most moving (1-DoF) joints simulated: a 200-joint chain builds in under a second and steps
#: at about half of real time on one core (branching robots step much faster).
MAX_SIMULATED_JOINTS = 200
#: Most links simulated (fixed links are cheap: MuJoCo merges them).
MAX_SIMULATED_LINKS = 1000
#: Positions a joint without position limits (continuous, or unlimited) may be sent, in rad or
#: m: keeps a servo's force (kp times the error) within the values MuJoCo represents (1e10). A
#: motion the servos cannot follow stably is reported by MuJoCo (:class:`SimulationUnstable`).
UNLIMITED_RANGE = 1e6


class SimulationUnstable(Exception):
    """MuJoCo found a NaN, infinite or huge value and reset the simulation: the sentence."""


def description_size_problem(text: str) -> str | None:
    """Why a description text is too large to simulate (before anything is parsed), or None."""
    size = len(text.encode('utf-8')) if len(text) * 4 > MAX_DESCRIPTION_BYTES else len(text)
    if size > MAX_DESCRIPTION_BYTES:
        return (f'the description is {size} bytes; sim_controller simulates descriptions of '
                f'at most {MAX_DESCRIPTION_BYTES} bytes')
    return None


def _check_size(scene: Scene, joint_names: list[str], source: str | None) -> None:
    """Refuse a robot too large to simulate, before MuJoCo builds anything."""
    links = sum(len(m.links) for m in scene.models)
    if len(joint_names) > MAX_SIMULATED_JOINTS:
        raise InvalidValueError(f'the robot has {len(joint_names)} moving joints; '
                                f'sim_controller simulates at most {MAX_SIMULATED_JOINTS}', source)
    if links > MAX_SIMULATED_LINKS:
        raise InvalidValueError(f'the robot has {links} links; sim_controller simulates at most '
                                f'{MAX_SIMULATED_LINKS}', source)


def robot_from_urdf(urdf: str, source: str | None = None) -> tuple[Scene, KinematicTree,
                                                                    list[Diagnostic]]:
    """Parse URDF text through the library (xmlsafe + the URDF reader); FormatError if bad."""
    warnings: list[Diagnostic] = []
    root = parse_xml_bytes(urdf.encode('utf-8'), source, warnings, ('robot',))
    scene = parse_urdf_element(root, source, warnings)
    return scene, KinematicTree(scene), warnings


def movable_joints(scene: Scene) -> list[str]:
    """Independent 1-DoF joints (revolute, continuous, prismatic; no mimics), document order."""
    return [j.name for m in scene.models for j in m.joints
            if j.type in _ONE_DOF and j.mimic is None]


def _mesh_box(collision: Collision, warnings: list[Diagnostic]) -> Collision | None:
    """The bounding box of a readable mesh file (scaled), else None with a warning."""
    mesh = collision.geometry
    assert isinstance(mesh, Mesh)
    try:
        bounds = np.asarray(mesh_bounds(str(resolve_mesh_path(mesh.uri))), float)
    except FileNotFoundError as err:  # MeshError too: any unreadable mesh is left out
        warnings.append(Diagnostic(f'collision mesh {mesh.uri} cannot be read here ({err}); '
                                   'left out of the simulation'))
        return None
    scale = np.asarray(mesh.scale, float)
    low, high = bounds[0] * scale, bounds[1] * scale
    size = np.maximum(np.abs(high - low), 1e-4)
    centre = (low + high) / 2.0
    from robot_formats.core.transforms import matrix_to_pose, pose_to_matrix
    offset = np.eye(4)
    offset[:3, 3] = centre
    origin = matrix_to_pose(pose_to_matrix(collision.origin) @ offset)
    x, y, z = (float(v) for v in size)
    return Collision(Box((x, y, z)), origin, collision.name)


def _simulation_link(link: Link, warnings: list[Diagnostic]) -> Link:
    collisions = []
    for collision in link.collisions:
        if isinstance(collision.geometry, (Box, Cylinder, Sphere, Capsule)):
            collisions.append(collision)
        elif isinstance(collision.geometry, Mesh):
            box = _mesh_box(collision, warnings)
            if box is not None:
                collisions.append(box)
    return replace(link, visuals=(), collisions=tuple(collisions))


def mujoco_urdf(scene: Scene, warnings: list[Diagnostic] | None = None,
                tree: KinematicTree | None = None) -> str:
    """URDF text MuJoCo loads whatever meshes the description names (see the module doc).

    Mimic chains (a joint following a joint that follows another) are written as the tree
    resolves them, each joint following the chain's leading joint: MuJoCo then constrains every
    follower to the one actuated joint."""
    warnings = warnings if warnings is not None else []
    tree = tree if tree is not None else KinematicTree(scene)
    model: Model = scene.models[0]
    links = tuple(_simulation_link(link, warnings) for link in model.links)
    joints = tuple(replace(joint, mimic=tree.joints[joint.name].mimic)
                   if joint.mimic is not None else joint for joint in model.joints)
    return model_to_urdf(replace(model, links=links, joints=joints), source=scene.source)


class SimulatedJoint:
    """One model joint in MuJoCo: qpos/qvel addresses and, if independent, its actuator."""

    def __init__(self, name: str, qpos: int, qvel: int, actuator: int | None,
                 wraps: bool, mimic: tuple[str, float, float] | None) -> None:
        self.name = name
        self.qpos = qpos
        self.qvel = qvel
        self.actuator = actuator
        self.wraps = wraps            #: continuous joint: errors are angle differences
        self.mimic = mimic            #: (leader, multiplier, offset)


class MujocoRobot:
    """The simulated robot: targets in, joint positions and body poses out."""

    def __init__(self, urdf: str, source: str | None = None, *, kp: float = 500.0,
                 kv: float | None = None, armature: float = 0.05,
                 gravity_compensation: bool = True, timestep: float = 0.001) -> None:
        import mujoco
        self._mujoco = mujoco
        # MuJoCo's warnings reach us as counters (SimulationUnstable says why); without a
        # handler MuJoCo would also print each and append it to MUJOCO_LOG.TXT in the working
        # directory
        mujoco.set_mju_user_warning(_counted_warning)
        problem = description_size_problem(urdf)
        if problem:
            raise InvalidValueError(problem, source)
        self.scene, self.tree, self.warnings = robot_from_urdf(urdf, source)
        if len(self.scene.models) != 1:
            raise FormatError('the robot description must hold exactly one robot', source)
        self.joint_names = movable_joints(self.scene)
        _check_size(self.scene, self.joint_names, source)
        spec = mujoco.MjSpec.from_string(mujoco_urdf(self.scene, self.warnings, self.tree))
        spec.compiler.boundmass = 1e-3   # links without inertial or geometry still move
        spec.compiler.boundinertia = 1e-6
        spec.option.timestep = float(timestep)
        spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
        spec.option.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
        if gravity_compensation:
            for body in spec.bodies:
                body.gravcomp = 1.0
        damping = kv if kv is not None else 2.0 * math.sqrt(kp * max(armature, 1e-3))
        actuated = set(self.joint_names)
        for joint in spec.joints:
            if joint.name in actuated:
                joint.armature = float(armature)
                actuator = spec.add_actuator()
                actuator.name = f'servo_{joint.name}'
                actuator.target = joint.name
                actuator.trntype = mujoco.mjtTrn.mjTRN_JOINT
                actuator.set_to_position(kp=float(kp), kv=float(damping))
        self.model = spec.compile()
        self.data = mujoco.MjData(self.model)
        self.joints = self._map_joints()
        self.index = {name: i for i, name in enumerate(self.joint_names)}
        self.wraps = np.array([self.joints[n].wraps for n in self.joint_names], bool)
        self.limits = self._position_limits()
        self._watched = tuple(getattr(mujoco.mjtWarning, name) for name in _INSTABILITIES)
        self._warning_counts = self._counts()
        self.time = 0.0
        self.set_exact(self.initial_positions())
        self.set_targets(self.initial_positions())

    # --- structure -------------------------------------------------------------------------
    def _map_joints(self) -> dict[str, SimulatedJoint]:
        model = self.model
        by_name = self.tree.joints  # mimics resolved to the leading joint of their chain
        out: dict[str, SimulatedJoint] = {}
        for jid in range(model.njnt):
            name = model.joint(jid).name
            source = by_name.get(name)
            if source is None or source.type not in _ONE_DOF:
                continue
            actuator = None
            if source.mimic is None:
                aid = self._mujoco.mj_name2id(model, self._mujoco.mjtObj.mjOBJ_ACTUATOR,
                                              f'servo_{name}')
                actuator = aid if aid >= 0 else None
            mimic = ((source.mimic.joint, source.mimic.multiplier, source.mimic.offset)
                     if source.mimic is not None else None)
            out[name] = SimulatedJoint(name, int(model.jnt_qposadr[jid]),
                                       int(model.jnt_dofadr[jid]), actuator,
                                       source.type is JointType.CONTINUOUS, mimic)
        missing = [n for n in self.joint_names if n not in out]
        if missing:
            raise FormatError(f'MuJoCo did not keep the joints {", ".join(missing)}', None)
        return out

    def _position_limits(self) -> dict[str, tuple[float, float]]:
        """(lower, upper) of every moving joint; ±:data:`UNLIMITED_RANGE` where it has none."""
        out = {}
        for name in self.joint_names:
            joint = self.tree.joints[name]
            limit = joint.limits[0] if joint.limits and joint.type is not JointType.CONTINUOUS \
                else None
            lower = limit.lower if limit is not None and limit.lower is not None \
                else -UNLIMITED_RANGE
            upper = limit.upper if limit is not None and limit.upper is not None \
                else UNLIMITED_RANGE
            out[name] = (float(lower), float(upper))
        return out

    def initial_positions(self) -> np.ndarray:
        values = self.tree.initial_positions
        return np.array([float(values.get(n, 0.0)) for n in self.joint_names])

    def body_poses(self) -> dict[str, np.ndarray]:
        """4×4 pose of every MuJoCo body (URDF links that kept a body) in the root link frame."""
        out = {}
        for bid in range(1, self.model.nbody):
            pose = np.eye(4)
            pose[:3, :3] = self.data.xmat[bid].reshape(3, 3)
            pose[:3, 3] = self.data.xpos[bid]
            out[self.model.body(bid).name] = pose
        return out

    # --- state -----------------------------------------------------------------------------
    def positions(self) -> np.ndarray:
        return np.array([self.data.qpos[self.joints[n].qpos] for n in self.joint_names])

    def velocities(self) -> np.ndarray:
        return np.array([self.data.qvel[self.joints[n].qvel] for n in self.joint_names])

    def all_positions(self) -> dict[str, float]:
        """Every simulated 1-DoF joint, mimic joints included (for /joint_states)."""
        return {n: float(self.data.qpos[j.qpos]) for n, j in self.joints.items()}

    def all_velocities(self) -> dict[str, float]:
        return {n: float(self.data.qvel[j.qvel]) for n, j in self.joints.items()}

    # --- commands --------------------------------------------------------------------------
    def set_targets(self, positions: np.ndarray) -> None:
        """Servo set points, in :attr:`joint_names` order."""
        for name, value in zip(self.joint_names, positions):
            actuator = self.joints[name].actuator
            if actuator is not None:
                self.data.ctrl[actuator] = value

    def step_until(self, t: float, max_steps: int = 200) -> None:
        """Advance the servo simulation to time ``t`` (at most ``max_steps`` steps per call)."""
        dt = self.model.opt.timestep
        steps = int((t - self.time) / dt)
        if steps > max_steps:  # too far behind (a stalled process): skip, do not spiral
            self.time = t - max_steps * dt
            steps = max_steps
        for _ in range(max(steps, 0)):
            self._mujoco.mj_step(self.model, self.data)
            self.time += dt
            self._check_stable()

    def _counts(self) -> tuple[int, ...]:
        return tuple(int(self.data.warning[w].number) for w in self._watched)

    def _check_stable(self) -> None:
        """:class:`SimulationUnstable` if MuJoCo warned of a bad value since the last check."""
        counts = self._counts()
        new = [name for name, before, now in zip(_INSTABILITIES.values(),
                                                 self._warning_counts, counts) if now > before]
        self._warning_counts = counts
        if not new and np.isfinite(self.data.qpos).all():
            return
        self._mujoco.mj_resetData(self.model, self.data)  # (MuJoCo already did, unless NaN)
        self._mujoco.mj_forward(self.model, self.data)
        self._warning_counts = self._counts()  # (a reset clears them)
        raise SimulationUnstable(
            f'the simulation became unstable (MuJoCo: {", ".join(new) or "non-finite position"}'
            ') and was reset to the model\'s zero configuration')

    def set_exact(self, positions: np.ndarray, velocities: np.ndarray | None = None) -> None:
        """Kinematic mode: the joints are exactly at ``positions`` (mimic joints follow)."""
        values = dict(zip(self.joint_names, positions))
        for name, value in values.items():
            self.data.qpos[self.joints[name].qpos] = value
        for joint in self.joints.values():
            if joint.mimic is not None and joint.mimic[0] in values:
                leader, multiplier, offset = joint.mimic
                self.data.qpos[joint.qpos] = multiplier * values[leader] + offset
        self.data.qvel[:] = 0.0
        if velocities is not None:
            for name, value in zip(self.joint_names, velocities):
                self.data.qvel[self.joints[name].qvel] = value
        self._mujoco.mj_forward(self.model, self.data)
        self._check_stable()


def _counted_warning(text: str) -> None:
    """MuJoCo's warning handler: nothing to do, the warning is counted in ``MjData.warning``."""


#: MuJoCo's warnings of a value it cannot simulate (after which it resets the state), named.
_INSTABILITIES = {'mjWARN_BADCTRL': 'a NaN, infinite or huge control',
                  'mjWARN_BADQPOS': 'a NaN, infinite or huge position',
                  'mjWARN_BADQVEL': 'a NaN, infinite or huge velocity',
                  'mjWARN_BADQACC': 'a NaN, infinite or huge acceleration'}


#: What a :class:`ModelBuilder` builds.
Built = TypeVar('Built')


class ModelBuilder(Generic[Built]):
    """Builds robots (:class:`MujocoRobot`, or whatever ``build`` makes of a description text)
    on a worker thread, so the thread that asks keeps working meanwhile: MuJoCo releases the
    GIL while it compiles, so a node's executor goes on publishing and answering, and stops when
    asked. Only the latest text waiting is built (a newer one replaces one not yet started);
    the owner collects each outcome, a robot or the exception that refused it, with
    :meth:`take`, and ends the builder with :meth:`close` before it goes away.

    The worker is not a daemon thread: the interpreter's exit waits for a build under way.
    A daemon thread inside MuJoCo (or the Python code around it) while the interpreter
    finalises its modules crashed the process (a segmentation fault after SIGINT). A build is
    bounded (:func:`description_size_problem`, :data:`MAX_SIMULATED_JOINTS`), so the wait is
    too."""

    def __init__(self, build: Callable[[str], Built]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._waiting: str | None = None
        self._outcomes: list[Built | Exception] = []
        self._worker: threading.Thread | None = None
        self._closed = False

    def submit(self, text: str) -> None:
        """Build ``text`` after the build under way (replacing a text still waiting); ignored
        once closed."""
        with self._lock:
            if self._closed:
                return
            self._waiting = text
            if self._worker is not None:
                return
            self._worker = threading.Thread(target=self._run, name='robot_builder')
            self._worker.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                text, self._waiting = self._waiting, None
                if text is None or self._closed:
                    self._worker = None
                    return
            outcome: Built | Exception
            try:
                outcome = self._build(text)
            except Exception as err:  # noqa: BLE001 - handed to the owner, which reports it
                outcome = err
            with self._lock:
                self._outcomes.append(outcome)

    def close(self, timeout: float) -> bool:
        """Build nothing more (a text waiting is dropped) and wait up to ``timeout`` seconds
        for the build under way: True when none is left (the process' exit waits for one
        that is, see above)."""
        with self._lock:
            self._closed = True
            self._waiting = None
            worker = self._worker
        if worker is None:
            return True
        worker.join(timeout)
        return not worker.is_alive()

    def take(self) -> list[Built | Exception]:
        """The outcomes since the last call, oldest first."""
        with self._lock:
            outcomes, self._outcomes = self._outcomes, []
        return outcomes

