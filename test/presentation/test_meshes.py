"""Collada (.dae) meshes, the most common mesh format of ROS description packages, wherever
meshes are read: rendering, the MuJoCo simulation's collision boxes, and DART's inertia in SKEL
(test_real_world_skel.py compares that one with dartpy). One module reads them all
(robot_formats/core/meshes.py): pycollada through trimesh, after the safe XML parser, the document's
``<unit meter>`` applied as Gazebo, rviz and DART apply it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from robot_formats.core import meshes

from robot_formats.presentation import render
from robot_formats.formats import load, load_text
from robot_formats.runtime.mujoco_sim import mujoco_urdf
from robot_formats.core.model import Box

from shared_data import shared

ROOT = Path(__file__).resolve().parents[2]
BLOCK = ROOT / 'test' / 'fixtures' / 'real_world' / 'meshes' / 'block_decimetre_yup.dae'
#: The block's vertices span 2 × 1 × 0.5 units of 0.1 m, written with Y_UP.
BLOCK_SIZE = (0.2, 0.1, 0.05)


def test_collada_is_read_in_metres_with_its_axes_as_written() -> None:
    vertices, faces = meshes.read_mesh(BLOCK)
    assert len(faces) == 12
    assert np.allclose(vertices.min(axis=0), 0) and np.allclose(vertices.max(axis=0), BLOCK_SIZE)
    assert meshes.mesh_bounds(str(BLOCK)) == ((0.0, 0.0, 0.0), pytest.approx(BLOCK_SIZE))


def test_collada_agrees_with_trimesh_but_for_the_unit() -> None:
    """trimesh (pycollada inside) is the reference reader; it leaves the unit out."""
    import trimesh
    reference = trimesh.load(BLOCK, force='mesh', process=False)
    got, faces = meshes.read_mesh(BLOCK)
    assert np.allclose(got[faces], np.asarray(reference.vertices)[reference.faces] * 0.1)


def test_a_gazebo_collada_file_loads() -> None:
    """libsdformat's own test mesh (a 2 m cube exported by Blender, unit 1, Z_UP)."""
    vertices, faces = meshes.read_mesh(shared('corpus', 'sdformat', 'gazebosim_sdformat',
                                              'test', 'sdf', 'box.dae'))
    assert len(faces) == 12
    assert np.allclose(vertices.min(axis=0), -1, atol=1e-5)
    assert np.allclose(vertices.max(axis=0), 1, atol=1e-5)


def test_an_unsafe_collada_file_is_refused_not_expanded(tmp_path: Path) -> None:
    bomb = tmp_path / 'bomb.dae'
    bomb.write_text('<?xml version="1.0"?>\n<!DOCTYPE COLLADA [<!ENTITY a "aaaaaaaaaa">'
                    '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n'
                    '<COLLADA version="1.4.1"><asset><unit meter="&b;"/></asset></COLLADA>\n')
    with pytest.raises(meshes.MeshError, match='bomb.dae'):
        meshes.read_mesh(bomb)


def test_a_broken_collada_file_is_a_mesh_error(tmp_path: Path) -> None:
    broken = tmp_path / 'broken.dae'
    broken.write_text('<COLLADA version="1.4.1"><library_geometries>')
    with pytest.raises(meshes.MeshError, match='could not be read'):
        meshes.read_mesh(broken)


def _robot_with_block(tmp_path: Path) -> Path:
    path = tmp_path / 'blocky.urdf'
    path.write_text(f'''<robot name="blocky">
  <link name="base"/>
  <link name="tool">
    <visual><geometry><mesh filename="file://{BLOCK}" scale="10 10 10"/></geometry></visual>
    <collision><origin xyz="0 0 0.1"/>
      <geometry><mesh filename="file://{BLOCK}" scale="1 2 1"/></geometry></collision>
  </link>
  <joint name="j" type="revolute"><parent link="base"/><child link="tool"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
''')
    return path


def test_render_draws_a_collada_mesh(tmp_path: Path) -> None:
    path = _robot_with_block(tmp_path)
    out = tmp_path / 'blocky.png'
    run = subprocess.run([sys.executable, '-m', 'robot_formats.cli', 'render', str(path), '-o',
                          str(out)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert 'cannot' not in run.stderr and 'warning' not in run.stderr
    picture = np.asarray(Image.open(out).convert('RGB'), dtype=float)
    background = picture[0, 0]
    assert (np.abs(picture - background).sum(axis=2) > 30).mean() > 0.02  # the block is drawn
    triangles = render._mesh_file_triangles(str(BLOCK))
    assert np.allclose(triangles.reshape(-1, 3).max(axis=0), BLOCK_SIZE)


def test_mujoco_collision_box_of_a_collada_mesh(tmp_path: Path) -> None:
    result = load(_robot_with_block(tmp_path))
    warnings: list = []
    urdf = mujoco_urdf(result.scene, warnings)
    assert not warnings
    scene = load_text(urdf).scene
    tool = next(link for link in scene.models[0].links if link.name == 'tool')
    (collision,) = tool.collisions
    assert isinstance(collision.geometry, Box)
    assert collision.geometry.size == pytest.approx((0.2, 0.2, 0.05))
    assert collision.origin.xyz == pytest.approx((0.1, 0.1, 0.125))
