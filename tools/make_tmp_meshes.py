#!/usr/bin/env python3
"""Writes the small OBJ meshes of the TMP example problems (examples/tmp/meshes/).

Run once; the OBJs are committed. Every mesh has its origin at the object's frame as the
problems use it: discs, pegs, glasses, cups and the tray are centred on their origin; tables
and the counter stand on the floor (origin on the floor, top at the height of their SSSP).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import trimesh

OUT = Path(__file__).resolve().parents[1] / 'examples' / 'tmp' / 'meshes'


def box(extents, centre) -> trimesh.Trimesh:
    mesh = trimesh.creation.box(extents=extents)
    mesh.apply_translation(centre)
    return mesh


def table(width: float, depth: float, height: float, top: float = 0.04) -> trimesh.Trimesh:
    """A table top whose upper face is at ``height``, on four legs, origin on the floor."""
    parts = [box((width, depth, top), (0, 0, height - top / 2))]
    for sx in (-1, 1):
        for sy in (-1, 1):
            parts.append(box((0.04, 0.04, height - top),
                             (sx * (width / 2 - 0.04), sy * (depth / 2 - 0.04),
                              (height - top) / 2)))
    return trimesh.util.concatenate(parts)


def l_counter(height: float) -> trimesh.Trimesh:
    """An L-shaped counter (matches the polygonal SSSP of kitchen.xml), origin on the floor."""
    return trimesh.util.concatenate([
        box((0.6, 1.2, height), (0.0, 0.0, height / 2)),
        box((0.6, 0.6, height), (-0.6, 0.3, height / 2)),
    ])


def cup(radius: float, height: float) -> trimesh.Trimesh:
    body = trimesh.creation.cylinder(radius=radius, height=height, sections=24)
    handle = trimesh.creation.torus(height * 0.25, radius * 0.15, major_sections=16,
                                    minor_sections=8)
    handle.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 2, (1, 0, 0)))
    handle.apply_translation((radius, 0, 0))
    return trimesh.util.concatenate([body, handle])


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    meshes = {
        'disc_large': trimesh.creation.annulus(0.012, 0.06, 0.025, sections=32),
        'disc_medium': trimesh.creation.annulus(0.012, 0.05, 0.025, sections=32),
        'disc_small': trimesh.creation.annulus(0.012, 0.04, 0.025, sections=32),
        'peg': trimesh.creation.cylinder(radius=0.01, height=0.2, sections=16),
        'table': table(0.8, 0.7, 0.78),
        'dining_table': table(1.2, 0.8, 0.75),
        'counter': l_counter(0.9),
        'tray': box((0.4, 0.3, 0.02), (0, 0, 0)),
        'glass': trimesh.creation.cylinder(radius=0.035, height=0.12, sections=24),
        'cup': cup(0.04, 0.09),
    }
    for name, mesh in meshes.items():
        text = trimesh.exchange.obj.export_obj(mesh, include_normals=False, digits=5,
                                               header=f'robot_formats example mesh: {name}')
        (OUT / f'{name}.obj').write_text(text)
        print(f'{name}.obj: {len(mesh.vertices)} vertices, {len(mesh.faces)} faces')


if __name__ == '__main__':
    main()
