"""The bundled robots and their motions, and what a motion should do, computed WITHOUT
robot_formats: XMDI read with ElementTree, servo maps with yaml.safe_load, URDF joints with
ElementTree, linear interpolation with ``numpy.interp`` (each servo holds its first/last key
value outside its own key frames, as Webots plays motions).

Shared by test_bundled_motions.py and the end-to-end node test (test/nodes/test_motion_sim.py).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / 'examples'
FRAME_PERIOD = 0.032


@dataclass(frozen=True)
class Bundle:
    """A bundled robot file, a bundled XMDI file written for it, and the servo map (or None)."""

    robot: Path
    motions: Path
    servo_map: Path | None = None

    @property
    def name(self) -> str:
        return self.motions.stem


BUNDLES = (
    Bundle(EXAMPLES / 'urdf' / 'arm_with_gripper.urdf', EXAMPLES / 'xmdi' / 'arm_wave.xmdi'),
    Bundle(EXAMPLES / 'hrdf' / 'hebi_arm.hrdf', EXAMPLES / 'xmdi' / 'hebi_arm_wave.xmdi',
           EXAMPLES / 'xmdi' / 'hebi_arm_wave.map.yaml'),
    Bundle(EXAMPLES / 'skel' / 'quadruped.skel', EXAMPLES / 'xmdi' / 'quadruped_gait.xmdi',
           EXAMPLES / 'xmdi' / 'quadruped_gait.map.yaml'),
    Bundle(EXAMPLES / 'urdf' / 'arm_with_gripper.urdf',
           EXAMPLES / 'xmdi' / 'pick_and_place.xmdi'),
)


@dataclass(frozen=True)
class Track:
    """One servo's key frames, already mapped onto its joint."""

    servo: str
    joint: str
    times: np.ndarray
    values: np.ndarray

    def at(self, t) -> np.ndarray:
        return np.interp(t, self.times, self.values)  # holds the end values outside

    def max_speed(self) -> float:
        if len(self.times) < 2:
            return 0.0
        return float(np.max(np.abs(np.diff(self.values) / np.diff(self.times))))


@dataclass(frozen=True)
class ReferenceMotion:
    name: str
    tracks: tuple[Track, ...]

    @property
    def joints(self) -> list[str]:
        return [track.joint for track in self.tracks]

    @property
    def duration(self) -> float:
        return max(float(track.times[-1]) for track in self.tracks)

    def positions(self, t) -> np.ndarray:
        """Joint values at motion time(s) t: shape t.shape + (joints,)."""
        return np.stack([track.at(t) for track in self.tracks], axis=-1)


def servo_map(path: Path | None) -> dict[str, tuple[str, float, float]]:
    """servo -> (joint, scale, offset) from the YAML (plain loader, no robot_formats)."""
    if path is None:
        return {}
    out = {}
    for servo, value in (yaml.safe_load(path.read_text()) or {}).get('servos', {}).items():
        if isinstance(value, str):
            out[servo] = (value, 1.0, 0.0)
        else:
            out[servo] = (value['joint'], float(value.get('scale', 1.0)),
                          float(value.get('offset', 0.0)))
    return out


def reference_motions(bundle: Bundle, frame_period: float = FRAME_PERIOD
                      ) -> dict[str, ReferenceMotion]:
    """Every motion of the bundle's XMDI file (the project's <xmdi><motions> layout)."""
    mapping = servo_map(bundle.servo_map)
    root = ET.parse(bundle.motions).getroot()
    assert root.tag == 'xmdi', root.tag
    motions = {}
    for motion in root.find('motions').findall('motion'):
        tracks = []
        for servo in motion.findall('servo'):
            name = servo.get('name')
            joint, scale, offset = mapping.get(name, (name, 1.0, 0.0))
            values = np.array(servo.find('position').text.split(), dtype=float)
            frames = np.array(servo.find('frames').text.split(), dtype=int)
            tracks.append(Track(name, joint, frames * frame_period, scale * values + offset))
        motions[motion.get('name')] = ReferenceMotion(motion.get('name'), tuple(tracks))
    return motions


@dataclass(frozen=True)
class UrdfJoint:
    name: str
    kind: str
    lower: float | None
    upper: float | None
    velocity: float | None
    mimic: str | None


def urdf_joints(urdf_text: str) -> dict[str, UrdfJoint]:
    """The joints of a URDF document, read with ElementTree."""
    out = {}
    for element in ET.fromstring(urdf_text.encode('utf-8')).findall('joint'):
        limit, mimic = element.find('limit'), element.find('mimic')
        kind = element.get('type')

        def bound(key: str, limit=limit, kind=kind) -> float | None:
            if limit is None or kind != 'revolute' and kind != 'prismatic':
                return None
            return float(limit.get(key, 0.0))
        velocity = float(limit.get('velocity', 0.0)) if limit is not None else 0.0
        out[element.get('name')] = UrdfJoint(element.get('name'), kind, bound('lower'),
                                             bound('upper'), velocity or None,
                                             mimic.get('joint') if mimic is not None else None)
    return out
