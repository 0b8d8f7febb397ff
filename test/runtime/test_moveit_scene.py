"""The TMP -> MoveIt conversion without ROS (robot_formats/runtime/moveit_scene.py): which meshes
are boxes, polygons cut into triangles, hands from the AMmapping, touch links, where objects go
(world or a link) and the diffs between two scenes.

References are written here: box meshes and polygons built by hand with known areas, the
bundled arm's URDF read by eye (examples/urdf/arm_with_gripper.urdf).
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

import numpy as np
import pytest

from robot_formats.core.errors import InvalidValueError
from robot_formats.formats import read_problem
from robot_formats.formats.tmp.problem import ProblemObject
from robot_formats.formats.tmp.semantics import ProblemState
from robot_formats.runtime.description import Description
from robot_formats.runtime.moveit_scene import (MoveItRobot, SceneEntry, gripper_move, hands_of,
                                                object_shapes, scene_diff, scene_entries,
                                                support_id, support_shapes, touch_links,
                                                triangulate_polygon)

ROOT = Path(__file__).resolve().parents[2]
PICK_AND_PLACE = ROOT / 'examples' / 'tmp' / 'pick_and_place.xml'

CORNERS = np.array(list(itertools.product([0, 1], repeat=3)), dtype=float)
#: The 12 triangles of the unit cube over CORNERS (index = 4x + 2y + z), outward or not.
CUBE = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6),
        (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]


def write_obj(path: Path, vertices, triangles) -> str:
    lines = [f'v {x!r} {y!r} {z!r}' for x, y, z in np.asarray(vertices, dtype=float).tolist()]
    lines += ['f ' + ' '.join(str(i + 1) for i in t) for t in triangles]
    path.write_text('\n'.join(lines) + '\n')
    return str(path)


def shapes_of(tmp_path: Path, vertices, triangles):
    mesh = write_obj(tmp_path / f'mesh{len(list(tmp_path.iterdir()))}.obj', vertices, triangles)
    return object_shapes(ProblemObject('o', 'o.obj', mesh, np.eye(4), True))


def test_a_box_mesh_is_a_box_primitive_at_its_centre(tmp_path: Path) -> None:
    low, size = np.array([0.5, -1.0, 2.0]), np.array([0.2, 0.3, 0.05])
    (shape,) = shapes_of(tmp_path, low + CORNERS * size, CUBE)
    assert shape.kind == 'box'
    assert np.allclose(shape.size, size, rtol=0, atol=1e-15)
    assert np.allclose(shape.pose[:3, 3], low + size / 2, rtol=0, atol=1e-15)
    assert np.array_equal(shape.pose[:3, :3], np.eye(3))
    # each face cut along its other diagonal: (a, b, c) + (a, c, d) -> (a, b, d) + (b, c, d)
    flipped = [t for (a, b, c), (_, _, d) in zip(CUBE[::2], CUBE[1::2])
               for t in ((a, b, d), (b, c, d))]
    assert shapes_of(tmp_path, CORNERS, flipped)[0].kind == 'box'


@pytest.mark.parametrize('case', ['missing face', 'face twice', 'overlapping halves',
                                  'a vertex off a corner', 'flat', 'extra vertex'])
def test_meshes_that_are_not_exactly_a_box_stay_meshes(tmp_path: Path, case: str) -> None:
    vertices, triangles = CORNERS.copy(), list(CUBE)
    if case == 'missing face':
        triangles = triangles[2:]
    elif case == 'face twice':
        triangles = triangles + triangles[:2]
    elif case == 'overlapping halves':  # x=0 face: two triangles sharing the edge 0-1 only
        triangles = [(0, 1, 3), (0, 1, 2)] + triangles[2:]
    elif case == 'a vertex off a corner':
        vertices[7] = (1.0, 1.0, 0.999)
    elif case == 'flat':
        vertices[:, 2] = 0.0
    elif case == 'extra vertex':  # a ninth vertex in the middle of a face, used by no triangle
        vertices = np.vstack([vertices, [0.0, 0.5, 0.5]])
    (shape,) = shapes_of(tmp_path, vertices, triangles)
    assert shape.kind == 'mesh'
    assert np.array_equal(shape.vertices, vertices)
    assert np.array_equal(shape.triangles, np.array(triangles))


def test_an_object_without_a_readable_mesh_has_no_shape(tmp_path: Path) -> None:
    missing = ProblemObject('o', 'o.obj', str(tmp_path / 'none.obj'), np.eye(4), True)
    unreadable = tmp_path / 'bad.obj'
    unreadable.write_text('v 0 0 0\n')  # no triangles
    assert object_shapes(missing) == ()
    assert object_shapes(ProblemObject('o', 'o.obj', str(unreadable), np.eye(4), True)) == ()
    assert object_shapes(ProblemObject('o', None, None, np.eye(4), True)) == ()


def polygon_area(points: np.ndarray) -> float:
    return 0.5 * abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(points, np.roll(points, -1, 0))))


@pytest.mark.parametrize('name, flat', [
    ('square', [(0, 0), (1, 0), (1, 1), (0, 1)]),
    ('L, clockwise', [(0, 0), (0, 2), (1, 2), (1, 1), (2, 1), (2, 0)]),
    ('L from its reflex corner', [(1, 1), (2, 1), (2, 0), (0, 0), (0, 2), (1, 2)]),
    ('star', [(np.cos(a) * r, np.sin(a) * r) for a, r in
              zip(np.linspace(0, 2 * np.pi, 10, endpoint=False), [1.0, 0.4] * 5)]),
    ('comb', [(0, 0), (5, 0), (5, 3), (4, 3), (4, 1), (3, 1), (3, 3), (2, 3), (2, 1), (1, 1),
              (1, 3), (0, 3)]),
])
def test_polygons_are_cut_into_triangles_that_tile_them(name: str, flat) -> None:
    flat = np.array(flat, dtype=float)
    # tilted into 3-D: the triangulation works in the polygon's plane
    rotation = np.array([[1, 0, 0], [0, np.cos(0.7), -np.sin(0.7)], [0, np.sin(0.7), np.cos(0.7)]])
    points = np.c_[flat, np.zeros(len(flat))] @ rotation.T + [0.3, -0.2, 1.0]
    triangles = triangulate_polygon(points)
    assert len(triangles) == len(points) - 2
    assert sorted(set(triangles.ravel().tolist())) == list(range(len(points)))
    areas = [abs(polygon_area(flat[[a, b, c]])) for a, b, c in triangles]
    assert min(areas) > 0
    assert sum(areas) == pytest.approx(polygon_area(flat), rel=1e-12), name  # no overlap


def test_support_regions_are_boxes_over_their_bounds_or_polygon_meshes() -> None:
    problem = read_problem(ROOT / 'examples' / 'tmp' / 'kitchen.xml', [], strict=False)
    (table,) = support_shapes(problem.objects['dining_table'].support)
    region = problem.objects['dining_table'].support
    assert table.kind == 'box'
    assert np.allclose(table.size, region.high - region.low, rtol=0, atol=1e-15)
    assert np.allclose(table.pose[:3, 3], (region.high + region.low) / 2, rtol=0, atol=1e-15)
    (counter,) = support_shapes(problem.objects['counter'].support)
    assert counter.kind == 'mesh'
    assert np.array_equal(counter.vertices, problem.objects['counter'].support.points)
    assert support_id('tray') == 'tray/support'


@functools.lru_cache(maxsize=1)
def arm_problem():
    problem = read_problem(PICK_AND_PLACE, [], strict=False)
    robot = problem.robots['arm']
    tree = Description.load(robot.description_path, robot.joint_positions).urdf_tree
    return problem, MoveItRobot('arm', tree.scene.name, tree, robot.basepose)


def test_hands_come_from_the_ammapping_gripper_joints_and_their_mimics() -> None:
    problem, robot = arm_problem()
    hands = hands_of(problem, robot)
    assert set(hands) == {'pick', 'place'}
    hand = hands['pick']
    # finger_left (0 .. 0.04) hangs from wrist_link; finger_right mimics it
    assert hand.joints == ('finger_left',) and hand.open == (0.04,) and hand.closed == (0.0,)
    assert hand.palm == 'wrist_link' and hand.links == ('left_finger', 'right_finger')
    assert hand.frame == 'wrist_link'  # the deepest link of shoulder_pan .. wrist_roll
    everything = tuple(hands.values())
    assert touch_links(robot, everything, 'tool_frame') == ('left_finger', 'right_finger')
    assert touch_links(robot, everything, 'wrist_link') == ('left_finger', 'right_finger')
    assert touch_links(robot, everything, 'forearm_link') == ()
    assert robot.link_of('arm/tool_frame') == 'tool_frame'
    assert robot.link_of('arm/nothing') is None and robot.link_of('other/tool_frame') is None


def entries_of(state: ProblemState, robot: MoveItRobot, problem) -> dict[str, SceneEntry]:
    shapes = {name: object_shapes(obj) for name, obj in problem.objects.items()}
    shapes.update({support_id(name): support_shapes(obj.support)
                   for name, obj in problem.objects.items() if obj.support is not None})
    touch = functools.partial(touch_links, robot, tuple(hands_of(problem, robot).values()))
    return scene_entries(state.snapshot(), shapes, robot, touch, {})


def test_objects_carried_by_a_robot_link_are_attached_to_it() -> None:
    problem, robot = arm_problem()
    hand = np.eye(4)
    hand[:3, 3] = (0.25, 0.0, 0.2)
    state = ProblemState(problem, frame_pose=lambda frame: robot.basepose @ hand)
    world = entries_of(state, robot, problem)
    to_root = np.linalg.inv(robot.basepose)
    assert {e.link for e in world.values()} == {''}
    assert np.allclose(world['block'].pose, to_root @ problem.objects['block'].pose, atol=1e-12)
    assert set(world) == {'bench', 'bench/support', 'stand_a', 'stand_a/support', 'stand_b',
                          'stand_b/support', 'block'}
    state.attach('block', 'arm/tool_frame')
    attached = entries_of(state, robot, problem)
    block = attached['block']
    assert block.link == 'tool_frame' and block.touch_links == ('left_finger', 'right_finger')
    assert np.allclose(block.pose, np.linalg.inv(hand) @ to_root @ problem.objects['block'].pose,
                       atol=1e-12)
    diff = scene_diff(world, attached)
    assert [e.id for e in diff.attach] == ['block'] and not (diff.detach or diff.add or diff.move
                                                            or diff.remove)
    back = scene_diff(attached, world)
    assert back.detach == ('block',) and [e.id for e in back.add] == ['block']
    assert not (back.attach or back.move or back.remove)


def test_a_chain_of_carried_objects_hangs_from_the_link_carrying_its_first() -> None:
    problem = read_problem(ROOT / 'examples' / 'tmp' / 'hebi_sorting.xml', [], strict=False)
    spec = problem.robots['hebi']
    tree = Description.load(spec.description_path, spec.joint_positions).urdf_tree
    robot = MoveItRobot('hebi', tree.scene.name, tree, spec.basepose)
    hand = np.eye(4)
    hand[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    hand[:3, 3] = (0.4, 0.1, 0.3)
    state = ProblemState(problem, frame_pose=lambda frame: hand)
    state.attach('block1', 'hebi/gripper/output')  # block1 carries block2 (the file)
    entries = entries_of(state, robot, problem)
    for name in ('block1', 'block1/support', 'block2'):
        obj = problem.objects[name.split('/')[0]]
        assert entries[name].link == 'gripper/output', name
        assert np.allclose(entries[name].pose, np.linalg.inv(hand) @ obj.pose, atol=1e-12)
    assert entries['can'].link == '' and entries['bin'].link == ''


def test_diffs_move_world_objects_and_remove_vanished_ones() -> None:
    problem, robot = arm_problem()
    state = ProblemState(problem)
    before = entries_of(state, robot, problem)
    moved = dict(before)
    pose = before['block'].pose.copy()
    pose[0, 3] += 0.1
    moved['block'] = SceneEntry('block', '', pose, before['block'].shapes)
    del moved['stand_b/support']
    diff = scene_diff(before, moved)
    assert [e.id for e in diff.move] == ['block'] and diff.remove == ('stand_b/support',)
    assert not (diff.attach or diff.detach or diff.add)
    assert not scene_diff(before, before)
    everything = scene_diff(None, before)  # a new subscriber: every object again
    assert [e.id for e in everything.add] == list(before)
    assert everything.detach == tuple(before) and not everything.attach


@pytest.mark.parametrize('direction, desired, minimum', [
    ([0.0, 0.0, 0.0], 0.1, 0.05), ([1.0, 0.0], 0.1, 0.05), ([float('nan'), 0.0, 1.0], 0.1, 0.0),
    ([0.0, 0.0, 1.0], 0.1, 0.2), ([0.0, 0.0, 1.0], 0.1, -0.01), ([0.0, 0.0, 1.0], float('inf'), 0),
])
def test_bad_approach_or_retreat_settings_are_refused(direction, desired, minimum) -> None:
    with pytest.raises(InvalidValueError, match='grasp.approach'):
        gripper_move('grasp.approach', direction, desired, minimum)


def test_a_gripper_move_keeps_the_direction_as_given() -> None:
    move = gripper_move('grasp.retreat', [0, 0, -2], 0.125, 0.0)
    assert move.direction == (0.0, 0.0, -2.0) and (move.desired, move.minimum) == (0.125, 0.0)
