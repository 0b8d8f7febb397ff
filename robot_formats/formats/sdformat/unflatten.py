"""Pre-1.8 "flattened" models back into nested models (libsdformat's 1.7 -> 1.8 conversion).

Tools before 1.8 merged a nested model ``M1`` into its parent by prefixing names
(``M1::L1``) and recording the nested model frame as a frame named ``M1::__model__``. Such a
frame marks a flattened model: its ``M1::*`` siblings move into a nested model ``M1`` (names and
references lose the prefix), posed by that frame and with its ``attached_to`` as canonical
link. Applied recursively, so ``M1::M2::*`` becomes ``M1`` > ``M2``.
"""

from __future__ import annotations

from robot_formats.formats.sdformat.dom import MODEL_FRAME, SdfModel

__all__ = ['unflatten']

_MARK = '::' + MODEL_FRAME


def unflatten(model: SdfModel) -> None:
    """Rebuild the nested models a flattened ``model`` records (in place)."""
    for marker in [f for f in model.frames if f.name.endswith(_MARK)]:
        prefix = marker.name[:-len(_MARK)]
        if '::' in prefix:
            continue  # an inner level: handled when its outer model is rebuilt
        _rebuild(model, prefix, marker)


def _strip(name: str, prefix: str) -> str:
    head = prefix + '::'
    return name[len(head):] if name.startswith(head) else name


def _rebuild(model: SdfModel, prefix: str, marker) -> None:
    head = prefix + '::'
    nested = SdfModel(prefix, marker.pose,
                      model.file, marker.line, model.version, static=model.static,
                      canonical_link=_strip(marker.attached_to, prefix))
    model.frames.remove(marker)

    def local(name: str) -> str:
        return MODEL_FRAME if name == head + MODEL_FRAME else _strip(name, prefix)

    for link in [each for each in model.links if each.name.startswith(head)]:
        model.links.remove(link)
        link.name = local(link.name)
        link.pose = link.pose._replace(relative_to=local(link.pose.relative_to))
        for shape in link.shapes:
            shape.pose = shape.pose._replace(relative_to=local(shape.pose.relative_to))
        nested.links.append(link)
    for joint in [j for j in model.joints if j.name.startswith(head)]:
        model.joints.remove(joint)
        joint.name, joint.parent, joint.child = (local(joint.name), local(joint.parent),
                                                 local(joint.child))
        joint.pose = joint.pose._replace(relative_to=local(joint.pose.relative_to))
        for axis in (joint.axis, joint.axis2):
            if axis is not None:
                axis.expressed_in = local(axis.expressed_in)
        nested.joints.append(joint)
    for frame in [f for f in model.frames if f.name.startswith(head)]:
        model.frames.remove(frame)
        frame.name, frame.attached_to = local(frame.name), local(frame.attached_to)
        frame.pose = frame.pose._replace(relative_to=local(frame.pose.relative_to))
        nested.frames.append(frame)
    for inner in [m for m in model.models if m.name.startswith(head)]:
        model.models.remove(inner)
        inner.name = local(inner.name)
        inner.pose = inner.pose._replace(relative_to=local(inner.pose.relative_to))
        nested.models.append(inner)
    unflatten(nested)
    model.models.append(nested)
