"""GET /api/v1/capabilities and direct invocation with the same confirmation flow."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from spyglass.service.app import create_app
from tests.support.service import BASE_URL, PORT
from tests.support.web import LoopbackWeb

INVOKE = "/api/v1/capabilities/web.search/invoke"


async def test_the_registry_is_listed(client: httpx.AsyncClient) -> None:
    names = [c["name"] for c in (await client.get("/api/v1/capabilities")).json()["capabilities"]]
    assert names == ["system.health", "web.fetch", "web.search"]


async def test_with_web_access_off_a_direct_invoke_is_rejected_before_confirmation(
    client: httpx.AsyncClient, web: LoopbackWeb
) -> None:
    outcome = (await client.post(INVOKE, json={"arguments": {"query": "x"}})).json()
    assert outcome["status"] == "rejected" and outcome["stage"] == "policy"
    assert "pending_confirmation" not in outcome
    assert web.hits["/search"] == 0


async def test_a_direct_invoke_asks_then_runs_once_when_approved(
    client: httpx.AsyncClient, web: LoopbackWeb, web_on: Runtime
) -> None:
    first = (await client.post(INVOKE, json={"arguments": {"query": "x"}})).json()
    assert first["status"] == "pending_confirmation"
    token = first["pending_confirmation"]["token"]
    body = {"arguments": {"query": "x"}, "confirmation": {"token": token, "approve": True}}
    results = await asyncio.gather(client.post(INVOKE, json=body), client.post(INVOKE, json=body))
    statuses = sorted(r.status_code for r in results)
    assert statuses == [200, 400]
    ok = next(r for r in results if r.status_code == 200).json()
    assert ok["status"] == "ok" and ok["result"]["result_count"] == 3
    assert web.hits["/search"] == 1


async def test_a_direct_invoke_can_be_declined(
    client: httpx.AsyncClient, web: LoopbackWeb, web_on: Runtime
) -> None:
    first = (await client.post(INVOKE, json={"arguments": {"query": "x"}})).json()
    token = first["pending_confirmation"]["token"]
    declined = await client.post(
        INVOKE,
        json={"arguments": {"query": "x"}, "confirmation": {"token": token, "approve": False}},
    )
    assert declined.json()["status"] == "denied"
    assert web.hits["/search"] == 0


async def test_a_token_for_other_arguments_is_refused(
    client: httpx.AsyncClient, web: LoopbackWeb, web_on: Runtime
) -> None:
    first = (await client.post(INVOKE, json={"arguments": {"query": "x"}})).json()
    token = first["pending_confirmation"]["token"]
    swapped = await client.post(
        INVOKE,
        json={"arguments": {"query": "other"}, "confirmation": {"token": token, "approve": True}},
    )
    assert swapped.status_code == 400
    assert web.hits["/search"] == 0


async def test_a_local_capability_runs_directly(client: httpx.AsyncClient) -> None:
    outcome = (await client.post("/api/v1/capabilities/system.health/invoke", json={})).json()
    assert outcome["status"] == "ok" and outcome["result"]["status"] == "ok"


async def test_an_unknown_capability_is_404(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v1/capabilities/no.such/invoke", json={})
    assert response.status_code == 404
    assert "system.health" in response.json()["error"]["message"]


async def test_invalid_arguments_come_back_as_a_rejected_outcome_naming_the_field(
    client: httpx.AsyncClient, web_on: Runtime
) -> None:
    outcome = (await client.post(INVOKE, json={"arguments": {"query": 5}})).json()
    assert outcome["status"] == "rejected" and outcome["error"]["code"] == "INVALID_ARGUMENTS"
    assert "query" in outcome["error"]["message"]


async def test_a_lone_surrogate_is_refused_at_validate_without_a_token_or_an_echo(
    client: httpx.AsyncClient, web_on: Runtime
) -> None:
    # httpx cannot encode a lone surrogate itself: the JSON escape is sent as written.
    cases = [
        (INVOKE, rb'{"arguments": {"query": "\ud800"}}', "query is not valid text"),
        (
            "/api/v1/capabilities/web.fetch/invoke",
            rb'{"arguments": {"url": "https://example.org/\udfff"}}',
            "url is not valid text",
        ),
        (INVOKE, rb'{"arguments": {"query": "x", "\ud800": 1}}', "an argument name"),
    ]
    for path, body, fragment in cases:
        response = await client.post(
            path, content=body, headers={"Content-Type": "application/json"}
        )
        assert response.status_code < 500, response.text
        outcome = response.json()
        assert (outcome["status"], outcome["stage"]) == ("rejected", "validate")
        assert outcome["error"]["code"] == "INVALID_ARGUMENTS"
        assert fragment in outcome["error"]["message"]
        assert "pending_confirmation" not in outcome
    assert len(web_on.confirmations) == 0  # type: ignore[arg-type]


@pytest.fixture
async def real_client(paths: Paths) -> AsyncIterator[tuple[httpx.AsyncClient, Runtime]]:
    """The service over the built-in web.fetch and web.search, web access on."""
    runtime = build_runtime(paths)
    runtime.policy.set("web_access_enabled", True)
    app = create_app(runtime, port=PORT)
    token = app.state.spyglass.auth.token
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url=BASE_URL,
            headers={"Authorization": f"Bearer {token}"},
        ) as http:
            yield http, runtime
    finally:
        await app.state.spyglass.aclose()


@pytest.mark.parametrize(
    ("capability", "arguments", "code"),
    [
        ("web.fetch", {"url": "http://127.0.0.1/"}, "FETCH_TARGET_REJECTED"),
        ("web.fetch", {"url": "file:///etc/passwd"}, "FETCH_TARGET_REJECTED"),
        ("web.fetch", {"url": "https://u:p@example.com/"}, "FETCH_TARGET_REJECTED"),
        ("web.fetch", {"url": "https://wiki.home.arpa/"}, "FETCH_TARGET_REJECTED"),
        ("web.search", {"query": "x", "include_domains": ["nas.home"]}, "INVALID_ARGUMENTS"),
        ("web.search", {"query": "x", "exclude_domains": ["x.onion"]}, "INVALID_ARGUMENTS"),
    ],
)
async def test_a_call_that_can_only_be_refused_comes_back_refused_with_no_card(
    real_client: tuple[httpx.AsyncClient, Runtime],
    capability: str,
    arguments: dict[str, Any],
    code: str,
) -> None:
    client, runtime = real_client
    response = await client.post(
        f"/api/v1/capabilities/{capability}/invoke", json={"arguments": arguments}
    )
    outcome = response.json()
    assert response.status_code == 200, outcome
    assert outcome["status"] == "rejected" and outcome["stage"] == "check", outcome
    assert outcome["error"]["code"] == code
    assert "pending_confirmation" not in outcome
    audit = runtime.paths.audit_file.read_text()
    assert "pending_confirmation" not in audit


async def test_a_focused_fetch_through_the_http_invoke_returns_the_passage_that_answers(
    real_client: tuple[httpx.AsyncClient, Runtime],
) -> None:
    from tests.support.fetch_peers import Peer, page, serve_public

    http, runtime = real_client
    paragraphs = "".join(f"<p>Note {n} is about the weather in the valley.</p>" for n in range(300))
    html = f"<html><body><article><h1>Notes</h1>{paragraphs}</article></body></html>"
    path = "/api/v1/capabilities/web.fetch/invoke"
    arguments = {"url": "http://example.com/", "focus": "What is note 123 about?"}
    with Peer({"/": page(html)}) as peer:
        serve_public(runtime.seams, {"example.com": peer})
        first = (await http.post(path, json={"arguments": arguments})).json()
        assert first["status"] == "pending_confirmation"
        assert first["pending_confirmation"]["arguments"]["focus"] == arguments["focus"]
        token = first["pending_confirmation"]["token"]
        body = {"arguments": arguments, "confirmation": {"token": token, "approve": True}}
        outcome = (await http.post(path, json=body)).json()
    assert outcome["status"] == "ok", outcome
    result = outcome["result"]
    assert "Note 123 is about the weather" in result["text"]
    assert len(result["text"]) <= runtime.settings.fetch.focus_max_chars
    assert result["left_out_chars"] > 0
