"""Names a package exports, imported from their modules when first used (PEP 562): a command that needs one light
part of a package does not load the rest (Chroma, LangChain: about a second each at start-up)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, module_of: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: each name from its submodule (``module_of[name]``), on first use."""
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        if name not in module_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module_of[name]}", package), name)
        namespace[name] = value  # the next use is a plain lookup
        return value

    return __getattr__
