"""The shared conformance corpus (`../shared/corpus`): real recorded replies with labels.

The corpus is read in place, never copied. Where it is absent the tests that use it skip.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests._adapters import ADAPTER_OF_WIRE

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("STOPKIT_CORPUS", ROOT.parent / "shared" / "corpus"))


@dataclass(frozen=True)
class Row:
    label: dict[str, Any]

    @property
    def file(self) -> str:
        return str(self.label["file"])

    @property
    def path(self) -> Path:
        return CORPUS / self.file

    @property
    def adapter(self) -> str:
        return ADAPTER_OF_WIRE[self.label["wire_format"]]

    def load(self) -> Any:
        return json.loads(self.path.read_text(encoding="utf-8"))


def rows(wire_format: str, *, stream: bool, every: bool = False) -> list[Row]:
    """The in-scope labelled replies of one wire format (empty when the corpus is absent).

    `every=True`: its out-of-scope ones too (a format read since the corpus was labelled).
    """
    labels = CORPUS / "labels.jsonl"
    if not labels.is_file():
        return []
    out = []
    for line in labels.read_text(encoding="utf-8").splitlines():
        label = json.loads(line)
        if (
            (every or label.get("in_scope"))
            and label["wire_format"] == wire_format
            and bool(label["stream"]) == stream
        ):
            out.append(Row(label))
    return out
