"""package.xml names every dependency the code imports or starts, and nothing else (README.md,
"In an existing ROS 2 Jazzy/Kilted colcon workspace").

The set is derived from the sources, never written here: the top-level modules that
``robot_formats/**/*.py`` and ``launch/*.py`` import (ast), less the standard library and the
package itself, mapped to ROS package names or rosdep keys (:data:`MODULE_KEYS`; a module
without a key, :data:`NO_ROSDEP_KEY`, is explained in a comment instead); and the packages the
launch files and the code start (``Node(package=...)``) or look up (``FindPackageShare``,
``get_package_share_directory``). It is compared both ways with package.xml's ``depend`` and
``exec_depend``. robot_formats_interfaces' ``depend``s and its CMakeLists' dependencies are
compared with the packages its msg/srv/action files name.
"""

from __future__ import annotations

import ast
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from rf_testlib import ROOT, absolute_imports, console_scripts

PACKAGE = 'robot_formats'
INTERFACES = ROOT / 'robot_formats_interfaces'

#: Python modules whose ROS package or rosdep key has another name.
MODULE_KEYS = {
    'lxml': 'python3-lxml',
    'numpy': 'python3-numpy',
    'yaml': 'python3-yaml',
    'trimesh': 'python3-trimesh',
    'matplotlib': 'python3-matplotlib',
    'mpl_toolkits': 'python3-matplotlib',  # ships inside matplotlib
    'PIL': 'python3-pil',
    'psutil': 'python3-psutil',
    'tf2_ros': 'tf2_ros_py',  # the Python tf2_ros is the ROS package tf2_ros_py
}
#: Python modules without a rosdep key: package.xml says how to install them in a comment.
NO_ROSDEP_KEY = {'mujoco'}
#: What rosidl_generate_interfaces adds to an interface package with services or actions
#: (service_msgs, through rosidl_default_generators / rosidl_default_runtime) and requires for
#: actions (action_msgs, which also brings the builtin_interfaces and unique_identifier_msgs
#: types of the generated goal services and feedback message).
ACTION_DEPENDENCY = 'action_msgs'
#: The ROS commands the README tells users to start the nodes with, and the package providing
#: each: package.xml names them so that a distribution installs the commands with the package.
USER_COMMANDS = {'ros2 launch robot_formats': 'ros2launch', 'ros2 run robot_formats': 'ros2run'}
#: Interface types without a package: rosidl's primitives.
PRIMITIVES = {'bool', 'byte', 'char', 'float32', 'float64', 'int8', 'uint8', 'int16', 'uint16',
              'int32', 'uint32', 'int64', 'uint64', 'string', 'wstring'}


def python_files() -> list[Path]:
    return sorted([*(ROOT / PACKAGE).rglob('*.py'), *(ROOT / 'launch').glob('*.py')])


def imported_modules() -> dict[str, set[str]]:
    """Top-level module -> files importing it (absolute imports, anywhere in a file)."""
    found: dict[str, set[str]] = {}
    for path in python_files():
        for _, name in absolute_imports(path):
            found.setdefault(name.split('.')[0], set()).add(str(path.relative_to(ROOT)))
    return found


def _called(node: ast.Call) -> str:
    function = node.func
    return function.attr if isinstance(function, ast.Attribute) else getattr(function, 'id', '')


def _constant(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def started_packages() -> dict[str, set[str]]:
    """Packages whose nodes the code starts or whose share directory it looks up -> files."""
    found: dict[str, set[str]] = {}
    for path in python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'), str(path))):
            if not isinstance(node, ast.Call):
                continue
            keywords = {k.arg: k.value for k in node.keywords}
            name = _called(node)
            if name == 'Node' and 'package' in keywords:
                package = _constant(keywords['package'])
            elif name in ('FindPackageShare', 'get_package_share_directory',
                          'get_package_prefix') and node.args:
                package = _constant(node.args[0])
            else:
                continue
            if package is not None:
                found.setdefault(package, set()).add(str(path.relative_to(ROOT)))
    return found


def own_executables_started() -> dict[str, set[str]]:
    """``executable=`` of every ``Node(package='robot_formats')`` -> files."""
    found: dict[str, set[str]] = {}
    for path in python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'), str(path))):
            if isinstance(node, ast.Call) and _called(node) == 'Node':
                keywords = {k.arg: k.value for k in node.keywords}
                if _constant(keywords.get('package')) == PACKAGE:
                    executable = _constant(keywords.get('executable'))
                    assert executable, f'{path}: Node(package={PACKAGE!r}) without an ' \
                                       'executable name written out'
                    found.setdefault(executable, set()).add(str(path.relative_to(ROOT)))
    return found


def declared(package_xml: Path, tags: tuple[str, ...]) -> set[str]:
    root = ET.parse(package_xml).getroot()
    return {element.text.strip() for tag in tags for element in root.findall(tag)}


def derived_dependencies() -> dict[str, set[str]]:
    """rosdep key / ROS package -> the files that need it."""
    needed: dict[str, set[str]] = {}
    for module, files in imported_modules().items():
        if module in sys.stdlib_module_names or module == PACKAGE or module in NO_ROSDEP_KEY:
            continue
        needed.setdefault(MODULE_KEYS.get(module, module), set()).update(files)
    for package, files in started_packages().items():
        if package != PACKAGE:
            needed.setdefault(package, set()).update(files)
    readme = ROOT / 'README.md'
    for command, package in USER_COMMANDS.items():
        if command in readme.read_text(encoding='utf-8'):
            needed.setdefault(package, set()).add(str(readme))
    return needed


def test_package_xml_declares_what_the_code_imports_and_starts() -> None:
    needed = derived_dependencies()
    have = declared(ROOT / 'package.xml', ('depend', 'exec_depend'))
    missing = {key: sorted(files) for key, files in needed.items() if key not in have}
    assert not missing, f'package.xml lacks <exec_depend> for {missing}'
    stale = have - set(needed)
    assert not stale, f'package.xml declares {sorted(stale)}, which no code imports or starts'


def test_modules_without_a_rosdep_key_are_explained_in_package_xml() -> None:
    imported = imported_modules()
    text = (ROOT / 'package.xml').read_text()
    for module in NO_ROSDEP_KEY:
        assert module in imported, f'{module} is no longer imported: drop it from NO_ROSDEP_KEY'
        assert re.search(rf'<!--[^>]*pip install {module}', text), \
            f'package.xml: no comment saying how to install {module}'


def test_the_mapping_and_the_exceptions_are_used() -> None:
    """A table entry no import needs is stale, like a stale key."""
    imported = imported_modules()
    assert not set(MODULE_KEYS) - set(imported), set(MODULE_KEYS) - set(imported)


def test_launched_robot_formats_executables_exist() -> None:
    unknown = {name: sorted(files) for name, files in own_executables_started().items()
               if name not in console_scripts()}
    assert not unknown, f'Node(package={PACKAGE!r}) starts executables setup.py lacks: {unknown}'


def test_the_derivation_sees_the_known_dependencies() -> None:
    """The scan itself works: what the issue found missing is derived."""
    needed = derived_dependencies()
    assert {'std_srvs', 'xacro', 'builtin_interfaces', 'action_msgs', 'rviz2', 'rclpy',
            'python3-lxml', 'tf2_ros_py'} <= set(needed), sorted(needed)


# --- robot_formats_interfaces -----------------------------------------------------------------

def interface_files() -> list[Path]:
    return sorted(path for kind in ('msg', 'srv', 'action')
                  for path in (INTERFACES / kind).glob(f'*.{kind}'))


def referenced_packages() -> dict[str, set[str]]:
    """Packages whose types the interface files name (``pkg/Type``) -> files."""
    found: dict[str, set[str]] = {}
    for path in interface_files():
        for line in path.read_text(encoding='utf-8').splitlines():
            line = line.split('#', 1)[0].strip()
            if not line or line == '---':
                continue
            field_type = re.sub(r'(\[.*\]|<=\d+)$', '', line.split()[0])
            if '/' in field_type:
                package = field_type.split('/')[0]
            elif field_type.split('<=')[0] in PRIMITIVES or '=' in line.split()[1]:
                continue  # a primitive field, or a constant
            else:
                package = INTERFACES.name  # a type of the same package
            if package != INTERFACES.name:
                found.setdefault(package, set()).add(path.name)
    if any(INTERFACES.joinpath('action').glob('*.action')):
        found.setdefault(ACTION_DEPENDENCY, set()).add('action/*.action')
    return found


def cmake_dependencies() -> set[str]:
    text = (INTERFACES / 'CMakeLists.txt').read_text()
    match = re.search(r'set\(interface_dependencies\s+([^)]*)\)', text)
    assert match, 'CMakeLists.txt: no set(interface_dependencies ...)'
    return set(match[1].split())


def test_interfaces_depend_on_what_their_files_name() -> None:
    needed = referenced_packages()
    have = declared(INTERFACES / 'package.xml', ('depend', 'build_depend', 'exec_depend')) - {
        'rosidl_default_runtime'}
    assert set(needed) == have, (f'robot_formats_interfaces/package.xml declares '
                                 f'{sorted(have)}; its files need {needed}')
    assert cmake_dependencies() == have, (
        f'CMakeLists.txt interface_dependencies {sorted(cmake_dependencies())} differ from '
        f'package.xml {sorted(have)}')
