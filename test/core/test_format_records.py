"""The records of robot_formats.formats.spec (FormatSpec, LoadContext, LoadResult,
DocumentResult): made by keyword or by position, with their defaults, immutable, compared and
printed field by field."""

from __future__ import annotations

import pytest

from robot_formats import formats
from robot_formats.formats.spec import DocumentResult, FormatSpec, LoadContext, LoadResult
from rf_testlib import ROOT

EXAMPLES = ROOT / 'examples'


def test_a_load_result_has_its_fields_and_defaults() -> None:
    result = formats.load(EXAMPLES / 'urdf' / 'arm_with_gripper.urdf')
    assert result.format == 'urdf' and result.warnings == () and result.notes == ()
    same = LoadResult(scene=result.scene, format='urdf', path=result.path)
    assert same.tree is None and same.source_bytes is None and same.warnings == ()
    assert same == LoadResult(result.scene, 'urdf', result.path)
    assert repr(same).startswith("LoadResult(scene=Scene(name='arm_with_gripper'")
    with pytest.raises(AttributeError):
        same.format = 'sdf'  # type: ignore[misc]  # the assignment refused is the test


def test_a_document_result_and_a_context_have_their_fields_and_defaults() -> None:
    result = formats.read_document(EXAMPLES / 'urdf' / 'arm_with_gripper.urdf')
    assert (result.format, result.kind, result.warnings, result.notes) == ('urdf', 'scene', (),
                                                                         ())
    assert DocumentResult(result.document, 'urdf', 'scene', result.path).tree is None
    context = LoadContext(world='w')
    assert (context.world, context.sdf_config, context.load_nested, context.budget) == (
        'w', None, None, None)
    with pytest.raises(AttributeError):
        context.world = 'v'  # type: ignore[misc]  # the assignment refused is the test


def test_a_format_spec_has_its_defaults_and_is_equal_to_an_equal_one() -> None:
    urdf = formats.registered()[0]
    spec = FormatSpec('x', ('.x',), ('x',), urdf.reader)
    assert (spec.description, spec.claims, spec.any_root, spec.recover, spec.checks_ranges,
            spec.document) == ('', None, False, None, False, 'scene')
    assert spec == FormatSpec(name='x', extensions=('.x',), root_tags=('x',), reader=urdf.reader)
    assert hash(spec) == hash(FormatSpec('x', ('.x',), ('x',), urdf.reader))
    assert spec != urdf
    assert repr(spec).startswith("FormatSpec(name='x', extensions=('.x',), root_tags=('x',)")
