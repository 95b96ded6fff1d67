"""Scripted model behaviour shared by the browser tests.

``reactive`` answers like a well-behaved model would from what it was actually sent: it says
it cannot search when no web tool was offered, reports a declined or failed call from the
tool result it received, and quotes a fetched page back. The tests then check what the page
shows against what the service really told the model.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.fake_model import Reply, text


def offered_tools(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def last_tool_result(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON payload of the newest tool message, unwrapped from its untrusted envelope."""
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "tool":
            content = str(message.get("content", ""))
            start, end = content.find("{"), content.rfind("}")
            try:
                payload = json.loads(content[start : end + 1])
            except ValueError:
                return None
            return payload if isinstance(payload, dict) else None
        if message.get("role") == "user":
            return None
    return None


def reactive(body: dict[str, Any]) -> Reply:
    result = last_tool_result(body)
    if result is not None:
        if result.get("status") == "denied":
            return text("I could not search the web: you declined the search.")
        if "error" in result:
            return text(f"I could not search the web: {result['error'].get('code')}.")
        if "text" in result:
            # A model quoting the page back: the classic path for page text into the chat.
            return text("The page says:\n\n" + str(result["text"]))
        titles = [item.get("title", "") for item in result.get("results", [])]
        return text("From the search: " + "; ".join(titles))
    if "web_search" not in offered_tools(body):
        return text("Web access is off, so I cannot search the web for this.")
    return text("I can answer that without searching.")
