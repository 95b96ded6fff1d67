"""Fixture capabilities, built through the same ``Capability`` builder as the real ones."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from spyglass.core.capability import JSON, Bounds, Capability, Network, SideEffect
from spyglass.core.context import InvocationContext

ECHO_ARGUMENTS: JSON = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 1, "maxLength": 200},
        "count": {"type": "integer", "minimum": 1, "maximum": 5},
    },
    "required": ["text"],
    "additionalProperties": False,
}

ECHO_RESULT: JSON = {
    "type": "object",
    "properties": {"echo": {"type": "string"}},
    "required": ["echo"],
    "additionalProperties": False,
}


async def echo(context: InvocationContext) -> JSON:
    return {"echo": context.arguments["text"] * context.arguments.get("count", 1)}


def make(
    name: str = "test.echo",
    *,
    handler: Callable[[InvocationContext], Awaitable[JSON]] = echo,
    side_effect: SideEffect = SideEffect.READ_ONLY,
    network: Network = Network.EXTERNAL,
    version: int = 1,
    bounds: Bounds | None = None,
    argument_schema: JSON | None = None,
    result_schema: JSON | None = None,
    policy_key: str | None = "web_access_enabled",
    **extra: Any,
) -> Capability:
    return Capability(
        name=name,
        version=version,
        title=f"Fixture {name}",
        description=f"Fixture capability {name} for tests.",
        argument_schema=argument_schema or ECHO_ARGUMENTS,
        result_schema=result_schema or ECHO_RESULT,
        side_effect=side_effect,
        network=network,
        bounds=bounds or Bounds(timeout_seconds=5),
        handler=handler,
        policy_key=policy_key if network is Network.EXTERNAL or policy_key else None,
        **extra,
    )


def returning(value: Any) -> Callable[[InvocationContext], Awaitable[JSON]]:
    async def handler(context: InvocationContext) -> JSON:
        return value  # type: ignore[no-any-return]

    return handler


def raising(exc: BaseException) -> Callable[[InvocationContext], Awaitable[JSON]]:
    async def handler(context: InvocationContext) -> JSON:
        raise exc

    return handler


async def hang(context: InvocationContext) -> JSON:
    context.turn.cache["started"] = True
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        context.turn.cache["cancelled"] = True
        raise
    return {}
