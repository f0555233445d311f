"""Loading a YAML cassette safely: no object construction, no alias blow-up, PyYAML lazily.

PyYAML's safe loader (its C parser, libyaml, when built with it) constructs plain data only:
mappings, lists, strings, numbers, `!!binary` bytes. A `!!python/...` tag, which the full
loader would execute, is refused with a clear error; the three harmless ones old vcrpy
cassettes hold (`!!python/str`, `!!python/unicode`, `!!python/tuple`) are read as the data
they are, as vcrpy's own cassette loader reads them (`vcr/serializers/yamlserializer.py`).

An alias is a reference to a node already read: `[*a, *a]` shares one object, so aliases nested
a few levels deep ("billion laughs") make a structure that is small in memory and huge when
walked (dumped to JSON, redacted). Before anything is constructed, the document's size with
every alias counted as a copy is measured, once per node (when the text holds an anchor at
all); past ten times its own node count (plus a margin), or with an alias inside the node it
names, it is refused.

PyYAML is the `stopkit[cassettes]` extra; without it the error names the extra.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

__all__ = ["load_yaml"]

INSTALL = "pip install 'stopkit[cassettes]'"
# How much aliases may make a document grow when walked: ten times its nodes, plus this margin.
_GROWTH, _MARGIN = 10, 10_000
# Where an anchor (`&name`) may stand: at a line's start, after blank space or a flow indicator.
# Text that only looks like one (inside a quoted string) costs the measure, never a miss.
_ANCHOR = re.compile(rb"(?:^|[\s\[{,])&[^\s\[\]{},]", re.M)


def _yaml() -> Any:
    try:
        import yaml
    except ImportError:
        raise ImportError(f"reading a YAML cassette needs PyYAML: {INSTALL}") from None
    return yaml


def _expanded_size(root: Any, yaml: Any, limit: int) -> int:
    """The node count of the document with each alias counted as a copy, stopping past `limit`."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            sizes[key] = min(limit + 1, 1 + sum(sizes[id(c)] for c in _children(node, yaml)))
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise ValueError("a YAML alias inside the node it names (a recursive document)")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node, yaml) if id(child) not in sizes)
    return sizes[id(root)]


def _children(node: Any, yaml: Any) -> list[Any]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _distinct(root: Any, yaml: Any) -> int:
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(_children(node, yaml))
    return len(seen)


@functools.cache
def _loader() -> type:
    yaml = _yaml()
    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

    class CassetteLoader(base):  # type: ignore[misc,valid-type]
        """PyYAML's safe loader, with the harmless tags of old vcrpy cassettes."""

    plain: dict[str, Callable[[Any, Any], Any]] = {
        "tag:yaml.org,2002:python/str": lambda loader, node: loader.construct_scalar(node),
        "tag:yaml.org,2002:python/unicode": lambda loader, node: loader.construct_scalar(node),
        "tag:yaml.org,2002:python/tuple": lambda loader, node: loader.construct_sequence(node),
    }
    for tag, construct in plain.items():
        CassetteLoader.add_constructor(tag, construct)
    return CassetteLoader


def _check_aliases(root: Any, yaml: Any) -> None:
    limit = _GROWTH * _distinct(root, yaml) + _MARGIN
    if _expanded_size(root, yaml, limit) > limit:
        raise ValueError(
            f"its YAML aliases expand it past {limit} nodes (a 'billion laughs' document): refused"
        )


def load_yaml(text: bytes) -> Any:
    """Parse one YAML document safely; raise `ValueError` naming what is wrong with it.

    Example:
        >>> load_yaml(b"interactions: []")
        {'interactions': []}
    """
    yaml = _yaml()
    loader = _loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _ANCHOR.search(text):  # no anchor, no alias: nothing to measure
            _check_aliases(node, yaml)
        return loader.construct_document(node)
    except yaml.constructor.ConstructorError as exc:
        raise ValueError(f"a YAML tag stopkit does not construct ({exc.problem})") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"not valid YAML: {_one_line(exc)}") from None
    finally:
        loader.dispose()


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())
