"""Helpers shared by the MCP tests: an owner who answers elicitations, and a counted handler."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

import mcp.types as types
from mcp.client.session import ClientRequestContext

from spyglass.core.capability import JSON
from spyglass.core.context import InvocationContext
from spyglass.paths import Paths

#: The two ways a client speaks: the initialize handshake (elicitation mid-call) and the
#: 2026-07-28 per-request envelope (elicitation inside an input_required result).
ERAS = ("legacy", "2026-07-28")


@dataclass
class Owner:
    """Answers every elicitation the same way and remembers what it was shown."""

    action: Literal["accept", "decline", "cancel"] = "accept"
    content: dict[str, Any] | None = field(default_factory=lambda: {"approve": True})
    shown: list[types.ElicitRequestParams] = field(default_factory=list)

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        self.shown.append(params)
        content = self.content if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)

    @property
    def messages(self) -> list[str]:
        return [params.message for params in self.shown]


@dataclass
class Counted:
    """A capability handler that records every execution."""

    runs: list[dict[str, Any]] = field(default_factory=list)

    async def __call__(self, context: InvocationContext) -> JSON:
        self.runs.append(dict(context.arguments))
        return {"echo": context.arguments["text"]}


def audit_events(paths: Paths) -> list[dict[str, Any]]:
    try:
        lines = paths.audit_file.read_text(encoding="ascii").splitlines()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in lines]


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
