"""``spyglass audit tail``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.support import run


def test_tail_on_a_fresh_home_says_there_is_nothing_yet(home: Path) -> None:
    result = run("audit", "tail", home=home)
    assert result.code == 0
    assert "No audit events yet" in result.stdout


def test_tail_shows_the_newest_events_in_both_formats(home: Path) -> None:
    for _ in range(3):
        run("invoke", "system.health", home=home)
    run("invoke", "web.secret", home=home)
    events = json.loads(run("audit", "tail", "-n", "2", "--json", home=home).stdout)
    assert [e["outcome"] for e in events] == ["ok", "rejected"]
    assert events[0]["channel"] == "cli" and events[0]["capability"] == "system.health"
    human = run("audit", "tail", home=home)
    assert human.stdout.count("system.health") == 3
    assert "UNKNOWN_CAPABILITY" in human.stdout


def test_receipts_list_what_left_the_device_from_the_history(home: Path) -> None:
    from spyglass.paths import Paths
    from spyglass.state.sqlite.history import SQLiteHistory

    history = SQLiteHistory(Paths(home).database_file, retention_days=30)
    history.add_user("c1", "t1", "zebra facts please", title="zebra facts please")
    receipt = {
        "left_device": True,
        "summary": "Left this device: searched 'zebra facts' (SearXNG, 14:02 UTC)",
        "items": [],
    }
    history.save_assistant(
        "c1", "t1", text="Zebras…", reasoning="", events=[], citations=[], exchanges=[],
        receipt=receipt,
    )  # fmt: skip
    history.close()
    human = run("audit", "receipts", "--since", "1d", home=home)
    assert human.code == 0
    assert "zebra facts please" in human.stdout
    assert "Left this device: searched 'zebra facts' (SearXNG, 14:02 UTC)" in human.stdout
    (found,) = json.loads(run("audit", "receipts", "--json", home=home).stdout)
    assert found["receipt"] == receipt and found["conversation_id"] == "c1"


def test_receipts_on_a_fresh_home_say_there_are_none_and_a_bad_span_says_how(home: Path) -> None:
    result = run("audit", "receipts", "--since", "2w", home=home)
    assert result.code == 0 and "No answers in the last 2w" in result.stdout
    bad = run("audit", "receipts", "--since", "yesterday", home=home)
    assert bad.code == 2 and "e.g. 30m, 12h, 1d or 2w" in bad.stderr
