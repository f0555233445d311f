"""Bad cassettes: each refused with an error naming the file, the exchange and the problem."""

from __future__ import annotations

import gzip
import json
import sys
import zlib
from pathlib import Path
from typing import Any

import brotli
import pytest
import yaml

from stopkit.record import read_cassette

REPLY = {
    "type": "message",
    "role": "assistant",
    "content": [{"type": "text", "text": "Hi"}],
    "stop_reason": "end_turn",
}


def _cassette(body: Any, *, status: int = 200, headers: dict[str, list[str]] | None = None) -> str:
    """A vcrpy cassette of one exchange, as vcrpy's YAML serializer writes it."""
    response = {
        "status": {"code": status, "message": "OK"},
        "body": {"string": body},
        "headers": headers or {"Content-Type": ["application/json"]},
    }
    request = {
        "method": "POST",
        "uri": "https://api.anthropic.com/v1/messages",
        "body": "{}",
        "headers": {},
    }
    return yaml.dump({"interactions": [{"request": request, "response": response}], "version": 1})


EVENT_STREAM = "application/vnd.amazon.eventstream"


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def _gzip_headers(coding: str = "gzip") -> dict[str, list[str]]:
    return {"content-type": ["application/json"], "content-encoding": [coding]}


BIG = gzip.compress(b" " * 5_000_000 + json.dumps(REPLY).encode())
BILLION_LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(9)
)

# (file name, its content, the error's words after the file's name)
BAD: list[tuple[str, str | bytes, str]] = [
    ("prose.yaml", "interactions: [\n", "not valid YAML"),
    ("config.yaml", "site_name: docs\n", "not a cassette: no interactions"),
    ("data.json", '{"data": [1, 2]}', "not a cassette nor a HAR file"),
    ("broken.json", '{"interactions": [', "not valid JSON"),
    ("session.har", '{"log": {"version": "1.2", "creator": {}}}', "without a log.entries list"),
    ("not.har", '{"entries": []}', "not a HAR file"),
    ("laughs.yaml", BILLION_LAUGHS, "YAML aliases expand it past"),
    ("loop.yaml", "interactions: &a [*a]\n", "a YAML alias inside the node it names"),
    (
        "cut.yaml",
        _cassette(gzip.compress(json.dumps(REPLY).encode())[:-8], headers=_gzip_headers()),
        "#0: its gzip data is cut short",
    ),
    (
        "cut-br.yaml",
        _cassette(brotli.compress(json.dumps(REPLY).encode())[:-4], headers=_gzip_headers("br")),
        "#0: its br data is cut short",
    ),
    ("bad-br.yaml", _cassette(b"\xff" * 16, headers=_gzip_headers("br")), "#0: not valid br data"),
    (
        "zstd.yaml",
        _cassette(b"\x28\xb5\x2f\xfd", headers=_gzip_headers("zstd")),
        "#0: a content-encoding stopkit does not decode: 'zstd'",
    ),
    (
        "bomb.yaml",
        _cassette(BIG, headers=_gzip_headers()),
        "#0: decompressed, it is over the size limit (1000000 bytes)",
    ),
    ("json-cut.yaml", _cassette('{"type": "message", "con'), "#0: its body is not valid"),
    (
        "no-status.yaml",
        _cassette("{}").replace("code: 200", "code: OK"),
        "#0: its response has no status code",
    ),
    (
        "frames.yaml",
        _cassette(b"\x00\x00\x00\x20" * 8, headers={"content-type": [EVENT_STREAM]}),
        "#0: its body is not valid application/vnd.amazon.eventstream: no AWS event-stream frame",
    ),
    ("cut.yaml.gz", gzip.compress(_cassette("{}").encode())[:-10], "its gzip data is cut short"),
    ("huge.yaml", _cassette(" " * 1_000_001), "over the size limit (1000000 bytes)"),
]


@pytest.mark.parametrize(("name", "content", "problem"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_cassette_is_refused_naming_the_problem(
    name: str, content: str | bytes, problem: str, tmp_path: Path
) -> None:
    """Each bad file raises ValueError: the file's name, the exchange (#N) and what is wrong."""
    path = _write(tmp_path, name, content)
    with pytest.raises(ValueError, match="^" + str(path).replace("\\", "\\\\")) as caught:
        read_cassette(path, max_size=1_000_000)
    assert problem in str(caught.value)


def test_an_error_response_that_is_not_json_is_kept_as_text(tmp_path: Path) -> None:
    """A 502 whose body says JSON but is a proxy's page is not an error: it is kept as text."""
    path = _write(tmp_path, "gateway.yaml", _cassette("<html>Bad gateway</html>", status=502))
    (exchange,) = read_cassette(path)
    assert (exchange.status, exchange.reply) == (502, "<html>Bad gateway</html>")


def test_no_python_object_is_built_from_a_cassette(tmp_path: Path) -> None:
    """A `!!python/object` tag is refused, never run: the file it would create does not appear."""
    target = tmp_path / "created-by-the-cassette"
    path_tag = f"!!python/object/apply:pathlib.Path ['{target}']"
    tag = f"!!python/object/apply:pathlib.Path.touch [{path_tag}]"
    path = _write(tmp_path, "evil.yaml", f"interactions:\n- request: {tag}\n  response: {{}}\n")
    with pytest.raises(ValueError, match="a YAML tag stopkit does not construct"):
        read_cassette(path)
    assert not target.exists()


def test_a_cassette_cannot_make_stopkit_read_a_file_or_fetch_a_url(tmp_path: Path) -> None:
    """Fields naming a local file or a URL are read as the text they are, nothing is opened."""
    secret = _write(tmp_path, "secret.txt", "the-secret-words")
    cassette = _cassette(f"file://{secret}", headers={"content-type": ["text/plain"]}).replace(
        "https://api.anthropic.com/v1/messages", f"file://{secret}"
    )
    har = {
        "log": {
            "version": "1.2",
            "creator": {"name": "x"},
            "entries": [
                {
                    "request": {
                        "method": "GET",
                        "url": f"file://{secret}",
                        "postData": {"text": str(secret)},
                    },
                    "response": {
                        "status": 200,
                        "content": {
                            "mimeType": "text/plain",
                            "_file": str(secret),
                            "text": "http://127.0.0.1:9/never-fetched",
                        },
                    },
                }
            ],
        }
    }
    for path in (_write(tmp_path, "c.yaml", cassette), _write(tmp_path, "h.har", json.dumps(har))):
        (exchange,) = read_cassette(path)
        assert "the-secret-words" not in repr((exchange.reply, exchange.request, exchange.content))


def test_a_yaml_cassette_without_pyyaml_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without PyYAML, reading a YAML cassette says which extra to install; JSON still reads."""
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` now raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'stopkit\[cassettes\]'"):
        read_cassette(_write(tmp_path, "c.yaml", "interactions: []\n"))
    assert read_cassette(_write(tmp_path, "c.json", '{"interactions": [], "version": 1}')) == []


def test_a_body_labelled_compressed_but_recorded_decoded_is_read_as_is(tmp_path: Path) -> None:
    """A body labelled gzip that is plain JSON was recorded decoded (vcrpy's aiohttp stub)."""
    path = _write(tmp_path, "aiohttp.yaml", _cassette(json.dumps(REPLY), headers=_gzip_headers()))
    (exchange,) = read_cassette(path)
    assert exchange.reply == REPLY


@pytest.mark.parametrize("wrap", [True, False], ids=["zlib", "raw"])
def test_deflate_is_read_zlib_wrapped_or_raw(wrap: bool, tmp_path: Path) -> None:
    """`deflate` bodies are read whether the server wrapped them in zlib (the RFC) or not."""
    packer = zlib.compressobj(wbits=15 if wrap else -15)
    body = packer.compress(json.dumps(REPLY).encode()) + packer.flush()
    path = _write(tmp_path, "d.yaml", _cassette(body, headers=_gzip_headers("deflate")))
    assert read_cassette(path)[0].reply == REPLY


def test_an_old_vcrpy_httpx_cassette_is_read(tmp_path: Path) -> None:
    """A vcrpy 4 or 5 httpx cassette (`status_code`, `content`: the body decoded) is read.

    Its httpx stub (`_to_serialized_response`) kept `httpx.Response.content`, which httpx has
    already decompressed, under the headers as sent: the body is not decompressed again.
    """
    response = {
        "status_code": 200,
        "http_version": "HTTP/1.1",
        "headers": _gzip_headers(),
        "content": json.dumps(REPLY),
    }
    request = {
        "method": "POST",
        "uri": "https://api.anthropic.com/v1/messages",
        "body": None,
        "headers": {},
    }
    old = {"interactions": [{"request": request, "response": response}], "version": 1}
    (exchange,) = read_cassette(_write(tmp_path, "old.yaml", yaml.dump(old)))
    assert (exchange.status, exchange.reply) == (200, REPLY)


def test_python_2_era_string_tags_are_read_as_strings(tmp_path: Path) -> None:
    """`!!python/unicode` (vcrpy under Python 2) is a plain string, as vcrpy itself reads it."""
    text = _cassette(json.dumps(REPLY)).replace("string: '", "string: !!python/unicode '")
    assert "!!python/unicode" in text
    assert read_cassette(_write(tmp_path, "py2.yaml", text))[0].reply == REPLY


def test_an_empty_body_is_nothing_to_read_not_an_error(tmp_path: Path) -> None:
    """A response with no body (a 204, a HEAD) is kept, whatever content type it says."""
    (exchange,) = read_cassette(_write(tmp_path, "empty.yaml", _cassette("", status=204)))
    assert (exchange.status, exchange.reply, exchange.events) == (204, "", None)


def test_a_few_aliases_are_read(tmp_path: Path) -> None:
    """PyYAML writes an alias for an object dumped twice: such a cassette reads as two exchanges."""
    interaction = yaml.safe_load(_cassette(json.dumps(REPLY)))["interactions"][0]
    text = yaml.dump({"interactions": [interaction, interaction], "version": 1})
    assert "&id001" in text
    exchanges = read_cassette(_write(tmp_path, "twice.yaml", text))
    assert [p.reply for p in exchanges] == [REPLY, REPLY]


def test_an_event_stream_cut_inside_a_frame_reads_as_a_cut_stream(tmp_path: Path) -> None:
    """Frames cut short (a dropped connection, recorded) give the events before the cut."""
    from stopkit.record._eventstream import encode

    events = [{"messageStart": {"role": "assistant"}},
              {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Par"}}},
              {"messageStop": {"stopReason": "end_turn"}}]  # fmt: skip
    body = b"".join(encode(events, None))[:-10]
    path = _write(tmp_path, "cut.yaml", _cassette(body, headers={"content-type": [EVENT_STREAM]}))
    (exchange,) = read_cassette(path)
    assert exchange.events == events[:2]
    stop = exchange.stop()
    assert (stop.reason.value, stop.detail, stop.text) == ("unknown", "stream_incomplete", "Par")
