"""The MCP SDK's server modules, imported without its package ``__init__``s (spyglass.mcp.sdk).

Each case runs in a fresh interpreter: only a new process starts with no SDK module loaded.
"""

from __future__ import annotations

import importlib.machinery
import json
from pathlib import Path

import pytest

from spyglass.mcp import sdk
from tests.support.probe import last_json, run_python

#: Prints, as the last line, what a fresh process that ran ``sdk.load()`` holds.
REPORT = """
import json, sys, types
print(json.dumps({
    "loaded": LOADED,
    "modules": sorted(n for n, m in sys.modules.items() if m is not None),
    "pending": sorted(n for n, m in sys.modules.items() if type(m) is not types.ModuleType
                      and n.startswith("mcp")),
}))
"""

#: Modules a server loaded through spyglass.mcp.sdk must not hold: the SDK's client, its
#: high-level server, and uvicorn (stdio only; the SDK's HTTP transport would patch it).
NOT_FOR_THE_SERVER = ("mcp.client", "mcp.server.mcpserver", "uvicorn")


def _held(modules: list[str], trees: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == t or m.startswith(t + ".") for t in trees)]


def _run(home: Path, code: str) -> dict[str, object]:
    done = run_python(home, code)
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = last_json(done.stdout)
    return report


@pytest.mark.parametrize("package", sdk.PACKAGES)
def test_the_installed_sdk_s_package_inits_only_import_so_skipping_them_loses_nothing(
    package: str,
) -> None:
    # What the partial import relies on: if a new SDK version gives one of these __init__s
    # a side effect (a setting, a registration), this fails, and load() falls back.
    folder = None
    for name in sdk.PACKAGES[: sdk.PACKAGES.index(package) + 1]:
        spec = importlib.machinery.PathFinder.find_spec(name, folder)
        assert spec is not None and spec.submodule_search_locations is not None, name
        folder = list(spec.submodule_search_locations)
    assert spec.origin is not None
    assert sdk.only_imports(Path(spec.origin).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("source", "plain"),
    [
        ('"""The package."""\nfrom .a import b\nimport c\n__all__ = ["b"]\n', True),
        ("from .a import b as b\n__all__: list[str] = ['b']\n", True),
        ("import logging\nlogging.captureWarnings(True)\n", False),
        ("from .a import b\nVERSION = '2'\n", False),
        ("try:\n    import a\nexcept ImportError:\n    a = None\n", False),
        ("__all__ = names()\n", False),
    ],
)
def test_only_a_package_init_made_of_imports_and_its_list_of_names_counts_as_plain(
    source: str, plain: bool
) -> None:
    assert sdk.only_imports(source) is plain


def test_loading_imports_the_server_modules_without_the_client_or_the_high_level_server(
    home: Path,
) -> None:
    report = _run(home, "from spyglass.mcp import sdk\nLOADED = sdk.load()\n" + REPORT)
    assert report["loaded"] is True
    modules = report["modules"]
    assert isinstance(modules, list)
    assert set(sdk.SERVER_MODULES) <= set(modules)
    assert _held(modules, NOT_FOR_THE_SERVER) == []
    # The three packages wait, still pending; nothing else of the SDK's is.
    assert report["pending"] == sorted(sdk.PACKAGES)


def test_a_server_for_streamable_http_keeps_the_sdk_s_uvicorn_patch(home: Path) -> None:
    code = (
        "from spyglass.mcp import sdk\nLOADED = sdk.load(http=True)\n"
        "from sse_starlette.sse import AppStatus\n"
        "assert AppStatus.original_handler is not None, 'sse_starlette did not patch uvicorn'\n"
    )
    report = _run(home, code + REPORT)
    assert report["loaded"] is True
    assert "uvicorn" in report["modules"]  # type: ignore[operator]


def test_uvicorn_kept_out_while_loading_for_stdio_can_still_be_imported_after(
    home: Path,
) -> None:
    code = (
        "from spyglass.mcp import sdk\nLOADED = sdk.load()\n"
        "import uvicorn, uvicorn.main\n"
        "assert hasattr(uvicorn, 'run')\n"
    )
    assert _run(home, code + REPORT)["loaded"] is True


def test_a_name_a_package_init_binds_runs_that_init_and_is_the_published_object(
    home: Path,
) -> None:
    # Any spelling of the SDK keeps working after a partial load, at the price of the
    # __init__s running then (parents first, as a plain import runs them).
    code = """
from spyglass.mcp import sdk
LOADED = sdk.load()
import sys, types
from mcp.server.lowlevel.server import Server as LowLevel
from mcp.server import MCPServer, Server
from mcp import ClientSession
import mcp
from mcp.client.session import ClientSession as Published
from mcp.server.mcpserver import MCPServer as PublishedHigh
assert Server is LowLevel and ClientSession is Published and MCPServer is PublishedHigh
assert mcp.types is sys.modules["mcp.types"] and mcp.server is sys.modules["mcp.server"]
assert all(type(sys.modules[n]) is types.ModuleType for n in sdk.PACKAGES)
assert sys.modules["mcp.server.lowlevel"].Server is LowLevel
"""
    report = _run(home, code + REPORT)
    assert report["loaded"] is True
    assert report["pending"] == []


def test_dunder_probes_do_not_run_a_pending_package_s_init(home: Path) -> None:
    code = """
from spyglass.mcp import sdk
LOADED = sdk.load()
import copy, sys
package = sys.modules["mcp"]
assert not hasattr(package, "__wrapped__") and not hasattr(package, "__test__")
assert package.__path__ and package.__spec__.name == "mcp"
"""
    report = _run(home, code + REPORT)
    assert report["pending"] == sorted(sdk.PACKAGES)
    assert _held(report["modules"], ("mcp.client",)) == []  # type: ignore[arg-type]


def test_an_sdk_imported_already_is_left_as_it_is(home: Path) -> None:
    code = """
import mcp, sys
before = sys.modules["mcp"]
from spyglass.mcp import sdk
LOADED = sdk.load()
assert sys.modules["mcp"] is before
"""
    report = _run(home, code + REPORT)
    assert report["loaded"] is False
    assert report["pending"] == []


def _fake_sdk(root: Path, *, init: str = "", missing: str | None = None) -> None:
    """A stand-in SDK tree at ``root``: every package and server module as an empty file,
    ``mcp/__init__.py`` holding ``init``, and the module ``missing`` left out."""
    names = {*sdk.PACKAGES, *sdk.SERVER_MODULES}
    parents = {name.rsplit(".", i)[0] for name in names for i in range(1, name.count(".") + 1)}
    packages = parents | set(sdk.PACKAGES)
    for name in sorted(names | packages):
        path = root.joinpath(*name.split("."))
        if name in packages:
            path.mkdir(parents=True, exist_ok=True)
            (path / "__init__.py").touch()
        elif name != missing:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.with_suffix(".py").touch()
    (root / "mcp" / "__init__.py").write_text(init, encoding="utf-8")


FALLBACK_REPORT = """
import json, sys, types
sys.path.insert(0, sys.argv[1])
from spyglass.mcp import sdk
loaded = sdk.load()
left = sorted(n for n in sys.modules if n == "mcp" or n.startswith("mcp."))
import mcp
print(json.dumps([loaded, left, getattr(mcp, "SET_BY_INIT", None)]))
"""


def test_an_sdk_whose_package_init_does_more_than_import_is_imported_as_published(
    tmp_path: Path, home: Path
) -> None:
    _fake_sdk(tmp_path / "sdk", init="SET_BY_INIT = 'ran'\n")
    done = run_python(home, FALLBACK_REPORT, str(tmp_path / "sdk"))
    assert done.returncode == 0, done.stderr
    # Nothing registered, and the plain import that follows runs the __init__ as usual.
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [False, [], "ran"]


def test_when_a_server_module_cannot_be_imported_this_way_everything_is_put_back(
    tmp_path: Path, home: Path
) -> None:
    _fake_sdk(tmp_path / "sdk", init="from . import types\n", missing="mcp.server.stdio")
    done = run_python(home, FALLBACK_REPORT, str(tmp_path / "sdk"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [False, [], None]
