"""The flagged approval rule in the executor's confirm stage: who runs without a card, and
why a call asks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from spyglass.core.actor import Actor
from spyglass.core.context import InvocationContext, Turn
from spyglass.core.flagged import CONVERSATION, FLAGGED, mode, reasons
from spyglass.core.outcome import Notice
from spyglass.core.policy import WEB_ACCESS
from spyglass.settings import Settings
from tests.support import capabilities as fixtures
from tests.support.executor import Harness


def _unusual(notices: Sequence[Notice]) -> list[str]:
    return ["it is odd"] if any(n.kind == "odd" for n in notices) else []


async def _precheck(context: InvocationContext) -> list[Notice]:
    text = context.arguments["text"]
    notices = []
    if "@" in text:
        notices.append(Notice("privacy.email", "contains an email address", "text", 0, 1))
    if "odd" in text:
        notices.append(Notice("odd", "something odd", "text"))
    return notices


def _harness(tmp_path: Path, **extra: Any) -> Harness:
    capability = fixtures.make(
        "test.echo", approval_key="search", unusual=_unusual, precheck=_precheck, **extra
    )
    harness = Harness(tmp_path, capability)
    harness.policy.set(WEB_ACCESS, True)
    return harness


def _run(harness: Harness, text: str, *, conversation: str | None = "c1", **kwargs: Any) -> Any:
    kwargs.setdefault("channel", "console")
    return harness.executor.invoke(
        "test.echo", None, {"text": text}, turn=Turn(conversation_id=conversation), **kwargs
    )


def test_under_each_every_call_in_a_conversation_still_asks(tmp_path: Path) -> None:
    harness = _harness(tmp_path)
    outcome = _run(harness, "plain")
    assert outcome.status == "pending_confirmation"
    assert "reasons" not in outcome.pending_confirmation.to_dict()


def test_under_flagged_a_clean_call_runs_without_a_card_and_says_by_which_rule(
    tmp_path: Path,
) -> None:
    harness = _harness(tmp_path)
    harness.policy.set_approval("search", "flagged")
    outcome = _run(harness, "plain")
    assert outcome.status == "ok"
    assert outcome.unasked == FLAGGED
    assert outcome.to_dict()["unasked"] == "flagged"
    assert harness.events()[-1]["confirmed_by"] == "flagged"


def test_under_flagged_a_privacy_finding_or_an_unusual_call_asks_and_says_why(
    tmp_path: Path,
) -> None:
    harness = _harness(tmp_path)
    harness.policy.set_approval("search", "flagged")
    found = _run(harness, "me@x odd")
    assert found.status == "pending_confirmation"
    assert found.pending_confirmation.to_dict()["reasons"] == [
        "the text contains an email address",
        "it is odd",
    ]


def test_under_flagged_an_argument_hiding_characters_asks_and_the_card_says_so(
    tmp_path: Path,
) -> None:
    harness = _harness(tmp_path)
    harness.policy.set_approval("search", "flagged")
    hidden = _run(harness, "plain\u202etxt.exe")
    assert hidden.status == "pending_confirmation"
    card = hidden.pending_confirmation.to_dict()
    assert "shown.hidden" in [n["kind"] for n in card["notices"]]
    assert any("U+202E" in reason for reason in card["reasons"])


@pytest.mark.parametrize("channel", ["mcp", "openwebui", "cli", "test"])
def test_other_channels_keep_their_rules_whatever_the_mode(tmp_path: Path, channel: str) -> None:
    harness = _harness(tmp_path)
    harness.policy.set_approval("search", "flagged")
    assert _run(harness, "plain", channel=channel).status == "pending_confirmation"


def test_a_call_outside_a_conversation_asks_even_on_the_console_channel(tmp_path: Path) -> None:
    harness = _harness(tmp_path)
    harness.policy.set_approval("search", "flagged")
    assert _run(harness, "plain", conversation=None).status == "pending_confirmation"


def test_a_capability_without_an_approval_key_always_asks(tmp_path: Path) -> None:
    harness = Harness(tmp_path, fixtures.make("test.echo", precheck=_precheck))
    harness.policy.set(WEB_ACCESS, True)
    harness.executor.settings = Settings.model_validate({"approvals": {"search": "flagged"}})
    assert _run(harness, "plain").status == "pending_confirmation"


def test_the_settings_give_the_default_and_the_owner_s_policy_overrides_it(
    tmp_path: Path,
) -> None:
    harness = _harness(tmp_path)
    harness.executor.settings = Settings.model_validate({"approvals": {"search": "flagged"}})
    assert _run(harness, "plain").status == "ok"
    harness.policy.set_approval("search", "each")
    assert _run(harness, "plain").status == "pending_confirmation"
    harness.policy.set_approval("search", None)
    assert _run(harness, "plain").status == "ok"


def test_a_person_s_own_mode_overrides_the_household_s() -> None:
    capability = fixtures.make("test.echo", approval_key="search")
    settings = Settings()
    assert mode(capability, settings, None, None) == "each"
    member = Actor("a1", "p-1", approvals={"search": "flagged"})
    assert mode(capability, settings, None, member) == "flagged"
    flagged = Settings.model_validate({"approvals": {"search": "flagged"}})
    assert mode(capability, flagged, None, Actor("a2", "p-2", approvals={"search": "each"})) == (
        "each"
    )


def test_the_reasons_put_the_privacy_findings_first_and_say_each_once() -> None:
    capability = fixtures.make("test.echo", approval_key="search", unusual=_unusual)
    notices = [
        Notice("odd", "x"),
        Notice("privacy.email", "contains an email address", "query"),
        Notice("privacy.email", "contains an email address", "query"),
    ]
    assert reasons(capability, notices) == ("the query contains an email address", "it is odd")


def test_a_conversation_grant_lets_clean_calls_of_that_conversation_run_until_it_idles(
    tmp_path: Path,
) -> None:
    harness = _harness(tmp_path)
    executor = harness.executor
    granted = executor.run_sync(
        executor.allow_for_conversation("c1", "test.echo", channel="console")
    )
    assert granted
    first = _run(harness, "plain")
    assert (first.status, first.unasked) == ("ok", CONVERSATION)
    assert harness.events()[-1]["confirmed_by"] == "conversation"
    flagged = _run(harness, "me@x")
    assert flagged.status == "pending_confirmation"
    assert flagged.pending_confirmation.reasons == ("the text contains an email address",)
    assert _run(harness, "plain", conversation="c2").status == "pending_confirmation"
    # Each use renews it: idle for almost the whole window, twice, and it still holds.
    harness.clock.now += 59 * 60
    assert _run(harness, "plain").status == "ok"
    harness.clock.now += 59 * 60
    assert _run(harness, "plain").status == "ok"
    harness.clock.now += 61 * 60
    assert _run(harness, "plain").status == "pending_confirmation"


def test_a_grant_is_never_given_outside_a_conversation_spyglass_runs(tmp_path: Path) -> None:
    executor = _harness(tmp_path).executor
    assert not executor.run_sync(executor.allow_for_conversation("c1", "test.echo", channel="mcp"))
    assert not executor.run_sync(
        executor.allow_for_conversation(None, "test.echo", channel="console")
    )
    assert not executor.run_sync(executor.allow_for_conversation("c1", "nope.x", channel="console"))


def test_the_per_turn_cap_still_holds_for_calls_that_run_without_a_card(tmp_path: Path) -> None:
    harness = _harness(tmp_path)
    harness.policy.set_approval("search", "flagged")
    turn = Turn(conversation_id="c1")
    first = harness.executor.invoke("test.echo", None, {"text": "a"}, channel="console", turn=turn)
    second = harness.executor.invoke("test.echo", None, {"text": "b"}, channel="console", turn=turn)
    assert first.status == "ok"
    assert second.error is not None and second.error.code == "TURN_LIMIT_EXCEEDED"


def _household(tmp_path: Path) -> Harness:
    """A harness whose executor asks a person's permissions (``Allowance``)."""
    from spyglass.core.answers import Answers
    from spyglass.core.permission import Permission
    from tests.core.test_permission import Allowance

    harness = _harness(tmp_path)
    executor = harness.executor
    people = Allowance(100)
    executor.people = people
    executor.permission = Permission(harness.policy, people, executor.settings)
    executor.answers = Answers(
        executor.registry, harness.store, executor.expiry, people=people, clock=harness.clock
    )
    return harness


def test_a_person_whose_calls_wait_keeps_asking_whatever_mode_is_set(tmp_path: Path) -> None:
    harness = _household(tmp_path)
    harness.policy.set_approval("search", "flagged")
    child = Actor("kid", "p-kid", needs_approval=True, approvals={"search": "flagged"})
    assert _run(harness, "plain", actor=child).status == "pending_confirmation"
    member = Actor("sam", "p-sam")
    assert _run(harness, "plain", actor=member).status == "ok"


def test_only_an_approver_s_grant_lets_a_waiting_person_s_clean_calls_run(tmp_path: Path) -> None:
    harness = _household(tmp_path)
    executor = harness.executor
    child = Actor("kid", "p-kid", needs_approval=True)
    own = executor.allow_for_conversation("c1", "test.echo", actor=child, channel="console")
    assert not executor.run_sync(own)
    assert _run(harness, "plain", actor=child).status == "pending_confirmation"
    given = executor.allow_for_conversation(
        "c1", "test.echo", actor=child, channel="console", by_approver=True
    )
    assert executor.run_sync(given)
    ran = _run(harness, "plain", actor=child)
    assert (ran.status, ran.unasked) == ("ok", "conversation")
    assert _run(harness, "odd", actor=child).status == "pending_confirmation"


def test_every_built_in_approval_key_is_a_setting_and_a_policy_key() -> None:
    from spyglass.capabilities import BUILTIN
    from spyglass.core.policy import APPROVAL_KEYS
    from spyglass.settings import ApprovalSettings

    keys = {c.name: c.approval_key for c in BUILTIN.latest() if c.approval_key is not None}
    assert keys == {"web.search": "search", "web.fetch": "fetch"}
    assert set(keys.values()) == set(APPROVAL_KEYS)
    assert set(APPROVAL_KEYS) <= set(ApprovalSettings.model_fields)
