"""Scoring the metadata header against WCXB's annotations."""

from __future__ import annotations

from bench.metadata_accuracy import author_match, judge, summarise, title_match


def test_a_title_with_the_same_words_is_right_and_a_near_one_close() -> None:
    assert title_match("Kettles, Compared!", "kettles compared") == (True, True)
    near = (
        "How to choose a kettle for a small kitchen",
        "How to choose a kettle for a tiny kitchen",
    )
    assert title_match(*near) == (False, True)
    assert title_match("Best toasters", "Kettles compared") == (False, False)


def test_authors_match_whatever_their_order_case_and_byline_words() -> None:
    assert author_match("By Ada Baker and Ben Cole", "ben cole; ada baker")
    assert not author_match("Ada Baker; Kitchen Weekly", "Ada Baker")


def test_a_value_is_judged_only_against_an_annotation_that_has_one() -> None:
    assert judge("published", "2024-05-02", "2024-05-02") == "right"
    assert judge("published", "2024-05-03", "2024-05-02") == "wrong"
    assert judge("published", None, "2024-05-02") == "none"
    assert judge("published", "2024-05-02", None) == "unannotated"
    assert judge("published", None, None) == ""
    assert judge(
        "title", "Choose a kettle for a small flat", "Choose a kettle for a tiny flat"
    ) == ("close")


def test_the_counts_are_by_system_and_field() -> None:
    page = {
        "truth": {"title": "Kettles", "author": None, "published": "2024-05-02"},
        "found": {
            "ours": {"title": "Kettles", "author": None, "published": None},
            "trafilatura": {"title": "Toasters", "author": "Ada", "published": "2024-05-02"},
        },
    }
    counts = summarise([page])
    assert counts["ours"]["title"] == {"right": 1, "annotated": 1}
    assert counts["ours"]["published"] == {"none": 1, "annotated": 1}
    assert counts["trafilatura"]["author"] == {"unannotated": 1, "annotated": 0}
    assert counts["trafilatura"]["published"] == {"right": 1, "annotated": 1}
    assert counts["ours"]["author"] == {"annotated": 0}
