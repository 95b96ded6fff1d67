"""Error lines are written without rich: plain when piped, and never carrying control codes."""

from __future__ import annotations

import click
import pytest

from spyglass.cli.output import EXIT_REJECTED, fail, report_problem
from spyglass.core.outcome import ErrorInfo, Outcome


def test_a_refusal_quoting_upstream_text_cannot_drive_the_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    outcome = Outcome(
        status="failed",
        capability="web.search",
        version=1,
        invocation_id="i",
        stage="execute",
        error=ErrorInfo("EXECUTION_FAILED", "upstream said \x1b[2J\x1b]0;owned\x07 no \u202eevil"),
    )
    report_problem(outcome)
    err = capsys.readouterr().err
    assert "\x1b[2J" not in err and "\x1b]0" not in err and "\x07" not in err
    assert "\u202e" not in err
    assert "upstream said" in err and "(EXECUTION_FAILED)" in err


def test_errors_are_plain_text_without_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    with pytest.raises(click.exceptions.Exit) as done:
        fail("no such thing [bold]here[/]", EXIT_REJECTED, hint="try another")
    assert done.value.exit_code == EXIT_REJECTED
    assert capsys.readouterr().err == "error: no such thing [bold]here[/]\nhint: try another\n"
