"""Where an ``//include/uri`` points: relative paths, ``file://``, ``model://``, ``package://``.

Rules (see docs/sdformat.md):

* relative paths and ``file://`` URIs resolve against the directory of the *including* file
  (libsdformat 12 uses the process's current directory, which makes a file's meaning depend on
  where it is loaded from; we deliberately differ), then in the model search paths;
* ``model://NAME/rest`` searches ``NAME/rest`` in the model search paths: the configured list,
  then ``GZ_SIM_RESOURCE_PATH``, ``IGN_GAZEBO_RESOURCE_PATH``, ``SDF_PATH``,
  ``GAZEBO_MODEL_PATH``;
* ``package://PKG/rest`` goes through the configured package map, the ament index
  (``AMENT_PREFIX_PATH``) and ``package.xml`` files under ``ROS_PACKAGE_PATH``;
* ``https://fuel.gazebosim.org/1.0/OWNER/models/NAME[/VERSION]`` (any Fuel host) is read from
  the local Fuel cache as Gazebo reads it, ``HOST/OWNER/models/NAME/VERSION/`` under
  ``GZ_FUEL_CACHE_PATH`` (else ``~/.gz/fuel``; ``IGN_FUEL_CACHE_PATH`` and ``~/.ignition/fuel``
  too), the newest version when the URI names none or ``tip``; robot_formats never touches
  the network, so a model not in the cache is an error saying how to fetch it;
* other ``http://`` and ``https://`` URIs are refused.

A hit that is a directory is a model directory: its ``model.config`` names the SDFormat file
(the ``<sdf>`` entry with the highest version robot_formats reads); ``manifest.xml`` is the
deprecated fallback.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from robot_formats.core.errors import FormatError, ReferenceError, UnsupportedError
from robot_formats.core.files import is_directory, is_regular_file
from robot_formats.core.limits import MAX_INCLUDE_DEPTH
from robot_formats.core.meshes import inside, inside_root
from robot_formats.core.xmlsafe import read_xml

__all__ = ['ResolverConfig', 'resolve_uri', 'model_directory_file']

_MODEL_PATH_VARIABLES = ('GZ_SIM_RESOURCE_PATH', 'IGN_GAZEBO_RESOURCE_PATH', 'SDF_PATH',
                         'GAZEBO_MODEL_PATH')
_HIGHEST_VERSION = (1, 12)
_FUEL_CACHE_VARIABLES = ('GZ_FUEL_CACHE_PATH', 'IGN_FUEL_CACHE_PATH')


@dataclass
class ResolverConfig:
    """How includes are found. The environment variables are read at lookup time."""

    model_paths: list[Path] = field(default_factory=list)   #: searched before the environment
    package_map: dict[str, Path] = field(default_factory=dict)  #: package name -> directory
    package_paths: list[Path] = field(default_factory=list)  #: searched like ROS_PACKAGE_PATH
    fuel_cache_paths: list[Path] = field(default_factory=list)  #: searched before the default
    use_environment: bool = True
    max_depth: int = MAX_INCLUDE_DEPTH   #: include nesting allowed before the document is refused
    #: Custom model parsers (the proposal's interface API, libsdformat's
    #: ``ParserConfig::RegisterCustomModelParser``), in registration order.
    custom_parsers: list = field(default_factory=list)
    _package_cache: dict[str, Path | None] = field(default_factory=dict, repr=False)

    def register_custom_model_parser(self, parser) -> None:
        """Add a custom model parser; it is asked before every parser registered earlier."""
        self.custom_parsers.append(parser)

    def unregister_custom_model_parser(self, parser) -> None:
        """Remove a parser registered earlier (no error if it is not registered)."""
        if parser in self.custom_parsers:
            self.custom_parsers.remove(parser)

    def custom_model_parsers(self) -> tuple:
        """The registered parsers in the order they are asked (latest first)."""
        return tuple(reversed(self.custom_parsers))

    def search_paths(self) -> list[Path]:
        paths = list(self.model_paths)
        if self.use_environment:
            for variable in _MODEL_PATH_VARIABLES:
                paths += [Path(p) for p in os.environ.get(variable, '').split(os.pathsep) if p]
        return paths

    def fuel_caches(self) -> list[Path]:
        """Where Fuel models are cached: the configured folders, then Gazebo's."""
        paths = list(self.fuel_cache_paths)
        if self.use_environment:
            for variable in _FUEL_CACHE_VARIABLES:
                if os.environ.get(variable, '').strip():
                    paths.append(Path(os.environ[variable]))
            home = Path.home()
            paths += [home / '.gz' / 'fuel', home / '.ignition' / 'fuel']
        return paths

    def package(self, name: str) -> Path | None:
        if name in self.package_map:
            return Path(self.package_map[name])
        if name not in self._package_cache:
            found = None
            for root in self.package_paths:
                found = found or _package_under(Path(root), name)
            if found is None and self.use_environment:
                found = _find_package(name)
            self._package_cache[name] = found
        return self._package_cache[name]


def resolve_uri(uri: str, including_file: str | None, config: ResolverConfig,
                line: int | None, directories: dict[str, Path] | None = None) -> Path:
    """The file (or model directory's SDFormat file) an include URI names. ``directories``:
    the including files' resolved directories known so far in this load (a world including
    one model 1,000 times resolves the symlinks of its own path once)."""
    uri = uri.strip()
    scheme, sep, rest = uri.partition('://')
    if not sep:
        scheme, rest = '', uri
    scheme = scheme.lower()
    if scheme in ('http', 'https') and _FUEL_MODEL.match(rest):
        return _fuel_model(uri, rest, config, including_file, line)
    if scheme in ('http', 'https', 'ftp'):
        raise UnsupportedError(f'include {uri!r}: robot_formats does not download models '
                               '(no network access); download it and include the local copy',
                               including_file, line, code='URI_LOOKUP')
    if scheme not in ('', 'file', 'package', 'model'):
        raise UnsupportedError(f'include {uri!r}: unknown URI scheme {scheme!r}',
                               including_file, line, code='URI_LOOKUP')
    base = _directory_of(including_file, directories) if including_file else Path.cwd()
    candidates: list[Path] = []
    for candidate in _candidates(uri, scheme, rest, base, config, including_file, line):
        if is_regular_file(candidate):
            return candidate
        if is_directory(candidate):
            return model_directory_file(candidate, uri, including_file, line)
        candidates.append(candidate)
    raise ReferenceError(f'include {uri!r}: no such file or model directory (looked in '
                         f'{_shown(candidates)})', including_file, line, code='URI_LOOKUP')


def _candidates(uri: str, scheme: str, rest: str, base: Path, config: ResolverConfig,
                including_file: str | None, line: int | None) -> Iterator[Path]:
    """Where an include URI of a local ``scheme`` may be, in the order they are tried, each
    worked out when the ones before it are not there: a relative file next to the including
    one, then (the including file in a model directory) next to that directory, then under
    each model search path; a ``package://`` URI in its package, a ``model://`` URI in a model
    directory of the search paths, neither leaving that directory (``..`` beyond it is
    refused: :func:`~robot_formats.core.meshes.inside_root`)."""
    if scheme in ('package', 'model'):
        name, _, inner = rest.partition('/')
        normal = inside(inner)
        if name in ('', '.', '..') or normal is None:
            raise ReferenceError(f'include {uri!r}: the path leaves the directory of '
                                 f'{scheme} {name!r} (a {scheme}:// URI names a file inside '
                                 'it)', including_file, line, code='URI_LOOKUP')
        if scheme == 'package':
            root = config.package(name)
            if root is None:
                raise ReferenceError(f'include {uri!r}: package {name!r} is not in the '
                                     'package map, the ament index or ROS_PACKAGE_PATH',
                                     including_file, line, code='URI_LOOKUP')
            yield root / normal
            return
        for path in config.search_paths():  # model://
            yield path / name / normal
        return
    if os.path.isabs(rest):  # a plain path or file://, as libsdformat reads them
        yield Path(rest)
        return
    yield base / rest
    if is_regular_file(base / 'model.config'):  # a model directory: its siblings too
        yield base.parent / rest
    for path in config.search_paths():
        yield path / rest


#: HOST/1.0/OWNER/models/NAME[/VERSION|tip][/files/...] (the Fuel REST API's model URL).
_FUEL_MODEL = re.compile(r'(?P<host>[^/]+)/(?P<api>[0-9.]+)/(?P<owner>[^/]+)/models/'
                         r'(?P<name>[^/]+)(?:/(?P<version>[0-9]+|tip))?(?:/files/(?P<file>.+))?/?$')


def _fuel_model(uri: str, rest: str, config: ResolverConfig, including_file: str | None,
                line: int | None) -> Path:
    """A Fuel model from the local cache, as Gazebo resolves it (no network)."""
    match = _FUEL_MODEL.match(rest)
    assert match is not None
    host, owner, name = match['host'], match['owner'], match['name']
    version = match['version'] if match['version'] not in (None, 'tip') else None
    folders: list[Path] = []
    for cache in config.fuel_caches():
        for owner_dir, name_dir in {(owner, name), (owner.lower(), name.lower())}:
            model = cache / host / owner_dir / 'models' / name_dir
            folders.append(model)
            chosen = model / version if version else _newest_version(model)
            if chosen is None or not chosen.is_dir():
                continue
            if match['file']:
                inside = inside_root(chosen, match['file'])
                if inside is not None and is_regular_file(inside):
                    return inside
                continue
            return model_directory_file(chosen, uri, including_file, line)
    raise ReferenceError(f'include {uri!r}: the model is not in the local Fuel cache (looked in '
                         f'{_shown(folders)}); fetch it with `gz fuel download -u {uri}` (or set '
                         'GZ_FUEL_CACHE_PATH), or include a local copy', including_file, line,
                         code='URI_LOOKUP')


def _newest_version(model: Path) -> Path | None:
    """The highest numbered version folder of a cached Fuel model."""
    try:
        versions = [d for d in model.iterdir() if d.is_dir() and d.name.isdigit()]
    except OSError:
        return None
    return max(versions, key=lambda d: int(d.name), default=None)


def _directory_of(file: str, known: dict[str, Path] | None) -> Path:
    """The resolved directory of an including file, remembered in ``known`` (one load's)."""
    if known is None:
        return Path(file).resolve().parent
    found = known.get(file)
    if found is None:
        found = known[file] = Path(file).resolve().parent
    return found


def _shown(candidates: list[Path]) -> str:
    names = [str(c) for c in candidates[:4]]
    more = len(candidates) - len(names)
    return ', '.join(names) + (f' and {more} more' if more > 0 else '') if names else 'nowhere'


def model_directory_file(directory: Path, uri: str, including_file: str | None,
                         line: int | None) -> Path:
    """The SDFormat file of a model directory, chosen by ``model.config``."""
    for config_name in ('model.config', 'manifest.xml'):
        config = directory / config_name
        if not is_regular_file(config):
            continue
        try:
            root = read_xml(config)
        except FormatError as err:
            raise ReferenceError(f'include {uri!r}: unreadable {config_name}: {err.message}',
                                 including_file, line, code='URI_LOOKUP') from None
        best: tuple[tuple[int, int], str] | None = None
        for entry in root.iter('sdf'):
            version = _version((entry.get('version') or '0.0'))
            name = (entry.text or '').strip()
            if name and version <= _HIGHEST_VERSION and (best is None or version > best[0]):
                best = (version, name)
        if best is not None and is_regular_file(directory / best[1]):
            return directory / best[1]
        raise ReferenceError(f'include {uri!r}: {config} names no SDFormat file that exists',
                             including_file, line, code='URI_LOOKUP')
    raise ReferenceError(f'include {uri!r}: directory {directory} has no model.config',
                         including_file, line, code='URI_LOOKUP')


def _version(text: str) -> tuple[int, int]:
    major, _, minor = text.strip().partition('.')
    try:
        return int(major), int(minor or 0)
    except ValueError:
        return (0, 0)


def _find_package(name: str) -> Path | None:
    """A ROS package's directory: the ament index first, then ``ROS_PACKAGE_PATH``."""
    for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep):
        if prefix and (Path(prefix) / 'share/ament_index/resource_index/packages' / name).exists():
            return Path(prefix) / 'share' / name
    for root in os.environ.get('ROS_PACKAGE_PATH', '').split(os.pathsep):
        if root:
            found = _package_under(Path(root), name)
            if found is not None:
                return found
    return None


def _package_under(root: Path, name: str) -> Path | None:
    for directory, subdirs, files in os.walk(root):
        if 'package.xml' in files:
            try:
                manifest = read_xml(Path(directory) / 'package.xml')
            except FormatError:
                continue
            found = manifest.find('name')
            if found is not None and (found.text or '').strip() == name:
                return Path(directory)
        subdirs[:] = sorted(d for d in subdirs if not d.startswith('.'))
    return None
