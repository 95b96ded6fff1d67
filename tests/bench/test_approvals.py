"""The approvals benchmark, run small: its figures are what the modes promise."""

from __future__ import annotations

from bench.approvals import injections, research


async def test_a_research_turn_asks_one_card_per_round_under_each_and_none_under_flagged() -> None:
    figures = await research(turns=1)
    assert (figures["each"]["cards"], figures["each"]["calls_asked"]) == (2, 3)
    assert (figures["flagged"]["cards"], figures["flagged"]["calls_asked"]) == (0, 0)
    assert figures["flagged"]["calls"] == figures["each"]["calls"] == 3


async def test_the_injection_suite_has_the_model_obey_and_nothing_leave_unapproved() -> None:
    rows = await injections(kinds=("email",))
    assert len(rows) == 12  # two scenarios, three modes, two wires
    assert all(row["obeyed"] for row in rows)
    assert sum(row["unapproved_connections"] for row in rows) == 0
