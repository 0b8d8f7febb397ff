"""``<include merge="true">``: an included model's elements become the including model's.

libsdformat's rule (SDFormat 1.9+, used by real files of earlier versions too): the included
model disappears as a scope; its links, joints, frames and nested models are added to the
parent, and a *proxy frame* ``_merged__<name>__model__`` stands for its model frame. The proxy is
attached to the included model's canonical link and posed where the include puts the model
frame (honouring the placement frame); every reference the included elements made to
``__model__`` (explicitly or by default) now names the proxy.

A world can merge-include a model too (SDFormat 1.10, libsdformat >= 13): the same mechanism,
with the proxy a world frame posed in the world, but a world has no links, so a model with links
of its own cannot be merged into one (``MERGE_INCLUDE_UNSUPPORTED``, as libsdformat).
"""

from __future__ import annotations

import numpy as np

from robot_formats.core.errors import UnsupportedError
from robot_formats.formats.sdformat.dom import (MODEL_FRAME, WORLD_FRAME, PoseSpec, SdfFrame,
                                                SdfModel, SdfWorld)
from robot_formats.formats.sdformat.frames import ModelFrames, placement_pose

__all__ = ['merge_into', 'proxy_frame_name']


def proxy_frame_name(model_name: str) -> str:
    return f'_merged__{model_name}__model__'


def merge_into(ctx, parent: SdfModel | SdfWorld, included: SdfModel, siblings,
               line: int | None) -> None:
    """Move ``included``'s elements into ``parent`` (names claimed in ``siblings``)."""
    in_world = isinstance(parent, SdfWorld)
    if in_world and included.links:
        raise UnsupportedError(
            f'<include merge="true"> in world {parent.name!r}: the included model '
            f'{included.name!r} has links ({", ".join(link.name for link in included.links)}); '
            'only models, frames and joints can be merged into a world', ctx.file, line,
            code='MERGE_INCLUDE_UNSUPPORTED')
    graph = ModelFrames(included)  # the included model must be valid on its own
    proxy = proxy_frame_name(included.name)
    placement = placement_pose(graph, included)
    # the proxy's pose is expressed in the parent's model frame (or the world) unless the
    # include says more
    pose = PoseSpec(included.pose.matrix @ np.linalg.inv(placement),
                    included.pose.relative_to or (WORLD_FRAME if in_world else MODEL_FRAME),
                    included.pose.line, True)
    canonical = graph.canonical()
    frame = SdfFrame(proxy, '' if canonical == MODEL_FRAME else canonical, pose, line)
    siblings.claim(proxy, 'frame', line)
    parent.frames.append(frame)

    def to_proxy(name: str) -> str:
        return proxy if name in ('', MODEL_FRAME) else name

    for link in included.links:  # none when merging into a world (refused above)
        assert isinstance(parent, SdfModel)
        link.pose = link.pose._replace(relative_to=to_proxy(link.pose.relative_to))
        siblings.claim(link.name, 'link', link.line)
        parent.links.append(link)
    for joint in included.joints:
        # //joint/parent and //joint/child keep naming "__model__" (now the including
        # model's frame): that is what libsdformat resolves, and what its goldens hold.
        if joint.pose.relative_to == MODEL_FRAME:
            joint.pose = joint.pose._replace(relative_to=proxy)
        for axis in (joint.axis, joint.axis2):
            if axis is not None and axis.expressed_in == MODEL_FRAME:
                axis.expressed_in = proxy
        siblings.claim(joint.name, 'joint', joint.line)
        parent.joints.append(joint)
    for item in included.frames:
        item.attached_to = to_proxy(item.attached_to)
        if item.pose.relative_to == MODEL_FRAME:
            item.pose = item.pose._replace(relative_to=proxy)
        siblings.claim(item.name, 'frame', item.line)
        parent.frames.append(item)
    for nested in included.models:
        nested.pose = nested.pose._replace(relative_to=to_proxy(nested.pose.relative_to))
        siblings.claim(nested.name, 'model', nested.line)
        parent.models.append(nested)
