"""Models from other formats inside an SDFormat document.

Two ways in, as the interface API section of the proposal describes:

* :func:`interface_to_model` incorporates what a registered custom parser returned (an
  :class:`~.interface.InterfaceModel`: links and frames only, for the frame graphs);
* :func:`foreign_model` is robot_formats' built-in converter for every other format it reads
  (URDF, SKEL, HRDF, ...): the file is loaded with its own reader and becomes a complete model,
  links with their shapes and inertia, joints with their kinds, axes and limits, and frames.
  The included file's root frame (a URDF's root link, a SKEL world's origin) is the model frame.

A root link named ``world`` is the world: a URDF (or SKEL) joint from it stays a joint to the
world, as libsdformat's URDF parser makes it. An HRDF kit is the exception: HEBI's ``world``
is only the kit's mounting frame, so the kit becomes a free model whose model frame is that
frame (the include's pose places it) and whose canonical link is ``base``; a joint in the
including model welds it wherever it is mounted (a DART turntable, another arm's flange).
Without one it stays where the document puts it, like any free model.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from robot_formats.core.errors import Diagnostic, FormatError, ReferenceError, SchemaError
from robot_formats.core.model import WORLD, Collision, Frame, Joint, Link, Visual
from robot_formats.core.ranges import check_name
from robot_formats.core.transforms import pose_to_matrix
from robot_formats.formats.sdformat.dom import (MODEL_FRAME, PoseSpec, SdfAxis, SdfFrame, SdfJoint,
                                                SdfLink, SdfModel, SdfVisualPose)
from robot_formats.formats.sdformat.interface import InterfaceModel

if TYPE_CHECKING:
    from robot_formats.formats.spec import LoadResult

__all__ = ['foreign_model', 'interface_to_model']


def foreign_model(result: LoadResult, name: str, ctx, line: int | None,
                  warnings: list[Diagnostic]) -> SdfModel:
    """The model an included non-SDFormat file describes (``result``: that file as the
    registry loaded it), named ``name``."""
    path = Path(result.path)
    warnings.extend(result.warnings)
    warnings.extend(result.notes)  # notes stay notes (their severity travels with them)
    scene, tree = result.scene, result.tree
    assert tree is not None
    poses = tree.forward(np.zeros(len(tree.dof_names)))
    model = SdfModel(name, PoseSpec(), str(path), line, ctx.version)
    if not scene.is_world:
        _fill(model, scene.models[0], '', poses, mounted=result.format == 'hrdf')
        return model
    for inner in scene.models:
        nested = SdfModel(inner.name, PoseSpec(), str(path), line, ctx.version,
                          static=inner.static)
        _fill(nested, inner, f'{inner.name}::', poses)
        model.models.append(nested)
    for frame in scene.frames:
        model.frames.append(_frame(frame, frame.attached_to))
    for joint in scene.joints:
        model.joints.append(_joint(joint, _pose_of(poses, joint.parent), joint.parent,
                                   joint.child))
    if not model.models and not model.links:
        raise SchemaError(f'{path.name} describes no model to include', ctx.file, line,
                          code='ELEMENT_MISSING')
    return model


def _fill(model: SdfModel, inner, prefix: str, poses: dict, mounted: bool = False) -> None:
    """Links, joints and frames of neutral model ``inner`` (whose frames are ``prefix`` +
    name in ``poses``, the tree's root frame becoming the model frame). ``mounted``: the root
    link ``world`` is only a mounting frame (HRDF), so joints from it are left out and the
    model is free."""
    for link in inner.links:
        if link.name != WORLD:  # a URDF/HRDF root link "world" is the world itself in SDFormat
            model.links.append(_link(link, poses[prefix + link.name]))
    taken = {link.name for link in inner.links} | {frame.name for frame in inner.frames}
    for joint in inner.joints:
        if mounted and joint.parent == WORLD:
            continue
        parent = joint.parent if joint.parent == WORLD else prefix + joint.parent
        converted = _joint(joint, _pose_of(poses, parent), joint.parent, joint.child)
        converted.has_frame = joint.name not in taken
        model.joints.append(converted)
    for frame in inner.frames:
        model.frames.append(_frame(frame, MODEL_FRAME if frame.attached_to == WORLD
                                   else frame.attached_to))
    model.initial_positions = dict(inner.initial_positions)
    model.static = inner.static


def _link(link: Link, pose: np.ndarray) -> SdfLink:
    out = SdfLink(link.name, PoseSpec(pose, MODEL_FRAME, link.line, True), link.line,
                  link.inertial)
    items: tuple[Visual | Collision, ...] = (*link.visuals, *link.collisions)
    for item in items:
        out.shapes += (SdfVisualPose(item, PoseSpec(pose_to_matrix(item.origin))),)
    return out


def _pose_of(poses: dict, name: str) -> np.ndarray:
    return np.eye(4) if name == WORLD else poses[name]


def _joint(joint: Joint, parent_pose: np.ndarray, parent: str, child: str) -> SdfJoint:
    """An SDF joint equal to the neutral one: its frame posed in the model frame."""
    joint_pose = parent_pose @ pose_to_matrix(joint.origin)
    limits = list(joint.limits) + [None, None]
    axis = SdfAxis(joint.axis, '', limits[0])
    axis.dynamics = joint.dynamics
    axis2 = SdfAxis(joint.axis2, '', limits[1]) if joint.axis2 is not None else None
    return SdfJoint(joint.name, joint.type, parent, child,
                    PoseSpec(joint_pose, MODEL_FRAME, joint.line, True), axis, axis2,
                    pitch=joint.pitch, mimic=joint.mimic, axis_order=joint.axis_order,
                    sdf_type=joint.type.value, line=joint.line)


def _frame(frame: Frame, attached_to: str) -> SdfFrame:
    return SdfFrame(frame.name, attached_to, PoseSpec(pose_to_matrix(frame.pose)), frame.line)


def interface_to_model(interface: InterfaceModel, ctx, line: int | None, file: str) -> SdfModel:
    """The SDF model standing for a custom parser's interface model (links and frames)."""
    if not isinstance(interface, InterfaceModel):
        raise FormatError(f'a custom model parser returned {type(interface).__name__}, not an '
                          'InterfaceModel', file, None, code='CUSTOM_PARSER')
    if '::' in interface.name or not interface.name:
        raise SchemaError(f'custom model name {interface.name!r} is empty or contains "::"',
                          file, None, code='RESERVED_NAME')
    model = SdfModel(interface.name, PoseSpec(pose_to_matrix(interface.pose_in_parent)), file,
                     line, ctx.version, canonical_link=interface.canonical_link,
                     reposture=interface.reposture)
    for link in interface.links:
        check_name(link.name, 'link', file, None)  # (the parser's names: no reader saw them)
        model.links.append(SdfLink(link.name, PoseSpec(pose_to_matrix(link.pose_in_model))))
    for frame in interface.frames:
        check_name(frame.name, 'frame', file, None)
        attached = '' if frame.attached_to == MODEL_FRAME else frame.attached_to
        model.frames.append(SdfFrame(frame.name, attached,
                                     PoseSpec(pose_to_matrix(frame.pose_in_attached_to))))
    for nested in interface.models:
        model.models.append(interface_to_model(nested, ctx, line, file))
    _check_canonical(interface, model, file)
    model.interface_model_pose = pose_to_matrix(interface.model_pose_in_canonical_link)
    return model


def _check_canonical(interface: InterfaceModel, model: SdfModel, file: str) -> None:
    links = {link.name: link for link in model.links}
    canonical = links.get(interface.canonical_link)
    if canonical is None:
        if '::' in interface.canonical_link:
            return  # a nested interface model's link: checked by the frame graph
        raise ReferenceError(f'custom model {interface.name!r}: canonical link '
                             f'{interface.canonical_link!r} is not one of its links', file, None,
                             code='MODEL_CANONICAL_LINK_INVALID')
    expected = np.linalg.inv(canonical.pose.matrix)
    given = pose_to_matrix(interface.model_pose_in_canonical_link)
    if not np.allclose(expected, given, atol=1e-9):
        raise FormatError(f'custom model {interface.name!r}: model_pose_in_canonical_link '
                          'disagrees with the canonical link\'s pose_in_model (one must be the '
                          'inverse of the other)', file, None, code='CUSTOM_PARSER')
