"""GET|POST /api/v1/policy: web access, and search and fetch under it."""

from __future__ import annotations

import json

import httpx

from spyglass.runtime import Runtime


async def test_policy_is_off_by_default_and_can_be_switched(
    client: httpx.AsyncClient, service_runtime: Runtime
) -> None:
    assert (await client.get("/api/v1/policy")).json() == {
        "web_access_enabled": False,
        "web_search_enabled": True,
        "web_fetch_enabled": True,
        "approvals_search": "each",
        "approvals_fetch": "each",
    }
    on = await client.post("/api/v1/policy", json={"web_access_enabled": True})
    assert on.json()["web_access_enabled"] is True
    assert json.loads(service_runtime.paths.policy_file.read_text())["web_access_enabled"] is True
    off = await client.post("/api/v1/policy", json={"web_access_enabled": False})
    assert off.json()["web_access_enabled"] is False


async def test_a_change_to_the_file_is_seen_without_a_restart(
    client: httpx.AsyncClient, service_runtime: Runtime
) -> None:
    service_runtime.paths.policy_file.parent.mkdir(parents=True, exist_ok=True)
    service_runtime.paths.policy_file.write_text('{"web_access_enabled": true}')
    assert (await client.get("/api/v1/policy")).json()["web_access_enabled"] is True


async def test_a_non_boolean_switch_is_422(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v1/policy", json={"web_access_enabled": "yes"})
    assert response.status_code == 422
    assert "web_access_enabled" in response.json()["error"]["message"]


async def test_a_policy_file_that_cannot_be_written_is_503_naming_the_file(
    client: httpx.AsyncClient, service_runtime: Runtime
) -> None:
    folder = service_runtime.paths.policy_file.parent
    if folder.exists():
        folder.rmdir()
    folder.write_text("a file where the folder should be")
    response = await client.post("/api/v1/policy", json={"web_access_enabled": True})
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "STORAGE_UNAVAILABLE"
    assert "cannot write the policy file" in error["message"]
    after = (await client.get("/api/v1/policy")).json()
    assert after["web_access_enabled"] is False
    assert after["problem"]["code"] == "POLICY_UNREADABLE"  # a file where its folder should be


async def test_a_lone_surrogate_in_the_body_is_a_422_naming_no_text(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(
        "/api/v1/policy",
        content=rb'{"web_access_enabled": true, "\ud800": 1}',
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "INVALID_REQUEST"
    assert "not valid text" in response.json()["error"]["message"]


async def test_a_broken_policy_file_is_reported_with_its_own_code_and_path(
    client: httpx.AsyncClient, service_runtime: Runtime
) -> None:
    path = service_runtime.paths.policy_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{broken")
    body = (await client.get("/api/v1/policy")).json()
    assert body["web_access_enabled"] is False
    assert body["problem"]["code"] == "POLICY_UNREADABLE"
    assert body["problem"]["path"] == str(path)
    session = (await client.get("/api/v1/session")).json()
    assert session["policy_problem"]["code"] == "POLICY_UNREADABLE"
    invoked = await client.post(
        "/api/v1/capabilities/web.search/invoke", json={"arguments": {"query": "x"}}
    )
    error = invoked.json()["error"]
    assert error["code"] == "POLICY_UNREADABLE" and str(path) in error["message"]
    await client.post("/api/v1/policy", json={"web_access_enabled": True})
    assert "problem" not in (await client.get("/api/v1/policy")).json()


async def test_fetch_can_be_switched_off_on_its_own_and_the_others_keep_their_values(
    client: httpx.AsyncClient, service_runtime: Runtime
) -> None:
    await client.post("/api/v1/policy", json={"web_access_enabled": True})
    response = await client.post("/api/v1/policy", json={"web_fetch_enabled": False})
    assert response.json() == {
        "web_access_enabled": True,
        "web_search_enabled": True,
        "web_fetch_enabled": False,
        "approvals_search": "each",
        "approvals_fetch": "each",
    }
    assert (await client.get("/api/v1/policy")).json() == response.json()
    stored = json.loads(service_runtime.paths.policy_file.read_text())
    assert stored == {"web_access_enabled": True, "web_fetch_enabled": False}


async def test_a_body_that_names_no_switch_is_422_listing_the_switches(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post("/api/v1/policy", json={})
    assert response.status_code == 422
    message = response.json()["error"]["message"]
    assert "web_search_enabled" in message and "web_fetch_enabled" in message


async def test_an_unknown_switch_is_422(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v1/policy", json={"web_shopping_enabled": True})
    assert response.status_code == 422


async def test_how_often_search_and_fetch_ask_is_switched_at_run_time_and_kept(
    client: httpx.AsyncClient, service_runtime: Runtime
) -> None:
    response = await client.post("/api/v1/policy", json={"approvals_fetch": "flagged"})
    assert response.status_code == 200
    assert response.json()["approvals_fetch"] == "flagged"
    assert response.json()["approvals_search"] == "each"
    assert service_runtime.policy.approvals() == {"fetch": "flagged"}
    stored = json.loads(service_runtime.paths.policy_file.read_text())
    assert stored["approvals"] == {"fetch": "flagged"}
    both = await client.post(
        "/api/v1/policy", json={"approvals_search": "flagged", "web_access_enabled": True}
    )
    assert both.json()["approvals_search"] == "flagged"
    assert both.json()["web_access_enabled"] is True
    back = await client.post("/api/v1/policy", json={"approvals_fetch": "default"})
    assert back.json()["approvals_fetch"] == "each"
    assert service_runtime.policy.approvals() == {"search": "flagged"}


async def test_an_unknown_approval_mode_is_422_naming_the_modes(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v1/policy", json={"approvals_fetch": "sometimes"})
    assert response.status_code == 422
    message = response.json()["error"]["message"]
    assert "approvals_fetch" in message and "flagged" in message


async def test_only_the_owner_chooses_how_often_calls_ask(
    client: httpx.AsyncClient, service_runtime: Runtime
) -> None:
    from spyglass.accounts.roles import Role
    from spyglass.accounts.store import API_TOKEN

    member = await service_runtime.accounts.create("sam", Role.MEMBER)
    token = await service_runtime.accounts.issue(member.id, API_TOKEN, None)
    response = await client.post(
        "/api/v1/policy",
        json={"approvals_search": "flagged"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 403
    assert service_runtime.policy.approvals() == {}
