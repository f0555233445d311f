"""A stream's visible text as the pieces it came in, while it only grows at its end.

What an accumulator's `text_pieces()` gives (see `stopkit._adapter`) when its reply joins the
text of several parts (content blocks, output items) in the order of their positions.

Example:
    >>> told = TextPieces()
    >>> told.add(0, "Hi")
    >>> told.add(1, " there")
    >>> told.pieces
    ['Hi', ' there']
    >>> told.add(0, "!")  # lands inside the text: the pieces no longer say it
    >>> told.pieces is None
    True
"""

from __future__ import annotations

__all__ = ["TextPieces"]


class TextPieces:
    """The visible text told so far, for a reply that joins its parts in position order.

    A piece of the part last told, or of a later part, extends the text at its end: it is kept.
    A piece of an earlier part lands inside the text, and a part that stops showing its text
    takes some out: the pieces no longer say the text (`pieces` is None from then on, and the
    loop reads the text off `result()`).
    """

    __slots__ = ("_last", "pieces")

    def __init__(self) -> None:
        self.pieces: list[str] | None = []
        self._last: int | None = None  # the position of the part last told

    def add(self, position: int, piece: str) -> None:
        """Tell `piece`, which the part at `position` adds to the end of its visible text."""
        pieces = self.pieces
        if pieces is None or not piece:
            return
        if self._last is not None and position < self._last:
            self.pieces = None  # an earlier part grew: the text did not grow at its end
            return
        pieces.append(piece)
        self._last = position

    def lost(self) -> None:
        """Say that the text changed otherwise than at its end: the pieces no longer say it."""
        self.pieces = None
