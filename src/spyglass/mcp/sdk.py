"""The MCP SDK's server modules, imported without the package ``__init__``s that load the rest.

Any ``import mcp.<module>`` first runs ``mcp/__init__.py``, which imports the SDK's client
(and, through its in-memory transport, the high-level ``MCPServer`` that
``mcp/server/__init__.py`` imports): about an eighth of the SDK's import, none of it used by
the low-level server Spyglass runs. :func:`load` registers the packages ``mcp``,
``mcp.server`` and ``mcp.server.lowlevel`` as modules made from their real specs (their own
folders, files and loaders) whose ``__init__`` has not run yet, then imports the modules the
server uses (:data:`SERVER_MODULES`) through them. Every SDK module is thus the SDK's own file,
imported by Python's own machinery; only the three ``__init__``s wait, and they hold nothing
but imports that re-export names (checked before relying on it). Asking such a package for
a name (``from mcp import ClientSession``, ``mcp.server.MCPServer``) runs its ``__init__`` on
the spot, so every spelling of the SDK keeps working in the same process.

If anything differs from what this relies on (the SDK already imported, a package not where
it should be, an ``__init__`` that does more than import, a module that fails to import this
way), :func:`load` puts everything back and the SDK is imported as published: slower, never
different. docs/decisions.md, "The MCP SDK's server modules without its package __init__s".
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import logging
import sys
from types import ModuleType
from typing import Any

logger = logging.getLogger(__name__)

#: The packages whose ``__init__`` waits until one of its names is asked for, parents first.
PACKAGES = ("mcp", "mcp.server", "mcp.server.lowlevel")

#: Every SDK module Spyglass's MCP server imports (spyglass/mcp/*.py, the stdio path).
SERVER_MODULES = (
    "mcp.types",
    "mcp.types.version",
    "mcp.shared.message",
    "mcp.server.connection",
    "mcp.server.context",
    "mcp.server.lowlevel.server",
    "mcp.server.models",
    "mcp.server.stdio",
    "mcp.server.subscriptions",
)


class PendingPackage(ModuleType):
    """An SDK package registered before its ``__init__`` ran; runs it when a name is missing.

    Submodules are found through ``__path__`` as usual (the import system never asks the
    package for them by name); any other missing attribute means someone wants what the
    ``__init__`` binds, so it runs then, parents first, exactly as a plain import would have.
    """

    def __getattr__(self, name: str) -> Any:
        # Dunder probes (copy, inspect, pytest) are not requests for the package's names.
        if name.startswith("__") and name.endswith("__") and name != "__all__":
            raise AttributeError(name)
        complete(self)
        return getattr(self, name)


def complete(package: ModuleType) -> None:
    """Run a pending package's ``__init__`` (and its parents' first) into the module itself."""
    parent = package.__name__.rpartition(".")[0]
    if parent and isinstance(sys.modules.get(parent), PendingPackage):
        complete(sys.modules[parent])
    if not isinstance(package, PendingPackage):
        return
    # A plain module from here on: a name missing while the __init__ runs (an import cycle
    # inside the SDK) raises as it would on a plain import, instead of coming back here.
    plain: ModuleType = package
    plain.__class__ = ModuleType
    spec = package.__spec__
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(package)


def only_imports(source: str) -> bool:
    """Whether a package ``__init__`` does nothing but import (and list ``__all__``).

    Skipping such an ``__init__`` skips name bindings only, which :class:`PendingPackage`
    makes on demand; anything else (a setting, a registration, a warning) would be lost.
    """
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and [getattr(t, "id", None) for t in _targets(node)] == ["__all__"]
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            continue
        return False
    return True


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _pending(name: str, path: list[str] | None) -> PendingPackage | None:
    """``name`` as a pending package made from its real spec, or ``None`` if it cannot be."""
    spec = importlib.machinery.PathFinder.find_spec(name, path)
    if (
        spec is None
        or spec.origin is None
        or spec.submodule_search_locations is None
        or not isinstance(spec.loader, importlib.machinery.SourceFileLoader)
    ):
        return None
    source = spec.loader.get_source(name)
    if source is None or not only_imports(source):
        return None
    module = importlib.util.module_from_spec(spec)
    module.__class__ = PendingPackage
    assert isinstance(module, PendingPackage)
    return module


def load(*, http: bool = False) -> bool:
    """Import :data:`SERVER_MODULES` without running the packages' ``__init__``s.

    ``http`` says the process serves Streamable HTTP with uvicorn. Otherwise (stdio),
    uvicorn is kept out while the modules import: the low-level server imports the SDK's
    HTTP transport, whose ``sse_starlette`` imports uvicorn only to patch its shutdown
    handler (and carries on without it when uvicorn cannot be imported), which a stdio
    server never runs. uvicorn stays importable afterwards.

    True when the modules were loaded this way; False when the SDK is (or will be)
    imported as published: it was imported already, or its layout is not what this
    relies on.
    """
    if any(name in sys.modules for name in PACKAGES):
        return isinstance(sys.modules.get("mcp"), PendingPackage)
    hide = not http and "uvicorn" not in sys.modules
    if hide:
        sys.modules["uvicorn"] = None  # type: ignore[assignment]
    try:
        return _load()
    finally:
        if hide and "uvicorn" in sys.modules and sys.modules["uvicorn"] is None:
            del sys.modules["uvicorn"]


def _load() -> bool:
    before = set(sys.modules)
    path: list[str] | None = None
    for name in PACKAGES:
        package = _pending(name, path)
        if package is None:
            _undo(before)
            logger.debug("MCP SDK: %s is not a plain package; importing it as published", name)
            return False
        sys.modules[name] = package
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, package)
        path = list(package.__path__)
    try:
        for name in SERVER_MODULES:
            importlib.import_module(name)
    except Exception:
        _undo(before)
        logger.debug("MCP SDK: partial import failed; importing it as published", exc_info=True)
        return False
    return True


def _undo(before: set[str]) -> None:
    """Forget every ``mcp`` module registered or imported since ``before``."""
    for name in set(sys.modules) - before:
        if name == "mcp" or name.startswith("mcp."):
            del sys.modules[name]
