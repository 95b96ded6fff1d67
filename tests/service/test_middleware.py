"""Security headers, Host check and body size limit."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from spyglass.paths import Paths
from spyglass.runtime import build_runtime
from spyglass.service.app import create_app
from spyglass.service.middleware import CSP, allowed_hosts


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
