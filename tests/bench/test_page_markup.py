"""What the markup's names, title and address say of a page's type (round eight)."""

from __future__ import annotations

import math

from bench.page_markup import type_features
from lxml import html as lxml_html


def features(body: str, title: str = "", url: str = "https://example.org/") -> dict[str, float]:
    markup = f"<html><head><title>{title}</title></head><body>{body}</body></html>"
    return type_features(lxml_html.document_fromstring(markup), url)


def test_an_element_named_twice_for_one_group_counts_once_and_plurals_count_too() -> None:
    found = features(
        '<div class="product-price product-card" id="products">9</div><p class="comments">x</p>'
    )
    assert found["named_product"] == math.log1p(1)
    # "card" names the grid-of-boxes group as well.
    assert found["named_card"] == math.log1p(1)
    assert found["named_forum"] == math.log1p(1)
    assert found["named_docs"] == 0.0


def test_itemprop_names_count_like_classes() -> None:
    assert features('<span itemprop="price">12</span>')["named_product"] == math.log1p(1)


def test_one_class_repeated_over_boxes_is_the_grid_of_a_listing() -> None:
    cards = "".join('<li class="tile">a</li>' for _ in range(5))
    found = features(f"<ul>{cards}</ul><div class='one'></div><div class='one'></div>")
    assert found["box_repeat_max"] == math.log1p(5)
    assert found["box_repeat_second"] == math.log1p(2)
    # Only classes on four or more boxes count as repeated.
    assert found["box_classes_repeated"] == math.log1p(1)


def test_prices_pagination_title_and_path_words_are_read() -> None:
    found = features(
        '<p>Now $ 12.99</p><p>only 5€</p><a rel="next" href="/2">next</a>',
        title="Garden chairs | Shop",
        url="https://example.org/category/chairs?page=2",
    )
    assert found["prices"] == math.log1p(2)
    assert found["rel_next"] == 1.0
    assert found["title_product"] == 1.0
    assert found["title_parts"] == 1.0
    assert found["path_listing"] == 1.0
    assert found["query_page"] == 1.0
    assert found["path_html"] == 0.0


def test_a_page_naming_nothing_has_zeros_for_every_group() -> None:
    found = features("<p>Plain text.</p>")
    assert all(found[f"named_{g}"] == 0.0 for g in ("product", "card", "forum", "article"))
