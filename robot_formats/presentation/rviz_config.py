"""An rviz2 configuration made to follow a launch's ``namespace`` and ``frame_prefix``.

The configurations in ``config/*.rviz`` name their topics absolutely (``/robot_description``)
and the robot's frames as the unprefixed links, which is right for one robot at the root. A
launch file that moves its nodes under a namespace and prefixes their TF frames hands rviz2 a
copy rendered here, so rviz2 reads the topics the launched nodes publish and finds the frames
they send:

* every display's topic (``Topic``, ``Description Topic``, any ``... Topic``) that is absolute
  moves under the namespace: ``/robot_description`` -> ``/left/robot_description``;
* every RobotModel display gets the ``TF Prefix`` that names its links' frames. rviz2 looks a
  link up as ``<TF Prefix>/<link>`` (rviz_default_plugins' TFLinkUpdater), so the frame prefix
  must end with ``/`` to be expressible (``left/`` -> ``left``; another prefix leaves the
  display as it is, with a warning); a display's own prefix (problem.rviz's ``pr2``) stays
  inside it (``left/pr2``);
* the global ``Fixed Frame`` is the frame prefix followed by the fixed frame (the launch's
  ``fixed_frame`` argument, else the configuration's own).

Everything else (views, panels, colours) is kept as it is. No ROS import: the launch helper
(:mod:`robot_formats.nodes.launch_support`) reads and writes the files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

__all__ = ['RvizConfigError', 'RvizView', 'render_rviz_config']

#: libyaml's safe loader and dumper where PyYAML has them, else PyYAML's own (the same
#: documents, parsed and written several times faster: ros2 launch renders the configuration
#: before it starts the first node).
_LOADER = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
_DUMPER = getattr(yaml, 'CSafeDumper', yaml.SafeDumper)


class RvizConfigError(ValueError):
    """A file that is not an rviz2 configuration (not YAML, no displays)."""


@dataclass(frozen=True)
class RvizView:
    """What the rendered configuration must follow: the launch's namespace (``''``, ``left``
    or ``/left``), its nodes' frame prefix and rviz2's fixed frame before the prefix (empty: the
    configuration's own)."""

    namespace: str = ''
    frame_prefix: str = ''
    fixed_frame: str | None = None

    def topic(self, name: str) -> str:
        """An absolute topic of the configuration, moved under the namespace."""
        namespace = self.namespace.strip('/')
        if not namespace or not name.startswith('/'):
            return name
        return f'/{namespace}{name}'

    def tf_prefix(self, own: str) -> str | None:
        """The RobotModel ``TF Prefix`` that finds frames ``<frame_prefix><own>/<link>``
        (``None``: rviz2 cannot express the frame prefix)."""
        wanted = self.frame_prefix + (f'{own.strip("/")}/' if own.strip('/') else '')
        if wanted and not wanted.endswith('/'):
            return None
        return wanted[:-1]

    def prefix_warning(self) -> str:
        return (f"frame_prefix {self.frame_prefix!r} does not end with '/': rviz2's RobotModel "
                "finds a link's frame as '<TF Prefix>/<link>' and cannot show frames named "
                f"'{self.frame_prefix}<link>' (TF still has them); a prefix ending in '/' "
                "(e.g. 'left/') can be shown")


def render_rviz_config(text: str, view: RvizView, source: str = '<rviz config>'
                       ) -> tuple[str, list[str]]:
    """``text`` (an rviz2 configuration, YAML) with its topics, TF prefixes and fixed frame
    following ``view``, and the warnings of what it cannot follow; ``source`` names the file
    in errors."""
    try:
        config = yaml.load(text, Loader=_LOADER)  # a safe loader (_LOADER)
    except yaml.YAMLError as err:
        mark = getattr(err, 'problem_mark', None)
        where = f'{source}:{mark.line + 1}' if mark is not None else source
        problem = getattr(err, 'problem', None) or 'not YAML'
        raise RvizConfigError(f'{where}: not an rviz2 configuration (YAML: {problem})') from None
    manager = config.get('Visualization Manager') if isinstance(config, dict) else None
    if not isinstance(manager, dict) or not isinstance(manager.get('Displays'), list):
        raise RvizConfigError(f"{source}: not an rviz2 configuration (no 'Visualization "
                              "Manager' with 'Displays')")
    warnings: list[str] = []
    _follow(manager['Displays'], view, warnings)
    options = manager.setdefault('Global Options', {})
    fixed = view.fixed_frame or options.get('Fixed Frame')
    if fixed:
        options['Fixed Frame'] = view.frame_prefix + fixed
    text = yaml.dump(config, Dumper=_DUMPER, sort_keys=False, default_flow_style=False,
                     allow_unicode=True)
    return text, warnings


def _follow(displays: list[Any], view: RvizView, warnings: list[str]) -> None:
    """Move every display's topics under the namespace and prefix its robot frames (groups
    hold displays of their own)."""
    for display in displays:
        if not isinstance(display, dict):
            continue
        if isinstance(display.get('Displays'), list):
            _follow(display['Displays'], view, warnings)
        for key, value in display.items():
            if (key.endswith('Topic') and isinstance(value, dict)
                    and isinstance(value.get('Value'), str)):
                value['Value'] = view.topic(value['Value'])
        if display.get('Class') == 'rviz_default_plugins/RobotModel':
            prefix = view.tf_prefix(str(display.get('TF Prefix') or ''))
            if prefix is None:
                if view.prefix_warning() not in warnings:
                    warnings.append(view.prefix_warning())
            elif prefix:
                display['TF Prefix'] = prefix
