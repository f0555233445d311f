"""A folder of recording files: numbered, created exclusively, credentials scrubbed (internal).

Shared by the recorders (`RecordingTransport`, `BotocoreRecorder`): each exchange is one file,
`NNNN-<method>-<path>.json`, numbered after the files already in the folder and created
exclusively, so that recorders sharing a folder, in one process or several, never overwrite one
another.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from stopkit.record._redact import REDACTED

__all__ = ["RecordingFolder"]


class RecordingFolder:
    """Where a recorder writes: the next free number, and the files written so far."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        numbers = [int(p.name[:4]) for p in self.directory.glob("[0-9][0-9][0-9][0-9]-*.json")]
        self._count = max(numbers, default=0)
        self.written: list[Path] = []
        """The files written so far, in order."""

    def write(self, request: dict[str, Any], response: dict[str, Any], secrets: set[str]) -> Path:
        """Write one exchange (already redacted) to the next free file; return its path."""
        text = json.dumps(
            {"recorded_by": "stopkit.RecordingTransport", "request": request, "response": response},
            indent=2,
            ensure_ascii=False,
        )
        # Belt and braces: a value redacted anywhere is scrubbed from the whole file (a server
        # echoing the key back, a secret repeated in the body). Short words are not secrets.
        for secret in sorted((s for s in secrets if len(s) >= 8), key=len, reverse=True):
            text = text.replace(secret, REDACTED)
        slug = "".join(
            c if c.isalnum() or c in "._" else "-" for c in urlsplit(request["url"]).path
        )
        tail = f"-{request['method'].lower()}-{slug.strip('-')[:60]}.json"
        with self._lock:
            while True:  # exclusive create: another recorder (or process) may own a number
                self._count += 1
                path = self.directory / f"{self._count:04d}{tail}"
                try:
                    with path.open("x", encoding="utf-8") as file:
                        file.write(text + "\n")
                except FileExistsError:
                    continue
                break
            self.written.append(path)
        return path
