"""Versions 1.0.0–1.6.0 (and no version at all) against hebi-py 2.16.1 itself: every feature
that a version introduced, written into a small kit of every version, is accepted or refused
exactly as HEBI's library does, and where both accept, the frames, DoFs and masses agree
(e.g. version 1.0.0 reads ``extension="0.1+0.2"`` as 0.1, as HEBI does).

HEBI runs in one subprocess (hebi_oracle.py); nothing here is our own number.
"""

from __future__ import annotations


import numpy as np
import pytest

import hebi_oracle
from robot_formats.core import errors as E
from robot_formats.formats import load

TOL = 1e-6
VERSIONS = [None, '1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0', '1.6.0']

#: feature → (extra <robot> attributes, body). Each kit is valid in the version that
#: introduced the feature; the spec's table of versions says which one that is.
FEATURES: dict[str, tuple[str, str]] = {
    'X5/X8 actuators, X5 link and bracket': (
        '', '<actuator type="X8-9"/><bracket type="X5HeavyLeftInside"/><actuator type="X5-1"/>'
            '<link type="X5" extension="0.3" twist="1.5"/><actuator type="X5-9"/>'),
    'joint': ('', '<joint axis="ry"/><joint axis="tx"/>'),
    'rigid body': ('', '<rigid-body mass="0.5" com_trans="0.1 0 0" output_trans="0 0 0.2" '
                       'output_rot="1 0 0 0 0 -1 0 1 0"/>'),
    'root rot/trans': ('rot="0 -1 0 1 0 0 0 0 1" trans="0.1 0.2 0.3"', '<actuator type="X5-4"/>'),
    'scalar formula': ('', '<link type="X5" extension="0.1+0.2" twist="pi/2"/>'),
    'rotation formula': ('', '<rigid-body mass="1" output_rot="Rx(1)*Ry(0.5)"/>'),
    'mass_offset': ('', '<actuator type="X5-1" mass_offset="0.1"/>'),
    'mass override': ('', '<actuator type="X5-1" mass="1"/>'),
    'com_trans override': ('', '<bracket type="X5LightLeft" com_trans="0 0 0.1"/>'),
    'com_trans_offset': ('', '<link type="X5" extension="0.2" twist="0" '
                             'com_trans_offset="0 0 0.1"/>'),
    'com_rot on a built-in': ('', '<actuator type="X5-1" com_rot="0 -1 0 1 0 0 0 0 1"/>'),
    'rigid-body inertia': ('', '<rigid-body mass="1" ixx="0.1" iyy="0.1" izz="0.1"/>'),
    'R8 actuator': ('', '<actuator type="R8-9"/>'),
    'R8 link': ('', '<link type="R8" extension="0.2" twist="0"/>'),
    'R8 bracket': ('', '<bracket type="R8LightRight"/>'),
    'link input Inline': ('', '<link type="X5" extension="0.2" twist="0" input="Inline"/>'),
    'link output RightAngle': ('', '<link type="X5" extension="0.2" twist="0" '
                                   'output="RightAngle"/>'),
    'Custom end effector': ('', '<actuator type="X5-1"/><end-effector type="Custom"/>'),
    'parallel gripper': ('', '<actuator type="X5-1"/><end-effector type="X5Parallel"/>'),
    'description': ('description="an arm"', '<actuator type="X5-1"/>'),
    'output children': ('', '<rigid-body mass="1"><output trans="0 0 0.1"/>'
                            '<output trans="0 0.1 0"/></rigid-body>'),
    'include': ('', '<include path="part.hrdf"/><bracket type="X5LightLeft"/>'),
    'mesh_path': ('', '<rigid-body mass="1" mesh_path="mesh.stl"/>'),
    'T5 actuator': ('', '<actuator type="T5-4"/>'),
    'T8 actuator': ('', '<actuator type="T8-16"/>'),
    'tag': ('', '<actuator type="X5-1" tag="a"/>'),
    'gear_ratio': ('', '<joint axis="rz" gear_ratio="3"/>'),
    'R25 actuator': ('', '<actuator type="R25-20"/>'),
    'T25 actuator': ('', '<actuator type="T25-8"/>'),
    'R25 link': ('', '<link type="R25" extension="0.2" twist="1"/>'),
    'R25-R8 link': ('', '<link type="R25-R8" extension="0.2" twist="1"/>'),
    'R25 bracket': ('', '<bracket type="R25HeavyRightOutside"/>'),
    'negative axis': ('', '<joint axis="-tz"/>'),
}
CASES = [(feature, version) for feature in FEATURES for version in VERSIONS]
PART = '<robot{version}><actuator type="X5-4"/></robot>'


def _version_attr(version: str | None) -> str:
    return f' version="{version}"' if version else ''


@pytest.fixture(scope='module')
def verdicts(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp('versions')
    jobs, paths = [], {}
    for number, (feature, version) in enumerate(CASES):
        kit_dir = folder / f'case{number}'
        kit_dir.mkdir()
        attrs, body = FEATURES[feature]
        (kit_dir / 'part.hrdf').write_text(PART.format(version=_version_attr(version)))
        path = kit_dir / 'kit.hrdf'
        path.write_text(f'<robot{_version_attr(version)} {attrs}>{body}</robot>')
        paths[(feature, version)] = path
        dofs = body.count('<actuator') + body.count('<joint') + body.count('<include')
        jobs.append({'path': str(path), 'q': [0.3, -0.7, 0.2, 0.4, 0.9, -0.1][:dofs]})
    answers = hebi_oracle.ask(jobs, folder)
    return {case: (paths[case], job['q'], answer)
            for case, job, answer in zip(CASES, jobs, answers)}


@pytest.mark.parametrize('feature, version', CASES,
                         ids=[f'{f}-{v or "none"}' for f, v in CASES])
def test_version_rules_as_hebi(verdicts, feature: str, version: str | None) -> None:
    path, q, hebi = verdicts[(feature, version)]
    try:
        result = load(path)
    except E.FormatError as error:
        assert not hebi['ok'], f'we refuse what HEBI accepts: {error}'
        assert error.file and error.line, error
        return
    assert hebi['ok'], f'we accept what HEBI refuses: {hebi["error"]}'
    tree = result.tree
    assert len(tree.dof_names) == hebi['dof']
    poses = tree.forward(np.array(q))
    hebi_outputs = [np.array(f) for f in hebi['frames']['output']]
    for expected in hebi['frames']['endeffector']:
        assert any(np.max(np.abs(np.array(expected) - p)) <= TOL for p in poses.values())
    for expected in hebi_outputs:  # every HEBI output frame is one of our frames
        assert any(np.max(np.abs(expected - p)) <= TOL for p in poses.values()), expected
    masses = [link.inertial.mass for link in tree.links.values() if link.inertial]
    assert sum(masses) == pytest.approx(sum(hebi['masses']), abs=TOL)


def test_each_feature_is_refused_before_its_version_somewhere(verdicts) -> None:
    """The matrix is not trivially all-accept: HEBI gates most features, and so do we."""
    refused = {feature for (feature, _), (_, _, hebi) in verdicts.items() if not hebi['ok']}
    assert len(refused) >= 20
