"""problem_server over real DDS: services, TF after attach/detach/reset, robot descriptions,
markers, and error answers while the node keeps serving.

Expected poses are computed here from the problem file's numbers with closed-form math
(row-major 3x4 matrices, Rodrigues), never with robot_formats' own code.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from robot_formats_interfaces.srv import (AttachObject, DetachObject, GetActionJoints, GetGrasps,
                                          GetObject, GetPlacements, GetProblem, ListObjects,
                                          ResetProblem)
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import Marker, MarkerArray

from .harness import (DESCRIPTION_QOS, ROOT, TF_QOS, compose, edges_of, quat_to_matrix,
                      transform_matrix)

KITCHEN = ROOT / 'examples' / 'tmp' / 'kitchen.xml'
NODE = 'problem_server'
TOL = 1e-9


def row_major(text: str) -> np.ndarray:
    m = np.eye(4)
    m[:3, :] = np.array([float(v) for v in text.split()]).reshape(3, 4)
    return m


def rodrigues(axis, angle) -> np.ndarray:
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    out = np.eye(4)
    out[:3, :3] = np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx
    return out


def pose_matrix(pose) -> np.ndarray:
    out = np.eye(4)
    o = pose.orientation
    out[:3, :3] = quat_to_matrix(o.x, o.y, o.z, o.w)
    out[:3, 3] = (pose.position.x, pose.position.y, pose.position.z)
    return out


TRAY = row_major('0.0 -1.0 0.0 1.5 1.0 0.0 0.0 0.4 0.0 0.0 1.0 0.91')
GLASS1 = row_major('1.0 0.0 0.0 1.45 0.0 1.0 0.0 0.3 0.0 0.0 1.0 0.98')
HELPER_BASE = row_major('0.0 -1.0 0.0 0.9 1.0 0.0 0.0 -1.2 0.0 0.0 1.0 0.0')


class Server:
    """One problem_server process and the test's clients and subscriptions."""

    def __init__(self, launcher, problem: Path, name: str, strict: bool = False) -> None:
        self.process, self.side = launcher.command(
            ['-m', 'robot_formats.nodes.problem_server', '--ros-args', '-p',
             f'problem_file:={problem}', '-p', f'strict:={str(strict).lower()}'], name)
        node = self.side.node
        self.clients = {
            name: node.create_client(kind, f'/{NODE}/{name}') for kind, name in [
                (GetProblem, 'get_problem'), (ListObjects, 'list_objects'),
                (GetObject, 'get_object'), (GetGrasps, 'get_grasps'),
                (GetPlacements, 'get_placements'), (GetActionJoints, 'get_action_joints'),
                (AttachObject, 'attach'), (DetachObject, 'detach'), (ResetProblem, 'reset')]}
        self.kinds = {'get_problem': GetProblem, 'list_objects': ListObjects,
                      'get_object': GetObject, 'get_grasps': GetGrasps,
                      'get_placements': GetPlacements, 'get_action_joints': GetActionJoints,
                      'attach': AttachObject, 'detach': DetachObject, 'reset': ResetProblem}

    def call(self, service: str, **fields):
        request = self.kinds[service].Request(**fields)
        return self.side.call(self.clients[service], request, process=self.process)


@pytest.fixture(scope='module')
def server(module_launcher):
    return Server(module_launcher, KITCHEN, 'problem_server_kitchen')


def latest_static(server, inbox, after: int = 0) -> dict:
    """World poses and parents from the newest /tf_static message (each holds the whole set)."""
    server.side.spin_until(lambda: len(inbox) > after, what='a new /tf_static',
                           process=server.process)
    edges = edges_of([inbox.last])
    return compose(edges), {child: parent for child, (parent, _) in edges.items()}


def test_get_problem_lists_objects_robots_and_actions(server):
    answer = server.call('get_problem')
    assert answer.success, answer.message
    assert [o.name for o in answer.objects] == ['counter', 'dining_table', 'tray', 'glass1',
                                                'glass2', 'cup1']
    glass = next(o for o in answer.objects if o.name == 'glass1')
    assert glass.parent == 'tray' and glass.moveable and glass.continuous_grasp_sets == 2
    assert list(glass.grasp_types) == ['side', 'top'] and glass.stable_poses == 2
    np.testing.assert_allclose(pose_matrix(glass.pose), GLASS1, atol=TOL)
    np.testing.assert_allclose(pose_matrix(glass.pose_in_parent), np.linalg.inv(TRAY) @ GLASS1,
                               atol=TOL)
    counter = answer.objects[0]
    assert counter.support_kind == 'polygon' and len(counter.support_region) == 6
    assert [r.name for r in answer.robots] == ['pr2', 'helper']
    helper = answer.robots[1]
    assert helper.base_frame == 'helper/base_link' and helper.format == 'urdf'
    assert helper.description_topic == '/helper/robot_description'
    positions = dict(zip(helper.joint_names, helper.joint_positions))
    assert positions['elbow'] == 0.6 and positions['finger_left'] == 0.02
    assert [a.name for a in answer.actions] == ['pick-left', 'pick-right', 'hand-over']
    listed = server.call('list_objects')
    assert list(listed.names)[:3] == ['counter', 'dining_table', 'tray']
    assert list(listed.moveable)[:3] == [False, False, True]
    joints = server.call('get_action_joints', action='hand-over')
    assert joints.success and list(joints.robots) == ['helper'] * 5


def test_each_robot_has_its_own_description(server):
    inboxes = {name: server.side.subscribe(String, f'/{name}/robot_description', DESCRIPTION_QOS)
               for name in ('pr2', 'helper')}
    server.side.spin_until(lambda: all(len(i) for i in inboxes.values()),
                           what='both robot descriptions', process=server.process)
    assert '<robot name="dual_arm"' in inboxes['pr2'].last.data
    assert 'shoulder_pan' in inboxes['helper'].last.data
    assert 'l_shoulder_pan_joint' not in inboxes['helper'].last.data


def test_tf_places_objects_robots_and_moving_joints(server, tf_static):
    poses, parents = latest_static(server, tf_static)
    np.testing.assert_allclose(poses['glass1'], GLASS1, atol=TOL)
    np.testing.assert_allclose(poses['tray'], TRAY, atol=TOL)
    assert parents['glass1'] == 'tray' and parents['tray'] == 'world'
    np.testing.assert_allclose(poses['helper/base_link'], HELPER_BASE, atol=TOL)
    assert parents['helper/base_link'] == 'world'
    tf = server.side.subscribe(TFMessage, '/tf', TF_QOS)
    server.side.spin_until(lambda: any(t.child_frame_id == 'pr2/torso_lift_link'
                                       for m in tf.messages for t in m.transforms),
                           what='pr2 moving joints on /tf', process=server.process)
    torso = next(t for m in tf.messages for t in m.transforms
                 if t.child_frame_id == 'pr2/torso_lift_link')
    assert torso.header.frame_id == 'pr2/base_link'
    # URDF: origin (-0.05, 0, 0.2), prismatic along z, <torso>0.2</torso>
    np.testing.assert_allclose(transform_matrix(torso.transform)[:3, 3], [-0.05, 0.0, 0.4],
                               atol=TOL)


def test_grasps_in_world_and_object_frames(server):
    answer = server.call('get_grasps', object='glass1', type='side', samples=8)
    assert answer.success and answer.frame_id == 'world' and len(answer.grasps) == 8
    template = row_major('0.0 0.0 1.0 -0.085 0.0 1.0 0.0 0.0 -1.0 0.0 0.0 0.0')
    for k, grasp in enumerate(answer.grasps):
        assert grasp.id == f'gc0/{k}' and grasp.type == 'side'
        expected = GLASS1 @ rodrigues((0, 0, 1), 2 * math.pi * k / 8) @ template
        np.testing.assert_allclose(pose_matrix(grasp.pose), expected, atol=TOL)
    local = server.call('get_grasps', object='cup1', frame='object', samples=3)
    assert local.frame_id == 'cup1' and [g.id for g in local.grasps] == ['gf0', 'gf1']
    np.testing.assert_allclose(pose_matrix(local.grasps[1].pose),
                               row_major('1 0 0 0 0 -1 0 0 0 0 -1 0.095'), atol=TOL)


def test_packed_grasps_are_the_same_grasps_as_flat_arrays(server):
    answer = server.call('get_grasps', object='glass1', type='side', samples=360, packed=True)
    assert answer.success and not answer.grasps and answer.frame_id == 'world'
    assert len(answer.ids) == len(answer.types) == 360 and len(answer.poses) == 7 * 360
    template = row_major('0.0 0.0 1.0 -0.085 0.0 1.0 0.0 0.0 -1.0 0.0 0.0 0.0')
    for k in (0, 1, 45, 180, 359):
        assert answer.ids[k] == f'gc0/{k}' and answer.types[k] == 'side'
        x, y, z, qx, qy, qz, qw = answer.poses[7 * k:7 * k + 7]
        got = np.eye(4)
        got[:3, :3] = quat_to_matrix(qx, qy, qz, qw)
        got[:3, 3] = (x, y, z)
        expected = GLASS1 @ rodrigues((0, 0, 1), 2 * math.pi * k / 360) @ template
        np.testing.assert_allclose(got, expected, atol=TOL)
    # a turned object: the tray's discrete grasps, both forms
    packed = server.call('get_grasps', object='tray', packed=True)
    full = server.call('get_grasps', object='tray')
    frames = ['0.0 0.0 1.0 -0.25 0.0 1.0 0.0 0.0 -1.0 0.0 0.0 0.0',
              '0.0 0.0 -1.0 0.25 0.0 1.0 0.0 0.0 1.0 0.0 0.0 0.0']
    assert list(packed.ids) == [g.id for g in full.grasps] == ['gf0', 'gf1']
    for i, frame in enumerate(frames):
        expected = TRAY @ row_major(frame)
        np.testing.assert_allclose(pose_matrix(full.grasps[i].pose), expected, atol=TOL)
        x, y, z, qx, qy, qz, qw = packed.poses[7 * i:7 * i + 7]
        np.testing.assert_allclose(quat_to_matrix(qx, qy, qz, qw), expected[:3, :3], atol=TOL)
        np.testing.assert_allclose((x, y, z), expected[:3, 3], atol=TOL)


def test_a_burst_of_requests_to_one_service_is_answered_in_full(server):
    """60 get_grasps sent at once (the node takes waiting requests in batches, not one per
    wait, and keeps up to 1000 waiting)."""
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    client = server.side.node.create_client(
        GetGrasps, f'/{NODE}/get_grasps',
        qos_profile=QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
    assert client.wait_for_service(timeout_sec=30)
    futures = [client.call_async(GetGrasps.Request(object='glass1', samples=1 + k % 5))
               for k in range(60)]
    server.side.spin_until(lambda: all(f.done() for f in futures), what='60 answers',
                           process=server.process)
    assert [len(f.result().grasps) for f in futures] == [2 * (1 + k % 5) for k in range(60)]


def test_placements_on_the_dining_table(server):
    answer = server.call('get_placements', object='cup1', support='dining_table', samples=6)
    assert answer.success and len(answer.placements) == 6
    for k, placement in enumerate(answer.placements):
        pose = pose_matrix(placement.pose)
        x, y, z = pose[:3, 3]
        assert -0.35 <= x <= 0.75 and -1.55 <= y <= -0.85 and abs(z - 0.795) < TOL
        np.testing.assert_allclose(pose[:3, :3], rodrigues((0, 0, 1), 2 * math.pi * k / 6)[:3, :3],
                                   atol=TOL)
        assert abs(placement.support_point.z - 0.75) < TOL


def test_markers_show_meshes_supports_and_requested_grasps(server):
    inbox = server.side.subscribe(MarkerArray, f'/{NODE}/markers', DESCRIPTION_QOS)
    server.side.spin_until(lambda: len(inbox), what='markers', process=server.process)
    markers = inbox.last.markers
    meshes = {m.header.frame_id: m.mesh_resource for m in markers if m.ns == 'objects'}
    assert set(meshes) == {'counter', 'dining_table', 'tray', 'glass1', 'glass2', 'cup1'}
    assert meshes['cup1'].startswith('file:///') and meshes['cup1'].endswith('/cup.obj')
    supports = {m.header.frame_id: m for m in markers if m.ns == 'supports'}
    assert supports['counter'].type == Marker.LINE_STRIP and len(supports['counter'].points) == 7
    assert supports['dining_table'].type == Marker.CUBE
    assert not any(m.ns == 'grasps' for m in markers)
    count = len(inbox)
    answer = server.call('get_grasps', object='tray', show=True)
    assert answer.success
    server.side.spin_until(lambda: len(inbox) > count, what='markers with grasps',
                           process=server.process)
    arrows = [m for m in inbox.last.markers if m.ns == 'grasps']
    assert len(arrows) == 2 and all(m.header.frame_id == 'world' for m in arrows)


def test_attach_and_detach_change_tf_at_once(server, tf_static):
    assert server.call('get_object', name='glass1').object.parent == 'tray'  # now remembered
    count = len(tf_static)
    answer = server.call('detach', object='glass1')
    assert answer.success, answer.message
    assert server.call('get_object', name='glass1').object.parent == 'world'  # not the old one
    poses, parents = latest_static(server, tf_static, count)
    assert parents['glass1'] == 'world'
    np.testing.assert_allclose(poses['glass1'], GLASS1, atol=TOL)  # stays where it was

    count = len(tf_static)
    assert server.call('attach', object='glass1', parent='pr2/l_gripper_tool_frame').success
    latest_static(server, tf_static, count)
    parents = {child: parent for child, (parent, _) in edges_of([tf_static.last]).items()}
    assert parents['glass1'] == 'pr2/l_gripper_tool_frame'
    # through the arm's moving joints (/tf) the glass is still where it was
    tf = server.side.subscribe(TFMessage, '/tf', TF_QOS)
    server.side.spin_until(lambda: len(tf) >= 2, what='/tf of both robots',
                           process=server.process)
    poses = compose(edges_of([tf_static.last, *tf.messages[-2:]]))
    np.testing.assert_allclose(poses['glass1'], GLASS1, atol=TOL)

    count = len(tf_static)
    assert server.call('attach', object='glass1', parent='dining_table').success
    poses, parents = latest_static(server, tf_static, count)
    assert parents['glass1'] == 'dining_table'
    np.testing.assert_allclose(poses['glass1'], GLASS1, atol=TOL)
    assert server.call('get_object', name='glass1').object.parent == 'dining_table'

    count = len(tf_static)
    assert server.call('reset').success
    poses, parents = latest_static(server, tf_static, count)
    assert parents['glass1'] == 'tray'
    np.testing.assert_allclose(poses['glass1'], GLASS1, atol=TOL)


@pytest.mark.parametrize('service, fields, words', [
    ('get_object', {'name': 'teapot'}, "no object named 'teapot'"),
    ('get_grasps', {'object': 'glass1', 'frame': 'moon'}, "frame must be 'world' or 'object'"),
    ('get_grasps', {'object': 'glass1', 'samples': 10_000_000}, 'samples must be at most'),
    ('get_placements', {'object': 'cup1', 'support': 'glass2'}, 'no support region'),
    ('get_placements', {'object': 'counter', 'support': 'tray'}, 'no stable poses'),
    ('get_action_joints', {'action': 'juggle'}, "no AMmapping action named 'juggle'"),
    ('attach', {'object': 'tray', 'parent': 'glass1'}, 'cycle'),
    ('attach', {'object': 'tray', 'parent': 'nowhere'}, "no object or robot frame"),
    ('detach', {'object': 'ghost'}, "no object named 'ghost'"),
])
def test_bad_requests_are_answered_and_the_node_keeps_serving(server, service, fields, words):
    answer = server.call(service, **fields)
    assert not answer.success and words in answer.message, answer.message
    assert server.call('list_objects').success
    assert server.process.alive()


def test_a_bad_problem_file_is_reported_and_every_service_says_so(module_launcher,
                                                                  tmp_path_factory):
    bad = tmp_path_factory.mktemp('bad') / 'bad.xml'
    bad.write_text('<problem><objects><obj><name>x</name><pose>1 2 3</pose></obj></objects>'
                   '</problem>')
    server = Server(module_launcher, bad, 'problem_server_bad')
    server.process.wait_for_log('expected 12 numbers')
    answer = server.call('list_objects')
    assert not answer.success and 'no problem is loaded' in answer.message


SPEC_PAGE = ROOT / 'test' / 'formats' / 'tmp' / 'fixtures' / 'spec_page_example.xml'


def test_the_spec_pages_typos_are_read_with_warnings_and_refused_in_strict_mode(module_launcher):
    lenient = Server(module_launcher, SPEC_PAGE, 'problem_server_spec_page')
    lenient.process.wait_for_log(f'{SPEC_PAGE}:76: <torso> is closed by </tordo>')
    answer = lenient.call('list_objects')
    assert answer.success and 'table' in answer.names
    strict = Server(module_launcher, SPEC_PAGE, 'problem_server_spec_page_strict', strict=True)
    strict.process.wait_for_log('refused in strict mode')
    answer = strict.call('get_grasps', object='disc1')
    assert not answer.success and 'no problem is loaded' in answer.message
