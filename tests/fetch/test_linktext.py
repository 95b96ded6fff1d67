from spyglass.fetch.linktext import link_text


def test_links_and_images_are_read_as_their_labels() -> None:
    markdown = "See [the tides](https://example.org/t) and ![a chart](c.png) today."
    assert link_text(markdown) == "See the tides and a chart today."


def test_text_without_links_comes_back_as_it_is() -> None:
    markdown = "Brackets [alone] and (parentheses) are not links."
    assert link_text(markdown) is markdown


def test_a_link_does_not_reach_across_lines() -> None:
    assert link_text("[half\nlabel](x)") == "[half\nlabel](x)"
