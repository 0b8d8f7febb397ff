"""Every node answers ``--help`` (docs/nodes.md#command-line-and---help), as users ask it:
``ros2 run robot_formats NODE --help``.

* The nodes are the console scripts of setup.py (and setup.cfg) whose code is in
  ``robot_formats.nodes``: a new node is checked without editing this file.
* ``--help`` exits 0 and starts nothing: it runs with a ``ROS_DOMAIN_ID`` rclpy cannot
  initialise with (the same command without ``--help`` fails on it), so the help never
  initialised rclpy, which every DDS participant needs.
* The help lists exactly the parameters a running instance has (``ros2 param list``), each
  with the type, description, read-only flag and range ``ros2 param describe`` shows and the
  default the node holds where the run does not set it; per-robot and per-joint parameters
  are listed with a placeholder (``robots.<robot>.publish_tf``).
* ``ros2 param dump`` prints every parameter ``ros2 param list`` shows, with its value (rclpy
  answers a request naming a parameter declared without a value with nothing at all, so a
  node has none: an array without a value defaults to the empty array of its type).
* Arguments that are neither the node's (``--help``) nor ROS's are refused with exit 2.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time

import pytest
import yaml

from rclpy.parameter import parameter_value_to_python
from rclpy.parameter_client import AsyncParameterClient

from .harness import ARM, ROOT, TIMEOUT, RosSide, subprocess_env

sys.path.insert(0, str(ROOT / 'test' / 'core'))
from rf_testlib import console_scripts  # noqa: E402

#: ``--help`` must answer within this (the issue's contract: it loads nothing and starts
#: nothing, so it takes the time of Python's imports).
HELP_DEADLINE = 5.0
#: A domain id rclpy refuses to initialise with (``ROS_DOMAIN_ID is not an integral number``).
NO_DOMAIN = 'not-a-domain'
RCLPY_SECTION = 'parameters rclpy declares:'
#: rclpy's QoS overrides: only on the topics whose code allows them
QOS_OVERRIDES = 'qos_overrides.<topic>.<entity>.<policy>'


def node_executables() -> dict[str, str]:
    """Console scripts of setup.py and setup.cfg whose code is a node: name -> module."""
    modules = {name: target.split(':')[0] for name, target in console_scripts().items()}
    return {name: module for name, module in modules.items()
            if module.startswith('robot_formats.nodes.')}


NODES = node_executables()

PROBLEM = ROOT / 'examples' / 'tmp' / 'pick_and_place.xml'
#: How each node is started to compare its help with what it declares: parameters (some
#: naming a robot, so per-robot and per-joint parameters exist) and what it logs once built.
#: description_publisher runs without a description: its robot_description holds what it
#: serves, so only with nothing served is it at its default.
RUNS = {
    'description_publisher': ({}, 'description_file'),
    'problem_server': ({'problem_file': str(PROBLEM)}, f'serving {PROBLEM}:'),
    'sim_controller': ({'description_file': str(ARM), 'mode': 'kinematic'}, 'ready'),
    'motion_player': ({'motion_files': [str(ROOT / 'examples' / 'xmdi' / 'arm_wave.xmdi')]},
                      'ready'),
    'motion_recorder': ({}, 'ready'),
}


def ros2() -> str:
    found = shutil.which('ros2')
    assert found, 'ros2 is not on PATH: source tools/env.sh after `make build`'
    return found


def run_node_command(node: str, *args: str, tmp_path, timeout: float = HELP_DEADLINE
                     ) -> subprocess.CompletedProcess:
    """``ros2 run robot_formats NODE ARGS`` where rclpy cannot initialise."""
    env = subprocess_env(0, tmp_path)
    env['ROS_DOMAIN_ID'] = NO_DOMAIN
    return subprocess.run([sys.executable, ros2(), 'run', 'robot_formats', node, *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def help_entries(text: str) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    """The node's own and rclpy's parameters in a help text: name -> (facts, description)."""
    own, _, rclpys = text.partition(RCLPY_SECTION)
    return _entries(own), _entries(rclpys)


def _entries(text: str) -> dict[str, tuple[str, str]]:
    found = re.finditer(r'^  (\S+)  \((.*)\)\n((?:      .*(?:\n|$))*)', text, re.MULTILINE)
    return {m[1]: (m[2], ' '.join(m[3].split())) for m in found}


def test_the_nodes_are_found() -> None:
    assert set(NODES) >= {'description_publisher', 'problem_server', 'sim_controller',
                          'motion_player', 'motion_recorder'}, NODES
    assert set(RUNS) == set(NODES), 'a node without a RUNS entry: say how to start it'


@pytest.mark.parametrize('node', sorted(NODES))
def test_help_answers_at_once_and_starts_nothing(node: str, tmp_path) -> None:
    started = time.monotonic()
    try:
        run = run_node_command(node, '--help', tmp_path=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f'{node} --help did not exit within {HELP_DEADLINE:g} s')
    assert run.returncode == 0, f'{node} --help: exit {run.returncode}\n{run.stdout}{run.stderr}'
    assert time.monotonic() - started < HELP_DEADLINE
    assert run.stdout.startswith(f'usage: ros2 run robot_formats {node} '), run.stdout
    own, rclpys = help_entries(run.stdout)
    assert own and set(rclpys) == {'use_sim_time', 'start_type_description_service',
                                   QOS_OVERRIDES}, run.stdout
    assert all(description for _, description in own.values()), run.stdout
    assert 'Traceback' not in run.stderr, run.stderr
    # the control: without --help the node does initialise rclpy, and that fails here
    started = run_node_command(node, tmp_path=tmp_path, timeout=TIMEOUT)
    assert started.returncode != 0 and 'ROS_DOMAIN_ID' in started.stderr, started.stderr


@pytest.mark.parametrize('node', sorted(NODES))
def test_an_argument_that_is_not_the_nodes_is_refused(node: str, tmp_path) -> None:
    run = run_node_command(node, '--frame-prefix', 'left/', tmp_path=tmp_path, timeout=TIMEOUT)
    assert run.returncode == 2, f'exit {run.returncode}\n{run.stdout}{run.stderr}'
    assert 'unrecognized arguments: --frame-prefix left/' in run.stderr, run.stderr
    assert 'Traceback' not in run.stderr, run.stderr


@pytest.mark.parametrize(('args', 'reason'), [
    (('--ros-args', '--help'), "unknown ROS arguments after --ros-args: ['--help']"),
    (('--ros-args', '-p'), "Couldn't parse trailing -p flag"),
    (('--ros-args', '-p', 'publish_frequency:=5.0', '--', 'extra'),
     'unrecognized arguments: extra'),
])
def test_ros_arguments_that_rcl_refuses_are_refused_without_a_traceback(
        args: tuple[str, ...], reason: str, tmp_path) -> None:
    run = run_node_command('description_publisher', *args, tmp_path=tmp_path, timeout=TIMEOUT)
    assert run.returncode == 2, f'exit {run.returncode}\n{run.stdout}{run.stderr}'
    assert reason in run.stderr and 'Traceback' not in run.stderr, run.stderr


# --- the help is the node's own declarations --------------------------------------------------

def ros2_param(verb: str, node: str, *names: str, env: dict[str, str]) -> str:
    """``ros2 param VERB /NODE NAMES`` (retried while the CLI has not discovered the node or
    its parameter services: ``dump`` then prints nothing but says so on stderr, exit 0)."""
    wait = [] if verb == 'list' else ['--timeout', '5']  # list has no --timeout
    deadline = time.monotonic() + TIMEOUT
    while True:
        run = subprocess.run([sys.executable, ros2(), 'param', verb, f'/{node}', *names,
                              '--no-daemon', *wait],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        undiscovered = any(sign in (run.stdout + run.stderr).lower()
                           for sign in ('node not found', 'timed out'))
        if not undiscovered or time.monotonic() > deadline:
            break
    assert run.returncode == 0, f'ros2 param {verb} /{node}: exit {run.returncode}\n' \
                                f'{run.stdout}{run.stderr}'
    return run.stdout


def parameter_values(side: RosSide, node: str, names: list[str]) -> dict[str, object]:
    """Each parameter's value, in one GetParameters request (as ``ros2 param dump`` asks)."""
    client = AsyncParameterClient(side.node, f'/{node}')
    assert client.wait_for_services(timeout_sec=TIMEOUT), f'/{node} parameter services'
    future = client.get_parameters(names)
    side.spin_until(future.done, what=f'the values of /{node}')
    answered = future.result().values
    assert len(answered) == len(names), f'/{node} answered {len(answered)} of {len(names)} ' \
                                        'values: a parameter without a value?'
    return {name: parameter_value_to_python(value) for name, value in zip(names, answered)}


def dumped(text: str, node: str) -> dict[str, object]:
    """``ros2 param dump /NODE`` output: full parameter name -> value."""
    document = yaml.safe_load(text)
    assert isinstance(document, dict) and list(document) == [f'/{node}'], text
    out: dict[str, object] = {}

    def walk(prefix: str, values: dict) -> None:
        for key, value in values.items():
            if isinstance(value, dict):
                walk(f'{prefix}{key}.', value)
            else:
                out[f'{prefix}{key}'] = value

    walk('', document[f'/{node}']['ros__parameters'])
    return out


def described(text: str) -> dict[str, dict[str, str]]:
    """``ros2 param describe`` output: name -> {'Type': ..., 'Description': ..., ...}."""
    out: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.strip().partition(': ')
        if key == 'Parameter name':
            current = out.setdefault(value, {})
        elif value:
            current[key] = value
    return out


def template_match(template: str, name: str) -> dict[str, str] | None:
    """The placeholder values (``{'<robot>': 'arm'}``) if ``name`` is an instance of the
    help's ``template`` (``robots.<robot>.publish_tf``), else None."""
    placeholders = re.findall(r'<\w+>', template)
    pattern = ''.join(f'({"[^.]+"})' if part in placeholders else re.escape(part)
                      for part in re.split(r'(<\w+>)', template))
    match = re.fullmatch(pattern, name)
    return None if match is None else dict(zip(placeholders, match.groups()))


def instance_pattern(text: str, values: dict[str, str]) -> str:
    """A regular expression of ``text`` with each placeholder standing for itself or its
    value (the descriptions also name ``<robot>/<link>`` as words)."""
    pattern = re.escape(text)
    for placeholder, value in values.items():
        pattern = pattern.replace(re.escape(placeholder),
                                  f'(?:{re.escape(placeholder)}|{re.escape(value)})')
    return pattern


def check_described(name: str, facts: str, description: str | None,
                    described_as: dict[str, str], values: dict[str, str]) -> None:
    kind, *rest = facts.split(', ')
    assert kind == described_as['Type'], f'{name}: help says {facts!r}, ros2 says {described_as}'
    assert ('read-only' in rest) == (described_as.get('Read only') == 'true'), (name, facts)
    if 'Min value' in described_as:
        low, high = float(described_as['Min value']), float(described_as['Max value'])
        assert f'range {low:g} to {high:g}' in rest, (name, facts, described_as)
    else:
        assert not any(fact.startswith('range ') for fact in rest), (name, facts)
    if description is not None:
        assert re.fullmatch(instance_pattern(description, values),
                            described_as.get('Description', '')), (name, description,
                                                                   described_as)


def check_qos_override(name: str, described_as: dict[str, str]) -> None:
    """What the help says of every QoS override: read-only, depth an integer, the others
    strings."""
    policy = name.rsplit('.', 1)[1]
    assert policy in ('history', 'depth', 'reliability'), name
    assert described_as['Type'] == ('integer' if policy == 'depth' else 'string'), \
        (name, described_as)
    assert described_as.get('Read only') == 'true', (name, described_as)


def check_default(name: str, facts: str, value: object, values: dict[str, str]) -> None:
    default = next(fact for fact in facts.split(', ')[1:] if 'default' in fact)
    if default == 'no default':
        assert value is None, f'{name}: help says no default, the node has {value!r}'
        return
    expected = yaml.safe_load(default.removeprefix('default '))
    if isinstance(expected, str):
        for placeholder, concrete in values.items():
            expected = expected.replace(placeholder, concrete)
    assert value == expected, f'{name}: help says {facts!r}, the node has {value!r}'


@pytest.mark.parametrize('node', sorted(RUNS))
def test_help_lists_what_the_running_node_declares(node: str, launcher, tmp_path) -> None:
    helped = run_node_command(node, '--help', tmp_path=tmp_path, timeout=TIMEOUT)
    assert helped.returncode == 0, helped.stderr
    own, rclpys = help_entries(helped.stdout)
    overrides, ready = RUNS[node]
    args = [ros2(), 'run', 'robot_formats', node, '--ros-args']
    for key, value in overrides.items():
        text = yaml.safe_dump(value, default_flow_style=True).strip().removesuffix('...')
        args += ['-p', f'{key}:={text.strip()}']
    process, side = launcher.command(args, f'help_{node}')
    process.wait_for_log(ready)
    env = subprocess_env(process.domain_id, tmp_path)
    listed = ros2_param('list', node, env=env).split()
    assert listed, f'ros2 param list /{node} listed nothing'

    instances: dict[str, tuple[str, dict[str, str]]] = {}  # running name -> (help name, values)
    for name in listed:
        matches = [(entry, values) for entry in (*own, *rclpys)
                   if (values := template_match(entry, name)) is not None]
        assert len(matches) == 1, f'{name} (ros2 param list /{node}) matches {matches} in ' \
                                  f'the help:\n{helped.stdout}'
        instances[name] = matches[0]
    unused = (set(own) | set(rclpys)) - {entry for entry, _ in instances.values()} - {
        QOS_OVERRIDES}
    assert not unused, f'the help lists {sorted(unused)}, which /{node} does not declare'

    description_of = described(ros2_param('describe', node, *listed, env=env))
    values_now = parameter_values(side, node, listed)
    assert dumped(ros2_param('dump', node, env=env), node) == values_now, \
        f'ros2 param dump /{node} differs from the values of ros2 param list\'s names'
    for name, (entry, values) in instances.items():
        if entry == QOS_OVERRIDES:
            check_qos_override(name, description_of[name])
            continue
        facts, description = own[entry] if entry in own else rclpys[entry]
        check_described(name, facts, description if entry in own else None,
                        description_of[name], values)
        if name not in overrides:
            check_default(name, facts, values_now.get(name), values)
    process.stop()
