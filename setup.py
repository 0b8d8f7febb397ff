"""ament_python build of robot_formats (colcon / `setup.py develop` with setuptools 65.5.0)."""
import os
import sys
import xml.etree.ElementTree as ET
from glob import glob

from setuptools import find_packages, setup

package_name = 'robot_formats'
# The real source directory: colcon runs `setup.py develop` from build/robot_formats through a
# symlink, and the file lists below must come from the sources, not from what an earlier build
# left there.
here = os.path.dirname(os.path.realpath(__file__))

# package.xml is the single source of the version.
version = ET.parse(os.path.join(here, 'package.xml')).getroot().findtext('version').strip()


def require_interfaces():
    """Stop a build that would install nodes without their interfaces, saying the one command
    that builds both: colcon does not look for packages inside a package folder, so a plain
    `colcon build` in a workspace with this repository in src/ never finds the nested
    robot_formats_interfaces (see the README, "In a colcon workspace")."""
    prefixes = os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)
    if any(os.path.exists(os.path.join(p, 'share', 'ament_index', 'resource_index', 'packages',
                                       'robot_formats_interfaces')) for p in prefixes if p):
        return
    interfaces = os.path.join(here, 'robot_formats_interfaces')
    src = os.path.dirname(here)
    if os.path.basename(src) == 'src':
        base_paths = 'src ' + os.path.relpath(interfaces, os.path.dirname(src))
    else:
        base_paths = f'{src} {interfaces}'
    sys.exit('robot_formats: robot_formats_interfaces was not found (colcon does not look inside '
             'the robot_formats package, where it lies); build the workspace with: '
             f'colcon build --base-paths {base_paths}')


# colcon installs with `setup.py install` (or `develop` with --symlink-install); it also runs this
# file to read setup()'s arguments, which needs no check.
if {'install', 'develop'} & set(sys.argv[1:]):
    require_interfaces()


def tree_data_files(src, dest):
    """(dest_dir, [files]) entries for every file under src/, keeping the subdirectory layout."""
    entries = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(here, src)):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(('.', '__pycache__')))
        files = sorted(os.path.relpath(os.path.join(dirpath, f), here)
                       for f in filenames if not f.startswith('.') and not f.endswith('.pyc'))
        if files:
            rel = os.path.relpath(dirpath, here)
            entries.append((os.path.join(dest, rel), files))
    return entries


setup(
    name=package_name,
    version=version,
    # Only the library itself: test/, benchmarks/, tools/ ... stay out of site-packages.
    packages=find_packages(include=[package_name, package_name + '.*'], exclude=['test', 'test.*']),
    package_data={package_name: ['py.typed']},  # PEP 561: the library's annotations are for users
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        # on PATH in a sourced workspace (colcon adds the package's bin/ to PATH)
        ('bin', ['scripts/robot-formats']),
    ] + [
        (dest, files) for dest, files in [
            ('share/' + package_name + '/launch',
             sorted(os.path.relpath(p, here) for p in glob(os.path.join(here, 'launch', '*.py')))),
        ] if files
    ] + tree_data_files('config', 'share/' + package_name)
    + tree_data_files('examples', 'share/' + package_name)
    + tree_data_files('meshes', 'share/' + package_name),
    install_requires=['setuptools'],
    zip_safe=False,
    maintainer='robot_formats maintainers',
    maintainer_email='robot_formats@example.com',
    description='Robot description formats for ROS 2: parse, validate, convert and publish.',
    license='Apache-2.0',
    extras_require={'test': ['pytest']},
    entry_points={
        'console_scripts': [
            'robot-formats = robot_formats.cli:main',
            'description_publisher = robot_formats.nodes.description_publisher:main',
            'sim_controller = robot_formats.nodes.sim_controller:main',
            'problem_server = robot_formats.nodes.problem_server:main',
            'motion_player = robot_formats.nodes.motion_player:main',
            'motion_recorder = robot_formats.nodes.motion_recorder:main',
        ],
    },
)
