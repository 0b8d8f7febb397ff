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

import dataclasses
import enum
import math
import types
from dataclasses import MISSING, dataclass, field, fields
from typing import Mapping, Union

from robot_formats.core.rotations import quat_to_rpy

__all__ = [
    'Vec3', 'Pose', 'IDENTITY', 'Box', 'Cylinder', 'Sphere', 'Ellipsoid', 'Capsule', 'Cone',
    'Plane', 'Mesh', 'Geometry', 'Material', 'Visual', 'Collision', 'Inertial', 'Link',
    'JointType', 'Limits', 'Dynamics', 'Mimic', 'Joint', 'Frame', 'Model', 'Scene',
    'DOF_SUFFIXES', 'dof_count', 'dof_names', 'WORLD', 'SoftBody', 'DofDynamics', 'ACTUATORS',
    'vec3', 'Inertia6', 'rpy_to_quat',
]

Vec3 = tuple[float, float, float]
#: A symmetric inertia matrix's entries: ixx, ixy, ixz, iyy, iyz, izz.
Inertia6 = tuple[float, float, float, float, float, float]


def vec3(values) -> Vec3:
    """Three plain floats from any sequence of three numbers (a tuple, a numpy array)."""
    return (float(values[0]), float(values[1]), float(values[2]))

def rpy_to_quat(roll: float, pitch: float, yaw: float) -> tuple[float, float, float, float]:
    """The unit quaternion (x, y, z, w) of fixed-axis roll about X, then pitch about Y, then
    yaw about Z (the URDF/SDFormat convention; :meth:`Pose.from_xyz_rpy`'s rotation)."""
    roll, pitch, yaw = roll * 0.5, pitch * 0.5, yaw * 0.5
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return (sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
            cr * cp * cy + sr * sp * sy)


#: Name of the scene root frame, and the parent name joints use to attach to it.
WORLD = 'world'


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
        if self.mimic is not None:
            return 0
        try:  # by the kind's value: an Enum member's __hash__ is Python code
            return len(_SUFFIXES_BY_VALUE[self.type._value_])
        except (AttributeError, KeyError):
            return len(DOF_SUFFIXES[self.type])


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
    try:  # by the kind's value: an Enum member's __hash__ is Python code
        names = _NAMES_BY_VALUE[kind._value_]
    except (AttributeError, KeyError):
        names = None
    if names is not None and kind is not _EULER:
        if names is _OWN_NAME:
            return (joint.name,)
        if not names:
            return ()
        prefix = joint.name
        return tuple([prefix + suffix for suffix in names])
    if kind is JointType.EULER:
        letters = joint.axis_order
        ends = _EULER_ENDS.get(letters) if letters.__class__ is str else None
        if ends is None:
            if len(set(letters)) == len(letters):
                ends = tuple(f'/{letter}' for letter in letters)
            else:
                ends = tuple(f'/{letter}{i}' for i, letter in enumerate(letters))
            if letters.__class__ is str and len(_EULER_ENDS) < 64:
                _EULER_ENDS[letters] = ends
        prefix = joint.name
        return tuple([prefix + end for end in ends])
    suffixes = DOF_SUFFIXES[joint.type]
    if suffixes == ('',):
        return (joint.name,)
    return tuple(f'{joint.name}/{suffix}' for suffix in suffixes)


#: :data:`DOF_SUFFIXES` by the kind's value (``JointType.X._value_``, a plain string key).
_SUFFIXES_BY_VALUE: dict[str, tuple[str, ...]] = {
    kind._value_: suffixes for kind, suffixes in DOF_SUFFIXES.items()}
_OWN_NAME: tuple[str, ...] = ('',)
#: What :func:`dof_names` appends to a joint's name, by the kind's value: (``''``,) for a
#: kind whose one coordinate is the joint's name (this very tuple), ``/suffix`` otherwise.
_NAMES_BY_VALUE: dict[str, tuple[str, ...]] = {
    value: _OWN_NAME if suffixes == ('',) else tuple('/' + suffix for suffix in suffixes)
    for value, suffixes in _SUFFIXES_BY_VALUE.items()}
_EULER = JointType.EULER
#: An Euler joint's name endings by axis order (``'zyx'`` -> ``('/z', '/y', '/x')``), made on
#: first use (a few orders in practice; bounded).
_EULER_ENDS: dict[str, tuple[str, ...]] = {}


# --- frames, models, scenes -----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Frame:
    """An explicit frame fixed to a link or another frame (``attached_to``) at ``pose``."""

    name: str
    attached_to: str
    pose: Pose = IDENTITY
    line: int | None = None


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


def _quicker_inits(classes: tuple[type, ...]) -> None:
    """Give these frozen dataclasses an ``__init__`` that does what the generated one does (the
    same parameters, defaults and field assignments) at a fraction of its cost: readers make
    thousands of these objects per load.

    A frozen class refuses attribute assignment in its ``__setattr__``, so the generated
    ``__init__`` calls ``object.__setattr__`` per field. The quicker one calls each slot's own
    descriptor setter (bound once, no look-up per call); a class with many fields instead lends
    the object, for the time of its assignments, to its :func:`field_filler` (the same slots,
    so the same memory layout, which lets Python switch an object's class; assignments to a plain
    class's slots are the interpreter's quickest), then gives it back its class. An object of a
    subclass, whose layout may differ, is always filled through the setters.
    A field with a default factory gets a new value per object when not given, as the generated
    ``__init__`` does. One ``exec`` per call (import time matters to the CLI)."""
    lines: list[str] = []
    values: dict[str, object] = {'_set': object.__setattr__, '_factory': _FACTORY,
                                 '_type': type}  # (a field may be named type)
    for index, cls in enumerate(classes):
        names, parameters, made = [], [], []
        for item in fields(cls):
            assert item.init and not item.kw_only and not hasattr(cls, '__post_init__')
            names.append(item.name)
            if item.default_factory is not MISSING:  # a new value per object, as dataclasses
                values[f'_f{index}_{item.name}'] = item.default_factory
                parameters.append(f'{item.name}=_factory')
                made.append(f'    if {item.name} is _factory: {item.name} = '
                            f'_f{index}_{item.name}()')
            elif item.default is MISSING:
                parameters.append(item.name)
            else:
                values[f'_d{index}_{item.name}'] = item.default
                parameters.append(f'{item.name}=_d{index}_{item.name}')
        lines.append(f'def _init{index}(self, {", ".join(parameters)}):')
        lines.extend(made)
        filler = field_filler(cls)
        if filler is not None and len(names) >= _LEND_FROM_FIELDS:
            values[f'_c{index}'], values[f'_l{index}'] = cls, filler
            lines.append(f'    if _type(self) is _c{index}:')
            lines.append(f'        _set(self, "__class__", _l{index})')
            lines.extend(f'        self.{name} = {name}' for name in names)
            lines.append(f'        self.__class__ = _c{index}')
            lines.append('        return')
        for name in names:
            slot = cls.__dict__.get(name)
            if type(slot) is _MEMBER:  # a slot's own setter: no attribute look-up per call
                values[f'_s{index}_{name}'] = slot.__set__
                lines.append(f'    _s{index}_{name}(self, {name})')
            else:
                lines.append(f'    _set(self, {name!r}, {name})')
    exec('\n'.join(lines), values)  # noqa: S102 - our own text, as dataclasses itself does
    for index, cls in enumerate(classes):
        init = values[f'_init{index}']
        init.__qualname__ = f'{cls.__qualname__}.__init__'  # type: ignore[attr-defined]
        type.__setattr__(cls, '__init__', init)


#: Fewer fields than this: two class switches cost more than the setters they save.
_LEND_FROM_FIELDS = 6


def field_filler(cls: type) -> type | None:
    """A plain class with ``cls``'s slots, to fill a new ``cls`` object's fields with ordinary
    assignments before giving it its class (see :func:`_quicker_inits`); None for a class
    whose fields are not exactly its own slots. Made once per class: the class holds it."""
    filler = cls.__dict__.get('_field_filler')
    if filler is not None:
        return filler
    slots = cls.__dict__.get('__slots__')
    names = tuple(item.name for item in fields(cls)) if dataclasses.is_dataclass(cls) else ()
    if slots is None or tuple(slots) != names or cls.__bases__ != (object,) or not all(
            type(cls.__dict__.get(name)) is _MEMBER for name in names):
        return None
    filler = type(f'_{cls.__name__}Fields', (), {'__slots__': tuple(slots)})
    type.__setattr__(cls, '_field_filler', filler)
    return filler


_MEMBER = types.MemberDescriptorType  # a slot's descriptor
#: The default of a parameter whose field has a default factory (dataclasses' own marker,
#: so the signature reads as the generated one's: ``<factory>``).
_FACTORY = getattr(dataclasses, '_HAS_DEFAULT_FACTORY', object())

_quicker_inits((Pose, Box, Cylinder, Sphere, Ellipsoid, Capsule, Cone, Plane, Mesh, Material,
                Visual, Collision, Inertial, SoftBody, Link, Limits, Dynamics, DofDynamics, Mimic,
                Joint, Frame, Model, Scene))
