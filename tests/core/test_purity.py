"""The core imports no web framework, MCP SDK, CLI or HTTP client code."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("fastapi", "starlette", "uvicorn", "mcp", "typer", "click", "rich", "httpx")


def test_importing_the_core_loads_no_front_end_or_network_library() -> None:
    code = (
        "import sys, spyglass.core.executor, spyglass.core.audit, spyglass.core.policy, "
        "spyglass.core.confirmation, spyglass.core.registry\n"
        "bad = sorted(m for m in sys.modules\n"
        f"             if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == ""
