"""Several real ``spyglass serve`` processes on one Redis and one PostgreSQL.

Each process has its own home (only the API token is the same, as behind a reverse proxy):
everything they share goes through the servers. Executions are counted at the search
provider, a SearXNG-shaped loopback server.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from spyglass.core.policy import WEB_ACCESS
from spyglass.state.postgres import PostgresPolicy, upgrade
from tests.support.fake_model import FakeModel, Reply, text, tool_call
from tests.support.searxng import SearXNGShaped
from tests.support.serve_process import ServeProcess
from tests.support.state_servers import PostgresServer, RedisServer, other_clients

MESSAGE = "/api/v1/conversation/message"
TOKEN = "shared-api-token-for-the-tests-0123456789abcdef"
LEASE_SECONDS = 2


def brain(body: dict[str, Any]) -> Reply:
    """Search once, then answer from the result."""
    if body["messages"][-1]["role"] == "tool":
        return text("Otters are mustelids.")
    return tool_call("web_search", {"query": "otters"})


@pytest.fixture(scope="module")
def model() -> Iterator[FakeModel]:
    with FakeModel(default=brain) as server:
        yield server


@pytest.fixture(scope="module")
def searxng_server() -> Iterator[SearXNGShaped]:
    with SearXNGShaped() as server:
        yield server


@pytest.fixture
def searxng(searxng_server: SearXNGShaped) -> SearXNGShaped:
    """The provider, with this test's count of executions starting at zero."""
    searxng_server.queries.clear()
    searxng_server.hold = None
    return searxng_server


@pytest.fixture(scope="module")
def shared_env(
    redis_server: RedisServer,
    postgres_server: PostgresServer,
    model: FakeModel,
    searxng_server: SearXNGShaped,
) -> dict[str, str]:
    database_url = postgres_server.new_database()
    upgrade(database_url, 5)
    policy = PostgresPolicy(database_url, timeout=5)
    policy.set(WEB_ACCESS, True)
    policy.close()
    return {
        "SPYGLASS_STATE__BACKEND": "shared",
        "SPYGLASS_STATE__REDIS_URL": redis_server.url,
        "SPYGLASS_STATE__DATABASE_URL": database_url,
        "SPYGLASS_STATE__LEASE_SECONDS": str(LEASE_SECONDS),
        "SPYGLASS_STATE__CONNECT_TIMEOUT_SECONDS": "1",
        "SPYGLASS_LLM__BASE_URL": model.base_url,
        "SPYGLASS_LLM__MODEL": "fake",
        "SPYGLASS_SEARCH__PROVIDERS": "searxng",
        "SPYGLASS_SEARCH__SEARXNG__BASE_URL": searxng_server.base_url,
    }


class Pair:
    """Two processes started once for the module; one killed by a test is started again."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root, self.env = root, env
        self.processes = [self._start(0), self._start(1)]

    def _start(self, number: int) -> ServeProcess:
        return ServeProcess(self.root / f"p{number}", self.env, api_token=TOKEN)

    def alive(self) -> tuple[ServeProcess, ServeProcess]:
        for number, process in enumerate(self.processes):
            if process.process.poll() is not None:
                process.stop()
                self.processes[number] = self._start(number)
        return self.processes[0], self.processes[1]

    def stop(self) -> None:
        for process in self.processes:
            process.stop()


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory, shared_env: dict[str, str]) -> Iterator[Pair]:
    pair = Pair(tmp_path_factory.mktemp("processes"), shared_env)
    yield pair
    pair.stop()


@pytest.fixture
def pair(running: Pair, model: FakeModel) -> tuple[ServeProcess, ServeProcess]:
    model.forget_script()  # nothing left over from another test
    return running.alive()


def approval(turn: dict[str, Any]) -> dict[str, Any]:
    token = turn["pending_confirmation"]["token"]
    return {
        "conversation_id": turn["conversation_id"],
        "confirmation": {"token": token, "approve": True},
    }


async def test_one_approval_raced_twenty_ways_across_two_processes_runs_once(
    pair: tuple[ServeProcess, ServeProcess], searxng: SearXNGShaped
) -> None:
    a, b = pair
    async with a.client() as at_a, b.client() as at_b:
        first = await at_a.post(MESSAGE, json={"text": "Tell me about otters"})
        assert first.status_code == 200, first.text
        body = approval(first.json())
        responses = await asyncio.gather(*(c.post(MESSAGE, json=body) for c in [at_a, at_b] * 10))
        statuses = sorted(r.status_code for r in responses)
        winner = next(r for r in responses if r.status_code == 200).json()
        history = await at_b.get(f"/api/v1/conversations/{winner['conversation_id']}")
    assert statuses == [200] + [400] * 19
    assert all(
        r.json()["error"]["code"] == "INVALID_CONFIRMATION"
        for r in responses
        if r.status_code == 400
    )
    assert searxng.queries == ["otters"]
    assert winner["text"] == "Otters are mustelids."
    texts = [m["text"] for m in history.json()["messages"]]
    assert texts == ["Tell me about otters", "Otters are mustelids."]


async def test_a_turn_paused_at_one_process_is_approved_at_the_other(
    pair: tuple[ServeProcess, ServeProcess], searxng: SearXNGShaped
) -> None:
    a, b = pair
    async with a.client() as at_a, b.client() as at_b:
        first = await at_a.post(MESSAGE, json={"text": "Tell me about otters"})
        done = await at_b.post(MESSAGE, json=approval(first.json()))
    assert done.status_code == 200, done.text
    assert done.json()["events"][0]["status"] == "ok"
    assert searxng.queries == ["otters"]


async def test_a_console_session_from_one_process_is_valid_at_the_other(
    pair: tuple[ServeProcess, ServeProcess],
) -> None:
    a, b = pair
    async with a.client() as at_a:
        code = (await at_a.post("/api/v1/login-codes")).json()["code"]
    async with httpx.AsyncClient(trust_env=False, timeout=30) as browser:
        login = await browser.get(f"{b.base_url}/login?code={code}")
        assert login.status_code == 303
        cookie = login.cookies["spyglass_session"]
        again = await browser.get(f"{a.base_url}/login?code={code}")
    async with httpx.AsyncClient(trust_env=False, timeout=30) as elsewhere:
        session = await elsewhere.get(
            f"{a.base_url}/api/v1/session", headers={"Cookie": f"spyglass_session={cookie}"}
        )
    assert again.status_code == 401  # the code was single use across both processes
    assert session.status_code == 200 and session.json()["csrf_token"]


@pytest.fixture
def own_model() -> Iterator[FakeModel]:
    with FakeModel(default=brain) as server:
        yield server


@pytest.fixture
def own_pair(
    tmp_path: Path, shared_env: dict[str, str], own_model: FakeModel
) -> Iterator[tuple[ServeProcess, ServeProcess]]:
    """Two processes of this test's own (one is killed), on this test's own model."""
    env = {**shared_env, "SPYGLASS_LLM__BASE_URL": own_model.base_url}
    with (
        ServeProcess(tmp_path / "a", env, api_token=TOKEN) as a,
        ServeProcess(tmp_path / "b", env, api_token=TOKEN) as b,
    ):
        yield a, b


async def test_a_turn_whose_process_is_killed_mid_turn_is_carried_on_elsewhere_once(
    own_pair: tuple[ServeProcess, ServeProcess], searxng: SearXNGShaped, own_model: FakeModel
) -> None:
    a, b = own_pair
    model = own_model
    async with a.client() as at_a, b.client() as at_b:
        first = (await at_a.post(MESSAGE, json={"text": "Tell me about otters"})).json()
        body = approval(first)
        # The answer after the search is slow: A is killed while the model "thinks".
        model.script(Reply(deltas=[{"content": "never"}] * 50, delay=0.2))
        asked = len(model.requests)
        approving = asyncio.ensure_future(at_a.post(MESSAGE, json=body))
        deadline = time.monotonic() + 30
        while len(model.requests) == asked and time.monotonic() < deadline:
            await asyncio.sleep(0.02)  # polling for A's model request, with a deadline
        assert len(model.requests) == asked + 1, "A never asked the model after the search"
        a.kill()
        with pytest.raises(httpx.HTTPError):
            await approving
        # Once A's lease lapses (within it B answers 400: see the store contract tests), the
        # same approval carries the turn on at B from where A left it.
        deadline = time.monotonic() + 20
        while True:
            late = await at_b.post(MESSAGE, json=body)
            if late.status_code == 200 or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)  # polling for the lease to lapse, with a deadline
        assert late.status_code == 200, late.text
        again = await at_b.post(MESSAGE, json=body)
        history = await at_b.get(f"/api/v1/conversations/{first['conversation_id']}")
    result = late.json()
    assert searxng.queries == ["otters"]  # the search ran once, before the kill
    assert [e["status"] for e in result["events"]] == ["ok"]
    assert result["text"] == "Otters are mustelids."
    assert again.status_code == 400  # finished: the approval is spent
    messages = history.json()["messages"]
    assert [(m["role"], m["text"]) for m in messages] == [
        ("user", "Tell me about otters"),
        ("assistant", "Otters are mustelids."),
    ]


async def test_a_search_at_the_provider_when_its_process_is_killed_is_told_as_maybe_sent(
    own_pair: tuple[ServeProcess, ServeProcess], searxng: SearXNGShaped, shared_env: dict[str, str]
) -> None:
    a, b = own_pair
    with psycopg.connect(shared_env["SPYGLASS_STATE__DATABASE_URL"]) as db:
        started_at = db.execute("SELECT now()").fetchone()[0]
    searxng.hold = threading.Event()
    try:
        async with a.client() as at_a, b.client() as at_b:
            first = (await at_a.post(MESSAGE, json={"text": "Tell me about otters"})).json()
            body = approval(first)
            approving = asyncio.ensure_future(at_a.post(MESSAGE, json=body))
            deadline = time.monotonic() + 30
            while not searxng.queries and time.monotonic() < deadline:
                await asyncio.sleep(0.02)  # polling for the search to reach the provider
            assert searxng.queries == ["otters"], "A's search never reached the provider"
            # Killed while the provider holds the search: it has left, with no answer back.
            a.kill()
            searxng.hold.set()
            with pytest.raises(httpx.HTTPError):
                await approving
            deadline = time.monotonic() + 20
            while True:
                late = await at_b.post(MESSAGE, json=body)
                if late.status_code == 200 or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)  # polling for the lease to lapse, with a deadline
            assert late.status_code == 200, late.text
            history = await at_b.get(f"/api/v1/conversations/{first['conversation_id']}")
            receipts = await at_b.get("/api/v1/receipts")
    finally:
        searxng.hold.set()
    result = late.json()
    assert searxng.queries == ["otters"]  # never sent twice
    event = result["events"][0]
    assert event["status"] == "failed" and event["code"] == "INTERRUPTED"
    assert result["receipt"]["left_device"] is True
    assert "may have been sent" in result["receipt"]["summary"]
    stored = history.json()["messages"][-1]["receipt"]
    assert stored["left_device"] is True
    mine = [r for r in receipts.json()["receipts"] if r["turn_id"] == result["turn_id"]]
    assert mine and mine[-1]["receipt"]["left_device"] is True
    # The attempt the killed process started ends in the audit log once, as interrupted.
    with psycopg.connect(shared_env["SPYGLASS_STATE__DATABASE_URL"]) as db:
        rows = db.execute(
            "SELECT event FROM audit_events WHERE recorded_at >= %s", (started_at,)
        ).fetchall()
    ends = [row[0] for row in rows if row[0].get("code") == "INTERRUPTED"]
    assert len(ends) == 1 and ends[0]["capability"] == "web.search"


async def test_an_approval_taken_by_a_process_killed_before_its_call_started_runs_it_elsewhere(
    own_pair: tuple[ServeProcess, ServeProcess],
    searxng: SearXNGShaped,
    shared_env: dict[str, str],
) -> None:
    a, b = own_pair
    database_url = shared_env["SPYGLASS_STATE__DATABASE_URL"]
    async with a.client() as at_a, b.client() as at_b:
        first = (await at_a.post(MESSAGE, json={"text": "Tell me about otters"})).json()
        body = approval(first)
        with (
            psycopg.connect(database_url, autocommit=True) as blocker,
            psycopg.connect(database_url, autocommit=True) as watcher,
        ):
            # A takes the turn and its approval, then waits for the owner's switches: a
            # restart of PostgreSQL at this precise moment. A is killed there.
            blocker.execute(b"BEGIN")
            blocker.execute(b"LOCK TABLE policy IN ACCESS EXCLUSIVE MODE")
            approving = asyncio.ensure_future(at_a.post(MESSAGE, json=body))
            deadline = time.monotonic() + 30
            while not await asyncio.to_thread(policy_read_waits, watcher):
                assert time.monotonic() < deadline, "A never reached the policy read"
            a.kill()
            blocker.execute(b"COMMIT")
        with pytest.raises(httpx.HTTPError):
            await approving
        deadline = time.monotonic() + 20
        while True:
            late = await at_b.post(MESSAGE, json=body)
            if late.status_code == 200 or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)  # polling for the lease to lapse, with a deadline
        assert late.status_code == 200, late.text
        again = await at_b.post(MESSAGE, json=body)
    result = late.json()
    # The search never reached the provider at A: B runs it under the approval A took, once.
    assert [e["status"] for e in result["events"]] == ["ok"]
    assert searxng.queries == ["otters"]
    assert result["text"] == "Otters are mustelids."
    assert again.status_code == 400


async def test_an_approval_that_meets_a_postgresql_outage_is_answered_503_and_can_be_sent_again(
    pair: tuple[ServeProcess, ServeProcess],
    searxng: SearXNGShaped,
    shared_env: dict[str, str],
) -> None:
    a, b = pair
    database_url = shared_env["SPYGLASS_STATE__DATABASE_URL"]
    async with a.client() as at_a, b.client() as at_b:
        first = (await at_a.post(MESSAGE, json={"text": "Tell me about otters"})).json()
        body = approval(first)
        with (
            psycopg.connect(database_url, autocommit=True) as blocker,
            psycopg.connect(database_url, autocommit=True) as watcher,
        ):
            # B takes the turn and its approval, then reads the owner's switches while
            # PostgreSQL goes away: each read's connection is cut as it waits.
            blocker.execute(b"BEGIN")
            blocker.execute(b"LOCK TABLE policy IN ACCESS EXCLUSIVE MODE")
            approving = asyncio.ensure_future(at_b.post(MESSAGE, json=body))
            deadline = time.monotonic() + 60
            while not approving.done():
                assert time.monotonic() < deadline, "the approval never answered"
                await asyncio.to_thread(cut_policy_reads, watcher)
                await asyncio.sleep(0.05)  # polling the cut, with a deadline
            blocker.execute(b"COMMIT")
        refused = await approving
        # Nothing left the device, and the turn waits with its token: 503, not a turn that
        # ends with its call refused.
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"]["code"] == "STORE_UNAVAILABLE"
        assert searxng.queries == []
        # The same approval, sent again once PostgreSQL is back (to either process), runs
        # the call once.
        done = await at_a.post(MESSAGE, json=body)
        again = await at_b.post(MESSAGE, json=body)
        history = await at_a.get(f"/api/v1/conversations/{first['conversation_id']}")
    assert done.status_code == 200, done.text
    assert [e["status"] for e in done.json()["events"]] == ["ok"]
    assert searxng.queries == ["otters"]
    assert again.status_code == 400
    assert history.json()["messages"][-1]["text"] == "Otters are mustelids."


def cut_policy_reads(watcher: psycopg.Connection[Any]) -> None:
    """Ends every server process waiting to read the owner's switches, as a restart would."""
    watcher.execute(
        b"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        b"AND query LIKE 'SELECT key, enabled FROM policy%'"
    )


def policy_read_waits(watcher: psycopg.Connection[Any]) -> bool:
    row = watcher.execute(
        b"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        b"AND query LIKE 'SELECT key, enabled FROM policy%'"
    ).fetchone()
    return row is not None and row[0] >= 1


async def test_with_redis_down_calls_fail_closed_and_health_says_so_until_it_is_back(
    pair: tuple[ServeProcess, ServeProcess], redis_server: RedisServer, searxng: SearXNGShaped
) -> None:
    a, b = pair
    async with a.client() as at_a, b.client() as at_b:
        first = (await at_a.post(MESSAGE, json={"text": "Tell me about otters"})).json()
        redis_server.stop()
        try:
            health = await at_a.get("/api/v1/health")
            refused = await at_b.post(MESSAGE, json=approval(first))
            direct = await at_b.post(
                "/api/v1/capabilities/web.search/invoke", json={"arguments": {"query": "x"}}
            )
        finally:
            redis_server.start()
        assert health.status_code == 503
        assert health.json()["stores"]["redis"]["status"] == "down"
        assert health.json()["stores"]["postgresql"]["status"] == "ok"
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == "STORE_UNAVAILABLE"
        assert direct.status_code == 200
        assert direct.json()["error"]["code"] == "STORE_UNAVAILABLE"
        assert searxng.queries == []  # nothing ran unconfirmed
        # Back: both processes reconnect on their own.
        healthy = [(await c.get("/api/v1/health")).status_code for c in (at_a, at_b)]
        turn = (await at_b.post(MESSAGE, json={"text": "again"})).json()
        assert turn.get("pending_confirmation"), turn
        done = await at_a.post(MESSAGE, json=approval(turn))
    assert healthy == [200, 200]
    assert done.status_code == 200 and searxng.queries == ["otters"]
    json.dumps(done.json())


#: What one approval round trip (ask, then approve, through
#: ``POST /api/v1/capabilities/web.search/invoke``) asks of PostgreSQL: each request's
#: authentication (the person's profile, one SELECT) and policy read (one SELECT), the
#: approved call counted (one statement), and each request's audit event (one INSERT).
#: No BEGIN or COMMIT: every one of them is a statement on its own.
STATEMENTS_PER_APPROVAL = 7


def statements(log: str) -> list[str]:
    """The statements PostgreSQL logged (``log_statement = all``), one line each."""
    found = []
    for line in log.splitlines():
        _, marker, statement = line.partition("LOG:  ")
        if marker and statement.startswith(("statement: ", "execute ")):
            found.append(statement)
    return found


async def test_an_approval_round_trip_makes_seven_postgresql_statements_and_no_transaction(
    tmp_path: Path,
    postgres_server: PostgresServer,
    shared_env: dict[str, str],
) -> None:
    database_url = postgres_server.new_database()
    upgrade(database_url, 5)
    policy = PostgresPolicy(database_url, timeout=5)
    policy.set(WEB_ACCESS, True)
    policy.close()
    name = database_url.rsplit("/", 1)[1]
    with psycopg.connect(database_url, autocommit=True) as db:
        # Only this database's sessions log their statements, and only those started later.
        db.execute(f"ALTER DATABASE \"{name}\" SET log_statement = 'all'".encode())
    env = shared_env | {"SPYGLASS_STATE__DATABASE_URL": database_url}
    invoke = "/api/v1/capabilities/web.search/invoke"
    with ServeProcess(tmp_path / "home", env, api_token=TOKEN) as process:
        async with process.client() as client:

            async def round_trip(number: int) -> None:
                arguments = {"query": f"counted {number}"}
                asked = await client.post(invoke, json={"arguments": arguments})
                token = asked.json()["pending_confirmation"]["token"]
                done = await client.post(
                    invoke,
                    json={
                        "arguments": arguments,
                        "confirmation": {"token": token, "approve": True},
                    },
                )
                assert done.json()["status"] == "ok", done.text

            await round_trip(0)  # connections made, statements prepared
            start = postgres_server.log.stat().st_size
            for number in range(1, 4):
                await round_trip(number)
            # Every audit event is written before its answer: nothing is still on its way.
            with postgres_server.log.open("rb") as handle:
                handle.seek(start)
                made = statements(handle.read().decode("utf-8", "replace"))
    assert len(made) == 3 * STATEMENTS_PER_APPROVAL, "\n".join(made)
    assert not [s for s in made if s.split(": ", 1)[-1].startswith(("BEGIN", "COMMIT"))]


async def test_a_process_on_the_same_computer_reaches_both_servers_through_their_unix_sockets(
    tmp_path: Path,
    redis_server: RedisServer,
    postgres_server: PostgresServer,
    shared_env: dict[str, str],
    searxng: SearXNGShaped,
) -> None:
    database_url = postgres_server.new_database()  # no other process connected to it
    upgrade(database_url, 5)
    policy = PostgresPolicy(database_url, timeout=5)
    policy.set(WEB_ACCESS, True)
    policy.close()
    env = shared_env | {
        "SPYGLASS_STATE__REDIS_URL": redis_server.unix_url,
        "SPYGLASS_STATE__DATABASE_URL": postgres_server.unix_url(database_url),
    }
    invoke = "/api/v1/capabilities/web.search/invoke"
    arguments = {"query": "otters by socket"}
    with ServeProcess(tmp_path / "home", env, api_token=TOKEN) as process:
        async with process.client() as client:
            health = await client.get("/api/v1/health")
            asked = await client.post(invoke, json={"arguments": arguments})
            token = asked.json()["pending_confirmation"]["token"]
            done = await client.post(
                invoke,
                json={"arguments": arguments, "confirmation": {"token": token, "approve": True}},
            )
        # Every connection the process made to PostgreSQL came through the socket (no
        # client address), and Redis has a client on its socket (the server is shared with
        # other tests, whose clients come by TCP).
        addresses = [address for _, address in other_clients(database_url)]
        clients = redis_client_addresses(redis_server)
    assert health.status_code == 200, health.text
    assert done.json()["status"] == "ok", done.text
    assert searxng.queries == ["otters by socket"]
    assert addresses and all(address is None for address in addresses)
    assert any(address.startswith("/") for address in clients), clients


def redis_client_addresses(server: RedisServer) -> list[str]:
    """The address of every client connected to ``server`` (a path for a Unix socket)."""
    import redis

    with redis.Redis.from_url(server.url) as admin:
        listed = admin.client_list()
    return [str(client.get("addr", "")) for client in listed]
