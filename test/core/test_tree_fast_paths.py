"""Issue 18's second round on the kinematic tree, each shortcut held to what it replaces:
``dof_names``/``dof_count`` by the kind's value (vs the Enum-keyed table, the reference kept
here), the edges made without ``Edge(...)``'s keyword call, the coordinate-name check skipped
when no joint has a generated coordinate name, and the tree's checks on the fast paths raising
what they raised."""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import pickle
import random

import pytest

import robot_formats
from robot_formats.core.errors import FormatError
from robot_formats.core.kinematics import Edge, KinematicTree, _replace
from robot_formats.core.model import (DOF_SUFFIXES, IDENTITY, Frame, Joint, JointType, Link,
                                      Mimic, Model, Pose, Scene, dof_count, dof_names)

from rf_testlib import ROOT

CORPUS = ROOT.parent / 'shared' / 'corpus'


def _reference_dof_names(joint: Joint) -> tuple[str, ...]:
    if joint.mimic is not None:
        return ()
    if joint.type is JointType.EULER:
        letters = joint.axis_order
        if len(set(letters)) == len(letters):
            return tuple(f'{joint.name}/{letter}' for letter in letters)
        return tuple(f'{joint.name}/{letter}{i}' for i, letter in enumerate(letters))
    suffixes = DOF_SUFFIXES[joint.type]
    if suffixes == ('',):
        return (joint.name,)
    return tuple(f'{joint.name}/{suffix}' for suffix in suffixes)


def test_dof_names_by_value_are_the_enum_table() -> None:
    count = 0
    for kind, mimic, order in itertools.product(
            JointType, (None, Mimic('lead', 2.0)), ('xyz', 'zyx', 'zxz', 'xx', 'yzxz')):
        joint = Joint('j0', kind, 'a', 'b', mimic=mimic, axis_order=order)
        assert dof_names(joint) == _reference_dof_names(joint), (kind, mimic, order)
        assert dof_names(joint) == _reference_dof_names(joint)  # (again: the table made)
        assert type(dof_names(joint)) is tuple
        expected = 0 if mimic is not None else len(DOF_SUFFIXES[kind])
        assert joint.dof_count == dof_count(joint) == expected
        count += 1
    assert count == len(JointType) * 10
    named = Joint('arm/elbow', JointType.FLOATING, 'a', 'b')
    assert dof_names(named)[3] == 'arm/elbow/pos_x'


def _edge_state(edge: Edge) -> tuple:
    return (edge.child, edge.parent, edge.joint, edge.kind, edge._pose, edge._child_offset,
            edge._origin, edge._offset, repr(edge))


def _trees() -> list[KinematicTree]:
    trees = []
    for kind, pattern in (('hrdf', '*.hrdf'), ('skel', '*.skel'), ('sdformat', '*.world'),
                          ('sdformat', '*.sdf')):
        for path in sorted((CORPUS / kind).rglob(pattern))[:25]:
            try:
                trees.append(robot_formats.load(path).tree)
            except FormatError:
                continue
    return trees


def test_tree_edges_are_keyword_edges() -> None:
    """Every edge of corpus trees equals ``Edge(...)`` made by keyword from the same model
    objects (as the tree made them before), copies and pickles alike."""
    trees = _trees()
    assert len(trees) > 40
    kinds = set()
    for tree in trees:
        for name, edge in tree.edges.items():
            kinds.add(edge.kind)
            if edge.kind == 'link':
                assert edge.joint is not None
                expected = Edge(edge.joint.child, edge.joint.parent, edge.joint, kind='link',
                                pose=edge.joint.origin, child_offset=edge.joint.child_offset)
            elif edge.kind == 'frame':
                expected = Edge(name, tree.frames[name].attached_to, None, kind='frame',
                                pose=tree.frames[name].pose)
            else:
                model = next(m for m in tree.scene.models
                             if name.startswith(m.name + '::'))
                expected = Edge(name, 'world', None, kind='model', pose=model.pose)
            assert _edge_state(edge) == _edge_state(expected)
            assert _edge_state(pickle.loads(pickle.dumps(edge))) == _edge_state(expected)
        assert tree.dof_names == tuple(n for j in tree.joints.values()
                                       for n in _reference_dof_names(j))
    assert kinds == {'link', 'frame', 'model'}


def _chain(kinds: list[JointType], names: list[str], world: bool = False) -> Scene:
    links = tuple(Link(f'l{i}') for i in range(len(kinds) + 1))
    joints = tuple(Joint(name, kind, f'l{i}', f'l{i + 1}', line=10 + i)
                   for i, (kind, name) in enumerate(zip(kinds, names)))
    return Scene('s', (Model('m', links, joints),), is_world=world)


def _message(scene: Scene) -> str | None:
    try:
        KinematicTree(scene)
    except FormatError as err:
        return f'{type(err).__name__}: {err}'
    return None


def test_coordinate_names_are_still_refused() -> None:
    cases = {
        'translational then its coordinate': ([JointType.TRANSLATIONAL, JointType.FIXED],
                                              ['j', 'j/x']),
        'coordinate first': ([JointType.FIXED, JointType.BALL], ['b/rot_y', 'b']),
        'screw translation': ([JointType.SCREW, JointType.PRISMATIC], ['s', 's/translation']),
        'euler letters': ([JointType.EULER, JointType.FIXED], ['e', 'e/z']),
    }
    for what, (kinds, names) in cases.items():
        message = _message(_chain(kinds, names))
        assert message is not None and 'is named like a coordinate' in message, what
    mimic_screw = _chain([JointType.REVOLUTE, JointType.SCREW, JointType.PRISMATIC],
                         ['lead', 's', 's/translation'])
    joints = list(mimic_screw.models[0].joints)
    joints[1] = Joint('s', JointType.SCREW, 'l1', 'l2', mimic=Mimic('lead'), line=11)
    model = Model('m', mimic_screw.models[0].links, tuple(joints))
    assert 'is named like a coordinate' in _message(Scene('s', (model,)))


def test_random_chains_check_as_every_check_ran() -> None:
    """Random chains of every kind and clashing names: the tree refuses exactly the ones the
    full coordinate-name check refuses (run here on every accepted tree)."""
    rng = random.Random(18)
    kinds = list(JointType)
    refused = accepted = 0
    for _ in range(400):
        count = rng.randint(1, 5)
        chosen = [rng.choice(kinds) for _ in range(count)]
        names: list[str] = []
        for i in range(count):
            if names and rng.random() < 0.5:
                other = rng.randrange(len(names))
                suffix = rng.choice(['x', 'rot_x', 'translation', 'axis2', 'z', 'pos_z', 'q'])
                names.append(f'{names[other]}/{suffix}')
            else:
                names.append(f'j{i}')
        if len(set(names)) != len(names):
            continue
        scene = _chain(chosen, names, world=rng.random() < 0.3)
        message = _message(scene)
        if message is None:
            accepted += 1
            tree = KinematicTree(scene)
            tree._refuse_joint_names_of_coordinates()  # the general check finds nothing
            tree._refuse_duplicate_dofs()
        else:
            refused += 1
    assert refused > 20 and accepted > 100


def test_the_fast_checks_raise_what_they_raised() -> None:
    base = _chain([JointType.REVOLUTE], ['j'])
    model = base.models[0]
    unknown = Model('m', model.links, (Joint('j', JointType.REVOLUTE, 'l0', 'nowhere', line=3),))
    message = _message(Scene('s', (unknown,)))
    assert message is not None and "joint 'j' refers to unknown link 'nowhere'" in message
    parent_unknown = Model('m', model.links,
                           (Joint('j', JointType.REVOLUTE, 'gone', 'l1', line=3),))
    assert "refers to unknown link 'gone'" in _message(Scene('s', (parent_unknown,)))
    world_parent = Model('m', model.links, (Joint('j', JointType.REVOLUTE, 'world', 'l0'),
                                            Joint('k', JointType.REVOLUTE, 'l0', 'l1')))
    assert _message(Scene('s', (world_parent,), is_world=True)) is None
    assert "refers to unknown link 'world'" in _message(Scene('s', (world_parent,)))
    twice = Model('m', (Link('a'), Link('a', line=7)), ())
    assert "the name 'a' is used by more than one link or frame" in _message(Scene('s', (twice,)))
    world_link = Model('m', (Link('world', line=4),), ())
    assert "the name 'world' is used" in _message(Scene('s', (world_link,), is_world=True))
    frame_clash = Model('m', (Link('a'),), (), (Frame('a', 'a'),))
    assert "the name 'a' is used" in _message(Scene('s', (frame_clash,)))
    same = Model('m', model.links, (Joint('j', JointType.FIXED, 'l0', 'l0'),))
    assert 'has the same parent and child' in _message(Scene('s', (same,)))
    two = Model('m', model.links, (Joint('j', JointType.FIXED, 'l0', 'l1'),
                                   Joint('k', JointType.FIXED, 'l0', 'l1')))
    assert "link 'l1' is the child of two joints ('j' and 'k')" in _message(Scene('s', (two,)))
    euler = Model('m', model.links, (Joint('e', JointType.EULER, 'l0', 'l1', axis_order='xy'),))
    assert "euler joint 'e' has axis order 'xy'" in _message(Scene('s', (euler,)))


def test_a_tree_of_poses_given_as_none_is_as_edge_makes_it() -> None:
    joint = Joint('j', JointType.REVOLUTE, 'a', 'b', origin=None, child_offset=None)  # type: ignore[arg-type]
    scene = Scene('s', (Model('m', (Link('a'), Link('b')), (joint,),
                              (Frame('f', 'b', None),)),))  # type: ignore[arg-type]
    tree = KinematicTree(scene)
    assert tree.edges['b'].pose is IDENTITY and tree.edges['b'].child_offset is IDENTITY
    assert tree.edges['f'].pose is IDENTITY
    assert _edge_state(tree.edges['b']) == _edge_state(Edge('b', 'a', joint, kind='link'))
    assert Pose((0.0, 0.0, 0.0)) == IDENTITY


def test_replace_is_dataclasses_replace() -> None:
    """The tree's generated replacing functions make what ``dataclasses.replace`` makes, for
    every model class the tree copies and any set of changed fields (unknown fields refused)."""
    joint = Joint('j', JointType.SCREW, 'a', 'b', Pose((1.0, 2.0, 3.0)), (0.0, 1.0, 0.0),
                  mimic=Mimic('k', 2.0, 0.5), axis_order='zyx', pitch=0.25, line=4,
                  actuator='servo')
    objects = [joint, Link('l', line=3, gravity=False, self_collide=True),
               Frame('f', 'l', Pose((0.0, 0.0, 1.0)), 9), Mimic('k', 2.0, 0.5)]
    rng = random.Random(5)
    for obj in objects:
        names = [f.name for f in dataclasses.fields(obj)]
        for _ in range(30):
            chosen = rng.sample(names, rng.randint(1, min(4, len(names))))
            changes = {name: f'v{rng.random()}' for name in chosen}
            ours, theirs = _replace(obj, **changes), dataclasses.replace(obj, **changes)
            assert type(ours) is type(theirs) and all(
                getattr(ours, n) == getattr(theirs, n) for n in names), (obj, changes)
        with pytest.raises(TypeError):
            _replace(obj, no_such_field=1)


def _reference_order(tree: KinematicTree) -> tuple[str, ...]:
    """The frame order as the tree made it before: children in edge order, sorted by the
    position in links then frames, depth first."""
    children: dict[str, list[str]] = {}
    for name, edge in tree.edges.items():
        children.setdefault(edge.parent, []).append(name)
    position = {name: i for i, name in enumerate([*tree.links, *tree.frames])}
    for siblings in children.values():
        siblings.sort(key=position.__getitem__)
    order, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(children.get(node, [])))
    return tuple(order[1:])


def test_frame_order_without_sorting_is_the_sorted_order() -> None:
    trees = _trees()
    rng = random.Random(7)
    for _ in range(200):  # random trees: links and frames attached anywhere, listed shuffled
        count = rng.randint(1, 12)
        links = [Link(f'l{i}') for i in range(count)]
        joints = [Joint(f'j{i}', JointType.REVOLUTE, f'l{rng.randrange(i)}', f'l{i}')
                  for i in range(1, count)]
        frames = [Frame(f'f{i}', rng.choice([f'l{rng.randrange(count)}', f'f{i - 1}']
                                            if i else [f'l{rng.randrange(count)}']))
                  for i in range(rng.randint(0, 5))]
        rng.shuffle(links)
        rng.shuffle(joints)
        world = rng.random() < 0.5
        trees.append(KinematicTree(Scene('s', (Model('m', tuple(links), tuple(joints),
                                                     tuple(frames)),), is_world=world)))
    branched = 0
    for tree in trees:
        assert tree.order == _reference_order(tree)
        assert tree._children_sorted() == {
            parent: [n for n in tree.order if tree.edges[n].parent == parent]
            for parent in tree._children_sorted()}
        branched += any(len([e for e in tree.edges.values() if e.parent == p]) > 1
                        for p in tree.edges)
    assert branched > 100


def _model_classes() -> list[type]:
    from robot_formats.core import model
    from robot_formats.formats import spec
    classes = [getattr(model, name) for name in dir(model)
               if dataclasses.is_dataclass(getattr(model, name))
               and isinstance(getattr(model, name), type)]
    return classes + [spec.LoadContext, spec.LoadResult, spec.DocumentResult]


def test_quicker_inits_do_what_the_generated_ones_do() -> None:
    """Every model class (and a load's context and results) given a quicker ``__init__``:
    the generated one's parameters and defaults, a new value per object from a default
    factory, every field assigned, frozen as before; any other dataclass keeps its own."""
    quicker = 0
    for cls in _model_classes():
        fields = dataclasses.fields(cls)
        quicker += '_set' in cls.__init__.__globals__  # (the namespace of the quicker ones)
        parameters = list(inspect.signature(cls).parameters.values())
        assert [p.name for p in parameters] == [f.name for f in fields], cls
        for parameter, item in zip(parameters, fields):
            assert parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
            if item.default is not dataclasses.MISSING:
                assert parameter.default is item.default
            elif item.default_factory is not dataclasses.MISSING:
                assert repr(parameter.default) == '<factory>'
            else:
                assert parameter.default is inspect.Parameter.empty
        required = [object() for item in fields if item.default is dataclasses.MISSING
                    and item.default_factory is dataclasses.MISSING]
        first, second = cls(*required), cls(*required)
        for item in fields:
            value = getattr(first, item.name)
            if item.default_factory is not dataclasses.MISSING:
                assert value == item.default_factory() and type(value) is type(
                    item.default_factory())
                assert value is not getattr(second, item.name) or value == ()
            elif item.default is not dataclasses.MISSING:
                assert value is item.default
        given = {item.name: object() for item in fields}
        by_position, by_keyword = cls(*given.values()), cls(**given)
        for item in fields:
            assert getattr(by_position, item.name) is given[item.name]
            assert getattr(by_keyword, item.name) is given[item.name]
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(by_position, fields[0].name, 1)
        with pytest.raises(TypeError):
            cls(*given.values(), object())
    assert quicker >= 26


def test_objects_filled_through_a_lent_class_are_ordinary_frozen_objects() -> None:
    """The model classes with many fields are filled through their field filler (same slots,
    class switched back): the object is of its own class, frozen, equal and hashing as one
    made field by field; a subclass' object (another layout) keeps its class and gets every
    field; the filler adds no field; the tree's copies are made the same way."""
    from robot_formats.core.model import field_filler
    lent = [cls for cls in _model_classes()
            if field_filler(cls) is not None and len(dataclasses.fields(cls)) >= 6]
    assert Joint in lent and Link in lent
    for cls in lent:
        fields = dataclasses.fields(cls)
        given = [object() for _ in fields]
        made = cls(*given)
        assert type(made) is cls and '_field_filler' not in {f.name for f in fields}
        filled = object.__new__(cls)
        for item, value in zip(fields, given):
            object.__setattr__(filled, item.name, value)
        assert made == filled and hash(made) == hash(filled)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, fields[-1].name, 1)

        class Derived(cls):  # type: ignore[misc, valid-type]
            pass
        derived = Derived(*given)
        assert type(derived) is Derived
        assert all(getattr(derived, f.name) is v for f, v in zip(fields, given))
    joint = Joint('j', JointType.REVOLUTE, 'a', 'b', line=2)
    copy = _replace(joint, name='m::j', parent='m::a', child='m::b')
    assert type(copy) is Joint and copy == dataclasses.replace(
        joint, name='m::j', parent='m::a', child='m::b')
    with pytest.raises(dataclasses.FrozenInstanceError):
        copy.name = 'x'  # type: ignore[misc]


def test_a_world_joint_whose_child_is_the_world_is_refused_not_looped_on() -> None:
    """Readers refuse it first (SDFormat: 'the child cannot be "world"'; SKEL ignores the
    joint, as DART); a scene built in Python used to make the frame-order walk loop forever."""
    from robot_formats.core.model import Model, Scene
    scene = Scene('w', (Model('m', (Link('a'),), (Joint('j', JointType.FIXED, 'a', 'world'),)),),
                  is_world=True)
    with pytest.raises(FormatError) as raised:
        KinematicTree(scene)
    assert raised.value.code == 'JOINT_CHILD_LINK_INVALID'
    assert 'the child cannot be "world"' in raised.value.message
