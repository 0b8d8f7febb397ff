"""What ``robot-formats info`` prints beyond kinematics: the simulation parameters a format
keeps in the model (DART's actuators, per-DoF dynamics and initial velocities, body gravity
flags, soft skins). Only what differs from the defaults is shown, so URDF output is unchanged.
"""

from __future__ import annotations

from robot_formats.core.kinematics import KinematicTree, scoped
from robot_formats.core.model import DofDynamics, dof_names

__all__ = ['dof_notes', 'scene_notes']

_DEFAULT = DofDynamics()


def _range(bounds: tuple[float | None, float | None]) -> str:
    lower, upper = ('-inf' if bounds[0] is None else f'{bounds[0]:g}',
                    'inf' if bounds[1] is None else f'{bounds[1]:g}')
    return f'[{lower}, {upper}]'


def _describe(dof: DofDynamics, velocity: float) -> str:
    parts = [f'initial velocity {velocity:g}'] if velocity else []
    parts += [f'{label} {value:g}' for label, value in (('damping', dof.damping),
                                                         ('friction', dof.friction))
              if value]
    if dof.spring_stiffness or dof.rest_position:
        parts.append(f'spring {dof.spring_stiffness:g} rest {dof.rest_position:g}')
    parts += [f'{label} limits {_range(bounds)}' for label, bounds in (
        ('velocity', dof.velocity_limits), ('acceleration', dof.acceleration_limits),
        ('force', dof.force_limits)) if bounds != (None, None)]
    return ', '.join(parts)


def dof_notes(tree: KinematicTree) -> dict[str, str]:
    """Scoped DoF name → its non-default parameters, e.g. ``damping 2, spring 3 rest 0.5``."""
    velocities: dict[str, float] = {}
    for model in tree.scene.models:
        prefix = model.name if tree.scene.is_world else ''
        velocities.update({scoped(prefix, k): v for k, v in model.initial_velocities.items()})
    notes = {}
    for joint in tree.joints.values():
        dynamics = joint.dof_dynamics or (_DEFAULT,) * len(dof_names(joint))
        for name, dof in zip(dof_names(joint), dynamics):
            text = _describe(dof, velocities.get(name, 0.0))
            if text:
                notes[name] = text
    return notes


def scene_notes(tree: KinematicTree) -> list[str]:
    """Lines about actuators, bodies without gravity, self-collision flags and soft skins."""
    lines = []
    actuators: dict[str, int] = {}
    for joint in tree.joints.values():
        if joint.actuator is not None:
            actuators[joint.actuator] = actuators.get(joint.actuator, 0) + 1
    if actuators:
        lines.append('actuators: ' + ', '.join(f'{k} {v}' for k, v in actuators.items()))
    no_gravity = [name for name, link in tree.links.items() if not link.gravity]
    if no_gravity:
        lines.append('bodies without gravity: ' + ', '.join(no_gravity))
    self_collide = [f'{name}={str(link.self_collide).lower()}'
                    for name, link in tree.links.items() if link.self_collide is not None]
    if self_collide:
        lines.append('self_collide: ' + ', '.join(self_collide))
    for name, link in tree.links.items():
        soft = link.soft
        if soft is None:
            continue
        stated = [f'{label}={value:g}' for label, value in (
            ('kv', soft.vertex_stiffness), ('ke', soft.edge_stiffness), ('damp', soft.damping))
            if value is not None]
        lines.append(f'soft body {name}: {type(soft.geometry).__name__.lower()} skin, '
                     f'total_mass={soft.total_mass:g} {" ".join(stated)} resolution='
                     f'{"x".join(map(str, soft.resolution)) or "-"}'.replace('  ', ' '))
    return lines
