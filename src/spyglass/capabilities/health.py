"""``system.health``: is Spyglass working, is web access on, which providers are set up."""

from __future__ import annotations

from spyglass.core.capability import JSON, Bounds, Capability, Network, SideEffect
from spyglass.core.context import InvocationContext
from spyglass.core.policy import WEB_ACCESS
from spyglass.version import __version__

ARGUMENTS: JSON = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}

RESULT: JSON = {
    "type": "object",
    "properties": {
        "status": {"const": "ok"},
        "version": {"type": "string"},
        "web_access_enabled": {"type": "boolean"},
        "search_providers": {"type": "array", "items": {"type": "string"}},
        "search_fallback": {"type": "array", "items": {"type": "string"}},
        "fetch_providers": {"type": "array", "items": {"type": "string"}},
        "problems": {
            "type": "array",
            "items": {"type": "string"},
            "description": "configuration problems that keep a capability from being offered",
        },
    },
    "required": ["status", "version", "web_access_enabled", "search_providers"],
    "additionalProperties": False,
}


async def run(context: InvocationContext) -> JSON:
    from spyglass.capabilities.readiness import fetch_problems, search_problems
    from spyglass.providers.routing import names

    search = context.settings.search
    return {
        "status": "ok",
        "version": __version__,
        "web_access_enabled": context.policy.enabled(WEB_ACCESS),
        "search_providers": names(search.providers),
        "search_fallback": list(search.fallback),
        "fetch_providers": names(context.settings.fetch.providers),
        "problems": [
            f"{name}: {problem}"
            for name, problems in (
                ("web.search", search_problems(context.settings)),
                ("web.fetch", fetch_problems(context.settings)),
            )
            for problem in problems
        ],
    }


CAPABILITY = Capability(
    name="system.health",
    version=1,
    title="Spyglass health",
    description=(
        "Report whether Spyglass is working, whether the owner has enabled web access, "
        "and which search providers are configured."
    ),
    argument_schema=ARGUMENTS,
    result_schema=RESULT,
    side_effect=SideEffect.READ_ONLY,
    network=Network.LOCAL,
    bounds=Bounds(timeout_seconds=5, max_result_bytes=4096, max_invocations_per_turn=3),
    handler=run,
)
