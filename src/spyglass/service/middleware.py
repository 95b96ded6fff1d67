"""ASGI layers every request passes: security headers, Host check, body size limit."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
INTERNAL_ERROR = "Spyglass hit an unexpected error; the details are in its log"

logger = logging.getLogger(__name__)


async def _send_error(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """Adds CSP, nosniff and no-referrer to every response, errors included.

    It wraps the whole application, Starlette's own error layer too, so whichever layer
    answers (a route, a middleware, the 500 handler) the headers are there; and when
    something fails before any response was started it answers the JSON 500 itself, so the
    server's bare fallback response is never needed.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = finished = False

        async def with_headers(message: Message) -> None:
            nonlocal started, finished
            if message["type"] == "http.response.start":
                started = True
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in SECURITY_HEADERS if n not in names]
                message["headers"] = [*message.get("headers", []), *extra]
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                finished = True
            await send(message)

        try:
            await self.app(scope, receive, with_headers)
        except Exception:
            if finished:
                return  # answered (and logged) by the error handler; nothing more to say
            if started:
                raise  # half a response: only the server can end the connection
            logger.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
            await _send_error(with_headers, 500, "INTERNAL_ERROR", INTERNAL_ERROR)


def allowed_hosts(host: str, port: int, extra: Iterable[str] = ()) -> frozenset[str]:
    """The Host header values accepted: loopback names (and any bound name) with the port."""
    names = set(LOOPBACK_NAMES)
    bound = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if bound not in ("0.0.0.0", "[::]"):  # noqa: S104 - comparing, not binding
        names.add(bound.lower())
    names.update(name.lower() for name in extra)
    hosts = {f"{name}:{port}" for name in names}
    if port == 80:
        hosts.update(names)
    return frozenset(hosts)


class HostCheck:
    """Refuses requests whose one Host header is not a bound name (DNS-rebinding protection),
    and requests with more than one."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            # Exactly one Host: with two, this check and whatever reads the other one later
            # (a framework, a proxy, a log) could disagree about where the request went.
            hosts = [
                value.decode("latin-1").strip().lower()
                for name, value in scope.get("headers", [])
                if name == b"host"
            ]
            if len(hosts) != 1 or hosts[0] not in self.hosts:
                await _send_error(
                    send,
                    421,
                    "HOST_NOT_ALLOWED",
                    "this service answers only to the address it was started on "
                    f"(for example http://{sorted(self.hosts)[0]}/); the Host header "
                    "did not match",
                )
                return
        await self.app(scope, receive, send)


class BodyLimit:
    """Reads at most ``limit`` bytes of a request body; more is refused with 413."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        too_large = (
            f"the request body is larger than {self.limit} bytes; send less "
            "(server.max_body_bytes sets the limit)"
        )
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > self.limit:
                    await _send_error(send, 413, "REQUEST_TOO_LARGE", too_large)
                    return
        # Read the whole (bounded) body first, then hand it to the app in one piece; later
        # receive() calls go straight through so the app still sees a client disconnect.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await _send_error(send, 413, "REQUEST_TOO_LARGE", too_large)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
