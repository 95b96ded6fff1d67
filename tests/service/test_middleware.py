"""Security headers, Host check and body size limit."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from spyglass.paths import Paths
from spyglass.runtime import build_runtime
from spyglass.service import server as service_server
from spyglass.service.app import create_app
from spyglass.service.middleware import CSP, allowed_hosts
from tests.support.server import wait_until


async def test_every_response_carries_the_security_headers(client: httpx.AsyncClient) -> None:
    for response in (
        await client.get("/api/v1/health"),
        await client.get("/api/v1/nothing-here"),
        await client.get("/api/v1/health", headers={"Host": "evil.example"}),
        await client.get("/"),
    ):
        assert response.headers["content-security-policy"] == CSP
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"


async def test_a_foreign_host_header_is_rejected(client: httpx.AsyncClient) -> None:
    for host in ("evil.example:8092", "127.0.0.1:9999", "attacker.localhost:8092"):
        response = await client.get("/api/v1/policy", headers={"Host": host})
        assert response.status_code == 421
        assert response.json()["error"]["code"] == "HOST_NOT_ALLOWED"


async def test_a_request_with_two_host_headers_is_rejected(client: httpx.AsyncClient) -> None:
    for pair in (
        ("127.0.0.1:8092", "evil.example:8092"),
        ("evil.example:8092", "127.0.0.1:8092"),
        ("127.0.0.1:8092", "127.0.0.1:8092"),
    ):
        request = client.build_request("GET", "/api/v1/policy")
        request.headers = httpx.Headers(
            [(k, v) for k, v in request.headers.multi_items() if k.lower() != "host"]
            + [("Host", host) for host in pair]
        )
        response = await client.send(request)
        assert response.status_code == 421, pair
        assert response.json()["error"]["code"] == "HOST_NOT_ALLOWED"


async def test_loopback_names_with_the_port_are_accepted(client: httpx.AsyncClient) -> None:
    for host in ("127.0.0.1:8092", "localhost:8092", "[::1]:8092", "LOCALHOST:8092"):
        response = await client.get("/api/v1/health", headers={"Host": host})
        assert response.status_code == 200, host


def test_a_remote_bind_address_is_added_to_the_allowed_hosts() -> None:
    assert "192.168.1.5:8092" in allowed_hosts("192.168.1.5", 8092)
    assert "0.0.0.0:8092" not in allowed_hosts("0.0.0.0", 8092)
    assert "localhost" in allowed_hosts("127.0.0.1", 80)


async def test_a_huge_body_is_refused_with_413(client: httpx.AsyncClient, app: FastAPI) -> None:
    limit = app.state.spyglass.runtime.settings.server.max_body_bytes
    huge = b'{"text": "' + b"a" * (limit + 10) + b'"}'
    response = await client.post(
        "/api/v1/conversation/message",
        content=huge,
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "REQUEST_TOO_LARGE"


async def test_a_huge_body_without_a_length_is_refused_too(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    limit = app.state.spyglass.runtime.settings.server.max_body_bytes

    async def chunks():  # type: ignore[no-untyped-def]
        for _ in range(limit // 65536 + 2):
            yield b"a" * 65536

    response = await client.post(
        "/api/v1/conversation/message",
        content=chunks(),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 413


async def test_operator_listed_host_names_are_accepted(paths: Paths) -> None:
    runtime = build_runtime(paths, overrides={"server.allowed_hosts": ["host.docker.internal"]})
    app = create_app(runtime, port=8092)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://host.docker.internal:8092"
    ) as client:
        response = await client.get("/api/v1/health")
    await app.state.spyglass.history.close()
    assert response.status_code == 200


class _FailsInside:
    """A middleware that fails for one path: an exception inside the middleware stack."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/api/v1/middleware-fails":
            raise RuntimeError("a middleware failed")
        await self.app(scope, receive, send)


def _boom() -> None:
    raise RuntimeError("a route failed")


@contextlib.contextmanager
def _serving(app: FastAPI, sock: socket.socket) -> Iterator[str]:
    server = uvicorn.Server(service_server.config(app, log_level="critical"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, what="uvicorn to start")
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def test_every_status_from_every_layer_carries_the_security_headers_over_real_http(
    paths: Paths,
) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    app = create_app(build_runtime(paths), port=sock.getsockname()[1])
    app.add_api_route("/api/v1/route-fails", _boom)
    app.add_middleware(_FailsInside)
    token = app.state.spyglass.auth.token
    auth = {"Authorization": f"Bearer {token}"}
    limit = app.state.spyglass.runtime.settings.server.max_body_bytes
    with _serving(app, sock) as base, httpx.Client(base_url=base, trust_env=False) as http:
        responses = {
            200: http.get("/api/v1/health"),
            401: http.get("/api/v1/policy"),
            404: http.get("/api/v1/nothing-here", headers=auth),
            405: http.delete("/api/v1/policy", headers=auth),
            413: http.post("/api/v1/policy", headers=auth, content=b"x" * (limit + 1)),
            421: http.get("/api/v1/health", headers={"Host": "evil.example"}),
            422: http.post("/api/v1/policy", headers=auth, json={"web_access_enabled": 1}),
            500: http.get("/api/v1/route-fails", headers=auth),
            -500: http.get("/api/v1/middleware-fails", headers=auth),
        }
    for expected, response in responses.items():
        assert response.status_code == abs(expected), (expected, response.text)
        assert response.headers["content-security-policy"] == CSP, expected
        assert response.headers["x-content-type-options"] == "nosniff", expected
        assert response.headers["referrer-policy"] == "no-referrer", expected
    for failed in (responses[500], responses[-500]):
        assert failed.json()["error"]["code"] == "INTERNAL_ERROR"
        assert "failed" not in failed.json()["error"]["message"]  # no exception text
