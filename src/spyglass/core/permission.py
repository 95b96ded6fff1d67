"""Whether a call may run: the owner's switches, then the person's own permissions."""

from __future__ import annotations

from typing import Any

from spyglass.core.actor import PersonalPolicy
from spyglass.core.attempt import Attempt, stop, unavailable
from spyglass.core.capability import Capability
from spyglass.core.outcome import Code, Outcome
from spyglass.core.policy import (
    WEB_ACCESS,
    WEB_FETCH,
    WEB_SEARCH,
    PolicySource,
    policy_problem,
    read_snapshot,
    switch_off,
)
from spyglass.errors import StoreUnavailable
from spyglass.settings import Settings

POLICY_HINT = {
    WEB_ACCESS: (
        "web access is off. The owner can turn it on with `spyglass policy enable`, "
        "the console switch, or POST /api/v1/policy"
    ),
    WEB_SEARCH: (
        "web search is switched off by the owner (web access itself is on). The owner can "
        "turn it on with `spyglass policy enable search`, the console's Search switch, or "
        'POST /api/v1/policy with {"web_search_enabled": true}'
    ),
    WEB_FETCH: (
        "reading web pages is switched off by the owner (web access itself is on). The owner "
        "can turn it on with `spyglass policy enable fetch`, the console's Pages switch, or "
        'POST /api/v1/policy with {"web_fetch_enabled": true}'
    ),
}


class Permission:
    """Whether a call may run: the owner's switches, then the person's own permissions.

    Asked twice per call: :meth:`check` in the policy stage, before anyone is asked to
    approve it, and :meth:`spend` just before it runs, where a person's daily allowance is
    counted.
    """

    def __init__(
        self, policy: PolicySource, people: PersonalPolicy | None, settings: Settings
    ) -> None:
        self.policy = policy
        #: Each person's own permissions, asked for calls made for one (``None``: nobody's).
        self.people = people
        self.settings = settings

    async def check(
        self, attempt: Attempt, capability: Capability, arguments: dict[str, Any]
    ) -> Outcome | None:
        """Refuse the call if a switch or the person's permissions forbid it; ``None`` if
        allowed.

        The owner's switches are read fresh, once, so every switch comes from the same
        reading (kept on ``attempt`` for the handler); a person's permissions can only narrow
        them, and may give the call that person's own settings (kept on ``attempt`` too).
        """
        switches = await read_snapshot(self.policy)
        attempt.switches = switches
        off = switch_off(switches, capability)
        if off is not None:
            # Off because the policy cannot be read is not the same as switched off: the
            # owner must fix the file, not flip a switch they believe is already on.
            unreadable = policy_problem(switches)
            if unreadable is not None:
                return stop(attempt, "policy", "rejected", unreadable.code, unreadable.message)
            hint = POLICY_HINT.get(
                off,
                f"the owner's switch {off} is off; the owner can turn it on with "
                "POST /api/v1/policy",
            )
            return stop(attempt, "policy", "rejected", Code.POLICY_DISABLED, hint)
        # The person's own permissions, under the owner's switches: they can only narrow.
        actor = attempt.actor
        if actor is not None and self.people is not None:
            try:
                personal = await self.people.check(actor, capability.name, arguments, self.settings)
            except StoreUnavailable as exc:
                return unavailable(attempt, exc, stage="policy")
            if isinstance(personal, Settings):
                attempt.settings = personal
            else:
                return stop(
                    attempt,
                    "policy",
                    "rejected",
                    personal.code,
                    personal.message,
                    reason=personal.reason,
                )
        return None

    async def spend(self, attempt: Attempt, capability: Capability) -> Outcome | None:
        """Count the call against its person's allowance as it runs; the refusal when none
        is left, ``None`` when it may run (always, for a call made for nobody)."""
        actor = attempt.actor
        if actor is None or self.people is None:
            return None
        try:
            spent = await self.people.spend(actor, capability.name)
        except StoreUnavailable as exc:
            return unavailable(attempt, exc, stage="policy")
        if spent is None:
            return None
        return stop(attempt, "policy", "rejected", spent.code, spent.message, reason=spent.reason)
