"""What uvicorn refuses on its own, below the app, and what it leaves to the app."""

from __future__ import annotations

import importlib.util
import json
import socket
from collections.abc import Iterator

import httpx
import pytest

from spyglass.runtime import Runtime
from spyglass.service import server
from spyglass.service.middleware import CSP
from spyglass.service.server import MAX_HEAD_BYTES
from tests.support.server import LOOPS, exchange, running_service

#: Requests that are not valid HTTP/1.1, so that uvicorn refuses them before the app sees them.
#: ``{host}`` is the service's own host:port.
MALFORMED = {
    "a request line that is not HTTP": b"GARBAGE\r\n\r\n",
    "a header without a colon": b"GET / HTTP/1.1\r\nHost: {host}\r\nBad Header\r\n\r\n",
    "a header name with a space": b"GET / HTTP/1.1\r\nHost: {host}\r\nX Y: 1\r\n\r\n",
    # Never finished: refused once the unfinished head passes its size limit.
    "headers over the size limit": b"GET / HTTP/1.1\r\nHost: {host}\r\nX-Big: " + b"a" * 100_000,
    "a length that is not a number": b"POST /api/v1/policy HTTP/1.1\r\nHost: {host}\r\n"
    b"Content-Length: ten\r\n\r\n",
    "two different lengths": b"POST /api/v1/policy HTTP/1.1\r\nHost: {host}\r\n"
    b"Content-Length: 1\r\nContent-Length: 2\r\n\r\nx",
    "HTTP/1.1 without a Host header": b"GET /api/v1/health HTTP/1.1\r\n\r\n",
    "a chunk size that is not hexadecimal": b"POST /api/v1/policy HTTP/1.1\r\nHost: {host}\r\n"
    b"Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n",
}


#: Requests that are odd but parse: the app answers them, whatever it answers.
ODD = {
    "HTTP/2 with prior knowledge": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    "a control character in a header value": b"GET / HTTP/1.1\r\nHost: {host}\r\n"
    b"X: a\x01b\r\nConnection: close\r\n\r\n",
    "HTTP/1.0 without a Host header": b"GET /api/v1/health HTTP/1.0\r\n\r\n",
    "an absolute URL as the target": b"GET http://evil.example/ HTTP/1.1\r\nHost: {host}\r\n"
    b"Connection: close\r\n\r\n",
}


@pytest.fixture(params=LOOPS)
def service(runtime: Runtime, request: pytest.FixtureRequest) -> Iterator[str]:
    """The service on each event loop it can run on: the protocol's answers are the same."""
    with running_service(runtime, loop=request.param) as (base, _token):
        yield base


def test_the_service_runs_on_uvloop_where_it_is_installed_and_on_asyncio_otherwise() -> None:
    installed = importlib.util.find_spec("uvloop") is not None
    assert server.event_loop() == ("uvloop" if installed else "asyncio")
    assert server.config("spyglass.service.worker:create").loop == server.event_loop()
    assert server.config("spyglass.service.worker:create", loop="asyncio").loop == "asyncio"


def test_the_service_keeps_an_idle_connection_open_longer_than_clients_and_proxies_do() -> None:
    served = server.config("spyglass.service.worker:create")
    assert served.timeout_keep_alive == server.KEEP_ALIVE_SECONDS
    # httpx drops an idle connection after 5 s and Caddy's reverse proxy after 2 min: the
    # client closes first, so no request is sent down a connection the server is closing.
    assert served.timeout_keep_alive > max(httpx.Limits().keepalive_expiry or 0, 120)


def assert_security_headers(headers: dict[str, str]) -> None:
    assert headers["content-security-policy"] == CSP
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_request_that_is_not_valid_http_is_refused_before_the_app_and_the_connection_closed(
    service: str, raw: bytes
) -> None:
    status, headers, body = exchange(service, raw)
    assert status == 400
    assert headers["connection"] == "close"
    # uvicorn's own fixed answer: nothing of the request, nothing of the app.
    assert headers["content-type"].startswith("text/plain")
    assert b"Invalid HTTP request" in body
    assert "server" not in headers


@pytest.mark.parametrize("raw", ODD.values(), ids=ODD.keys())
def test_an_odd_request_that_parses_is_answered_by_the_app_with_the_security_headers(
    service: str, raw: bytes
) -> None:
    status, headers, _body = exchange(service, raw)
    assert 200 <= status < 500
    assert_security_headers(headers)


def test_a_websocket_upgrade_is_an_ordinary_request_the_app_answers(service: str) -> None:
    raw = (
        b"GET /api/v1/health HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade\r\n"
        b"Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
    status, headers, _body = exchange(service, raw)
    assert status == 200
    assert_security_headers(headers)


def test_a_well_formed_request_still_carries_each_header_once(service: str) -> None:
    status, headers, body = exchange(
        service, b"GET /api/v1/health HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    assert status == 200
    assert_security_headers(headers)  # and exchange() checked no header came twice
    assert json.loads(body)


def _read_to_close(connection: socket.socket) -> bytes:
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def test_a_malformed_request_after_a_good_one_on_the_same_connection_is_refused_after_it(
    service: str,
) -> None:
    host_port = service.removeprefix("http://")
    host, port = host_port.rsplit(":", 1)
    good = f"GET /api/v1/health HTTP/1.1\r\nHost: {host_port}\r\n\r\n".encode()
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(good + b"GARBAGE\r\n\r\n")
        received = _read_to_close(connection)
    # The answer to the good request first, whole, then the refusal of the bad one.
    second = received.index(b"HTTP/1.1 400 ")
    assert received.startswith(b"HTTP/1.1 200 ")
    assert b'"status":"ok"' in received[:second]
    assert b"Invalid HTTP request" in received[second:]


def test_a_large_body_sent_in_one_write_with_its_head_is_not_taken_for_a_long_head(
    service: str,
) -> None:
    body = json.dumps({"text": "x" * (4 * MAX_HEAD_BYTES)}).encode()
    raw = (
        b"POST /api/v1/conversation/message HTTP/1.1\r\nHost: {host}\r\n"
        b"Content-Type: application/json\r\nConnection: close\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    status, headers, answer = exchange(service, raw)
    # No credentials: the auth gate answers, which it can only do for a parsed request.
    assert status == 401
    assert json.loads(answer)["error"]["code"] == "UNAUTHORIZED"
    assert_security_headers(headers)


def test_a_head_just_under_the_limit_sent_in_pieces_is_answered_by_the_app(service: str) -> None:
    host_port = service.removeprefix("http://")
    host, port = host_port.rsplit(":", 1)
    filler = b"a" * (MAX_HEAD_BYTES - 200)
    head = (
        f"GET /api/v1/health HTTP/1.1\r\nHost: {host_port}\r\nConnection: close\r\n".encode()
        + b"X-Filler: "
        + filler
        + b"\r\n\r\n"
    )
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        for start in range(0, len(head), 1000):
            connection.sendall(head[start : start + 1000])
        received = _read_to_close(connection)
    assert received.startswith(b"HTTP/1.1 200 ")
