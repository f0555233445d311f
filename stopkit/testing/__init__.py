"""Test helpers: drive stopkit offline.

- `ScriptedModel` — a `call_model` that replays a list of replies (SDK objects, JSON dicts, or
  exceptions to raise) and records every call it receives (a `ModelCall` each); sync
  (`model(...)`) and async (`await model.acall(...)`). A call past the script raises
  `ScriptExhausted`.
- `FakeAdapter` — an adapter for handler tests, whose replies are written in a line each
  (`FakeAdapter.reply("output_limit", "Once up")`): script a `ScriptedModel` with them and run
  the loop with `adapter=FakeAdapter()`.
- `cassette_replies` — the LLM replies a vcrpy cassette or HAR file recorded, in order, to
  script a `ScriptedModel` with: `ScriptedModel(cassette_replies("cassettes/test_chat.yaml"))`.
- `load_payload`, `load_payloads`, `Payload` — read reply, stream and recorded-exchange files;
  `assert_stop` — assert a reply's `Stop` with a readable diff; `payload_params` — one
  `pytest.param` per payload file. The pytest plugin (`stopkit.pytest_plugin`, loaded
  automatically) adds the `stopkit_replay` fixture and the `stopkit_payloads` marker.

Example:
    >>> from stopkit.testing import ScriptedModel
    >>> model = ScriptedModel([{"type": "message", "role": "assistant",
    ...     "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn"}])
    >>> model([{"role": "user", "content": "Hello"}], max_tokens=50)["stop_reason"]
    'end_turn'
    >>> model.calls[0].overrides
    {'max_tokens': 50}
"""

import typing as _typing

from stopkit._lazy import exports as _exports

_EXPORTS = {
    "stopkit.testing._scripted": (
        "ScriptedModel", "ModelCall", "ScriptExhausted", "cassette_replies",
    ),
    "stopkit.testing._fake": ("FakeAdapter",),
    "stopkit._testkit": ("assert_stop", "payload_params"),
    "stopkit.record._payloads": ("Payload", "load_payload", "load_payloads"),
}  # fmt: skip

if _typing.TYPE_CHECKING:  # generated from _EXPORTS by `python -m tests.test_public_api`
    from stopkit._testkit import assert_stop as assert_stop
    from stopkit._testkit import payload_params as payload_params
    from stopkit.record._payloads import Payload as Payload
    from stopkit.record._payloads import load_payload as load_payload
    from stopkit.record._payloads import load_payloads as load_payloads
    from stopkit.testing._fake import FakeAdapter as FakeAdapter
    from stopkit.testing._scripted import ModelCall as ModelCall
    from stopkit.testing._scripted import ScriptedModel as ScriptedModel
    from stopkit.testing._scripted import ScriptExhausted as ScriptExhausted
    from stopkit.testing._scripted import cassette_replies as cassette_replies

__all__, __getattr__, __dir__ = _exports(globals(), _EXPORTS)
