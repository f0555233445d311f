"""`stopkit.batch`'s public surface, and what importing stopkit and the batch audit costs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import stopkit.batch


def test_all_is_every_public_name_sorted() -> None:
    """`__all__` is sorted, every name resolves, and no other public name is exported."""
    assert list(stopkit.batch.__all__) == sorted(stopkit.batch.__all__)
    for name in stopkit.batch.__all__:
        assert getattr(stopkit.batch, name) is not None
    declared = {name for names in stopkit.batch._EXPORTS.values() for name in names}
    assert declared == set(stopkit.batch.__all__)


def test_import_stopkit_does_not_load_the_batch_audit_or_its_extras() -> None:
    """`import stopkit` loads neither stopkit.batch nor orjson, dask or distributed."""
    code = (
        "import sys, json, stopkit\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('orjson', 'dask', 'distributed') or m.startswith('stopkit.batch'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_unknown_attribute_is_an_attribute_error() -> None:
    """A name the package does not have raises AttributeError naming it."""
    with pytest.raises(AttributeError, match="nothing_here"):
        stopkit.batch.nothing_here  # noqa: B018 -- the attribute access is the test


def test_the_old_outcome_name_is_a_deprecated_alias_of_request_outcome() -> None:
    """`stopkit.batch.Outcome` (the loop's word) still works one release, warning its new name."""
    with pytest.warns(DeprecationWarning, match=r"stopkit\.batch\.RequestOutcome"):
        old = stopkit.batch.Outcome  # type: ignore[attr-defined]
    assert old is stopkit.batch.RequestOutcome
    assert "Outcome" not in stopkit.batch.__all__
