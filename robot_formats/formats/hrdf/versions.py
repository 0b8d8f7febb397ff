"""HRDF versions 1.0.0–1.6.0 and what each one introduced.

The spec: "The rules used to parse the file are defined by the given version", and a file
without ``version`` is 1.0.0. HEBI's library enforces these gates (measured with hebi-py
2.16.1, goldens/hrdf/INDEX.md "Parsing facts"); a feature used in a file older than the
version that introduced it is an error here too.

HEBI also accepts ``1.7.0``, an unpublished version (H25 actuators); we accept it with a
warning and read it with the 1.6.0 rules (its new component types are refused as unknown).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ['Version', 'parse_version', 'SUPPORTED', 'INTRODUCED_IN']

SUPPORTED = ('1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0', '1.6.0')
_BEYOND_SPEC = ('1.7.0',)

#: Attribute or element → the version that introduced it.
INTRODUCED_IN: dict[str, tuple[int, int, int]] = {
    'formulas': (1, 1, 0),          # rotation formulas; formulas in scalars
    'overrides': (1, 1, 0),         # mass, mass_offset, com_*, ixx.. on built-in elements
    'inertia': (1, 1, 0),
    'R8': (1, 2, 0),
    'link input/output': (1, 2, 0),
    'end-effector': (1, 2, 0),
    'description': (1, 2, 0),
    'output': (1, 3, 0),
    'include': (1, 3, 0),
    'mesh': (1, 3, 0),
    'T-series': (1, 4, 0),
    'tag': (1, 4, 0),
    'gear_ratio': (1, 5, 0),
    'R25': (1, 6, 0),
}


@dataclass(frozen=True, slots=True, order=True)
class Version:
    major: int
    minor: int
    patch: int
    #: The features of :data:`INTRODUCED_IN` this version has (computed once per version).
    features: frozenset[str] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        number = (self.major, self.minor, self.patch)
        object.__setattr__(self, 'features', frozenset(
            feature for feature, first in INTRODUCED_IN.items() if number >= first))

    def __str__(self) -> str:
        return f'{self.major}.{self.minor}.{self.patch}'

    def has(self, feature: str) -> bool:
        """True if ``feature`` (a key of :data:`INTRODUCED_IN`) exists in this version."""
        return feature in self.features

    @property
    def has_formulas(self) -> bool:
        return self.has('formulas')

    @property
    def implicit_end_effector(self) -> bool:
        """Files of version ≤ 1.1.0 get an implicit end effector at the end of the chain."""
        return (self.major, self.minor, self.patch) <= (1, 1, 0)

    @staticmethod
    def introducing(feature: str) -> str:
        return '.'.join(str(v) for v in INTRODUCED_IN[feature])


def parse_version(text: str | None) -> tuple[Version, bool] | None:
    """``(version, beyond_spec)`` for a supported version string, None otherwise.

    A missing attribute (``None``) is 1.0.0, as the spec says.
    """
    if text is None:
        return _KNOWN['1.0.0']
    return _KNOWN.get(text)


#: Every version this reader knows, parsed once: text -> (version, beyond_spec).
_KNOWN: dict[str, tuple[Version, bool]] = {
    text: (Version(*(int(p) for p in text.split('.'))), text in _BEYOND_SPEC)
    for text in (*SUPPORTED, *_BEYOND_SPEC)}
