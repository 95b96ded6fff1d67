"""The round-eight page-type measurements stack and group pages as their docs say."""

from __future__ import annotations

from bench.page_types import TYPES, Oracle, TypeModels, predicted_group, with_types


def page(corpus: str = "wcxb", kind: str = "article", rows: object = None) -> dict:
    return {
        "corpus": corpus,
        "type": kind,
        "rows": rows,
        "names": ["kind", "ld_article", "ld_product"],
    }


def test_type_columns_end_every_readings_row_and_are_named() -> None:
    stacked = with_types(page(rows=[[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]), [0.5] * len(TYPES))
    assert [len(row) for row in stacked["rows"]] == [3 + len(TYPES)] * 2
    assert stacked["names"][3:] == [f"type_{t}" for t in TYPES]


def test_a_page_without_rows_is_left_as_it_is() -> None:
    empty = page()
    assert with_types(empty, [1.0] * len(TYPES)) is empty


def test_the_oracle_gives_the_true_type_and_trafilatura_eval_pages_as_articles() -> None:
    pages = [page(kind="listing"), page(corpus="trafilatura", kind="news/blog")]
    found = Oracle(pages).probabilities([0, 1], frozenset())
    assert found[0] == [float(t == "listing") for t in TYPES]
    assert found[1] == [float(t == "article") for t in TYPES]


def test_trafilatura_eval_pages_train_the_type_model_only_when_asked() -> None:
    pages = [page(kind="forum"), page(corpus="trafilatura", kind="news/blog")]
    alone = TypeModels(pages, [0, 1], [[0.0], [0.0]], False, 1)
    assert alone.label(0) == TYPES.index("forum")
    assert alone.label(1) is None
    assert TypeModels(pages, [0, 1], [[0.0], [0.0]], True, 1).label(1) == TYPES.index("article")


def test_a_declared_type_keeps_its_group_and_only_undeclared_pages_are_split() -> None:
    names = {"kind": 0, "ld_article": 1, "ld_product": 2}
    declared = {"row": [0.0, 1.0, 0.0]}
    undeclared = {"row": [0.0, 0.0, 0.0]}
    assert predicted_group(declared, names, 0.1) == "article"
    assert predicted_group(undeclared, names, 0.7) == "none/article"
    assert predicted_group(undeclared, names, 0.3) == "none/other"
