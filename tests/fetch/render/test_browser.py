"""Finding Chromium, the contained switches, and the proxy that goes nowhere."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from spyglass.fetch.render.browser import DeadEndProxy, available, find_browser, launch_args


def test_a_configured_browser_path_is_used_alone(tmp_path: Path) -> None:
    program = tmp_path / "chromium"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    assert find_browser(str(program)) == str(program)
    # Set but not a program: nothing else is tried in its place.
    assert find_browser(str(tmp_path / "missing")) is None
    assert available(str(tmp_path / "missing")) is False
    plain = tmp_path / "not-executable"
    plain.write_text("")
    assert find_browser(str(plain)) is None


def test_the_switches_leave_the_browser_no_network_of_its_own() -> None:
    args = launch_args(128)
    assert "--proxy-bypass-list=<-loopback>" in args
    assert "--host-resolver-rules=MAP * ~NOTFOUND" in args
    assert "--disable-quic" in args
    assert "--force-webrtc-ip-handling-policy=disable_non_proxied_udp" in args
    assert "--js-flags=--max-old-space-size=128" in args
    assert ("--no-sandbox" in args) == (os.geteuid() == 0)


async def test_the_dead_end_proxy_accepts_and_closes_every_connection() -> None:
    async with DeadEndProxy() as proxy:
        host, port = proxy.url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        async with asyncio.timeout(10):
            answer = await reader.read()
        writer.close()
        await writer.wait_closed()
    assert answer == b""
    assert proxy.connections == 1
