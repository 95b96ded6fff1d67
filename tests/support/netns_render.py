"""Run inside a private network namespace by tests/fetch/render/test_netns.py (never directly).

A "public" site (on a public-looking address of ``lo``) serves a page whose scripts aim
every kind of request at internal listeners: loopback, a private-range address, the cloud
metadata address and a rebinding name. The page is read with the real resolver and dialler
and rendered in the real, contained Chromium; the program prints one JSON object with what
each internal listener saw (TCP connections and UDP datagrams) and what the render said.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
from typing import Any

from spyglass.capabilities.fetch import read as read_page
from spyglass.capabilities.fetch import read_rendered
from spyglass.fetch import FetchConfig, Fetcher
from spyglass.fetch.render.limits import RenderLimits
from spyglass.net import SystemDialler, SystemResolver
from spyglass.net.addresses import IPAddress, parse_address
from tests.support.fetch_peers import Peer, page, redirect

PUBLIC = "93.184.215.14"
PRIVATE = "10.9.8.7"
METADATA = "169.254.169.254"
LOOPBACK = "127.0.0.1"
#: Resolves to the public site once, then (like the hosts file says) to loopback.
REBIND = "rebind.example.net"
HOSTS = f"""127.0.0.1 localhost
{PUBLIC} public.example.net
{LOOPBACK} {REBIND}
{PRIVATE} intranet.example.net
"""
MARKER = "The attack page ran its scripts"
INTERNAL = [LOOPBACK, PRIVATE, METADATA, REBIND, "intranet.example.net", "localhost"]


def attack_page() -> str:
    targets = json.dumps([f"http://{host}/" for host in INTERNAL])
    hosts = json.dumps(INTERNAL)
    tags = "".join(
        f'<script src="http://{h}/s.js"></script><iframe src="http://{h}/frame"></iframe>'
        f'<img src="http://{h}/i.png"><link rel="prefetch" href="http://{h}/p">'
        f'<link rel="dns-prefetch" href="//{h}"><link rel="preconnect" href="http://{h}">'
        f'<link rel="stylesheet" href="http://{h}/c.css">'
        for h in INTERNAL
    )
    hops = "".join(
        f'<script src="/hop/{n}"></script><iframe src="/hop/{n}"></iframe>' for n in range(4)
    )
    script = f"""
const targets = {targets};
const hosts = {hosts};
for (const t of targets) {{
  fetch(t).catch(() => {{}});
  fetch(t, {{method: "POST", body: "x", mode: "no-cors"}}).catch(() => {{}});
  try {{ const x = new XMLHttpRequest(); x.open("GET", t); x.send(); }} catch (e) {{}}
  try {{ navigator.sendBeacon(t, "beacon"); }} catch (e) {{}}
  try {{ new EventSource(t); }} catch (e) {{}}
}}
for (const h of hosts) {{
  try {{ new WebSocket("ws://" + h + "/"); }} catch (e) {{}}
  try {{ new WebSocket("ws://" + h + ":3478/"); }} catch (e) {{}}
}}
for (const n of [0, 1, 2, 3]) fetch("/hop/" + n).catch(() => {{}});
try {{ navigator.serviceWorker.register("/sw.js").catch(() => {{}}); }} catch (e) {{}}
try {{
  const servers = hosts.flatMap(h => [
    {{urls: "stun:" + h + ":3478"}},
    {{urls: "turn:" + h + ":80?transport=tcp", username: "u", credential: "p"}},
    {{urls: "turn:" + h + ":3478?transport=udp", username: "u", credential: "p"}},
  ]);
  const pc = new RTCPeerConnection({{iceServers: servers}});
  pc.createDataChannel("probe");
  pc.createOffer().then(o => pc.setLocalDescription(o)).catch(() => {{}});
}} catch (e) {{}}
const frame = document.createElement("iframe");
frame.src = "http://{PRIVATE}/late";
document.body.appendChild(frame);
const para = "<p>{MARKER}, and every request it aimed inside was refused.</p>";
document.getElementById("root").innerHTML =
  "<article><h1>{MARKER}</h1>" + para.repeat(5) + "</article>";
"""
    return (
        "<!doctype html><html><head><title>Attack</title>"
        f'</head><body><div id="root"></div>{tags}{hops}<script>{script}</script></body></html>'
    )


SW = f"self.addEventListener('install', () => fetch('http://{PRIVATE}/sw'));"


class RebindingResolver(SystemResolver):
    """The system resolver, except that the rebinding name answers the public address the
    first time (as an attacker's DNS would) and the hosts file's loopback afterwards."""

    def __init__(self) -> None:
        self.asked = 0

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        if host.lower().rstrip(".") == REBIND:
            self.asked += 1
            if self.asked == 1:
                return [parse_address(PUBLIC)]
        return await super().resolve(host, port)


class UdpCounter:
    """A UDP socket counting the datagrams it receives (STUN/TURN probes)."""

    def __init__(self, address: str, port: int) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind((address, port))
        self.socket.settimeout(0.05)
        self.datagrams = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.socket.recvfrom(4096)
                self.datagrams += 1
            except TimeoutError:
                continue
            except OSError:
                return

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.socket.close()


async def read(url: str, resolver: RebindingResolver) -> dict[str, Any]:
    config = FetchConfig()
    dialler = SystemDialler()
    async with Fetcher(config, resolver, dialler) as fetcher:
        fetched = await fetcher.fetch(url)
    limits = RenderLimits(hosts="any", timeout_seconds=30, max_requests=1000)
    static = await read_page(fetched)
    done = await read_rendered(fetched, static, "always", config, limits, resolver, dialler)
    assert done.rendering is not None
    return {
        "rendered": done.rendering.rendered,
        "read": MARKER in done.document.text,
        "other_hosts": list(done.rendering.other_hosts),
        "refused": done.rendering.refused,
    }


def main() -> dict[str, Any]:
    routes = {
        "/": page(attack_page()),
        "/sw.js": page(SW, "text/javascript"),
        "/hop/0": redirect("/hop/0b"),
        "/hop/0b": redirect(f"http://{PRIVATE}/from-redirect"),
        "/hop/1": redirect(f"http://{METADATA}/latest/meta-data/"),
        "/hop/2": redirect(f"http://{REBIND}/from-redirect"),
        "/hop/3": redirect(f"http://{LOOPBACK}/from-redirect"),
    }
    listeners = {
        "loopback": Peer({"*": page("internal")}, bind=(LOOPBACK, 80)),
        "private": Peer({"*": page("internal")}, bind=(PRIVATE, 80)),
        "metadata": Peer({"*": page("internal")}, bind=(METADATA, 80)),
    }
    udp = {
        name: UdpCounter(address, 3478)
        for name, address in (("loopback", LOOPBACK), ("private", PRIVATE), ("metadata", METADATA))
    }
    tcp_3478 = {
        name: Peer({"*": page("internal")}, bind=(address, 3478))
        for name, address in (("loopback", LOOPBACK), ("private", PRIVATE), ("metadata", METADATA))
    }
    outcome: dict[str, Any] = {}
    with Peer(routes, bind=(PUBLIC, 80)) as public:
        for peer in [*listeners.values(), *tcp_3478.values()]:
            peer.start()
        try:
            outcome["public"] = asyncio.run(read("http://public.example.net/", RebindingResolver()))
            outcome["rebind"] = asyncio.run(read(f"http://{REBIND}/", RebindingResolver()))
        finally:
            for peer in [*listeners.values(), *tcp_3478.values()]:
                peer.stop()
            for counter in udp.values():
                counter.close()
        outcome["public_requests"] = dict(public.requests)
    outcome["internal"] = {
        name: {
            "tcp_80": listeners[name].connections,
            "tcp_3478": tcp_3478[name].connections,
            "udp_3478": udp[name].datagrams,
        }
        for name in listeners
    }
    return outcome


if __name__ == "__main__":
    if sys.argv[1:2] == ["--hosts"]:
        print(HOSTS, end="")
    else:
        print(json.dumps(main()))
