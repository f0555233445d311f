"""A griffe extension for the API reference: an `Example:` section renders as code.

stopkit's docstrings title their doctests `Example:` (ruff's Google convention accepts it);
griffe's Google parser knows only `Examples:` as the section of `>>>` code, and would render
`Example:` as an admonition of Markdown, where `>>>` lines become nested block quotes. This
renames the section as the docstrings are loaded; the source is left as it is.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:[ \t]*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Read each docstring's `Example:` section as an `Examples:` section."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rename the section in `obj`'s docstring, before it is parsed."""
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE.sub(r"\1Examples:", obj.docstring.value)
