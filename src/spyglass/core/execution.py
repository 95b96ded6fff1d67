"""The executor's execute stage: a capability's handler run within its deadline, and what it
returns checked against its result schema and size bound."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from spyglass.core.attempt import Attempt, stop, unasked
from spyglass.core.capability import Capability
from spyglass.core.context import InvocationContext
from spyglass.core.outcome import Code, Outcome
from spyglass.core.schema import validation_error
from spyglass.errors import CapabilityError
from spyglass.settings import Settings

logger = logging.getLogger(__name__)

#: Extra seconds the executor waits past a capability's own configured deadline, so the
#: capability can report its own, more precise, timeout first.
TIMEOUT_GRACE_SECONDS = 2.0


async def execute(
    attempt: Attempt, capability: Capability, context: InvocationContext, timeout: float
) -> Outcome:
    """Run the capability's handler within ``timeout`` seconds and check what it returns
    against its result schema and size bound; every failure becomes the attempt's
    ``execute``-stage outcome."""
    cname, cversion = capability.name, capability.version
    try:
        result = await asyncio.wait_for(capability.handler(context), timeout)
    except CapabilityError as exc:
        attempt.extra["provider"] = context.provider
        return stop(
            attempt,
            "execute",
            exc.status,
            exc.code,
            exc.message,
            retryable=exc.retryable,
            reason=exc.reason,
        )
    except TimeoutError:
        attempt.extra["provider"] = context.provider
        return stop(
            attempt,
            "execute",
            "failed",
            Code.TIMEOUT,
            f"{cname} did not finish within {timeout:g} seconds; try again later",
            retryable=True,
        )
    except Exception:
        attempt.extra["provider"] = context.provider
        logger.exception("capability %s v%s raised", cname, cversion)
        return stop(
            attempt,
            "execute",
            "failed",
            Code.EXECUTION_FAILED,
            f"{cname} failed unexpectedly; the details are in the Spyglass log",
        )
    attempt.extra["provider"] = context.provider

    problem = validation_error(capability.result_schema, result)
    if problem is not None:
        logger.error("capability %s v%s returned an invalid result: %s", cname, cversion, problem)
        return stop(
            attempt,
            "execute",
            "failed",
            Code.INVALID_RESULT,
            f"{cname} produced a result that breaks its schema",
        )
    size = len(json.dumps(result, ensure_ascii=False).encode("utf-8"))
    attempt.extra["result_bytes"] = size
    if size > capability.bounds.max_result_bytes:
        return stop(
            attempt,
            "execute",
            "failed",
            Code.RESULT_TOO_LARGE,
            f"{cname} result is {size} bytes, over the "
            f"{capability.bounds.max_result_bytes}-byte bound",
        )
    return Outcome(
        status="ok",
        capability=cname,
        version=cversion,
        invocation_id=attempt.invocation_id,
        stage="execute",
        result=result,
        provider=context.provider,
        unasked=unasked(attempt),
    )


def timeout_for(capability: Capability, settings: Settings) -> float:
    """How long the executor lets ``capability`` run: its bound, or the setting it names
    plus a grace, so the capability can report its own, more precise, timeout first."""
    if capability.timeout_setting is None:
        return capability.bounds.timeout_seconds
    value: Any = settings
    for part in capability.timeout_setting.split("."):
        value = getattr(value, part)
    return float(value) + TIMEOUT_GRACE_SECONDS
