"""A LangChain stream's visible text as the pieces its chunks add, without merging them.

LangChain merges a stream's chunks with `merge_content` (langchain_core/messages/base.py) and,
for lists of content blocks, `merge_lists` (langchain_core/utils/_merge.py): strings are
concatenated; a list after a string starts with that string; a block carrying an `index` (an
int, or an `lc_...` string) is merged into the first earlier block with the same index and no
other id, its `text` concatenated; any other element is appended; a string after a list
extends the list's last element when that is a string, is appended otherwise, and is dropped
when the list is empty. The message's visible text (`langchain._content`) is then its string,
or the text of its string elements and `type: "text"` blocks, in list order.

`ContentPieces` follows those rules over the positions of the merged content, so the loop can
tell a streamed message's text as it arrives without merging every chunk again (which made a
stream of n chunks cost n merges of up to n chunks). A merge the rules above do not say (a
text that is not a string, a block whose text lands before text already told) gives up the
pieces, and the loop reads the text off the merged message instead.

Example:
    >>> told = ContentPieces()
    >>> told.take([{"type": "text", "text": "Hel", "index": 0}])
    >>> told.take([{"type": "text", "text": "lo", "index": 0}, {"type": "tool_use", "index": 1}])
    >>> told.take(" there")
    >>> told.pieces.pieces
    ['Hel', 'lo', ' there']
"""

from __future__ import annotations

from typing import Any

from stopkit.adapters._text_pieces import TextPieces

__all__ = ["ContentPieces"]


class ContentPieces:
    """The visible text of the content merged so far, as the pieces each chunk added."""

    __slots__ = ("_blocks", "_last_is_text", "_size", "pieces")

    def __init__(self) -> None:
        self.pieces = TextPieces()
        self._size: int | None = None  # elements of the merged list; None while content is a str
        self._last_is_text = False  # the merged list ends with a string element
        # index -> the blocks holding it, first first: [position, type, id]
        self._blocks: dict[Any, list[list[Any]]] = {}

    def take(self, content: Any, *, first: bool = False) -> None:
        """Follow one chunk's `content` into the merged content (`first`: the stream's first)."""
        if first and isinstance(content, list):
            self._size = 0
            for element in content:  # the first chunk's list is taken as it is, unmerged
                self._append(element)
        elif isinstance(content, str):
            self._string(content)
        elif isinstance(content, list):
            if self._size is None:  # [the text so far, *content], unmerged
                self._size, self._last_is_text = 1, True
                for element in content:
                    self._append(element)
            else:
                for element in content:
                    self._merge(element)
        else:
            self.pieces.lost()  # not content LangChain merges: the merged message says

    def _string(self, text: str) -> None:
        size = self._size
        if size is None:  # a string so far: it grows at its end
            self.pieces.add(0, text)
        elif self._last_is_text:
            self.pieces.add(size - 1, text)
        elif text and size:
            self._append(text)
        # an empty string, or any string after an empty list: LangChain drops it

    def _append(self, element: Any) -> None:
        position = self._size or 0
        self._size = position + 1
        self._last_is_text = isinstance(element, str)
        if self._last_is_text:
            self.pieces.add(position, element)
            return
        if not isinstance(element, dict):
            return
        index = _index(element)
        if index is not None:
            self._blocks.setdefault(index, []).append(
                [position, element.get("type"), element.get("id")]
            )
        self._text(position, element.get("type"), element)

    def _merge(self, element: Any) -> None:
        index = _index(element) if isinstance(element, dict) else None
        if index is None:
            self._append(element)
            return
        block_id = element.get("id")
        for block in self._blocks.get(index, ()):
            position, kind, held_id = block
            if held_id in (None, "") or block_id in (None, "") or held_id == block_id:
                if block_id not in (None, ""):
                    block[2] = block_id  # the merged block now has this id
                self._text(position, kind, element)  # the earlier block's type stays
                return
        self._append(element)

    def _text(self, position: int, kind: Any, block: dict[Any, Any]) -> None:
        if kind != "text":
            return
        text = block.get("text")
        if isinstance(text, str):
            self.pieces.add(position, text)
        elif text is not None:
            self.pieces.lost()  # LangChain refuses to merge it, or keeps no text


def _index(block: dict[Any, Any]) -> Any:
    """The `index` LangChain merges a block by (an int, or an `lc_` string); None: appended."""
    index = block.get("index")
    if type(index) is int or (isinstance(index, str) and index.startswith("lc_")):
        return index
    return None
