"""The accounts store: the same answers on SQLite (embedded) and PostgreSQL (shared)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from spyglass.accounts.holders import NOBODY
from spyglass.accounts.model import OWNER_ID, AccountError
from spyglass.accounts.roles import Role
from spyglass.accounts.store import API_TOKEN, LOGIN, SESSION, AccountStore
from spyglass.state.postgres import PostgresHistory
from spyglass.state.sqlite.migrations import STATE_MIGRATIONS as MIGRATIONS
from spyglass.state.sqlite.statefile import StateDB
from tests.accounts.support import Clock


async def test_a_fresh_install_has_exactly_one_account_the_owner(store: AccountStore) -> None:
    accounts = await store.all()
    assert [(a.id, a.name, a.role) for a in accounts] == [(OWNER_ID, "owner", Role.OWNER)]


async def test_an_added_account_is_found_by_id_and_by_name_in_any_case(
    store: AccountStore,
) -> None:
    added = await store.create("Sam", Role.MEMBER)
    assert added.name == "sam"
    assert await store.get(added.id) == added
    assert await store.find("SAM") == added
    assert [a.name for a in await store.all()] == ["owner", "sam"]


async def test_a_second_account_with_the_same_name_is_refused(store: AccountStore) -> None:
    await store.create("sam", Role.MEMBER)
    with pytest.raises(AccountError, match="already an account called 'sam'"):
        await store.create("Sam", Role.CHILD)


@pytest.mark.parametrize("name", ["", " ", "a b", "-x", "x" * 41, "ünï", "a/b"])
async def test_a_name_that_is_not_a_simple_word_is_refused_with_the_rule(
    store: AccountStore, name: str
) -> None:
    with pytest.raises(AccountError, match="1 to 40 letters"):
        await store.create(name, Role.MEMBER)


async def test_the_last_owner_can_be_neither_demoted_nor_disabled_nor_removed(
    store: AccountStore,
) -> None:
    with pytest.raises(AccountError, match="only owner"):
        await store.update(OWNER_ID, role=Role.MEMBER)
    with pytest.raises(AccountError, match="only owner"):
        await store.update(OWNER_ID, disabled=True)
    with pytest.raises(AccountError, match="only owner"):
        await store.remove(OWNER_ID)
    second = await store.create("pat", Role.OWNER)
    assert (await store.update(OWNER_ID, role=Role.MEMBER)).role is Role.MEMBER
    assert (await store.get(second.id)) is not None


async def test_overrides_merge_and_a_none_removes_one(store: AccountStore) -> None:
    kid = await store.create("kid", Role.CHILD)
    changed = await store.update(kid.id, overrides={"deny_domains": ["example.com"]})
    changed = await store.update(kid.id, overrides={"daily_budget": 5})
    assert changed.deny_domains == ("example.com",)
    assert changed.daily_budget == 5
    changed = await store.update(kid.id, overrides={"deny_domains": None, "daily_budget": None})
    assert changed.deny_domains == ()
    assert changed.daily_budget is None  # an explicit "no limit"


async def test_a_login_code_signs_its_account_in_once(store: AccountStore, clock: Clock) -> None:
    sam = await store.create("sam", Role.MEMBER)
    code = await store.issue(sam.id, LOGIN, 600)
    found = await store.resolve(LOGIN, code, consume=True)
    assert found is not None and found.id == sam.id
    assert await store.resolve(LOGIN, code, consume=True) is None


async def test_an_expired_login_code_signs_nobody_in(store: AccountStore, clock: Clock) -> None:
    sam = await store.create("sam", Role.MEMBER)
    code = await store.issue(sam.id, LOGIN, 600)
    clock.now += 601
    assert await store.resolve(LOGIN, code, consume=True) is None


async def test_a_credential_of_one_kind_is_not_another(store: AccountStore) -> None:
    sam = await store.create("sam", Role.MEMBER)
    code = await store.issue(sam.id, LOGIN, 600)
    assert await store.resolve(SESSION, code) is None
    assert await store.resolve(API_TOKEN, code) is None


async def test_a_new_api_token_replaces_the_old_one(store: AccountStore) -> None:
    sam = await store.create("sam", Role.MEMBER)
    first = await store.issue(sam.id, API_TOKEN, None)
    second = await store.issue(sam.id, API_TOKEN, None)
    assert await store.resolve(API_TOKEN, first) is None
    found = await store.resolve(API_TOKEN, second)
    assert found is not None and found.id == sam.id


async def test_disabling_an_account_signs_it_out_everywhere(store: AccountStore) -> None:
    sam = await store.create("sam", Role.MEMBER)
    token = await store.issue(sam.id, API_TOKEN, None)
    session = await store.issue(sam.id, SESSION, 3600)
    await store.update(sam.id, disabled=True)
    assert await store.resolve(API_TOKEN, token) is None
    assert await store.resolve(SESSION, session) is None
    await store.update(sam.id, disabled=False)
    assert await store.resolve(API_TOKEN, token) is None  # re-enabling restores nothing


async def test_re_enabling_a_disabled_person_does_not_revive_their_old_console_sessions(
    store: AccountStore,
) -> None:
    sam = await store.create("sam", Role.MEMBER)
    old = await store.issue(sam.id, SESSION, 3600)
    await store.update(sam.id, disabled=True)
    await store.update(sam.id, disabled=False)
    assert await store.session(old) is None  # signed out for good, not "unbound" (the owner)
    assert await store.resolve(SESSION, old) is None
    fresh = await store.issue(sam.id, SESSION, 3600)
    found = await store.session(fresh)
    assert found != "unbound" and found is not None and found.id == sam.id


async def test_a_console_session_names_its_person_until_it_expires_or_they_go(
    store: AccountStore, clock: Clock
) -> None:
    sam = await store.create("sam", Role.MEMBER)
    ada = await store.create("ada", Role.MEMBER)
    sams = await store.issue(sam.id, SESSION, 3600)
    adas = await store.issue(ada.id, SESSION, 7200)
    found = await store.session(sams)
    assert found != "unbound" and found is not None and found.id == sam.id
    # A session bound to nobody is one from before accounts existed.
    assert await store.session("a-session-from-before-accounts") == "unbound"
    await store.update(sam.id, disabled=True)
    assert await store.session(sams) is None
    await store.update(sam.id, disabled=False)
    await store.remove(sam.id)
    assert await store.session(sams) is None  # its binding names an account that is gone
    clock.now += 7201
    assert await store.session(adas) is None


async def test_an_api_token_is_not_spent_by_signing_in_with_it(store: AccountStore) -> None:
    sam = await store.create("sam", Role.MEMBER)
    token = await store.issue(sam.id, API_TOKEN, None)
    for _ in range(2):
        found = await store.resolve(API_TOKEN, token)
        assert found is not None and found.id == sam.id


async def test_credentials_are_kept_only_as_digests(tmp_path: Path, clock: Clock) -> None:
    from spyglass.state.sqlite.accounts import SQLiteRunner

    db = StateDB(tmp_path / "state.db", clock)
    store = AccountStore(SQLiteRunner(db), clock)
    sam = await store.create("sam", Role.MEMBER)
    token = await store.issue(sam.id, API_TOKEN, None)
    await store.set_key(sam.id, "brave", "brave-key-of-sam")
    db.close()
    # Closing checkpoints the write-ahead log into the file.
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("state.db*"))
    assert token.encode() not in raw
    assert b"sam" in raw  # the file was read: the account is there, its token is not


async def test_the_daily_budget_is_counted_atomically_and_resets_the_next_day(
    store: AccountStore,
) -> None:
    kid = await store.create("kid", Role.CHILD)
    answers = await asyncio.gather(*(store.spend(kid.id, "2026-11-30", 3) for _ in range(6)))
    assert sorted(answers) == [False, False, False, True, True, True]
    assert await store.used(kid.id, "2026-11-30") == 3
    assert await store.spend(kid.id, "2026-12-01", 3)
    assert await store.used(kid.id, "2026-12-01") == 1


async def test_no_limit_counts_without_refusing(store: AccountStore) -> None:
    for _ in range(5):
        assert await store.spend(OWNER_ID, "2026-11-30", None)
    assert await store.used(OWNER_ID, "2026-11-30") == 5


async def test_the_install_secret_is_made_once_and_then_always_the_same(
    store: AccountStore,
) -> None:
    first, second = await asyncio.gather(store.install_secret("a"), store.install_secret("a"))
    assert first == second == await store.install_secret("a")
    assert await store.install_secret("b") != first


async def test_a_conversation_nobody_claimed_is_nobodys_not_the_owners(
    store: AccountStore,
) -> None:
    holder, shared = await store.holder("half-written")
    assert holder != OWNER_ID and not shared
    assert await store.conversations() == {}


async def test_conversations_from_before_accounts_are_adopted_as_the_owners_once(
    store: AccountStore,
) -> None:
    sam = await store.create("sam", Role.MEMBER)
    await store.claim("new", sam.id)

    async def in_history() -> list[str]:
        return ["old-1", "old-2", "new"]

    assert await store.adopt(in_history) == 2
    assert await store.holder("old-1") == (OWNER_ID, False)
    assert await store.holder("new") == (sam.id, False)
    # Once per install: a conversation written since is never the owner's by default.
    assert await store.adopt(lambda: in_history_later()) == 0
    assert (await store.holder("later"))[0] != OWNER_ID


async def ids(history: PostgresHistory) -> list[str]:
    return [c["id"] for c in await history.conversations()]


async def in_history_later() -> list[str]:
    return ["old-1", "old-2", "new", "later"]


async def test_a_conversation_is_claimed_once_and_cannot_change_hands_by_claiming(
    store: AccountStore,
) -> None:
    sam = await store.create("sam", Role.MEMBER)
    assert await store.claim("c1", sam.id) == sam.id
    assert await store.claim("c1", OWNER_ID) == sam.id
    await store.share("c1", True)
    assert await store.holder("c1") == (sam.id, True)


async def test_removing_an_account_returns_its_conversations_and_drops_its_secrets(
    store: AccountStore,
) -> None:
    sam = await store.create("sam", Role.MEMBER)
    await store.claim("c1", sam.id)
    await store.set_key(sam.id, "brave", "k")
    token = await store.issue(sam.id, API_TOKEN, None)
    assert await store.remove(sam.id) == ["c1"]
    assert await store.get(sam.id) is None
    assert await store.keys(sam.id) == {}
    assert await store.resolve(API_TOKEN, token) is None
    await store.hand_over(["c1"], OWNER_ID)
    assert await store.holder("c1") == (OWNER_ID, False)


async def test_a_waiting_call_is_decided_once_and_only_before_it_expires(
    store: AccountStore, clock: Clock
) -> None:
    kid = await store.create("kid", Role.CHILD)
    call_id = await store.ask(
        "tok", kid.id, "c1", "web.search", {"query": "otters"}, [], clock.now + 120
    )
    assert await store.decision("tok", kid.id) == "waiting"
    [waiting] = await store.waiting()
    assert (waiting.id, waiting.arguments, waiting.decision) == (
        call_id,
        {"query": "otters"},
        "waiting",
    )
    decided = await store.decide(call_id, OWNER_ID, approve=True)
    assert decided is not None and decided.decided_by == OWNER_ID
    assert await store.decide(call_id, OWNER_ID, approve=False) is None
    assert await store.decision("tok", kid.id) == "approved"
    # The same token presented for another person is not theirs: unknown.
    assert await store.decision("tok", OWNER_ID) == "unknown"
    late = await store.ask("tok2", kid.id, "c1", "web.search", {"query": "x"}, [], clock.now + 1)
    clock.now += 2
    assert await store.decide(late, OWNER_ID, approve=True) is None
    # Not approved in time counts as not approved.
    assert await store.decision("tok2", kid.id) == "denied"


def test_an_existing_single_owner_state_file_is_upgraded_with_its_owner_as_first_account(
    tmp_path: Path, clock: Clock
) -> None:
    path = tmp_path / "state.db"
    old = sqlite3.connect(path, isolation_level=None)
    old.executescript("BEGIN;" + MIGRATIONS[0] + "PRAGMA user_version = 1;COMMIT;")
    old.execute("INSERT INTO sessions(digest, csrf, expires_at) VALUES ('d', 'c', 1e12)")
    old.close()
    from spyglass.state.sqlite.accounts import SQLiteRunner

    db = StateDB(path, clock)
    assert db.upgrade() == len(MIGRATIONS)
    store = AccountStore(SQLiteRunner(db), clock)
    accounts = asyncio.run(store.all())
    assert [(a.id, a.role) for a in accounts] == [(OWNER_ID, Role.OWNER)]
    rows = db.run_blocking(lambda c: c.execute("SELECT digest FROM sessions").fetchall())
    assert rows == [("d",)]
    db.close()


def test_an_existing_postgresql_database_is_upgraded_with_its_owner_as_first_account(
    database_url: str, clock: Clock
) -> None:
    import psycopg

    from spyglass.state import postgres
    from spyglass.state.postgres.accounts import PostgresRunner

    # The database as the release before accounts left it: two migrations, one conversation.
    with psycopg.connect(database_url, autocommit=True) as db:
        db.execute("CREATE TABLE spyglass_schema (version INTEGER NOT NULL)")
        for number, migration in enumerate(postgres.MIGRATIONS[:2], start=1):
            db.execute(migration.encode())
            db.execute("INSERT INTO spyglass_schema(version) VALUES (%s)", (number,))
        db.execute(
            "INSERT INTO conversations(id, title, created_at, updated_at) "
            "VALUES ('old', 'Old', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')"
        )
    assert postgres.upgrade(database_url, 5) == len(postgres.MIGRATIONS)
    runner = PostgresRunner(database_url, timeout=5)
    store = AccountStore(runner, clock)
    try:
        accounts = asyncio.run(store.all())
        assert [(a.id, a.role) for a in accounts] == [(OWNER_ID, Role.OWNER)]
        # The service adopts history's conversations for the owner when it starts.
        history = postgres.PostgresHistory(database_url, retention_days=30, timeout=5)

        async def adopted() -> tuple[str, bool]:
            try:
                await store.adopt(lambda: ids(history))
                return await store.holder("old")
            finally:
                await history.close()

        assert asyncio.run(adopted()) == (OWNER_ID, False)
    finally:
        runner.close()


async def test_spending_as_an_account_reads_its_own_budget_and_refuses_a_disabled_one(
    store: AccountStore,
) -> None:
    kid = await store.create("kid", Role.CHILD)
    kid = await store.update(kid.id, overrides={"daily_budget": 1})
    assert await store.spend_as(kid.id, "2026-11-30") == kid
    assert await store.spend_as(kid.id, "2026-11-30") is None  # spent
    assert await store.spend_as("nobody", "2026-11-30") is None
    await store.update(kid.id, disabled=True)
    assert await store.spend_as(kid.id, "2026-12-01") is None
    account, keys, used = await store.profile(kid.id, "2026-11-30")
    assert (account is not None and account.disabled, keys, used) == (True, {}, 1)


async def test_the_last_calls_of_a_budget_spent_from_two_processes_at_once_pass_exactly_once(
    database_url: str, clock: Clock
) -> None:
    from spyglass.state.postgres import upgrade
    from spyglass.state.postgres.accounts import PostgresRunner

    upgrade(database_url, 5)
    runners = [PostgresRunner(database_url, timeout=5) for _ in range(2)]
    stores = [AccountStore(runner, clock) for runner in runners]
    try:
        kid = await stores[0].create("kid", Role.CHILD)
        await stores[0].update(kid.id, overrides={"daily_budget": 3})
        answers = await asyncio.gather(
            *(stores[n % 2].spend_as(kid.id, "2026-11-30") for n in range(10))
        )
        assert sum(answer is not None for answer in answers) == 3
        # The calls past the budget were counted and given back: the day shows three.
        assert await stores[1].used(kid.id, "2026-11-30") == 3
    finally:
        for runner in runners:
            runner.close()


async def test_reading_an_account_neither_waits_for_nor_blocks_another_processs_write(
    tmp_path: Path, clock: Clock
) -> None:
    from spyglass.state.sqlite.accounts import SQLiteRunner

    db = StateDB(tmp_path / "state.db", clock)
    store = AccountStore(SQLiteRunner(db), clock)
    sam = await store.create("sam", Role.MEMBER)
    # Another process in the middle of a write: it holds the state file's write lock.
    other = sqlite3.connect(tmp_path / "state.db", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("UPDATE accounts SET name = 'samuel' WHERE id = ?", (sam.id,))
        async with asyncio.timeout(3):  # a write lock would be waited for 10 s
            assert await store.get(sam.id) == sam
            assert (await store.profile(sam.id, "2026-11-30"))[0] == sam
            assert await store.holder("c1") == (NOBODY, False)
        other.execute("COMMIT")
    finally:
        other.close()
    # Once committed, the next read sees the change.
    found = await store.get(sam.id)
    assert found is not None and found.name == "samuel"
    db.close()
