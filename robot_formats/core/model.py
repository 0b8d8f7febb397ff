"""The format-neutral kinematic model every reader produces and every writer and node consumes.

A :class:`Scene` holds one or more :class:`Model` s, world-level frames and joints. A model is a
flat set of links, joints and explicit frames whose names are local to the model (a nested
model's members are already scoped, e.g. ``arm::link1``). Poses are stored as translation +
unit quaternion ``(x, y, z, w)``; matrices are built in :mod:`robot_formats.core.transforms`.

Joint convention (shared with DART, whose .skel files need the general form):

``X_PC(q) = X_PJ · M(q) · X_CJ⁻¹``

where ``X_PJ`` (:attr:`Joint.origin`) places the joint frame in the parent link frame at q = 0,
``M(q)`` is the joint motion of its kind (:data:`DOF_SUFFIXES` gives the coordinates), and
``X_CJ`` (:attr:`Joint.child_offset`) places the joint frame in the child link frame (identity
in URDF, where the child frame is the joint frame). Axes are expressed in the joint frame.

All classes are frozen, slotted dataclasses holding tuples, so a loaded model can be shared
between threads (the description publisher swaps models atomically on reload).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Mapping, Union

from robot_formats.core.rotations import quat_to_rpy, rpy_to_quat

__all__ = [
    'Vec3', 'Pose', 'IDENTITY', 'Box', 'Cylinder', 'Sphere', 'Ellipsoid', 'Capsule', 'Cone',
    'Plane', 'Mesh', 'Geometry', 'Material', 'Visual', 'Collision', 'Inertial', 'Link',
    'JointType', 'Limits', 'Dynamics', 'Mimic', 'Joint', 'Frame', 'Model', 'Scene',
    'DOF_SUFFIXES', 'dof_count', 'dof_names', 'WORLD', 'SoftBody', 'DofDynamics', 'ACTUATORS',
    'vec3', 'Inertia6', 'rpy_to_quat', 'scoped',
]

Vec3 = tuple[float, float, float]
#: A symmetric inertia matrix's entries: ixx, ixy, ixz, iyy, iyz, izz.
Inertia6 = tuple[float, float, float, float, float, float]


def vec3(values) -> Vec3:
    """Three plain floats from any sequence of three numbers (a tuple, a numpy array)."""
    return (float(values[0]), float(values[1]), float(values[2]))

#: Name of the scene root frame, and the parent name joints use to attach to it.
WORLD = 'world'


def scoped(prefix: str, name: str) -> str:
    """``prefix::name``, or ``name`` when there is no prefix; ``world`` is never scoped."""
    if not prefix or name == WORLD:
        return name
    return f'{prefix}::{name}'


@dataclass(frozen=True, slots=True)
class Pose:
    """A rigid transform: translation ``xyz`` and unit quaternion ``quat`` = (x, y, z, w)."""

    xyz: Vec3 = (0.0, 0.0, 0.0)
    quat: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)

    @classmethod
    def from_xyz_rpy(cls, xyz: tuple[float, ...] = (0.0, 0.0, 0.0),
                     rpy: tuple[float, ...] = (0.0, 0.0, 0.0)) -> Pose:
        """URDF/SDF convention: fixed-axis roll about X, then pitch about Y, then yaw about Z."""
        if not any(rpy):
            return cls((float(xyz[0]), float(xyz[1]), float(xyz[2])))
        roll, pitch, yaw = rpy
        return cls((float(xyz[0]), float(xyz[1]), float(xyz[2])), rpy_to_quat(roll, pitch, yaw))

    @property
    def is_identity(self) -> bool:
        return (max(abs(v) for v in self.xyz) < 1e-12
                and abs(abs(self.quat[3]) - 1.0) < 1e-12)

    def rpy(self) -> Vec3:
        """Roll, pitch, yaw (URDF convention) of the rotation, exact near gimbal lock too."""
        if self.quat == (0.0, 0.0, 0.0, 1.0):
            return (0.0, 0.0, 0.0)
        return quat_to_rpy(self.quat)


IDENTITY = Pose()


# --- geometry -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Box:
    size: Vec3


@dataclass(frozen=True, slots=True)
class Cylinder:
    """Axis along local Z, centred at the origin."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True)
class Sphere:
    radius: float


@dataclass(frozen=True, slots=True)
class Ellipsoid:
    radii: Vec3


@dataclass(frozen=True, slots=True)
class Capsule:
    """Cylinder of ``length`` along Z capped by two hemispheres of ``radius``."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True)
class Cone:
    """Base of ``radius`` at z = -length/2, apex at z = +length/2."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True)
class Plane:
    normal: Vec3 = (0.0, 0.0, 1.0)
    size: tuple[float, float] = (0.0, 0.0)  # 0 = infinite


@dataclass(frozen=True, slots=True)
class Mesh:
    """A mesh file. ``uri`` is as resolved by the reader: ``file:///abs``, ``package://``, ..."""

    uri: str
    scale: Vec3 = (1.0, 1.0, 1.0)


Geometry = Union[Box, Cylinder, Sphere, Ellipsoid, Capsule, Cone, Plane, Mesh]


@dataclass(frozen=True, slots=True)
class Material:
    name: str | None = None
    rgba: tuple[float, float, float, float] | None = None
    texture: str | None = None


@dataclass(frozen=True, slots=True)
class Visual:
    geometry: Geometry
    origin: Pose = IDENTITY
    name: str | None = None
    material: Material | None = None


@dataclass(frozen=True, slots=True)
class Collision:
    geometry: Geometry
    origin: Pose = IDENTITY
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Inertial:
    """Mass properties. ``origin`` is the centre-of-mass frame in the link frame; ``inertia`` is
    (ixx, ixy, ixz, iyy, iyz, izz) about the centre of mass, in that frame."""

    mass: float
    origin: Pose = IDENTITY
    inertia: tuple[float, float, float, float, float, float] = (0.0,) * 6


@dataclass(frozen=True, slots=True)
class SoftBody:
    """A deformable skin on a link (DART's ``<soft_shape>``): ``total_mass`` spread over point
    masses on the surface of ``geometry`` (placed at ``origin`` in the link frame), held by
    springs to their rest positions (``vertex_stiffness``, DART's kv) and to their neighbours
    (``edge_stiffness``, ke), with ``damping`` (damp). ``resolution`` is the surface mesh
    density as written: box ``frags`` (x, y, z); ellipsoid/sphere (slices, stacks); cylinder
    (slices, stacks, rings). None: not stated (the simulator's default applies). Kinematics
    ignore it; it is kept so nothing the file says is lost."""

    geometry: Geometry
    origin: Pose = IDENTITY
    total_mass: float = 0.0
    vertex_stiffness: float | None = None
    edge_stiffness: float | None = None
    damping: float | None = None
    resolution: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Link:
    """A rigid body. ``gravity`` False: gravity does not act on it (DART/SDFormat body flag);
    ``self_collide`` as the source states it (None: not stated); ``soft``: a deformable skin."""

    name: str
    inertial: Inertial | None = None
    visuals: tuple[Visual, ...] = ()
    collisions: tuple[Collision, ...] = ()
    line: int | None = None
    gravity: bool = True
    self_collide: bool | None = None
    soft: SoftBody | None = None


# --- joints ---------------------------------------------------------------------------------------

class JointType(enum.Enum):
    """Joint kinds and their motion ``M(q)`` (axes in the joint frame)."""

    FIXED = 'fixed'                  #: no motion
    REVOLUTE = 'revolute'            #: Rot(axis, q), limited
    CONTINUOUS = 'continuous'        #: Rot(axis, q), unlimited
    PRISMATIC = 'prismatic'          #: Trans(axis · q)
    SCREW = 'screw'                  #: Rot(axis, q) · Trans(axis · pitch · q / 2π)
    UNIVERSAL = 'universal'          #: Rot(axis, q0) · Rot(axis2, q1)
    EULER = 'euler'                  #: Rot(e0, q0) · Rot(e1, q1) · Rot(e2, q2), e from axis_order
    BALL = 'ball'                    #: exp([q0 q1 q2]×): q is a rotation vector
    TRANSLATIONAL = 'translational'  #: Trans(q0, q1, q2)
    PLANAR = 'planar'                #: Trans(q0·axis + q1·axis2) · Rot(axis × axis2, q2)
    FLOATING = 'floating'            #: (exp([q0 q1 q2]×), (q3, q4, q5)): rotation vector, then
    #: translation in the joint frame (DART's FreeJoint convention)

    #: A kind hashes as the one object it is (members are singletons, compared by identity):
    #: every joint looks its kind up (:data:`DOF_SUFFIXES`, the formats' tables), and Enum's
    #: own hash, of the member's name, is a Python call each time.
    __hash__ = object.__hash__


#: Coordinate names of each kind, in order; a multi-DoF joint ``j`` has DoFs ``j/<suffix>``.
DOF_SUFFIXES: Mapping[JointType, tuple[str, ...]] = {
    JointType.FIXED: (),
    JointType.REVOLUTE: ('',),
    JointType.CONTINUOUS: ('',),
    JointType.PRISMATIC: ('',),
    JointType.SCREW: ('',),
    JointType.UNIVERSAL: ('axis1', 'axis2'),
    JointType.EULER: ('0', '1', '2'),  # replaced by the axis letters, see dof_names()
    JointType.BALL: ('rot_x', 'rot_y', 'rot_z'),
    JointType.TRANSLATIONAL: ('x', 'y', 'z'),
    JointType.PLANAR: ('trans1', 'trans2', 'rot'),
    JointType.FLOATING: ('rot_x', 'rot_y', 'rot_z', 'pos_x', 'pos_y', 'pos_z'),
}


#: Read for every joint :func:`dof_names` names (a module constant is read quicker than an Enum
#: member through its class).
_EULER = JointType.EULER


@dataclass(frozen=True, slots=True)
class Limits:
    """Limits of one degree of freedom; None = unlimited."""

    lower: float | None = None
    upper: float | None = None
    effort: float | None = None
    velocity: float | None = None


@dataclass(frozen=True, slots=True)
class Dynamics:
    damping: float = 0.0
    friction: float = 0.0


@dataclass(frozen=True, slots=True)
class DofDynamics:
    """Simulation parameters of one coordinate beyond URDF's joint-wide ``<dynamics>``/
    ``<limit>`` (DART states them per DoF): viscous ``damping``, Coulomb ``friction``, a spring
    (``spring_stiffness`` towards ``rest_position``), and lower/upper bounds of velocity,
    acceleration and force (None = unbounded). Kinematics ignore them."""

    damping: float = 0.0
    friction: float = 0.0
    spring_stiffness: float = 0.0
    rest_position: float = 0.0
    velocity_limits: tuple[float | None, float | None] = (None, None)
    acceleration_limits: tuple[float | None, float | None] = (None, None)
    force_limits: tuple[float | None, float | None] = (None, None)


#: How a joint is driven (DART's actuator types): ``force`` (commanded effort, DART's default),
#: ``passive`` (not actuated), ``servo`` (velocity command within the force limits),
#: ``acceleration`` and ``velocity`` (prescribed motion), ``locked`` (held still).
ACTUATORS = ('force', 'passive', 'servo', 'acceleration', 'velocity', 'locked')


@dataclass(frozen=True, slots=True)
class Mimic:
    """This 1-DoF joint follows ``joint``: q = multiplier · q_joint + offset."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0

    def scoped(self, prefix: str) -> Mimic:
        """The same mimic with the followed joint named in scope ``prefix`` (:func:`scoped`)."""
        return Mimic(scoped(prefix, self.joint), self.multiplier, self.offset)


@dataclass(frozen=True, slots=True)
class Joint:
    name: str
    type: JointType
    parent: str
    child: str
    origin: Pose = IDENTITY           #: X_PJ: joint frame in the parent link frame at q = 0
    axis: Vec3 = (1.0, 0.0, 0.0)      #: first axis, in the joint frame
    axis2: Vec3 | None = None         #: universal: second axis; planar: second translation axis
    child_offset: Pose = IDENTITY     #: X_CJ: joint frame in the child link frame
    limits: tuple[Limits, ...] = ()   #: one per DoF, or empty for none
    dynamics: Dynamics | None = None
    mimic: Mimic | None = None
    axis_order: str = 'xyz'           #: euler joints: rotation axes in order
    pitch: float = 0.0                #: screw joints: translation per full turn
    line: int | None = None
    actuator: str | None = None       #: one of :data:`ACTUATORS`; None: not stated
    dof_dynamics: tuple[DofDynamics, ...] = ()  #: one per DoF, or empty for none stated

    @property
    def dof_count(self) -> int:
        """Independent coordinates (0 for fixed and mimic joints)."""
        return 0 if self.mimic is not None else len(DOF_SUFFIXES[self.type])

    def scoped(self, prefix: str) -> Joint:
        """The same joint with its name, its links and the joint it mimics named in scope
        ``prefix`` (:func:`scoped`). Every field is passed, by position (a call by keyword or
        :func:`dataclasses.replace` costs more; a world renames thousands of joints)."""
        mimic = self.mimic
        return Joint(scoped(prefix, self.name), self.type, scoped(prefix, self.parent),
                     scoped(prefix, self.child), self.origin, self.axis, self.axis2,
                     self.child_offset, self.limits, self.dynamics,
                     None if mimic is None else mimic.scoped(prefix), self.axis_order,
                     self.pitch, self.line, self.actuator, self.dof_dynamics)


def dof_count(joint: Joint) -> int:
    """Independent coordinates of a joint (0 for fixed and mimic joints)."""
    return joint.dof_count


def dof_names(joint: Joint) -> tuple[str, ...]:
    """Names of the joint's coordinates: the joint name for 1-DoF kinds, else ``joint/suffix``.

    Mimic joints have none (they follow another joint). Euler joints use their axis letters in
    order, e.g. ``hip/z``, ``hip/y``, ``hip/x`` for axis_order ``zyx``; when a letter repeats
    (proper Euler angles, e.g. ``zxz``) each gets its index: ``hip/z0``, ``hip/x1``, ``hip/z2``.
    """
    if joint.mimic is not None:
        return ()
    kind = joint.type
    if kind is _EULER:
        letters = joint.axis_order
        if len(set(letters)) == len(letters):
            return tuple([f'{joint.name}/{letter}' for letter in letters])
        return tuple([f'{joint.name}/{letter}{i}' for i, letter in enumerate(letters)])
    suffixes = DOF_SUFFIXES[kind]
    if not suffixes:  # a fixed joint
        return ()
    if suffixes == ('',):
        return (joint.name,)
    return tuple([f'{joint.name}/{suffix}' for suffix in suffixes])


# --- frames, models, scenes -----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Frame:
    """An explicit frame fixed to a link or another frame (``attached_to``) at ``pose``."""

    name: str
    attached_to: str
    pose: Pose = IDENTITY
    line: int | None = None

    def scoped(self, prefix: str) -> Frame:
        """The same frame with its name and the frame it is attached to named in scope
        ``prefix`` (:func:`scoped`); every field is passed, by position, as in
        :meth:`Joint.scoped`."""
        return Frame(scoped(prefix, self.name), scoped(prefix, self.attached_to), self.pose,
                     self.line)


@dataclass(frozen=True, slots=True)
class Model:
    """A kinematic tree. Member names are local to the model (nested members already scoped).

    ``pose`` places the model in its scene (ignored for single-model documents that are not
    worlds, e.g. URDF). Joints may name ``world`` as parent to attach to the scene root.
    ``initial_positions`` and ``initial_velocities`` map DoF names (see :func:`dof_names`) to
    values (a DoF not mentioned starts at 0).
    """

    name: str
    links: tuple[Link, ...] = ()
    joints: tuple[Joint, ...] = ()
    frames: tuple[Frame, ...] = ()
    pose: Pose = IDENTITY
    static: bool = False
    initial_positions: Mapping[str, float] = field(default_factory=dict)
    materials: Mapping[str, Material] = field(default_factory=dict)
    source: str | None = None
    initial_velocities: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Scene:
    """What a document describes: one or more models, plus world frames and joints.

    ``is_world`` decides the frame naming: a world (SDFormat world or model file, SKEL world)
    has the root frame ``world`` and scopes members as ``model::member``; a plain robot
    document (URDF) has a single model whose root link is the root and whose names are bare.
    World-level ``frames`` and ``joints`` use scoped names (``model::link``) or ``world``.
    """

    name: str
    models: tuple[Model, ...]
    frames: tuple[Frame, ...] = ()
    joints: tuple[Joint, ...] = ()
    is_world: bool = False
    physics: Mapping[str, object] = field(default_factory=dict)
    source: str | None = None
