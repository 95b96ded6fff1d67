from spyglass.extract.article_lead import line_key, with_lead

ARTICLE = (
    "The council voted on Tuesday to keep the library open on Sundays.\n\n"
    "Members argued for two hours before the vote."
)


def test_the_lines_between_the_headline_and_the_articles_first_line_come_first() -> None:
    region = (
        "[Home](https://example.org/) [News](https://example.org/news)\n\n"
        "# Library stays open\n\n"
        "**Sunday opening was saved by one vote.**\n\n" + ARTICLE + "\n\nMore news"
    )
    assert with_lead(ARTICLE, region) == ("**Sunday opening was saved by one vote.**\n\n" + ARTICLE)


def test_nothing_is_added_without_a_heading_above_the_article() -> None:
    region = "[Home](https://example.org/) [News](https://example.org/news)\n\n" + ARTICLE
    assert with_lead(ARTICLE, region) == ARTICLE


def test_nothing_is_added_when_the_region_does_not_have_the_article() -> None:
    assert with_lead(ARTICLE, "# Elsewhere\n\nSomething else entirely.") == ARTICLE
    assert with_lead(ARTICLE, "") == ARTICLE
    assert with_lead("", "# Title\n\nA lead.") == ""


def test_an_article_that_starts_right_under_the_headline_is_left_as_it_is() -> None:
    assert with_lead(ARTICLE, "# Library stays open\n\n" + ARTICLE) == ARTICLE


def test_lines_the_article_has_further_down_are_not_added_twice() -> None:
    region = "# Library stays open\n\nMembers argued for two hours before the vote.\n\n" + ARTICLE
    assert with_lead(ARTICLE, region) == ARTICLE


def test_the_same_line_in_two_markdown_forms_has_one_key() -> None:
    assert line_key("**Sunday** [opening](https://example.org/a) saved!") == (
        line_key("Sunday opening saved")
    )
    assert line_key("  ") == ""
