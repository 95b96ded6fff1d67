"""The shipped models load from the package and score rows the same way every time."""

from __future__ import annotations

from lxml import html as lxml_html

from spyglass.extract.blocks import BLOCK_FEATURES
from spyglass.extract.html import readings
from spyglass.extract.learned import CHOOSER, choose, content_chances, predict

PAGE = (
    "<html><head><title>A</title></head><body><main><article><h1>A story</h1>"
    + "<p>A sentence of the story that goes on for a while to look like prose.</p>" * 6
    + "</article></main></body></html>"
)


def test_the_chooser_scores_a_page_deterministically_and_picks_a_candidate() -> None:
    rows = readings(lxml_html.document_fromstring(PAGE), "https://example.com/a").rows
    first = predict(CHOOSER, rows)
    assert first == predict(CHOOSER, rows)
    assert len(first) == 3
    assert choose(rows) in (0, 1, 2)


def test_block_chances_are_probabilities() -> None:
    # A block row: the block's own features, then its reading's row of the chooser.
    context = readings(lxml_html.document_fromstring(PAGE), "https://example.com/a").rows[0]
    row = [0.0] * len(BLOCK_FEATURES) + context
    chances = content_chances([row, row])
    assert len(chances) == 2
    assert all(0.0 <= chance <= 1.0 for chance in chances)
    assert chances[0] == chances[1]


def test_no_rows_need_no_model() -> None:
    assert content_chances([]) == []
