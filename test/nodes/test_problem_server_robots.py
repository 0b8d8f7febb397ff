"""problem_server over real DDS with robots that are not URDF files: hebi_sorting.xml (an HRDF
kit) and scara_packing.xml (an SDFormat model). One server per file.

Expected poses come from the problem files' numbers through plain matrix products (see
test_problem_server.py), the SCARA's joints from its SDF file by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from .harness import DESCRIPTION_QOS, ROOT, TF_QOS, compose, edges_of
from .test_problem_server import Server, latest_static, pose_matrix, rodrigues, row_major

EXAMPLES = ROOT / 'examples' / 'tmp'
TOL = 1e-9

CASES = {
    'hebi_sorting': {
        'robot': 'hebi', 'format': 'hrdf',
        'joints': {'base_yaw': -0.5, 'shoulder': 0.9, 'elbow': 1.8, 'wrist1': 0.8,
                   'wrist2': 0.0},
        'base': '1.0 0.0 0.0 0.2 0.0 1.0 0.0 0.0 0.0 0.0 1.0 0.72',
        'objects': ['bench', 'bin', 'block1', 'block2', 'can'],
        'attached': ('block2', 'block1'),
        'grasped': ('can', '1.0 0.0 0.0 0.5 0.0 1.0 0.0 0.12 0.0 0.0 1.0 0.77',
                    '1.0 0.0 0.0 0.0 0.0 -1.0 0.0 0.0 0.0 0.0 -1.0 0.045', 'top', 'gc1'),
        'placed': ('block2', 'bench', '1.0 0.0 0.0 0.6 0.0 1.0 0.0 0.0 0.0 0.0 1.0 0.0',
                   0.72, 0.025),
        'moving': 'hebi/elbow/output',
    },
    'scara_packing': {
        'robot': 'packer', 'format': 'sdf',
        'joints': {'scara::shoulder': 0.3, 'scara::elbow': -0.6, 'scara::lift': -0.12,
                   'scara::wrist': 0.3},
        'base': '1.0 0.0 0.0 -0.35 0.0 1.0 0.0 0.0 0.0 0.0 1.0 0.72',
        'objects': ['bench', 'fixture', 'parts_box', 'peg1', 'washer1', 'washer2'],
        'attached': ('peg1', 'fixture'),
        'grasped': ('washer2', '1.0 0.0 0.0 0.2 0.0 1.0 0.0 -0.05 0.0 0.0 1.0 0.725',
                    '1.0 0.0 0.0 0.0 0.0 -1.0 0.0 0.0 0.0 0.0 -1.0 0.004', 'top', 'gc0'),
        'placed': ('washer1', 'parts_box', '1.0 0.0 0.0 0.1 0.0 1.0 0.0 0.17 0.0 0.0 1.0 0.72',
                   0.01, 0.005),
        'moving': 'packer/scara::quill',
    },
}


@pytest.fixture(scope='module', params=sorted(CASES))
def case(request):
    return request.param, CASES[request.param]


@pytest.fixture(scope='module')
def server(module_launcher, case):
    name, _ = case
    return Server(module_launcher, EXAMPLES / f'{name}.xml', f'problem_server_{name}')


def test_robot_is_served_with_its_mapped_joints_and_description(server, case):
    _, expected = case
    answer = server.call('get_problem')
    assert answer.success, answer.message
    assert [o.name for o in answer.objects] == expected['objects']
    (robot,) = answer.robots
    assert robot.name == expected['robot'] and robot.format == expected['format']
    assert dict(zip(robot.joint_names, robot.joint_positions)) == pytest.approx(
        expected['joints'], abs=TOL)
    np.testing.assert_allclose(pose_matrix(robot.base_pose), row_major(expected['base']),
                               atol=TOL)
    joints = server.call('get_action_joints', action='pick')
    assert list(joints.joints) == list(expected['joints'])
    assert list(joints.robots) == [expected['robot']] * len(expected['joints'])
    inbox = server.side.subscribe(String, f'/{expected["robot"]}/robot_description',
                                  DESCRIPTION_QOS)
    server.side.spin_until(lambda: len(inbox), what='robot_description', process=server.process)
    assert all(f'<joint name="{joint}"' in inbox.last.data for joint in expected['joints'])


def test_tf_has_objects_robot_base_and_moving_joints(server, case, tf_static):
    _, expected = case
    poses, parents = latest_static(server, tf_static)
    child, parent = expected['attached']
    assert parents[child] == parent
    robot = expected['robot']
    base = f'{robot}/world'
    assert parents[base] == 'world'
    np.testing.assert_allclose(poses[base], row_major(expected['base']), atol=TOL)
    tf = server.side.subscribe(TFMessage, '/tf', TF_QOS)
    server.side.spin_until(lambda: any(t.child_frame_id == expected['moving']
                                       for m in tf.messages for t in m.transforms),
                           what=f'{expected["moving"]} on /tf', process=server.process)
    if robot == 'packer':  # the quill: elbow 0.3 out, 0.06 up; quill 0.25 out, lift along z
        world = compose(edges_of([tf_static.last, tf.messages[-1]]))
        reference = (row_major(expected['base']) @ _translation(0, 0, 0.3)
                     @ rodrigues((0, 0, 1), 0.3) @ _translation(0.3, 0, 0.06)
                     @ rodrigues((0, 0, 1), -0.6) @ _translation(0.25, 0, -0.12))
        np.testing.assert_allclose(world['packer/scara::quill'], reference, atol=TOL)


def _translation(x, y, z) -> np.ndarray:
    out = np.eye(4)
    out[:3, 3] = (x, y, z)
    return out


def test_grasps_and_placements_equal_matrix_products(server, case):
    _, expected = case
    name, pose, template, kind, grasp_set = expected['grasped']
    answer = server.call('get_grasps', object=name, type=kind, samples=360)
    assert answer.success and len(answer.grasps) == 360
    for k in (0, 1, 90, 359):
        grasp = answer.grasps[k]
        assert grasp.id == f'{grasp_set}/{k}' and grasp.type == kind
        np.testing.assert_allclose(
            pose_matrix(grasp.pose),
            row_major(pose) @ rodrigues((0, 0, 1), 2 * math.pi * k / 360) @ row_major(template),
            atol=TOL)
    obj, support, support_pose, height, distance = expected['placed']
    answer = server.call('get_placements', object=obj, support=support, samples=8)
    assert answer.success and len(answer.placements) == 8
    for placement in answer.placements:
        centre = pose_matrix(placement.pose)[:, 3] - [0, 0, distance, 0]
        local = np.linalg.inv(row_major(support_pose)) @ centre
        assert abs(local[2] - height) < TOL
        assert abs(placement.support_point.z - centre[2]) < TOL
