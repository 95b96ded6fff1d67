"""The publication date: declared, or shown where the page marks a date; never guessed."""

from __future__ import annotations

from lxml import html as lxml_html

from spyglass.extract.published import published_date

URL = "https://blog.example/posts/a-walk-by-the-river"


def dated(body: str, head: str = "") -> str | None:
    page = f"<html><head>{head}</head><body>{body}</body></html>"
    return published_date(lxml_html.document_fromstring(page), URL)


def test_a_date_declared_in_meta_tags_wins_over_one_shown_in_a_byline() -> None:
    head = '<meta property="article:published_time" content="2024-05-02T08:00:00Z">'
    body = '<div class="byline">By Ada Baker, June 3, 2024</div><p>Text.</p>'
    assert dated(body, head) == "2024-05-02"


def test_a_date_shown_in_an_element_named_as_a_date_is_read() -> None:
    body = (
        '<article><h1>A walk by the river</h1><span class="post-date">March 7, 2023</span>'
        "<p>We set off early, before the mist had lifted from the water.</p></article>"
    )
    assert dated(body) == "2023-03-07"


def test_a_date_in_a_byline_is_read() -> None:
    body = (
        '<article><div class="byline">By Ada Baker · Published 12 January 2022</div>'
        "<p>Words of the story.</p></article>"
    )
    assert dated(body) == "2022-01-12"


def test_a_date_only_in_the_running_text_is_not_read() -> None:
    body = "<article><p>The depot closed on 12 March 2019 and reopened later.</p></article>"
    assert dated(body) is None


def test_a_date_in_the_page_footer_is_not_taken_as_the_publication_date() -> None:
    body = (
        "<article><p>Words of the story.</p></article>"
        '<footer><div class="footer-meta">Last changed 4 April 2025</div></footer>'
    )
    assert dated(body) is None


def test_a_date_in_figures_that_reads_two_ways_is_not_read() -> None:
    body = '<article><span class="post-date">09/10/2024</span><p>Words.</p></article>'
    assert dated(body) is None


def test_a_date_in_figures_with_a_day_past_twelve_is_read() -> None:
    body = '<article><span class="post-date">25/10/2024</span><p>Words.</p></article>'
    assert dated(body) == "2024-10-25"


def test_too_many_elements_named_as_dates_say_nothing() -> None:
    items = "".join(f'<li class="event-date">March {day % 28 + 1}, 2023</li>' for day in range(160))
    assert dated(f"<ul>{items}</ul>") is None


def test_only_the_opening_words_of_a_marked_element_are_read() -> None:
    # A wrapper named as a post's details holding the whole story: its date comes first,
    # and a date deep in its text is not read as the publication date.
    story = " ".join(["The river rose slowly through the night."] * 200)
    body = f'<div class="post-info"><p>{story}</p><p>Filed on May 5, 2021</p></div>'
    assert dated(body) is None


def test_a_later_marked_date_does_not_stand_in_for_a_first_that_reads_two_ways() -> None:
    body = (
        '<article><span class="post-date">09/10/2024</span><p>Words of the story.</p>'
        '<div class="comment-date">March 3, 2025</div></article>'
    )
    assert dated(body) is None
