"""A reading change measured with the models held still compares the same pages only."""

from __future__ import annotations

from typing import Any

import pytest
from bench.frozen_models import changed_pages


def page(page_id: str, region: str) -> dict[str, Any]:
    return {
        "corpus": "wcxb",
        "id": page_id,
        "texts": {"article": "story", "region": region, "block": ""},
    }


def test_only_the_pages_whose_readings_differ_are_counted_as_changed() -> None:
    before = [page("1", "a"), page("2", "b"), page("3", "c")]
    after = [page("1", "a"), page("2", "b, now a table"), page("3", "c")]
    assert changed_pages(before, after) == [1]


def test_caches_of_other_pages_or_another_order_are_refused() -> None:
    before = [page("1", "a"), page("2", "b")]
    with pytest.raises(SystemExit, match="same pages in the same order"):
        changed_pages(before, list(reversed(before)))
    with pytest.raises(SystemExit, match="same pages in the same order"):
        changed_pages(before, before[:1])
