"""The whole app under real uvicorn: a confirmed search over the wire, a client that goes
away mid-turn, the real web.search against a SearXNG-shaped loopback server, and
Schemathesis finding no server error anywhere in the OpenAPI document."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from spyglass.capabilities import IMPLEMENTATIONS
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from spyglass.state.sqlite.history import SQLiteHistory
from tests.support.fake_model import FakeModel, Reply, text, tool_call
from tests.support.probe import last_json, run_python
from tests.support.searxng import SearXNGShaped
from tests.support.server import LOOPS, running_service, wait_until
from tests.support.service import Clock

MESSAGE = "/api/v1/conversation/message"
CAPABILITIES = ("web.search", "web.fetch", "system.health")
#: Examples per operation that are also sent with lone surrogates (each as 18 requests).
SURROGATE_EXAMPLES = 5


def sse_events(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    name = ""
    for line in lines:
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            yield name, json.loads(line[6:])


@pytest.mark.parametrize("loop", LOOPS)
def test_a_confirmed_search_over_real_http_with_sse(
    service_runtime: Runtime, fake_model: FakeModel, loop: str
) -> None:
    service_runtime.policy.set("web_access_enabled", True)
    fake_model.script(tool_call("web_search", {"query": "otters"}), text("Otters swim."))
    with running_service(service_runtime, loop=loop) as (base, token):
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


@pytest.mark.parametrize("loop", LOOPS)
def test_a_client_that_goes_away_stops_the_turn_and_keeps_what_was_said(
    service_runtime: Runtime, fake_model: FakeModel, loop: str
) -> None:
    fake_model.script(
        Reply(deltas=[{"content": "Partial "}] + [{"content": "x"}] * 200, delay=0.02)
    )
    history = SQLiteHistory(service_runtime.paths.database_file, retention_days=30)
    with running_service(service_runtime, loop=loop) as (base, token):
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


@pytest.mark.parametrize("loop", LOOPS)
def test_the_real_web_search_runs_through_the_service_against_a_searxng_server(
    paths: Paths, fake_model: FakeModel, searxng: SearXNGShaped, loop: str
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
        running_service(runtime, loop=loop) as (base, token),
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
        "n": 1,
        "cited": False,
    }
    assert done["text"] == "Otters are mammals."


def _with_surrogates(value: Any, *, keys_from: int | None, depth: int = 0) -> Any:
    """``value`` with a lone surrogate appended to every string and, from nesting depth
    ``keys_from`` on, a key made of one added to every object: what a JSON body may escape
    but UTF-8 cannot hold."""
    if isinstance(value, str):
        return value + "\ud800"
    if isinstance(value, dict):
        mutated = {
            k: _with_surrogates(v, keys_from=keys_from, depth=depth + 1) for k, v in value.items()
        }
        if keys_from is not None and depth >= keys_from:
            mutated["\udc80"] = "x"
        return mutated
    if isinstance(value, list):
        return [_with_surrogates(item, keys_from=keys_from, depth=depth + 1) for item in value]
    return value


def _object_fields(document: dict[str, Any], path: str, method: str) -> list[str]:
    """The names of the object-typed fields of an operation's JSON body."""
    operation = document["paths"][path][method.lower()]
    schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    schema = schema.get("schema", {})
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return [
        name
        for name, field in schema.get("properties", {}).items()
        if field.get("type") == "object" and "properties" not in field
    ]


def test_schemathesis_finds_no_server_error(
    service_runtime: Runtime, fake_model: FakeModel
) -> None:
    """Every operation with generated input, then the same bodies carrying lone surrogates
    (which Schemathesis itself never generates: it keeps to what UTF-8 can encode)."""
    service_runtime.policy.set("web_access_enabled", True)
    with running_service(service_runtime) as (base, token):
        headers = {"Authorization": f"Bearer {token}"}
        raw = httpx.get(f"{base}/openapi.json", headers=headers, trust_env=False).json()
        schema = schemathesis.openapi.from_dict(raw)
        failures: list[str] = []
        surrogate_calls = 0
        seen: dict[str, int] = {}  # examples per operation so far; the first few get surrogates
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
                nonlocal surrogate_calls
                response = case.call(base_url=base, headers=headers)
                outcomes = [response]
                paths = [case.formatted_path]
                if "{name}" in case.operation.path:
                    # Random capability names stop at "unknown": also reach validation.
                    paths = [case.operation.path.replace("{name}", n) for n in CAPABILITIES]
                key = f"{case.method} {case.operation.path}"
                seen[key] = seen.get(key, 0) + 1
                if not isinstance(case.body, dict | list | str) or seen[key] > SURROGATE_EXAMPLES:
                    paths = []
                bodies = [case.body]
                if isinstance(case.body, dict):
                    # Optional scalars (a version, a token) often stop a call before its
                    # nested objects are read; a variant has only the declared objects.
                    declared = _object_fields(raw, case.operation.path, case.method)
                    bodies.append({name: case.body.get(name) or {} for name in declared})
                for path, keys_from, base_body in itertools.product(paths, (None, 0, 1), bodies):
                    # Escaped by json.dumps, so the bytes on the wire are valid UTF-8.
                    body = json.dumps(_with_surrogates(base_body, keys_from=keys_from))
                    outcomes.append(
                        httpx.request(
                            case.method,
                            base + path,
                            params=case.query or None,
                            content=body,
                            headers={**headers, "Content-Type": "application/json"},
                            trust_env=False,
                            timeout=30,
                        )
                    )
                    surrogate_calls += 1
                for answered in outcomes:
                    if answered.status_code >= 500:
                        failures.append(
                            f"{case.method} {case.formatted_path}: "
                            f"{answered.status_code} {answered.text[:200]}"
                        )

            check()
    assert surrogate_calls > 0
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


def test_the_service_loads_the_capabilities_implementations_when_it_starts(home: Path) -> None:
    # A command imports them on first use; a long-running service pays once, at start, so the
    # first call someone waits for is not the slow one.
    probe = (
        "import json, sys\n"
        "from spyglass.capabilities import IMPLEMENTATIONS\n"
        "from spyglass.runtime import build_runtime\n"
        "before = [m for m in IMPLEMENTATIONS if m in sys.modules]\n"
        "from spyglass.service.app import create_app\n"
        "create_app(build_runtime())\n"
        "after = [m for m in IMPLEMENTATIONS if m in sys.modules]\n"
        "print(json.dumps([before, after]))\n"
    )
    done = run_python(home, probe)
    assert done.returncode == 0, done.stderr
    before, after = last_json(done.stdout)
    # The route modules come with the capabilities' readiness checks; the rest did not.
    assert {"spyglass.fetch.fetcher", "spyglass.privacy.check"}.isdisjoint(before)
    assert after == list(IMPLEMENTATIONS)
