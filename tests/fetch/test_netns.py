"""End to end in a private network namespace: real DNS (hosts file), real sockets.

Each test starts a subprocess under ``unshare -n -m`` that brings ``lo`` up, puts public
addresses on it, bind-mounts a temporary hosts file over /etc/hosts and then runs the real
fetcher (system resolver, system dialler with its peer check) or the real ``spyglass``
command. Skipped, with the reason, where the machine does not allow namespaces.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.netns_fetch import HOME, V4, V6

ROOT = Path(__file__).resolve().parents[2]
HOSTS = f"""127.0.0.1 localhost
{V4} public.example.net
{V6} v6.example.net
127.0.0.1 loop.example.net
{V4} mixed.example.net
10.1.2.3 mixed.example.net
::ffff:127.0.0.1 mapped.example.net
{HOME} wiki.home.arpa
"""


def _unavailable() -> str | None:
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


SKIP = _unavailable()
pytestmark = [pytest.mark.netns, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]


def in_namespace(tmp_path: Path, command: list[str], env: dict[str, str] | None = None) -> str:
    hosts = tmp_path / "hosts"
    hosts.write_text(HOSTS)
    setup = " && ".join(
        [
            "ip link set lo up",
            f"ip addr add {V4}/32 dev lo",
            f"ip -6 addr add {V6}/128 dev lo nodad",
            f"ip addr add {HOME}/32 dev lo",
            f"mount --bind {shlex.quote(str(hosts))} /etc/hosts",
            "exec " + shlex.join(command),
        ]
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    # This checkout's own source first, whatever the virtualenv has installed.
    environ.update({"PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}", "NO_COLOR": "1"})
    environ.update(env or {})
    done = subprocess.run(
        ["unshare", "-n", "-m", "sh", "-c", setup],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=environ,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_real_resolver_and_dialler_fetch_public_addresses_and_refuse_local_ones(
    tmp_path: Path,
) -> None:
    names = [
        "public.example.net",
        "v6.example.net",
        "loop.example.net",
        "mixed.example.net",
        "mapped.example.net",
        "localhost",
    ]
    output = in_namespace(tmp_path, [sys.executable, "-m", "tests.support.netns_fetch", *names])
    results = json.loads(output)
    page = {"ok": True, "status": 200, "title": "Namespace page"}
    assert results["public.example.net"] == page
    assert results["v6.example.net"] == page
    for name in ("loop.example.net", "mixed.example.net", "mapped.example.net", "localhost"):
        assert results[name]["ok"] is False, name
        assert results[name]["reason"] == "private_address", name
        assert "127.0.0.1" not in results[name]["message"]
    assert results["connections"] == {"v4": 1, "v6": 1, "home": 0}


def test_an_opened_home_address_that_is_this_machine_itself_is_never_sent_a_request(
    tmp_path: Path,
) -> None:
    # The owner opened the home network, but the address is one of this machine's own: the
    # real kernel routes the socket back to itself, and the peer check closes it before a
    # single byte of the request is sent.
    output = in_namespace(
        tmp_path,
        [sys.executable, "-m", "tests.support.netns_fetch", f"{HOME}", "wiki.home.arpa"],
        env={"SPYGLASS_TEST_PRIVATE_NETWORK": f"{HOME}/32,wiki.home.arpa"},
    )
    results = json.loads(output)
    for name in (HOME, "wiki.home.arpa"):
        assert results[name]["ok"] is False, name
        assert results[name]["reason"] == "private_address", name
    assert results["connections"]["home"] == 0


def test_spyglass_fetch_reads_a_page_end_to_end(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    spyglass = str(Path(sys.executable).parent / "spyglass")
    env = {"SPYGLASS_HOME": str(home), "COLUMNS": "200"}
    assert (
        subprocess.run(
            [spyglass, "policy", "enable"],
            env={**os.environ, **env},
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )
    fetch = [spyglass, "fetch", "http://public.example.net/", "--yes"]
    output = in_namespace(
        tmp_path, [sys.executable, "-m", "tests.support.netns_fetch", "--run", *fetch], env=env
    )
    assert "Namespace page" in output
    assert "http://public.example.net/" in output
    assert "Served from a public-looking address" in output
