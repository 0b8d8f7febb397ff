"""Random HRDF kits for comparing our reader with hebi-py (test_hrdf_hebi_oracle.py).

Each kit is a valid document (interfaces respected, version-appropriate features) built from
every kind of element: all actuator, link, bracket and end-effector types, rigid bodies with
several ``<output>`` trees, joints (all axes, negative axes, gear ratios), mass/COM offsets and
overrides, root rot/trans and includes. The generator records, independently of the reader,
each element's name (its tag, or the documented default) and the frames in HEBI's order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

ACTUATORS = {'X': ['X5-1', 'X5-4', 'X5-9', 'X8-3', 'X8-9', 'X8-16'],
             'R8': ['R8-3', 'R8-9', 'R8-16', 'T5-1', 'T5-4', 'T5-9', 'T8-3', 'T8-9', 'T8-16'],
             'R25': ['R25-8', 'R25-20', 'R25-40', 'T25-8', 'T25-20', 'T25-40']}
LINKS = {'X': [('X5', 'X')], 'R8': [('R8', 'R8')], 'R25': [('R25', 'R25'), ('R25-R8', 'R8')]}
BRACKETS = {fam: [f'{p}{s}' for s in ('LightLeft', 'LightRight', 'HeavyLeftInside',
                                       'HeavyLeftOutside', 'HeavyRightInside',
                                       'HeavyRightOutside')]
            for fam, p in (('X', 'X5'), ('R8', 'R8'), ('R25', 'R25'))}
GRIPPERS = {'X': 'X5Parallel', 'R8': 'R8Parallel'}
ANGLES = ['0', 'pi', 'pi/2', '-pi/2', 'pi/4', '0.3', '-1.2', '2*pi/3', '(1+2)/4']


@dataclass
class Kit:
    text: str
    elements: list[tuple[str, str]] = field(default_factory=list)   # (name, kind) in order
    outputs: list[str] = field(default_factory=list)                # output frames, HEBI order
    parts: dict[str, str] = field(default_factory=dict)             # include files
    dofs: int = 0

    def write(self, folder: Path, name: str) -> Path:
        for part, text in self.parts.items():
            (folder / part).parent.mkdir(parents=True, exist_ok=True)
            (folder / part).write_text(text)
        path = folder / name
        path.write_text(self.text)
        return path


class _Gen:
    def __init__(self, rng: random.Random, version: str) -> None:
        self.rng = rng
        self.version = tuple(int(v) for v in version.split('.'))
        self.kit = Kit('')
        self.count = 0
        self.families = ['X'] + (['R8'] if self.version >= (1, 2, 0) else []) + \
            (['R25'] if self.version >= (1, 6, 0) else [])

    def has(self, *v: int) -> bool:
        return self.version >= v

    def name(self, kind: str, attrs: list[str]) -> str:
        index = self.count
        self.count += 1
        if self.has(1, 4, 0) and self.rng.random() < 0.5:
            tag = f'{kind[:3]}{index}x'
            attrs.append(f'tag="{tag}"')
            return tag
        return f'{kind.replace("-", "_")}_{index}'

    def overrides(self, attrs: list[str]) -> None:
        if not self.has(1, 1, 0) or self.rng.random() < 0.6:
            return
        r = self.rng.random()
        if r < 0.33:
            attrs.append(f'mass_offset="{self.rng.uniform(0.0, 0.2):.4f}"')
        elif r < 0.66:
            attrs.append(f'mass="{self.rng.uniform(0.05, 1):.4f}"')
        if self.rng.random() < 0.5:
            attrs.append(f'com_trans_offset="{self.rng.uniform(-0.02, 0.02):.4f} 0.01 0"')
        elif self.rng.random() < 0.5:
            attrs.append('com_trans="0.01 -0.02 0.03" com_rot="Rz(0.3)*Rx(0.2)"')

    def element(self, iface: tuple | None, lines: list[str], indent: str, depth: int,
                allow_branch: bool) -> tuple | None:
        """Append one element compatible with ``iface``; return its output interface
        (None = anything fits, 'END' = end effector, 'BRANCHED' = had outputs)."""
        rng = self.rng
        choices = []
        if iface is None:
            choices = ['actuator', 'rigid-body', 'joint']
        elif iface[1] == 'AO':
            choices = ['link', 'bracket', 'rigid-body', 'joint']
        else:
            choices = ['actuator', 'rigid-body', 'joint']
        kind = rng.choice(choices)
        attrs: list[str] = []
        if kind == 'actuator':
            family = iface[0] if iface else rng.choice(self.families)
            options = [a for a in ACTUATORS[family]
                       if not (a.startswith('T') and not self.has(1, 4, 0))]
            attrs.append(f'type="{rng.choice(options)}"')
            name = self.name(kind, attrs)
            self.overrides(attrs)
            lines.append(f'{indent}<actuator {" ".join(attrs)}/>')
            self.record(name, kind)
            self.kit.dofs += 1
            return (family, 'AO')
        if kind == 'link':
            link_type, out_family = rng.choice(LINKS[iface[0]])
            attrs.append(f'type="{link_type}"')
            ext = rng.choice(['0.325', '0.1', '0.5*0.3', '0', '0.2+0.05'])
            attrs.append(f'extension="{ext}" twist="{rng.choice(ANGLES)}"')
            if self.has(1, 2, 0):
                attrs.append(f'input="{rng.choice(["RightAngle", "Inline"])}"')
                if link_type != 'R25-R8':
                    attrs.append(f'output="{rng.choice(["RightAngle", "Inline"])}"')
            name = self.name(kind, attrs)
            self.overrides(attrs)
            lines.append(f'{indent}<link {" ".join(attrs)}/>')
            self.record(name, kind)
            return (out_family, 'AH')
        if kind == 'bracket':
            attrs.append(f'type="{rng.choice(BRACKETS[iface[0]])}"')
            name = self.name(kind, attrs)
            self.overrides(attrs)
            lines.append(f'{indent}<bracket {" ".join(attrs)}/>')
            self.record(name, kind)
            return (iface[0], 'AH')
        if kind == 'joint':
            axis = rng.choice(['rx', 'ry', 'rz', 'tx', 'ty', 'tz'])
            if rng.random() < 0.2:
                axis = '-' + axis
            attrs.append(f'axis="{axis}"')
            if self.has(1, 5, 0) and rng.random() < 0.5:
                attrs.append(f'gear_ratio="{rng.choice(["2", "-3", "0.5", "10/4"])}"')
            name = self.name(kind, attrs)
            lines.append(f'{indent}<joint {" ".join(attrs)}/>')
            self.record(name, kind)
            self.kit.dofs += 1
            return None
        # rigid body
        attrs.append(f'mass="{rng.uniform(0, 2):.3f}" com_trans="0.01 0.02 -0.03"')
        branch = allow_branch and self.has(1, 3, 0) and depth < 2 and rng.random() < 0.5
        rot = 'Rz(pi/3)*Ry(0.2)' if self.has(1, 1, 0) else '0 -1 0 1 0 0 0 0 1'
        if not branch:
            attrs.append(f'output_rot="{rot}" output_trans="0.1 -0.05 0.2"')
        name = self.name(kind, attrs)
        if not branch:
            lines.append(f'{indent}<rigid-body {" ".join(attrs)}/>')
            self.record(name, kind)
            return None
        lines.append(f'{indent}<rigid-body {" ".join(attrs)}>')
        self.kit.elements.append((name, kind))
        for k in range(rng.randint(2, 3)):
            frame = f'{name}/output' if k == 0 else f'{name}/output{k}'
            self.kit.outputs.append(frame)
            lines.append(f'{indent}  <output rot="Rx({k}*pi/5)" trans="0 {0.1 * k} 0.05">')
            self.chain(None, lines, indent + '    ', depth + 1, rng.randint(1, 4))
            lines.append(f'{indent}  </output>')
        lines.append(f'{indent}</rigid-body>')
        return 'BRANCHED'

    def record(self, name: str, kind: str) -> None:
        self.kit.elements.append((name, kind))
        self.kit.outputs.append(f'{name}/output')

    def end_effector(self, iface: tuple | None, lines: list[str], indent: str) -> None:
        attrs: list[str] = []
        if iface is not None and iface[1] == 'AO' and iface[0] in GRIPPERS and \
                self.rng.random() < 0.6:
            attrs.append(f'type="{GRIPPERS[iface[0]]}"')
        if self.rng.random() < 0.5:
            attrs.append('output_trans="0 0 0.12" output_rot="Ry(pi/2)"')
        name = self.name('end-effector', attrs)
        self.overrides(attrs)
        lines.append(f'{indent}<end-effector {" ".join(attrs)}/>')
        self.record(name, 'end-effector')

    def chain(self, iface, lines, indent, depth, length) -> None:
        for i in range(length):
            iface = self.element(iface, lines, indent, depth, allow_branch=i == length - 1)
            if iface == 'BRANCHED':
                return
        if self.has(1, 2, 0) and self.rng.random() < 0.7:
            self.end_effector(iface, lines, indent)


def generate(seed: int, version: str = '1.6.0', include: bool = False) -> Kit:
    """One random kit of ``version``; with ``include`` part of it comes from an included file."""
    rng = random.Random(seed)
    gen = _Gen(rng, version)
    lines: list[str] = []
    root_attrs = f'version="{version}"' if version != '1.0.0' or rng.random() < 0.5 else ''
    if rng.random() < 0.5:
        rot = 'Rx(0.4)*Rz(-1)' if gen.has(1, 1, 0) else '0 0 1 0 1 0 -1 0 0'
        root_attrs += f' rot="{rot}" trans="0.3 -0.2 1.5"'
    iface = None
    if include and gen.has(1, 3, 0):
        part: list[str] = []
        for _ in range(2):
            iface = gen.element(iface, part, '  ', 0, allow_branch=False)
        sub = f'<robot version="{version}" trans="9 9 9">\n' + '\n'.join(part) + '\n</robot>\n'
        gen.kit.parts['parts/sub.hrdf'] = sub
        lines.append('  <include path="parts/sub.hrdf"/>')
    gen.chain(iface, lines, '  ', 0, rng.randint(2, 8))
    if not gen.has(1, 2, 0):  # HEBI's implicit end effector
        name = f'end_effector_{gen.count}'
        gen.kit.elements.append((name, 'end-effector'))
        gen.kit.outputs.append(f'{name}/output')
    gen.kit.text = f'<robot {root_attrs.strip()}>\n' + '\n'.join(lines) + '\n</robot>\n'
    return gen.kit
