"""``spyglass serve`` as a real subprocess."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.fake_model import FakeModel, text
from tests.support.server import wait_until

URL = re.compile(r"(http://127\.0\.0\.1:\d+)/login\?code=\S+")


def spyglass(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    env["SPYGLASS_HOME"] = str(home)
    return subprocess.Popen(
        [sys.executable, "-m", "spyglass", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def served(home: Path) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    process = spyglass(home, "serve", "--port", "0")
    lines: list[str] = []
    assert process.stderr is not None
    reader = threading.Thread(
        target=lambda: lines.extend(iter(process.stderr.readline, "")), daemon=True
    )
    reader.start()
    try:
        wait_until(lambda: any("Ctrl-C" in line for line in lines), what="serve to start")
        yield process, lines
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        reader.join(timeout=10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_with_nothing_set_serve_finds_the_one_model_of_ollama_and_talks_to_it_by_name(
    home: Path,
) -> None:
    try:
        ollama = FakeModel(models=["qwen3:8b"], ollama=True, port=11434)
    except OSError:
        pytest.skip("127.0.0.1:11434 is taken on this machine (a real Ollama?)")
    with ollama:
        ollama.script(text("Hello from qwen3."))
        process = spyglass(home, "serve", "--port", "0")
        lines: list[str] = []
        assert process.stderr is not None
        reader = threading.Thread(
            target=lambda: lines.extend(iter(process.stderr.readline, "")), daemon=True
        )
        reader.start()
        try:
            wait_until(lambda: any("Ctrl-C" in line for line in lines), what="serve to start")
            output = "".join(lines)
            assert "Model: using qwen3:8b on Ollama at 127.0.0.1:11434" in output
            base = re.search(r"API: (http://127\.0\.0\.1:\d+)/api/v1", output)
            assert base is not None
            # The token file is written as the service starts, just after that line.
            wait_until((home / "api-token").exists, what="the API token")
            token = (home / "api-token").read_text().strip()
            with httpx.Client(trust_env=False, timeout=20) as http:
                answer = http.post(
                    f"{base.group(1)}/api/v1/conversation/message",
                    json={"text": "hi"},
                    headers={"Authorization": f"Bearer {token}"},
                ).json()
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=15)
            reader.join(timeout=10)
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    stream.close()
    assert answer["text"] == "Hello from qwen3."
    assert ollama.requests[0]["model"] == "qwen3:8b"


def test_serve_prints_where_data_lives_and_a_working_one_time_console_link(
    served: tuple[subprocess.Popen[str], list[str]], home: Path
) -> None:
    process, lines = served
    output = "".join(lines)
    assert str(home) in output and "spyglass.db" in output and "api-token" in output
    match = URL.search(output)
    assert match is not None
    base, link = match.group(1), match.group(0)
    with httpx.Client(trust_env=False, timeout=5) as http:
        assert http.get(f"{base}/api/v1/health").json()["status"] == "ok"
        assert http.get(link).status_code == 303
        assert http.get(link).status_code == 401
    assert (home / "api-token").exists()

    # A second link can be asked for while it runs.
    port = base.rsplit(":", 1)[1]
    again = spyglass(home, "serve", "--print-login-url", "--port", port)
    out, _ = again.communicate(timeout=30)
    assert again.returncode == 0 and URL.search(out)

    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=15) == 0
    wait_until(lambda: any("stopped" in line for line in lines), what="the goodbye line")


def test_binding_a_non_loopback_address_needs_allow_remote(home: Path) -> None:
    process = spyglass(home, "serve", "--host", "0.0.0.0", "--port", "0")
    _, err = process.communicate(timeout=30)
    assert process.returncode == 2
    assert "--allow-remote" in err


def test_print_login_url_without_a_running_service_says_how_to_start_one(home: Path) -> None:
    process = spyglass(home, "serve", "--print-login-url", "--port", "1")
    _, err = process.communicate(timeout=30)
    assert process.returncode == 1
    assert "spyglass serve" in err


def test_the_listening_socket_is_tcp_so_asyncio_turns_nagle_off() -> None:
    import socket

    from spyglass.cli.serve import bind

    sock = bind("127.0.0.1", 0)
    try:
        # A proto of 0 makes asyncio skip TCP_NODELAY: every response then waits ~40 ms.
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()


def test_only_loopback_addresses_count_as_loopback() -> None:
    from spyglass.cli.serve import is_loopback

    assert all(is_loopback(h) for h in ("127.0.0.1", "127.5.5.5", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "192.168.1.2", "example.org", "::"))


def test_serve_reports_a_reader_without_its_key_and_an_unset_model_at_start_and_keeps_serving(
    home: Path,
) -> None:
    (home / "config.toml").write_text('[fetch]\nproviders = "firecrawl"\n')
    process = spyglass(home, "serve", "--port", "0")
    lines: list[str] = []
    assert process.stderr is not None
    reader = threading.Thread(
        target=lambda: lines.extend(iter(process.stderr.readline, "")), daemon=True
    )
    reader.start()
    try:
        wait_until(lambda: any("Ctrl-C" in line for line in lines), what="serve to start")
        output = "".join(lines)
        assert "configuration problem" in output and "fetch.firecrawl.api_key" in output
        match = URL.search(output)
        assert match is not None
        with httpx.Client(trust_env=False, timeout=5) as http:
            health = http.get(f"{match.group(1)}/api/v1/health").json()
        assert any("fetch.firecrawl.api_key" in problem for problem in health["problems"])
        assert "Model: " in output and "warning: llm.model is not set" in output
        assert health["model"]["set"] is False and "llm.model" in health["model"]["problem"]
    finally:
        process.kill()
        process.wait(timeout=10)
        reader.join(timeout=10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_stops_serve_as_cleanly_as_ctrl_c(
    served: tuple[subprocess.Popen[str], list[str]], stop: signal.Signals
) -> None:
    process, lines = served
    match = URL.search("".join(lines))
    assert match is not None
    # Signalled once it serves, as a service manager would stop it.
    with httpx.Client(trust_env=False, timeout=5) as http:
        assert http.get(f"{match.group(1)}/api/v1/health").status_code == 200
    process.send_signal(stop)
    assert process.wait(timeout=30) == 0
    wait_until(lambda: any("Spyglass stopped." in line for line in lines), what="the goodbye line")
    assert not any("Traceback" in line for line in lines)


def test_a_request_that_is_not_http_is_refused_by_the_real_serve(
    served: tuple[subprocess.Popen[str], list[str]],
) -> None:
    from tests.support.server import exchange

    _process, lines = served
    base = next(match.group(1) for line in lines if (match := URL.search(line)))
    status, headers, body = exchange(base, b"GET / HTTP/1.1\r\nHost: {host}\r\nBad Header\r\n\r\n")
    assert status == 400
    assert headers["connection"] == "close"
    assert b"Invalid HTTP request" in body
