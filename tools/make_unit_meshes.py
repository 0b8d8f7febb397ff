"""Regenerate meshes/unit_sphere.stl and meshes/unit_cone.stl (binary STL).

The URDF writer draws ellipsoids as the unit sphere scaled by the radii and cones as the unit
cone (radius 1, height 1, base at z = -0.5, apex at z = +0.5) scaled by (r, r, length), since
URDF has no such shapes. Run: python tools/make_unit_meshes.py
"""

import struct
from pathlib import Path

import numpy as np


def write_stl(path: Path, triangles: np.ndarray) -> None:
    with path.open('wb') as stream:
        stream.write(b'robot_formats unit mesh'.ljust(80, b' '))
        stream.write(struct.pack('<I', len(triangles)))
        for a, b, c in triangles:
            normal = np.cross(b - a, c - a)
            normal = normal / (np.linalg.norm(normal) or 1.0)
            stream.write(struct.pack('<12fH', *normal, *a, *b, *c, 0))


def sphere(rings: int = 16, segments: int = 32) -> np.ndarray:
    theta = np.linspace(0, np.pi, rings + 1)
    phi = np.linspace(0, 2 * np.pi, segments + 1)
    points = np.array([[[np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)] for p in phi]
                       for t in theta])
    triangles = []
    for i in range(rings):
        for j in range(segments):
            a, b = points[i, j], points[i, j + 1]
            c, d = points[i + 1, j], points[i + 1, j + 1]
            if i > 0:
                triangles.append((a, c, b))
            if i < rings - 1:
                triangles.append((b, c, d))
    return np.array(triangles)


def cone(segments: int = 32) -> np.ndarray:
    phi = np.linspace(0, 2 * np.pi, segments + 1)
    rim = np.array([[np.cos(p), np.sin(p), -0.5] for p in phi])
    apex, centre = np.array([0, 0, 0.5]), np.array([0, 0, -0.5])
    triangles = []
    for j in range(segments):
        triangles.append((rim[j], rim[j + 1], apex))
        triangles.append((rim[j + 1], rim[j], centre))
    return np.array(triangles)


if __name__ == '__main__':
    out = Path(__file__).resolve().parent.parent / 'meshes'
    out.mkdir(exist_ok=True)
    write_stl(out / 'unit_sphere.stl', sphere())
    write_stl(out / 'unit_cone.stl', cone())
    print(f'wrote {out}/unit_sphere.stl and unit_cone.stl')
