"""Whether this machine lets a test create a private network namespace (root, unshare)."""

from __future__ import annotations

import os
import shutil
import subprocess


def unavailable() -> str | None:
    """Why namespace tests cannot run here, or ``None`` when they can."""
    if os.name != "posix" or os.geteuid() != 0:
        return "needs root to create a network namespace"
    for tool in ("unshare", "ip", "mount"):
        if shutil.which(tool) is None:
            return f"needs the {tool} command"
    probe = subprocess.run(
        ["unshare", "-n", "-m", "true"], capture_output=True, timeout=30, check=False
    )
    if probe.returncode != 0:
        return "unshare -n -m is not permitted here"
    return None
