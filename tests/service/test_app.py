"""The whole app under real uvicorn: a confirmed search over the wire, a client that goes
away mid-turn, the real web.search against a SearXNG-shaped loopback server, and
Schemathesis finding no server error anywhere in the OpenAPI document."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from spyglass.history.store import SQLiteHistory
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from tests.support.fake_model import FakeModel, Reply, text, tool_call
from tests.support.searxng import SearXNGShaped
from tests.support.server import running_service, wait_until
from tests.support.service import Clock

MESSAGE = "/api/v1/conversation/message"


def sse_events(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    name = ""
    for line in lines:
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            yield name, json.loads(line[6:])


def test_a_confirmed_search_over_real_http_with_sse(
    service_runtime: Runtime, fake_model: FakeModel
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(tool_call("web_search", {"query": "otters"}), text("Otters swim."))
    with running_service(service_runtime) as (base, token):
        headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
        with httpx.Client(base_url=base, headers=headers, timeout=10, trust_env=False) as http:
            with http.stream("POST", MESSAGE, json={"text": "otters?"}) as response:
                assert response.headers["content-security-policy"].startswith("default-src")
                first = dict(sse_events(response.iter_lines()))
            pending = first["pending_confirmation"]
            answer = {
                "conversation_id": first["turn"]["conversation_id"],
                "confirmation": {"token": pending["token"], "approve": True},
            }
            with http.stream("POST", MESSAGE, json=answer) as response:
                events = list(sse_events(response.iter_lines()))
    assert events[-1][0] == "done"
    assert events[-1][1]["text"] == "Otters swim."
    assert events[-1][1]["events"][0]["status"] == "ok"


def test_a_client_that_goes_away_stops_the_turn_and_keeps_what_was_said(
    service_runtime: Runtime, fake_model: FakeModel
) -> None:
    fake_model.script(
        Reply(deltas=[{"content": "Partial "}] + [{"content": "x"}] * 200, delay=0.02)
    )
    history = SQLiteHistory(service_runtime.paths.database_file, retention_days=30)
    with running_service(service_runtime) as (base, token):
        headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
        with (
            httpx.Client(base_url=base, headers=headers, timeout=10, trust_env=False) as http,
            http.stream("POST", MESSAGE, json={"text": "talk a lot"}) as response,
        ):
            for name, data in sse_events(response.iter_lines()):
                if name == "turn":
                    conversation_id = data["conversation_id"]
                if name == "content":
                    break  # the stop button: the fetch is aborted here

        def saved() -> bool:
            rows = history.messages(conversation_id)
            return len(rows) == 2 and rows[1]["text"].startswith("Partial ")

        wait_until(saved, what="the partial answer to be saved")
    stored = history.messages(conversation_id)[1]["text"]
    history.close()
    # Stopped well before the model's 201 pieces were all read.
    assert len(stored) < len("Partial ") + 200


@pytest.fixture
def searxng() -> Iterator[SearXNGShaped]:
    with SearXNGShaped() as server:
        yield server


def test_the_real_web_search_runs_through_the_service_against_a_searxng_server(
    paths: Paths, fake_model: FakeModel, searxng: SearXNGShaped
) -> None:
    runtime = build_runtime(
        paths,
        overrides={
            "llm.base_url": fake_model.base_url,
            "search.providers": "searxng",
            "search.searxng.base_url": searxng.base_url,
        },
    )
    runtime.policy.set("web_access_enabled", True)
    fake_model.script(tool_call("web_search", {"query": "otters"}), text("Otters are mammals."))
    with (
        running_service(runtime) as (base, token),
        httpx.Client(
            base_url=base, timeout=20, trust_env=False, headers={"Authorization": f"Bearer {token}"}
        ) as http,
    ):
        first = http.post(MESSAGE, json={"text": "otters"}).json()
        assert searxng.queries == []
        done = http.post(
            MESSAGE,
            json={
                "conversation_id": first["conversation_id"],
                "confirmation": {
                    "token": first["pending_confirmation"]["token"],
                    "approve": True,
                },
            },
        ).json()
    assert searxng.queries == ["otters"]
    [event] = done["events"]
    assert (event["status"], event["provider"]) == ("ok", "searxng"), event
    assert event["summary"]["result_count"] == 2
    assert done["citations"][0] == {
        "url": "https://en.wikipedia.org/wiki/Otter",
        "title": "Otter - Wikipedia",
    }
    assert done["text"] == "Otters are mammals."


def test_schemathesis_finds_no_server_error(
    service_runtime: Runtime, fake_model: FakeModel
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    with running_service(service_runtime) as (base, token):
        headers = {"Authorization": f"Bearer {token}"}
        raw = httpx.get(f"{base}/openapi.json", headers=headers, trust_env=False).json()
        schema = schemathesis.openapi.from_dict(raw)
        failures: list[str] = []
        for result in schema.get_all_operations():
            operation = result.ok()

            @settings(
                max_examples=15,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(case=operation.as_strategy())
            def check(case: Any) -> None:
                response = case.call(base_url=base, headers=headers)
                if response.status_code >= 500:
                    failures.append(
                        f"{case.method} {case.formatted_path}: "
                        f"{response.status_code} {response.text[:200]}"
                    )

            check()
    assert failures == []


def test_a_confirmation_nobody_answers_is_audited_by_the_service_without_another_request(
    service_runtime: Runtime, fake_model: FakeModel, clock: Clock
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(tool_call("web_search", {"query": "otters"}))
    with running_service(service_runtime, sweep_seconds=0.02) as (base, token):
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as http:
            paused = http.post(MESSAGE, json={"text": "otters?"}, timeout=10).json()
        assert paused["pending_confirmation"] is not None
        clock.now += 121

        def expiries() -> list[dict[str, Any]]:
            lines = service_runtime.paths.audit_file.read_text().splitlines()
            return [e for e in map(json.loads, lines) if e["code"] == "CONFIRMATION_EXPIRED"]

        wait_until(lambda: len(expiries()) == 1, what="the expiry to be audited")
    [event] = expiries()
    assert event["capability"] == "web.search" and event["outcome"] == "denied"
