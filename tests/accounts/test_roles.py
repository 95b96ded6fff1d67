"""The role table, against every front end: what a role may use is what each front end lets
it use. The cases are generated from the table itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from mcp import Client

from spyglass.accounts.roles import ALL_CAPABILITIES, ROLES, Role, markdown_table
from spyglass.accounts.store import API_TOKEN
from spyglass.core.capability import Network
from spyglass.core.policy import WEB_ACCESS
from spyglass.mcp.callers import TokenHolder
from spyglass.mcp.server import build_server
from spyglass.runtime import Runtime
from tests.mcp.support import Owner
from tests.service.household import add, bearer, console
from tests.support.fake_model import FakeModel, text

ROOT = Path(__file__).resolve().parents[2]
WEB = sorted(c for c in ALL_CAPABILITIES if c.startswith("web."))
CASES = [(role, capability) for role in Role for capability in WEB]
IDS = [f"{role}-{capability}" for role, capability in CASES]


def allowed(role: Role, capability: str) -> bool:
    return capability in ROLES[role].capabilities


def test_docs_accounts_holds_the_table_generated_from_the_code() -> None:
    assert markdown_table() in (ROOT / "docs" / "accounts.md").read_text(encoding="utf-8")


def test_every_role_has_a_row_and_only_the_owner_manages() -> None:
    assert set(ROLES) == set(Role)
    assert [role for role, p in ROLES.items() if p.manage] == [Role.OWNER]
    assert all(p.capabilities <= ALL_CAPABILITIES for p in ROLES.values())


@pytest.mark.parametrize(("role", "capability"), CASES, ids=IDS)
async def test_http_api_invoke_follows_the_table(
    app: FastAPI, web_on: Runtime, role: Role, capability: str
) -> None:
    person = await add(app, "p", role)
    arguments = (
        {"query": "otters"} if capability == "web.search" else {"url": "https://example.org/hello"}
    )
    async with bearer(app, person) as client:
        response = await client.post(
            f"/api/v1/capabilities/{capability}/invoke", json={"arguments": arguments}
        )
    outcome = response.json()
    if allowed(role, capability):
        assert outcome["status"] == "pending_confirmation", outcome
    else:
        assert outcome["error"]["code"] == "PERSON_NOT_ALLOWED", outcome


@pytest.mark.parametrize("role", list(Role))
async def test_the_console_offers_the_model_exactly_the_tools_of_the_table(
    app: FastAPI, web_on: Runtime, fake_model: FakeModel, role: Role
) -> None:
    person = await add(app, "p", role)
    fake_model.script(text("Hello."))
    async with console(app, person) as browser:
        response = await browser.post("/api/v1/conversation/message", json={"text": "hi"})
    assert response.status_code == 200, response.text
    offered = {t["function"]["name"] for t in fake_model.requests[-1].get("tools") or []}
    registry = web_on.registry
    expected = {
        c.wire_name
        for c in registry.latest()
        if c.network is Network.EXTERNAL and allowed(role, c.name)
    }
    assert offered & {"web_search", "web_fetch"} == expected


@pytest.mark.parametrize(("role", "capability"), CASES, ids=IDS)
async def test_open_webui_endpoints_follow_the_table(
    app: FastAPI, web_on: Runtime, role: Role, capability: str
) -> None:
    web_on.executor.delegated_channels = frozenset({"openwebui"})
    person = await add(app, "p", role)
    async with bearer(app, person) as client:
        if capability == "web.search":
            response = await client.post(
                "/api/v1/openwebui/search", json={"query": "otters", "count": 2}
            )
        else:
            response = await client.post(
                "/api/v1/openwebui/loader", json={"urls": ["https://example.org/hello"]}
            )
    if ROLES[role].needs_approval:
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "NEEDS_APPROVER"
    elif allowed(role, capability):
        assert response.status_code == 200, response.text
    else:
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "PERSON_NOT_ALLOWED"


@pytest.mark.parametrize(("role", "capability"), CASES, ids=IDS)
async def test_mcp_with_a_persons_token_lists_and_runs_what_the_table_allows(
    app: FastAPI, web_on: Runtime, role: Role, capability: str
) -> None:
    account = await add(app, "p", role)
    token = await web_on.accounts.issue(account.id, API_TOKEN, None)
    holder = TokenHolder(web_on.accounts, web_on.actors, token, "the token file")
    web_on.policy.set(WEB_ACCESS, True)
    wire = capability.replace(".", "_")
    arguments = (
        {"query": "otters"} if capability == "web.search" else {"url": "https://example.org/hello"}
    )
    async with Client(
        build_server(web_on, callers=holder), mode="legacy", elicitation_callback=Owner()
    ) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool(wire, arguments)
    text_blocks = " ".join(getattr(block, "text", "") for block in result.content)
    assert (wire in listed) == allowed(role, capability)
    if not allowed(role, capability):
        assert result.is_error and "PERSON_NOT_ALLOWED" in text_blocks
    elif ROLES[role].needs_approval:
        # The host's own user (the child) approving is not enough: an approver must.
        assert result.is_error and "AWAITING_APPROVAL" in text_blocks
    else:
        assert not result.is_error, text_blocks


async def test_the_cli_acts_as_the_owner_on_this_machine(app: FastAPI) -> None:
    """The CLI has no per-person mode: whoever runs it can read SPYGLASS_HOME anyway."""
    async with bearer(app, await app.state.spyglass.accounts.get("owner")) as owner:
        session = await owner.get("/api/v1/session")
    assert session.json()["account"]["role"] == "owner"
