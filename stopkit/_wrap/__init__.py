"""`stopkit.wrap`: provider clients whose every reply is normalized on the way out.

A private folder (`_wrap`), not `wrap/`: a public subpackage named `wrap` would replace the
function `stopkit.wrap` on the package as soon as any of its modules was imported.
"""

from stopkit._wrap._client import wrap

__all__ = ["wrap"]
