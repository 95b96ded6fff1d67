"""Open WebUI's external web search and external web loader contracts.

Open WebUI asks its own user before each call when its confirmation setting is on, so these
endpoints run only when the operator says so (``channels.openwebui.confirmation =
"delegated"``); the owner's policy still applies.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from spyglass.service.errors import ApiError
from spyglass.service.models import OpenWebUILoad, OpenWebUISearch
from spyglass.service.state import ServiceState, State

router = APIRouter(tags=["openwebui"])

CHANNEL = "openwebui"
#: web.search returns at most this many results per call.
SEARCH_MAX = 10


def _require_delegated(state: ServiceState) -> None:
    if CHANNEL not in state.runtime.executor.delegated_channels:
        raise ApiError(
            403,
            "CHANNEL_DISABLED",
            "the Open WebUI endpoints are off. To use them, set "
            '[channels.openwebui] confirmation = "delegated" in config.toml (or '
            "SPYGLASS_CHANNELS__OPENWEBUI__CONFIRMATION=delegated) and turn on Open WebUI's "
            "own confirmation for web search, then restart spyglass serve",
        )


def _refusal(code: str, message: str) -> ApiError:
    status = {"POLICY_DISABLED": 403, "INVALID_ARGUMENTS": 422}.get(code, 503)
    return ApiError(status, code, message)


@router.post(
    "/api/v1/openwebui/search",
    operation_id="openWebUISearch",
    summary="Open WebUI external web search: {query, count} → [{link, title, snippet}]",
)
async def search(body: OpenWebUISearch, state: State) -> list[dict[str, Any]]:
    _require_delegated(state)
    outcome = await state.runtime.executor.ainvoke(
        "web.search",
        None,
        {"query": body.query, "count": min(body.count, SEARCH_MAX)},
        channel=CHANNEL,
    )
    if outcome.status == "rejected" and outcome.stage in ("resolve", "validate", "policy"):
        error = outcome.error
        raise _refusal(error.code if error else "REJECTED", error.message if error else "")
    if not outcome.ok or outcome.result is None:
        # Open WebUI treats an empty list as "no results"; the reason is in Spyglass's audit.
        return []
    return [
        {"link": hit["url"], "title": hit.get("title", ""), "snippet": hit.get("snippet", "")}
        for hit in outcome.result.get("results", [])
    ][: body.count]


@router.post(
    "/api/v1/openwebui/loader",
    operation_id="openWebUILoader",
    summary="Open WebUI external web loader: {urls} → [{page_content, metadata}]",
)
async def loader(body: OpenWebUILoad, state: State) -> list[dict[str, Any]]:
    _require_delegated(state)
    documents = []
    for url in body.urls:
        outcome = await state.runtime.executor.ainvoke(
            "web.fetch", None, {"url": url}, channel=CHANNEL
        )
        if outcome.status == "rejected" and outcome.stage in ("resolve", "policy"):
            error = outcome.error
            raise _refusal(error.code if error else "REJECTED", error.message if error else "")
        if outcome.ok and outcome.result is not None:
            result = outcome.result
            documents.append(
                {
                    "page_content": result.get("text", ""),
                    "metadata": {
                        "source": result.get("final_url") or url,
                        "title": result.get("title") or "",
                    },
                }
            )
        else:
            message = outcome.error.message if outcome.error else "not loaded"
            documents.append(
                {"page_content": "", "metadata": {"source": url, "title": "", "error": message}}
            )
    return documents
