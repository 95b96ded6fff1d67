"""``spyglass fetch`` in a subprocess: refusals, exit codes and hints people can act on."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.cli.support import run, run_on_terminal


def enable(home: Path) -> None:
    assert run("policy", "enable", home=home).code == 0


def test_with_web_access_off_it_says_how_to_turn_it_on(home: Path) -> None:
    result = run("fetch", "http://example.com/", "--yes", home=home)
    assert result.code == 3
    assert "spyglass policy enable" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_loopback_url_is_refused_as_this_machine_itself(home: Path) -> None:
    enable(home)
    result = run("fetch", "http://127.0.0.1:9/", "--yes", home=home)
    assert result.code == 3
    assert "refused: the address is this machine itself" in result.stderr
    assert "fetch.private_network" not in result.stderr
    assert "FETCH_TARGET_REJECTED" in result.stderr


def test_json_output_is_the_outcome_with_the_reason(home: Path) -> None:
    enable(home)
    result = run("fetch", "file:///etc/passwd", "--yes", "--json", home=home)
    assert result.code == 3
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "rejected"
    assert outcome["error"]["code"] == "FETCH_TARGET_REJECTED"
    assert outcome["error"]["reason"] == "scheme"


def test_without_a_terminal_or_yes_nothing_is_fetched(home: Path) -> None:
    enable(home)
    result = run("fetch", "http://example.com/", home=home)
    assert result.code == 4
    assert "--yes" in result.stderr


def test_a_too_small_max_chars_is_a_usage_error(home: Path) -> None:
    result = run("fetch", "http://example.com/", "--max-chars", "10", home=home)
    assert result.code == 2


def test_web_text_cannot_send_terminal_control_sequences() -> None:
    from spyglass.cli.fetch import clean

    assert clean("ok\x1b]52;c;cHduZWQ=\x07 \x1b[2Jtext\u202e") == "ok]52;c;cHduZWQ= [2Jtext"
    assert clean("line\n\ttab") == "line\n\ttab"


def test_a_read_with_a_note_prints_it_after_the_text() -> None:
    from io import StringIO

    from rich.console import Console

    from spyglass.cli.fetch import _render
    from spyglass.core.outcome import Outcome

    result = {
        "url": "https://shop.example/",
        "final_url": "https://shop.example/",
        "title": "Clearance",
        "text": "",
        "total_chars": 0,
        "note": "No text could be read from this page.",
    }
    outcome = Outcome("ok", "web.fetch", 1, "0" * 32, "execute", result=result)
    out = StringIO()
    _render(outcome, Console(file=out, width=100))
    printed = out.getvalue()
    assert printed.startswith("Clearance\nhttps://shop.example/\n")
    assert printed.rstrip().endswith("[No text could be read from this page.]")


def test_without_a_terminal_a_private_address_is_refused_not_left_unconfirmed(home: Path) -> None:
    enable(home)
    result = run("fetch", "http://127.0.0.1/", home=home)
    assert result.code == 3
    assert "this machine itself" in result.stderr
    assert "--yes" not in result.stderr


def test_a_url_without_a_scheme_gets_the_https_spelling_suggested(home: Path) -> None:
    enable(home)
    result = run("fetch", "example.org", home=home)
    assert result.code == 3
    assert "https://example.org" in result.stderr
    assert "this scheme" not in result.stderr


def test_the_prompt_shows_the_focus_as_staying_on_this_machine(home: Path) -> None:
    enable(home)
    result = run_on_terminal(
        "fetch", "http://example.com/", "--focus", "who built the bridge", home=home, answer="n"
    )
    shown = re.sub(r"\x1b\[[0-9;]*m", "", result.stderr)
    assert 'url: "http://example.com/"' in shown
    assert 'looking for: "who built the bridge" (stays on this machine, never sent)' in shown
    assert "focus:" not in shown
    assert result.code != 0


def test_a_focus_longer_than_the_schema_allows_is_a_usage_error(home: Path) -> None:
    enable(home)
    result = run("fetch", "http://example.com/", "--focus", "x" * 501, "--yes", home=home)
    assert result.code != 0
    assert "--focus" in result.stderr
