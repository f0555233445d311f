"""A model id finds its documented output cap: the longest known prefix, decorations dropped."""

from __future__ import annotations

import pytest

from stopkit.batch._caps import output_cap


@pytest.mark.parametrize(
    ("model", "cap"),
    [
        ("claude-3-5-sonnet-20241022", 8192),
        ("us.anthropic.claude-3-haiku-20240307-v1:0", 4096),
        ("claude-sonnet-4-5-20250929", 64000),  # not claude-sonnet-4's row: the longer prefix
        ("gpt-4o-2024-08-06", 16384),
        ("gpt-4o-2024-05-13", 4096),  # the first gpt-4o snapshot wrote at most 4,096 tokens
        ("gpt-4o-mini-2024-07-18", 16384),
        ("gpt-5-2025-08-07", 128000),
        ("gpt-5-chat-latest", 16384),  # the chat models of a family write far less than it
        ("gpt-5.1-chat-latest", 16384),
        ("gpt-5.2-chat-latest", 16384),
        ("o1-preview-2024-09-12", 32768),  # not o1's 100,000
        ("models/gemini-2.5-flash", 65536),
        ("projects/p/locations/us-central1/publishers/google/models/gemini-2.0-flash-001", 8192),
        ("my-fine-tune", None),
        ("", None),
        (None, None),
    ],
)  # fmt: skip
def test_output_cap(model: str | None, cap: int | None) -> None:
    """Each id resolves to its model's documented cap, or None when the table does not know it."""
    assert output_cap(model) == cap
