"""Running a short Python program in a fresh interpreter against an isolated Spyglass home.

For tests about what a process imports: only a new interpreter starts with nothing loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def run_python(
    home: Path, code: str, *args: str, stdin: str = "", timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``python -c code ARGS`` with ``SPYGLASS_HOME=home`` and no other ``SPYGLASS_*``."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    environ.update({"SPYGLASS_HOME": str(home), "NO_COLOR": "1"})
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=environ,
        input=stdin,
        timeout=timeout,
        check=False,
    )


def last_json(output: str) -> Any:
    """The JSON value on the last line of ``output`` (what the program printed last)."""
    return json.loads(output.strip().splitlines()[-1])
