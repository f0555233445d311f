"""What the command line shares between its commands: exit statuses and colour."""

from __future__ import annotations

import os
from typing import TextIO

__all__ = ["EXIT_OK", "EXIT_UNKNOWN", "EXIT_UNREADABLE", "paint", "use_colour"]

EXIT_OK, EXIT_UNKNOWN, EXIT_UNREADABLE = 0, 1, 2


def use_colour(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return stream.isatty() and "NO_COLOR" not in os.environ


def paint(text: str, code: str, on: bool) -> str:
    """Wrap `text` in an ANSI colour when `on`."""
    return f"\x1b[{code}m{text}\x1b[0m" if on else text
