"""The learning curve draws whole sites, a share of them, differently for each salt."""

from __future__ import annotations

from typing import Any

from bench.learning_curve import in_share


def pages(sites: int, per_site: int = 3) -> list[dict[str, Any]]:
    return [{"domain": f"site{s}.example"} for s in range(sites) for _ in range(per_site)]


def test_a_site_is_in_the_share_with_all_of_its_pages_or_none() -> None:
    found = pages(100)
    admitted = in_share(found, 0.5, "a")
    by_site: dict[str, set[bool]] = {}
    for index, page in enumerate(found):
        by_site.setdefault(page["domain"], set()).add(admitted(index))
    assert all(len(answers) == 1 for answers in by_site.values())


def test_the_whole_share_admits_every_page_and_a_half_share_about_half_the_sites() -> None:
    found = pages(400, per_site=1)
    assert all(in_share(found, 1.0, "a")(i) for i in range(len(found)))
    half = sum(in_share(found, 0.5, "a")(i) for i in range(len(found)))
    assert 150 < half < 250


def test_a_smaller_share_keeps_only_sites_a_larger_one_keeps() -> None:
    found = pages(300, per_site=1)
    small, large = in_share(found, 0.25, "a"), in_share(found, 0.75, "a")
    assert all(large(i) for i in range(len(found)) if small(i))


def test_another_salt_draws_other_sites() -> None:
    found = pages(300, per_site=1)
    first, second = in_share(found, 0.5, "a"), in_share(found, 0.5, "b")
    assert [first(i) for i in range(len(found))] != [second(i) for i in range(len(found))]
