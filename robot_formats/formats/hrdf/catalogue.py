"""HEBI's built-in components: geometry, mass, centre of mass, inertia, interfaces.

The HRDF spec names the components but gives none of their numbers. Sources, per number:

* **Output frames, masses, centres of mass, max speed/effort**: HEBI's own library (hebi-py
  2.16.1, C API 2.27.0), measured one component at a time, with the closed-form rules inferred
  from it; ``/work/shared/goldens/hrdf/components.json`` and its INDEX.md ("Component catalogue
  and closed-form rules"), verified against the library on random parameters
  (rules_verification.json). The library stores some constants as float32 (e.g. COM -0.0142
  → -0.0142000000923872); we use the decimal values, which differ by < 2e-9 m.
* **Inertia tensors** (about the COM, in the COM frame, ``ixx ixy ixz iyy iyz izz``): HEBI's
  library does not expose them. Where HEBI publishes them we use HEBI's hebi_description
  package (github.com/HebiRobotics/hebi_description, ``urdf/components/*.xacro``):
  - X5-*, X8-*, R8-*: ``actuator.xacro`` inertia blocks (one per series);
  - T5-* uses hebi_description's X5 values and T8-* its X8 values (that is what
    ``actuator.xacro`` writes for the T series);
  - links: ``link.xacro``'s thin-rod approximation ``ixx = m·d²/2``,
    ``iyy = izz = m·(e² + 6·d²)/12`` about the COM, rod along the extension (x for a
    RightAngle input; for an Inline input the rod runs along z and we permute the axes);
  - X5/R8 brackets: ``bracket.xacro``'s solid-sphere approximation ``0.4·m·0.06²`` on the
    diagonal.
  Where HEBI publishes nothing, the value is OUR approximation, stated here and in
  docs/hrdf.md: R25-*/T25-* actuators are a solid box of the housing outline below
  (``m/12·(b²+c²)`` ...); R25 brackets reuse hebi_description's sphere rule with the R25
  mass; the X5Parallel/R8Parallel grippers are a solid box of 0.10 × 0.05 × 0.095 m.
* **Visual sizes** (boxes/cylinders drawn when no mesh is available): approximate outlines
  (housing length × width from HEBI's datasheet drawings, rounded; height = output height
  ``h``), for display only.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ['Actuator', 'LinkType', 'Bracket', 'EndEffector', 'ACTUATORS', 'LINKS', 'BRACKETS',
           'END_EFFECTORS', 'JOINT_AXES', 'compatible', 'link_inertia', 'box_inertia',
           'sphere_inertia']

Inertia = tuple[float, float, float, float, float, float]

#: hebi_description urdf/components/actuator.xacro, X5 inertia block.
_X5_INERTIA: Inertia = (0.00015, 0.0000341, 0.0000118, 0.000255, 0.00000229, 0.000350)
#: hebi_description urdf/components/actuator.xacro, X8 inertia block.
_X8_INERTIA: Inertia = (0.000246, 0.0000444, 0.0000266, 0.000380, 0.00000422, 0.000463)
#: hebi_description urdf/components/actuator.xacro, R8 inertia block.
_R8_INERTIA: Inertia = (0.000488, 0.00001297, 0.0000578, 0.001009, 0.00000494, 0.001186)


def box_inertia(mass: float, size: tuple[float, float, float]) -> Inertia:
    """Solid box about its centre (our approximation where HEBI publishes nothing)."""
    a, b, c = size
    return (mass * (b * b + c * c) / 12.0, 0.0, 0.0, mass * (a * a + c * c) / 12.0, 0.0,
            mass * (a * a + b * b) / 12.0)


def sphere_inertia(mass: float, radius: float = 0.06) -> Inertia:
    """hebi_description bracket.xacro: "inertia is just modelled as small sphere" (r = 0.06)."""
    moment = 0.4 * mass * radius * radius
    return (moment, 0.0, 0.0, moment, 0.0, moment)


@dataclass(frozen=True, slots=True)
class Actuator:
    name: str
    interface: str          #: 'X', 'R8' or 'R25' (input X-AH-A, output X-AO-A, ...)
    mass: float             #: kg (HEBI library)
    height: float           #: output frame = Tz(height)·Rz(q) (HEBI library)
    com: tuple[float, float, float]
    max_speed: float        #: rad/s (HEBI library)
    max_effort: float       #: N·m (HEBI library)
    inertia: Inertia
    inertia_source: str
    outline: tuple[float, float]  #: approximate housing length (x) × width (y) for visuals
    feature: str | None     #: version feature that introduced it (None: 1.0.0)


def _actuator(name: str, interface: str, mass: float, height: float,
              com: tuple[float, float, float], speed: float, effort: float,
              inertia: Inertia | None, source: str, outline: tuple[float, float],
              feature: str | None) -> Actuator:
    if inertia is None:  # R25/T25: our box approximation of the housing
        inertia = box_inertia(mass, (outline[0], outline[1], height))
    return Actuator(name, interface, mass, height, com, speed, effort, inertia, source, outline,
                    feature)


_HD = 'hebi_description actuator.xacro'
_X5_COM = (-0.0142, -0.0031, 0.0165)
_X8_COM = (-0.0145, -0.0031, 0.0242)
_R8_COM = (-0.024, -0.00161, 0.0256)
_T5_COM = (-0.024, -0.00161, 0.0165)
_R25_COM = (-0.0268, -0.000357, 0.0349)
_T25_COM = (-0.0241, -0.0001, 0.0338)
_BOX = 'our box approximation of the housing (HEBI publishes no inertia)'

ACTUATORS: dict[str, Actuator] = {a.name: a for a in (
    _actuator('X5-1', 'X', 0.315, 0.03105, _X5_COM, 9.42478, 2.5, _X5_INERTIA, _HD + ' X5',
              (0.110, 0.074), None),
    _actuator('X5-4', 'X', 0.335, 0.03105, _X5_COM, 3.35103, 7.0, _X5_INERTIA, _HD + ' X5',
              (0.110, 0.074), None),
    _actuator('X5-9', 'X', 0.36, 0.03105, _X5_COM, 1.46608, 13.0, _X5_INERTIA, _HD + ' X5',
              (0.110, 0.074), None),
    _actuator('X8-3', 'X', 0.46, 0.0451, _X8_COM, 11.5192, 8.0, _X8_INERTIA, _HD + ' X8',
              (0.110, 0.074), None),
    _actuator('X8-9', 'X', 0.48, 0.0451, _X8_COM, 4.08407, 23.0, _X8_INERTIA, _HD + ' X8',
              (0.110, 0.074), None),
    _actuator('X8-16', 'X', 0.5, 0.0451, _X8_COM, 2.0944, 44.0, _X8_INERTIA, _HD + ' X8',
              (0.110, 0.074), None),
    _actuator('R8-3', 'R8', 0.67, 0.051, _R8_COM, 11.5192, 8.0, _R8_INERTIA, _HD + ' R8',
              (0.132, 0.080), 'R8'),
    _actuator('R8-9', 'R8', 0.685, 0.051, _R8_COM, 4.08407, 23.0, _R8_INERTIA, _HD + ' R8',
              (0.132, 0.080), 'R8'),
    _actuator('R8-16', 'R8', 0.715, 0.051, _R8_COM, 2.0944, 44.0, _R8_INERTIA, _HD + ' R8',
              (0.132, 0.080), 'R8'),
    _actuator('T5-1', 'R8', 0.45, 0.034, _T5_COM, 9.42478, 2.5, _X5_INERTIA,
              _HD + ' T5 (= its X5 values)', (0.132, 0.080), 'T-series'),
    _actuator('T5-4', 'R8', 0.45, 0.034, _T5_COM, 3.35103, 7.0, _X5_INERTIA,
              _HD + ' T5 (= its X5 values)', (0.132, 0.080), 'T-series'),
    _actuator('T5-9', 'R8', 0.45, 0.034, _T5_COM, 1.46608, 13.0, _X5_INERTIA,
              _HD + ' T5 (= its X5 values)', (0.132, 0.080), 'T-series'),
    _actuator('T8-3', 'R8', 0.65, 0.0475, _R8_COM, 11.5192, 8.0, _X8_INERTIA,
              _HD + ' T8 (= its X8 values)', (0.132, 0.080), 'T-series'),
    _actuator('T8-9', 'R8', 0.65, 0.0475, _R8_COM, 4.08407, 23.0, _X8_INERTIA,
              _HD + ' T8 (= its X8 values)', (0.132, 0.080), 'T-series'),
    _actuator('T8-16', 'R8', 0.65, 0.0475, _R8_COM, 2.0944, 44.0, _X8_INERTIA,
              _HD + ' T8 (= its X8 values)', (0.132, 0.080), 'T-series'),
    _actuator('R25-8', 'R25', 1.9, 0.069, _R25_COM, 12.3569, 16.0, None, _BOX,
              (0.150, 0.110), 'R25'),
    _actuator('R25-20', 'R25', 1.9, 0.069, _R25_COM, 4.92183, 40.0, None, _BOX,
              (0.150, 0.110), 'R25'),
    _actuator('R25-40', 'R25', 1.9, 0.069, _R25_COM, 2.40855, 80.0, None, _BOX,
              (0.150, 0.110), 'R25'),
    _actuator('T25-8', 'R25', 1.5, 0.067, _T25_COM, 12.3569, 16.0, None, _BOX,
              (0.150, 0.110), 'R25'),
    _actuator('T25-20', 'R25', 1.5, 0.067, _T25_COM, 4.92183, 40.0, None, _BOX,
              (0.150, 0.110), 'R25'),
    _actuator('T25-40', 'R25', 1.5, 0.067, _T25_COM, 2.40855, 80.0, None, _BOX,
              (0.150, 0.110), 'R25'),
)}


@dataclass(frozen=True, slots=True)
class LinkType:
    """A parameterised link; see :func:`link_mass` and the rules in the module docstring."""

    name: str
    input_interface: str    #: family of the input (…-AO-B)
    output_interface: str   #: family of the output (…-AH-B)
    d: float                #: RightAngle interface offset (In = Tz(d), Out = Tz(d))
    m0: float
    k: float                #: kg per metre of extension
    a_in: float             #: extra mass of an Inline input
    a_out: float            #: extra mass of an Inline output
    inline_output: bool     #: False: output="Inline" is refused (HEBI: R25-R8)
    feature: str | None


LINKS: dict[str, LinkType] = {t.name: t for t in (
    LinkType('X5', 'X', 'X', 0.02, 0.199, 0.4, 0.015, 0.013, True, None),
    LinkType('R8', 'R8', 'R8', 0.02, 0.199, 0.4, 0.015, 0.013, True, 'R8'),
    LinkType('R25', 'R25', 'R25', 0.0275, 0.525, 0.56, 0.001, 0.112, True, 'R25'),
    LinkType('R25-R8', 'R25', 'R8', 0.0275, 0.525, 0.56, 0.001, 0.112, False, 'R25'),
)}


def link_mass(link: LinkType, extension: float, inline_in: bool, inline_out: bool) -> float:
    """HEBI library: m0 + k·e + a_in·[input Inline] + a_out·[output Inline] (linear also for
    negative extensions, as HEBI computes it)."""
    return (link.m0 + link.k * extension + (link.a_in if inline_in else 0.0)
            + (link.a_out if inline_out else 0.0))


def link_inertia(mass: float, extension: float, d: float, inline_in: bool) -> Inertia:
    """hebi_description link.xacro thin rod: ixx = m·d²/2, iyy = izz = m·(e² + 6d²)/12 with
    the rod along x (RightAngle input); along z for an Inline input (axes permuted)."""
    along = mass * d * d / 2.0
    across = mass * (extension * extension + 6.0 * d * d) / 12.0
    if inline_in:
        return (across, 0.0, 0.0, across, 0.0, along)
    return (along, 0.0, 0.0, across, 0.0, across)


@dataclass(frozen=True, slots=True)
class Bracket:
    name: str
    interface: str          #: input X-AO-B / output X-AH-B, ...
    mass: float
    output_yz: tuple[float, float]
    left: bool              #: Left: output rotation Rx(-pi/2); Right: Rx(+pi/2)
    com_yz: tuple[float, float]
    feature: str | None

    @property
    def inertia(self) -> Inertia:
        return sphere_inertia(self.mass)

    @property
    def output_count(self) -> int:
        return 1  # every built-in bracket has one output (spec: "Currently, all ...")


def _brackets() -> dict[str, Bracket]:
    rows = (
        ('X5LightLeft', 'X', 0.1, (0.043, 0.04), True, (0.0215, 0.02)),
        ('X5LightRight', 'X', 0.1, (-0.043, 0.04), False, (-0.0215, 0.02)),
        ('X5HeavyLeftInside', 'X', 0.215, (-0.0225, 0.055), True, (-0.02, 0.0275)),
        ('X5HeavyLeftOutside', 'X', 0.215, (0.0375, 0.055), True, (0.02, 0.0275)),
        ('X5HeavyRightInside', 'X', 0.215, (0.0225, 0.055), False, (0.02, 0.0275)),
        ('X5HeavyRightOutside', 'X', 0.215, (-0.0375, 0.055), False, (-0.02, 0.0275)),
        ('R8LightLeft', 'R8', 0.14, (0.043, 0.04), True, (0.023, 0.02)),
        ('R8LightRight', 'R8', 0.14, (-0.043, 0.04), False, (-0.023, 0.02)),
        ('R8HeavyLeftInside', 'R8', 0.212, (-0.0225, 0.055), True, (-0.02, 0.025)),
        ('R8HeavyLeftOutside', 'R8', 0.212, (0.0375, 0.055), True, (0.02, 0.025)),
        ('R8HeavyRightInside', 'R8', 0.212, (0.0225, 0.055), False, (0.02, 0.025)),
        ('R8HeavyRightOutside', 'R8', 0.212, (-0.0375, 0.055), False, (-0.02, 0.025)),
        ('R25LightLeft', 'R25', 0.264, (0.055, 0.055), True, (0.0275, 0.0275)),
        ('R25LightRight', 'R25', 0.264, (-0.055, 0.055), False, (-0.0275, 0.0275)),
        ('R25HeavyLeftInside', 'R25', 0.472, (-0.035, 0.07), True, (-0.03, 0.035)),
        ('R25HeavyLeftOutside', 'R25', 0.472, (0.055, 0.07), True, (0.045, 0.035)),
        ('R25HeavyRightInside', 'R25', 0.472, (0.035, 0.07), False, (0.03, 0.035)),
        ('R25HeavyRightOutside', 'R25', 0.472, (-0.055, 0.07), False, (-0.045, 0.035)),
    )
    feature = {'X': None, 'R8': 'R8', 'R25': 'R25'}
    return {name: Bracket(name, iface, mass, out, left, com, feature[iface])
            for name, iface, mass, out, left, com in rows}


BRACKETS = _brackets()


@dataclass(frozen=True, slots=True)
class EndEffector:
    name: str
    interface: str | None   #: input …-AO-B family, or None (Custom: fits anything)
    mass: float
    default_output: tuple[float, float, float]
    com: tuple[float, float, float]
    inertia: Inertia
    inertia_source: str


_GRIPPER_BOX = (0.10, 0.05, 0.095)
END_EFFECTORS: dict[str, EndEffector] = {e.name: e for e in (
    EndEffector('Custom', None, 0.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0,) * 6,
                'a rigid body of mass 0 (spec)'),
    EndEffector('X5Parallel', 'X', 0.2464, (0.0, 0.0, 0.095), (0.0, 0.0, 0.045),
                box_inertia(0.2464, _GRIPPER_BOX), 'our box approximation 0.10×0.05×0.095 m'),
    EndEffector('R8Parallel', 'R8', 0.2464, (0.0, 0.0, 0.095), (0.0, 0.0, 0.045),
                box_inertia(0.2464, _GRIPPER_BOX), 'our box approximation 0.10×0.05×0.095 m'),
)}

#: Joint axis → (JointType name, unit axis).
JOINT_AXES: dict[str, tuple[str, tuple[float, float, float]]] = {
    'rx': ('revolute', (1.0, 0.0, 0.0)), 'ry': ('revolute', (0.0, 1.0, 0.0)),
    'rz': ('revolute', (0.0, 0.0, 1.0)), 'tx': ('prismatic', (1.0, 0.0, 0.0)),
    'ty': ('prismatic', (0.0, 1.0, 0.0)), 'tz': ('prismatic', (0.0, 0.0, 1.0)),
}


def compatible(output: tuple[str, str] | None, input_: tuple[str, str] | None) -> bool:
    """Spec "Interface types": same type, different polarity; None (rigid-body, joint, Custom
    end effector, the robot base) fits anything."""
    if output is None or input_ is None:
        return True
    return output[0] == input_[0] and output[1] != input_[1]


def interface_name(interface: tuple[str, str] | None) -> str:
    return 'any' if interface is None else f'{interface[0]}-{interface[1]}'

