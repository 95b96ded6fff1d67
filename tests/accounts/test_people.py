"""Each person's permissions, asked by the executor's policy stage for every front end."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import pytest

from spyglass.accounts.model import OWNER_ID, Account
from spyglass.accounts.people import FRESH_SECONDS, ProfileRead, personal_settings, today
from spyglass.accounts.roles import ALL_CAPABILITIES, ROLES, Role
from spyglass.core.actor import Actor
from spyglass.core.confirmation import TOKEN_TTL_SECONDS
from spyglass.core.context import InvocationContext
from spyglass.core.policy import WEB_ACCESS
from spyglass.core.registry import Registry
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime
from spyglass.settings import Settings
from tests.accounts.support import Clock
from tests.support import capabilities as fixtures

URL_ARGUMENTS = {
    "type": "object",
    "properties": {"url": {"type": "string"}, "text": {"type": "string"}},
    "additionalProperties": False,
}


class Ran:
    """Counts how often each fixture capability's handler really ran."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.keys: list[Any] = []

    def handler(self, name: str) -> Any:
        async def run(context: InvocationContext) -> dict[str, Any]:
            self.calls.append(name)
            brave = context.settings.search.provider("brave").api_key
            self.keys.append(None if brave is None else brave.get_secret_value())
            return {"echo": name}

        return run


@pytest.fixture
def ran() -> Ran:
    return Ran()


@pytest.fixture
def runtime(paths: Paths, ran: Ran) -> Runtime:
    """A runtime whose registry holds one fixture per capability name the role table knows,
    on the real embedded stores; web access is on."""
    registry = Registry(
        [
            fixtures.make(name, handler=ran.handler(name), argument_schema=URL_ARGUMENTS)
            for name in sorted(ALL_CAPABILITIES)
        ]
    )
    settings = Settings.model_validate({"search": {"brave": {"api_key": "owner-brave-key"}}})
    # The executor and every store follow this clock, which the tests move.
    built = build_runtime(paths, settings=settings, registry=registry, clock=Clock(time.time()))
    built.stores.upgrade()
    built.policy.set(WEB_ACCESS, True)
    return built


async def person(runtime: Runtime, role: Role, **overrides: Any) -> tuple[Account, Actor]:
    account = await runtime.accounts.create(f"p{len(await runtime.accounts.all())}", role)
    if overrides:
        account = await runtime.accounts.update(account.id, overrides=overrides)
    return account, await runtime.actors.actor(account)


async def approve(runtime: Runtime, name: str, arguments: dict[str, Any], actor: Actor) -> Any:
    executor = runtime.executor
    pending = await executor.ainvoke(name, None, arguments, channel="test", actor=actor)
    assert pending.status == "pending_confirmation", pending
    token = pending.pending_confirmation.token
    return await executor.ainvoke(
        name, None, arguments, channel="test", actor=actor, confirmation_token=token
    )


def audit(runtime: Runtime) -> list[dict[str, Any]]:
    return [json.loads(line) for line in runtime.paths.audit_file.read_text().splitlines()]


CASES = [(role, capability) for role in Role for capability in sorted(ALL_CAPABILITIES)]


@pytest.mark.parametrize(("role", "capability"), CASES, ids=[f"{r}-{c}" for r, c in CASES])
async def test_each_role_may_call_exactly_the_capabilities_its_row_of_the_table_allows(
    runtime: Runtime, role: Role, capability: str
) -> None:
    _, actor = await person(runtime, role)
    outcome = await runtime.executor.ainvoke(capability, None, {}, channel="test", actor=actor)
    if capability in ROLES[role].capabilities:
        assert outcome.status in ("ok", "pending_confirmation"), outcome
    else:
        assert (outcome.status, outcome.stage) == ("rejected", "policy")
        assert outcome.error is not None and outcome.error.code == "PERSON_NOT_ALLOWED"


async def test_the_owners_switch_off_overrides_every_persons_permissions(
    runtime: Runtime,
) -> None:
    runtime.policy.set(WEB_ACCESS, False)
    for role in Role:
        _, actor = await person(runtime, role)
        outcome = await runtime.executor.ainvoke(
            "web.search", None, {}, channel="test", actor=actor
        )
        assert outcome.error is not None and outcome.error.code == "POLICY_DISABLED"


async def test_a_persons_capability_list_only_narrows_their_role(
    runtime: Runtime, ran: Ran
) -> None:
    _, narrowed = await person(runtime, Role.MEMBER, capabilities=["web.search"])
    _, widened = await person(runtime, Role.CHILD, capabilities=["web.search", "web.fetch"])
    for actor in (narrowed, widened):
        outcome = await runtime.executor.ainvoke("web.fetch", None, {}, channel="t", actor=actor)
        assert outcome.error is not None and outcome.error.code == "PERSON_NOT_ALLOWED"
    assert ran.calls == []


async def test_a_persons_denied_site_is_refused_before_anyone_is_asked(
    runtime: Runtime,
) -> None:
    _, actor = await person(runtime, Role.MEMBER, deny_domains=["example.com"])
    for url in ("https://example.com/a", "https://WWW.Example.COM./b"):
        outcome = await runtime.executor.ainvoke(
            "web.fetch", None, {"url": url}, channel="t", actor=actor
        )
        assert (outcome.stage, outcome.error and outcome.error.reason) == ("policy", "domain")
    other = await runtime.executor.ainvoke(
        "web.fetch", None, {"url": "https://example.org/"}, channel="t", actor=actor
    )
    assert other.status == "pending_confirmation"


async def test_with_an_allow_list_only_those_sites_can_be_read(runtime: Runtime) -> None:
    _, actor = await person(runtime, Role.MEMBER, allow_domains=["wikipedia.org"])
    inside = await runtime.executor.ainvoke(
        "web.fetch", None, {"url": "https://en.wikipedia.org/wiki/Otter"}, channel="t", actor=actor
    )
    outside = await runtime.executor.ainvoke(
        "web.fetch", None, {"url": "https://example.org/"}, channel="t", actor=actor
    )
    assert inside.status == "pending_confirmation"
    assert outside.error is not None and outside.error.reason == "domain"


async def test_the_daily_budget_counts_calls_that_ran_and_refuses_the_next_one(
    runtime: Runtime, ran: Ran
) -> None:
    account, actor = await person(runtime, Role.GUEST, daily_budget=2)
    # Calls merely proposed are not counted: only what ran.
    for _ in range(3):
        proposed = await runtime.executor.ainvoke("web.search", None, {}, channel="t", actor=actor)
        assert proposed.status == "pending_confirmation"
    assert (await approve(runtime, "web.search", {}, actor)).ok
    assert (await approve(runtime, "system.health", {}, actor)).ok
    refused = await runtime.executor.ainvoke("web.search", None, {}, channel="t", actor=actor)
    assert (refused.stage, refused.error and refused.error.code) == ("policy", "BUDGET_EXCEEDED")
    assert ran.calls == ["web.search", "system.health"]
    assert await runtime.accounts.used(account.id, today(runtime.clock)) == 2


async def test_a_budget_of_zero_refuses_everything(runtime: Runtime) -> None:
    _, actor = await person(runtime, Role.MEMBER, daily_budget=0)
    outcome = await runtime.executor.ainvoke("system.health", None, {}, channel="t", actor=actor)
    assert outcome.error is not None and outcome.error.code == "BUDGET_EXCEEDED"


async def test_a_profile_read_as_the_request_was_authenticated_answers_its_check(
    runtime: Runtime,
) -> None:
    account, _ = await person(runtime, Role.MEMBER, daily_budget=3)
    day = today(runtime.executor.clock)
    # The read says the day's calls are used up; the store, where none were counted, would
    # not: the refusal shows the check took the request's read instead of a second one.
    spent = ProfileRead(account, {}, 3, day, time.monotonic())
    actor = await runtime.actors.actor(account, spent)
    outcome = await runtime.executor.ainvoke("system.health", None, {}, channel="t", actor=actor)
    assert outcome.error is not None and outcome.error.code == "BUDGET_EXCEEDED"


async def test_a_profile_read_too_old_or_of_another_day_is_read_again(runtime: Runtime) -> None:
    account, _ = await person(runtime, Role.MEMBER, daily_budget=3)
    day = today(runtime.executor.clock)
    stale = [
        ProfileRead(account, {}, 3, day, time.monotonic() - 2 * FRESH_SECONDS),
        ProfileRead(account, {}, 3, "1999-12-31", time.monotonic()),
    ]
    for read in stale:
        actor = await runtime.actors.actor(account, read)
        outcome = await runtime.executor.ainvoke(
            "system.health", None, {}, channel="t", actor=actor
        )
        assert outcome.error is None, outcome  # the store counted nothing: not refused


async def test_a_profile_read_of_someone_else_never_answers_for_this_person(
    runtime: Runtime,
) -> None:
    account, _ = await person(runtime, Role.MEMBER)
    other, _ = await person(runtime, Role.MEMBER, daily_budget=0)
    actor = await runtime.actors.actor(
        other, ProfileRead(account, {}, 0, today(runtime.executor.clock), time.monotonic())
    )
    outcome = await runtime.executor.ainvoke("system.health", None, {}, channel="t", actor=actor)
    assert outcome.error is not None and outcome.error.code == "BUDGET_EXCEEDED"


async def test_a_disabled_account_can_call_nothing(runtime: Runtime) -> None:
    account, actor = await person(runtime, Role.MEMBER)
    await runtime.accounts.update(account.id, disabled=True)
    outcome = await runtime.executor.ainvoke("system.health", None, {}, channel="t", actor=actor)
    assert outcome.error is not None and outcome.error.reason == "account"


async def test_the_audit_names_each_person_by_a_stable_pseudonym_never_by_name(
    runtime: Runtime,
) -> None:
    account, actor = await person(runtime, Role.MEMBER)
    again = await runtime.actors.actor(account)
    assert again.pseudonym == actor.pseudonym
    _, other = await person(runtime, Role.MEMBER)
    assert other.pseudonym != actor.pseudonym
    await runtime.executor.ainvoke("system.health", None, {}, channel="t", actor=actor)
    await runtime.executor.ainvoke("system.health", None, {}, channel="t")
    first, second = audit(runtime)
    assert first["actor"] == actor.pseudonym
    assert "actor" not in second
    text = runtime.paths.audit_file.read_text()
    assert account.name not in text and account.id not in text


async def test_a_token_proposed_for_one_person_does_nothing_for_another(
    runtime: Runtime, ran: Ran
) -> None:
    _, sam = await person(runtime, Role.MEMBER)
    _, pat = await person(runtime, Role.MEMBER)
    pending = await runtime.executor.ainvoke("web.search", None, {}, channel="t", actor=sam)
    token = pending.pending_confirmation.token
    for attempt in (
        runtime.executor.ainvoke(
            "web.search", None, {}, channel="t", actor=pat, confirmation_token=token
        ),
        runtime.executor.ainvoke("web.search", None, {}, channel="t", confirmation_token=token),
        runtime.executor.adeny(token, channel="t", actor=pat),
    ):
        outcome = await attempt
        assert outcome.error is not None and outcome.error.reason == "unknown"
    assert ran.calls == []
    # Still Sam's to approve.
    mine = await runtime.executor.ainvoke(
        "web.search", None, {}, channel="t", actor=sam, confirmation_token=token
    )
    assert mine.ok and ran.calls == ["web.search"]


async def test_a_childs_call_waits_for_an_approver_and_runs_once_they_approve(
    runtime: Runtime, ran: Ran
) -> None:
    account, kid = await person(runtime, Role.CHILD)
    pending = await runtime.executor.ainvoke("web.search", None, {}, channel="t", actor=kid)
    assert pending.pending_confirmation is not None
    assert pending.pending_confirmation.waiting_for == "an owner or a parent (owner)"
    token = pending.pending_confirmation.token

    early = await runtime.executor.ainvoke(
        "web.search", None, {}, channel="t", actor=kid, confirmation_token=token
    )
    assert early.error is not None and early.error.code == "AWAITING_APPROVAL"
    [waiting] = await runtime.accounts.waiting()
    assert (waiting.account_id, waiting.capability) == (account.id, "web.search")
    assert await runtime.accounts.decide(waiting.id, OWNER_ID, approve=True) is not None

    done = await runtime.executor.ainvoke(
        "web.search", None, {}, channel="t", actor=kid, confirmation_token=token
    )
    replay = await runtime.executor.ainvoke(
        "web.search", None, {}, channel="t", actor=kid, confirmation_token=token
    )
    assert done.ok and ran.calls == ["web.search"]
    assert replay.error is not None and replay.error.code == "INVALID_CONFIRMATION"
    assert [e.get("confirmed_by") for e in audit(runtime) if e["outcome"] == "ok"] == ["approver"]


async def test_a_childs_call_an_approver_denied_never_runs(runtime: Runtime, ran: Ran) -> None:
    _, kid = await person(runtime, Role.CHILD)
    pending = await runtime.executor.ainvoke("web.search", None, {}, channel="t", actor=kid)
    token = pending.pending_confirmation.token
    [waiting] = await runtime.accounts.waiting()
    await runtime.accounts.decide(waiting.id, OWNER_ID, approve=False)
    for _ in range(2):
        outcome = await runtime.executor.ainvoke(
            "web.search", None, {}, channel="t", actor=kid, confirmation_token=token
        )
        assert outcome.status in ("denied", "rejected")
    assert ran.calls == []
    assert [e["code"] for e in audit(runtime)][-2:] == ["DENIED", "INVALID_CONFIRMATION"]


async def test_a_childs_call_nobody_approved_in_time_expires_and_never_runs(
    runtime: Runtime, ran: Ran
) -> None:
    _, kid = await person(runtime, Role.CHILD)
    pending = await runtime.executor.ainvoke("web.search", None, {}, channel="t", actor=kid)
    token = pending.pending_confirmation.token
    [waiting] = await runtime.accounts.waiting()
    clock = runtime.executor.clock
    assert isinstance(clock, Clock)
    clock.now += TOKEN_TTL_SECONDS + 1
    assert await runtime.accounts.decide(waiting.id, OWNER_ID, approve=True) is None
    outcome = await runtime.executor.ainvoke(
        "web.search", None, {}, channel="t", actor=kid, confirmation_token=token
    )
    assert outcome.error is not None and outcome.error.reason == "expired"
    assert ran.calls == []


async def test_a_child_cannot_skip_approval_on_a_channel_whose_host_approves(
    runtime: Runtime, ran: Ran
) -> None:
    runtime.executor.delegated_channels = frozenset({"mcp"})
    _, kid = await person(runtime, Role.CHILD)
    _, member = await person(runtime, Role.MEMBER)
    waits = await runtime.executor.ainvoke("web.search", None, {}, channel="mcp", actor=kid)
    runs = await runtime.executor.ainvoke("web.search", None, {}, channel="mcp", actor=member)
    assert waits.status == "pending_confirmation" and runs.ok
    assert ran.calls == ["web.search"]


async def test_the_owner_may_mark_any_member_to_wait_for_approval(runtime: Runtime) -> None:
    _, actor = await person(runtime, Role.MEMBER, needs_approval=True)
    assert actor.needs_approval
    pending = await runtime.executor.ainvoke("web.search", None, {}, channel="t", actor=actor)
    assert pending.pending_confirmation is not None
    assert pending.pending_confirmation.waiting_for is not None


async def test_a_person_without_the_owners_keys_runs_with_only_their_own(
    runtime: Runtime, ran: Ran, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    _, guest = await person(runtime, Role.GUEST)
    _, member = await person(runtime, Role.MEMBER)
    keyed, _ = await person(runtime, Role.GUEST)
    await runtime.accounts.set_key(keyed.id, "brave", "guest-own-key")
    keyed_actor = await runtime.actors.actor(keyed)
    for actor in (guest, member, keyed_actor):
        assert (await approve(runtime, "web.search", {}, actor)).ok
    assert ran.keys == [None, "owner-brave-key", "guest-own-key"]
    assert "guest-own-key" not in runtime.paths.audit_file.read_text()
    assert "guest-own-key" not in caplog.text and "owner-brave-key" not in caplog.text


def test_personal_settings_leave_the_owners_settings_untouched() -> None:
    settings = Settings.model_validate(
        {"search": {"brave": {"api_key": "k"}}, "fetch": {"deny_domains": ["a.example"]}}
    )
    guest = Account("g", "g", Role.GUEST, overrides={"deny_domains": ["b.example"]})
    mine = personal_settings(settings, guest, {})
    assert mine.search.provider("brave").api_key is None
    assert mine.fetch.deny_domains == ["a.example", "b.example"]
    assert settings.search.provider("brave").api_key is not None
    assert settings.fetch.deny_domains == ["a.example"]
