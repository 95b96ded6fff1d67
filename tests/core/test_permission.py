"""The policy stage: the owner's switches refuse a call before anybody is asked, and a change
applies to the next call."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from spyglass.core.actor import BUDGET_EXCEEDED, Actor, Refusal
from spyglass.core.attempt import Attempt
from spyglass.core.permission import Permission
from spyglass.core.policy import WEB_ACCESS, WEB_FETCH, WEB_SEARCH, PolicyFile
from spyglass.settings import Settings
from tests.support import capabilities as fixtures
from tests.support.executor import Harness


def test_policy_off_rejects_before_any_confirmation_is_issued(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    outcome = h.executor.invoke("test.echo", 1, {"text": "a"}, channel="test")
    assert (outcome.status, outcome.stage, outcome.error.code) == (
        "rejected",
        "policy",
        "POLICY_DISABLED",
    )
    assert "spyglass policy enable" in outcome.error.message
    assert len(h.store) == 0


def test_an_unreadable_policy_refuses_with_its_own_code_naming_the_file(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.policy.path.parent.mkdir(parents=True)
    h.policy.path.write_text("{broken")
    outcome = h.executor.invoke("test.echo", 1, {"text": "a"}, channel="test")
    assert (outcome.status, outcome.stage) == ("rejected", "policy")
    assert outcome.error is not None and outcome.error.code == "POLICY_UNREADABLE"
    assert str(h.policy.path) in outcome.error.message
    assert "web access is off. The owner can turn it on" not in outcome.error.message
    assert len(h.store) == 0


@pytest.mark.parametrize(
    ("name", "switch", "command"),
    [
        ("web.search", WEB_SEARCH, "spyglass policy enable search"),
        ("web.fetch", WEB_FETCH, "spyglass policy enable fetch"),
    ],
)
def test_a_capability_switched_off_under_web_access_is_refused_naming_its_switch(
    tmp_path: Path, name: str, switch: str, command: str
) -> None:
    h = Harness(tmp_path, fixtures.make(name))
    h.policy.set(WEB_ACCESS, True)
    h.policy.set(switch, False)
    outcome = h.executor.invoke(name, 1, {"text": "a"}, channel="t")
    assert (outcome.stage, outcome.status, outcome.error.code) == (
        "policy",
        "rejected",
        "POLICY_DISABLED",
    )
    assert command in outcome.error.message and switch in outcome.error.message
    assert len(h.store) == 0  # nobody was asked
    assert h.events()[-1]["stage"] == "policy"


def test_policy_change_applies_to_the_next_call_without_a_new_executor(harness: Harness) -> None:
    assert harness.executor.invoke("test.echo", 1, {"text": "a"}, channel="t").status == (
        "pending_confirmation"
    )
    harness.policy.set(WEB_ACCESS, False)
    assert harness.executor.invoke("test.echo", 1, {"text": "a"}, channel="t").stage == "policy"


class Allowance:
    """A person's permissions: anything the owner allows, ``calls`` times."""

    def __init__(self, calls: int) -> None:
        self.left = calls

    async def check(
        self, actor: Actor, capability: str, arguments: Mapping[str, Any], settings: Settings
    ) -> Refusal | Settings:
        return settings

    async def spend(self, actor: Actor, capability: str) -> Refusal | None:
        if self.left == 0:
            return Refusal(BUDGET_EXCEEDED, "today's calls are spent")
        self.left -= 1
        return None

    async def ask(self, *args: Any) -> str | None:
        return None

    async def decision(self, actor: Actor, token: str) -> str:
        return "waiting"


async def test_permission_reads_the_switches_afresh_for_every_check(tmp_path: Path) -> None:
    policy = PolicyFile(tmp_path / "policy.json")
    permission = Permission(policy, None, Settings())
    capability = fixtures.make()
    refused = await permission.check(Attempt.begin("t"), capability, {"text": "a"})
    assert refused is not None and refused.error is not None
    assert (refused.stage, refused.error.code) == ("policy", "POLICY_DISABLED")
    policy.set(WEB_ACCESS, True)
    assert await permission.check(Attempt.begin("t"), capability, {"text": "a"}) is None


async def test_a_persons_calls_are_counted_as_they_run_and_refused_once_spent(
    tmp_path: Path,
) -> None:
    permission = Permission(PolicyFile(tmp_path / "policy.json"), Allowance(1), Settings())
    capability = fixtures.make()
    person = Actor("account", "pseudonym")
    assert await permission.spend(Attempt.begin("t", person), capability) is None
    spent = await permission.spend(Attempt.begin("t", person), capability)
    assert spent is not None and spent.error is not None
    assert (spent.stage, spent.error.code) == ("policy", BUDGET_EXCEEDED)
    # A call made for nobody (the local owner) has no allowance to spend.
    assert await permission.spend(Attempt.begin("t"), capability) is None
