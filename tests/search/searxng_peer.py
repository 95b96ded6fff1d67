"""The real SearXNG as a test peer: a subprocess on loopback fed by a fake upstream.

SearXNG (AGPL) lives in its own virtualenv (``SPYGLASS_TEST_SEARXNG_PYTHON``) and is only
ever run as a subprocess, never imported. Its settings drop every internet engine, turn off
every plugin and point ``json_engine`` engines at a stdlib fake upstream on loopback, one
engine per behaviour, so the peer never makes a request that leaves the machine.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

from tests.support.loopback import LoopbackServer, QuietHandler

PYTHON_VARIABLE = "SPYGLASS_TEST_SEARXNG_PYTHON"
START_DEADLINE_SECONDS = 60
#: Engine timeout; the ``slow`` upstream stalls longer than this.
ENGINE_TIMEOUT = 1.0
#: One engine per upstream behaviour, named after the path it calls.
ENGINES = ("ok", "e500", "e429", "e403", "slow", "badjson", "hostile")
PLUGINS = (
    "calculator",
    "infinite_scroll",
    "hash_plugin",
    "self_info",
    "unit_converter",
    "ahmia_filter",
    "hostnames",
    "time_zone",
    "oa_doi_rewrite",
    "tor_check",
    "tracker_url_remover",
)


class FakeUpstream(LoopbackServer):
    """The loopback "internet" the peer's engines call: one path per behaviour; serving
    from construction until :meth:`stop`."""

    def __init__(self) -> None:
        self.released = threading.Event()
        upstream = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = parse_qs(parts.query).get("q", [""])[0]
                path = parts.path.strip("/")
                if path == "slow":
                    # Outlast the engine timeout; SearXNG has hung up by then, so no answer.
                    upstream.released.wait(ENGINE_TIMEOUT * 5)
                    return None
                if path in {"e500", "e429", "e403"}:
                    return self._send(int(path[1:]), {"error": path})
                if path == "badjson":
                    return self._send(200, b"this is not json")
                if path == "hostile":
                    return self._send(200, {"items": _hostile()})
                return self._send(200, {"items": _items(query)})

            def _send(self, status: int, body: Any) -> None:
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(Handler)
        self.start()

    def stop(self) -> None:
        # The ``slow`` path holds its handler until released; let it go before shutting down.
        self.released.set()
        super().stop()


def _items(query: str) -> list[dict[str, str]]:
    return [
        {
            "link": f"https://ok.example/{n}?q={query}",
            "name": f"Result {n} for {query}",
            "desc": f"snippet {n}",
        }
        for n in (1, 2, 3)
    ]


def _hostile() -> list[dict[str, str]]:
    return [
        {
            "link": "https://hostile.example/page",
            "name": "<b>Bold</b> &amp; <script>alert(1)</script>title",
            "desc": "<img src=x onerror=alert(2)>Click <a href='https://evil.example'>here</a>",
        },
        {"link": "javascript:alert(3)", "name": "Forged", "desc": "forged link"},
    ]


def _engine(name: str, upstream: str, timeout: float) -> dict[str, Any]:
    return {
        "name": name,
        "engine": "json_engine",
        "shortcut": name,
        "categories": ["general"],
        "search_url": f"{upstream}/{name}?q={{query}}",
        "results_query": "items",
        "url_query": "link",
        "title_query": "name",
        "content_query": "desc",
        "enable_http": True,
        "timeout": timeout,
        "disabled": False,
    }


def settings_yaml(
    port: int, upstream: str, *, formats: tuple[str, ...], engine_timeout: float = ENGINE_TIMEOUT
) -> str:
    """A complete settings file: JSON (YAML's subset), no internet engines, no plugins."""
    settings = {
        "use_default_settings": {"engines": {"keep_only": []}},
        "general": {"debug": False, "enable_metrics": False},
        "search": {
            "autocomplete": "",
            "formats": list(formats),
            "ban_time_on_fail": 0,
            "max_ban_time_on_fail": 0,
            "suspended_times": {
                "SearxEngineAccessDenied": 0,
                "SearxEngineTooManyRequests": 0,
                "SearxEngineCaptcha": 0,
            },
        },
        "server": {
            "bind_address": "127.0.0.1",
            "port": port,
            "secret_key": "spyglass-test-peer-not-a-secret-0123456789",
            "limiter": False,
            "public_instance": False,
            "image_proxy": False,
        },
        "valkey": {"url": False},
        "outgoing": {"request_timeout": engine_timeout, "max_request_timeout": engine_timeout * 3},
        "plugins": {f"searx.plugins.{name}.SXNGPlugin": {"active": False} for name in PLUGINS},
        "engines": [_engine(name, upstream, engine_timeout) for name in ENGINES],
    }
    return json.dumps(settings, indent=2)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Peer:
    url: str
    process: subprocess.Popen[bytes]
    folder: tempfile.TemporaryDirectory[str]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.folder.cleanup()


def start_peer(
    python: str,
    upstream: str,
    *,
    formats: tuple[str, ...] = ("html", "json"),
    engine_timeout: float = ENGINE_TIMEOUT,
) -> Peer:
    """Start SearXNG and wait (with a deadline) until ``/healthz`` answers."""
    folder = tempfile.TemporaryDirectory(prefix="spyglass-searxng-")
    port = _free_port()
    path = Path(folder.name) / "settings.yml"
    path.write_text(settings_yaml(port, upstream, formats=formats, engine_timeout=engine_timeout))
    # No proxy variables reach the peer: its only destination is the loopback upstream.
    environ = {
        key: value
        for key, value in os.environ.items()
        if "proxy" not in key.lower() and not key.startswith(("SEARXNG_", "SPYGLASS_"))
    }
    environ["SEARXNG_SETTINGS_PATH"] = str(path)
    with (Path(folder.name) / "searxng.log").open("wb") as log:
        # The child keeps its own copy of the descriptor.
        process = subprocess.Popen(
            # abspath, not resolve: the peer runs from another folder, and resolving the
            # venv's python symlink would leave the venv.
            [os.path.abspath(python), "-m", "searx.webapp"],
            env=environ,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=folder.name,
        )
    url = f"http://127.0.0.1:{port}"
    peer = Peer(url, process, folder)
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    with httpx.Client(trust_env=False, timeout=2) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                output = (Path(folder.name) / "searxng.log").read_text(errors="replace")
                peer.stop()
                raise RuntimeError(f"SearXNG exited at start:\n{output[-3000:]}")
            try:
                if client.get(f"{url}/healthz").status_code == 200:
                    return peer
            except httpx.TransportError:
                pass
            # Polling interval while the peer boots, bounded by the deadline above.
            threading.Event().wait(0.1)
    peer.stop()
    raise RuntimeError(f"SearXNG did not answer /healthz within {START_DEADLINE_SECONDS} s")
