"""Run inside a private network namespace by tests/fetch/test_netns.py (never directly).

The namespace has "public" addresses on ``lo`` and a bind-mounted hosts file; this program
serves a page on those addresses and fetches it with the *real* resolver and dialler, then
prints one JSON object describing what happened.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

from spyglass.errors import CapabilityError
from spyglass.extract import to_document
from spyglass.fetch import FetchConfig, Fetcher
from spyglass.net import SystemDialler, SystemResolver
from spyglass.net.guard import Guard
from spyglass.net.private import PrivateNetwork
from tests.support.fetch_peers import Peer, page

V4 = "93.184.215.14"
V6 = "2606:4700::1111"
#: A private-use address of this machine, for the ``fetch.private_network`` test.
HOME = "10.9.8.7"
HTML = (
    "<html><head><title>Namespace page</title></head><body><article><h1>Namespace page</h1>"
    + "<p>Served from a public-looking address inside a private network namespace.</p>" * 10
    + "</article></body></html>"
)
#: An article longer than a model's default part (``fetch.max_chars``, 20,000 characters).
LONG_HTML = (
    "<html><head><title>Long page</title></head><body><article><h1>Long page</h1>"
    + "".join(
        f"<p>Paragraph {n} of a long report, read whole at the command line.</p>"
        for n in range(600)
    )
    + "</article></body></html>"
)
#: What both public addresses serve.
PAGES = {"/": page(HTML), "/long": page(LONG_HTML)}


def _config() -> FetchConfig:
    opened = os.environ.get("SPYGLASS_TEST_PRIVATE_NETWORK", "")
    entries = [entry for entry in opened.split(",") if entry]
    return FetchConfig(guard=Guard(private=PrivateNetwork.parse(entries)))


async def attempt(url: str) -> dict[str, Any]:
    async with Fetcher(_config(), SystemResolver(), SystemDialler()) as fetcher:
        try:
            page_ = await fetcher.fetch(url)
        except CapabilityError as exc:
            return {"ok": False, "code": exc.code, "reason": exc.reason, "message": exc.message}
    document = to_document(page_.body, page_.media, page_.final_url)
    return {"ok": True, "status": page_.status, "title": document.title}


async def main() -> dict[str, Any]:
    results: dict[str, Any] = {}
    for name in sys.argv[1:]:
        results[name] = await attempt(f"http://{name}/")
    return results


def serve_and_run(command: list[str]) -> int:
    """Serve the page on the public addresses while ``command`` runs; return its exit code."""
    with Peer(PAGES, bind=(V4, 80)), Peer(PAGES, bind=(V6, 80)):
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


if __name__ == "__main__":
    if sys.argv[1:2] == ["--run"]:
        sys.exit(serve_and_run(sys.argv[2:]))
    with (
        Peer({"/": page(HTML)}, bind=(V4, 80)) as v4,
        Peer({"/": page(HTML)}, bind=(V6, 80)) as v6,
        Peer({"/": page(HTML)}, bind=(HOME, 80)) as home,
    ):
        outcome = asyncio.run(main())
        outcome["connections"] = {
            "v4": v4.connections,
            "v6": v6.connections,
            # Requests, not connections: the peer check runs once the socket is open.
            "home": sum(home.requests.values()),
        }
    print(json.dumps(outcome))
