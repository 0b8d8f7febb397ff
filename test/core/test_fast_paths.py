"""Issue 18's fast paths, each held to the path it short-cuts: the kinematic tree's lazy edge
matrices, Pose.rpy in plain floats, the URDF reader's one-pass child look-up and mesh URIs, the
CLI's lazily imported commands, and what a load and ``check`` import (no numpy)."""

from __future__ import annotations

import argparse
import copy
import itertools
import math
import pickle
import random
import subprocess
import sys
from dataclasses import FrozenInstanceError
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pytest
from lxml import etree

import robot_formats
from robot_formats import cli
from robot_formats.core.kinematics import Edge, KinematicTree
from robot_formats.core.model import IDENTITY, Pose
from robot_formats.core.rotations import quat_to_rotation, quat_to_rpy, rotation_to_rpy
from robot_formats.core.transforms import invert, pose_to_inverse_matrix, pose_to_matrix
from robot_formats.formats.builtin import _claims_hrdf
from robot_formats.formats.urdf.reader import (_first_children, _urdf_child, _urdf_children,
                                               mesh_uri)

from rf_testlib import FIXTURES, ROOT, random_pose

EXAMPLE = ROOT / 'examples' / 'urdf' / 'arm_with_gripper.urdf'


# --- the kinematic tree -------------------------------------------------------------------

def _trees() -> list[KinematicTree]:
    files = [EXAMPLE, FIXTURES / 'urdf' / 'roundtrip.urdf', ROOT / 'examples' / 'sdf' /
             'workcell.sdf']
    return [robot_formats.load(path).tree for path in files]  # type: ignore[misc]


def test_edge_matrices_are_the_poses_matrices() -> None:
    for tree in _trees():
        for edge in tree.edges.values():
            assert edge.pose == (edge.joint.origin if edge.joint else edge.pose)
            assert np.array_equal(edge.origin, pose_to_matrix(edge.pose))
            offset = edge.child_offset
            expected = np.eye(4) if offset.is_identity else pose_to_inverse_matrix(offset)
            assert np.array_equal(edge.offset, expected)
            assert edge.origin is edge.origin  # computed once


def test_edges_stay_immutable_and_take_matrices_as_before() -> None:
    rng = np.random.default_rng(7)
    pose, offset = random_pose(rng), random_pose(rng)
    edge = Edge('c', 'p', None, pose_to_matrix(pose), pose_to_inverse_matrix(offset), 'frame')
    assert np.allclose(pose_to_matrix(edge.pose), pose_to_matrix(pose), atol=1e-12)
    assert np.allclose(pose_to_matrix(edge.child_offset), pose_to_matrix(offset), atol=1e-12)
    assert edge.kind == 'frame' and not edge.moving
    with pytest.raises(FrozenInstanceError):
        edge.child = 'x'  # type: ignore[misc]
    plain = Edge('c', 'p', None)
    assert plain.pose == IDENTITY and np.array_equal(plain.offset, np.eye(4))
    assert np.array_equal(invert(plain.origin), np.eye(4))


def test_trees_copy_and_pickle() -> None:
    for tree in _trees():
        for copied in (copy.deepcopy(tree), pickle.loads(pickle.dumps(tree))):
            assert copied.order == tree.order
            poses, expected = copied.forward(), tree.forward()
            assert all(np.array_equal(poses[name], expected[name]) for name in expected)
            edge = next(iter(copied.edges.values()))
            assert edge.pose == tree.edges[edge.child].pose


def test_building_and_writing_a_urdf_imports_no_numpy() -> None:
    code = ('import sys, robot_formats\n'
            f'r = robot_formats.load({str(EXAMPLE)!r})\n'
            'robot_formats.urdf_string(r.scene, r.tree)\n'
            'from robot_formats.cli import main\n'
            f'assert main(["check", {str(EXAMPLE)!r}]) == 0\n'
            'assert "numpy" not in sys.modules, "numpy imported"\n')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# --- rotations in plain floats ------------------------------------------------------------

def test_pose_rpy_in_floats_is_the_numpy_path() -> None:
    rng = random.Random(3)
    quats = [tuple(rng.gauss(0, 1) for _ in range(4)) for _ in range(20000)]
    values = (0.0, -0.0, 1.0, -1.0, 0.5, -0.5, math.sqrt(0.5), -math.sqrt(0.5))
    quats += [q for q in itertools.product(values, repeat=4) if any(q)]
    angles = (0.0, math.pi / 2, -math.pi / 2, math.pi, -math.pi, 0.3, 1e-9)
    quats += [Pose.from_xyz_rpy((0, 0, 0), rpy).quat for rpy in itertools.product(angles, repeat=3)]
    for quat in quats:
        expected = rotation_to_rpy(quat_to_rotation(quat))
        got = quat_to_rpy(quat)
        assert max(abs(a - b) for a, b in zip(got, expected)) < 1e-14, (quat, got, expected)


# --- the URDF reader ----------------------------------------------------------------------

def test_one_pass_child_lookup_is_urdfdoms_first_child() -> None:
    root = etree.fromstring(
        b'<robot xmlns:x="urn:x"><joint><!-- c --><x:origin/><origin a="1"/><origin a="2"/>'
        b'<axis xmlns="urn:default"/><limit/><x:limit/><?pi x?><parent/></joint></robot>')
    joint = root[0]
    found = _first_children(joint)
    for tag in ('origin', 'axis', 'limit', 'parent', 'child', 'x:origin'):
        assert found.get(tag) is _urdf_child(joint, tag), tag
    assert found['origin'].get('a') == '1'
    assert [found['origin']] == _urdf_children(joint, 'origin')[:1]


@pytest.mark.parametrize('name', ['package://p/m.stl', 'file:///tmp/m.stl', 'package://[p/m',
                                  'package://pkg\u00e9/m.dae', 'm.stl', '/abs/m.stl',
                                  'http://host/m.stl', 'PACKAGE://p/m.stl'])
def test_mesh_uri_fast_path_is_urlparse(name: str, tmp_path: Path) -> None:
    try:
        scheme = urlparse(name).scheme
    except ValueError:
        scheme = None
    if scheme:
        assert mesh_uri(name, tmp_path) == name
    elif scheme is None:
        with pytest.raises(ValueError):
            mesh_uri(name, tmp_path)
    else:
        assert mesh_uri(name, tmp_path).startswith('file://')


def test_hrdf_claim_of_a_named_robot_is_hrdf_readers() -> None:
    from robot_formats.formats.hrdf.reader import looks_like_hrdf
    for text in (b'<robot name="r"><link name="a"/></robot>',
                 b'<robot name="r" version="1.0"><actuator type="X8-9"/></robot>',
                 b'<robot version="1.0"><actuator type="X8-9"/></robot>',
                 b'<robot><link name="a"/></robot>'):
        root = etree.fromstring(text)
        assert _claims_hrdf(root) == looks_like_hrdf(root), text


# --- the CLI ------------------------------------------------------------------------------

def _sub(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


@pytest.mark.parametrize('command', list(cli.COMMANDS))
def test_each_command_is_listed_with_its_own_help_line(command: str) -> None:
    """The help line in the table is the one the command's parser gives (the table is what
    `--help` shows without importing the command), and the command gets a handler."""
    parser = cli._parser(command)
    helps = {action.dest: action.help for action in _sub(parser)._choices_actions}
    assert list(helps) == list(cli.COMMANDS)
    assert helps[command] == cli.COMMANDS[command][0]
    assert _sub(parser).choices[command].get_default('handler') is not None


def test_unknown_and_no_command_still_refused(capsys) -> None:
    with pytest.raises(SystemExit) as raised:
        cli.main(['no-such-command'])
    assert raised.value.code == 2
    assert "invalid choice: 'no-such-command'" in capsys.readouterr().err
    assert cli.main([]) == 2


def test_inline_origin_is_from_xyz_rpy() -> None:
    from robot_formats.formats.urdf.reader import _UrdfParser
    rng = random.Random(5)
    parser = _UrdfParser(None, [])
    texts = ['0 0 0', '0 -0 0', '-0 0 0', '1e-300 0 0', '1.5707963267949 0 0', '3 -2 1e5']
    texts += [' '.join(repr(rng.uniform(-7, 7)) for _ in range(3)) for _ in range(500)]
    for xyz, rpy in zip(texts, reversed(texts)):
        element = etree.fromstring(f'<origin xyz="{xyz}" rpy="{rpy}"/>')
        expected = Pose.from_xyz_rpy(tuple(map(float, xyz.split())),
                                     tuple(map(float, rpy.split())))
        got = parser.origin(element)
        assert got == expected and [math.copysign(1, v) for v in got.quat] == \
            [math.copysign(1, v) for v in expected.quat], (xyz, rpy)
