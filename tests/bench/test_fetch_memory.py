"""The whole ``spyglass fetch`` measured in a private network namespace, on its smallest page."""

from __future__ import annotations

import pytest
from bench.fetch_memory import PATHS, cli_peaks

from tests.support import netns

SKIP = netns.unavailable()


def test_the_pages_measured_are_the_floor_the_endless_body_and_every_page_at_the_cap() -> None:
    assert PATHS[:2] == ["/page", "/gigabyte"]
    assert {path.removeprefix("/cap/") for path in PATHS[2:]} == {
        "one-long-paragraph",
        "deep-nesting",
        "many-small-blocks",
        "a-huge-table",
    }


@pytest.mark.netns
@pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
def test_spyglass_fetch_of_a_page_reports_its_peak_memory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cli_peaks(["/page"])
    shown = capsys.readouterr().out
    assert "spyglass fetch /page" in shown
    assert "(exit 0)" in shown
