"""Commands import what they use: the web framework and the HTML extractor stay out of the
start-up path of every command that does not need them (issue 10, item 14)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.paths import Paths

#: Runs the real CLI in this interpreter, then reports which of the heavy packages it loaded.
PROBE = """
import json, runpy, sys
sys.argv = ["spyglass", *json.loads(sys.argv[1])]
try:
    runpy.run_module("spyglass", run_name="__main__")
except SystemExit:
    pass
loaded = sorted({name.split(".")[0] for name in sys.modules})
print(json.dumps(loaded), file=sys.__stderr__)
"""

#: Packages that cost tenths of a second to import and that only some commands need.
HEAVY = {"fastapi", "trafilatura", "uvicorn", "lxml", "pypdf", "mcp", "starlette"}


def _loaded(home: Path, *args: str) -> set[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    environ.update({"SPYGLASS_HOME": str(home), "NO_COLOR": "1"})
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        env=environ,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    last = done.stderr.strip().splitlines()[-1]
    return set(json.loads(last))


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("fetch", "http://127.0.0.1/"),
        ("search", "harbour tides"),
        ("policy", "show"),
        ("capabilities",),
        ("config", "show"),
        ("mcp", "config", "--client", "claude"),
        ("audit", "tail"),
    ],
    ids=lambda args: " ".join(args),
)
def test_a_command_that_needs_no_web_framework_or_extractor_does_not_import_them(
    home: Path, args: tuple[str, ...]
) -> None:
    assert _loaded(home, *args) & HEAVY == set()


def test_a_refused_fetch_with_web_access_on_still_skips_the_extractor(home: Path) -> None:
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    loaded = _loaded(home, "fetch", "http://127.0.0.1/")
    assert loaded & HEAVY == set()


def test_the_mcp_server_path_loads_neither_the_web_framework_nor_the_extractor(
    home: Path,
) -> None:
    # What `spyglass mcp` imports before it can answer a host's first tools/list.
    probe = (
        "import json, sys\n"
        "import spyglass.cli, spyglass.cli.mcp, spyglass.mcp.transport\n"
        "from spyglass.runtime import build_runtime\n"
        "from spyglass.mcp.server import build_server\n"
        "build_server(build_runtime())\n"
        "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))\n"
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    environ["SPYGLASS_HOME"] = str(home)
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
        check=True,
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert loaded & {"fastapi", "trafilatura", "lxml", "pypdf"} == set()
