"""``[approvals]``: how often the owner is asked before a web call leaves the house."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from spyglass.settings.base import _Section

#: ``each``: every call waits for a card; ``flagged``: only a call a check flags does.
ApprovalMode = Literal["each", "flagged"]


class ApprovalSettings(_Section):
    """``[approvals]``: when a call in Spyglass's own conversations (console, HTTP API) waits
    for a card. MCP, Open WebUI and the command line keep their channel's rules."""

    search: ApprovalMode = Field(
        default="each",
        description="each: every web.search waits for approval; flagged: only a query the "
        "privacy check flags does. In the console and HTTP API conversations only: MCP, Open "
        "WebUI and the command line keep their own rules. `spyglass policy approvals` "
        "overrides it at run time.",
    )
    fetch: ApprovalMode = Field(
        default="each",
        description="each: every web.fetch waits for approval; flagged: only an address that "
        "did not come from the conversation, is on your own network, goes to a hosted reader "
        "or carries what the privacy check flags does. Console and HTTP API conversations only, "
        "as for approvals.search.",
    )
    conversation_minutes: int = Field(
        default=60,
        ge=1,
        le=1440,
        description="An 'Allow for this conversation' lasts until the conversation has been "
        "idle this long (or the person signs out).",
    )
