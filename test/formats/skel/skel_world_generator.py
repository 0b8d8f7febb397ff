"""Seeded random SKEL worlds for the dartpy comparison (test_skel_dartpy_random.py).

Written from the SKEL spec and DART's documented conventions, independently of the reader:
every joint type DART 6.20 builds (revolute, prismatic, universal, ball, euler xyz/zyx,
translational, planar xy/yz/zx/arbitrary, free, weld), several skeletons per world (duplicate
names included), branching trees and several trees per skeleton, joints listed in shuffled
order (DART builds them in its own creation order), bodies that are only parents (DART gives
them an implicit free joint), random skeleton/body/joint/shape transformations, init_pos and
``<dof initial>`` overrides, and the three kinds of mass properties: none, given moments, and
moments DART computes from the shapes.

What the generator avoids, because DART 6.20 cannot load it or mis-loads it (documented in the
goldens' INDEX.md and in docs/skel.md): screw/translational2d joints (not buildable), non-unit
universal axes (DART silently uses identity), bodies no joint mentions (DART drops them and
may segfault), and shape-computed inertia for bodies mixing planes or multi-spheres with
other shapes.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path

JOINT_TYPES = ('revolute', 'prismatic', 'universal', 'ball', 'euler', 'translational',
               'planar', 'free', 'weld')
DOFS = {'weld': 0, 'revolute': 1, 'prismatic': 1, 'universal': 2, 'ball': 3, 'euler': 3,
        'translational': 3, 'planar': 3, 'free': 6}
PLANES = ('xy', 'yz', 'zx', 'arbitrary')
ACTUATORS = ('force', 'passive', 'servo', 'acceleration', 'velocity', 'locked')
#: How many ``<axis*>`` elements DART 6.20 reads limits and dynamics from (the SKEL reader's
#: docs; ball and free joints read none).
AXES_READ = {'revolute': 1, 'prismatic': 1, 'universal': 2, 'euler': 3, 'translational': 3,
             'planar': 3}
SOLID_SHAPES = ('box', 'ellipsoid', 'sphere', 'cylinder', 'capsule', 'cone', 'mesh')
MESH_NAME = 'wedge.obj'
#: A small wedge (not centred, not symmetric) DART reads with assimp; its bounding box is what
#: DART computes a mesh's inertia from.
MESH_OBJ = '''# wedge for generated SKEL worlds
v 0 0 0
v 0.3 0 0
v 0 0.2 0
v 0 0 0.1
v 0.3 0.2 0.05
f 1 3 2
f 1 2 4
f 1 4 3
f 2 3 5
f 2 5 4
f 3 4 5
'''


@dataclass
class GeneratedWorld:
    """One world: its text, and what it was built to exercise (for coverage checks)."""

    seed: int
    text: str
    features: set[str] = field(default_factory=set)

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / MESH_NAME).write_text(MESH_OBJ)
        path = folder / f'world_{self.seed}.skel'
        path.write_text(self.text)
        return path


def _num(rng: random.Random, low: float, high: float) -> str:
    return repr(round(rng.uniform(low, high), 6))


def _nums(rng: random.Random, count: int, low: float, high: float) -> str:
    return ' '.join(_num(rng, low, high) for _ in range(count))


def _transformation(rng: random.Random, reach: float = 1.0) -> str:
    return (f'<transformation>{_nums(rng, 3, -reach, reach)} {_nums(rng, 3, -math.pi, math.pi)}'
            '</transformation>')


def _unit_vector(rng: random.Random) -> list[float]:
    while True:
        v = [rng.gauss(0, 1) for _ in range(3)]
        n = math.sqrt(sum(c * c for c in v))
        if n > 1e-3:
            return [c / n for c in v]


def _axis_text(values: list[float]) -> str:
    return ' '.join(repr(v) for v in values)


class _Builder:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.world = GeneratedWorld(seed, '')

    # --- shapes and mass ------------------------------------------------------------------
    def shape(self, kind: str) -> str:
        rng = self.rng
        if kind == 'box':
            geometry = f'<box><size>{_nums(rng, 3, 0.05, 0.5)}</size></box>'
        elif kind == 'ellipsoid':
            geometry = f'<ellipsoid><size>{_nums(rng, 3, 0.05, 0.5)}</size></ellipsoid>'
        elif kind == 'sphere':
            geometry = f'<sphere><radius>{_num(rng, 0.05, 0.3)}</radius></sphere>'
        elif kind in ('cylinder', 'capsule', 'cone'):
            geometry = (f'<{kind}><radius>{_num(rng, 0.03, 0.2)}</radius>'
                        f'<height>{_num(rng, 0.05, 0.6)}</height></{kind}>')
        elif kind == 'mesh':
            geometry = (f'<mesh><file_name>{MESH_NAME}</file_name>'
                        f'<scale>{_nums(rng, 3, 0.5, 2.0)}</scale></mesh>')
        elif kind == 'multi_sphere':
            spheres = ''.join(f'<sphere><radius>{_num(rng, 0.03, 0.15)}</radius>'
                              f'<position>{_nums(rng, 3, -0.2, 0.2)}</position></sphere>'
                              for _ in range(rng.randint(1, 3)))
            geometry = f'<multi_sphere>{spheres}</multi_sphere>'
        else:  # plane
            normal = _axis_text(_unit_vector(rng))
            geometry = (f'<plane><normal>{normal}</normal>'
                        f'<offset>{_num(rng, -0.2, 0.2)}</offset></plane>')
        self.world.features.add(f'shape:{kind}')
        holder = rng.choice(('visualization_shape', 'collision_shape'))
        where = _transformation(rng, 0.3) if rng.random() < 0.6 else ''
        color = (f'<color>{_nums(rng, 3, 0, 1)}</color>'
                 if holder == 'visualization_shape' else '')
        return f'<{holder}>{where}<geometry>{geometry}</geometry>{color}</{holder}>'

    def soft_shape(self) -> str:
        """A soft skin (box with frags or ellipsoid with slices and stacks), DART 6 syntax."""
        rng = self.rng
        self.world.features.add('soft_shape')
        if rng.random() < 0.5:
            geometry = (f'<box><size>{_nums(rng, 3, 0.1, 0.5)}</size>'
                        f'<frags>{rng.randint(2, 4)} {rng.randint(2, 4)} {rng.randint(2, 4)}'
                        '</frags></box>')
        else:
            geometry = (f'<ellipsoid><size>{_nums(rng, 3, 0.1, 0.5)}</size>'
                        f'<num_slices>{rng.randint(4, 8)}</num_slices>'
                        f'<num_stacks>{rng.randint(4, 8)}</num_stacks></ellipsoid>')
        where = _transformation(rng, 0.2) if rng.random() < 0.5 else ''
        return (f'<soft_shape>{where}<total_mass>{_num(rng, 0.1, 2)}</total_mass>'
                f'<geometry>{geometry}</geometry><kv>{_num(rng, 10, 1000)}</kv>'
                f'<ke>{_num(rng, 0, 100)}</ke><damp>{_num(rng, 0, 10)}</damp></soft_shape>')

    def body_content(self) -> str:
        """Shapes and ``<inertia>``: none, full moments, or moments from the shapes."""
        rng = self.rng
        mode = rng.choice(('none', 'moments', 'from_shapes', 'from_shapes'))
        if mode == 'from_shapes' and rng.random() < 0.15:
            kinds = [rng.choice(('plane', 'multi_sphere'))]  # alone: DART's volume is known
        else:
            kinds = [rng.choice(SOLID_SHAPES) for _ in range(rng.randint(1 if mode ==
                                                                         'from_shapes' else 0,
                                                                         3))]
        shapes = ''.join(self.shape(kind) for kind in kinds)
        if rng.random() < 0.1:
            shapes += self.soft_shape()
        if mode == 'none':
            self.world.features.add('inertia:default')
            return shapes
        mass = f'<mass>{_num(rng, 0.1, 5.0)}</mass>'
        offset = f'<offset>{_nums(rng, 3, -0.2, 0.2)}</offset>' if rng.random() < 0.7 else ''
        moments = ''
        if mode == 'moments':
            diagonal = [rng.uniform(0.2, 1.0) for _ in range(3)]
            products = [rng.uniform(-0.05, 0.05) for _ in range(3)]
            moments = ('<moment_of_inertia>' + ''.join(
                f'<{tag}>{value:.6f}</{tag}>' for tag, value in
                zip(('ixx', 'iyy', 'izz', 'ixy', 'ixz', 'iyz'), diagonal + products))
                + '</moment_of_inertia>')
        self.world.features.add(f'inertia:{mode}')
        return f'{shapes}<inertia>{mass}{offset}{moments}</inertia>'

    # --- joints ---------------------------------------------------------------------------
    def joint(self, name: str, kind: str, parent: str, child: str) -> str:
        rng = self.rng
        parts = [f'<parent>{parent}</parent>', f'<child>{child}</child>']
        if rng.random() < 0.7:
            parts.append(_transformation(rng, 0.5))
        self.world.features.add(f'joint:{kind}')
        if kind in ('revolute', 'prismatic'):
            # DART normalises these axes: written unnormalised on purpose.
            axis = [c * rng.uniform(0.5, 3.0) for c in _unit_vector(rng)]
            limit = ''
            if rng.random() < 0.4:
                limit = f'<limit><lower>-{_num(rng, 0.5, 3)}</lower><upper>{_num(rng, 0.5, 3)}' \
                        '</upper></limit>'
            parts.append(f'<axis><xyz>{_axis_text(axis)}</xyz>{limit}</axis>')
        elif kind == 'universal':
            parts.append(f'<axis><xyz>{_axis_text(_unit_vector(rng))}</xyz></axis>')
            parts.append(f'<axis2><xyz>{_axis_text(_unit_vector(rng))}</xyz></axis2>')
        elif kind == 'euler':
            order = rng.choice(('xyz', 'zyx'))
            self.world.features.add(f'euler:{order}')
            parts.append(f'<axis_order>{order}</axis_order>')
        elif kind == 'planar':
            plane = rng.choice(PLANES)
            self.world.features.add(f'planar:{plane}')
            if plane == 'arbitrary':
                t1 = _unit_vector(rng)
                t2 = [c * rng.uniform(0.5, 2.0) for c in _unit_vector(rng)]
                parts.append(f'<plane type="arbitrary"><translation_axis1><xyz>{_axis_text(t1)}'
                             f'</xyz></translation_axis1><translation_axis2><xyz>'
                             f'{_axis_text(t2)}</xyz></translation_axis2></plane>')
            else:
                parts.append(f'<plane type="{plane}"/>')
        dofs = DOFS[kind]
        parts.extend(self.dof_properties(kind, parts))
        if dofs and rng.random() < 0.6:
            self.world.features.add('init_pos')
            parts.append(f'<init_pos>{_nums(rng, dofs, -1.5, 1.5)}</init_pos>')
        if dofs and rng.random() < 0.2:
            self.world.features.add('dof_initial')
            index = rng.randrange(dofs)
            parts.append(f'<dof local_index="{index}"><position initial="{_num(rng, -1, 1)}"/>'
                         '</dof>')
        actuator = ''
        if rng.random() < 0.3:
            actuator = f' actuator="{rng.choice(ACTUATORS)}"'
            self.world.features.add('actuator')
        return f'<joint type="{kind}" name="{name}"{actuator}>{"".join(parts)}</joint>'

    def dof_properties(self, kind: str, parts: list[str]) -> list[str]:
        """Limits and dynamics in ``<axis*>`` (for the kinds DART reads them for; merged into
        an axis element already written), init_vel, and ``<dof>`` velocity/force bounds."""
        rng = self.rng
        extra = []
        for index in range(AXES_READ.get(kind, 0)):
            inner = ''
            if rng.random() < 0.3:
                inner += (f'<limit><lower>-{_num(rng, 0.5, 3)}</lower>'
                          f'<upper>{_num(rng, 0.5, 3)}</upper></limit>')
            if rng.random() < 0.35:
                self.world.features.add('axis_dynamics')
                inner += (f'<dynamics><damping>{_num(rng, 0, 2)}</damping>'
                          f'<friction>{_num(rng, 0, 1)}</friction>'
                          f'<spring_rest_position>{_num(rng, -1, 1)}</spring_rest_position>'
                          f'<spring_stiffness>{_num(rng, 0, 5)}</spring_stiffness></dynamics>')
            if not inner:
                continue
            tag = ('axis', 'axis2', 'axis3')[index]
            written = next((i for i, part in enumerate(parts) if part.startswith(f'<{tag}>')),
                           None)
            if written is None:
                extra.append(f'<{tag}>{inner}</{tag}>')
            elif '<limit>' not in parts[written]:
                parts[written] = parts[written].replace(f'</{tag}>', f'{inner}</{tag}>')
        dofs = DOFS[kind]
        if dofs and rng.random() < 0.3:
            self.world.features.add('init_vel')
            extra.append(f'<init_vel>{_nums(rng, dofs, -2, 2)}</init_vel>')
        if dofs and rng.random() < 0.25:
            self.world.features.add('dof_bounds')
            extra.append(f'<dof local_index="{rng.randrange(dofs)}">'
                         f'<velocity lower="-{_num(rng, 1, 5)}" upper="{_num(rng, 1, 5)}"/>'
                         f'<force lower="-{_num(rng, 1, 50)}" upper="{_num(rng, 1, 50)}"/></dof>')
        return extra

    # --- skeletons ------------------------------------------------------------------------
    def skeleton(self, name: str, forced_kinds: list[str]) -> str:
        rng = self.rng
        count = rng.randint(2, 7)
        bodies = [f'{name}_b{i}' for i in range(count)]
        parents: dict[str, str] = {}
        implicit_root = rng.random() < 0.15
        for i, body in enumerate(bodies):
            if i == 0:
                if implicit_root:
                    self.world.features.add('implicit_root')
                    continue  # only a parent: DART adds a free joint 'root'
                parents[body] = 'world'
            elif i == 1 and implicit_root:
                parents[body] = bodies[0]
            elif rng.random() < 0.12:
                parents[body] = 'world'  # a second tree in the same skeleton
                self.world.features.add('several_trees')
            else:
                parents[body] = rng.choice(bodies[:i])
        children = [parents[b] for b in parents]
        if any(children.count(p) > 1 for p in set(children) if p != 'world'):
            self.world.features.add('branch')
        items = []
        for body in bodies:
            where = _transformation(rng, 1.5) if rng.random() < 0.8 else ''
            if rng.random() < 0.15:
                where += '<gravity>false</gravity>'
                self.world.features.add('no_gravity')
            if rng.random() < 0.15:
                where += f'<self_collide>{rng.choice(("true", "false"))}</self_collide>'
            items.append(f'<body name="{body}">{where}{self.body_content()}</body>')
        joints = []
        for child, parent in parents.items():
            kind = forced_kinds.pop() if forced_kinds else rng.choice(JOINT_TYPES)
            joints.append(self.joint(f'j_{child}', kind, parent, child))
        if rng.random() < 0.7:
            rng.shuffle(joints)
            self.world.features.add('shuffled_joints')
        items.extend(joints)
        head = _transformation(rng, 2.0) if rng.random() < 0.6 else ''
        if rng.random() < 0.15:
            head += '<mobile>false</mobile>'
        return f'<skeleton name="{name}">{head}{"".join(items)}</skeleton>'


def generate(seed: int) -> GeneratedWorld:
    """A random world; seed ``s`` always gives the same text. Seeds 0..len(JOINT_TYPES)-1
    start their first skeleton with every joint type once (coverage even for few worlds)."""
    builder = _Builder(seed)
    rng = builder.rng
    physics = ''
    if rng.random() < 0.5:
        physics = (f'<physics><time_step>{_num(rng, 0.0005, 0.01)}</time_step>'
                   f'<gravity>{_nums(rng, 3, -10, 10)}</gravity></physics>')
    forced = list(JOINT_TYPES) if seed == 0 else []
    skeletons = []
    names = ['arm', 'leg', 'rover', 'chain', 'tree']
    for index in range(rng.randint(1, 3)):
        name = f'{rng.choice(names)}' if rng.random() < 0.3 else f's{index}'
        if name in names:
            builder.world.features.add('named_skeleton')
        skeletons.append(builder.skeleton(name, forced))
    builder.world.text = ('<?xml version="1.0"?>\n<skel version="1.0">\n'
                          f'<world name="random {seed}">{physics}\n'
                          + '\n'.join(skeletons) + '\n</world>\n</skel>\n')
    return builder.world
