"""The keep thresholds: chosen on the training folds for the combined objective, kept from
buying it with trafilatura-eval precision."""

from __future__ import annotations

from bench.keep_rules import BASELINE, Sums, choose_thresholds, held_out, objective

GRID = [0.3, 0.4, 0.5]


def wcxb(group: str, fold: int, f1: dict[float, float]) -> dict[str, object]:
    scores = {t: {"f1": value, "tp": 0.0, "fp": 0.0, "fn": 0.0} for t, value in f1.items()}
    return {"corpus": "wcxb", "type": "article", "fold": fold, "group": group, "scores": scores}


def snippets(group: str, fold: int, counts: dict[float, tuple[float, float, float]]) -> dict:
    scores = {t: {"f1": 0.0, "tp": tp, "fp": fp, "fn": fn} for t, (tp, fp, fn) in counts.items()}
    return {"corpus": "trafilatura", "type": "x", "fold": fold, "group": group, "scores": scores}


def test_each_group_gets_the_threshold_its_pages_score_best_at() -> None:
    found = [
        wcxb("article/article", 0, {0.3: 0.5, 0.4: 0.6, 0.5: 0.9}),
        wcxb("not-article/region", 0, {0.3: 0.8, 0.4: 0.7, 0.5: 0.6}),
    ]
    assert choose_thresholds(found, GRID, floor=None) == {
        "article/article": 0.5,
        "not-article/region": 0.3,
    }


def test_a_tie_leaves_the_group_at_the_baseline() -> None:
    found = [wcxb("article/block", 0, dict.fromkeys(GRID, 0.7))]
    assert choose_thresholds(found, GRID, floor=None) == {"article/block": BASELINE}


def test_precision_under_the_floor_costs_more_than_the_f1_it_buys() -> None:
    # At 0.3 the snippet F1 is higher (more found) but precision is 0.8, under the floor.
    found = [snippets("article/article", 0, {0.3: (9, 2, 0), 0.4: (6, 0, 3), 0.5: (5, 0, 4)})]
    assert choose_thresholds(found, GRID, floor=None)["article/article"] == 0.3
    assert choose_thresholds(found, GRID, floor=0.9)["article/article"] == 0.4


def test_the_objective_is_the_mean_of_wcxb_f1_and_snippet_f1() -> None:
    pages, counts = Sums(), Sums()
    pages.add(wcxb("g", 0, {0.4: 0.8}), 0.4)
    counts.add(snippets("g", 0, {0.4: (3, 1, 0)}), 0.4)
    assert objective([pages, counts]) == (0.8 + 6 / 7) / 2


def test_a_page_is_cut_at_the_threshold_chosen_on_the_other_folds() -> None:
    found = [
        wcxb("article/article", 0, {0.3: 0.1, 0.4: 0.1, 0.5: 0.9}),
        wcxb("article/article", 1, {0.3: 0.9, 0.4: 0.1, 0.5: 0.1}),
        wcxb("not-article/block", 1, {0.3: 0.9, 0.4: 0.1, 0.5: 0.1}),
    ]
    # Fold 0's page is cut where fold 1's pages score best, and the reverse; a group no
    # training page fell in keeps the baseline.
    assert held_out(found) == [0.3, 0.5, BASELINE]
