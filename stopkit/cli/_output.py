"""What the command line shares between its commands: exit statuses, colour and stdout."""

from __future__ import annotations

import os
from typing import Any, TextIO

__all__ = [
    "EXIT_OK",
    "EXIT_UNKNOWN",
    "EXIT_UNREADABLE",
    "Pipe",
    "paint",
    "terminal_safe",
    "use_colour",
]

EXIT_OK, EXIT_UNKNOWN, EXIT_UNREADABLE = 0, 1, 2


def use_colour(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return stream.isatty() and "NO_COLOR" not in os.environ


def terminal_safe(text: str) -> str:
    r"""Return `text` with each character a terminal would act on written as its escape.

    Controls (ANSI and OSC sequences start with ESC), format characters (bidi overrides and
    isolates) and separators other than the space are written as `repr` writes them, the way
    `stopkit normalize` prints a reply's text: a model or a tool cannot drive the terminal.

    Example:
        >>> terminal_safe("ok \x1b[2J\u202e")
        'ok \\x1b[2J\\u202e'
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def paint(text: str, code: str, on: bool) -> str:
    """Wrap `text` in an ANSI colour when `on`."""
    return f"\x1b[{code}m{text}\x1b[0m" if on else text


class Pipe:
    """stdout as the commands write to it: a reader that leaves early is not an error.

    `stopkit normalize dir | head -1` closes the pipe after one line. The command goes on
    (its exit status is what the results call for), its further output is dropped: stdout is
    pointed at the null device, so that nothing fails when Python flushes it at exit.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.reader_left = False

    def _leave(self) -> None:
        self.reader_left = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        finally:
            os.close(devnull)

    def write(self, text: str) -> int:
        """Write `text`, unless the reader has left."""
        if not self.reader_left:
            try:
                self._stream.write(text)
            except BrokenPipeError:
                self._leave()
        return len(text)

    def flush(self) -> None:
        """Flush the stream, unless the reader has left."""
        if not self.reader_left:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._leave()

    def isatty(self) -> bool:
        """Whether stdout is a terminal (colour is used only then)."""
        return self._stream.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
