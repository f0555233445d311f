"""Build the openai SDK's legacy Completions objects from wire JSON, the way the SDK itself does.

`client.completions.create` builds a `openai.types.Completion` with `construct_type` (no
validation; dialect extras such as vLLM's `stop_reason` or Azure's `content_filter_results` stay
as pydantic extras), and a streamed chunk is the same type: Chat's forms with that one type.
"""

from __future__ import annotations

from openai.types import Completion

from tests.sdk_forms.openai_chat import choices_forms

to_sdk, to_sdk_event = choices_forms(Completion, Completion)
