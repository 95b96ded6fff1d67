"""A scripted fake model: a real loopback HTTP server speaking OpenAI streaming SSE.

Usage::

    with FakeModel() as model:                       # listens on 127.0.0.1:<ephemeral port>
        model.script(tool_call("web_search", {"query": "otters"}), text("Otters are ..."))
        settings.llm.base_url = model.base_url       # "http://127.0.0.1:PORT/v1"
        ...
        model.requests                               # every request body received, in order
        model.headers                                # and their headers
        model.peers                                  # and the client (host, port) of each

Each ``POST /v1/chat/completions`` consumes the next scripted :class:`Reply`; when the script
is empty, ``default`` (a callable taking the request body) answers — by default a plain
``"(no more script)"`` text. ``FakeModel(models=[...])`` also lists models at
``GET /v1/models`` (and, with ``ollama=True``, at Ollama's ``/api/tags`` and ``/api/show``).
Builders:

- ``text(content, reasoning=None, pieces=3)`` — content (and reasoning) split into pieces;
- ``tool_call(name, arguments, call_id="call_1", pieces=3, index=0)`` — one call whose
  arguments JSON arrives in ``pieces`` fragments (OpenAI / llama-server style);
- ``tool_calls(*calls, style="ollama")`` — several whole calls all at ``index`` 0;
- ``Reply(deltas=[...], finish_reason=..., break_after=N, delay=s, status=code)`` — anything
  else: raw ``delta`` objects, a stream that drops the connection after N chunks, a slow
  stream (``delay`` seconds between chunks), an HTTP error status, or (``whole=True``) one
  non-streamed ``chat.completion`` JSON built from the deltas.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import LoopbackServer, QuietHandler, QuietServer


@dataclass
class Reply:
    deltas: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = "stop"
    break_after: int | None = None
    delay: float = 0.0
    status: int = 200
    send_done: bool = True
    #: Answer one non-streamed ``chat.completion`` JSON, as servers that ignore "stream" do.
    whole: bool = False
    #: The exact body of an error answer (``status`` other than 200).
    error_body: bytes = b'{"error": {"message": "scripted failure"}}'
    #: Seconds to keep the body open after ``data: [DONE]`` before ending it.
    hold_after_done: float = 0.0


def _split(text: str, pieces: int) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // max(1, pieces)))
    return [text[i : i + size] for i in range(0, len(text), size)]


def text(content: str, *, reasoning: str | None = None, pieces: int = 3) -> Reply:
    deltas: list[dict[str, Any]] = [{"role": "assistant"}]
    deltas += [{"reasoning_content": part} for part in _split(reasoning or "", pieces)]
    deltas += [{"content": part} for part in _split(content, pieces)]
    return Reply(deltas=deltas, finish_reason="stop")


def tool_call(
    name: str,
    arguments: dict[str, Any],
    *,
    call_id: str = "call_1",
    pieces: int = 3,
    index: int = 0,
    content: str = "",
) -> Reply:
    raw = json.dumps(arguments)
    deltas: list[dict[str, Any]] = [{"role": "assistant"}]
    if content:
        deltas.append({"content": content})
    parts = _split(raw, pieces)
    deltas.append(
        {
            "tool_calls": [
                {
                    "index": index,
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": parts[0]},
                }
            ]
        }
    )
    for part in parts[1:]:
        deltas.append({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
    return Reply(deltas=deltas, finish_reason="tool_calls")


def tool_calls(*calls: tuple[str, dict[str, Any], str], style: str = "ollama") -> Reply:
    """Several whole calls; ``ollama`` style puts every one at index 0 with arguments as
    an object, ``openai`` style gives each its own index and a JSON string."""
    deltas: list[dict[str, Any]] = [{"role": "assistant"}]
    for position, (name, arguments, call_id) in enumerate(calls):
        ollama = style == "ollama"
        deltas.append(
            {
                "tool_calls": [
                    {
                        "index": 0 if ollama else position,
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": name,
                            "arguments": arguments if ollama else json.dumps(arguments),
                        },
                    }
                ]
            }
        )
    # Ollama answers "stop" even when it made calls.
    return Reply(deltas=deltas, finish_reason="stop" if style == "ollama" else "tool_calls")


#: How servers refuse a request with ``tools`` for a model that cannot take them, byte for
#: byte: status and body. Ollama's ``/v1`` wraps its scheduler's "<model> does not support
#: tools" in an OpenAI error (type ``invalid_request_error`` since it maps the status;
#: ``api_error`` before); llama-server without ``--jinja`` answers 500; vLLM without a tool
#: parser answers 400 (older releases put the message at the top level).
TOOL_REFUSALS: dict[str, tuple[int, bytes]] = {
    "ollama": (
        400,
        b'{"error":{"message":"registry.ollama.ai/library/gemma3:270m does not support tools",'
        b'"type":"invalid_request_error","param":null,"code":null}}\n',
    ),
    "ollama-0.3": (
        400,
        b'{"error":{"message":"stablelm2:latest does not support tools","type":"api_error",'
        b'"param":null,"code":null}}\n',
    ),
    "llama-server": (
        500,
        b'{"error":{"code":500,"message":"tools param requires --jinja flag",'
        b'"type":"server_error"}}',
    ),
    "vllm": (
        400,
        b'{"error":{"message":"\\"auto\\" tool choice requires --enable-auto-tool-choice and '
        b'--tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}}',
    ),
    "vllm-0.6": (
        400,
        b'{"object":"error","message":"\\"auto\\" tool choice requires '
        b'--enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError",'
        b'"param":null,"code":400}',
    ),
}


def refuses_tools(dialect: str = "ollama") -> Reply:
    """The server's answer to a request with ``tools`` for a model without tool support."""
    status, body = TOOL_REFUSALS[dialect]
    return Reply(status=status, error_body=body)


def without_tool_support(
    answer: Callable[[dict[str, Any]], Reply], dialect: str = "ollama"
) -> Callable[[dict[str, Any]], Reply]:
    """A ``default`` that behaves like a model without tool support: any request that
    carries ``tools`` is refused as ``dialect`` refuses it; any other is ``answer``ed."""
    return lambda body: refuses_tools(dialect) if body.get("tools") else answer(body)


def _chunk(delta: dict[str, Any], finish: str | None) -> bytes:
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


def _completion(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(d.get("content", "") for d in reply.deltas) or None,
    }
    calls = [
        {k: v for k, v in call.items() if k != "index"}
        for d in reply.deltas
        for call in d.get("tool_calls", [])
    ]
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
    }


class FakeModel(LoopbackServer):
    """The server; a context manager that starts and stops it."""

    def __init__(
        self,
        default: Callable[[dict[str, Any]], Reply] | None = None,
        *,
        models: list[str] | None = None,
        ollama: bool = False,
        tools: dict[str, bool] | None = None,
        port: int = 0,
    ) -> None:
        self.default = default or (lambda body: text("(no more script)"))
        #: The models ``GET /v1/models`` lists (None: the server has no model list, 404).
        self.models = models
        #: Also speak Ollama's own ``/api/tags`` and ``/api/show`` (its ``capabilities``
        #: list ``tools`` for the models ``tools`` maps to True).
        self.ollama = ollama
        self.tools = tools or {}
        self.requests: list[dict[str, Any]] = []
        #: The HTTP headers of every request, lower-cased names.
        self.headers: list[dict[str, str]] = []
        #: The client address (host, port) of every request: one port per connection.
        self.peers: list[tuple[str, int]] = []
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        # ``port``: a fixed loopback port (a server's default one) instead of a free one.
        super().__init__(server=QuietServer(("127.0.0.1", port), self._handler()))

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._script.extend(replies)

    def forget_script(self) -> None:
        """Drop scripted replies nobody asked for (a server shared by several tests)."""
        with self._lock:
            self._script.clear()

    def _next(self, body: dict[str, Any], headers: dict[str, str], peer: tuple[str, int]) -> Reply:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self.peers.append(peer)
            if self._script:
                return self._script.popleft()
        return self.default(body)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                if fake.models is not None and path == "/v1/models":
                    body: dict[str, Any] = {
                        "object": "list",
                        "data": [{"id": name, "object": "model"} for name in fake.models],
                    }
                elif fake.models is not None and fake.ollama and path == "/api/tags":
                    body = {"models": [{"name": name, "model": name} for name in fake.models]}
                else:
                    self.send_error(404)
                    return
                self._json(body)

            def _json(self, body: dict[str, Any]) -> None:
                payload = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                if fake.ollama and self.path == "/api/show":
                    length = int(self.headers.get("Content-Length", "0"))
                    asked = json.loads(self.rfile.read(length) or b"{}").get("model")
                    tools = ["tools"] if fake.tools.get(asked) else []
                    self._json({"capabilities": ["completion", *tools]})
                    return
                length = int(self.headers.get("Content-Length", "0"))
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                headers = {k.lower(): v for k, v in self.headers.items()}
                reply = fake._next(body, headers, self.client_address[:2])
                if reply.status != 200:
                    payload = reply.error_body
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if reply.whole:
                    payload = json.dumps(_completion(reply)).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    self._stream(reply)
                except (BrokenPipeError, ConnectionResetError):
                    return

            def _write(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

            def _stream(self, reply: Reply) -> None:
                for number, delta in enumerate(reply.deltas):
                    if reply.break_after is not None and number >= reply.break_after:
                        # Drop the connection mid-body: the chunked stream never ends.
                        self.wfile.write(b"5\r\nda")
                        self.wfile.flush()
                        self.close_connection = True
                        return
                    if reply.delay:
                        time.sleep(reply.delay)  # a slow model, on purpose
                    self._write(_chunk(delta, None))
                self._write(_chunk({}, reply.finish_reason))
                if reply.send_done:
                    self._write(b"data: [DONE]\n\n")
                if reply.hold_after_done:
                    time.sleep(reply.hold_after_done)  # a server slow to end its body
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        return Handler
