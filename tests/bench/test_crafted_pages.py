"""The crafted-pages benchmark at a tiny size: pages at the cap, each side in its own process."""

from __future__ import annotations

import pytest
from bench.crafted_pages import CAP_CASES, at_cap, read_in_this_process


@pytest.mark.parametrize("case", list(CAP_CASES))
def test_every_page_at_the_cap_is_read_by_ours_and_what_it_cost_reported(case: str) -> None:
    cost = read_in_this_process("ours", case, 3000)
    assert cost["cpu"] > 0 and cost["wall"] > 0 and cost["peak"] >= cost["grown"] >= 0


def test_both_sides_read_a_page_in_a_fresh_process_and_report_their_peak_memory() -> None:
    found = at_cap(3000, ["a huge table"])
    sides = found["a huge table"]
    assert set(sides) == {"ours", "trafilatura"}
    for cost in sides.values():
        assert set(cost) == {"cpu", "wall", "peak", "grown"}
        # A fresh interpreter with lxml loaded holds more than 10 MB.
        assert cost["peak"] > 10
