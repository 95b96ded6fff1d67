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
