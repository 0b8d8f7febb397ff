"""The rviz2 configuration a launch hands rviz2 follows its namespace and frame prefix.

Every shipped configuration (config/*.rviz) is rendered for a namespace and a frame prefix and
read back as YAML: every absolute topic moved under the namespace, every RobotModel's TF Prefix
naming ``<frame_prefix><own prefix>`` the way rviz2 joins it (``<TF Prefix>/<link>``,
rviz_default_plugins' TFLinkUpdater), the fixed frame prefixed, and nothing else changed.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from robot_formats.presentation.rviz_config import RvizConfigError, RvizView, render_rviz_config

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / 'config').glob('*.rviz'))
MODEL = 'rviz_default_plugins/RobotModel'


def displays(config: dict) -> list[dict]:
    found = []

    def walk(items: list[dict]) -> None:
        for display in items:
            found.append(display)
            walk(display.get('Displays') or [])

    walk(config['Visualization Manager']['Displays'])
    return found


def topics(config: dict) -> list[str]:
    return [value['Value'] for display in displays(config) for key, value in display.items()
            if key.endswith('Topic') and isinstance(value, dict)]


def rendered(path: Path, view: RvizView) -> tuple[dict, list[str]]:
    text, warnings = render_rviz_config(path.read_text(encoding='utf-8'), view, str(path))
    return yaml.safe_load(text), warnings


def test_every_shipped_configuration_is_rendered() -> None:
    assert {p.name for p in CONFIGS} >= {'display.rviz', 'world.rviz', 'problem.rviz',
                                         'motion.rviz', 'pick_and_place.rviz'}


@pytest.mark.parametrize('path', CONFIGS, ids=lambda p: p.name)
def test_namespace_and_frame_prefix(path: Path) -> None:
    original = yaml.safe_load(path.read_text(encoding='utf-8'))
    config, warnings = rendered(path, RvizView(namespace='left', frame_prefix='left/'))
    assert not warnings
    assert topics(original), f'{path.name}: no topic to move'
    assert topics(config) == [f'/left{t}' for t in topics(original)]
    for before, after in zip(displays(original), displays(config)):
        if after['Class'] == MODEL:
            own = before.get('TF Prefix', '')
            assert after['TF Prefix'] == (f'left/{own}' if own else 'left')
    fixed = original['Visualization Manager']['Global Options']['Fixed Frame']
    assert config['Visualization Manager']['Global Options']['Fixed Frame'] == f'left/{fixed}'
    # nothing else changed: undo the three rules and compare
    undone = copy.deepcopy(config)
    for before, after in zip(displays(original), displays(undone)):
        for key, value in after.items():
            if key.endswith('Topic') and isinstance(value, dict):
                value['Value'] = before[key]['Value']
        if 'TF Prefix' in before or 'TF Prefix' in after:
            after['TF Prefix'] = before.get('TF Prefix')
            if after['TF Prefix'] is None:
                del after['TF Prefix']
    undone['Visualization Manager']['Global Options']['Fixed Frame'] = fixed
    assert undone == original


@pytest.mark.parametrize('path', CONFIGS, ids=lambda p: p.name)
def test_the_root_namespace_keeps_the_configuration(path: Path) -> None:
    """No namespace, no prefix, no fixed frame: the same configuration (as YAML)."""
    config, warnings = rendered(path, RvizView())
    assert config == yaml.safe_load(path.read_text(encoding='utf-8')) and not warnings


def test_fixed_frame_argument_and_namespace_spellings() -> None:
    path = ROOT / 'config' / 'display.rviz'
    for namespace in ('left', '/left', '/left/'):
        config, _ = rendered(path, RvizView(namespace=namespace, fixed_frame='world'))
        assert topics(config) == ['/left/robot_description']
        assert config['Visualization Manager']['Global Options']['Fixed Frame'] == 'world'
    config, _ = rendered(path, RvizView(namespace='a/b', frame_prefix='a/b/',
                                        fixed_frame='world'))
    assert topics(config) == ['/a/b/robot_description']
    assert [d['TF Prefix'] for d in displays(config) if d['Class'] == MODEL] == ['a/b']
    assert config['Visualization Manager']['Global Options']['Fixed Frame'] == 'a/b/world'


def test_a_prefix_rviz2_cannot_express_is_a_warning() -> None:
    """rviz2 joins TF Prefix and link with '/': 'left_' cannot be said; the display is left as
    it is and the warning says why (the fixed frame, a plain frame name, still carries it)."""
    path = ROOT / 'config' / 'display.rviz'
    config, warnings = rendered(path, RvizView(frame_prefix='left_'))
    assert len(warnings) == 1 and "'left_'" in warnings[0] and "'/'" in warnings[0]
    assert all('TF Prefix' not in d for d in displays(config))
    assert config['Visualization Manager']['Global Options']['Fixed Frame'] == 'left_base_link'


@pytest.mark.parametrize('text, reason', [
    ('Panels: [\n', 'YAML: '),
    ('- just a list\n', 'Visualization Manager'),
    ('Visualization Manager:\n  Class: ""\n', 'Displays'),
], ids=['not-yaml', 'not-a-mapping', 'no-displays'])
def test_not_a_configuration_is_an_error_naming_the_file(text: str, reason: str) -> None:
    with pytest.raises(RvizConfigError) as raised:
        render_rviz_config(text, RvizView(), 'mine.rviz')
    assert str(raised.value).startswith('mine.rviz') and reason in str(raised.value)
    assert '\n' not in str(raised.value)
