"""Telling connected MCP clients when the owner's switches change the tools they may use.

The tool list follows the owner's policy, which lives outside this process (the policy file
today, possibly another store later) and changes without telling anyone. The watch therefore
asks the :class:`~spyglass.core.policy.PolicySource` which tools are offered every
``interval`` seconds — a read of one small file — and, when the answer changed, announces it:

* handshake-era connections (up to 2025-11-25) get ``notifications/tools/list_changed`` on
  their standalone channel; every connection that listed the tools is remembered (weakly);
* 2026-07-28 clients get a ``ToolsListChanged`` event on their ``subscriptions/listen``
  stream, through the SDK's subscription bus.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged

from spyglass.core.actor import Actor
from spyglass.core.policy import PolicySource
from spyglass.mcp.tools import ToolTable

logger = logging.getLogger(__name__)

#: How often the policy is read, in seconds: an owner who flips the switch sees the host's
#: tool list follow within about this long.
POLICY_POLL_SECONDS = 1.0


class ToolWatch:
    """Polls which tools are offered and announces each change to every client that cares."""

    def __init__(
        self,
        table: ToolTable,
        policy: PolicySource,
        *,
        interval: float = POLICY_POLL_SECONDS,
    ) -> None:
        self.table = table
        self.policy = policy
        self.interval = interval
        self.bus = InMemorySubscriptionBus()
        self._connections: weakref.WeakSet[Connection] = weakref.WeakSet()
        #: Tool lists handed to clients since the last poll. A switch turned off and on
        #: between two polls looks unchanged to the poll, yet a client that listed the tools
        #: meanwhile holds the short list: what was handed out is compared too, with what
        #: the person it was handed to (``None``: the owner) is offered now.
        self._served: set[tuple[Actor | None, tuple[str, ...]]] = set()

    def served(self, names: tuple[str, ...], actor: Actor | None = None) -> None:
        """Note a tool list just handed to a client, made for ``actor``."""
        self._served.add((actor, names))

    def remember(self, ctx: ServerRequestContext[Any, Any]) -> None:
        """Note the connection behind ``ctx`` so a later change reaches it (handshake era).

        The SDK hands handlers a per-request session; the connection it belongs to is what
        outlives the request and carries notifications, so that is what is kept.
        """
        connection = getattr(ctx.session, "_connection", None)
        if isinstance(connection, Connection):
            self._connections.add(connection)

    async def offered(self, actor: Actor | None = None) -> tuple[str, ...]:
        """The tools the owner's switches offer ``actor`` (``None``: the owner)."""
        # A policy store may one day be a network service: read it off the event loop.
        return await anyio.to_thread.run_sync(self.table.offered_names, self.policy, actor)

    async def _stale(self, served: set[tuple[Actor | None, tuple[str, ...]]]) -> bool:
        """Whether a list handed out since the last poll differs from its person's list now."""
        for actor, names in served:
            if names != await self.offered(actor):
                return True
        return False

    async def run(self) -> None:
        """Watch until cancelled."""
        last = await self.offered()
        while True:
            await anyio.sleep(self.interval)
            served, self._served = self._served, set()
            try:
                now = await self.offered()
                stale = await self._stale(served)
            except Exception:
                # A policy store that fails now may answer next time; the executor still
                # refuses every call the policy does not allow.
                self._served |= served
                logger.warning("cannot read the owner's policy to update the MCP tool list")
                continue
            if now != last or stale:
                last = now
                await self.announce()

    async def announce(self) -> None:
        """Tell every remembered connection and every listen stream that the tools changed."""
        for connection in list(self._connections):
            # Best effort: the SDK drops the notification when the channel is gone.
            await connection.send_tool_list_changed()
        await self.bus.publish(ToolsListChanged())
