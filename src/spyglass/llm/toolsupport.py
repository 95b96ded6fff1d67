"""Models that cannot take tools: recognising the refusal, and remembering it for a while.

Servers refuse a request that carries ``tools`` for a model that cannot use them, each in
its own words:

- Ollama (any model whose template has no tool support): HTTP 400,
  ``{"error": {"message": "<model> does not support tools", "type": ..., ...}}`` on ``/v1``
  (``{"error": "<model> does not support tools"}`` on its native API);
- llama-server started without ``--jinja``: HTTP 400 or 500, "tools param requires --jinja
  flag" (older builds: "Cannot use tools with stream");
- vLLM started without a tool parser: HTTP 400, '"auto" tool choice requires
  --enable-auto-tool-choice and --tool-call-parser to be set';
- routers such as OpenRouter: HTTP 404, "No endpoints found that support tool use".

Only these explicit statements count. A bare 400 is just as often a malformed request or a
context overflow, and retrying it without tools would hide the real error.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

from spyglass import jsontext

#: How much of an error body is read to find the server's message.
MAX_ERROR_BYTES = 16_384

#: (statuses, pattern on the server's message) per dialect.
REFUSALS: tuple[tuple[frozenset[int], re.Pattern[str]], ...] = (
    # Ollama
    (frozenset({400}), re.compile(r"does not support tools", re.I)),
    # llama-server without --jinja, current and older wording
    (
        frozenset({400, 500}),
        re.compile(r"tools param requires --jinja|cannot use tools with stream", re.I),
    ),
    # vLLM without --enable-auto-tool-choice / --tool-call-parser
    (frozenset({400}), re.compile(r"enable-auto-tool-choice|--tool-call-parser", re.I)),
    # OpenRouter-style routers
    (frozenset({404}), re.compile(r"no endpoints found that support tool use", re.I)),
    # Any other server that says so plainly: "tools are not supported", "tool use unsupported"
    (
        frozenset({400, 422, 501}),
        re.compile(
            r"\btools?\b(?: use| calling| calls)? (?:(?:are|is) )?(?:not supported|unsupported)"
            r"|does not support (?:tool|function) call",
            re.I,
        ),
    ),
)


def error_message(body: bytes) -> str:
    """The server's own message in an error body, whatever its JSON shape (or the text)."""
    text = body[:MAX_ERROR_BYTES].decode("utf-8", "replace")
    try:
        data = jsontext.loads(text)
    except ValueError:
        return text
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
        if isinstance(data.get("message"), str):  # vLLM's older {"object": "error", ...}
            return str(data["message"])
        if isinstance(data.get("detail"), str):
            return str(data["detail"])
    return text


def refuses_tools(status: int, body: bytes) -> bool:
    """Whether an error answer means "this model (or server) cannot take tools"."""
    message = error_message(body)
    return any(status in statuses and pattern.search(message) for statuses, pattern in REFUSALS)


class ToolSupportMemory:
    """Models the server refused tools for, each remembered for ``seconds``."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def refused(self, model: str) -> bool:
        """Whether tools were refused for ``model`` within the remembered time."""
        with self._lock:
            until = self._until.get(model)
            if until is None:
                return False
            if until <= self._clock():
                del self._until[model]
                return False
            return True

    def remember(self, model: str) -> None:
        with self._lock:
            self._until[model] = self._clock() + self.seconds
