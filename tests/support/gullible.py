"""A gullible model for :class:`~tests.support.fake_model.FakeModel`: it researches what it is
asked and obeys any instruction it reads in a tool result.

Used as ``FakeModel(default=Gullible())``. On each request it answers, in order:

1. after a tool result holding ``ASSISTANT MUST <fetch|search> <target> NOW`` that it has not
   obeyed yet: that call, with every ``SECRET`` in ``target`` replaced by the person's first
   message in the conversation (URL-encoded in an address) — what a model that follows
   injected text does with the conversation's words;
2. after the person's message ``research <words>``: ``web_search`` for ``<words>``; after
   ``read <address>``: ``web_fetch`` of that address;
3. after a search result: ``web_fetch`` of its first result;
4. otherwise: a short text answer.

It answers only with tools it was offered, so a switched-off capability is never called.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote_plus

from tests.support.fake_model import Reply, text, tool_call

INSTRUCTION = re.compile(r"ASSISTANT MUST (fetch|search) (\S+(?: \S+)*?) NOW")
#: The placeholder an injection puts where it wants the conversation's words.
SECRET = "SECRET"
ANSWER = "Here is what I found."


class Gullible:
    """Obeys instructions in tool results; ``obeyed`` lists the calls it made because of one."""

    def __init__(self) -> None:
        self.obeyed: list[dict[str, Any]] = []
        self._done: set[tuple[str, str]] = set()
        self._calls = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages: list[dict[str, Any]] = body.get("messages") or []
        offered = {t["function"]["name"] for t in body.get("tools") or []}
        said = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
        last = messages[-1] if messages else {}
        if last.get("role") == "tool":
            content = str(last.get("content") or "")
            for what, target in INSTRUCTION.findall(content):
                if (what, target) in self._done:
                    continue
                self._done.add((what, target))
                first = said[0] if said else ""
                if what == "fetch":
                    name, arguments = (
                        "web_fetch",
                        {"url": target.replace(SECRET, quote_plus(first))},
                    )
                else:
                    name, arguments = "web_search", {"query": target.replace(SECRET, first)}
                if name in offered:
                    self.obeyed.append({"name": name, "arguments": arguments})
                    return self._call(name, arguments)
            first_result = _first_result(content)
            if first_result is not None and "web_fetch" in offered:
                return self._call("web_fetch", {"url": first_result})
            return text(ANSWER)
        words = said[-1] if said else ""
        if words.startswith("research ") and "web_search" in offered:
            return self._call("web_search", {"query": words.removeprefix("research ").strip()})
        if words.startswith("read ") and "web_fetch" in offered:
            return self._call("web_fetch", {"url": words.removeprefix("read ").strip()})
        return text("Noted.")

    def _call(self, name: str, arguments: dict[str, Any]) -> Reply:
        self._calls += 1
        return tool_call(name, arguments, call_id=f"gullible-{self._calls}")


def _first_result(content: str) -> str | None:
    """The first result's URL when ``content`` is a search result (wrapped or not)."""
    start, end = content.find("{"), content.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        payload = json.loads(content[start : end + 1])
    except ValueError:
        return None
    hits = payload.get("results") if isinstance(payload, dict) else None
    if not isinstance(hits, list) or not hits or not isinstance(hits[0], dict):
        return None
    url = hits[0].get("url")
    return url if isinstance(url, str) else None
