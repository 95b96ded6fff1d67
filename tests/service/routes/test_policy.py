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
    assert (await client.get("/api/v1/policy")).json()["web_access_enabled"] is False


async def test_fetch_can_be_switched_off_on_its_own_and_the_others_keep_their_values(
    client: httpx.AsyncClient, service_runtime: Runtime
) -> None:
    await client.post("/api/v1/policy", json={"web_access_enabled": True})
    response = await client.post("/api/v1/policy", json={"web_fetch_enabled": False})
    assert response.json() == {
        "web_access_enabled": True,
        "web_search_enabled": True,
        "web_fetch_enabled": False,
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
