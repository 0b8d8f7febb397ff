"""The upstream interface types the nodes speak are exactly the upstream definitions at the pinned
commits: the RIHS01 type hash each running node announces equals the hash of the upstream
definition.

What "independent" means here: the reference hash is computed in this test, in a temporary folder,
from the upstream interface files themselves (shared/vendor/ros2/src: the content of the commits
pinned in tools/upstream.repos) by rosidl's own generators (rosidl_adapter to IDL,
rosidl_generator_type_description to the type description and its hash: what every ROS build
runs), with the types they reference from other packages read from those packages' installed
descriptions (the Kilted wheels here). Nothing this repository's build produced (underlay/,
install/) nor the package the nodes import is read. So nodes running on other definitions (the
Jazzy-era copies compat/ held, a stale build, another package shadowing the upstream one) announce
another hash and fail. The same computation applied to a wheel's own type (sensor_msgs/JointState)
gives the hash the wheel's nodes announce, which shows the computation is rosidl's.

The hashes come from the graph as any ROS tool reads them (the endpoint info of a topic, as
`ros2 topic info -v` prints it) for topics, and from the node's own type description service
(type_description_interfaces/GetTypeDescription, which answers only for a type the node uses with
that exact hash) for the action's services, which carry the goal and the result.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from ament_index_python.packages import get_package_share_directory
from catkin_pkg.package import parse_package
from rosidl_adapter.action import convert_action_to_idl
from rosidl_adapter.msg import convert_msg_to_idl
from rosidl_adapter.srv import convert_srv_to_idl
from rosidl_generator_type_description import generate_type_hash
from type_description_interfaces.srv import GetTypeDescription

from .harness import ROOT, NodeProcess, RosSide

sys.path.insert(0, str(ROOT / 'test'))
from shared_data import shared  # noqa: E402

FOLLOW = 'control_msgs/action/FollowJointTrajectory'
CONVERTERS = {'msg': convert_msg_to_idl, 'srv': convert_srv_to_idl,
              'action': convert_action_to_idl}
#: Packages every service or action definition refers to besides its package.xml dependencies.
IMPLICIT = ('builtin_interfaces', 'service_msgs', 'action_msgs', 'unique_identifier_msgs')


def rihs(type_hash) -> str:
    """The RIHS string of an rclpy TypeHash."""
    return f'RIHS{type_hash.version:02d}_{type_hash.value.hex()}'


def reference_hashes(package_dir: Path, work: Path) -> dict[str, str]:
    """Type name -> RIHS01 hash of every type of the interface package in ``package_dir``,
    computed by rosidl's generators from its interface files."""
    package_dir = package_dir.resolve()
    package = parse_package(str(package_dir))
    idl_root = work / 'idl'
    tuples = []
    for kind, convert in CONVERTERS.items():
        for source in sorted(package_dir.glob(f'{kind}/*.{kind}')):
            convert(package_dir, package.name, source.relative_to(package_dir), idl_root / kind)
            tuples.append(f'{idl_root}:{kind}/{source.stem}.idl')
    dependencies = {d.name for d in package.build_depends + package.exec_depends} | set(IMPLICIT)
    includes = []
    for name in sorted(dependencies - {package.name}):
        share = Path(get_package_share_directory(name)).resolve()
        assert not {ROOT / 'underlay', ROOT / 'install'} & set(share.parents), (
            f'{name} must come from the environment, not from our build: {share}')
        includes.append(f'{name}:{share}')
    arguments = work / 'arguments.json'
    arguments.write_text(json.dumps({'package_name': package.name, 'output_dir': str(work / 'out'),
                                     'idl_tuples': tuples, 'include_paths': includes}))
    generate_type_hash(str(arguments))
    hashes = {}
    for description in (work / 'out').rglob('*.json'):
        for entry in json.loads(description.read_text())['type_hashes']:
            hashes[entry['type_name']] = entry['hash_string']
    return hashes


@pytest.fixture(scope='module')
def references(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    vendor = shared('vendor', 'ros2', 'src')
    found: dict[str, str] = {}
    for package in ('tf2_msgs', 'control_msgs'):
        found.update(reference_hashes(vendor / package, tmp_path_factory.mktemp(package)))
    # a wheel's own type, computed the same way from the definitions the wheel installed
    sensor = Path(get_package_share_directory('sensor_msgs'))
    copy = tmp_path_factory.mktemp('sensor_msgs_src') / 'sensor_msgs'
    copy.mkdir()
    shutil.copy(sensor / 'package.xml', copy)
    (copy / 'msg').mkdir()
    shutil.copy(sensor / 'msg' / 'JointState.msg', copy / 'msg')
    found.update(reference_hashes(copy, tmp_path_factory.mktemp('sensor_msgs')))
    return found


@pytest.fixture(scope='module')
def motion_sim(module_launcher):
    """motion_sim.launch.py: description_publisher (TF), sim_controller (JTC's action server and
    controller_state), motion_player (the action's client)."""
    ros2 = shutil.which('ros2')
    assert ros2, 'ros2 is not on PATH: source tools/env.sh after `make build`'
    return module_launcher.command(
        [ros2, 'launch', 'robot_formats', 'motion_sim.launch.py', 'rviz:=false'], 'hashes')


def announced(side: RosSide, process: NodeProcess, topic: str, node: str, publisher: bool
              ) -> tuple[str, str]:
    """(type name, RIHS string) of ``node``'s endpoint on ``topic``, once it is on the graph."""
    lookup = (side.node.get_publishers_info_by_topic if publisher
              else side.node.get_subscriptions_info_by_topic)
    endpoint = side.spin_until(
        lambda: next((e for e in lookup(topic) if e.node_name == node), None),
        what=f"{node}'s {'publisher' if publisher else 'subscription'} on {topic}",
        process=process)
    return endpoint.topic_type, rihs(endpoint.topic_type_hash)


@pytest.mark.parametrize('topic, node, publisher, type_name', [
    ('/tf_static', 'description_publisher', True, 'tf2_msgs/msg/TFMessage'),
    ('/tf', 'description_publisher', True, 'tf2_msgs/msg/TFMessage'),
    ('/joint_trajectory_controller/controller_state', 'sim_controller', True,
     'control_msgs/msg/JointTrajectoryControllerState'),
    ('/joint_trajectory_controller/follow_joint_trajectory/_action/feedback', 'sim_controller',
     True, f'{FOLLOW}_FeedbackMessage'),
    ('/joint_trajectory_controller/follow_joint_trajectory/_action/feedback', 'motion_player',
     False, f'{FOLLOW}_FeedbackMessage'),
    ('/joint_states', 'sim_controller', True, 'sensor_msgs/msg/JointState'),
])
def test_topic_types_are_the_upstream_definitions(motion_sim, references, topic, node, publisher,
                                                  type_name) -> None:
    process, side = motion_sim
    found_type, found_hash = announced(side, process, topic, node, publisher)
    assert found_type == type_name
    assert found_hash == references[type_name], (
        f'{node} speaks {type_name} on {topic} with {found_hash}; the upstream definition '
        f'hashes to {references[type_name]}')


@pytest.mark.parametrize('node', ['sim_controller', 'motion_player'])
@pytest.mark.parametrize('service', ['SendGoal', 'GetResult'])
def test_action_services_are_the_upstream_definitions(motion_sim, references, node,
                                                      service) -> None:
    """Goal and result travel in the action's services: the node's type description service
    knows them with the upstream hash (it refuses a type it uses with another hash)."""
    process, side = motion_sim
    client = side.node.create_client(GetTypeDescription, f'/{node}/get_type_description')
    request = GetTypeDescription.Request(type_name=f'{FOLLOW}_{service}',
                                         type_hash=references[f'{FOLLOW}_{service}'])
    response = side.call(client, request, process=process)
    assert response.successful, (
        f'{node} does not use {FOLLOW}_{service} with the upstream hash '
        f'{references[request.type_name]}: {response.failure_reason}')
    assert response.type_description.type_description.type_name == request.type_name


def test_a_wrong_hash_is_refused(motion_sim, references) -> None:
    """The service check above can fail: another hash of the same type is refused."""
    process, side = motion_sim
    client = side.node.create_client(GetTypeDescription, '/sim_controller/get_type_description')
    wrong = references[f'{FOLLOW}_Feedback']
    response = side.call(client, GetTypeDescription.Request(type_name=f'{FOLLOW}_SendGoal',
                                                            type_hash=wrong), process=process)
    assert not response.successful


def test_the_reference_computation_is_rosidls(references) -> None:
    """The JointState hash computed here is the one the sensor_msgs wheel installed."""
    installed = json.loads((Path(get_package_share_directory('sensor_msgs')) / 'msg'
                            / 'JointState.json').read_text())
    wheel = {e['type_name']: e['hash_string'] for e in installed['type_hashes']}
    assert references['sensor_msgs/msg/JointState'] == wheel['sensor_msgs/msg/JointState']
