"""Open WebUI's external web search and external web loader contracts.

Open WebUI asks its own user before each call when its confirmation setting is on, so these
endpoints run only when the operator says so (``channels.openwebui.confirmation =
"delegated"``); the owner's policy still applies.

What they answer is web text with no envelope: Open WebUI cuts a loaded page into chunks for
retrieval and puts snippets into its own prompt, so an envelope around a page would reach the
model in halves. Every spelling of the envelope's tag is neutralised instead, so web text can
never pass for the envelope that the other paths put around it (docs/decisions.md).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from spyglass.core.outcome import Outcome
from spyglass.service.auth import Principal
from spyglass.service.errors import ApiError
from spyglass.service.models import OpenWebUILoad, OpenWebUISearch
from spyglass.service.state import Caller, ServiceState, State
from spyglass.untrusted import neutralise

router = APIRouter(tags=["openwebui"])

CHANNEL = "openwebui"
#: web.search returns at most this many results per call.
SEARCH_MAX = 10


def _require_delegated(state: ServiceState, principal: Principal) -> None:
    if principal.actor.needs_approval:
        # Open WebUI cannot carry the call back once an owner or a parent approved it, so
        # such a person's calls are refused here before anything is queued.
        raise ApiError(
            403,
            "NEEDS_APPROVER",
            "this person's calls wait for an owner or a parent, which Open WebUI cannot show; "
            "use the Spyglass console, where the call waits for their approval",
        )
    if CHANNEL not in state.runtime.executor.delegated_channels:
        raise ApiError(
            403,
            "CHANNEL_DISABLED",
            "the Open WebUI endpoints are off. To use them, set "
            '[channels.openwebui] confirmation = "delegated" in config.toml (or '
            "SPYGLASS_CHANNELS__OPENWEBUI__CONFIRMATION=delegated) and turn on Open WebUI's "
            "own confirmation for web search, then restart spyglass serve",
        )


def _raise_unless_ok(outcome: Outcome, *, stages: tuple[str, ...] | None = None) -> None:
    """Turn an outcome that did not succeed into the JSON error Open WebUI will show.

    ``stages`` limits this to refusals at those stages; ``None`` means any failure.
    """
    if outcome.ok or (stages is not None and outcome.stage not in stages):
        return
    error = outcome.error
    code = error.code if error else outcome.status.upper()
    message = error.message if error else f"the call ended {outcome.status}"
    default = 502 if outcome.status == "failed" else 503
    status = {
        "POLICY_DISABLED": 403,
        "POLICY_UNREADABLE": 403,
        "PRIVACY_BLOCKED": 403,
        "INVALID_ARGUMENTS": 422,
        "PERSON_NOT_ALLOWED": 403,
        "BUDGET_EXCEEDED": 429,
    }.get(code, default)
    raise ApiError(status, code, message)


@router.post(
    "/api/v1/openwebui/search",
    operation_id="openWebUISearch",
    summary="Open WebUI external web search: {query, count} → [{link, title, snippet}]",
)
async def search(body: OpenWebUISearch, state: State, principal: Caller) -> list[dict[str, Any]]:
    _require_delegated(state, principal)
    outcome = await state.runtime.executor.ainvoke(
        "web.search",
        None,
        {"query": body.query, "count": min(body.count, SEARCH_MAX)},
        channel=CHANNEL,
        actor=principal.actor,
    )
    # A failed search is an error, never an empty list that reads as "nothing found".
    _raise_unless_ok(outcome)
    assert outcome.result is not None
    return [
        {
            "link": hit["url"],
            "title": neutralise(hit.get("title") or ""),
            "snippet": neutralise(hit.get("snippet") or ""),
        }
        for hit in outcome.result.get("results", [])
    ][: body.count]


@router.post(
    "/api/v1/openwebui/loader",
    operation_id="openWebUILoader",
    summary="Open WebUI external web loader: {urls} → [{page_content, metadata}]",
)
async def loader(body: OpenWebUILoad, state: State, principal: Caller) -> list[dict[str, Any]]:
    _require_delegated(state, principal)
    documents = []
    for url in body.urls:
        outcome = await state.runtime.executor.ainvoke(
            "web.fetch", None, {"url": url}, channel=CHANNEL, actor=principal.actor
        )
        # Refusals of the whole call stop the batch; one page failing is that page's error.
        _raise_unless_ok(outcome, stages=("resolve", "policy"))
        if outcome.ok and outcome.result is not None:
            result = outcome.result
            documents.append(
                {
                    "page_content": neutralise(result.get("text") or ""),
                    "metadata": {
                        "source": result.get("final_url") or url,
                        "title": neutralise(result.get("title") or ""),
                    },
                }
            )
        else:
            message = outcome.error.message if outcome.error else "not loaded"
            documents.append(
                {"page_content": "", "metadata": {"source": url, "title": "", "error": message}}
            )
    return documents
