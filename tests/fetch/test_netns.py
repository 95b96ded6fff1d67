"""End to end in a private network namespace: real DNS (hosts file), real sockets.

Each test starts a subprocess under ``unshare -n -m`` that brings ``lo`` up, puts public
addresses on it, bind-mounts a temporary hosts file over /etc/hosts and then runs the real
fetcher (system resolver, system dialler with its peer check) or the real ``spyglass``
command. Skipped, with the reason, where the machine does not allow namespaces.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import netns
from tests.support.netns_fetch import HOME, V4, V6

HOSTS = f"""127.0.0.1 localhost
{V4} public.example.net
{V6} v6.example.net
127.0.0.1 loop.example.net
{V4} mixed.example.net
10.1.2.3 mixed.example.net
::ffff:127.0.0.1 mapped.example.net
{HOME} wiki.home.arpa
"""


SKIP = netns.unavailable()
pytestmark = [pytest.mark.netns, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]


def in_namespace(tmp_path: Path, command: list[str], env: dict[str, str] | None = None) -> str:
    return netns.run(tmp_path, HOSTS, [V4, V6, HOME], command, env)


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


def test_spyglass_fetch_prints_a_page_longer_than_a_models_part_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    spyglass = str(Path(sys.executable).parent / "spyglass")
    env = {"SPYGLASS_HOME": str(home)}
    enabled = subprocess.run(
        [spyglass, "policy", "enable"], env={**os.environ, **env}, capture_output=True, check=False
    )
    assert enabled.returncode == 0
    url = "http://public.example.net/long"
    run = [sys.executable, "-m", "tests.support.netns_fetch", "--run", spyglass, "fetch", url]
    whole = json.loads(in_namespace(tmp_path, [*run, "--yes", "--json"], env=env))["result"]
    assert whole["total_chars"] > 20000
    assert len(whole["text"]) == whole["total_chars"] and "next_offset" not in whole
    assert "Paragraph 599 of a long report" in whole["text"]
    part = in_namespace(tmp_path, [*run, "--yes", "--json", "--max-chars", "5000"], env=env)
    first = json.loads(part)["result"]
    assert len(first["text"]) <= 5000 and first["next_offset"] == len(first["text"])
