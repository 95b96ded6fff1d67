"""Running a command in a private network namespace (root, ``unshare``) for end-to-end tests.

:func:`unavailable` says whether this machine allows it; :func:`run` starts a command under
``unshare -n -m`` with ``lo`` up, the given addresses on it and a hosts file bind-mounted
over /etc/hosts, so the real resolver and dialler see "public" names and addresses that
never leave the namespace.
"""

from __future__ import annotations

import ipaddress
import os
import shlex
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

#: This checkout's root; the namespace runs its source, whatever the virtualenv installed.
ROOT = Path(__file__).resolve().parents[2]


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


def _add_address(address: str) -> str:
    if ipaddress.ip_address(address).version == 6:
        # No duplicate address detection: the address is usable at once, not after a delay.
        return f"ip -6 addr add {address}/128 dev lo nodad"
    return f"ip addr add {address}/32 dev lo"


def run(
    folder: Path,
    hosts: str,
    addresses: Iterable[str],
    command: list[str],
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> str:
    """Run ``command`` in a new network namespace and return its standard output.

    ``hosts`` becomes /etc/hosts there (written to ``folder``); each of ``addresses`` is put
    on ``lo``. The command sees no ``SPYGLASS_*`` variable from outside, only ``env``. It
    must succeed: its standard error (the end of it) is the assertion's message.
    """
    hosts_file = folder / "hosts"
    hosts_file.write_text(hosts)
    setup = " && ".join(
        [
            "ip link set lo up",
            *(_add_address(address) for address in addresses),
            f"mount --bind {shlex.quote(str(hosts_file))} /etc/hosts",
            "exec " + shlex.join(command),
        ]
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    environ.update({"PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}", "NO_COLOR": "1"})
    environ.update(env or {})
    done = subprocess.run(
        ["unshare", "-n", "-m", "sh", "-c", setup],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=environ,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout
