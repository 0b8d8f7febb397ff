"""description_publisher serving a DART SKEL world over real DDS, against dartpy itself.

The world has two skeletons and every multi-DoF joint kind (free, ball, euler zyx and xyz,
planar in an arbitrary plane and in xy, translational, universal) plus revolute and weld joints,
joint frames offset from the child body, init_pos on every moving joint, and physics settings.
dartpy 6.20 reads the same file in a subprocess (test/formats/skel/dart_oracle.py: DART can
crash, so never in this process) and gives its generalized coordinates and body transforms:

* robot_description passes check_urdf and has a link per DART body, ``<skeleton>::<body>``;
* the node's own /joint_states (publish_joint_states) names one coordinate per DART DoF, in
  DART's order, with the documented names (docs/skel.md), at DART's initial positions (init_pos);
* /tf from those joint states, and from JointStates sent by the test (random configurations,
  names shuffled), composed with /tf_static, place every body where the library's forward
  kinematics (1e-9) and dartpy (1e-6) put it.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from robot_formats.runtime.description import Description

from .harness import (TF_QOS, TF_STATIC_QOS, assert_poses_equal, compose, edges_of,
                      run_check_urdf, stamp_of, urdf_names)
from .test_description_publisher import FREQUENCY, Running, library_tree

ORACLE = Path(__file__).resolve().parents[1] / 'formats' / 'skel' / 'dart_oracle.py'
DART_TOL = 1e-6

WORLD = """<?xml version="1.0"?>
<skel version="1.0">
  <world name="lab">
    <physics>
      <time_step>0.002</time_step>
      <gravity>0 0 -9.81</gravity>
      <collision_detector>fcl</collision_detector>
    </physics>
    <skeleton name="robot">
      <transformation>0.2 -0.1 0.3 0 0 0.4</transformation>
      <body name="base">
        <transformation>0 0 0.5 0.1 0 0</transformation>
        <inertia><mass>3</mass><offset>0.01 0 0.02</offset></inertia>
        <visualization_shape><geometry><box><size>0.3 0.2 0.1</size></box></geometry>
        </visualization_shape>
      </body>
      <body name="head"><transformation>0 0 0.8 0 0.2 0</transformation>
        <visualization_shape><geometry><sphere><radius>0.08</radius></sphere></geometry>
        </visualization_shape>
      </body>
      <body name="arm"><transformation>0.2 0.1 0.6 0.3 -0.2 0.1</transformation>
        <inertia><mass>1</mass><offset>0.1 0 0</offset></inertia>
        <collision_shape><geometry><cylinder><radius>0.03</radius><height>0.3</height>
        </cylinder></geometry></collision_shape>
      </body>
      <body name="sled"><transformation>0.45 0.1 0.6 0 0 0.5</transformation></body>
      <body name="finger"><transformation>0.55 0.15 0.62 0 0.3 0</transformation></body>
      <body name="slider"><transformation>0 -0.3 0.5 0 0 0</transformation></body>
      <body name="wrist"><transformation>0 -0.3 0.7 0.2 0 0</transformation></body>
      <joint type="free" name="float">
        <parent>world</parent><child>base</child>
        <init_pos>0.2 -0.3 0.5 0.05 0.1 -0.02</init_pos>
      </joint>
      <joint type="ball" name="neck">
        <parent>base</parent><child>head</child>
        <transformation>0 0 -0.05 0.1 0.2 0</transformation>
        <init_pos>0.3 0.1 -0.4</init_pos>
      </joint>
      <joint type="euler" name="shoulder">
        <parent>base</parent><child>arm</child>
        <transformation>-0.1 0 0 0 0 0.3</transformation>
        <axis_order>zyx</axis_order>
        <init_pos>0.4 -0.2 0.7</init_pos>
      </joint>
      <joint type="planar" name="slide">
        <parent>arm</parent><child>sled</child>
        <plane type="arbitrary">
          <translation_axis1><xyz>1 0.2 0</xyz></translation_axis1>
          <translation_axis2><xyz>0 1 0.3</xyz></translation_axis2>
        </plane>
        <init_pos>0.05 -0.04 0.6</init_pos>
      </joint>
      <joint type="revolute" name="knuckle">
        <parent>sled</parent><child>finger</child>
        <transformation>0.02 0 0 0 0 0</transformation>
        <axis><xyz>0 1 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>
        <init_pos>0.25</init_pos>
      </joint>
      <joint type="translational" name="rail">
        <parent>base</parent><child>slider</child>
        <init_pos>0.1 0.02 -0.03</init_pos>
      </joint>
      <joint type="universal" name="cardan">
        <parent>slider</parent><child>wrist</child>
        <axis><xyz>1 0 0</xyz></axis><axis2><xyz>0 0 1</xyz></axis2>
        <init_pos>-0.5 0.8</init_pos>
      </joint>
    </skeleton>
    <skeleton name="cart">
      <body name="chassis"><transformation>1 2 0.1 0 0 0</transformation>
        <inertia><mass>10</mass><offset>0 0 0</offset>
          <moment_of_inertia><ixx>1</ixx><iyy>2</iyy><izz>3</izz><ixy>0</ixy><ixz>0</ixz>
          <iyz>0</iyz></moment_of_inertia></inertia>
      </body>
      <body name="mast"><transformation>1 2 0.6 0 0 0</transformation></body>
      <body name="camera"><transformation>1.05 2 0.9 0 0.5 0</transformation></body>
      <joint type="planar" name="drive">
        <parent>world</parent><child>chassis</child>
        <plane type="xy"/>
        <init_pos>0.5 -0.25 1.2</init_pos>
      </joint>
      <joint type="euler" name="pan">
        <parent>chassis</parent><child>mast</child>
        <axis_order>xyz</axis_order>
        <init_pos>0.1 0.2 0.3</init_pos>
      </joint>
      <joint type="weld" name="mount">
        <parent>mast</parent><child>camera</child>
      </joint>
    </skeleton>
  </world>
</skel>
"""

#: Our coordinate suffixes by DART joint class (docs/skel.md); euler joints use axis letters.
SUFFIXES = {'RevoluteJoint': ('',), 'UniversalJoint': ('axis1', 'axis2'),
            'BallJoint': ('rot_x', 'rot_y', 'rot_z'), 'TranslationalJoint': ('x', 'y', 'z'),
            'PlanarJoint': ('trans1', 'trans2', 'rot'),
            'FreeJoint': ('rot_x', 'rot_y', 'rot_z', 'pos_x', 'pos_y', 'pos_z')}
CONFIGURATIONS = 4


def _dof_name(skeleton: str, dof: dict) -> str:
    prefix = f'{skeleton}::{dof["joint"]}'
    if dof['type'] == 'EulerJoint':
        return f'{prefix}/{dof["axis_order"][dof["index_in_joint"]]}'
    suffix = SUFFIXES[dof['type']][dof['index_in_joint']]
    return f'{prefix}/{suffix}' if suffix else prefix


@pytest.fixture(scope='module')
def world_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp('skel_node') / 'lab.skel'
    path.write_text(WORLD)
    return path


@pytest.fixture(scope='module')
def dart(world_file: Path) -> dict:
    """dartpy's view of the world: initial state, and body transforms at random
    configurations drawn here (uniform in [-1.5, 1.5] per DoF, in DART's order)."""
    rng = random.Random(11)
    count = len(library_tree(world_file).dof_names)
    positions = [[rng.uniform(-1.5, 1.5) for _ in range(count)] for _ in range(CONFIGURATIONS)]
    jobs = world_file.with_name('jobs.json')
    out = world_file.with_name('dart.jsonl')
    jobs.write_text(json.dumps([{'path': str(world_file), 'positions': positions}]))
    run = subprocess.run([sys.executable, str(ORACLE), str(jobs), str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and out.exists(), f'dartpy failed: {run.stderr[-2000:]}'
    answer = json.loads(out.read_text().splitlines()[0])
    assert answer['loaded'], answer
    answer['names'] = [_dof_name(s['name'], d) for s in answer['skeletons'] for d in s['dofs']]
    answer['initial'] = [q for s in answer['skeletons'] for q in s['positions']]
    return answer


@pytest.fixture(scope='module')
def node(module_launcher, world_file: Path) -> Running:
    process, ros = module_launcher.publisher('skel_lab', description_file=str(world_file),
                                             publish_joint_states=True,
                                             publish_frequency=FREQUENCY)
    return Running(process, ros, world_file)


def _assert_dart_frames(received: dict[str, np.ndarray], frames: dict[str, list], where: str
                        ) -> None:
    for name, matrix in frames.items():
        assert name in received, f'{where}: no TF frame {name!r}'
        error = float(np.max(np.abs(np.array(matrix) - received[name])))
        assert error <= DART_TOL, f'{where}: {name} is {error:.3g} from dartpy'


def test_description_is_valid_urdf_with_a_link_per_dart_body(node: Running, dart: dict,
                                                              tmp_path: Path) -> None:
    node.wait_latched()
    text = node.description.last.data
    result = run_check_urdf(text, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    links, joints = urdf_names(text)
    assert set(dart['initial_frames']) <= set(links)
    assert {'robot::float', 'robot::neck', 'cart::drive/trans1', 'robot::shoulder/z',
            'cart::pan/x'} <= set(joints)


def test_initial_joint_states_and_tf_are_darts(node: Running, dart: dict) -> None:
    """Without any other node: /joint_states in DART's DoF order at init_pos, and the /tf they
    cause places every body where DART does right after loading."""
    ros, process = node.ros, node.process
    states = ros.subscribe(JointState, 'joint_states', 10)
    tf_static = ros.subscribe(TFMessage, '/tf_static', TF_STATIC_QOS)
    tf = ros.subscribe(TFMessage, '/tf', TF_QOS)
    moving = {child for child, edge in Description.load(node.path).urdf_tree.edges.items()
              if edge.moving}

    def tf_matching_a_state() -> Any:
        stamps = {stamp_of(m) for m in states.messages}
        full = [m for m in tf.messages if m.transforms and stamp_of(m.transforms[0]) in stamps
                and {t.child_frame_id for t in m.transforms} == moving]
        return full and tf_static.messages and full[-1]

    message = ros.spin_until(tf_matching_a_state, what='joint_states and the /tf they cause',
                             process=process)
    state = next(m for m in states.messages if stamp_of(m) == stamp_of(message.transforms[0]))
    assert list(state.name) == dart['names']
    assert len(state.name) == sum(len(s['dofs']) for s in dart['skeletons']) == 27
    assert np.allclose(state.position, dart['initial'], atol=1e-12)
    received = compose({**edges_of(tf_static.messages[-1:]), **edges_of([message])})
    tree = library_tree(node.path)
    expected = tree.forward()
    assert_poses_equal({k: received[k] for k in expected}, expected)
    _assert_dart_frames(received, dart['initial_frames'], 'initial configuration')


def test_tf_from_joint_states_equals_library_and_dart(node: Running, dart: dict) -> None:
    node.wait_latched()
    tree = library_tree(node.path)
    rng = random.Random(5)
    for index, config in enumerate(dart['configurations']):
        values = dict(zip(dart['names'], config['positions']))
        names = list(values)
        rng.shuffle(names)  # the node maps by name
        _, messages = node.send_until_tf(names, [values[n] for n in names])
        received = node.received_poses(messages)
        expected = tree.forward(values)
        assert_poses_equal({k: received[k] for k in expected}, expected,
                           context=f'configuration {index}: ')
        _assert_dart_frames(received, config['frames'], f'configuration {index}')
