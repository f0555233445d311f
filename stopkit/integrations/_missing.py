"""The error an integration raises when its framework is not installed (internal)."""

from __future__ import annotations

__all__ = ["missing"]


def missing(module: str, framework: str, extra: str) -> ImportError:
    """Return the ImportError saying which framework `stopkit.integrations.<module>` needs.

    Example:
        >>> str(missing("langchain", "langchain-core", "langchain"))
        "stopkit.integrations.langchain needs langchain-core: pip install 'stopkit[langchain]'"
    """
    return ImportError(
        f"stopkit.integrations.{module} needs {framework}: pip install 'stopkit[{extra}]'"
    )
