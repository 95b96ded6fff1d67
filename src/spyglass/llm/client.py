"""A streaming client for OpenAI-compatible chat completions, normalising what servers send.

``ModelClient.stream`` yields :class:`Delta` pieces (content or reasoning, with any leaked
tool-call block held back) and ends with one :class:`Completion`. Every way the server can
fail — unreachable, an error status, a stream that breaks or is not JSON — becomes
:class:`ModelUnavailable` with a message naming the URL and what to check.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import httpx

from spyglass import jsontext
from spyglass.core.encoding import printable
from spyglass.errors import UpstreamError
from spyglass.llm.toolcalls import LeakGuard, ToolCall, ToolCallAccumulator
from spyglass.llm.toolsupport import (
    MAX_ERROR_BYTES,
    ToolSupportMemory,
    error_message,
    refuses_tools,
)
from spyglass.net.backend import AsyncioBackend
from spyglass.net.faults import Fault, classify
from spyglass.net.pool import CoreTransport
from spyglass.providers.explain import explanation
from spyglass.settings import LLMSettings

#: Idle connections kept to the model server between requests. Few on purpose: httpcore
#: looks at every pooled connection (a readability check on each idle socket) every time a
#: request starts or ends, so after a burst of 50 requests twenty kept connections cost a
#: sequential request more than a new connect would. A model server answers a few requests
#: at a time anyway (llama-server's slots); a burst beyond this reconnects.
KEPT_CONNECTIONS = 4


class ModelUnavailable(UpstreamError):
    """The model server could not give an answer; ``message`` is safe to show."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ToolsRefused(ModelUnavailable):
    """The server refused the request because this model cannot take tools.

    Raised before any of the answer was streamed, so the request can simply be sent again
    without tools.
    """


@dataclass(frozen=True)
class Delta:
    kind: Literal["content", "reasoning"]
    text: str


@dataclass
class Completion:
    """The whole of one streamed response."""

    content: str
    reasoning: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    #: Leaked call blocks that could not be parsed (dropped from the text).
    malformed_calls: int = 0


StreamItem = Delta | Completion


class Finder(Protocol):
    """Fills in the model server and model the owner left unset (``spyglass.llm.choice``)."""

    async def ensure(self) -> None:
        """Decide them before a request, or raise :class:`ModelUnavailable` saying why not."""


class ModelClient:
    """Talks to ``llm.base_url``. One instance per service; close with :meth:`aclose`."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        finder: Finder | None = None,
    ) -> None:
        self.settings = settings
        self.finder = finder
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        #: Tools already encoded: (type, name, description, id of parameters) → text.
        self._tools_json: dict[tuple[Any, ...], tuple[Any, str]] = {}
        #: Models this server refused tools for, remembered for a while.
        self.tool_support = ToolSupportMemory(settings.tools_refused_memory_seconds)

    @property
    def url(self) -> str:
        """The chat completions address; it follows ``settings`` (a found server is written
        there)."""
        return self.settings.base_url.rstrip("/") + "/chat/completions"

    def tools_refused(self) -> bool:
        """Whether the server recently refused tools for the configured model."""
        return self.tool_support.refused(self.settings.model)

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            headers = {"Accept": "text/event-stream"}
            if self.settings.api_key is not None and self.settings.api_key.get_secret_value():
                headers["Authorization"] = f"Bearer {self.settings.api_key.get_secret_value()}"
            # Straight on asyncio, not through anyio (spyglass.net.backend): two model requests
            # a search turn, each read in many small pieces.
            transport = self._transport or CoreTransport(
                AsyncioBackend(), limits=httpx.Limits(max_keepalive_connections=KEPT_CONNECTIONS)
            )
            self._client = httpx.AsyncClient(
                transport=transport,
                headers=headers,
                timeout=httpx.Timeout(
                    self.settings.timeout_seconds, connect=self.settings.connect_timeout_seconds
                ),
                # The model server is the owner's own: no proxy from the environment.
                trust_env=False,
                limits=httpx.Limits(max_keepalive_connections=KEPT_CONNECTIONS),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def _encode(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> bytes:
        """The request body: the messages encoded now, each tool from :meth:`_tool_json`."""
        body: dict[str, Any] = {"messages": messages, "stream": True}
        if self.settings.model:
            body["model"] = self.settings.model
        text = _dumps(body)
        if tools:
            listed = ",".join(self._tool_json(tool) for tool in tools)
            text = f'{text[:-1]},"tools":[{listed}],"tool_choice":"auto"}}'
        return text.encode("utf-8")

    def _tool_json(self, tool: dict[str, Any]) -> str:
        """``tool`` as JSON, encoded once per name, description and parameters schema.

        The same few tools go with every model request, and their schemas are most of the
        body; a capability's schema is one object that is never changed, so it is known by
        identity (the object is kept with its text, so its id cannot be reused).
        """
        function = tool.get("function")
        if (
            tool.keys() != {"type", "function"}
            or not isinstance(tool["type"], str)
            or not isinstance(function, dict)
            or function.keys() != {"name", "description", "parameters"}
            or not isinstance(function["name"], str)
            or not isinstance(function["description"], str)
        ):
            return _dumps(tool)
        parameters = function["parameters"]
        key = (tool["type"], function["name"], function["description"], id(parameters))
        cached = self._tools_json.get(key)
        if cached is None or cached[0] is not parameters:
            if len(self._tools_json) >= MAX_ENCODED_TOOLS:
                self._tools_json.clear()
            cached = self._tools_json[key] = (parameters, _dumps(tool))
        return cached[1]

    def _unavailable(self, what: str) -> ModelUnavailable:
        return ModelUnavailable(
            f"the model server at {self.url} {what}. Check that it is running, that "
            "llm.base_url points at its OpenAI-compatible /v1 address"
            + (
                f" and that it serves the model {self.settings.model!r}"
                if self.settings.model
                else ""
            )
            + "."
        )

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamItem]:
        if self.finder is not None:
            await self.finder.ensure()
        content = self._encode(messages, tools)
        headers = {"Content-Type": "application/json"}
        try:
            async with self._http().stream(
                "POST", self.url, content=content, headers=headers
            ) as response:
                if response.status_code >= 400:
                    error = await _bounded(response)
                    if tools and refuses_tools(response.status_code, error):
                        self.tool_support.remember(self.settings.model)
                        raise ToolsRefused(
                            f"the model server at {self.url} cannot use tools with "
                            + (
                                f"the model {self.settings.model!r}"
                                if self.settings.model
                                else "this model"
                            )
                        )
                    raise self._unavailable(_answered(response.status_code, error))
                if response.headers.get("content-type", "").startswith("application/json"):
                    # A server that ignores "stream": one whole completion, parsed the same way.
                    whole = (await response.aread()).decode("utf-8", "replace")
                    payloads = _single(whole)
                else:
                    payloads = _sse_data(response)
                async for item in self._parse(payloads):
                    yield item
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise self._unavailable(_FAULTS[classify(exc)]) from None

    async def _parse(self, payloads: AsyncIterator[str]) -> AsyncIterator[StreamItem]:
        content, reasoning = LeakGuard(), LeakGuard()
        calls = ToolCallAccumulator()
        finish: str | None = None
        done = False
        async for data in payloads:
            if data == "[DONE]":
                done = True
                await _drain(payloads)
                break
            try:
                chunk = jsontext.loads(data)
            except ValueError:
                raise self._unavailable("sent a response that is not JSON") from None
            if not isinstance(chunk, dict):
                continue
            if _ESCAPED_SURROGATE.search(data):
                # A lone surrogate escaped in the model's text would break every writer
                # downstream (SSE, history); it is repaired here, once. One inside a tool
                # call's own arguments text is still refused by validation. Only a \u
                # escape can make one (the line itself was decoded from UTF-8), so the
                # chunks without one, nearly all, are not walked.
                chunk = printable(chunk)
            if isinstance(chunk.get("error"), dict | str):
                raise self._unavailable("reported an error")
            for choice in chunk.get("choices") or []:
                if not isinstance(choice, dict):
                    continue
                delta = choice.get("delta") or choice.get("message") or {}
                if isinstance(delta, dict):
                    for key in ("reasoning_content", "reasoning", "thinking"):
                        text = delta.get(key)
                        if isinstance(text, str) and text:
                            released = reasoning.feed(text)
                            if released:
                                yield Delta("reasoning", released)
                    text = delta.get("content")
                    if isinstance(text, str) and text:
                        released = content.feed(text)
                        if released:
                            yield Delta("content", released)
                    for fragment in delta.get("tool_calls") or []:
                        calls.add(fragment)
                if isinstance(choice.get("finish_reason"), str):
                    finish = choice["finish_reason"]
        if not done and finish is None:
            raise self._unavailable("broke off its answer")
        tail, leaked = content.finish()
        if tail:
            yield Delta("content", tail)
        rtail, rleaked = reasoning.finish()
        if rtail:
            yield Delta("reasoning", rtail)
        # Calls are decided from what accumulated, not from finish_reason: servers answer
        # "stop" with calls, or "tool_calls" with none.
        found = calls.calls() or [*leaked.calls, *rleaked.calls]
        yield Completion(
            content=content.released + tail,
            reasoning=reasoning.released + rtail,
            tool_calls=found,
            finish_reason=finish,
            malformed_calls=leaked.malformed + rleaked.malformed,
        )


#: A JSON escape of a UTF-16 surrogate (``\ud800``–``\udfff``, any case).
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89abcdefABCDEF]")

#: Encoded tools kept at most (descriptions vary with settings; schemas do not).
MAX_ENCODED_TOOLS = 64


def _dumps(value: Any) -> str:
    # As httpx encodes ``json=``: UTF-8 as is, compact, no NaN.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


#: How long to wait for the rest of a body after ``data: [DONE]`` before giving up on it.
DRAIN_SECONDS = 0.05


async def _drain(payloads: AsyncIterator[str]) -> None:
    """Read what follows ``[DONE]`` (normally only the end of the chunked body).

    httpx returns a connection to its pool only when the body was read to its end; an answer
    left unread costs a new connection (a connect and a close) on every model request. A
    server that keeps the body open past ``[DONE]`` is not waited for: its connection is
    simply closed with the response.
    """
    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            async for _ in payloads:
                pass
    except (TimeoutError, httpx.HTTPError):
        pass


def _answered(status: int, body: bytes) -> str:
    """``answered HTTP 400 ("model is required")``: the server's own reason, bounded and
    plain, as a hosted provider's explanation is shown (spyglass.providers.explain)."""
    reason = explanation(error_message(body)).replace('"', "'")
    return f'answered HTTP {status} ("{reason}")' if reason else f"answered HTTP {status}"


async def _bounded(response: httpx.Response) -> bytes:
    """The start of an error body: enough to read the server's message, never more."""
    body = b""
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) >= MAX_ERROR_BYTES:
            break
    return body[:MAX_ERROR_BYTES]


async def _sse_data(response: httpx.Response) -> AsyncIterator[str]:
    """The ``data:`` payloads of an SSE body (comments and other fields are skipped).

    Lines are split in bytes and each whole line decoded on its own: an SSE stream is UTF-8
    by definition, and no byte of a multi-byte character is a line end. (httpx's text and
    line iterators would add two generator layers and an incremental decoder per chunk; a
    model streams hundreds of chunks an answer.)
    """
    pending = b""
    async for chunk in response.aiter_bytes():
        if b"\r" in chunk:
            # CR LF and a lone CR end a line as LF does; a CR LF cut between two chunks
            # makes an empty line, which carries no data.
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        for line in lines:
            if line.startswith(b"data:"):
                yield line[5:].decode("utf-8", "replace").strip()
    if pending.startswith(b"data:"):
        yield pending[5:].decode("utf-8", "replace").strip()


async def _single(body: str) -> AsyncIterator[str]:
    yield body
    yield "[DONE]"


#: How each kind of network failure reads after "the model server at URL ...".
_FAULTS = {
    Fault.TIMEOUT: "did not answer in time",
    Fault.NAME: "cannot be reached: its host name could not be looked up",
    Fault.UNREACHABLE: "cannot be reached: the network is unreachable",
    Fault.REFUSED: "cannot be reached: it refused the connection",
    Fault.TLS: "cannot be reached: its TLS certificate could not be verified",
    Fault.CONNECT: "cannot be reached",
    Fault.BROKEN: "broke off its answer",
    Fault.REQUEST: "cannot be asked: llm.base_url is not a usable http(s) address",
}
